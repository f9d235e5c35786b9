#include "WindowScreenshot.h"

#include "DocumentTableModel.h"
#include "MainWindow.h"
#include "PrivateFiles.h"

#include <QCoreApplication>
#include <QEvent>
#include <QSaveFile>

#include <cstdio>

namespace {

// Far longer than the sample district and its first views take, even on a loaded machine: only a
// view that never reports gets here.
constexpr int kGiveUpMs = 120000;

} // namespace

WindowScreenshot::WindowScreenshot(MainWindow &window, const QString &target, bool loadSample, QObject *parent)
    : QObject(parent)
    , m_window(window)
    , m_target(target)
    , m_loadSample(loadSample)
{
    m_giveUp.setSingleShot(true);
    connect(&m_giveUp, &QTimer::timeout, this, [this] {
        std::fprintf(stderr, "steward: the window had not finished loading; drawing it as it is\n");
        take();
    });
}

void WindowScreenshot::start()
{
    QTimer::singleShot(0, this, &WindowScreenshot::loadThenWait);
}

void WindowScreenshot::loadThenWait()
{
    m_giveUp.start(kGiveUpMs);
    // Returns once the district is stored; the views have then begun reading it again, so what they
    // announce from here on is what the picture should show.
    if (m_loadSample)
        m_window.loadSampleDistrict();
    DocumentTableModel *table = m_window.documentModel();
    connect(table, &DocumentTableModel::loadingChanged, this, [this](bool loading) {
        if (!loading) {
            m_tableIn = true;
            viewArrived();
        }
    });
    connect(&m_window, &MainWindow::countsRefreshed, this, [this] {
        m_countsIn = true;
        viewArrived();
    });
    m_tableIn = !table->isLoading();
    // Counts already on their way announce themselves; otherwise this asks for them.
    m_window.refreshCounts();
    viewArrived();
}

void WindowScreenshot::viewArrived()
{
    if (!m_countsIn || !m_tableIn || m_opened)
        return;
    m_opened = true;
    m_window.openFirstDocument();
    // The opened document's form settles through layout requests that each post the next one up the
    // widget tree: the picture waits for a turn of the event loop that delivers none.
    QCoreApplication::instance()->installEventFilter(this);
    QTimer::singleShot(0, this, &WindowScreenshot::takeWhenSettled);
}

bool WindowScreenshot::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::LayoutRequest)
        m_layoutRequested = true;
    return QObject::eventFilter(watched, event);
}

void WindowScreenshot::takeWhenSettled()
{
    if (m_layoutRequested) {
        m_layoutRequested = false;
        QTimer::singleShot(0, this, &WindowScreenshot::takeWhenSettled);
        return;
    }
    take();
}

void WindowScreenshot::take()
{
    if (m_taken)
        return;
    m_taken = true;
    m_giveUp.stop();
    QCoreApplication::instance()->removeEventFilter(this);
    // The window shows student records: the picture is its owner's alone, as every file Steward writes.
    QSaveFile file(m_target);
    const bool saved = steward::openPrivateForWriting(file) && m_window.grab().save(&file, "PNG") && file.commit();
    std::fprintf(saved ? stdout : stderr, saved ? "steward: wrote %s\n" : "steward: cannot write %s\n",
                 qPrintable(m_target));
    Q_EMIT taken(saved);
}
