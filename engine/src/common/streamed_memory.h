// Memory for the large arrays every token streams through (packed weights,
// the KV cache): from 2 MiB up, aligned to 2 MiB and marked for transparent
// huge pages (madvise MADV_HUGEPAGE; Debian's default THP mode is
// "madvise"), so a pass over it costs one page-table walk per 2 MiB instead
// of one per 4 KiB. Smaller arrays are 64-byte aligned. Untouched memory
// stays unallocated as usual; where THP is off the advice is ignored.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>

namespace burrow {

struct StreamedFree {
    void operator()(void *p) const noexcept { std::free(p); }
};
template <typename T>
using StreamedArray = std::unique_ptr<T[], StreamedFree>;

// `bytes` of uninitialised memory (nullptr when out of memory or bytes is 0);
// release with std::free (StreamedFree).
void *allocateStreamed(size_t bytes) noexcept;

// n uninitialised elements of a trivial type T (null when out of memory).
template <typename T>
StreamedArray<T> allocateStreamedArray(size_t n) noexcept
{
    if (n > static_cast<size_t>(-1) / sizeof(T))
        return StreamedArray<T>();
    return StreamedArray<T>(static_cast<T *>(allocateStreamed(n * sizeof(T))));
}

} // namespace burrow
