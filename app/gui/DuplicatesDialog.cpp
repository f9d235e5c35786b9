#include "DuplicatesDialog.h"

#include "AppSession.h"
#include "IdentityChange.h"
#include "Prompt.h"
#include "Progress.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <map>

namespace {

// "addresses[0].city" → its value as text, for every leaf of a body.
void flatten(const steward::Json &value, const std::string &prefix, std::map<std::string, std::string> &out)
{
    if (value.is_object()) {
        for (auto it = value.begin(); it != value.end(); ++it)
            flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
    } else if (value.is_array()) {
        for (std::size_t i = 0; i < value.size(); ++i)
            flatten(value[i], prefix + "[" + std::to_string(i) + "]", out);
    } else {
        out[prefix] = value.is_string() ? value.get<std::string>() : value.dump();
    }
}

QString stepsText(const steward::IdentityChangeResult &result)
{
    QStringList lines;
    for (const steward::IdentityStep &step : result.steps)
        lines << QString::fromStdString(step.describe());
    return lines.join(QLatin1Char('\n'));
}

} // namespace

DuplicatesDialog::DuplicatesDialog(AppSession &session, QWidget *parent)
    : QDialog(parent)
    , m_session(session)
{
    setWindowTitle(tr("Possible duplicates"));
    resize(860, 520);
    auto *layout = new QVBoxLayout(this);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    m_pairs = new QListWidget(splitter);
    m_pairs->setObjectName(QStringLiteral("duplicatePairs"));
    m_fields = new QTableWidget(0, 3, splitter);
    m_fields->setObjectName(QStringLiteral("duplicateFields"));
    m_fields->setHorizontalHeaderLabels({tr("Field"), tr("Left"), tr("Right")});
    m_fields->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_fields->verticalHeader()->setVisible(false);
    m_fields->setEditTriggers(QAbstractItemView::NoEditTriggers);
    splitter->setStretchFactor(1, 2);
    layout->addWidget(splitter, 1);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_distinct = buttons->addButton(tr("&Distinct people"), QDialogButtonBox::ActionRole);
    m_distinct->setObjectName(QStringLiteral("markDistinct"));
    m_mergeLeft = buttons->addButton(tr("Merge into &left…"), QDialogButtonBox::ActionRole);
    m_mergeLeft->setObjectName(QStringLiteral("mergeLeft"));
    m_mergeRight = buttons->addButton(tr("Merge into &right…"), QDialogButtonBox::ActionRole);
    m_mergeRight->setObjectName(QStringLiteral("mergeRight"));
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_distinct, &QPushButton::clicked, this, &DuplicatesDialog::markDistinct);
    connect(m_mergeLeft, &QPushButton::clicked, this, &DuplicatesDialog::mergeIntoLeft);
    connect(m_mergeRight, &QPushButton::clicked, this, &DuplicatesDialog::mergeIntoRight);
    connect(m_pairs, &QListWidget::currentRowChanged, this, &DuplicatesDialog::showPair);
    reload();
}

const steward::DuplicateCandidate *DuplicatesDialog::current() const
{
    const int row = m_pairs->currentRow();
    return row >= 0 && row < static_cast<int>(m_candidates.size()) ? &m_candidates[static_cast<std::size_t>(row)]
                                                                    : nullptr;
}

void DuplicatesDialog::reload()
{
    const QString path = m_session.databasePath();
    const steward::Model *model = &m_session.model();
    m_candidates = runWithProgress<std::vector<steward::DuplicateCandidate>>(
        this, tr("Looking for duplicates…"), [path, model](const std::function<bool(int, int)> &) {
            try {
                std::unique_ptr<steward::Database> reader =
                    steward::Database::open(path.toStdString(), steward::Database::Access::ReadOnly);
                return steward::findDuplicateCandidates(reader->connection(), *model);
            } catch (const std::exception &) {
                return std::vector<steward::DuplicateCandidate>{};
            }
        });
    m_pairs->clear();
    for (const steward::DuplicateCandidate &c : m_candidates)
        m_pairs->addItem(tr("%1 born %2: %3 (%4)  ~  %5 (%6)%7")
                             .arg(QString::fromStdString(c.resource), QString::fromStdString(c.birthDate),
                                  QString::fromStdString(c.leftName), QString::fromStdString(c.leftKey),
                                  QString::fromStdString(c.rightName), QString::fromStdString(c.rightKey),
                                  c.swapped ? tr("  (names swapped)") : QString()));
    m_summary->setText(m_candidates.empty()
                           ? tr("No likely duplicates: no two students or staff born the same day have nearly the same name.")
                           : (m_candidates.size() == 1 ? tr("One pair born the same day with nearly the same name.")
                                                           : tr("%1 pairs born the same day with nearly the same name.")
                                                                 .arg(m_candidates.size()))
                                 + tr(" Decide for each: different people, or one person to merge (everything that "
                                      "references the other moves over)."));
    if (!m_candidates.empty())
        m_pairs->setCurrentRow(0);
    else
        showPair(-1);
}

