#include "AppSession.h"

#include "Clock.h"
#include "Database.h"
#include "DatabaseWatcher.h"
#include "ModelRecord.h"
#include "Tidy.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

QString describeDocument(const steward::StoredDocument &document)
{
    const steward::Json identity = steward::Json::parse(document.identity, nullptr, false);
    QString text = QString::fromStdString(document.resource) + QLatin1Char(' ')
                   + QString::fromStdString(steward::naturalKeyText(identity));
    const steward::Json body = steward::Json::parse(document.body, nullptr, false);
    if (!body.is_object())
        return text;
    std::string name;
    for (const char *key : {"nameOfInstitution", "courseTitle", "shortDescription", "classPeriodName", "surveyTitle"})
        if (body.contains(key) && body[key].is_string()) {
            name = body[key].get<std::string>();
            break;
        }
    if (name.empty() && body.contains("firstName") && body.contains("lastSurname") && body["firstName"].is_string()
        && body["lastSurname"].is_string())
        name = body["firstName"].get<std::string>() + " " + body["lastSurname"].get<std::string>();
    if (!name.empty())
        text += QStringLiteral(" '%1'").arg(QString::fromStdString(name));
    return text;
}

namespace {

// The model a session opens with: the one the database records unless files or the starter are asked
// for; a choice that leaves stored documents out is asked about first. Null with error set when not.
steward::ModelChoice modelChoice(const QStringList &schemaFiles, bool starterModel)
{
    steward::ModelChoice choice;
    if (starterModel) {
        choice.kind = steward::ModelChoice::Kind::Starter;
    } else if (!schemaFiles.isEmpty()) {
        choice.kind = steward::ModelChoice::Kind::Files;
        std::vector<std::string> paths;
        for (const QString &file : schemaFiles)
            paths.push_back(file.toStdString());
        choice.files = steward::readSchemaTexts(paths);
    }
    return choice;
}

std::unique_ptr<steward::Model> openSessionModel(steward::Database &database, const steward::ModelChoice &choice,
                                                 std::unique_ptr<steward::Model> loaded,
                                                 const AppSession::ConfirmOutside &confirmOutside, QString *error)
{
    steward::ModelOpening opening = steward::openModel(database, choice, false, std::move(loaded));
    if (opening.model)
        return std::move(opening.model);
    const QString outside = QString::fromStdString(steward::describeDocumentsOutside(opening.outside));
    if (confirmOutside && confirmOutside(outside)) {
        opening = steward::openModel(database, choice, true);
        return std::move(opening.model);
    }
    if (error)
        *error = QObject::tr("The database keeps its model: documents stored in it would fall outside the "
                             "one chosen (%1).")
                     .arg(outside);
    return nullptr;
}

} // namespace

std::unique_ptr<AppSession> AppSession::open(const QString &databasePath, const QStringList &schemaFiles,
                                             QString *error, const ConfirmOutside &confirmOutside, bool starterModel)
{
    std::unique_ptr<AppSession> session(new AppSession);
    session->m_databasePath = databasePath;
    try {
        // A file that does not load fails before the database is opened (or made).
        const steward::ModelChoice choice = modelChoice(schemaFiles, starterModel);
        std::unique_ptr<steward::Model> loaded = steward::loadChosenModel(choice);
        session->m_database = steward::Database::open(databasePath.toStdString());
        session->m_model = openSessionModel(*session->m_database, choice, std::move(loaded), confirmOutside, error);
        if (!session->m_model)
            return nullptr;
    } catch (const std::exception &e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return nullptr;
    }
    session->m_engine = std::make_unique<steward::Engine>(*session->m_model, *session->m_database);
    session->m_engine->setChangeSource("edit in the app");
    session->m_descriptorLabels = std::make_unique<DescriptorLabels>(*session->m_engine);
    // Any write may add, change or remove a descriptor value.
    AppSession *raw = session.get();
    QObject::connect(raw, &AppSession::documentsChanged, raw, [raw] { raw->m_descriptorLabels->forget(); });
    session->m_database->startBackgroundCheckpoints();
    session->startWatching();
    // Idle time comes between a steward's actions: a minute without a job is enough.
    session->m_idleTimer.setInterval(60 * 1000);
    connect(&session->m_idleTimer, &QTimer::timeout, session.get(), [raw = session.get()] {
        raw->tidyUpWhenIdle();
    });
    session->m_idleTimer.start();
    return session;
}

void AppSession::tidyUpWhenIdle()
{
    if (DatabaseWatcher::paused() || m_tidying)
        return;
    m_tidying = true;
    auto *done = new QFutureWatcher<void>(this);
    connect(done, &QFutureWatcher<void>::finished, this, [this, done] {
        m_tidying = false;
        done->deleteLater();
    });
    const std::string path = m_database->path();
    done->setFuture(QtConcurrent::run([path] {
        try {
            const std::unique_ptr<steward::Database> database = steward::Database::open(path);
            steward::tidyUp(*database);
        } catch (const std::exception &) {
            // Busy or unreadable: free pages stay inside the file and are reused; the next idle minute
            // tries again. (A damaged file shows in Tools > Check database, not here.)
        }
    }));
}

