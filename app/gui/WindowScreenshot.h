#pragma once

#include <QObject>
#include <QString>
#include <QTimer>

class MainWindow;

// `steward --screenshot FILE`: the main window drawn once it shows what a steward would see (the
// sample district loaded when --sample asked for it, the resource counts and the documents table
// read, the table's first document open), then saved. It waits for the signals that say so, not for
// a guess of how long that takes; a load that never reports still ends with a picture, and a warning.
class WindowScreenshot : public QObject
{
    Q_OBJECT

public:
    WindowScreenshot(MainWindow &window, const QString &target, bool loadSample, QObject *parent = nullptr);

    // Begins when the event loop runs; taken() follows.
    void start();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

Q_SIGNALS:
    // Right after the picture was taken, the window still as drawn; saved: written to the target.
    void taken(bool saved);

private:
    void loadThenWait();
    void viewArrived();
    void takeWhenSettled();
    void take();

    MainWindow &m_window;
    QString m_target;
    bool m_loadSample = false;
    bool m_countsIn = false;
    bool m_tableIn = false;
    bool m_opened = false;
    bool m_taken = false;
    bool m_layoutRequested = true; // until a turn of the event loop shows otherwise
    QTimer m_giveUp;
};
