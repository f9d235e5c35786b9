#include "ResultsGrid.h"

#include "AppSession.h"
#include "Engine.h"
#include "ExternalResults.h"
#include "Prompt.h"
#include "Progress.h"
#include "ResultsGridModel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QStyleOptionComboBox>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

#include <map>
#include <set>

namespace {

using Facet = ResultsGridModel::Facet;

// Severity and kind (short values) share the first row; each facet whose values are long (titles,
// resource names, paths, sources) has a row of its own, so its longest value fits at 1280 pixels.
constexpr Facet kFacetOrder[] = {Facet::Severity, Facet::Kind, Facet::Cause, Facet::Resource, Facet::Field,
                                 Facet::Source};
static_assert(std::size(kFacetOrder) == ResultsGridModel::kFacetCount);

QString valueText(const steward::Json &value)
{
    return value.is_null() ? QObject::tr("(missing)") : QString::fromStdString(steward::dumpJson(value));
}

// "GradeLevelDescriptor value 'uri://…#9th' does not exist.": the engine's words for an unknown
// descriptor, which say both the type and the value a mapping starts from.
const QRegularExpression &unknownDescriptorPattern()
{
    static const QRegularExpression pattern(QStringLiteral("(\\w+Descriptor) value '(.*?)' does not exist"));
    return pattern;
}

struct FixOutcome
{
    steward::EditResult result;
    steward::UndoResult undo;
    QString error;
};

} // namespace

QGridLayout *ResultsGrid::setupFacets()
{
    auto *facetRow = new QGridLayout;
    facetRow->setHorizontalSpacing(6);
    facetRow->setVerticalSpacing(4);
    int placed = 0;
    for (Facet facet : kFacetOrder) {
        auto *combo = new QComboBox(this);
        combo->setObjectName(QStringLiteral("facet%1").arg(static_cast<int>(facet)));
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(8);
        combo->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
        combo->setToolTip(ResultsGridModel::facetName(facet));
        m_facets[static_cast<int>(facet)] = combo;
        if (placed < 2)
            facetRow->addWidget(combo, 0, placed);
        else
            facetRow->addWidget(combo, placed - 1, 0, 1, 3);
        ++placed;
        connect(combo, &QComboBox::currentIndexChanged, this, [this, facet, combo] {
            if (m_refreshingFacets)
                return;
            const QString value = combo->currentData().toString();
            m_model->setFacetFilter(facet, combo->currentIndex() <= 0 ? QSet<QString>() : QSet<QString>{value});
            refreshFacets();
        });
    }
    // Beside the short filters it counts, not in the row of buttons (which must fit at 1280 pixels).
    facetRow->addWidget(m_countLabel, 0, 2, Qt::AlignRight | Qt::AlignVCenter);
    return facetRow;
}

void ResultsGrid::setupView()
{
    m_view->setObjectName(QStringLiteral("resultsTable"));
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(-1, Qt::AscendingOrder);
    m_view->setAlternatingRowColors(true);
    m_view->verticalHeader()->setVisible(false);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setWordWrap(false);
    m_view->setTextElideMode(Qt::ElideRight);
}

void ResultsGrid::fitColumns()
{
    // Long keys, paths and sources are cut (the tooltip has them); the title and the message share
    // what the view shows without scrolling.
    m_view->resizeColumnsToContents();
    QHeaderView *header = m_view->horizontalHeader();
    for (int column = 0; column < ResultsGridModel::ColumnCount; ++column)
        if (header->sectionSize(column) > 230)
            header->resizeSection(column, 230);
    const int available = m_view->viewport()->width();
    const int severity = header->sectionSize(ResultsGridModel::SeverityColumn);
    const int title = std::min(header->sectionSize(ResultsGridModel::CauseColumn),
                               std::max(110, (available - severity) / 2));
    header->resizeSection(ResultsGridModel::CauseColumn, title);
    header->resizeSection(ResultsGridModel::MessageColumn, std::max(140, available - severity - title));
}

