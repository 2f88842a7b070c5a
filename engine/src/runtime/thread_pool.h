// A persistent pool of worker threads for the forward pass. Threads are
// created once (Session creation) and reused for every operation; run() does
// not allocate.
//
// Contract: run(fn) calls fn(ith, nth) once on each of the nth threads (the
// calling thread is ith 0) and returns when all calls have returned. Work is
// split by the callee from (ith, nth), so a result never depends on which OS
// thread ran which part. run() is not reentrant and is used by one thread at
// a time.
//
// Cost: one dispatch is an atomic store + futex wake for sleeping workers;
// workers spin briefly before sleeping so back-to-back operations (a forward
// pass issues a few per layer) do not pay the wake-up.
//
// A part no worker has started when the caller finishes its own is run by
// the caller: each part is claimed once (per-part atomic, the dispatch's
// generation), by its worker or by the caller. So a worker the OS has not
// scheduled yet (the app's renderer on the same cores, another program)
// costs the caller that part's time, not the wait for the worker's next time
// slice. fn must therefore not wait for another part (no barriers inside).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace burrow::runtime {

class ThreadPool {
public:
    // nThreads >= 1 (values < 1 mean 1); nThreads - 1 workers are started.
    explicit ThreadPool(int nThreads);
    ~ThreadPool();
    ThreadPool(const ThreadPool &) = delete;
    ThreadPool &operator=(const ThreadPool &) = delete;

    int size() const { return m_nThreads; }

    template <typename F>
    void run(F &&fn)
    {
        using Fn = std::remove_reference_t<F>;
        dispatch([](void *ctx, int ith, int nth) { (*static_cast<Fn *>(ctx))(ith, nth); }, &fn);
    }

    // Like run(), but on the calling thread alone (fn(0, 1)) when `work`
    // (about one unit per multiply-add) is too small to pay for waking the
    // workers.
    template <typename F>
    void run(F &&fn, int64_t work)
    {
        if (work < kMinParallelWork || m_nThreads == 1)
            fn(0, 1);
        else
            run(std::forward<F>(fn));
    }
    static constexpr int64_t kMinParallelWork = 1 << 15;

    // The [begin, end) share of `n` items for thread ith of nth (contiguous, balanced).
    static void split(int64_t n, int ith, int nth, int64_t *begin, int64_t *end)
    {
        const int64_t per = n / nth, extra = n % nth;
        *begin = ith * per + (ith < extra ? ith : extra);
        *end = *begin + per + (ith < extra ? 1 : 0);
    }

    // Number of threads to use when `threads` <= 0: the physical cores the
    // process may run on (cpu_topology.h), detected once.
    static int defaultThreadCount();

private:
    using Task = void (*)(void *ctx, int ith, int nth);
    void dispatch(Task task, void *ctx);
    void workerLoop(int ith);
    // True when the caller of this claims part ith of dispatch `gen` (it was
    // not claimed yet); each part of a dispatch is claimed exactly once.
    bool claim(int ith, uint32_t gen);

    // One per part (index ith - 1), on its own cache line: the generation of
    // the last dispatch whose part ith has been claimed.
    struct alignas(64) Claim {
        std::atomic<uint32_t> gen{0};
    };

    int m_nThreads = 1;
    std::vector<std::thread> m_workers;
    std::unique_ptr<Claim[]> m_claims;
    Task m_task = nullptr;
    void *m_ctx = nullptr;
    std::atomic<uint32_t> m_generation{0};
    std::atomic<int> m_pending{0};
    std::atomic<bool> m_stop{false};
};

} // namespace burrow::runtime
