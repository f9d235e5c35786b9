#include "SpreadsheetImportDialog.h"

#include "AppSession.h"
#include "EngineRequests.h"
#include "FieldLabels.h"
#include "PrivateFiles.h"
#include "Prompt.h"
#include "TableExport.h"

#include <QComboBox>
#include <QCompleter>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QLocale>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTabWidget>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace {

constexpr int kSampleRows = 200;
constexpr int kPreviewRows = 20;
constexpr int kPreviewPauseMs = 250;
enum MappingColumn { ColumnName, ColumnSample, ColumnField, ColumnFormat };
const char *const kValuesProperty = "values"; // a column's value map, JSON text, on its field box

QString sampleOf(const std::vector<steward::SheetRow> &rows, std::size_t column)
{
    QStringList values;
    for (const steward::SheetRow &row : rows) {
        if (column < row.cells.size() && !row.cells[column].empty() && values.size() < 3)
            values << QString::fromStdString(row.cells[column]);
    }
    return values.join(QStringLiteral(" · "));
}

// The fields in the form's words, each with its mapping name ("Birth date · birthDate").
void fillFieldBox(QComboBox *box, const QStringList &fields)
{
    box->clear();
    box->addItem(SpreadsheetImportDialog::tr("(not imported)"), QString());
    for (const QString &field : fields)
        if (!field.isEmpty())
            box->addItem(QStringLiteral("%1 · %2").arg(pathLabel("$." + field.toStdString()), field), field);
}

// The value cells of the values table complete from the stored values of the column's descriptor.
class DescriptorValueDelegate : public QStyledItemDelegate
{
public:
    explicit DescriptorValueDelegate(QObject *parent)
        : QStyledItemDelegate(parent)
    {
    }
    void setChoices(const QStringList &choices) { m_choices = choices; }

    QWidget *createEditor(QWidget *parent, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QWidget *editor = QStyledItemDelegate::createEditor(parent, option, index);
        if (auto *line = qobject_cast<QLineEdit *>(editor); line != nullptr && !m_choices.isEmpty()) {
            auto *completer = new QCompleter(m_choices, line);
            completer->setCaseSensitivity(Qt::CaseInsensitive);
            completer->setFilterMode(Qt::MatchContains);
            line->setCompleter(completer);
        }
        return editor;
    }

private:
    QStringList m_choices;
};

} // namespace

// The file to read and the resource its rows become.
QFormLayout *SpreadsheetImportDialog::setupSourceRows()
{
    auto *form = new QFormLayout;
    auto *fileRow = new QHBoxLayout;
    m_file = new QLineEdit(this);
    m_file->setObjectName(QStringLiteral("spreadsheetFile"));
    m_file->setAccessibleName(tr("Spreadsheet file"));
    m_file->setReadOnly(true);
    m_file->setPlaceholderText(tr("A .csv, .tsv, .txt or .xlsx file"));
    auto *browse = new QPushButton(tr("&Choose…"), this);
    fileRow->addWidget(m_file, 1);
    fileRow->addWidget(browse);
    form->addRow(tr("File:"), fileRow);
    auto *resourceRow = new QHBoxLayout;
    m_resource = new QComboBox(this);
    m_resource->setObjectName(QStringLiteral("spreadsheetResource"));
    m_resource->setAccessibleName(tr("Resource the rows become"));
    for (const steward::ResourceSchema *resource : m_session.model().resources())
        if (!resource->jsonSchema.is_null())
            m_resource->addItem(QString::fromStdString(resource->resourceName), QString::fromStdString(resource->resourceKey()));
    m_resource->model()->sort(0);
    m_resource->setCurrentIndex(m_resource->findText(QStringLiteral("Student")));
    auto *suggestButton = new QPushButton(tr("S&uggest from the headers"), this);
    suggestButton->setObjectName(QStringLiteral("suggestMapping"));
    resourceRow->addWidget(m_resource, 1);
    resourceRow->addWidget(suggestButton);
    form->addRow(tr("Rows become:"), resourceRow);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Import a spreadsheet"), QString(),
                                                          tr("Spreadsheets (*.csv *.tsv *.txt *.xlsx)"));
        if (!path.isEmpty())
            openFile(path);
    });
    connect(suggestButton, &QPushButton::clicked, this, &SpreadsheetImportDialog::suggest);
    // Another resource: its fields, suggested afresh (a mapping being loaded sets the resource itself).
    connect(m_resource, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_syncing)
            suggest();
    });
    return form;
}

