#pragma once

#include "DatabaseWatcher.h"

#include <QEventLoop>
#include <QFutureWatcher>
#include <QObject>
#include <QProgressDialog>
#include <QElapsedTimer>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <functional>

// Whether the progress dialog's label says how long the rest will take.
enum class ProgressLabel
{
    Plain,
    WithTimeLeft
};

// "about 40 s left" from the time the work has taken and how much of it is done, assuming the rest
// goes at the same pace; empty while too little is done to tell (Progress.cpp).
QString timeLeftText(qint64 elapsedMs, int done, int total);

// Runs work on a worker thread while a window-modal progress dialog with Cancel is up; the GUI
// thread keeps painting and does not touch the engine until the work is done.
template<typename Result>
Result runWithProgress(QWidget *parent, const QString &label,
                       const std::function<Result(const std::function<bool(int, int)> &)> &work,
                       ProgressLabel labelStyle = ProgressLabel::Plain)
{
    // The work borrows the writer connection; what it wrote is announced when it ends.
    const DatabaseWatcher::Pause pauseWatching;
    QProgressDialog dialog(label, QObject::tr("Cancel"), 0, 0, parent);
    dialog.setWindowModality(Qt::WindowModal);
    dialog.setMinimumDuration(300);
    std::atomic<bool> cancelled{false};
    std::atomic<int> done{0};
    std::atomic<int> total{0};
    QObject::connect(&dialog, &QProgressDialog::canceled, [&cancelled] { cancelled = true; });
    QFutureWatcher<Result> watcher;
    QEventLoop loop;
    QObject::connect(&watcher, &QFutureWatcherBase::finished, &loop, &QEventLoop::quit);
    QTimer ticker;
    QElapsedTimer clock;
    clock.start();
    QObject::connect(&ticker, &QTimer::timeout, &dialog, [&] {
        dialog.setMaximum(total);
        dialog.setValue(done);
        if (labelStyle == ProgressLabel::WithTimeLeft) {
            const QString timeLeft = timeLeftText(clock.elapsed(), done, total);
            dialog.setLabelText(timeLeft.isEmpty() ? label : label + QLatin1Char('\n') + timeLeft);
        }
    });
    ticker.start(100);
    watcher.setFuture(QtConcurrent::run([&]() {
        return work([&](int d, int t) {
            done = d;
            total = t;
            return !cancelled.load();
        });
    }));
    loop.exec();
    return watcher.result();
}
