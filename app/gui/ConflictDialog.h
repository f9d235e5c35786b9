#pragma once

#include "Conflicts.h"

#include <QDialog>

class AppSession;
class QComboBox;
class QLabel;
class QRadioButton;
class QTableWidget;

// One sync conflict side by side: the version both sides last agreed on, the one here and the
// target's, field by field with the form's labels; a collection item removed or replaced on one side and
// edited on the other shown whole on each side, the fields that differ in bold. A decision per field
// (keep mine, take theirs, or a value of one's own; an item: mine, theirs or both), or one version whole (always so for a delete against an edit). Apply
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
    };
    ConflictDialog(AppSession &session, const steward::ConflictView &conflict, QWidget *parent = nullptr);

    // The fields in conflict, one row each: field, agreed, here, there, decision, value.
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

private:
    void fillFields();
    steward::ConflictDecision decisionFromWidgets() const;

    AppSession &m_session;
    steward::ConflictView m_conflict;
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
// changed here"), with the fields both changed by the form's labels.
QString conflictSummary(const steward::ConflictView &conflict);
