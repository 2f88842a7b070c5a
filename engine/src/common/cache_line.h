// Cache-line alignment for SIMD scratch: a 64-byte vector access that starts
// on a line boundary never spans two lines (a split store or load costs
// about twice). Heap blocks (std::vector) are only 16-byte aligned, so
// scratch is allocated 63 bytes (or 16 floats) larger and used from its first
// boundary.
#pragma once

#include <cstddef>
#include <cstdint>

namespace burrow {

inline constexpr size_t kCacheLine = 64;

// n rounded up to whole lines.
constexpr size_t alignToLine(size_t n)
{
    return (n + kCacheLine - 1) & ~(kCacheLine - 1);
}

// The first line boundary at or after p (at most 63 bytes on).
template <typename T>
T *alignToLine(T *p)
{
    return reinterpret_cast<T *>((reinterpret_cast<uintptr_t>(p) + kCacheLine - 1) & ~uintptr_t{kCacheLine - 1});
}

} // namespace burrow
