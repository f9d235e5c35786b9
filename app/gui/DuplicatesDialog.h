#pragma once

#include "Duplicates.h"

#include <QDialog>

#include <vector>

class AppSession;
class QLabel;
class QListWidget;
class QPushButton;
class QTableWidget;

// Likely duplicate students and staff: the pairs, the two documents side by side with the fields
// that differ highlighted, and what to do with a pair: they are different people (Distinct), or one
// person (merge into the left or the right; the steps are previewed and confirmed first).
class DuplicatesDialog : public QDialog
{
    Q_OBJECT

public:
    explicit DuplicatesDialog(AppSession &session, QWidget *parent = nullptr);

    QListWidget *pairList() const { return m_pairs; }
    QTableWidget *fieldTable() const { return m_fields; }
    const std::vector<steward::DuplicateCandidate> &candidates() const { return m_candidates; }

public Q_SLOTS:
    // Finds the candidates again (on a worker thread with a read-only connection).
    void reload();
    void markDistinct();
    void mergeIntoLeft();
    void mergeIntoRight();

private:
    void showPair(int row);
    void merge(bool keepLeft);
    const steward::DuplicateCandidate *current() const;

    AppSession &m_session;
    std::vector<steward::DuplicateCandidate> m_candidates;
    QListWidget *m_pairs = nullptr;
    QTableWidget *m_fields = nullptr;
    QLabel *m_summary = nullptr;
    QPushButton *m_distinct = nullptr;
    QPushButton *m_mergeLeft = nullptr;
    QPushButton *m_mergeRight = nullptr;
};
