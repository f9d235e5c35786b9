#pragma once

#include "Database.h"
#include "Engine.h"
#include "Importer.h"
#include "PushReport.h"
#include "Reconcile.h"
#include "Sync.h"

#include <optional>
#include <string>
#include <vector>

namespace steward {

struct PullReport
{
    ImportReport outcome; // created / updated / unchanged / drafts, per resource, as an import reports them
    int pages = 0;
    int requests = 0;         // data and Change Queries requests made
    bool incremental = false; // only what changed since the last pull (the target has Change Queries)
    std::optional<std::int64_t> changeVersion; // the target's newest change version this pull reached
    int keyChanges = 0;
    int deleted = 0;              // local documents deleted because the target deleted them
    std::vector<Json> deletesRefused; // deletes the local database refused (still referenced here)
    int merged = 0;     // changed on both sides without overlap: merged here, to be pushed
    int keptHere = 0;   // changed here only (or deleted here): left for the push
    int conflicts = 0;  // changed on both sides in ways that do not merge: kept for a person
};

// One pull's decisions, on what the target answered, with no HTTP in it: the change window to ask
// for, how a page's documents are stored (new ones posted; one pulled before updated where it is, so
// a change of its identity there moves it here too; one changed here as well merged or kept as a
// conflict by the Reconciler), which local document a key change or a delete names, and what waits
// for a reference that comes on a later page. The front end (app/net) asks for the pages and feeds
// and hands them over in load order.
class PullSession
{
public:
    PullSession(Engine &engine, Database &database, const std::string &url, const std::string &client,
                const SyncSafeguards &safeguards = {});

    const SyncTarget &target() const { return m_target; }
    // The target's newest change version (none: it has no Change Queries, or did not say): sets the
    // window every page and feed is asked in. False when nothing changed there since the last pull.
    bool setNewestChangeVersion(std::optional<std::int64_t> newest);
    // "&minChangeVersion=..&maxChangeVersion=.." (or only the max, the first time); empty without
    // Change Queries.
    const std::string &window() const { return m_window; }
    bool incremental() const { return m_report.incremental; }

    // A document of a page, as pulled: the target's id and etag, the body without the API's fields,
    // and (prepared ahead) its validation, identity and stored text as a POST would store it.
    struct Pending
    {
        const ResourceSchema *resource = nullptr;
        std::string remoteId;
        std::string etag; // the target's, of this version
        Json body;
        std::string origin;
        std::int64_t position = 0;
        std::optional<PreparedBody> prepared;
    };
    using PreparedPage = std::vector<Pending>;

    // A page of a resource as the target served it, made ready to store: const and reading only the
    // model, so it runs on another thread while the page before is written. Documents are prepared
    // for their POST only on a first pull from the target (see the constructor). origin: where it came
    // from (for drafts), offset: the position of its first document.
    // items is taken, not copied: its documents move into the page.
    PreparedPage preparePage(const ResourceSchema &resource, Json items, const std::string &origin,
                             std::int64_t offset) const;
    // A prepared page, stored. moreAtHand: the next page is here already, so its writes may go in the
    // same transaction (one commit for a few pages; none is held open waiting for the network).
    void takePage(const PreparedPage &page, bool moreAtHand = false);
    // The same on this thread: prepared, then stored.
    void takePage(const ResourceSchema &resource, Json items, const std::string &origin, std::int64_t offset);
    // References to documents of the same resource that came on a later page, stored now.
    void retryUnresolved();
    // A resource's key changes (Change Queries' keyChanges feed): the target's id of each is recorded
    // for the local document its old key values name, so the new version moves it.
    void takeKeyChanges(const ResourceSchema &resource, const std::vector<Json> &entries);
    // A resource's deletes there (the deletes feed): deleted here, unless changed here (a conflict) or
    // still referenced here (reported).
    void takeDeletes(const ResourceSchema &resource, const std::vector<Json> &entries);
    // A page or feed the target did not serve: the pull stops there.
    void stopAt(const std::string &path, const std::string &why);
    // A write here that failed: what the batch held is rolled back, the pages before it stay.
    void failed(const std::string &why);
    // Records a completed pull (and the change version it reached).
    PullReport finish();
    PullReport &report() { return m_report; }

    // Change Queries' newest change version in an availableChangeVersions answer, read
    // case-insensitively (older ODS/APIs capitalized it).
    static std::optional<std::int64_t> newestChangeVersion(const Json &body);

private:
    void apply(const std::vector<Pending> &pending, bool lastChance, bool moreAtHand = false);
    void commitTaken();
    bool commitTakenOrFail();
    Pending pendingFrom(const ResourceSchema &resource, Json item, const std::string &origin,
                        std::int64_t position) const;
    std::optional<std::string> localDocumentFor(const ResourceSchema &resource, const Json &entry, const char *keys);
    std::optional<std::int64_t> storedVersion(const std::string &localId);
    bool takesTheirs(const ResourceSchema &resource, const std::string &localId, const TargetCopy &theirs,
                     ImportCounts *counts = nullptr);

    Engine &m_engine;
    SyncState m_state;
    SyncTarget m_target;
    Reconciler m_reconciler;
    SyncSafeguards m_safeguards;
    std::string m_url;
    PullReport m_report;
    std::optional<std::int64_t> m_newest;
    std::string m_window;
    std::vector<Pending> m_unresolved;
    std::size_t m_uncommitted = 0; // documents taken in the open transaction
    bool m_prepareAhead = true;    // preparePage prepares each document's POST (a first pull from the target)
};

} // namespace steward