void DuplicatesDialog::showPair(int row)
{
    m_fields->setRowCount(0);
    const bool any = row >= 0 && row < static_cast<int>(m_candidates.size());
    m_distinct->setEnabled(any);
    m_mergeLeft->setEnabled(any);
    m_mergeRight->setEnabled(any);
    if (!any)
        return;
    const steward::DuplicateCandidate &c = m_candidates[static_cast<std::size_t>(row)];
    std::map<std::string, std::string> left;
    std::map<std::string, std::string> right;
    if (std::optional<steward::StoredDocument> doc = m_session.engine().document(c.leftId))
        flatten(steward::Json::parse(doc->body), "", left);
    if (std::optional<steward::StoredDocument> doc = m_session.engine().document(c.rightId))
        flatten(steward::Json::parse(doc->body), "", right);
    std::map<std::string, std::pair<std::string, std::string>> rows;
    for (const auto &[field, value] : left)
        rows[field].first = value;
    for (const auto &[field, value] : right)
        rows[field].second = value;
    m_fields->setRowCount(static_cast<int>(rows.size()));
    int r = 0;
    for (const auto &[field, values] : rows) {
        const bool differs = values.first != values.second;
        const QString texts[] = {QString::fromStdString(field), QString::fromStdString(values.first),
                                 QString::fromStdString(values.second)};
        for (int column = 0; column < 3; ++column) {
            auto *item = new QTableWidgetItem(texts[column]);
            if (differs) // what tells the two apart is what the steward has to judge
                item->setBackground(QColor(0xff, 0xef, 0xb3));
            m_fields->setItem(r, column, item);
        }
        ++r;
    }
}

void DuplicatesDialog::markDistinct()
{
    const steward::DuplicateCandidate *c = current();
    if (c == nullptr)
        return;
    try {
        steward::markDistinct(m_session.database(), c->leftId, c->rightId, steward::currentOsUser());
    } catch (const std::exception &e) {
        Prompt::inform(this, tr("Distinct people"), QString::fromStdString(e.what()));
        return;
    }
    reload();
}

void DuplicatesDialog::mergeIntoLeft()
{
    merge(true);
}

void DuplicatesDialog::mergeIntoRight()
{
    merge(false);
}

void DuplicatesDialog::merge(bool keepLeft)
{
    const steward::DuplicateCandidate *c = current();
    if (c == nullptr)
        return;
    const std::string keep = keepLeft ? c->leftId : c->rightId;
    const std::string drop = keepLeft ? c->rightId : c->leftId;
    const QString keepKey = QString::fromStdString(keepLeft ? c->leftKey : c->rightKey);
    const QString dropKey = QString::fromStdString(keepLeft ? c->rightKey : c->leftKey);
    const steward::IdentityChangeResult preview = steward::mergeDocuments(m_session.engine(), keep, drop, false);
    if (!preview.ok) {
        Prompt::inform(this, tr("Merge"), tr("%1 cannot be merged into %2: %3")
                                               .arg(dropKey, keepKey, QString::fromStdString(preview.error)));
        return;
    }
    if (Prompt::ask(this, tr("Merge"),
                    tr("Merge %1 into %2? These %3 steps run in one transaction:\n\n%4")
                        .arg(dropKey, keepKey, QString::number(preview.steps.size()), stepsText(preview)),
                    QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel)
        != QMessageBox::Yes)
        return;
    const steward::IdentityChangeResult applied =
        steward::mergeDocuments(m_session.engine(), keep, drop, true, &preview.steps);
    if (!applied.ok)
        Prompt::inform(this, tr("Merge"), tr("Nothing was merged: %1").arg(QString::fromStdString(applied.error)));
    else
        m_session.announceEverythingChanged();
    reload();
}