// The mapping: a table of the file's columns (and a chosen column's codes), or the same as JSON.
QTabWidget *SpreadsheetImportDialog::setupMappingTabs()
{
    m_tabs = new QTabWidget(this);
    auto *tablePage = new QWidget(this);
    auto *tableLayout = new QVBoxLayout(tablePage);
    m_columns = new QTableWidget(0, 4, tablePage);
    m_columns->setObjectName(QStringLiteral("mappingColumns"));
    m_columns->setAccessibleName(tr("The file's columns and the fields they fill"));
    m_columns->setHorizontalHeaderLabels({tr("Column"), tr("Sample values"), tr("Field"), tr("Date format")});
    m_columns->horizontalHeader()->setStretchLastSection(true);
    m_columns->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_columns->setSelectionMode(QAbstractItemView::SingleSelection);
    m_values = new QTableWidget(0, 2, tablePage);
    m_values->setObjectName(QStringLiteral("mappingValues"));
    m_values->setAccessibleName(tr("Codes in the chosen column and the values they become"));
    m_values->setHorizontalHeaderLabels({tr("Code in the file"), tr("Value (a descriptor URI)")});
    m_values->horizontalHeader()->setStretchLastSection(true);
    m_values->setItemDelegateForColumn(1, new DescriptorValueDelegate(m_values));
    auto *valuesLabel = new QLabel(tr("Values of the chosen column (codes the file uses for descriptor values):"), tablePage);
    valuesLabel->setWordWrap(true);
    tableLayout->addWidget(m_columns, 3);
    tableLayout->addWidget(valuesLabel);
    tableLayout->addWidget(m_values, 1);
    m_json = new QPlainTextEdit(this);
    m_json->setObjectName(QStringLiteral("mappingJson"));
    m_json->setAccessibleName(tr("The mapping as JSON"));
    m_json->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_tabs->addTab(tablePage, tr("&Columns"));
    m_tabs->addTab(m_json, tr("Mapping as &JSON"));

    connect(m_json, &QPlainTextEdit::textChanged, this, [this] {
        if (m_syncing)
            return;
        jsonToTable();
        m_previewTimer.start();
    });
    connect(m_columns, &QTableWidget::currentCellChanged, this, [this](int row) { showValues(row); });
    connect(m_values, &QTableWidget::cellChanged, this, [this] {
        if (!m_syncing)
            valuesToTable(m_columns->currentRow());
    });
    return m_tabs;
}

// With a mapping's studentIds: how many rows find their student, the least the steward accepts,
// and the rows without one to take back to the other system.
QHBoxLayout *SpreadsheetImportDialog::setupStudentMatch()
{
    auto *students = new QHBoxLayout;
    m_studentMatch = new QLabel(this);
    m_studentMatch->setObjectName(QStringLiteral("studentMatch"));
    m_studentMatch->setWordWrap(true);
    m_minimumMatch = new QDoubleSpinBox(this);
    m_minimumMatch->setObjectName(QStringLiteral("minimumMatch"));
    m_minimumMatch->setRange(0, 100);
    m_minimumMatch->setDecimals(1);
    m_minimumMatch->setSuffix(QStringLiteral(" %"));
    m_minimumMatch->setPrefix(tr("at least "));
    m_minimumMatch->setToolTip(tr("Import only when at least this share of the rows finds its student"));
    m_saveUnmatched = new QPushButton(tr("Save rows &without a student…"), this);
    m_saveUnmatched->setObjectName(QStringLiteral("saveUnmatched"));
    students->addWidget(m_studentMatch, 1);
    students->addWidget(m_minimumMatch);
    students->addWidget(m_saveUnmatched);
    for (QWidget *widget : {static_cast<QWidget *>(m_studentMatch), static_cast<QWidget *>(m_minimumMatch),
                            static_cast<QWidget *>(m_saveUnmatched)})
        widget->setVisible(false);

    connect(m_minimumMatch, &QDoubleSpinBox::valueChanged, this, &SpreadsheetImportDialog::updateStudentMatch);
    connect(m_saveUnmatched, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save the rows without a student"),
                                                          m_path + QStringLiteral(".unmatched.csv"), tr("CSV (*.csv)"));
        if (!path.isEmpty())
            saveUnmatchedRows(path);
    });
    return students;
}

