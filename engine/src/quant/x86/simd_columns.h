// Multi-column plumbing shared by SIMD kernel files: a kernel K<NY>::run(n,
// out, x, cols) computes one weight row against NY activation rows (NY <= 4)
// with, per column, exactly the arithmetic of NY = 1, so vecDot and
// vecDotMulti agree bit for bit; Entry turns it into the trait table's two
// function types. Everything here has internal linkage (an anonymous
// namespace): each SIMD translation unit gets its own copy, compiled with
// its own instruction-set flags (see x86_kernels.h).
#pragma once

#include <cstddef>
#include <cstdint>

namespace burrow::quant::x86 {
namespace {

template <typename Block>
struct Columns {
    const Block *y[4];
    Columns(const void *base, size_t stride, int ny)
    {
        for (int j = 0; j < ny; ++j)
            y[j] = reinterpret_cast<const Block *>(static_cast<const uint8_t *>(base) + static_cast<size_t>(j) * stride);
    }
};

template <typename WBlock, typename ABlock, template <int> class K>
struct Entry {
    static void dot(int64_t n, float *s, const void *x, const void *y)
    {
        K<1>::run(n, s, static_cast<const WBlock *>(x), Columns<ABlock>(y, 0, 1));
    }
    static void multi(int64_t n, float *out, const void *x, const void *y, size_t stride, int ny)
    {
        const auto *w = static_cast<const WBlock *>(x);
        const auto *base = static_cast<const uint8_t *>(y);
        int j = 0;
        for (; j + 4 <= ny; j += 4)
            K<4>::run(n, out + j, w, Columns<ABlock>(base + j * stride, stride, 4));
        switch (ny - j) {
        case 3: K<3>::run(n, out + j, w, Columns<ABlock>(base + j * stride, stride, 3)); break;
        case 2: K<2>::run(n, out + j, w, Columns<ABlock>(base + j * stride, stride, 2)); break;
        case 1: K<1>::run(n, out + j, w, Columns<ABlock>(base + j * stride, stride, 1)); break;
        default: break;
        }
    }
};

} // namespace
} // namespace burrow::quant::x86