void ResultsGrid::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fitColumns();
}

// The fixes (bulk edit, map a descriptor value, undo), export and refresh, with their connections.
QHBoxLayout *ResultsGrid::setupFixButtons()
{
    auto *buttons = new QHBoxLayout;
    m_bulkEditButton->setObjectName(QStringLiteral("bulkEdit"));
    auto *mapButton = new QPushButton(tr("Map descriptor value…"), this);
    mapButton->setObjectName(QStringLiteral("mapDescriptor"));
    auto *undoButton = new QPushButton(tr("Undo last fix"), this);
    undoButton->setObjectName(QStringLiteral("undoFix"));
    auto *exportButton = new QPushButton(tr("Export view…"), this);
    exportButton->setObjectName(QStringLiteral("exportView"));
    auto *refreshButton = new QPushButton(tr("Refresh"), this);
    for (QPushButton *button : {m_bulkEditButton, mapButton, undoButton, exportButton, refreshButton})
        buttons->addWidget(button);
    buttons->addStretch(1);
    connect(m_bulkEditButton, &QPushButton::clicked, this, &ResultsGrid::bulkEditSelection);
    connect(mapButton, &QPushButton::clicked, this, &ResultsGrid::mapDescriptorValue);
    connect(undoButton, &QPushButton::clicked, this, &ResultsGrid::undoLastFix);
    connect(exportButton, &QPushButton::clicked, this, &ResultsGrid::exportViewDialog);
    connect(refreshButton, &QPushButton::clicked, this, &ResultsGrid::reload);
    return buttons;
}

ResultsGrid::ResultsGrid(AppSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_model(new ResultsGridModel(session->databasePath(), this))
    , m_view(new QTableView(this))
    , m_countLabel(new QLabel(this))
    , m_bulkEditButton(new QPushButton(tr("Bulk edit…"), this))
    , m_ackReason(new QLineEdit(this))
    , m_ackButton(new QPushButton(tr("Acknowledge"), this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    QGridLayout *facetRow = setupFacets();
    layout->addLayout(facetRow);

    setupView();
    layout->addWidget(m_view, 1);

    QHBoxLayout *buttons = setupFixButtons();
    layout->addLayout(buttons);
    // A warning the steward has reasons to keep: acknowledged, it stops blocking readiness.
    m_ackReason->setObjectName(QStringLiteral("acknowledgeReason"));
    m_ackReason->setPlaceholderText(tr("Why the selected warnings may stand"));
    m_ackReason->setMinimumWidth(180);
    m_ackButton->setObjectName(QStringLiteral("acknowledge"));
    m_ackButton->setToolTip(tr("Acknowledge the selected warnings with this reason: they stop blocking readiness. "
                               "Fatal and error results must be fixed."));
    // Its own row: beside the fix buttons it would not fit a 1280-pixel window.
    auto *acknowledgeRow = new QHBoxLayout;
    acknowledgeRow->addWidget(m_ackReason, 1);
    acknowledgeRow->addWidget(m_ackButton);
    layout->addLayout(acknowledgeRow);
    m_bulkEditButton->setEnabled(false);
    m_ackButton->setEnabled(false);
    connect(m_ackButton, &QPushButton::clicked, this, &ResultsGrid::acknowledgeSelection);
    connect(m_ackReason, &QLineEdit::textChanged, this, &ResultsGrid::updateButtons);
    connect(m_ackReason, &QLineEdit::returnPressed, this, [this] {
        if (m_ackButton->isEnabled())
            acknowledgeSelection();
    });

    connect(m_view, &QAbstractItemView::doubleClicked, this, &ResultsGrid::activateRow);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &ResultsGrid::updateButtons);
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        updateButtons();
        m_countLabel->setText(tr("%1 of %2 row(s)").arg(m_model->rowCount()).arg(m_model->totalRows()));
    });
    connect(m_model, &ResultsGridModel::loaded, this, [this] {
        refreshFacets();
        fitColumns();
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex &current) {
        if (!current.isValid())
            return;
        const steward::QualityRow &row = m_model->rowAt(current.row());
        if (!row.docId.empty() && row.kind != steward::QualityRow::Kind::Draft)
            Q_EMIT recordSelected(QString::fromStdString(row.docId));
    });
    connect(m_model, &ResultsGridModel::loadFailed, this, [this](const QString &message) {
        m_countLabel->setText(tr("Could not read the results: %1").arg(message));
    });
    refreshFacets();
}

