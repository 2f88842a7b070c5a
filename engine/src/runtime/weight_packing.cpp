#include "runtime/weight_packing.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <system_error>
#include <thread>
#include <cstring>
#include <unistd.h>
#include <sys/mman.h>

namespace burrow::runtime {

namespace {

bool packingEnabled()
{
    const char *env = std::getenv("BURROW_PACK");
    return !(env && std::strcmp(env, "0") == 0);
}

// Drops the resident pages wholly inside [p, p + n) of the read-only file
// map; they fault back in from the file if anything reads them again.
void releasePages(const uint8_t *p, size_t n)
{
    const long page = ::sysconf(_SC_PAGESIZE);
    if (page <= 0 || n == 0)
        return;
    const auto begin = (reinterpret_cast<uintptr_t>(p) + static_cast<uintptr_t>(page) - 1) & ~static_cast<uintptr_t>(page - 1);
    const auto end = (reinterpret_cast<uintptr_t>(p) + n) & ~static_cast<uintptr_t>(page - 1);
    if (end > begin)
        ::madvise(reinterpret_cast<void *>(begin), end - begin, MADV_DONTNEED);
}

} // namespace

Status packWeights(model::Weights &weights, std::vector<std::unique_ptr<quant::PackedMatrix>> &store,
                   StreamedArray<uint8_t> &arena, const std::function<bool(float)> &progress)
{
    if (!packingEnabled())
        return Status::ok();
    // Every matrix a multiply reads (experts one by one: a token reads only
    // its experts' packed rows).
    std::vector<model::TensorView *> todo = model::weightMatrices(weights);
    std::erase_if(todo, [](const model::TensorView *t) {
        return !quant::packSupported(t->type, t->ne0) || !quant::packedKernelsActive(t->type);
    });
    if (todo.empty())
        return Status::ok();

    // Matrices are packed by a few threads at once (each takes the next one);
    // this thread reports progress and passes on a cancel.
    std::vector<Result<std::unique_ptr<quant::PackedMatrix>>> packed;
    packed.reserve(todo.size());
    for (size_t i = 0; i < todo.size(); ++i)
        packed.emplace_back(Status::error("not packed"));
    // One arena for all (offsets 64-byte multiples: packedMatrixBytes is).
    std::vector<size_t> offset(todo.size());
    size_t total = 0;
    bool fits = true;
    for (size_t i = 0; i < todo.size() && fits; ++i) {
        const size_t bytes = quant::packedMatrixBytes(todo[i]->type, todo[i]->ne0, todo[i]->ne1);
        offset[i] = total;
        fits = bytes <= SIZE_MAX - total;
        total += fits ? bytes : 0;
    }
    if (fits && total > 0)
        arena = allocateStreamedArray<uint8_t>(total);
    std::atomic<size_t> next{0}, done{0};
    std::atomic<bool> stop{false};
    const auto worker = [&] {
        for (size_t i; !stop.load(std::memory_order_relaxed) && (i = next.fetch_add(1)) < todo.size();) {
            const model::TensorView &t = *todo[i];
            packed[i] = quant::packMatrix(t.type, t.data, t.rowBytes, t.ne0, t.ne1, arena ? arena.get() + offset[i] : nullptr);
            // (A tied output's rows are the embedding table's too: a lookup
            // faults its row back in from the file, one page.)
            if (packed[i])
                releasePages(t.data, t.rowBytes * static_cast<size_t>(t.ne1));
            done.fetch_add(1, std::memory_order_release);
        }
    };
    const unsigned hw = std::thread::hardware_concurrency();
    const size_t nThreads = std::min<size_t>({todo.size(), hw == 0 ? 1 : hw, 8});
    std::vector<std::thread> threads;
    try {
        for (size_t i = 0; i < nThreads; ++i)
            threads.emplace_back(worker);
    } catch (const std::system_error &) {
        // No more threads: those started (at least this one, below) do the work.
    }
    bool cancelled = false;
    if (threads.empty()) {
        worker();
    } else {
        for (size_t d; (d = done.load(std::memory_order_acquire)) < todo.size();) {
            if (progress && !progress(static_cast<float>(d) / static_cast<float>(todo.size()))) {
                stop.store(true);
                cancelled = true;
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        for (std::thread &th : threads)
            th.join();
    }
    if (cancelled)
        return Status::cancelled("loading cancelled");
    for (size_t i = 0; i < todo.size(); ++i) {
        // Values the packed layout cannot hold (quant::packableRows): the
        // matrix keeps its row kernels.
        if (!packed[i] && !quant::packableRows(todo[i]->type, todo[i]->data, todo[i]->rowBytes, todo[i]->ne0, todo[i]->ne1))
            continue;
        if (!packed[i])
            return packed[i].status().withContext(std::string(todo[i]->name));
        todo[i]->packed = packed[i].value().get();
        store.push_back(std::move(packed[i].value()));
    }
    if (progress && !progress(1.0f))
        return Status::cancelled("loading cancelled");
    return Status::ok();
}

} // namespace burrow::runtime
