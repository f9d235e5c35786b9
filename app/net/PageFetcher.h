#pragma once

#include "FlowControl.h"
#include "RemoteApi.h"
#include "RequestPool.h"

#include <QObject>
#include <QThreadPool>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace steward {

// The pages of many sources (a pull's resources in load order) fetched many at once and handed over
// strictly in order: source by source, page by page. A source's first page asks for its total count;
// the rest of its pages are then all asked for at once. A target that gives no count is paged one page
// after the other, the next asked once the last was full. With a Prepare step, each page is made ready
// on a worker thread as it arrives, while the pages before it are taken here.
class PageFetcher
{
public:
    struct Page
    {
        std::size_t source = 0;
        std::int64_t offset = 0;
        std::string path; // as asked, relative to the data API
        RemoteResponse answer;
        std::shared_ptr<void> prepared; // what Prepare made of it, if there is a Prepare step
        bool nextAtHand = false;        // the page after it is here already: taking goes straight on
    };
    // The request path of a page of a source ("/ed-fi/schools?offset=500&limit=500...").
    using PathOf = std::function<std::string(std::size_t source, std::int64_t offset, bool withTotalCount)>;
    // Takes a page, in order: the number of items it held, or -1 to stop fetching.
    using Take = std::function<int(const Page &page)>;
    // Makes a page ready to take, on a worker thread: it must read nothing the taking thread writes.
    using Prepare = std::function<std::shared_ptr<void>(const Page &page)>;

    PageFetcher(RemoteApi &remote, FlowControl &flow, std::size_t sources, int pageSize, PathOf pathOf, Take take,
                Prepare prepare = {});

    // Returns once every page was taken, or taking stopped and what was in flight came back.
    void run();
    int requests() const { return m_pool.sent(); }

private:
    struct Slot
    {
        bool asked = false;
        bool answered = false;
        std::optional<Page> ready; // answered (and prepared, with a Prepare step)
        std::string path;
    };
    using Key = std::pair<std::size_t, std::int64_t>;
    void pump();
    void arrived(const Key &key, const RemoteResponse &answer);
    void prepareOne(Page &page) const;
    bool prepareNextHere();
    void prepared(const Key &key, Page page);
    void drain();
    void schedule(std::size_t source, std::int64_t offset);
    bool finished() const;

    FlowControl &m_flow;
    RequestPool m_pool;
    std::size_t m_sources = 0;
    int m_pageSize = 0;
    PathOf m_pathOf;
    Take m_take;
    Prepare m_prepare;
    std::map<Key, Slot> m_pages;           // asked for or to ask for, not taken yet
    std::vector<std::int64_t> m_lastOffset; // per source: the furthest page scheduled
    std::size_t m_nextSource = 0;
    int m_outstanding = 0; // asked and not taken
    int m_preparing = 0;   // on the worker thread
    bool m_stopped = false;
    bool m_draining = false;
    std::function<void()> m_quit;
    std::mutex m_toPrepareMutex;
    std::map<Key, Page> m_toPrepare; // arrived, for the worker thread
    QObject m_here;                  // where a prepared page comes back to
    // One thread: the pages are taken on this one, and a local target needs a core of its own.
    // Declared last so that it is joined before anything its work refers to goes.
    QThreadPool m_workers;
};

} // namespace steward
