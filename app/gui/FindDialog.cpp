#include "FindDialog.h"
#include "ItemRoles.h"

#include "Database.h"
#include "SearchTerms.h"

#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace {

constexpr int kHitLimit = 50;
// Long enough for a word typed at speed to need one search, short enough to feel immediate.
constexpr int kTypingPauseMs = 120;

} // namespace

FindDialog::FindDialog(const QString &databasePath, QWidget *parent)
    : QDialog(parent)
    , m_databasePath(databasePath)
{
    setWindowTitle(tr("Find anything"));
    setObjectName(QStringLiteral("findDialog"));
    auto *layout = new QVBoxLayout(this);
    m_input = new QLineEdit(this);
    m_input->setObjectName(QStringLiteral("findInput"));
    m_input->setAccessibleName(tr("Find documents by id, code or name"));
    m_input->setPlaceholderText(tr("Ids, codes, names: part of a last name, a school id, a course code…"));
    m_input->setClearButtonEnabled(true);
    m_hits = new QListWidget(this);
    m_hits->setObjectName(QStringLiteral("findHits"));
    m_hits->setAccessibleName(tr("Documents found"));
    m_hits->setUniformItemSizes(true);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("findStatus"));
    m_status->setWordWrap(true);
    layout->addWidget(m_input);
    layout->addWidget(m_hits, 1);
    layout->addWidget(m_status);
    m_typing.setSingleShot(true);
    m_typing.setInterval(kTypingPauseMs);
    connect(m_input, &QLineEdit::textChanged, this, [this] { m_typing.start(); });
    connect(&m_typing, &QTimer::timeout, this, &FindDialog::search);
    connect(&m_watcher, &QFutureWatcherBase::finished, this, &FindDialog::showHits);
    connect(m_hits, &QListWidget::itemActivated, this, [this] { openCurrent(); });
    connect(m_input, &QLineEdit::returnPressed, this, &FindDialog::openCurrent);
    m_status->setText(tr("Type two letters or more. Up and Down choose, Enter opens."));
    resize(640, 420);
}

void FindDialog::keyPressEvent(QKeyEvent *event)
{
    // The list follows Up and Down while the focus stays in the text.
    if ((event->key() == Qt::Key_Down || event->key() == Qt::Key_Up) && m_hits->count() > 0) {
        const int step = event->key() == Qt::Key_Down ? 1 : -1;
        m_hits->setCurrentRow(qBound(0, m_hits->currentRow() + step, m_hits->count() - 1));
        return;
    }
    QDialog::keyPressEvent(event);
}

void FindDialog::search()
{
    if (m_watcher.isRunning()) {
        m_typing.start(); // one search at a time; the newest text goes next
        return;
    }
    const QString text = m_input->text();
    if (steward::searchMatchExpression(text.toStdString()).empty()) {
        m_hits->clear();
        m_answered = text;
        m_status->setText(tr("Type two letters or more. Up and Down choose, Enter opens."));
        Q_EMIT answered();
        return;
    }
    m_searching = text;
    const std::string path = m_databasePath.toStdString();
    const std::string typed = text.toStdString();
    m_watcher.setFuture(QtConcurrent::run([path, typed] {
        try {
            std::unique_ptr<steward::Database> reader =
                steward::Database::open(path, steward::Database::Access::ReadOnly);
            return steward::searchDocuments(reader->connection(), typed, kHitLimit);
        } catch (const std::exception &) {
            return std::vector<steward::SearchHit>{};
        }
    }));
}

void FindDialog::showHits()
{
    if (m_searching != m_input->text()) {
        search(); // typed over meanwhile
        return;
    }
    const std::vector<steward::SearchHit> hits = m_watcher.result();
    m_hits->clear();
    for (const steward::SearchHit &hit : hits) {
        // The values it was found by that its natural key does not already say (a student's names).
        const QString key = QString::fromStdString(hit.naturalKey);
        const QStringList keyParts = key.split(QStringLiteral(" / "));
        QStringList others;
        for (const QString &word : QString::fromStdString(hit.terms).split(QLatin1Char(' '), Qt::SkipEmptyParts))
            if (!keyParts.contains(word) && !others.contains(word))
                others << word;
        QString text = QStringLiteral("%1  ·  %2").arg(QString::fromStdString(hit.resource),
                                                        m_keyLabel ? m_keyLabel(hit.naturalKey) : key);
        if (!others.isEmpty())
            text += QStringLiteral("  —  ") + others.join(QLatin1Char(' '));
        auto *item = new QListWidgetItem(text, m_hits);
        item->setData(kDocumentIdRole, QString::fromStdString(hit.id));
        item->setToolTip(tr("Found by: %1\nId: %2").arg(QString::fromStdString(hit.terms), QString::fromStdString(hit.id)));
    }
    if (!hits.empty())
        m_hits->setCurrentRow(0);
    m_status->setText(hits.empty() ? tr("Nothing matches “%1”.").arg(m_searching)
                      : hits.size() >= static_cast<std::size_t>(kHitLimit)
                          ? tr("The first %1 matches; type more to narrow them.").arg(kHitLimit)
                          : hits.size() == 1 ? tr("1 match. Enter opens it.")
                                             : tr("%1 matches. Enter opens the one chosen.").arg(hits.size()));
    m_answered = m_searching;
    Q_EMIT answered();
}

void FindDialog::openCurrent()
{
    const QListWidgetItem *item = m_hits->currentItem();
    if (item == nullptr)
        return;
    Q_EMIT documentChosen(item->data(kDocumentIdRole).toString());
    accept();
}
