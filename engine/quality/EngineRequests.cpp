#include "EngineRequests.h"

#include "Database.h"
#include "Engine.h"

namespace steward {

bool succeeded(const Response &response)
{
    return response.status >= 200 && response.status < 300;
}

std::string problemSummary(const Json &problem)
{
    if (!problem.is_object())
        return {};
    std::string text = problem.value("detail", std::string());
    std::string fields;
    if (auto errors = problem.find("validationErrors"); errors != problem.end() && errors->is_object())
        for (const auto &[path, messages] : errors->items())
            for (const Json &message : messages)
                if (message.is_string())
                    fields += (fields.empty() ? "" : "; ") + path + ": " + message.get<std::string>();
    if (auto errors = problem.find("errors"); errors != problem.end() && errors->is_array())
        for (const Json &message : *errors)
            if (message.is_string())
                fields += (fields.empty() ? "" : "; ") + message.get<std::string>();
    if (!fields.empty())
        text += " (" + fields + ")";
    return text;
}

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
