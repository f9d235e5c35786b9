#include "PageFetcher.h"

#include <QEventLoop>

#include <cstdlib>

namespace steward {

PageFetcher::PageFetcher(RemoteApi &remote, FlowControl &flow, std::size_t sources, int pageSize, PathOf pathOf,
                         Take take)
    : m_flow(flow)
    , m_pool(remote, flow)
    , m_sources(sources)
    , m_pageSize(pageSize)
    , m_pathOf(std::move(pathOf))
    , m_take(std::move(take))
    , m_lastOffset(sources, -1)
{
}

bool PageFetcher::finished() const
{
    return m_pool.idle() && (m_stopped || (m_pages.empty() && m_nextSource >= m_sources));
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
        const std::string total = answer.header("total-count");
        if (!total.empty())
            for (std::int64_t offset = m_pageSize; offset < std::atoll(total.c_str()); offset += m_pageSize)
                schedule(key.first, offset);
    }
    slot->second.answer = answer;
    drain();
}

void PageFetcher::drain()
{
    // Taking a page may make requests of its own (never through this pool): not taken twice at once.
    if (m_draining)
        return;
    m_draining = true;
    while (!m_stopped && !m_pages.empty() && m_pages.begin()->second.answer) {
        const Key key = m_pages.begin()->first;
        Page page{key.first, key.second, m_pages.begin()->second.path, std::move(*m_pages.begin()->second.answer)};
        m_pages.erase(m_pages.begin());
        --m_outstanding;
        const int items = m_take(page);
        if (items < 0) {
            m_stopped = true;
            break;
        }
        // A full last page: the source may have grown since it was counted, or gave no count.
        if (items >= m_pageSize && key.second == m_lastOffset[key.first])
            schedule(key.first, key.second + m_pageSize);
    }
    m_draining = false;
    pump();
}

} // namespace steward
