#pragma once

#include "Json.h"

#include <cstdint>
#include <string>

namespace steward {

class Engine;

// Journal kinds whose items are whole documents before and after (deletes, creates and updates
// read back from the change log), undone by putDocumentsBack (engine/quality/Dependents.h): the
// document operations of quality/ and the resolution of a sync conflict (engine/sync).
bool isDocumentOperation(const std::string &kind);

// Records every document written after the change-log entry `since` (inside the caller's batch, before
// it commits) as one journal operation; returns its id (0 when nothing was written, unless
// evenWhenNothingChanged: a decision that changed no document, such as keeping a local delete
// against the target's edit, is still one to undo).
std::int64_t journalDocumentChanges(Engine &engine, std::int64_t since, const std::string &kind,
                                    const std::string &summary, const Json &detail, const std::string &actor,
                                    bool evenWhenNothingChanged = false);

} // namespace steward