void ResultsGrid::reload()
{
    m_model->setRuleCatalog(m_session->ruleCatalog());
    m_model->reload();
}

namespace {

bool acknowledgeable(const steward::QualityRow &row)
{
    return (row.kind == steward::QualityRow::Kind::Rule || row.kind == steward::QualityRow::Kind::Imported)
           && row.severity == "warning" && !row.docId.empty() && !row.acknowledged;
}

} // namespace

void ResultsGrid::updateButtons()
{
    const QModelIndexList selected = m_view->selectionModel()->selectedRows();
    m_bulkEditButton->setEnabled(!selected.isEmpty());
    const bool anyWarning = std::any_of(selected.begin(), selected.end(), [this](const QModelIndex &index) {
        return acknowledgeable(m_model->rowAt(index.row()));
    });
    m_ackButton->setEnabled(anyWarning && !m_ackReason->text().trimmed().isEmpty());
}

void ResultsGrid::acknowledgeSelection()
{
    const std::string reason = m_ackReason->text().trimmed().toStdString();
    if (reason.empty())
        return;
    int done = 0;
    QStringList refused;
    for (const QModelIndex &index : m_view->selectionModel()->selectedRows()) {
        const steward::QualityRow &row = m_model->rowAt(index.row());
        if (!acknowledgeable(row))
            continue;
        try {
            steward::acknowledgeResult(m_session->database(), row.origin, row.cause, row.docId, reason,
                                       steward::currentOsUser());
            ++done;
        } catch (const std::exception &e) {
            refused << QString::fromStdString(e.what());
        }
    }
    if (!refused.isEmpty())
        Prompt::inform(this, tr("Acknowledge"), refused.join(QLatin1Char('\n')));
    if (done > 0) {
        m_ackReason->clear();
        Q_EMIT fixApplied(tr("Acknowledged %n warning(s)", nullptr, done));
        reload();
    }
}

void ResultsGrid::refreshFacets()
{
    m_refreshingFacets = true;
    for (Facet facet : kFacetOrder) {
        QComboBox *combo = m_facets[static_cast<int>(facet)];
        const QSet<QString> chosen = m_model->facetFilter(facet);
        const QList<QPair<QString, int>> counts = m_model->facetCounts(facet);
        int total = 0;
        for (const auto &[value, count] : counts)
            total += count;
        combo->clear();
        combo->addItem(tr("%1: all (%2)").arg(ResultsGridModel::facetName(facet)).arg(total), QString());
        for (const auto &[value, count] : counts) {
            combo->addItem(tr("%1 (%2)").arg(value.isEmpty() ? tr("(none)") : value).arg(count), value);
            if (chosen.contains(value))
                combo->setCurrentIndex(combo->count() - 1);
        }
        // A chosen value no row has any more stays chosen, shown with a count of 0.
        for (const QString &value : chosen)
            if (combo->findData(value) < 0) {
                combo->addItem(tr("%1 (0)").arg(value), value);
                combo->setCurrentIndex(combo->count() - 1);
            }
        // Never narrower than its "all" label: a long chosen value may elide (the list shows it whole).
        QStyleOptionComboBox option;
        option.initFrom(combo);
        const QSize label(combo->fontMetrics().horizontalAdvance(combo->itemText(0)), combo->fontMetrics().height());
        combo->setMinimumWidth(combo->style()->sizeFromContents(QStyle::CT_ComboBox, &option, label, combo).width());
    }
    m_refreshingFacets = false;
}

