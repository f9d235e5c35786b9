#pragma once

#include "ApiSchema.h"
#include "DocumentJournal.h"
#include "Protocol.h"
#include "ResponseText.h"

#include <string>

namespace steward {

// What the data-quality operations share about the requests they send through Engine::handle
// (succeeded and problemSummary: protocol/ResponseText.h).

class Engine;

// The one transaction of a document operation (cascade delete, merge, re-point, identity change):
// begun only outside another batch; returns what stopped it, empty when it began.
std::string beginOperationBatch(Engine &engine);
// Commits it when `commit`, rolls it back otherwise; returns why a commit failed (the batch is then
// rolled back too), empty when it went through or was meant to roll back.
std::string finishOperationBatch(Engine &engine, bool commit);

} // namespace steward
