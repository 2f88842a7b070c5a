// The lattice i-quants' prompt path (iq_tiles.h): tile layout, the
// activation side, the scalar twins, and the dispatch with a per-thread
// tile buffer. Compiled with -ffp-contract=off (the float steps are the
// scalar dot products' own, generic/iq_kernels.h).
#include "quant/iq_tiles.h"

#include "quant/cpu_features.h"
#include "quant/generic/iq_kernels.h"
#include "quant/packed.h"
#include "quant/quant_blocks.h"
#include "quant/quant_traits.h"
#ifdef BURROW_QUANT_X86
#include "quant/x86/iq_simd.h"
#endif

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace burrow::quant {

namespace {

constexpr size_t kRows = kPackRows;
constexpr size_t kOffStart = kIqTileOffStart, kOffScale = kIqTileOffScale, kOffWeights = kIqTileOffWeights,
                 kOffExtra = kIqTileOffExtra;

void put32(uint8_t *p, int32_t v) { std::memcpy(p, &v, 4); }
int32_t get32(const uint8_t *p)
{
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
int lo16(int32_t v) { return static_cast<int16_t>(v & 0xffff); }
int hi16(int32_t v) { return static_cast<int16_t>(static_cast<uint32_t>(v) >> 16); }

// Row r's scale pairs, weight runs and lane starts in one super-block of a
// tile, from its 256 values w and the scales of its 16 halves; wholeStart
// (Q2_K): the 8 lanes' starts summed into lane 0's place. For the types
// whose scaled values fit a byte (iqTileScaledWeights) the runs hold
// value * scale and the scale pairs 1.
void putRuns(const int8_t *w, const int *scale, uint8_t *o, size_t r, bool wholeStart, bool scaled)
{
    int8_t ws[256];
    if (scaled) {
        for (int e = 0; e < 256; ++e)
            ws[e] = static_cast<int8_t>(w[e] * scale[e / 16]);
        w = ws;
    }
    for (int h = 0; h < 16; ++h) {
        const int s = scaled ? 1 : scale[h];
        put32(o + kOffScale + (16 * static_cast<size_t>(h) + r) * 4, iqTilePair16(s, s));
    }
    int32_t total = 0;
    for (int m = 0; m < 8; ++m) {
        int32_t start = 0;
        for (int ib = 0; ib < 8; ++ib) {
            const int8_t *run = w + 32 * ib + 4 * m;
            std::memcpy(o + kOffWeights + ((8 * m + ib) * kRows + r) * 4, run, 4);
            start += (scaled ? 1 : scale[2 * ib + m / 4]) * (run[0] + run[1] + run[2] + run[3]);
        }
        if (wholeStart)
            total += start;
        else
            put32(o + kOffStart + (16 * static_cast<size_t>(m) + r) * 4, -128 * start);
    }
    if (wholeStart)
        put32(o + kOffStart + r * 4, -128 * total);
}

// Row r of one super-block of a lattice type's tile from its decoded super-block.
void putRow(GgmlType type, const generic::IqSuperBlock &s, uint8_t *o, size_t r)
{
    std::memcpy(o + 4 * r, &s.d, 4);
    int scale[16];
    for (int h = 0; h < 16; ++h)
        scale[h] = s.scale[h];
    putRuns(s.w, scale, o, r, false, iqTileScaledWeights(type));
    uint32_t groupNeg = 0;
    for (int l = 0; l < 32; ++l)
        groupNeg |= static_cast<uint32_t>(s.shift[l] < 0) << l;
    iqTilePutShiftPairs(type, o, r, s.scale, groupNeg);
}

// Row r of one super-block of a Q2_K tile (iq_tiles.h): the 2-bit values
// as weights, the 4-bit scales as scale pairs, the whole block's start in
// lane 0's place, the mins' pairs and dmin.
void putRowQ2K(const BlockQ2_K &x, uint8_t *o, size_t r)
{
    const float d = fp16ToFp32(x.d), dmin = fp16ToFp32(x.dmin);
    std::memcpy(o + 4 * r, &d, 4);
    int8_t w[256];
    for (int e = 0; e < 256; ++e)
        w[e] = static_cast<int8_t>((x.qs[32 * (e / 128) + e % 32] >> (2 * ((e / 32) % 4))) & 3);
    int scale[16];
    for (int h = 0; h < 16; ++h)
        scale[h] = x.scales[h] & 0xf;
    putRuns(w, scale, o, r, true, true);
    for (int p = 0; p < 8; ++p)
        put32(o + kOffExtra + (16 * static_cast<size_t>(p) + r) * 4, iqTilePair16(x.scales[2 * p] >> 4, x.scales[2 * p + 1] >> 4));
    std::memcpy(o + kIqTileOffQ2KDmin + 4 * r, &dmin, 4);
}

// Row r of one super-block of a Q3_K tile: the levels low2 - (high bit ? 0
// : 4) as weights, the 6-bit scales minus 32 as scale pairs.
void putRowQ3K(const BlockQ3_K &x, uint8_t *o, size_t r)
{
    const float d = fp16ToFp32(x.d);
    std::memcpy(o + 4 * r, &d, 4);
    int8_t w[256];
    for (int e = 0; e < 256; ++e) {
        const int half = e / 128, k = (e / 32) % 4, l = e % 32;
        w[e] = static_cast<int8_t>(((x.qs[32 * half + l] >> (2 * k)) & 3) - (((x.hmask[l] >> (4 * half + k)) & 1) ? 0 : 4));
    }
    int8_t sc[16];
    unpackQ3KScales(x.scales, sc);
    int scale[16];
    for (int h = 0; h < 16; ++h)
        scale[h] = sc[h];
    putRuns(w, scale, o, r, false, false);
}

void freeAligned(uint8_t *p) { std::free(p); }

} // namespace

size_t iqTileSuperBytes(GgmlType type)
{
    switch (type) {
    case GgmlType::GGML_TYPE_IQ1_S: return kOffExtra + 4 * kRows * 4;
    case GgmlType::GGML_TYPE_IQ1_M: return kOffExtra + 32 * kRows * 4;
    case GgmlType::GGML_TYPE_Q2_K: return kIqTileOffQ2KDmin + kRows * 4;
    default: return generic::isIqLatticeType(type) || type == GgmlType::GGML_TYPE_Q3_K ? kOffExtra : 0;
    }
}

bool iqTileType(GgmlType type)
{
    return generic::isIqLatticeType(type) || type == GgmlType::GGML_TYPE_Q2_K || type == GgmlType::GGML_TYPE_Q3_K;
}

bool iqTilesActive(GgmlType type)
{
#ifdef BURROW_QUANT_X86
    const CpuPath path = activeCpuPath();
    return iqTileType(type) && (path == CpuPath::CPU_PATH_AVX512 || path == CpuPath::CPU_PATH_AVX2);
#else
    (void)type;
    return false;
#endif
}

size_t iqTileSideBytes(int64_t K, int64_t nTokens)
{
    return static_cast<size_t>(K / QK_K) * kIqTileActBytes * static_cast<size_t>((nTokens + 7) / 8 * 8);
}

void iqTilePrepareRow(GgmlType type, int64_t K, const PackedActivation &act, int64_t t)
{
    const int64_t nb = K / QK_K;
    const auto *a = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t) * act.stride);
    uint8_t *side = act.tileSide + iqSideToken(nb, t);
    for (int64_t b = 0; b < nb; ++b) {
        const int8_t *q = a[b].qs;
        for (int m = 0; m < 8; ++m)
            for (int ib = 0; ib < 8; ++ib)
                for (int i = 0; i < 4; ++i)
                    side[iqSideRun(nb, m, b, ib) + static_cast<size_t>(i)] = static_cast<uint8_t>(q[32 * ib + 4 * m + i] + 128);
        if (type == GgmlType::GGML_TYPE_Q2_K)
            for (int p = 0; p < 8; ++p)
                put32(side + iqSideBsums(nb, b, p), iqTilePair16(a[b].bsums[2 * p], a[b].bsums[2 * p + 1]));
        if (type == GgmlType::GGML_TYPE_IQ1_S)
            for (int p = 0; p < 4; ++p)
                put32(side + iqSideSums(nb, b, p), iqTilePair16(a[b].bsums[4 * p] + a[b].bsums[4 * p + 1],
                                                          a[b].bsums[4 * p + 2] + a[b].bsums[4 * p + 3]));
        if (type == GgmlType::GGML_TYPE_IQ1_M)
            for (int m = 0; m < 8; ++m)
                for (int p = 0; p < 4; ++p) {
                    const int8_t *r0 = q + 32 * (2 * p) + 4 * m, *r1 = q + 32 * (2 * p + 1) + 4 * m;
                    put32(side + iqSideQ4(nb, m, b, p), iqTilePair16(r0[0] + r0[1] + r0[2] + r0[3], r1[0] + r1[1] + r1[2] + r1[3]));
                }
    }
}

