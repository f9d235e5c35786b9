#pragma once

#include "BulkEdit.h"

#include <QDialog>
#include <QWidget>

#include <array>
#include <optional>

class AppSession;
class QComboBox;
class QGridLayout;
class QHBoxLayout;
class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;
class QTableWidget;
class ResultsGridModel;

// The "Data quality" tab: drafts, results of Steward's rules and of imported sources (the state's)
// and sync conflicts with facet filters (the source among them), acknowledgement of warnings with a
// reason, bulk edits with a preview, descriptor mapping, undo of the last fix, and export of what is
// shown to CSV or .xlsx.
class ResultsGrid : public QWidget
{
    Q_OBJECT

public:
    explicit ResultsGrid(AppSession *session, QWidget *parent = nullptr);

    ResultsGridModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QComboBox *facetCombo(int facet) const { return m_facets[facet]; }
    QLineEdit *acknowledgeReason() const { return m_ackReason; }
    QPushButton *acknowledgeButton() const { return m_ackButton; }

    // The documents and drafts behind the selected rows (each once).
    steward::EditSelection selectedTargets() const;
    // Writes the rows shown, as CSV or (a path ending in .xlsx) an Excel workbook. False, after
    // telling the user why, when it could not.
    bool exportView(const QString &path);

public Q_SLOTS:
    void reload();
    void bulkEditSelection();
    void mapDescriptorValue();
    void undoLastFix();
    void exportViewDialog();
    // Acknowledges the selected warnings with the reason typed beside the button.
    void acknowledgeSelection();

Q_SIGNALS:
    void openDocument(const QString &id);
    void openDraft(qint64 draftId);
    void openConflict(const QString &id);
    // The current row changed to one about a stored record: show it beside the grid.
    void recordSelected(const QString &id);
    void fixApplied(const QString &summary);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    QGridLayout *setupFacets();
    void setupView();
    // Severity, title and message in the width the view has; the other columns after them.
    void fitColumns();
    QHBoxLayout *setupFixButtons();
    void refreshFacets();
    void activateRow(const QModelIndex &index);
    void updateButtons();

    AppSession *m_session;
    ResultsGridModel *m_model;
    QTableView *m_view;
    std::array<QComboBox *, 6> m_facets{};
    QLabel *m_countLabel;
    QPushButton *m_bulkEditButton;
    QLineEdit *m_ackReason;
    QPushButton *m_ackButton;
    bool m_refreshingFacets = false;
};

// Bulk edit of one field (Mode::Field) or a descriptor mapping over the drafts (Mode::Descriptor):
// fill in, Preview shows every change and its outcome, Apply runs it in one transaction.
class FixDialog : public QDialog
{
    Q_OBJECT

public:
    enum class Mode
    {
        Field,
        Descriptor,
    };
    FixDialog(AppSession *session, Mode mode, steward::EditSelection selection, QWidget *parent = nullptr);

    void setField(const QString &path);
    // JSON (255901, true, "text"); text that is not JSON is taken as a string.
    void setValueText(const QString &text);
    void setRemove(bool remove);
    void setDescriptor(const QString &descriptorResource);
    void setFromValue(const QString &value);
    void setToUri(const QString &uri);

    QTableWidget *previewTable() const { return m_preview; }
    QPushButton *applyButton() const { return m_apply; }
    const std::optional<steward::EditResult> &result() const { return m_result; }

public Q_SLOTS:
    // True when the preview could be made (the table then lists every target).
    bool preview();
    // True when the edit was applied (then the dialog is accepted).
    bool apply();

private:
    void invalidatePreview();
    void fillTargets();
    std::optional<steward::FieldEdit> fieldEdit() const;

    AppSession *m_session;
    Mode m_mode;
    steward::EditSelection m_selection;
    QLineEdit *m_field = nullptr;
    QLineEdit *m_value = nullptr;
    QCheckBox *m_remove = nullptr;
    QComboBox *m_descriptor = nullptr;
    QLineEdit *m_from = nullptr;
    QComboBox *m_to = nullptr;
    QTableWidget *m_preview;
    QLabel *m_summary;
    QPushButton *m_apply;
    std::optional<steward::EditResult> m_result;
};
