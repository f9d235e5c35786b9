#pragma once

#include <QDialog>

#include <string>

namespace steward {
struct RemoteOptions;
}

class AppSession;
class QComboBox;
class QLabel;
class QLayout;
class QLineEdit;
class QCheckBox;
class QTableWidget;

// Pull from and push to an Ed-Fi API: the targets this database knows, Pull, Push (a preview asked
// of the target is shown first: PushPreviewDialog), progress with Cancel, the documents the target
// refused, each of which opens in the main window, and the sync conflicts waiting for a decision,
// each of which opens in a ConflictDialog.
class SyncDialog : public QDialog
{
    Q_OBJECT

public:
    SyncDialog(AppSession &session, QWidget *parent = nullptr);

    void pull();
    void push();
    // Lists the open conflicts with the chosen target again.
    void showConflicts();
    // Opens the conflict of the row in a ConflictDialog.
    void resolveConflictAt(int row);

Q_SIGNALS:
    void documentActivated(const QString &id);

private:
    // The target as the form names it, its secret found; false with the reason shown when it cannot be.
    bool readTarget(steward::RemoteOptions &target);
    // The certificate authority field and its file chooser.
    QLayout *caCertificateRow();
    // The certificate authority file last used with this target (remembered per address on this computer).
    void showCaCertificateOf(const QString &url);
    void showFailures();

    AppSession &m_session;
    QComboBox *m_url = nullptr;
    QLineEdit *m_client = nullptr;
    QLineEdit *m_secret = nullptr;
    QLineEdit *m_caCert = nullptr;
    QCheckBox *m_remember = nullptr;
    QLabel *m_status = nullptr;
    QTableWidget *m_failures = nullptr;
    QTableWidget *m_conflicts = nullptr;
};
