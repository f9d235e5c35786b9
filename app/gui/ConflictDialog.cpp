#include "ConflictDialog.h"

#include "AppSession.h"
#include "FieldLabels.h"

#include <algorithm>

#include <QButtonGroup>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QTableWidget>
#include <QTextDocumentFragment>
#include <QUrl>
#include <QVBoxLayout>

namespace {

enum ConflictColumn
{
    FieldColumn,
    BaseColumn,
    MineColumn,
    TheirsColumn,
    DecisionColumn,
    ValueColumn,
};

// A value as a steward reads it: text without quotes, anything else as JSON; absent as nothing.
QString shown(const std::optional<steward::Json> &value)
{
    if (!value)
        return {};
    return value->is_string() ? QString::fromStdString(value->get<std::string>())
                              : QString::fromStdString(steward::dumpJson(*value));
}

QTableWidgetItem *readOnly(const QString &text, const QString &absent = {})
{
    auto *item = new QTableWidgetItem(text.isEmpty() ? absent : text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    if (text.isEmpty()) {
        QFont font = item->font();
        font.setItalic(true);
        item->setFont(font);
    }
    return item;
}

// A collection item as a steward reads it: one line a field, by the form's labels, the fields that differ
// between the versions in bold; descriptor URIs by their code value.
QString itemText(const std::optional<steward::Json> &item, const std::vector<std::string> &differing,
                 const QString &absent)
{
    if (!item || !item->is_object())
        return QStringLiteral("<i>%1</i>").arg(absent.toHtmlEscaped());
    QStringList lines;
    for (auto it = item->begin(); it != item->end(); ++it) {
        QString value = shown(it.value());
        if (it.value().is_string() && it.key().ends_with("Descriptor") && value.contains(QLatin1Char('#')))
            value = value.section(QLatin1Char('#'), -1);
        QString line = QStringLiteral("%1: %2").arg(fieldLabel(it.key()), value).toHtmlEscaped();
        if (std::find(differing.begin(), differing.end(), it.key()) != differing.end())
            line = QStringLiteral("<b>%1</b>").arg(line);
        lines << line;
    }
    return lines.join(QStringLiteral("<br>"));
}

QLabel *itemLabel(const QString &html, QWidget *parent)
{
    auto *label = new QLabel(html, parent);
    label->setTextFormat(Qt::RichText);
    label->setMargin(4);
    label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    label->setAccessibleName(QTextDocumentFragment::fromHtml(html).toPlainText());
    return label;
}

QPlainTextEdit *documentPane(const std::optional<steward::Json> &document, const QString &absent, QWidget *parent)
{
    auto *pane = new QPlainTextEdit(parent);
    pane->setReadOnly(true);
    pane->setAccessibleName(absent);
    pane->setPlainText(document ? QString::fromStdString(document->dump(2)) : absent);
    return pane;
}

} // namespace

ConflictDialog::ConflictDialog(AppSession &session, const steward::ConflictView &conflict, QWidget *parent)
    : QDialog(parent)
    , m_session(session)
    , m_conflict(conflict)
{
    setObjectName(QStringLiteral("conflictDialog"));
    const QString what = QString::fromStdString(conflict.conflict.resource + " " + conflict.naturalKey);
    const QString host = QUrl(QString::fromStdString(conflict.url)).host();
    setWindowTitle(tr("Sync conflict: %1").arg(what));
    resize(900, 480);

    auto *layout = new QVBoxLayout(this);
    auto *heading = new QLabel(this);
    heading->setWordWrap(true);
    heading->setTextFormat(Qt::RichText);
    heading->setText(tr("<b>%1</b>, since it was last in step with %2: %3.<br>Nothing of either was "
                        "overwritten. Decide what it keeps; the next push sends your decision.")
                         .arg(what.toHtmlEscaped(), QString::fromStdString(conflict.url).toHtmlEscaped(),
                              conflictSummary(conflict).toHtmlEscaped()));
    layout->addWidget(heading);

    const bool bothHold = conflict.mine && conflict.theirs;
    m_fields = new QTableWidget(0, 6, this);
    m_fields->setObjectName(QStringLiteral("conflictFields"));
    m_fields->setAccessibleName(tr("Fields changed on both sides"));
    m_fields->setHorizontalHeaderLabels(
        {tr("Field"), tr("Agreed before"), tr("Here (mine)"), tr("On %1 (theirs)").arg(host), tr("Keep"), tr("Value")});
    m_fields->horizontalHeader()->setStretchLastSection(true);
    m_fields->verticalHeader()->hide();
    m_fields->setSelectionMode(QAbstractItemView::NoSelection);
    layout->addWidget(m_fields, 1);
    fillFields();

    // Whole documents: what each side holds, for a delete against an edit and for a look at everything.
    auto *documents = new QHBoxLayout;
    documents->addWidget(documentPane(conflict.mine, tr("(deleted here)"), this));
    documents->addWidget(documentPane(conflict.theirs, tr("(deleted on %1)").arg(host), this));
    auto *wholeBox = new QGroupBox(tr("Whole documents: here (left) and on %1 (right)").arg(host), this);
    wholeBox->setLayout(documents);
    layout->addWidget(wholeBox, conflict.fields.empty() ? 1 : 0);
    wholeBox->setVisible(conflict.fields.empty());

    auto *choice = new QHBoxLayout;
    auto *group = new QButtonGroup(this);
    m_byField = new QRadioButton(tr("Decide field by field"), this);
    m_wholeMine = new QRadioButton(conflict.mine ? tr("Keep mine, whole") : tr("Keep it deleted"), this);
    m_wholeTheirs = new QRadioButton(conflict.theirs ? tr("Take theirs, whole") : tr("Delete it here too"), this);
    m_byField->setObjectName(QStringLiteral("conflictByField"));
    m_wholeMine->setObjectName(QStringLiteral("conflictWholeMine"));
    m_wholeTheirs->setObjectName(QStringLiteral("conflictWholeTheirs"));
    for (QRadioButton *button : {m_byField, m_wholeMine, m_wholeTheirs}) {
        group->addButton(button);
        choice->addWidget(button);
    }
    choice->addStretch(1);
    layout->addLayout(choice);
    // A delete against an edit, or a merge the engine refused, is decided for the whole document.
    const bool byFieldPossible =
        bothHold && !conflict.fields.empty() && conflict.conflict.kind != steward::SyncConflict::Kind::Refused;
    m_byField->setVisible(byFieldPossible);
    (byFieldPossible ? m_byField : m_wholeMine)->setChecked(true);
    connect(m_byField, &QRadioButton::toggled, m_fields, &QWidget::setEnabled);
    m_fields->setVisible(byFieldPossible);

    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("conflictError"));
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #b00020"));
    m_error->hide();
    layout->addWidget(m_error);

