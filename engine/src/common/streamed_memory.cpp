#include "common/streamed_memory.h"

#include <sys/mman.h>

namespace burrow {

namespace {

constexpr size_t kHugePage = size_t{2} << 20;   // an x86-64 transparent huge page

} // namespace

void *allocateStreamed(size_t bytes) noexcept
{
    if (bytes == 0)
        return nullptr;
    const bool huge = bytes >= kHugePage;
    void *p = nullptr;
    if (::posix_memalign(&p, huge ? kHugePage : 64, bytes) != 0)
        return nullptr;
    if (huge)   // whole huge pages only; failure leaves normal pages
        ::madvise(p, bytes & ~(kHugePage - 1), MADV_HUGEPAGE);
    return p;
}

} // namespace burrow