QDialogButtonBox *SpreadsheetImportDialog::setupButtons()
{
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    QPushButton *load = buttons->addButton(tr("&Load mapping…"), QDialogButtonBox::ActionRole);
    QPushButton *save = buttons->addButton(tr("&Save mapping…"), QDialogButtonBox::ActionRole);
    m_import = buttons->addButton(tr("&Import"), QDialogButtonBox::AcceptRole);
    m_import->setObjectName(QStringLiteral("importSpreadsheet"));
    m_import->setEnabled(false);

    connect(load, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Load a mapping"), QString(), tr("Mappings (*.json)"));
        if (!path.isEmpty())
            loadMapping(path);
    });
    connect(save, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save the mapping"), QStringLiteral("mapping.json"),
                                                          tr("Mappings (*.json)"));
        if (!path.isEmpty())
            saveMapping(path);
    });
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    return buttons;
}

SpreadsheetImportDialog::SpreadsheetImportDialog(AppSession &session, QWidget *parent)
    : QDialog(parent)
    , m_session(session)
{
    setWindowTitle(tr("Import a spreadsheet"));
    setObjectName(QStringLiteral("spreadsheetImportDialog"));
    m_previewTimer.setSingleShot(true);
    m_previewTimer.setInterval(kPreviewPauseMs);
    connect(&m_previewTimer, &QTimer::timeout, this, &SpreadsheetImportDialog::refreshPreview);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(setupSourceRows());
    QTabWidget *tabs = setupMappingTabs();
    m_preview = new QTreeWidget(this);
    m_preview->setObjectName(QStringLiteral("mappingPreview"));
    m_preview->setAccessibleName(tr("The first rows as documents, with what the engine would say"));
    m_preview->setHeaderLabels({tr("Row"), tr("Document"), tr("Would be")});
    m_preview->setRootIsDecorated(false);
    m_preview->setAlternatingRowColors(true);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(tabs);
    splitter->addWidget(m_preview);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    layout->addWidget(splitter, 1);
    m_status = new QLabel(tr("Choose a spreadsheet."), this);
    m_status->setObjectName(QStringLiteral("spreadsheetStatus"));
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    layout->addLayout(setupStudentMatch());
    layout->addWidget(setupButtons());
    resize(900, 640);
}

const steward::ResourceSchema *SpreadsheetImportDialog::currentResource() const
{
    return m_session.model().findByPath(m_resource->currentData().toString().toStdString());
}

QStringList SpreadsheetImportDialog::fieldNames() const
{
    QStringList names{QString()};
    if (const steward::ResourceSchema *resource = currentResource())
        for (const std::string &field : steward::mappableFields(*resource))
            names << QString::fromStdString(field);
    return names;
}

