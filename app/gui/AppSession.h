#pragma once

#include "DescriptorLabels.h"
#include "EditJournal.h"
#include "Engine.h"
#include "RecordFacts.h"

#include <QObject>
#include <QTimer>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>

class DatabaseWatcher;

// One open database with its model and the engine that owns its writer connection. Lives on the
// GUI thread; short engine calls are made here, long jobs borrow the engine while the UI waits
// behind a progress dialog. Views follow changes through its signals.
// "School 255901 'Grand Bend High School'": how a steward recognizes a document.
QString describeDocument(const steward::StoredDocument &document);

class AppSession : public QObject
{
    Q_OBJECT

public:
    // Asked when the model chosen would leave stored documents outside it ("Ed-Fi StudentTranscript
    // (12)"); true goes on and records it.
    using ConfirmOutside = std::function<bool(const QString &outside)>;
    // schemaFiles empty: the model the database records (a new database: the embedded starter model);
    // starterModel: the starter model. A model other than the recorded one is recorded. Throws
    // nothing; on failure (or a model refused) returns null and sets error.
    static std::unique_ptr<AppSession> open(const QString &databasePath, const QStringList &schemaFiles,
                                            QString *error, const ConfirmOutside &confirmOutside = {},
                                            bool starterModel = false);
    ~AppSession() override;

    const steward::Model &model() const { return *m_model; }
    steward::Engine &engine() { return *m_engine; }
    steward::Database &database() { return *m_database; }
    QString databasePath() const { return m_databasePath; }

    // A protocol request through the engine; successful writes announce documentsChanged.
    steward::Response request(const std::string &method, const std::string &path,
                              const steward::Json &body = nullptr, const std::string &ifMatch = {});
    steward::Response validate(const std::string &method, const std::string &path, const steward::Json &body);

    std::int64_t saveDraft(const steward::ResourceSchema &resource, const QString &text, const QString &targetId,
                           std::int64_t draftId);
    bool deleteDraft(std::int64_t draftId);
    steward::RevalidateReport revalidateDrafts(const std::function<bool(int, int)> &progress);

    // After a long job changed things behind the views' backs (revalidation, imports).
    void announceEverythingChanged();
    // After rules ran or results, acknowledgements or conflicts changed here.
    void announceQualityChanged();

    // Everything the engine knows about a stored record (validation of the stored text optional).
    steward::RecordFacts recordFacts(const QString &id, bool validateStored = false);
    // Rule titles and advice, read once and again after quality changes.
    const steward::RuleCatalog &ruleCatalog();
    // Other programs' writes: null when the database could not be opened a second time.
    DatabaseWatcher *watcher() const { return m_watcher.get(); }

    // How long undo lasts, as the database keeps it; setting it lets go of what it no longer keeps.
    steward::UndoRetention undoRetention();
    void setUndoRetention(const steward::UndoRetention &retention);

    const steward::ResourceSchema *resourceByName(const std::string &project, const std::string &resource) const;
    // How descriptor values read on screen; forgotten at every documentsChanged.
    DescriptorLabels &descriptorLabels() { return *m_descriptorLabels; }

Q_SIGNALS:
    void documentsChanged(const QString &project, const QString &resource);
    void draftsChanged(const QString &project, const QString &resource);
    // Rule results, state results, acknowledgements or sync conflicts changed.
    void qualityChanged();
    // Another program committed: what the change log gained (resources as "Project/Resource"). The
    // session has announced documentsChanged, draftsChanged and qualityChanged for it already.
    void changedElsewhere(qint64 since, qint64 newest, const QStringList &resources);

private:
    AppSession() = default;
    void startWatching();
    // The database's idle-time upkeep (steward::tidyUp: free pages given back, the text indexes
    // merged once a day, a VACUUM when due), on a worker thread with a writer connection of its own
    // so the window stays responsive; while no long job has the writer connection.
    void tidyUpWhenIdle();

    QString m_databasePath;
    std::unique_ptr<steward::Model> m_model;
    std::unique_ptr<steward::Database> m_database;
    std::unique_ptr<steward::Engine> m_engine;
    std::unique_ptr<DescriptorLabels> m_descriptorLabels;
    std::unique_ptr<DatabaseWatcher> m_watcher;
    std::optional<steward::RuleCatalog> m_ruleCatalog;
    QTimer m_idleTimer;
    bool m_tidying = false;
};