steward::UndoRetention AppSession::undoRetention()
{
    return steward::UndoRetention::read(m_database->connection());
}

void AppSession::setUndoRetention(const steward::UndoRetention &retention)
{
    steward::ImmediateTransaction transaction(m_database->connection());
    retention.write(m_database->connection());
    steward::EditJournal(m_database->connection()).forgetBeyond(retention, steward::engineNowText());
    transaction.commit();
    if (m_watcher)
        m_watcher->catchUp();
}

void AppSession::startWatching()
{
    try {
        m_watcher = std::make_unique<DatabaseWatcher>(m_databasePath);
    } catch (const std::exception &) {
        return; // the app still works; it only will not see other programs' writes
    }
    connect(m_watcher.get(), &DatabaseWatcher::changedElsewhere, this,
            [this](qint64 since, qint64 newest, const QStringList &resources) {
                m_ruleCatalog.reset();
                if (!resources.isEmpty())
                    Q_EMIT documentsChanged(QString(), QString());
                // Drafts, results and conflicts keep no change log: any commit may have changed them.
                Q_EMIT draftsChanged(QString(), QString());
                Q_EMIT qualityChanged();
                Q_EMIT changedElsewhere(since, newest, resources);
            });
    // This window's own writes are announced where they are made.
    const auto ownWrite = [this] { m_watcher->catchUp(); };
    connect(this, &AppSession::documentsChanged, m_watcher.get(), ownWrite);
    connect(this, &AppSession::draftsChanged, m_watcher.get(), ownWrite);
    connect(this, &AppSession::qualityChanged, m_watcher.get(), ownWrite);
}

AppSession::~AppSession()
{
    m_watcher.reset();
    m_descriptorLabels.reset();
    m_engine.reset();
    m_database.reset();
}

const steward::ResourceSchema *AppSession::resourceByName(const std::string &project, const std::string &resource) const
{
    return m_model->findByName(project, resource);
}

namespace {

steward::Request makeRequest(const std::string &method, const std::string &path, const steward::Json &body,
                             const std::string &ifMatch)
{
    steward::Request request = steward::Request::make(method, path, steward::currentOsUser(), body);
    if (!ifMatch.empty())
        request.headers["if-match"] = ifMatch; // quoted by the caller, as it was served
    return request;
}

} // namespace

steward::Response AppSession::request(const std::string &method, const std::string &path, const steward::Json &body,
                                      const std::string &ifMatch)
{
    steward::Response response = m_engine->handle(makeRequest(method, path, body, ifMatch));
    if (method != "GET" && response.status >= 200 && response.status < 300) {
        // Any write may cascade to other resources (identity updates); views refresh what they show.
        Q_EMIT documentsChanged(QString(), QString());
    }
    return response;
}

steward::Response AppSession::validate(const std::string &method, const std::string &path, const steward::Json &body)
{
    return m_engine->validate(makeRequest(method, path, body, {}));
}

std::int64_t AppSession::saveDraft(const steward::ResourceSchema &resource, const QString &text,
                                   const QString &targetId, std::int64_t draftId)
{
    const std::int64_t id = m_engine->saveDraft(resource, text.toStdString(), targetId.toStdString(), draftId);
    Q_EMIT draftsChanged(QString::fromStdString(resource.projectName()), QString::fromStdString(resource.resourceName));
    return id;
}

bool AppSession::deleteDraft(std::int64_t draftId)
{
    std::optional<steward::Draft> draft = m_engine->draft(draftId);
    const bool removed = m_engine->deleteDraft(draftId);
    if (draft)
        Q_EMIT draftsChanged(QString::fromStdString(draft->project), QString::fromStdString(draft->resource));
    return removed;
}

steward::RevalidateReport AppSession::revalidateDrafts(const std::function<bool(int, int)> &progress)
{
    steward::RevalidateReport report = m_engine->revalidateDrafts(progress);
    return report;
}

void AppSession::announceEverythingChanged()
{
    m_ruleCatalog.reset();
    Q_EMIT documentsChanged(QString(), QString());
    Q_EMIT draftsChanged(QString(), QString());
    Q_EMIT qualityChanged();
}

void AppSession::announceQualityChanged()
{
    m_ruleCatalog.reset();
    Q_EMIT qualityChanged();
}

const steward::RuleCatalog &AppSession::ruleCatalog()
{
    if (!m_ruleCatalog)
        m_ruleCatalog = steward::RuleCatalog::read(m_database->connection(), *m_model);
    return *m_ruleCatalog;
}

steward::RecordFacts AppSession::recordFacts(const QString &id, bool validateStored)
{
    steward::RecordFactsOptions options;
    options.validateStored = validateStored;
    options.rules = &ruleCatalog();
    return steward::readRecordFacts(*m_engine, id.toStdString(), options);
}
