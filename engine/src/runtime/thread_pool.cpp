#include "runtime/thread_pool.h"

#include "common/thread_name.h"
#include "runtime/cpu_topology.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define BURROW_PAUSE() _mm_pause()
#else
#define BURROW_PAUSE() std::this_thread::yield()
#endif

namespace burrow::runtime {

namespace {
constexpr int kSpinIterations = 4000;   // a few microseconds of pause before sleeping
}

ThreadPool::ThreadPool(int nThreads)
    : m_nThreads(nThreads < 1 ? 1 : nThreads)
{
    m_claims = std::make_unique<Claim[]>(static_cast<size_t>(m_nThreads));
    m_workers.reserve(static_cast<size_t>(m_nThreads - 1));
    for (int i = 1; i < m_nThreads; ++i)
        m_workers.emplace_back([this, i] { workerLoop(i); });
}

ThreadPool::~ThreadPool()
{
    m_stop.store(true, std::memory_order_release);
    m_generation.fetch_add(1, std::memory_order_acq_rel);
    m_generation.notify_all();
    for (std::thread &t : m_workers)
        t.join();
}

int ThreadPool::defaultThreadCount()
{
    // The physical cores this process may use (runtime/cpu_topology.h).
    static const int count = detectPhysicalCores();
    return count;
}

bool ThreadPool::claim(int ith, uint32_t gen)
{
    std::atomic<uint32_t> &c = m_claims[static_cast<size_t>(ith)].gen;
    uint32_t prev = c.load(std::memory_order_acquire);
    // Only a claim older than `gen` may be replaced (wrap-around safe: the
    // live generations are never 2^31 apart). A newer one means a late worker
    // holds a stale generation whose part the caller has already run.
    while (static_cast<int32_t>(prev - gen) < 0)
        if (c.compare_exchange_weak(prev, gen, std::memory_order_acq_rel, std::memory_order_acquire))
            return true;
    return false;
}

void ThreadPool::dispatch(Task task, void *ctx)
{
    if (m_nThreads == 1) {
        task(ctx, 0, 1);
        return;
    }
    m_task = task;
    m_ctx = ctx;
    m_pending.store(m_nThreads - 1, std::memory_order_relaxed);
    const uint32_t gen = m_generation.fetch_add(1, std::memory_order_acq_rel) + 1;   // publishes task/ctx
    m_generation.notify_all();
    task(ctx, 0, m_nThreads);
    // The parts whose workers have not started yet: run them here.
    for (int i = 1; i < m_nThreads; ++i)
        if (claim(i, gen)) {
            task(ctx, i, m_nThreads);
            m_pending.fetch_sub(1, std::memory_order_acq_rel);
        }
    int spins = 0;
    for (int left; (left = m_pending.load(std::memory_order_acquire)) != 0;) {
        if (++spins < kSpinIterations)
            BURROW_PAUSE();
        else
            m_pending.wait(left, std::memory_order_acquire);
    }
}

void ThreadPool::workerLoop(int ith)
{
    common::setCurrentThreadName("burrow-pool");
    uint32_t seen = 0;
    for (;;) {
        int spins = 0;
        uint32_t gen;
        while ((gen = m_generation.load(std::memory_order_acquire)) == seen) {
            if (++spins < kSpinIterations)
                BURROW_PAUSE();
            else
                m_generation.wait(seen, std::memory_order_acquire);
        }
        seen = gen;
        if (m_stop.load(std::memory_order_acquire))
            return;
        // A successful claim means dispatch `gen` still waits for this part,
        // so m_task and m_ctx are still its own.
        if (!claim(ith, gen))
            continue;
        m_task(m_ctx, ith, m_nThreads);
        if (m_pending.fetch_sub(1, std::memory_order_acq_rel) == 1)
            m_pending.notify_one();
    }
}

} // namespace burrow::runtime