bool SpreadsheetImportDialog::openFile(const QString &path)
{
    std::string error;
    std::unique_ptr<steward::SheetReader> reader = steward::openSheet(path.toStdString(), 0, {}, &error);
    if (!reader) {
        m_status->setText(QString::fromStdString(error));
        return false;
    }
    m_path = path;
    m_file->setText(path);
    m_header = reader->header();
    m_sample.clear();
    steward::SheetRow row;
    while (static_cast<int>(m_sample.size()) < kSampleRows && reader->next(row))
        m_sample.push_back(row);
    const QStringList fields = fieldNames();
    const QStringList formats{QString(),          QStringLiteral("MM/DD/YYYY"), QStringLiteral("M/D/YYYY"),
                              QStringLiteral("DD/MM/YYYY"), QStringLiteral("D.M.YYYY"), QStringLiteral("YYYY-MM-DD"),
                              QStringLiteral("excel")};
    m_syncing = true;
    m_columns->setRowCount(static_cast<int>(m_header.size()));
    for (std::size_t c = 0; c < m_header.size(); ++c) {
        const int r = static_cast<int>(c);
        auto *name = new QTableWidgetItem(QString::fromStdString(m_header[c]));
        name->setFlags(name->flags() & ~Qt::ItemIsEditable);
        m_columns->setItem(r, ColumnName, name);
        auto *sample = new QTableWidgetItem(sampleOf(m_sample, c));
        sample->setFlags(sample->flags() & ~Qt::ItemIsEditable);
        m_columns->setItem(r, ColumnSample, sample);
        auto *field = new QComboBox(m_columns);
        field->setAccessibleName(tr("Field for column %1").arg(QString::fromStdString(m_header[c])));
        fillFieldBox(field, fields);
        field->setToolTip(tr("The field the column fills; (not imported) skips it"));
        m_columns->setCellWidget(r, ColumnField, field);
        auto *format = new QComboBox(m_columns);
        format->setAccessibleName(tr("Date format of column %1").arg(QString::fromStdString(m_header[c])));
        format->addItems(formats);
        m_columns->setCellWidget(r, ColumnFormat, format);
        connect(field, &QComboBox::currentIndexChanged, this, [this] { tableToJson(); });
        connect(format, &QComboBox::currentTextChanged, this, [this] { tableToJson(); });
    }
    m_columns->resizeColumnsToContents();
    m_syncing = false;
    m_status->setText(tr("%1 columns, %2 rows read for samples. Suggest fills the fields from the headers.")
                          .arg(m_header.size())
                          .arg(m_sample.size()));
    suggest();
    return true;
}

void SpreadsheetImportDialog::suggest()
{
    if (m_path.isEmpty())
        return;
    const steward::ResourceSchema *resource = currentResource();
    if (resource == nullptr)
        return;
    // The field lists follow the resource.
    const QStringList fields = fieldNames();
    for (int r = 0; r < m_columns->rowCount(); ++r)
        if (auto *box = qobject_cast<QComboBox *>(m_columns->cellWidget(r, ColumnField))) {
            const QSignalBlocker blocker(box);
            fillFieldBox(box, fields);
        }
    steward::Database &database = m_session.database();
    const steward::MappingSuggestion suggestion =
        steward::suggestRowMapping(*resource, m_header, m_sample, [&database](const std::string &descriptor) {
            return steward::storedDescriptorUris(database.connection(), descriptor);
        });
    m_json->setPlainText(QString::fromStdString(suggestion.mapping.dump(2)));
    if (!suggestion.unmatched.empty()) {
        QStringList lines;
        for (const std::string &line : suggestion.unmatched)
            lines << QString::fromStdString(line);
        m_status->setText(tr("Not placed: %1").arg(lines.join(QStringLiteral("; "))));
    }
}

QString SpreadsheetImportDialog::mappingText() const
{
    return m_json->toPlainText();
}