void iqTileConvertScalar(GgmlType type, const uint8_t *rows, size_t rowBytes, int64_t K, int64_t N, int64_t g,
                         uint8_t *tile)
{
    const generic::IqDecodeFn decode = generic::iqDecoder(type);
    const size_t superBytes = iqTileSuperBytes(type), blockBytes = ggmlTypeInfo(type)->typeSize;
    const int64_t nb = K / QK_K;
    std::memset(tile, 0, superBytes * static_cast<size_t>(nb));
    if (type == GgmlType::GGML_TYPE_Q2_K || type == GgmlType::GGML_TYPE_Q3_K) {
        for (size_t r = 0; r < kRows && g * 16 + static_cast<int64_t>(r) < N; ++r) {
            const uint8_t *row = rows + static_cast<size_t>(g * 16 + static_cast<int64_t>(r)) * rowBytes;
            for (int64_t b = 0; b < nb; ++b) {
                uint8_t *o = tile + static_cast<size_t>(b) * superBytes;
                if (type == GgmlType::GGML_TYPE_Q2_K)
                    putRowQ2K(reinterpret_cast<const BlockQ2_K *>(row)[b], o, r);
                else
                    putRowQ3K(reinterpret_cast<const BlockQ3_K *>(row)[b], o, r);
            }
        }
        return;
    }
    generic::IqSuperBlock s;
    for (size_t r = 0; r < kRows && g * 16 + static_cast<int64_t>(r) < N; ++r) {
        const uint8_t *row = rows + static_cast<size_t>(g * 16 + static_cast<int64_t>(r)) * rowBytes;
        for (int64_t b = 0; b < nb; ++b) {
            decode(row + static_cast<size_t>(b) * blockBytes, &s);
            putRow(type, s, tile + static_cast<size_t>(b) * superBytes, r);
        }
    }
}

