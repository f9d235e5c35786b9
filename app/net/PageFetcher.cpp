#include "PageFetcher.h"

#include <QEventLoop>

#include <cstdlib>


namespace steward {

PageFetcher::PageFetcher(RemoteApi &remote, FlowControl &flow, std::size_t sources, int pageSize, PathOf pathOf,
                         Take take, Prepare prepare)
    : m_flow(flow)
    , m_pool(remote, flow)
    , m_sources(sources)
    , m_pageSize(pageSize)
    , m_pathOf(std::move(pathOf))
    , m_take(std::move(take))
    , m_prepare(std::move(prepare))
    , m_lastOffset(sources, -1)
{
    m_workers.setMaxThreadCount(1);
}

bool PageFetcher::finished() const
{
    return m_pool.idle() && m_preparing == 0 && (m_stopped || (m_pages.empty() && m_nextSource >= m_sources));
}

void PageFetcher::run()
{
    QEventLoop loop;
    m_quit = [&loop] { loop.quit(); };
    pump();
    if (!finished())
        loop.exec();
    m_quit = {};
}

void PageFetcher::schedule(std::size_t source, std::int64_t offset)
{
    if (offset <= m_lastOffset[source])
        return;
    m_lastOffset[source] = offset;
    m_pages.emplace(Key{source, offset}, Slot{});
}

void PageFetcher::pump()
{
    // Pages waiting to be taken hold memory: a few windows' worth ahead of the one being taken at most.
    const int ahead = 4 * std::max(1, m_flow.window());
    while (!m_stopped && m_pool.hasRoom() && m_outstanding < ahead) {
        auto next = m_pages.begin();
        while (next != m_pages.end() && next->second.asked)
            ++next;
        if (next == m_pages.end()) {
            if (m_nextSource >= m_sources)
                break;
            schedule(m_nextSource++, 0);
            continue;
        }
        const Key key = next->first;
        Slot &slot = next->second;
        slot.asked = true;
        slot.path = m_pathOf(key.first, key.second, key.second == 0);
        ++m_outstanding;
        m_pool.submit(RemoteRequest{"GET", slot.path, {}, {}},
                      [this, key](const RemoteResponse &answer) { arrived(key, answer); });
    }
    if (finished() && m_quit)
        m_quit();
}

void PageFetcher::arrived(const Key &key, const RemoteResponse &answer)
{
    auto slot = m_pages.find(key);
    if (slot == m_pages.end())
        return;
    if (key.second == 0 && answer.status == 200) {
        // The count is the source's size as the first page saw it: every page of it asked for now.
        // A count that fills its last page exactly gets the page after it too, asked now with the
        // rest: asked only once that full page was taken, it held up every source after it.
        const std::string count = answer.header("total-count");
        if (!count.empty()) {
            const std::int64_t total = std::atoll(count.c_str());
            const std::int64_t end = total > 0 && total % m_pageSize == 0 ? total : total - 1;
            for (std::int64_t offset = m_pageSize; offset <= end; offset += m_pageSize)
                schedule(key.first, offset);
        }
    }
    slot->second.answered = true;
    Page page{key.first, key.second, slot->second.path, answer, nullptr};
    if (!m_prepare || m_stopped) {
        slot->second.ready = std::move(page);
        drain();
        return;
    }
    ++m_preparing;
    {
        std::lock_guard<std::mutex> lock(m_toPrepareMutex);
        m_toPrepare.emplace(key, std::move(page));
    }
    // One run per page, each taking the earliest page waiting: pages come back in any order, and
    // the next one to take must not wait behind later ones.
    m_workers.start([this] {
        std::unique_lock<std::mutex> lock(m_toPrepareMutex);
        if (m_toPrepare.empty())
            return; // the taking thread prepared it itself
        const Key key = m_toPrepare.begin()->first;
        Page page = std::move(m_toPrepare.begin()->second);
        m_toPrepare.erase(m_toPrepare.begin());
        lock.unlock();
        prepareOne(page);
        QMetaObject::invokeMethod(
            &m_here, [this, key, page = std::move(page)]() mutable { prepared(key, std::move(page)); },
            Qt::QueuedConnection);
    });
}

void PageFetcher::prepareOne(Page &page) const
{
    try {
        page.prepared = m_prepare(page);
    } catch (const std::exception &) {
        page.prepared.reset(); // taken unprepared: the taking thread meets the same problem and says it
    }
}

// The next page to take, arrived but still waiting for the worker (busy with a later one): prepared
// here rather than waited for.
bool PageFetcher::prepareNextHere()
{
    if (!m_prepare || m_pages.empty())
        return false;
    std::unique_lock<std::mutex> lock(m_toPrepareMutex);
    auto waiting = m_toPrepare.find(m_pages.begin()->first);
    if (waiting == m_toPrepare.end())
        return false;
    Page page = std::move(waiting->second);
    m_toPrepare.erase(waiting);
    lock.unlock();
    prepareOne(page);
    --m_preparing;
    m_pages.begin()->second.ready = std::move(page);
    return true;
}

void PageFetcher::prepared(const Key &key, Page page)
{
    --m_preparing;
    if (auto slot = m_pages.find(key); slot != m_pages.end())
        slot->second.ready = std::move(page);
    drain();
}

void PageFetcher::drain()
{
    // Taking a page may make requests of its own (never through this pool): not taken twice at once.
    if (m_draining)
        return;
    m_draining = true;
    while (!m_stopped && !m_pages.empty() && (m_pages.begin()->second.ready || prepareNextHere())) {
        const Key key = m_pages.begin()->first;
        Page page = std::move(*m_pages.begin()->second.ready);
        m_pages.erase(m_pages.begin());
        page.nextAtHand = !m_pages.empty() && m_pages.begin()->second.answered;
        --m_outstanding;
        const int items = m_take(page);
        // Freed where it was made: a page's documents were a twentieth of the taking thread's time,
        // and a thread frees its own allocations for less.
        if (page.prepared)
            m_workers.start([done = std::move(page.prepared)] {});
        if (items < 0) {
            m_stopped = true;
            break;
        }
        // A full last page: the source may have grown since it was counted, or gave no count.
        if (items >= m_pageSize && key.second == m_lastOffset[key.first])
            schedule(key.first, key.second + m_pageSize);
        // Asked again after each page, not once the pages at hand are all taken: taking them is the
        // long part, and the target sat idle through it.
        pump();
    }
    m_draining = false;
    pump();
}

} // namespace steward
