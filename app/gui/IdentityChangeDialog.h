#pragma once

#include "IdentityChange.h"

#include <QDialog>
#include <QMap>
#include <QString>

#include <vector>

class AppSession;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

// Changes a document's identifying values: one field per identity value, a preview of every step
// (what is created, moved and deleted), then Apply, which writes exactly the previewed steps in one
// transaction or nothing.
class IdentityChangeDialog : public QDialog
{
    Q_OBJECT

public:
    IdentityChangeDialog(AppSession &session, const QString &documentId, QWidget *parent = nullptr);

    // The field editor for an identity field ("studentUniqueId", "schoolReference.schoolId").
    QLineEdit *field(const QString &name) const { return m_fields.value(name); }
    QPlainTextEdit *stepsView() const { return m_steps; }
    QPushButton *previewButton() const { return m_preview; }
    QPushButton *applyButton() const { return m_apply; }
    // The document carrying the new identity after Apply (a new id when it was recreated).
    QString resultId() const { return m_resultId; }

public Q_SLOTS:
    void preview();
    void apply();

private:
    std::vector<std::pair<std::string, std::string>> assignments() const;

    AppSession &m_session;
    QString m_documentId;
    QMap<QString, QLineEdit *> m_fields;
    QMap<QString, QString> m_original;
    QPlainTextEdit *m_steps = nullptr;
    QPushButton *m_preview = nullptr;
    QPushButton *m_apply = nullptr;
    QLabel *m_heading = nullptr;
    std::vector<steward::IdentityStep> m_previewed;
    QString m_resultId;
};