void iqTileMultiplyScalar(GgmlType type, const uint8_t *tile, int64_t K, int rows, const PackedActivation &act,
                          int64_t t0, int64_t t1, float *y, size_t ldy)
{
    const size_t superBytes = iqTileSuperBytes(type);
    const int64_t nb = K / QK_K;
    for (int r = 0; r < rows; ++r)
        for (int64_t t = t0; t < t1; ++t) {
            const auto *a = reinterpret_cast<const BlockQ8_K *>(act.rows + static_cast<size_t>(t) * act.stride);
            const uint8_t *side = act.tileSide + iqSideToken(nb, t);
            generic::IqAccumulator acc;
            float accQ2 = 0.0f, accmQ2 = 0.0f;   // Q2_K: generic q2K's two chains
            for (int64_t b = 0; b < nb; ++b) {
                const uint8_t *o = tile + static_cast<size_t>(b) * superBytes;
                int32_t lane[8], shiftLane[8] = {};
                for (int m = 0; m < 8; ++m) {
                    lane[m] = get32(o + kOffStart + (16 * m + static_cast<size_t>(r)) * 4);
                    for (int ib = 0; ib < 8; ++ib) {
                        const auto *w = reinterpret_cast<const int8_t *>(o + kOffWeights + ((8 * m + ib) * kRows + static_cast<size_t>(r)) * 4);
                        const uint8_t *u = side + iqSideRun(nb, m, b, ib);
                        const int s = lo16(get32(o + kOffScale + ((2 * ib + m / 4) * kRows + static_cast<size_t>(r)) * 4));
                        lane[m] += s * (u[0] * w[0] + u[1] * w[1] + u[2] * w[2] + u[3] * w[3]);
                    }
                }
                if (type == GgmlType::GGML_TYPE_IQ1_S)
                    for (int p = 0; p < 4; ++p) {
                        const int32_t c = get32(o + kOffExtra + (16 * static_cast<size_t>(p) + static_cast<size_t>(r)) * 4);
                        const int32_t v = get32(side + iqSideSums(nb, b, p));
                        shiftLane[0] += lo16(c) * lo16(v) + hi16(c) * hi16(v);
                    }
                if (type == GgmlType::GGML_TYPE_IQ1_M)
                    for (int m = 0; m < 8; ++m)
                        for (int p = 0; p < 4; ++p) {
                            const int32_t c = get32(o + kOffExtra + ((4 * m + p) * kRows + static_cast<size_t>(r)) * 4);
                            const int32_t v = get32(side + iqSideQ4(nb, m, b, p));
                            shiftLane[m] += lo16(c) * lo16(v) + hi16(c) * hi16(v);
                        }
                float dw;
                std::memcpy(&dw, o + 4 * static_cast<size_t>(r), 4);
                if (type == GgmlType::GGML_TYPE_Q2_K) {
                    int32_t isum = 0, imin = 0;
                    for (int m = 0; m < 8; ++m)
                        isum += lane[m];
                    for (int p = 0; p < 8; ++p) {
                        const int32_t c = get32(o + kOffExtra + (16 * static_cast<size_t>(p) + static_cast<size_t>(r)) * 4);
                        const int32_t v = get32(side + iqSideBsums(nb, b, p));
                        imin += lo16(c) * lo16(v) + hi16(c) * hi16(v);
                    }
                    float dmin;
                    std::memcpy(&dmin, o + kIqTileOffQ2KDmin + 4 * static_cast<size_t>(r), 4);
                    accQ2 = std::fma(static_cast<float>(isum), dw * a[b].d, accQ2);
                    accmQ2 = std::fma(static_cast<float>(imin), dmin * a[b].d, accmQ2);
                    continue;
                }
                generic::iqAccumulate(type, acc, dw, a[b].d, lane, shiftLane);
            }
            y[static_cast<size_t>(t) * ldy + static_cast<size_t>(r)] =
                type == GgmlType::GGML_TYPE_Q2_K ? accQ2 - accmQ2 : generic::iqFinish(type, acc);
        }
}