steward::EditSelection ResultsGrid::selectedTargets() const
{
    steward::EditSelection selection;
    std::set<std::string> documents;
    std::set<std::int64_t> drafts;
    for (const QModelIndex &index : m_view->selectionModel()->selectedRows()) {
        const steward::QualityRow &row = m_model->rowAt(index.row());
        if (row.kind == steward::QualityRow::Kind::Draft) {
            if (drafts.insert(row.draftId).second)
                selection.draftIds.push_back(row.draftId);
        } else if (row.kind == steward::QualityRow::Kind::Rule && !row.docId.empty()
                   && documents.insert(row.docId).second) {
            selection.documentIds.push_back(row.docId);
        }
    }
    return selection;
}

void ResultsGrid::activateRow(const QModelIndex &index)
{
    if (!index.isValid())
        return;
    const steward::QualityRow &row = m_model->rowAt(index.row());
    if (row.kind == steward::QualityRow::Kind::Draft)
        Q_EMIT openDraft(row.draftId);
    else if (row.kind == steward::QualityRow::Kind::Conflict)
        Q_EMIT openConflict(QString::fromStdString(row.docId));
    else
        Q_EMIT openDocument(QString::fromStdString(row.docId));
}

void ResultsGrid::bulkEditSelection()
{
    const steward::EditSelection selection = selectedTargets();
    if (selection.empty())
        return;
    FixDialog dialog(m_session, FixDialog::Mode::Field, selection, this);
    // Start from the field most of the selected rows are about.
    std::map<QString, int> fields;
    for (const QModelIndex &index : m_view->selectionModel()->selectedRows())
        if (const std::string &field = m_model->rowAt(index.row()).field; !field.empty())
            ++fields[QString::fromStdString(field)];
    QString common;
    int most = 0;
    for (const auto &[field, count] : fields)
        if (count > most) {
            common = field;
            most = count;
        }
    dialog.setField(common);
    if (dialog.exec() == QDialog::Accepted)
        reload();
}

void ResultsGrid::mapDescriptorValue()
{
    FixDialog dialog(m_session, FixDialog::Mode::Descriptor, {}, this);
    const QModelIndex current = m_view->currentIndex();
    if (current.isValid()) {
        const QRegularExpressionMatch match =
            unknownDescriptorPattern().match(QString::fromStdString(m_model->rowAt(current.row()).message));
        if (match.hasMatch()) {
            dialog.setDescriptor(match.captured(1));
            dialog.setFromValue(match.captured(2));
        }
    }
    if (dialog.exec() == QDialog::Accepted)
        reload();
}

void ResultsGrid::undoLastFix()
{
    steward::BulkEditor editor(m_session->engine(), m_session->database());
    const std::optional<steward::EditOperation> last = editor.journal().lastUndoable();
    if (!last) {
        Prompt::inform(this, tr("Undo last operation"), tr("There is no operation to undo."));
        return;
    }
    if (Prompt::ask(this, tr("Undo last operation"),
                    tr("Undo operation %1, “%2” (%n item(s))?", nullptr, static_cast<int>(last->itemCount))
                        .arg(last->opId)
                        .arg(QString::fromStdString(last->summary)),
                    QMessageBox::Yes | QMessageBox::No, QMessageBox::No)
        != QMessageBox::Yes)
        return;
    steward::BulkEditor *worker = &editor;
    const std::int64_t opId = last->opId;
    const FixOutcome outcome = runWithProgress<FixOutcome>(
        this, tr("Undoing…"), [worker, opId](const std::function<bool(int, int)> &) {
            FixOutcome out;
            try {
                out.undo = worker->undo(opId);
            } catch (const std::exception &e) {
                out.error = QString::fromUtf8(e.what());
            }
            return out;
        });
    if (!outcome.error.isEmpty()) {
        Prompt::inform(this, tr("Undo last operation"), outcome.error);
        return;
    }
    m_session->announceEverythingChanged();
    Q_EMIT fixApplied(tr("Undid operation %1: %2 document(s) and %3 draft(s) restored.")
                          .arg(opId)
                          .arg(outcome.undo.documentsRestored)
                          .arg(outcome.undo.draftsRestored));
    reload();
}

