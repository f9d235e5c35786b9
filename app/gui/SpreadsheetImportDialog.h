#pragma once

#include "RowMapping.h"

#include <QDialog>
#include <QTimer>

#include <memory>
#include <optional>
#include <vector>

class AppSession;
class QComboBox;
class QDialogButtonBox;
class QDoubleSpinBox;
class QFormLayout;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;
class QTabWidget;
class QTreeWidget;

// File > Import spreadsheet: a CSV or .xlsx file's columns, with sample values, beside the fields of a
// resource (suggested from the headers), value maps for descriptor columns, the whole mapping as JSON
// for what the table does not show (several resources a row, templates, filters), and a live preview
// of the first rows as documents with the problems the engine would find, before anything is written.
// Mappings are saved and loaded as the files `steward-cli import --mapping` reads.
class SpreadsheetImportDialog : public QDialog
{
    Q_OBJECT

public:
    SpreadsheetImportDialog(AppSession &session, QWidget *parent = nullptr);

    // Opens a spreadsheet (the file chooser's job, callable directly); false with the reason shown.
    bool openFile(const QString &path);
    // The mapping as it stands (from the JSON tab, which the table writes into).
    QString mappingText() const;
    bool loadMapping(const QString &path);
    bool saveMapping(const QString &path);
    // What Import hands over once accepted: the file and its parsed mapping.
    QString filePath() const { return m_path; }
    std::shared_ptr<const steward::RowMapping> mapping() const { return m_mapping; }

    QComboBox *resourceBox() const { return m_resource; }
    QTableWidget *columnsView() const { return m_columns; }
    QTableWidget *valuesView() const { return m_values; }
    QTreeWidget *previewView() const { return m_preview; }
    QPushButton *importButton() const { return m_import; }
    QLabel *statusLabel() const { return m_status; }
    QLabel *studentMatchLabel() const { return m_studentMatch; }
    QDoubleSpinBox *minimumMatchBox() const { return m_minimumMatch; }
    // The rows whose student the mapping's studentIds could not find, as CSV with their row numbers.
    bool saveUnmatchedRows(const QString &path);

public Q_SLOTS:
    void suggest();
    void refreshPreview();

Q_SIGNALS:
    void previewed();

private:
    QFormLayout *setupSourceRows();
    QTabWidget *setupMappingTabs();
    QHBoxLayout *setupStudentMatch();
    QDialogButtonBox *setupButtons();
    void tableToJson();
    void jsonToTable();
    void showValues(int row);
    void valuesToTable(int row);
    void updateStudentMatch();
    QStringList fieldNames() const;
    const steward::ResourceSchema *currentResource() const; // the one the rows become

    AppSession &m_session;
    QString m_path;
    std::vector<std::string> m_header;
    std::vector<steward::SheetRow> m_sample;
    std::shared_ptr<const steward::RowMapping> m_mapping;
    QLineEdit *m_file = nullptr;
    QComboBox *m_resource = nullptr;
    QTabWidget *m_tabs = nullptr;
    QTableWidget *m_columns = nullptr;
    QTableWidget *m_values = nullptr;
    QPlainTextEdit *m_json = nullptr;
    QTreeWidget *m_preview = nullptr;
    QLabel *m_status = nullptr;
    QPushButton *m_import = nullptr;
    QLabel *m_studentMatch = nullptr;
    QDoubleSpinBox *m_minimumMatch = nullptr;
    QPushButton *m_saveUnmatched = nullptr;
    std::optional<steward::StudentIdMatch> m_studentIds;
    QTimer m_previewTimer;
    bool m_syncing = false;
};