void iqTileMatmul(GgmlType type, const uint8_t *rows, size_t rowBytes, int64_t K, int64_t N, int64_t g0, int64_t g1,
                  const PackedActivation &act, int64_t nTokens, float *y, size_t ldy)
{
    const int64_t nb = K / QK_K;
    const size_t tileBytes = iqTileSuperBytes(type) * static_cast<size_t>(nb);
    // Cache blocking: the tiles of up to kTilesBudget bytes of groups are
    // converted together, then the tokens run through them in chunks of up
    // to kSideBudget bytes of activation side, so a chunk stays in L2 while
    // each of the groups reads it (a whole prompt's side, 512 tokens by 5632
    // elements, is 4.5 MiB: read once per group it came from L3, 17 % slower).
    constexpr size_t kTilesBudget = size_t{512} << 10, kSideBudget = size_t{512} << 10;
    const int64_t groupsPerBatch = std::clamp<int64_t>(static_cast<int64_t>(kTilesBudget / std::max<size_t>(tileBytes, 1)), 1,
                                                       std::max<int64_t>(g1 - g0, 1));
    const int64_t sideBytes = nb * static_cast<int64_t>(kIqTileActBytes);
    const int64_t chunk = std::max<int64_t>(16, static_cast<int64_t>(kSideBudget) / std::max<int64_t>(sideBytes, 1)) / 8 * 8;
    // The tile buffer of this thread: grown to the largest batch seen, kept.
    thread_local std::unique_ptr<uint8_t[], void (*)(uint8_t *)> buffer{nullptr, freeAligned};
    thread_local size_t capacity = 0;
    const size_t stride = (tileBytes + 63) & ~size_t{63};
    const size_t need = stride * static_cast<size_t>(groupsPerBatch);
    if (need > capacity) {
        buffer.reset(static_cast<uint8_t *>(std::aligned_alloc(64, need)));
        capacity = buffer ? need : 0;
    }
    if (!buffer) {   // out of memory: the rows' own dot products, one by one
        const TypeTraits *t = typeTraits(type);
        for (int64_t g = g0; g < g1; ++g) {
            const int rowsHere = static_cast<int>(std::min<int64_t>(16, N - 16 * g));
            for (int r = 0; r < rowsHere; ++r)
                for (int64_t tk = 0; tk < nTokens; ++tk)
                    t->vecDot(K, y + static_cast<size_t>(tk) * ldy + static_cast<size_t>(16 * g + r),
                              rows + static_cast<size_t>(16 * g + r) * rowBytes, act.rows + static_cast<size_t>(tk) * act.stride);
        }
        return;
    }
    const bool simd = iqTilesActive(type);
#ifdef BURROW_QUANT_X86
    const bool avx512 = simd && activeCpuPath() == CpuPath::CPU_PATH_AVX512;
    const bool vnni = simd && !avx512 && packedAvxVnniActive();
#endif
    for (int64_t gb = g0; gb < g1; gb += groupsPerBatch) {
        const int64_t ge = std::min(g1, gb + groupsPerBatch);
        for (int64_t g = gb; g < ge; ++g) {
            uint8_t *tile = buffer.get() + static_cast<size_t>(g - gb) * stride;
#ifdef BURROW_QUANT_X86
            if (avx512) {
                const int rowsHere = static_cast<int>(std::min<int64_t>(16, N - 16 * g));
                x86::iqTileConvertAvx512(type, rows + static_cast<size_t>(16 * g) * rowBytes, rowBytes, K, rowsHere, tile);
                continue;
            }
            if (simd) {
                const int rowsHere = static_cast<int>(std::min<int64_t>(16, N - 16 * g));
                x86::iqTileConvertAvx2(type, rows + static_cast<size_t>(16 * g) * rowBytes, rowBytes, K, rowsHere, tile);
                continue;
            }
#endif
            iqTileConvertScalar(type, rows, rowBytes, K, N, g, tile);
        }
        for (int64_t t0 = 0; t0 < nTokens; t0 += chunk) {
            const int64_t t1 = std::min(nTokens, t0 + chunk);
            for (int64_t g = gb; g < ge; ++g) {
                const uint8_t *tile = buffer.get() + static_cast<size_t>(g - gb) * stride;
                const int rowsHere = static_cast<int>(std::min<int64_t>(16, N - 16 * g));
                float *yg = y + static_cast<size_t>(g) * 16;
#ifdef BURROW_QUANT_X86
                if (avx512) {
                    x86::iqTileMultiplyAvx512(type, tile, K, rowsHere, act, t0, t1, yg, ldy);
                    continue;
                }
                if (simd) {
                    (vnni ? x86::iqTileMultiplyAvxVnni : x86::iqTileMultiplyAvx2)(type, tile, K, rowsHere, act, t0, t1, yg, ldy);
                    continue;
                }
#endif
                (void)simd;
                iqTileMultiplyScalar(type, tile, K, rowsHere, act, t0, t1, yg, ldy);
            }
        }
    }
}

} // namespace burrow::quant
