#pragma once

#include "ApiSchema.h"
#include "Database.h"
#include "DocumentStore.h"
#include "Identity.h"
#include "Protocol.h"
#include "Validation.h"

#include <functional>
#include <memory>
#include <string>

namespace steward {

struct BusyRetryPolicy
{
    int retries = 4;
    int firstDelayMs = 50;
    int maxDelayMs = 500;
};

// Answers protocol requests against one database with one model. Owns the writer connection's
// statements; every write is one BEGIN IMMEDIATE transaction with its validation reads inside it.
class Engine
{
public:
    Engine(const Model &model, Database &database);
    ~Engine();
    Engine(const Engine &) = delete;
    Engine &operator=(const Engine &) = delete;

    Response handle(const Request &request);

    const Model &model() const { return m_model; }
    void setBusyRetryPolicy(const BusyRetryPolicy &policy) { m_retry = policy; }

    static constexpr int kReferencedByLimit = 100;

private:
    struct Target;
    Response dispatch(const Request &request);
    Response getById(const Target &target, const Request &request);
    Response getCollection(const Target &target, const Request &request);
    Response post(const Target &target, const Request &request);
    Response put(const Target &target, const Request &request);
    Response remove(const Target &target, const Request &request);

    Response withWriteTransaction(const std::function<Response()> &work);

    struct Resolved;
    // Stages 3 and 4: descriptors, then references; fills the alias keys the document points at.
    std::optional<Response> resolveReferences(const ResourceSchema &resource, const Json &body, Resolved &resolved);
    void writeAliases(const ResourceSchema &resource, const StoredDocument &document, const DocumentIdentity &own,
                      bool isNew);
    // Rewrites the documents that reference a document whose identity changed, through references of references.
    std::optional<Response> cascadeIdentityChange(const ResourceSchema &resource, const StoredDocument &before,
                                                  const StoredDocument &after, const std::string &actor,
                                                  const std::string &now, int depth);

    Json documentForClient(const StoredDocument &document) const;
    std::string locationOf(const ResourceSchema &resource, const std::string &id) const;

    const Model &m_model;
    Database &m_database;
    IdentityCalculator m_identity;
    const DocumentValidator &m_validator;
    DocumentStore m_store;
    BusyRetryPolicy m_retry;
};

// "user" from the environment, for the change log when no serve client is named.
std::string currentOsUser();

} // namespace steward
