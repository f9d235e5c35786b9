#include "EngineRequests.h"

#include "Database.h"
#include "Engine.h"

namespace steward {

std::string beginOperationBatch(Engine &engine)
{
    if (engine.inBatch())
        return "the engine is already inside a batch; finish it first";
    try {
        engine.beginBatch();
    } catch (const StorageError &e) {
        return e.what(); // names the database and why (locked, read-only)
    } catch (const std::exception &e) {
        return std::string("cannot begin the transaction: ") + e.what();
    }
    return {};
}

std::string finishOperationBatch(Engine &engine, bool commit)
{
    if (!commit) {
        engine.rollbackBatch();
        return {};
    }
    try {
        engine.commitBatch();
    } catch (const std::exception &e) {
        // A COMMIT that failed leaves its transaction open (commitBatch rolled back a broken one).
        engine.rollbackBatch();
        return e.what();
    }
    return {};
}

} // namespace steward
