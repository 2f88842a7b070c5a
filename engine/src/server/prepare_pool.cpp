// PreparePool: a fixed set of workers over a bounded queue (see prepare_pool.h).
#include "server/prepare_pool.h"

#include <algorithm>

namespace burrow::server {

PreparePool::PreparePool(int threads, size_t maxQueued) : m_maxQueued(maxQueued)
{
    for (int i = 0; i < std::max(1, threads); ++i)
        m_threads.emplace_back([this] { work(); });
}

PreparePool::~PreparePool()
{
    stop();
}

bool PreparePool::submit(std::shared_ptr<CancelToken> cancel, std::function<void()> task)
{
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping || m_queue.size() >= m_maxQueued)
            return false;
        m_queue.push_back({std::move(cancel), std::move(task)});
    }
    m_wake.notify_one();
    return true;
}

size_t PreparePool::queued() const
{
    std::lock_guard lock(m_mutex);
    return m_queue.size();
}

void PreparePool::stop()
{
    std::deque<Task> dropped;
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping && m_threads.empty())
            return;
        m_stopping = true;
        dropped.swap(m_queue);
        for (const auto &token : m_running)
            token->cancel();
    }
    for (Task &t : dropped)
        if (t.cancel)
            t.cancel->cancel();
    dropped.clear();   // their closures are released here, on the stopping thread
    m_wake.notify_all();
    for (std::thread &t : m_threads)
        if (t.joinable())
            t.join();
    m_threads.clear();
}

void PreparePool::work()
{
    for (;;) {
        Task task;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
            if (m_stopping)
                return;
            task = std::move(m_queue.front());
            m_queue.pop_front();
            if (task.cancel)
                m_running.push_back(task.cancel);
        }
        if (!task.cancel || !task.cancel->isCancelled()) {
            try {
                task.run();
            } catch (...) {
                // A task reports its own errors; nothing may end the worker.
            }
        }
        std::lock_guard lock(m_mutex);
        if (task.cancel)
            m_running.erase(std::find(m_running.begin(), m_running.end(), task.cancel));
    }
}

} // namespace burrow::server