bool ResultsGrid::exportView(const QString &path)
{
    const steward::TextTable table = m_model->visibleTable();
    try {
        if (QFileInfo(path).suffix().compare(QLatin1String("xlsx"), Qt::CaseInsensitive) == 0)
            steward::writeXlsx(path.toStdString(), table, "Data quality");
        else
            steward::writeCsv(path.toStdString(), table);
    } catch (const std::exception &e) {
        Prompt::inform(this, tr("Export view"), QString::fromUtf8(e.what()));
        return false;
    }
    return true;
}

void ResultsGrid::exportViewDialog()
{
    QString filter;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export view"), QStringLiteral("data-quality.xlsx"),
        tr("Excel workbook (*.xlsx);;CSV, UTF-8 (*.csv)"), &filter);
    if (path.isEmpty())
        return;
    QString target = path;
    if (QFileInfo(target).suffix().isEmpty())
        target += filter.contains(QLatin1String("csv")) ? QStringLiteral(".csv") : QStringLiteral(".xlsx");
    if (exportView(target))
        Q_EMIT fixApplied(tr("Exported %n row(s) to %1.", nullptr, m_model->rowCount()).arg(target));
}

FixDialog::FixDialog(AppSession *session, Mode mode, steward::EditSelection selection, QWidget *parent)
    : QDialog(parent)
    , m_session(session)
    , m_mode(mode)
    , m_selection(std::move(selection))
    , m_preview(new QTableWidget(this))
    , m_summary(new QLabel(this))
    , m_apply(new QPushButton(tr("Apply"), this))
{
    setWindowTitle(mode == Mode::Field ? tr("Bulk edit") : tr("Map descriptor value"));
    auto *layout = new QVBoxLayout(this);
    auto *form = new QFormLayout;
    if (mode == Mode::Field) {
        layout->addWidget(new QLabel(tr("%n document(s) and %1 draft(s) selected.", nullptr,
                                        static_cast<int>(m_selection.documentIds.size()))
                                         .arg(m_selection.draftIds.size()),
                                     this));
        m_field = new QLineEdit(this);
        m_field->setObjectName(QStringLiteral("field"));
        m_field->setPlaceholderText(QStringLiteral("$.entryDate, $.schoolReference.schoolId, $.addresses[*].city"));
        m_value = new QLineEdit(this);
        m_value->setObjectName(QStringLiteral("value"));
        m_value->setPlaceholderText(tr("JSON: 255901, true, \"text\"; other text is taken as a string"));
        m_remove = new QCheckBox(tr("Remove the field instead"), this);
        form->addRow(tr("Field (JSON path):"), m_field);
        form->addRow(tr("New value:"), m_value);
        form->addRow(QString(), m_remove);
        connect(m_field, &QLineEdit::textChanged, this, &FixDialog::invalidatePreview);
        connect(m_value, &QLineEdit::textChanged, this, &FixDialog::invalidatePreview);
        connect(m_remove, &QCheckBox::toggled, this, [this](bool on) {
            m_value->setEnabled(!on);
            invalidatePreview();
        });
    } else {
        layout->addWidget(new QLabel(tr("Every draft holding the value gets the stored descriptor instead and is "
                                        "tried again."),
                                     this));
        m_descriptor = new QComboBox(this);
        m_descriptor->setObjectName(QStringLiteral("descriptor"));
        for (const steward::ResourceSchema *resource : session->model().resources())
            if (resource->isDescriptor)
                m_descriptor->addItem(QString::fromStdString(resource->resourceName));
        m_from = new QLineEdit(this);
        m_from->setObjectName(QStringLiteral("from"));
        m_to = new QComboBox(this);
        m_to->setObjectName(QStringLiteral("to"));
        m_to->setEditable(true);
        form->addRow(tr("Descriptor:"), m_descriptor);
        form->addRow(tr("Unknown value:"), m_from);
        form->addRow(tr("Stored descriptor:"), m_to);
        connect(m_descriptor, &QComboBox::currentTextChanged, this, [this] {
            fillTargets();
            invalidatePreview();
        });
        connect(m_from, &QLineEdit::textChanged, this, &FixDialog::invalidatePreview);
        connect(m_to, &QComboBox::currentTextChanged, this, &FixDialog::invalidatePreview);
        fillTargets();
    }
    layout->addLayout(form);
    auto *previewButton = new QPushButton(tr("Preview"), this);
    previewButton->setObjectName(QStringLiteral("preview"));
    layout->addWidget(previewButton, 0, Qt::AlignLeft);
    m_preview->setObjectName(QStringLiteral("previewTable"));
    m_preview->setColumnCount(7);
    m_preview->setHorizontalHeaderLabels(
        {tr("Target"), tr("Resource"), tr("Key"), tr("Before"), tr("After"), tr("Outcome"), tr("Why")});
    m_preview->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_preview->verticalHeader()->setVisible(false);
    m_preview->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(m_preview, 1);
    layout->addWidget(m_summary);
    auto *box = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_apply->setObjectName(QStringLiteral("apply"));
    box->addButton(m_apply, QDialogButtonBox::AcceptRole);
    layout->addWidget(box);
    m_apply->setEnabled(false);
    connect(previewButton, &QPushButton::clicked, this, &FixDialog::preview);
    // AcceptRole would close the dialog on its own; apply() decides.
    disconnect(box, &QDialogButtonBox::accepted, nullptr, nullptr);
    connect(m_apply, &QPushButton::clicked, this, &FixDialog::apply);
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
    resize(900, 480);
}

