#pragma once

#include "Conflicts.h"

#include <QDialog>

class AppSession;
class QComboBox;
class QLabel;
class QRadioButton;
class QTableWidget;

namespace steward {
struct ResourceSchema;
}

// One sync conflict side by side: the version both sides last agreed on, the one here and the
// target's, field by field with the form's labels; a collection item removed or replaced on one side and
// edited on the other shown whole on each side, the fields that differ in bold. A decision per field
// (keep mine, take theirs, what both agreed before, or a value of one's own; an item: mine, theirs, the
// agreed one or both), the value each keeps shown beside it, or one version whole (always so for a delete
// against an edit). A collection item is named by its key ("Address: Physical"). It opens fitted to
// its screen, every column in sight. Apply
// resolves it in one journaled operation (Edit > Undo last operation opens it again); the next push
// sends it with the target's current etag.
class ConflictDialog : public QDialog
{
    Q_OBJECT

public:
    enum class Decision
    {
        Mine,
        Theirs,
        OwnValue,
        Both, // a collection item's conflict: mine's and theirs' items both kept
        Base, // what both sides agreed on before (offered where there was something)
    };
    ConflictDialog(AppSession &session, const steward::ConflictView &conflict, QWidget *parent = nullptr);

    // The fields in conflict, one row each: field, agreed, here, there, decision, value (what the
    // decision keeps: an editable line for a single value, the item's fields for an item).
    QTableWidget *fields() const { return m_fields; }
    void decide(int row, Decision decision, const QString &ownValue = {});
    // One version whole: mine (true) or theirs (false); field by field again with nullopt.
    void decideWhole(std::optional<bool> mine);
    // Resolves as decided; false (the reason shown in the dialog) when it cannot be applied.
    bool apply();
    std::int64_t operation() const { return m_opId; }
    QString error() const;

Q_SIGNALS:
    void resolved(qint64 opId, const QString &summary);

protected:
    void showEvent(QShowEvent *event) override;

private:
    void fillFields();
    void fillItemRow(int row, QComboBox *decision);
    void fillValueRow(int row, QComboBox *decision);
    // What the row's decision keeps, shown in its Value column.
    void showKeptValue(int row);
    // The first time it shows: as large as its columns need, within its screen's available area; the
    // versions' columns narrowed (their text wrapped) when the screen is narrower than they are.
    void fitToScreen();
    // The available area of the screen it opens on: its parent's, else its own.
    QRect availableArea() const;
    void fitColumns(int viewportWidth);
    // Taller by `extra` pixels, as far as its screen allows (a row grew after it was fitted).
    void growBy(int extra);
    void fitRows();
    void fitRow(int row);
    steward::ConflictDecision decisionFromWidgets() const;

    AppSession &m_session;
    steward::ConflictView m_conflict;
    const steward::ResourceSchema *m_resource = nullptr;
    bool m_fitted = false;
    QTableWidget *m_fields = nullptr;
    QRadioButton *m_byField = nullptr;
    QRadioButton *m_wholeMine = nullptr;
    QRadioButton *m_wholeTheirs = nullptr;
    QLabel *m_error = nullptr;
    std::int64_t m_opId = 0;
};

// Opens the dialog for the open conflict of a local document (with the target given, or its only
// one); false when there is none or it was not resolved.
bool openConflictDialog(AppSession &session, const std::string &id, const std::string &url, QWidget *parent);

// What happened to the document, in a steward's words ("Changed here and there", "Deleted there,
// changed here"), with the fields both changed by the form's labels (collection items by their keys
// when the resource is given).
QString conflictSummary(const steward::ConflictView &conflict,
                        const steward::ResourceSchema *resource = nullptr);

// A conflict's path in the form's words, a collection item by its key where the versions hold one:
// "$.addresses[1].city" -> "Address: Physical › City" (by position, "Addresses 2 › City", without).
QString conflictPathLabel(const steward::ConflictView &conflict, const steward::MergeConflict &field,
                          const steward::ResourceSchema *resource);
