#pragma once

#include "SyncJobs.h"

#include <QDialog>

class QLabel;
class QPushButton;
class QTreeWidget;

// What a push would do on the target, before anything is sent: per state (the target would refuse,
// new, changed, deletes, unchanged) the documents, with the reasons for a refusal and the fields that
// differ from the target's copy. Send confirms; Cancel sends nothing.
class PushPreviewDialog : public QDialog
{
    Q_OBJECT

public:
    PushPreviewDialog(const steward::PushPreview &preview, const QString &target, QWidget *parent = nullptr);

    QTreeWidget *documentsView() const { return m_documents; }
    QPushButton *sendButton() const { return m_send; }
    QString summary() const;

Q_SIGNALS:
    void documentActivated(const QString &id);

private:
    void fillDocuments(const steward::PushPreview &preview);
    static QString summaryText(const steward::PushPreview &preview);
    QLabel *m_summary;
    QTreeWidget *m_documents;
    QPushButton *m_send;
};
