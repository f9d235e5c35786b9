#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

// Work an import spreads over the cores: a producer thread that hands batches over in order, and
// a range cut in parts run at once.
namespace steward {

// Runs work(from, to) over [0, count) in two halves, one on a helper thread. While inputs are read
// into the spool the first thread only inserts, so parsing has a core to spare: at 320k documents
// reading took 2.2 s instead of 3.2 s.
void inTwoHalves(std::size_t count, const std::function<void(std::size_t, std::size_t)> &work);
// Runs work(from, to) over [0, count) in `parts` parts, all but the last on helper threads.
void inParts(std::size_t count, int parts, const std::function<void(std::size_t, std::size_t)> &work);

// Runs fill() on a second thread, one batch per call, and hands the batches over in order. Only a
// few batches wait at a time, which bounds memory; the destructor stops and joins the thread.
// fill() returns false after the last batch; an exception it throws comes out of next().
template <typename T>
class Pipeline
{
public:
    explicit Pipeline(std::function<bool(std::vector<T> &)> fill)
        : m_fill(std::move(fill))
        , m_thread([this] { run(); })
    {
    }
    ~Pipeline()
    {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_stop = true;
        }
        m_changed.notify_all();
        m_thread.join();
    }
    Pipeline(const Pipeline &) = delete;
    Pipeline &operator=(const Pipeline &) = delete;

    // The batch passed in (the one before, used up) goes back to be freed on the second thread:
    // freeing thousands of small strings and JSON values showed as 5% of the writer's time.
    bool next(std::vector<T> &batch)
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        if (!batch.empty() && !m_finished)
            m_spent.push_back(std::move(batch));
        batch.clear();
        m_changed.wait(lock, [this] { return !m_ready.empty() || m_finished; });
        if (m_ready.empty()) {
            if (m_error)
                std::rethrow_exception(m_error);
            return false;
        }
        batch = std::move(m_ready.front());
        m_ready.pop_front();
        lock.unlock();
        m_changed.notify_all();
        return true;
    }

private:
    static constexpr std::size_t kBatchesAhead = 8;

    void run()
    {
        try {
            for (bool more = true; more;) {
                std::vector<std::vector<T>> spent;
                {
                    std::lock_guard<std::mutex> lock(m_mutex);
                    spent.swap(m_spent);
                }
                spent.clear();
                std::vector<T> batch;
                more = m_fill(batch);
                std::unique_lock<std::mutex> lock(m_mutex);
                m_changed.wait(lock, [this] { return m_ready.size() < kBatchesAhead || m_stop; });
                if (m_stop)
                    break;
                if (!batch.empty())
                    m_ready.push_back(std::move(batch));
                lock.unlock();
                m_changed.notify_all();
            }
        } catch (...) {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_error = std::current_exception();
        }
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_finished = true;
        }
        m_changed.notify_all();
    }

    std::function<bool(std::vector<T> &)> m_fill;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<std::vector<T>> m_ready;
    std::vector<std::vector<T>> m_spent;
    bool m_stop = false;
    bool m_finished = false;
    std::exception_ptr m_error;
    std::thread m_thread; // last: it starts once everything above exists
};

} // namespace steward
