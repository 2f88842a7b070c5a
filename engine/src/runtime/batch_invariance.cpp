#include "runtime/batch_invariance.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace burrow::runtime {

namespace {

std::atomic<int> &state()
{
    // -1: not read yet.
    static std::atomic<int> s{-1};
    return s;
}

} // namespace

bool batchInvariant()
{
    int v = state().load(std::memory_order_relaxed);
    if (v < 0) {
        const char *env = std::getenv("BURROW_BATCH_INVARIANT");
        v = env && std::strcmp(env, "0") == 0 ? 0 : 1;
        state().store(v, std::memory_order_relaxed);
    }
    return v != 0;
}

void setBatchInvariant(bool on)
{
    state().store(on ? 1 : 0, std::memory_order_relaxed);
}

} // namespace burrow::runtime