// The table's column rules written into the JSON's first document; constants, templates, filters and
// other documents there stay as they are.
void SpreadsheetImportDialog::tableToJson()
{
    if (m_syncing)
        return;
    steward::JsonParseResult parsed = steward::parseJson(m_json->toPlainText().toStdString());
    steward::Json mapping = parsed.value && parsed.value->is_object() ? *parsed.value : steward::Json::object();
    if (!mapping.contains("documents") || !mapping["documents"].is_array() || mapping["documents"].empty())
        mapping["documents"] = steward::Json::array({steward::Json::object()});
    steward::Json &document = mapping["documents"][0];
    document["resource"] = m_resource->currentData().toString().toStdString();
    steward::Json fields = steward::Json::object();
    if (document.contains("fields") && document["fields"].is_object())
        for (const auto &[name, rule] : document["fields"].items())
            if (!rule.is_object() || !rule.contains("column"))
                fields[name] = rule;
    for (int r = 0; r < m_columns->rowCount(); ++r) {
        auto *field = qobject_cast<QComboBox *>(m_columns->cellWidget(r, ColumnField));
        auto *format = qobject_cast<QComboBox *>(m_columns->cellWidget(r, ColumnFormat));
        if (field == nullptr || field->currentData().toString().isEmpty())
            continue;
        steward::Json rule{{"column", m_columns->item(r, ColumnName)->text().toStdString()}};
        if (format != nullptr && !format->currentText().isEmpty())
            rule["format"] = format->currentText().toStdString();
        const QString values = field->property(kValuesProperty).toString();
        if (!values.isEmpty())
            rule["values"] = steward::Json::parse(values.toStdString());
        fields[field->currentData().toString().toStdString()] = rule;
    }
    document["fields"] = fields;
    m_syncing = true;
    m_json->setPlainText(QString::fromStdString(mapping.dump(2)));
    m_syncing = false;
    m_previewTimer.start();
}

void SpreadsheetImportDialog::jsonToTable()
{
    steward::JsonParseResult parsed = steward::parseJson(m_json->toPlainText().toStdString());
    if (!parsed.value || !parsed.value->is_object() || !parsed.value->contains("documents"))
        return;
    const steward::Json &documents = (*parsed.value)["documents"];
    if (!documents.is_array() || documents.empty() || !documents[0].is_object())
        return;
    m_syncing = true;
    const std::string resource = documents[0].value("resource", std::string());
    if (const int index = m_resource->findData(QString::fromStdString(resource)); index >= 0)
        m_resource->setCurrentIndex(index);
    for (int r = 0; r < m_columns->rowCount(); ++r) {
        auto *field = qobject_cast<QComboBox *>(m_columns->cellWidget(r, ColumnField));
        auto *format = qobject_cast<QComboBox *>(m_columns->cellWidget(r, ColumnFormat));
        if (field == nullptr || format == nullptr)
            continue;
        const QSignalBlocker fieldBlocker(field);
        const QSignalBlocker formatBlocker(format);
        field->setCurrentIndex(0);
        field->setProperty(kValuesProperty, QString());
        format->setCurrentIndex(0);
        const std::string column = m_columns->item(r, ColumnName)->text().toStdString();
        if (!documents[0].contains("fields") || !documents[0]["fields"].is_object())
            continue;
        for (const auto &[name, rule] : documents[0]["fields"].items()) {
            if (!rule.is_object() || rule.value("column", std::string()) != column)
                continue;
            field->setCurrentIndex(std::max(0, field->findData(QString::fromStdString(name))));
            format->setCurrentText(QString::fromStdString(rule.value("format", std::string())));
            if (rule.contains("values"))
                field->setProperty(kValuesProperty, QString::fromStdString(rule["values"].dump()));
        }
    }
    m_syncing = false;
    showValues(m_columns->currentRow());
}

