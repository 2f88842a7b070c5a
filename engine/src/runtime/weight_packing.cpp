#include "runtime/weight_packing.h"

#include <cstdlib>
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
                   const std::function<bool(float)> &progress)
{
    if (!packingEnabled())
        return Status::ok();
    std::vector<model::TensorView *> todo;
    for (model::LayerWeights &L : weights.layers)
        for (model::TensorView *t : {&L.wq, &L.wk, &L.wv, &L.wqkv, &L.wo, &L.ffnGate, &L.ffnUp, &L.ffnDown})
            if (*t)
                todo.push_back(t);
    if (weights.output)
        todo.push_back(&weights.output);
    const bool tied = weights.output.data == weights.tokenEmbd.data;
    for (size_t i = 0; i < todo.size(); ++i) {
        model::TensorView &t = *todo[i];
        if (!quant::packSupported(t.type, t.ne0) || !quant::packedKernelsActive(t.type))
            continue;
        auto packed = quant::packMatrix(t.type, t.data, t.rowBytes, t.ne0, t.ne1);
        if (!packed)
            return packed.status().withContext(std::string(t.name));
        t.packed = packed.value().get();
        store.push_back(std::move(packed.value()));
        if (!(tied && &t == &weights.output))
            releasePages(t.data, t.rowBytes * static_cast<size_t>(t.ne1));
        if (progress && !progress(static_cast<float>(i + 1) / static_cast<float>(todo.size())))
            return Status::error("loading cancelled");
    }
    return Status::ok();
}

} // namespace burrow::runtime