    auto *buttons = new QDialogButtonBox(this);
    QPushButton *applyButton = buttons->addButton(tr("&Apply"), QDialogButtonBox::AcceptRole);
    applyButton->setObjectName(QStringLiteral("conflictApply"));
    buttons->addButton(QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        if (apply())
            accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

void ConflictDialog::fillFields()
{
    m_fields->setRowCount(static_cast<int>(m_conflict.fields.size()));
    for (int row = 0; row < m_fields->rowCount(); ++row) {
        const steward::MergeConflict &field = m_conflict.fields[static_cast<std::size_t>(row)];
        auto *label = readOnly(pathLabel(field.path));
        label->setToolTip(QString::fromStdString(field.path));
        label->setData(Qt::UserRole, QString::fromStdString(field.path));
        m_fields->setItem(row, FieldColumn, label);
        auto *decision = new QComboBox(m_fields);
        decision->setObjectName(QStringLiteral("conflictDecision%1").arg(row));
        decision->setAccessibleName(tr("What %1 keeps").arg(pathLabel(field.path)));
        if (field.item) {
            // A whole item: shown whole on each side, decided whole (one side's item, or both kept).
            const std::vector<std::string> differing = field.differingFields();
            m_fields->setItem(row, BaseColumn, readOnly({}));
            m_fields->setItem(row, MineColumn, readOnly({}));
            m_fields->setItem(row, TheirsColumn, readOnly({}));
            m_fields->setCellWidget(row, BaseColumn, itemLabel(itemText(field.base, differing, tr("(none)")), m_fields));
            m_fields->setCellWidget(row, MineColumn,
                                    itemLabel(itemText(field.mine, differing, tr("(removed here)")), m_fields));
            m_fields->setCellWidget(row, TheirsColumn,
                                    itemLabel(itemText(field.theirs, differing, tr("(removed there)")), m_fields));
            decision->addItem(field.mine ? tr("Mine") : tr("Leave it out"), static_cast<int>(Decision::Mine));
            decision->addItem(field.theirs ? tr("Theirs") : tr("Leave it out"), static_cast<int>(Decision::Theirs));
            if (field.mine && field.theirs)
                decision->addItem(tr("Both items"), static_cast<int>(Decision::Both));
            m_fields->setCellWidget(row, DecisionColumn, decision);
            m_fields->setItem(row, ValueColumn, readOnly({}));
            continue;
        }
        m_fields->setItem(row, BaseColumn, readOnly(shown(field.base), tr("(none)")));
        m_fields->setItem(row, MineColumn, readOnly(shown(field.mine), tr("(none)")));
        m_fields->setItem(row, TheirsColumn, readOnly(shown(field.theirs), tr("(none)")));
        decision->addItem(tr("Mine"), static_cast<int>(Decision::Mine));
        decision->addItem(tr("Theirs"), static_cast<int>(Decision::Theirs));
        decision->addItem(tr("Own value"), static_cast<int>(Decision::OwnValue));
        auto *value = new QLineEdit(m_fields);
        value->setObjectName(QStringLiteral("conflictValue%1").arg(row));
        value->setPlaceholderText(tr("(leave the field out)"));
        value->setAccessibleName(tr("The value %1 gets").arg(pathLabel(field.path)));
        m_fields->setCellWidget(row, DecisionColumn, decision);
        m_fields->setCellWidget(row, ValueColumn, value);
        auto follow = [this, row, decision, value](int) {
            const steward::MergeConflict &field = m_conflict.fields[static_cast<std::size_t>(row)];
            const int chosen = decision->currentData().toInt();
            value->setReadOnly(chosen != static_cast<int>(Decision::OwnValue));
            if (chosen == static_cast<int>(Decision::Mine))
                value->setText(shown(field.mine));
            else if (chosen == static_cast<int>(Decision::Theirs))
                value->setText(shown(field.theirs));
        };
        connect(decision, &QComboBox::currentIndexChanged, this, follow);
        follow(0);
    }
    m_fields->resizeColumnsToContents();
    m_fields->resizeRowsToContents();
}

void ConflictDialog::decide(int row, Decision decision, const QString &ownValue)
{
    auto *combo = qobject_cast<QComboBox *>(m_fields->cellWidget(row, DecisionColumn));
    combo->setCurrentIndex(combo->findData(static_cast<int>(decision)));
    if (decision == Decision::OwnValue)
        qobject_cast<QLineEdit *>(m_fields->cellWidget(row, ValueColumn))->setText(ownValue);
    m_byField->setChecked(true);
}

void ConflictDialog::decideWhole(std::optional<bool> mine)
{
    if (!mine)
        m_byField->setChecked(true);
    else
        (*mine ? m_wholeMine : m_wholeTheirs)->setChecked(true);
}

steward::ConflictDecision ConflictDialog::decisionFromWidgets() const
{
    steward::ConflictDecision decision;
    decision.id = m_conflict.conflict.id;
    decision.url = m_conflict.url;
    if (!m_byField->isChecked()) {
        decision.wholeDocument = true;
        decision.take = m_wholeMine->isChecked() ? steward::MergeChoice::mine() : steward::MergeChoice::theirs();
        return decision;
    }
    for (int row = 0; row < m_fields->rowCount(); ++row) {
        const std::string path = m_fields->item(row, FieldColumn)->data(Qt::UserRole).toString().toStdString();
        const int chosen = qobject_cast<QComboBox *>(m_fields->cellWidget(row, DecisionColumn))->currentData().toInt();
        if (chosen == static_cast<int>(Decision::Mine)) {
            decision.fields[path] = steward::MergeChoice::mine();
        } else if (chosen == static_cast<int>(Decision::Theirs)) {
            decision.fields[path] = steward::MergeChoice::theirs();
        } else if (chosen == static_cast<int>(Decision::Both)) {
            decision.fields[path] = steward::MergeChoice::both();
        } else {
            // Typed as the form takes it: JSON where it is JSON (a number, true), text otherwise.
            const std::string text =
                qobject_cast<QLineEdit *>(m_fields->cellWidget(row, ValueColumn))->text().toStdString();
            steward::Json value = text.empty() ? steward::Json(nullptr) : steward::Json::parse(text, nullptr, false);
            if (value.is_discarded())
                value = text;
            decision.fields[path] = {steward::MergeChoice::Kind::Value, value};
        }
    }
    return decision;
}

bool ConflictDialog::apply()
{
    try {
        const steward::ConflictResolution resolution = steward::resolveConflict(m_session.engine(), decisionFromWidgets());
        m_opId = resolution.opId;
        m_session.announceEverythingChanged();
        Q_EMIT resolved(resolution.opId, QString::fromStdString(resolution.summary));
        return true;
    } catch (const steward::ConflictRefused &e) {
        m_error->setText(QString::fromStdString(e.what()) + tr(" Nothing was changed."));
    } catch (const std::exception &e) {
        m_error->setText(tr("The decision could not be stored: %1").arg(QString::fromStdString(e.what())));
    }
    m_error->show();
    return false;
}

QString ConflictDialog::error() const
{
    return m_error->isVisible() ? m_error->text() : QString();
}

bool openConflictDialog(AppSession &session, const std::string &id, const std::string &url, QWidget *parent)
{
    for (const steward::ConflictView &view : steward::listConflicts(session.engine())) {
        if (view.conflict.id != id || (!url.empty() && view.url != url))
            continue;
        ConflictDialog dialog(session, view, parent);
        return dialog.exec() == QDialog::Accepted;
    }
    return false;
}

QString conflictSummary(const steward::ConflictView &conflict)
{
    using Kind = steward::SyncConflict::Kind;
    switch (conflict.conflict.kind) {
    case Kind::DeletedThere:
        return QObject::tr("deleted there, changed here");
    case Kind::DeletedHere:
        return QObject::tr("deleted here, changed there");
    case Kind::Refused:
        return QObject::tr("changed on both sides, and the two together are refused here (%1)")
            .arg(QString::fromStdString(conflict.conflict.reason));
    case Kind::EditedBoth:
        break;
    }
    QStringList fields;
    for (const steward::MergeConflict &field : conflict.fields)
        fields << pathLabel(field.path);
    return fields.isEmpty() ? QObject::tr("changed on both sides")
                            : QObject::tr("both changed %1").arg(fields.join(QStringLiteral(", ")));
}
