// The threads that turn a request into a prompt (JSON body read, chat
// template rendered, text tokenized) away from the network threads, so a
// slow template or a large prompt never stops the server from answering
// others (/health included) or from stopping.
//
// Threads: `threads` workers take tasks in the order submitted. submit() is
// thread-safe. Each task has a CancelToken: the pool cancels it when it is
// stopped (a task not started yet is dropped unrun, one running is asked to
// stop through its token: a template render ends within a few thousand
// steps), and its owner cancels it when the client leaves.
// Bounds: at most `maxQueued` tasks wait; submit() refuses more.
#pragma once

#include "burrow/engine.h"

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace burrow::server {

class PreparePool {
public:
    PreparePool(int threads, size_t maxQueued);
    ~PreparePool();   // stop()
    PreparePool(const PreparePool &) = delete;
    PreparePool &operator=(const PreparePool &) = delete;

    // Queues `task` (run on a worker; it should check `cancel` where it can).
    // false: the queue is full or the pool is stopping (the task is not run).
    bool submit(std::shared_ptr<CancelToken> cancel, std::function<void()> task);

    // Cancels every task, drops the ones waiting, waits for the running ones
    // to return and joins the workers. Idempotent.
    void stop();

    size_t queued() const;

private:
    struct Task {
        std::shared_ptr<CancelToken> cancel;
        std::function<void()> run;
    };
    void work();

    const size_t m_maxQueued;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<Task> m_queue;                              // guarded by m_mutex
    std::vector<std::shared_ptr<CancelToken>> m_running;   // guarded by m_mutex
    bool m_stopping = false;                               // guarded by m_mutex
    std::vector<std::thread> m_threads;
};

} // namespace burrow::server