void SpreadsheetImportDialog::showValues(int row)
{
    m_syncing = true;
    m_values->setRowCount(0);
    auto *field = row >= 0 ? qobject_cast<QComboBox *>(m_columns->cellWidget(row, ColumnField)) : nullptr;
    if (field != nullptr) {
        QStringList choices;
        if (const steward::ResourceSchema *resource = currentResource()) {
            const std::string path = "$." + field->currentData().toString().replace(QStringLiteral("[0]"),
                                                                                      QStringLiteral("[*]")).toStdString();
            for (const steward::DescriptorMapping &descriptor : resource->descriptors)
                if (descriptor.path.text() == path)
                    for (const std::string &uri :
                         steward::storedDescriptorUris(m_session.database().connection(), descriptor.descriptorResourceName))
                        choices << QString::fromStdString(uri);
        }
        static_cast<DescriptorValueDelegate *>(m_values->itemDelegateForColumn(1))->setChoices(choices);
        // The codes the file uses in this column, and what each becomes.
        steward::Json values = steward::Json::object();
        const QString text = field->property(kValuesProperty).toString();
        if (!text.isEmpty())
            values = steward::Json::parse(text.toStdString());
        QStringList codes;
        for (const steward::SheetRow &sample : m_sample)
            if (static_cast<std::size_t>(row) < sample.cells.size() && !sample.cells[static_cast<std::size_t>(row)].empty()
                && !codes.contains(QString::fromStdString(sample.cells[static_cast<std::size_t>(row)])) && codes.size() < 50)
                codes << QString::fromStdString(sample.cells[static_cast<std::size_t>(row)]);
        for (const auto &[code, value] : values.items())
            if (!codes.contains(QString::fromStdString(code), Qt::CaseInsensitive))
                codes << QString::fromStdString(code);
        for (const QString &code : std::as_const(codes)) {
            const int r = m_values->rowCount();
            m_values->insertRow(r);
            auto *codeItem = new QTableWidgetItem(code);
            codeItem->setFlags(codeItem->flags() & ~Qt::ItemIsEditable);
            m_values->setItem(r, 0, codeItem);
            QString mapped;
            for (const auto &[key, value] : values.items())
                if (QString::fromStdString(key).compare(code, Qt::CaseInsensitive) == 0 && value.is_string())
                    mapped = QString::fromStdString(value.get<std::string>());
            m_values->setItem(r, 1, new QTableWidgetItem(mapped));
        }
    }
    m_syncing = false;
}

void SpreadsheetImportDialog::valuesToTable(int row)
{
    auto *field = row >= 0 ? qobject_cast<QComboBox *>(m_columns->cellWidget(row, ColumnField)) : nullptr;
    if (field == nullptr)
        return;
    steward::Json values = steward::Json::object();
    for (int r = 0; r < m_values->rowCount(); ++r) {
        const QString value = m_values->item(r, 1) ? m_values->item(r, 1)->text().trimmed() : QString();
        if (!value.isEmpty())
            values[m_values->item(r, 0)->text().toStdString()] = value.toStdString();
    }
    field->setProperty(kValuesProperty, values.empty() ? QString() : QString::fromStdString(values.dump()));
    tableToJson();
}

void SpreadsheetImportDialog::refreshPreview()
{
    m_preview->clear();
    m_mapping.reset();
    m_import->setEnabled(false);
    steward::JsonParseResult parsed = steward::parseJson(m_json->toPlainText().toStdString());
    if (!parsed.value) {
        m_status->setText(tr("The mapping is not JSON: %1").arg(QString::fromStdString(parsed.error)));
        Q_EMIT previewed();
        return;
    }
    try {
        auto mapping = std::make_shared<steward::RowMapping>(steward::parseRowMapping(*parsed.value, m_session.model()));
        steward::checkColumns(*mapping, m_header);
        // Students named by another system's ids: found through the stored identification codes.
        steward::loadStudentIdCodes(m_session.database().connection(), m_session.model(), *mapping);
        m_mapping = mapping;
    } catch (const steward::MappingError &e) {
        m_status->setText(tr("The mapping cannot be used yet: %1").arg(QString::fromUtf8(e.what())));
        Q_EMIT previewed();
        return;
    }
    const steward::HeaderIndex columns(m_header);
    int ready = 0;
    int problems = 0;
    for (std::size_t i = 0; i < m_sample.size() && i < static_cast<std::size_t>(kPreviewRows); ++i) {
        for (const steward::MappedDocument &document : steward::mapRow(*m_mapping, columns, m_sample[i])) {
            QString verdict;
            if (!document.error.empty()) {
                verdict = tr("draft: %1").arg(QString::fromStdString(document.error));
                ++problems;
            } else {
                // What the engine would answer now (references against what is stored).
                const steward::Response response =
                    m_session.validate("POST", document.resource->requestPath(), document.body);
                if (response.status < 300) {
                    verdict = response.status == 200 ? tr("an update of a stored one") : tr("new");
                    ++ready;
                } else {
                    verdict = tr("draft: %1").arg(QString::fromStdString(steward::problemSummary(response.body)));
                    ++problems;
                }
            }
            auto *item = new QTreeWidgetItem(m_preview, {QString::number(m_sample[i].number),
                                                         QStringLiteral("%1 %2").arg(
                                                             QString::fromStdString(document.resource->resourceName),
                                                             QString::fromStdString(steward::dumpJson(document.body))),
                                                         verdict});
            item->setToolTip(1, QString::fromStdString(document.body.dump(2)));
            item->setToolTip(2, verdict);
        }
    }
    m_preview->resizeColumnToContents(0);
    m_status->setText(tr("The first %1 rows: %2 documents would be stored, %3 would be drafts (each names its "
                         "row and column). Import takes every row.")
                          .arg(std::min<std::size_t>(m_sample.size(), kPreviewRows))
                          .arg(ready)
                          .arg(problems));
    m_import->setEnabled(true);
    m_studentIds.reset();
    if (m_mapping->studentIds) {
        try {
            m_studentIds = steward::matchStudentIds(m_path.toStdString(), *m_mapping);
        } catch (const steward::MappingError &e) {
            m_status->setText(tr("The student ids cannot be read: %1").arg(QString::fromUtf8(e.what())));
            m_import->setEnabled(false);
        }
    }
    updateStudentMatch();
    Q_EMIT previewed();
}