void FixDialog::setField(const QString &path)
{
    if (m_field)
        m_field->setText(path);
}

void FixDialog::setValueText(const QString &text)
{
    if (m_value)
        m_value->setText(text);
}

void FixDialog::setRemove(bool remove)
{
    if (m_remove)
        m_remove->setChecked(remove);
}

void FixDialog::setDescriptor(const QString &descriptorResource)
{
    if (m_descriptor)
        m_descriptor->setCurrentText(descriptorResource);
}

void FixDialog::setFromValue(const QString &value)
{
    if (m_from)
        m_from->setText(value);
}

void FixDialog::setToUri(const QString &uri)
{
    if (m_to)
        m_to->setCurrentText(uri);
}

void FixDialog::fillTargets()
{
    const steward::ResourceSchema *descriptor =
        steward::findResourceByName(m_session->model(), m_descriptor->currentText().toStdString());
    const QString typed = m_to->currentText();
    m_to->clear();
    if (descriptor != nullptr)
        for (const steward::StoredDocument &stored :
             m_session->engine().lookup(descriptor->projectName(), descriptor->resourceName, "", 500))
            m_to->addItem(QString::fromStdString(steward::naturalKeyText(steward::Json::parse(stored.identity))));
    m_to->setCurrentText(typed);
}

void FixDialog::invalidatePreview()
{
    m_apply->setEnabled(false);
    m_preview->setRowCount(0);
    m_summary->clear();
}

std::optional<steward::FieldEdit> FixDialog::fieldEdit() const
{
    steward::FieldEdit edit;
    edit.path = m_field->text().trimmed().toStdString();
    if (!m_remove->isChecked()) {
        const std::string text = m_value->text().toStdString();
        steward::JsonParseResult parsed = steward::parseJson(text);
        edit.value = parsed.value ? *parsed.value : steward::Json(text);
    }
    return edit;
}

