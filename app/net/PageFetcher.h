#pragma once

#include "FlowControl.h"
#include "RemoteApi.h"
#include "RequestPool.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace steward {

// The pages of many sources (a pull's resources in load order) fetched many at once and handed over
// strictly in order: source by source, page by page. A source's first page asks for its total count;
// the rest of its pages are then all asked for at once. A target that gives no count is paged one page
// after the other, the next asked once the last was full.
class PageFetcher
{
public:
    struct Page
    {
        std::size_t source = 0;
        std::int64_t offset = 0;
        std::string path; // as asked, relative to the data API
        RemoteResponse answer;
    };
    // The request path of a page of a source ("/ed-fi/schools?offset=500&limit=500...").
    using PathOf = std::function<std::string(std::size_t source, std::int64_t offset, bool withTotalCount)>;
    // Takes a page, in order: the number of items it held, or -1 to stop fetching.
    using Take = std::function<int(const Page &page)>;

    PageFetcher(RemoteApi &remote, FlowControl &flow, std::size_t sources, int pageSize, PathOf pathOf, Take take);

    // Returns once every page was taken, or taking stopped and what was in flight came back.
    void run();
    int requests() const { return m_pool.sent(); }

private:
    struct Slot
    {
        bool asked = false;
        std::optional<RemoteResponse> answer;
        std::string path;
    };
    using Key = std::pair<std::size_t, std::int64_t>;
    void pump();
    void arrived(const Key &key, const RemoteResponse &answer);
    void drain();
    void schedule(std::size_t source, std::int64_t offset);
    bool finished() const;

    FlowControl &m_flow;
    RequestPool m_pool;
    std::size_t m_sources = 0;
    int m_pageSize = 0;
    PathOf m_pathOf;
    Take m_take;
    std::map<Key, Slot> m_pages;           // asked for or to ask for, not taken yet
    std::vector<std::int64_t> m_lastOffset; // per source: the furthest page scheduled
    std::size_t m_nextSource = 0;
    int m_outstanding = 0; // asked and not taken
    bool m_stopped = false;
    bool m_draining = false;
    std::function<void()> m_quit;
};

} // namespace steward
