// The scalar parts of the SIMD attendTiledQ8_0 kernels (avx512_flash_q8.cpp,
// flash_q8_avx2.h): which cells a group of keys reads, the next group's
// lines on their way, and the quantized queries with the sums the integer
// products need. Header only, internal linkage: each instruction-set file
// compiles its own copy (see x86_kernels.h).
#pragma once

#include "ops/flash_attention.h"
#include "ops/generic/generic_kernels.h"
#include "quant/quant_blocks.h"

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace burrow::ops::x86::flash_q8 {

using quant::BlockQ8_0;

inline constexpr int kMaxBlocks = kMaxFlashHeadDim / 32;

// A row of zeros (d = 0, codes 0) for keys a tile reads but no query sees.
static inline const BlockQ8_0 *zeroRow()
{
    static const BlockQ8_0 zeros[kMaxBlocks] = {};
    return zeros;
}

// The K and V rows of keys t0 + g0 .. t0 + g0 + G - 1 (G divides 16, g0 a
// multiple of G): a key past n or below lo (maybe not held) reads zeroRow.
template <int G>
static inline void groupRows(const KvView &kv, uint32_t t0, int g0, int n, uint32_t lo, const BlockQ8_0 **krow,
                             const BlockQ8_0 **vrow)
{
    for (int r = 0; r < G; ++r) {
        const int tk = g0 + r;
        const uint32_t j = t0 + static_cast<uint32_t>(tk);
        if (tk < n && j >= lo) {
            const size_t cell = kvCell(kv.blocks, j);
            krow[r] = reinterpret_cast<const BlockQ8_0 *>(kv.k + cell * kv.kStride);
            vrow[r] = reinterpret_cast<const BlockQ8_0 *>(kv.v + cell * kv.vStride);
        } else {
            krow[r] = vrow[r] = zeroRow();
        }
    }
}

// Keys j .. min(j + G - 1, hi) into the L1 cache (j a multiple of G: cells
// in a row within one 16-cell block), each line once; nothing when j > hi.
template <int G>
static inline void prefetchGroup(const KvView &kv, uint32_t j, uint32_t hi)
{
    if (j > hi)
        return;
    const size_t cell = kvCell(kv.blocks, j);
    const char *k = reinterpret_cast<const char *>(kv.k + cell * kv.kStride);
    const char *v = reinterpret_cast<const char *>(kv.v + cell * kv.vStride);
    const size_t keys = hi - j + 1 < static_cast<uint32_t>(G) ? hi - j + 1 : static_cast<size_t>(G);
    const size_t kb = (keys - 1) * kv.kStride * 2 + static_cast<size_t>(kv.dk / 32) * sizeof(BlockQ8_0);
    const size_t vb = (keys - 1) * kv.vStride * 2 + static_cast<size_t>(kv.dv / 32) * sizeof(BlockQ8_0);
    for (size_t o = 0; o < kb; o += 64)
        _mm_prefetch(k + o, _MM_HINT_T0);
    for (size_t o = 0; o < vb; o += 64)
        _mm_prefetch(v + o, _MM_HINT_T0);
}

// Query i quantized into qq[i nb ..] (the trait table's quantizer, as the
// twin), with per block: bias = -128 sum(q) (the unsigned shift's return),
// d as a float, and |q| bytes (qabs[(i nb + b) 32 ..], when qabs is given).
static inline void prepareQuery(const generic::Q8_0Ops &q8, const TileQuery &query, int dk, int i, BlockQ8_0 *qq,
                                int32_t *bias, float *d, uint8_t *qabs)
{
    const int nb = dk / 32;
    BlockQ8_0 *qb = qq + static_cast<size_t>(i) * nb;
    q8.quantize(query.q, qb, dk);
    for (int b = 0; b < nb; ++b) {
        const size_t ib = static_cast<size_t>(i) * nb + b;
        int32_t sum = 0;
        for (int e = 0; e < 32; ++e) {
            sum += qb[b].qs[e];
            if (qabs)
                qabs[ib * 32 + e] = static_cast<uint8_t>(qb[b].qs[e] < 0 ? -qb[b].qs[e] : qb[b].qs[e]);
        }
        bias[ib] = -128 * sum;
        d[ib] = _cvtsh_ss(qb[b].d);
    }
}

} // namespace burrow::ops::x86::flash_q8
