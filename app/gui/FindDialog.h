#pragma once

#include "Search.h"

#include <QDialog>
#include <QFutureWatcher>
#include <QString>
#include <QTimer>

#include <functional>
#include <string>
#include <vector>

class QLabel;
class QLineEdit;
class QListWidget;

// Find anything (Ctrl+K): documents of every resource by their ids, codes and names, as the steward
// types. Each search runs on a worker thread with its own read-only connection; an answer to text
// typed over since is dropped. Enter (or a double click) opens the hit chosen.
class FindDialog : public QDialog
{
    Q_OBJECT

public:
    FindDialog(const QString &databasePath, QWidget *parent = nullptr);

    QLineEdit *input() const { return m_input; }
    QListWidget *hitsView() const { return m_hits; }
    // The text the hits shown answer (empty before the first answer).
    QString answeredText() const { return m_answered; }
    // How a natural key reads with its descriptor URIs as their code values (none: as it is).
    void setNaturalKeyLabel(std::function<QString(const std::string &naturalKey)> label) { m_keyLabel = std::move(label); }

Q_SIGNALS:
    void documentChosen(const QString &id);
    // A search answered (the hits view shows it).
    void answered();

protected:
    void keyPressEvent(QKeyEvent *event) override;

private:
    void search();
    void showHits();
    void openCurrent();

    QString m_databasePath;
    std::function<QString(const std::string &)> m_keyLabel;
    QLineEdit *m_input;
    QListWidget *m_hits;
    QLabel *m_status;
    QTimer m_typing;
    QFutureWatcher<std::vector<steward::SearchHit>> m_watcher;
    QString m_searching; // the text of the search running
    QString m_answered;
};