bool FixDialog::preview()
{
    invalidatePreview();
    steward::BulkEditor editor(m_session->engine(), m_session->database());
    steward::EditPreview preview;
    try {
        if (m_mode == Mode::Field)
            preview = editor.preview(m_selection, *fieldEdit());
        else
            preview = editor.previewDescriptorMapping(m_descriptor->currentText().toStdString(),
                                                      m_from->text().toStdString(), m_to->currentText().toStdString());
    } catch (const std::exception &e) {
        m_summary->setText(QString::fromUtf8(e.what()));
        return false;
    }
    // Rows the edit leaves as they are (a mapping looks at every draft) are counted, not listed.
    std::vector<const steward::EditPreviewRow *> listed;
    for (const steward::EditPreviewRow &row : preview.rows)
        if (row.outcome != steward::EditOutcome::Unchanged)
            listed.push_back(&row);
    m_preview->setRowCount(static_cast<int>(listed.size()));
    for (int r = 0; r < static_cast<int>(listed.size()); ++r) {
        const steward::EditPreviewRow &row = *listed[r];
        const QStringList cells = {row.target == steward::EditTarget::Draft ? tr("draft") : tr("document"),
                                   QString::fromStdString(row.resource),
                                   QString::fromStdString(row.label),
                                   valueText(row.before),
                                   valueText(row.after),
                                   QString::fromUtf8(steward::editOutcomeName(row.outcome)),
                                   QString::fromStdString(row.reason)};
        for (int c = 0; c < cells.size(); ++c) {
            auto *item = new QTableWidgetItem(cells[c]);
            item->setToolTip(cells[c]);
            m_preview->setItem(r, c, item);
        }
    }
    m_preview->resizeColumnsToContents();
    const int changing = preview.count(steward::EditOutcome::Valid) + preview.count(steward::EditOutcome::StillDraft);
    const bool refused = !preview.refusals().empty();
    m_summary->setText(refused ? tr("%n row(s) refused: nothing can be applied until they are left out or the edit "
                                    "changes.",
                                    nullptr, preview.count(steward::EditOutcome::Refused))
                               : tr("%1 will be stored, %2 stay drafts with the new text, %3 unchanged (not listed), %4 skipped.")
                                     .arg(preview.count(steward::EditOutcome::Valid))
                                     .arg(preview.count(steward::EditOutcome::StillDraft))
                                     .arg(preview.count(steward::EditOutcome::Unchanged))
                                     .arg(preview.count(steward::EditOutcome::Skipped)));
    m_apply->setEnabled(!refused && changing > 0);
    return true;
}

bool FixDialog::apply()
{
    if (!m_apply->isEnabled())
        return false;
    steward::BulkEditor editor(m_session->engine(), m_session->database());
    steward::BulkEditor *worker = &editor;
    const Mode mode = m_mode;
    const steward::EditSelection selection = m_selection;
    const std::optional<steward::FieldEdit> edit = mode == Mode::Field ? fieldEdit() : std::nullopt;
    const std::string descriptor = m_descriptor ? m_descriptor->currentText().toStdString() : std::string();
    const std::string from = m_from ? m_from->text().toStdString() : std::string();
    const std::string to = m_to ? m_to->currentText().toStdString() : std::string();
    const FixOutcome outcome = runWithProgress<FixOutcome>(
        this, tr("Applying…"), [=](const std::function<bool(int, int)> &progress) {
            FixOutcome out;
            worker->setProgress(progress);
            try {
                out.result = mode == Mode::Field ? worker->apply(selection, *edit)
                                                 : worker->mapDescriptorValue(descriptor, from, to);
            } catch (const std::exception &e) {
                out.error = QString::fromUtf8(e.what());
            }
            return out;
        });
    if (!outcome.error.isEmpty()) {
        Prompt::inform(this, windowTitle(), outcome.error);
        return false;
    }
    m_result = outcome.result;
    m_session->announceEverythingChanged();
    accept();
    return true;
}