void SpreadsheetImportDialog::updateStudentMatch()
{
    const bool shown = m_studentIds.has_value();
    for (QWidget *widget : {static_cast<QWidget *>(m_studentMatch), static_cast<QWidget *>(m_minimumMatch),
                            static_cast<QWidget *>(m_saveUnmatched)})
        widget->setVisible(shown);
    if (!shown || !m_mapping)
        return;
    const steward::StudentIdMatch &match = *m_studentIds;
    const double percent = match.rate() * 100.0;
    const bool enough = percent + 1e-9 >= m_minimumMatch->value();
    QString text = tr("Students by %1: %2 of %3 rows found theirs (%4%).")
                       .arg(QString::fromStdString(m_mapping->studentIds->column))
                       .arg(match.matched)
                       .arg(match.rows)
                       .arg(QLocale().toString(percent, 'f', 1));
    if (!match.unmatched.empty())
        text += QLatin1Char(' ') + tr("First without one: row %1, %2.")
                                      .arg(match.unmatched.front().row.number)
                                      .arg(QString::fromStdString(match.unmatched.front().why));
    if (!enough)
        text += QLatin1Char(' ') + tr("Under the minimum: nothing will be imported.");
    m_studentMatch->setText(text);
    m_saveUnmatched->setEnabled(!match.unmatched.empty());
    m_import->setEnabled(enough);
}

bool SpreadsheetImportDialog::saveUnmatchedRows(const QString &path)
{
    if (!m_studentIds)
        return false;
    try {
        steward::writeCsv(path.toStdString(), steward::unmatchedStudentRows(*m_studentIds));
    } catch (const steward::StorageError &e) {
        m_status->setText(QString::fromStdString(e.what()));
        return false;
    }
    m_status->setText(tr("%n row(s) without a student saved to %1.", nullptr, static_cast<int>(m_studentIds->unmatched.size()))
                          .arg(QDir::toNativeSeparators(path)));
    return true;
}

bool SpreadsheetImportDialog::loadMapping(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        m_status->setText(tr("Could not read %1: %2").arg(path, file.errorString()));
        return false;
    }
    m_json->setPlainText(QString::fromUtf8(file.readAll()));
    refreshPreview();
    return true;
}

bool SpreadsheetImportDialog::saveMapping(const QString &path)
{
    QSaveFile file(path);
    if (!steward::openPrivateForWriting(file) || file.write(m_json->toPlainText().toUtf8()) < 0 || !file.commit()) {
        m_status->setText(tr("Could not write %1: %2").arg(path, file.errorString()));
        return false;
    }
    m_status->setText(tr("Saved the mapping to %1 (steward-cli import FILE --mapping %1 reads it).").arg(path));
    return true;
}
