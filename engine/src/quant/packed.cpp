#include "quant/packed.h"

#include "common/cache_line.h"
#include "common/streamed_memory.h"

#include "quant/cpu_features.h"
#include "quant/generic/generic_kernels.h"
#include "quant/packed_lowbit.h"
#include "quant/generic/iq_kernels.h"
#include "quant/iq_tiles.h"
#include "quant/quant_blocks.h"
#include "quant/x86/x86_kernels.h"
#include "quant/x86/x86_lowbit.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstddef>
#include <cstring>
#include <new>
#include <string>

namespace burrow::quant {

namespace {

constexpr size_t kQ8_0Run = 8;                 // 4-byte runs per 32-element block
constexpr size_t kQ4_0Run = 4;
constexpr size_t kQ5_0Run = 5;                 // Q4_0's four, then the fifth bits
constexpr size_t kRunBytes = 4 * kPackRows;    // one run of 16 rows: 64 bytes
constexpr size_t kQ4KSuper = 64 + 128 + 128 + 32 * kRunBytes;   // 2368
constexpr size_t kQ6KSuper = 256 + 64 + 48 * kRunBytes;         // 3392
constexpr size_t kQ5KSuper = 64 + 128 + 128 + 40 * kRunBytes;   // 2880
constexpr size_t kIQ4XSSuper = 128 + 32 * kRunBytes;            // 2176
constexpr int64_t kMaxK = int64_t{1} << 20;

void freeAligned(uint8_t *p) { std::free(p); }
void keepArena(uint8_t *) {}   // the arena's owner frees it

size_t groupBytesFor(GgmlType type, int64_t blocks)
{
    const auto nb = static_cast<size_t>(blocks);
    switch (type) {
    // (each chunk of 8 blocks: runs, then scales; the group padded to 64 bytes)
    case GgmlType::GGML_TYPE_Q8_0: return (nb * (kQ8_0Run * kRunBytes + 2 * kPackRows) + 63) & ~size_t{63};
    case GgmlType::GGML_TYPE_Q4_0: return (nb * (kQ4_0Run * kRunBytes + 2 * kPackRows) + 63) & ~size_t{63};
    case GgmlType::GGML_TYPE_Q5_0: return (nb * (kQ5_0Run * kRunBytes + 2 * kPackRows) + 63) & ~size_t{63};
    case GgmlType::GGML_TYPE_IQ4_NL:
    case GgmlType::GGML_TYPE_MXFP4: return (nb * (kQ4_0Run * kRunBytes + 2 * kPackRows) + 63) & ~size_t{63};
    case GgmlType::GGML_TYPE_Q4_K: return nb * kQ4KSuper;
    case GgmlType::GGML_TYPE_Q6_K: return nb * kQ6KSuper;
    case GgmlType::GGML_TYPE_Q5_K: return nb * kQ5KSuper;
    case GgmlType::GGML_TYPE_IQ4_XS: return nb * kIQ4XSSuper;
    default: return lowbit::groupBytes(type, blocks);   // the 1- and 2-bit types, NVFP4 (or 0)
    }
}

int64_t blockSizeOf(GgmlType type)
{
    if (lowbit::packs(type))
        return lowbit::blockSize(type);
    return type == GgmlType::GGML_TYPE_Q8_0 || type == GgmlType::GGML_TYPE_Q4_0 || type == GgmlType::GGML_TYPE_Q5_0 ||
                   type == GgmlType::GGML_TYPE_IQ4_NL || type == GgmlType::GGML_TYPE_MXFP4
               ? 32
               : QK_K;
}

void put16(uint8_t *dst, fp16_t v) { std::memcpy(dst, &v, 2); }

// MXFP4's scale 2^(e - 128) (e8m0ToFp32Half) as an f16, exactly: normal for
// e in [114, 143], subnormal for [104, 113]; packableRows keeps other
// exponents out of the packed layout.
fp16_t mxfp4ScaleHalf(uint8_t e)
{
    return static_cast<fp16_t>(e >= 114 ? (e - 113) << 10 : 1u << (e - 104));
}
uint8_t mxfp4ScaleExponent(fp16_t h)
{
    return static_cast<uint8_t>(h >= 0x400 ? (h >> 10) + 113 : h == 0 ? 0 : 104 + __builtin_ctz(h));
}

// The four 6-bit codes of one Q6_K byte position: ql byte 64h + i (low
// nibble: chunk 0, high: chunk 2), ql byte 64h + 32 + i (chunks 1, 3) and
// qh byte 32h + i (2 bits per chunk, chunk 0 lowest).
void q6KCodes(uint8_t qlA, uint8_t qlB, uint8_t qh, uint8_t v[4])
{
    v[0] = static_cast<uint8_t>((qlA & 15) | (qh & 3) << 4);
    v[1] = static_cast<uint8_t>((qlB & 15) | ((qh >> 2) & 3) << 4);
    v[2] = static_cast<uint8_t>((qlA >> 4) | ((qh >> 4) & 3) << 4);
    v[3] = static_cast<uint8_t>((qlB >> 4) | ((qh >> 6) & 3) << 4);
}
fp16_t get16(const uint8_t *src)
{
    fp16_t v;
    std::memcpy(&v, src, 2);
    return v;
}

// The 4-bit block types (Q4_0, IQ4_NL, MXFP4): a row's 16 bytes of nibbles
// per block as 4 runs, its scale as the f16 `scale` gives.
template <typename Block, typename Scale>
void packNibbleRow(const Block *x, int64_t nb, uint8_t *g, int rr, Scale scale)
{
    const size_t lane = static_cast<size_t>(rr) * 4;
    for (int64_t b = 0; b < nb; ++b) {
        const PackedBlockOffsets at = packedBlockOffsets(b, nb, kQ4_0Run * kRunBytes);
        for (size_t c = 0; c < kQ4_0Run; ++c)
            std::memcpy(g + at.runs + c * kRunBytes + lane, x[b].qs + 4 * c, 4);
        put16(g + at.scales + 2 * static_cast<size_t>(rr), scale(x[b]));
    }
}

// Its inverse: row `rr` of a group back into blocks, `setScale` from the f16.
template <typename Block, typename SetScale>
void unpackNibbleRow(const uint8_t *g, int64_t nb, int rr, Block *x, SetScale setScale)
{
    const size_t lane = static_cast<size_t>(rr) * 4;
    for (int64_t b = 0; b < nb; ++b) {
        const PackedBlockOffsets at = packedBlockOffsets(b, nb, kQ4_0Run * kRunBytes);
        for (size_t c = 0; c < kQ4_0Run; ++c)
            std::memcpy(x[b].qs + 4 * c, g + at.runs + c * kRunBytes + lane, 4);
        setScale(x[b], get16(g + at.scales + 2 * static_cast<size_t>(rr)));
    }
}

// Packs row `rr` (0..15) of a group from `src` (one row of the type).
void packRow(GgmlType type, const uint8_t *src, int64_t nb, uint8_t *g, int rr)
{
    const size_t lane = static_cast<size_t>(rr) * 4;
    switch (type) {
    case GgmlType::GGML_TYPE_Q8_0: {
        const auto *x = reinterpret_cast<const BlockQ8_0 *>(src);
        for (int64_t b = 0; b < nb; ++b) {
            const PackedBlockOffsets at = packedBlockOffsets(b, nb, kQ8_0Run * kRunBytes);
            for (size_t c = 0; c < kQ8_0Run; ++c)
                for (int i = 0; i < 4; ++i)
                    g[at.runs + c * kRunBytes + lane + i] = static_cast<uint8_t>(x[b].qs[4 * c + i]) ^ 0x80u;
            put16(g + at.scales + 2 * static_cast<size_t>(rr), x[b].d);
        }
        break;
    }
    case GgmlType::GGML_TYPE_Q4_0:
    case GgmlType::GGML_TYPE_IQ4_NL:   // the same block layout: d, then 16 bytes of nibbles
        static_assert(sizeof(BlockIQ4_NL) == sizeof(BlockQ4_0) && offsetof(BlockIQ4_NL, qs) == offsetof(BlockQ4_0, qs));
        packNibbleRow(reinterpret_cast<const BlockQ4_0 *>(src), nb, g, rr, [](const BlockQ4_0 &x) { return x.d; });
        break;
    case GgmlType::GGML_TYPE_MXFP4:   // the scale as the exact f16 it equals
        packNibbleRow(reinterpret_cast<const BlockMXFP4 *>(src), nb, g, rr,
                      [](const BlockMXFP4 &x) { return mxfp4ScaleHalf(x.e); });
        break;
    case GgmlType::GGML_TYPE_Q5_0: {
        const auto *x = reinterpret_cast<const BlockQ5_0 *>(src);
        for (int64_t b = 0; b < nb; ++b) {
            const PackedBlockOffsets at = packedBlockOffsets(b, nb, kQ5_0Run * kRunBytes);
            for (size_t c = 0; c < kQ4_0Run; ++c)
                std::memcpy(g + at.runs + c * kRunBytes + lane, x[b].qs + 4 * c, 4);
            uint32_t qh;
            std::memcpy(&qh, x[b].qh, 4);
            for (int i = 0; i < 4; ++i) {
                uint8_t fifth = 0;
                for (int m = 0; m < 8; ++m)
                    fifth = static_cast<uint8_t>(fifth | ((qh >> (4 * m + i)) & 1u) << m);
                g[at.runs + kQ4_0Run * kRunBytes + lane + static_cast<size_t>(i)] = fifth;
            }
            put16(g + at.scales + 2 * static_cast<size_t>(rr), x[b].d);
        }
        break;
    }
    case GgmlType::GGML_TYPE_Q4_K: {
        const auto *x = reinterpret_cast<const BlockQ4_K *>(src);
        for (int64_t b = 0; b < nb; ++b) {
            uint8_t *o = g + static_cast<size_t>(b) * kQ4KSuper;
            put16(o + 2 * rr, x[b].d);
            put16(o + 32 + 2 * rr, x[b].dmin);
            for (int s = 0; s < 8; ++s) {
                uint8_t sc = 0, m = 0;
                getScaleMinK4(s, x[b].scales, &sc, &m);
                o[64 + s * kPackRows + rr] = sc;
                o[192 + (s / 2) * 2 * kPackRows + rr * 2 + (s % 2)] = m;
            }
            for (size_t c = 0; c < 32; ++c)
                std::memcpy(o + 320 + c * kRunBytes + lane, x[b].qs + 4 * c, 4);
        }
        break;
    }
    case GgmlType::GGML_TYPE_Q6_K: {
        const auto *x = reinterpret_cast<const BlockQ6_K *>(src);
        for (int64_t b = 0; b < nb; ++b) {
            uint8_t *o = g + static_cast<size_t>(b) * kQ6KSuper;
            for (int s = 0; s < 16; ++s)
                o[s * kPackRows + rr] = static_cast<uint8_t>(x[b].scales[s]);
            put16(o + 256 + 2 * rr, x[b].d);
            for (int h = 0; h < 2; ++h)
                for (int r = 0; r < 8; ++r) {
                    uint8_t *run = o + 320 + static_cast<size_t>(h * 8 + r) * 3 * kRunBytes + lane;
                    for (int i = 0; i < 4; ++i) {
                        uint8_t v[4];
                        q6KCodes(x[b].ql[64 * h + 4 * r + i], x[b].ql[64 * h + 32 + 4 * r + i], x[b].qh[32 * h + 4 * r + i], v);
                        run[i] = static_cast<uint8_t>(v[0] | (v[3] & 3) << 6);
                        run[kRunBytes + i] = static_cast<uint8_t>(v[1] | ((v[3] >> 2) & 3) << 6);
                        run[2 * kRunBytes + i] = static_cast<uint8_t>(v[2] | ((v[3] >> 4) & 3) << 6);
                    }
                }
        }
        break;
    }
    case GgmlType::GGML_TYPE_Q5_K: {
        const auto *x = reinterpret_cast<const BlockQ5_K *>(src);
        for (int64_t b = 0; b < nb; ++b) {
            uint8_t *o = g + static_cast<size_t>(b) * kQ5KSuper;
            put16(o + 2 * rr, x[b].d);
            put16(o + 32 + 2 * rr, x[b].dmin);
            for (int s = 0; s < 8; ++s) {
                uint8_t sc = 0, m = 0;
                getScaleMinK4(s, x[b].scales, &sc, &m);
                o[64 + s * kPackRows + rr] = sc;
                o[192 + (s / 2) * 2 * kPackRows + rr * 2 + (s % 2)] = m;
            }
            for (size_t m = 0; m < 8; ++m) {
                uint8_t *runs = o + 320 + m * 5 * kRunBytes + lane;
                for (size_t p = 0; p < 4; ++p)
                    std::memcpy(runs + p * kRunBytes, x[b].qs + 32 * p + 4 * m, 4);
                std::memcpy(runs + 4 * kRunBytes, x[b].qh + 4 * m, 4);
            }
        }
        break;
    }
    case GgmlType::GGML_TYPE_IQ4_XS: {
        const auto *x = reinterpret_cast<const BlockIQ4_XS *>(src);
        for (int64_t b = 0; b < nb; ++b) {
            uint8_t *o = g + static_cast<size_t>(b) * kIQ4XSSuper;
            put16(o + 2 * rr, x[b].d);
            std::memcpy(o + 32 + 2 * rr, &x[b].scales_h, 2);
            std::memcpy(o + 64 + lane, x[b].scales_l, 4);
            for (size_t c = 0; c < 4; ++c)
                for (size_t ib = 0; ib < 8; ++ib)
                    std::memcpy(o + 128 + (c * 8 + ib) * kRunBytes + lane, x[b].qs + 16 * ib + 4 * c, 4);
        }
        break;
    }
    default: lowbit::packRow(type, src, nb, g, rr); break;
    }
}

// Rows past N: codes that decode to zero with a zero scale.
void packPaddingRow(GgmlType type, int64_t nb, uint8_t *g, int rr)
{
    const size_t lane = static_cast<size_t>(rr) * 4;
    if (type == GgmlType::GGML_TYPE_Q8_0 || type == GgmlType::GGML_TYPE_Q4_0) {
        const size_t runs = type == GgmlType::GGML_TYPE_Q8_0 ? kQ8_0Run : kQ4_0Run;
        const uint8_t code = type == GgmlType::GGML_TYPE_Q8_0 ? 0x80 : 0x88;
        for (int64_t b = 0; b < nb; ++b)
            for (size_t c = 0; c < runs; ++c)
                std::memset(g + packedBlockOffsets(b, nb, runs * kRunBytes).runs + c * kRunBytes + lane, code, 4);
    }
    // K-quants: all zero bytes already (d = 0).
}

// --- scalar twin: unpack a row, then the scalar dot products --------------

// The 12-byte 6-bit scale/min field of a Q4_K block from its 8 (scale, min)
// pairs (the inverse of getScaleMinK4).
void encodeScaleMinK4(const uint8_t sc[8], const uint8_t mn[8], uint8_t q[12])
{
    std::memset(q, 0, 12);
    for (int j = 0; j < 4; ++j) {
        q[j] = static_cast<uint8_t>(sc[j] & 63);
        q[j + 4] = static_cast<uint8_t>(mn[j] & 63);
    }
    for (int j = 4; j < 8; ++j) {
        q[j + 4] = static_cast<uint8_t>((sc[j] & 0xf) | ((mn[j] & 0xf) << 4));
        q[j - 4] = static_cast<uint8_t>(q[j - 4] | ((sc[j] >> 4) << 6));
        q[j] = static_cast<uint8_t>(q[j] | ((mn[j] >> 4) << 6));
    }
}

// Row `rr` of group `g` back in the type's blocks (the inverse of packRow).
void unpackRow(GgmlType type, const uint8_t *g, int64_t nb, int rr, uint8_t *dst)
{
    const size_t lane = static_cast<size_t>(rr) * 4;
    switch (type) {
    case GgmlType::GGML_TYPE_Q8_0: {
        auto *x = reinterpret_cast<BlockQ8_0 *>(dst);
        for (int64_t b = 0; b < nb; ++b) {
            const PackedBlockOffsets at = packedBlockOffsets(b, nb, kQ8_0Run * kRunBytes);
            for (size_t c = 0; c < kQ8_0Run; ++c)
                for (int i = 0; i < 4; ++i)
                    x[b].qs[4 * c + i] = static_cast<int8_t>(g[at.runs + c * kRunBytes + lane + i] ^ 0x80u);
            x[b].d = get16(g + at.scales + 2 * static_cast<size_t>(rr));
        }
        break;
    }
    case GgmlType::GGML_TYPE_Q4_0:
    case GgmlType::GGML_TYPE_IQ4_NL:
        unpackNibbleRow(g, nb, rr, reinterpret_cast<BlockQ4_0 *>(dst), [](BlockQ4_0 &x, fp16_t h) { x.d = h; });
        break;
    case GgmlType::GGML_TYPE_MXFP4:
        unpackNibbleRow(g, nb, rr, reinterpret_cast<BlockMXFP4 *>(dst),
                        [](BlockMXFP4 &x, fp16_t h) { x.e = mxfp4ScaleExponent(h); });
        break;
    case GgmlType::GGML_TYPE_Q5_0: {
        auto *x = reinterpret_cast<BlockQ5_0 *>(dst);
        for (int64_t b = 0; b < nb; ++b) {
            const PackedBlockOffsets at = packedBlockOffsets(b, nb, kQ5_0Run * kRunBytes);
            for (size_t c = 0; c < kQ4_0Run; ++c)
                std::memcpy(x[b].qs + 4 * c, g + at.runs + c * kRunBytes + lane, 4);
            uint32_t qh = 0;
            for (int i = 0; i < 4; ++i) {
                const uint8_t fifth = g[at.runs + kQ4_0Run * kRunBytes + lane + static_cast<size_t>(i)];
                for (int m = 0; m < 8; ++m)
                    qh |= static_cast<uint32_t>((fifth >> m) & 1u) << (4 * m + i);
            }
            std::memcpy(x[b].qh, &qh, 4);
            x[b].d = get16(g + at.scales + 2 * static_cast<size_t>(rr));
        }
        break;
    }
    case GgmlType::GGML_TYPE_Q4_K: {
        auto *x = reinterpret_cast<BlockQ4_K *>(dst);
        for (int64_t b = 0; b < nb; ++b) {
            const uint8_t *o = g + static_cast<size_t>(b) * kQ4KSuper;
            x[b].d = get16(o + 2 * rr);
            x[b].dmin = get16(o + 32 + 2 * rr);
            uint8_t sc[8], mn[8];
            for (int s = 0; s < 8; ++s) {
                sc[s] = o[64 + s * kPackRows + rr];
                mn[s] = o[192 + (s / 2) * 2 * kPackRows + rr * 2 + (s % 2)];
            }
            encodeScaleMinK4(sc, mn, x[b].scales);
            for (size_t c = 0; c < 32; ++c)
                std::memcpy(x[b].qs + 4 * c, o + 320 + c * kRunBytes + lane, 4);
        }
        break;
    }
    case GgmlType::GGML_TYPE_Q6_K: {
        auto *x = reinterpret_cast<BlockQ6_K *>(dst);
        for (int64_t b = 0; b < nb; ++b) {
            const uint8_t *o = g + static_cast<size_t>(b) * kQ6KSuper;
            for (int s = 0; s < 16; ++s)
                x[b].scales[s] = static_cast<int8_t>(o[s * kPackRows + rr]);
            x[b].d = get16(o + 256 + 2 * rr);
            for (int h = 0; h < 2; ++h)
                for (int r = 0; r < 8; ++r) {
                    const uint8_t *run = o + 320 + static_cast<size_t>(h * 8 + r) * 3 * kRunBytes + lane;
                    for (int i = 0; i < 4; ++i) {
                        const uint8_t A = run[i], B = run[kRunBytes + i], C = run[2 * kRunBytes + i];
                        const int v0 = A & 63, v1 = B & 63, v2 = C & 63, v3 = (A >> 6) | (B >> 6) << 2 | (C >> 6) << 4;
                        x[b].ql[64 * h + 4 * r + i] = static_cast<uint8_t>((v0 & 15) | (v2 & 15) << 4);
                        x[b].ql[64 * h + 32 + 4 * r + i] = static_cast<uint8_t>((v1 & 15) | (v3 & 15) << 4);
                        x[b].qh[32 * h + 4 * r + i] = static_cast<uint8_t>(v0 >> 4 | (v1 >> 4) << 2 | (v2 >> 4) << 4 | (v3 >> 4) << 6);
                    }
                }
        }
        break;
    }
    case GgmlType::GGML_TYPE_Q5_K: {
        auto *x = reinterpret_cast<BlockQ5_K *>(dst);
        for (int64_t b = 0; b < nb; ++b) {
            const uint8_t *o = g + static_cast<size_t>(b) * kQ5KSuper;
            x[b].d = get16(o + 2 * rr);
            x[b].dmin = get16(o + 32 + 2 * rr);
            uint8_t sc[8], mn[8];
            for (int s = 0; s < 8; ++s) {
                sc[s] = o[64 + s * kPackRows + rr];
                mn[s] = o[192 + (s / 2) * 2 * kPackRows + rr * 2 + (s % 2)];
            }
            encodeScaleMinK4(sc, mn, x[b].scales);
            for (size_t m = 0; m < 8; ++m) {
                const uint8_t *runs = o + 320 + m * 5 * kRunBytes + lane;
                for (size_t p = 0; p < 4; ++p)
                    std::memcpy(x[b].qs + 32 * p + 4 * m, runs + p * kRunBytes, 4);
                std::memcpy(x[b].qh + 4 * m, runs + 4 * kRunBytes, 4);
            }
        }
        break;
    }
    case GgmlType::GGML_TYPE_IQ4_XS: {
        auto *x = reinterpret_cast<BlockIQ4_XS *>(dst);
        for (int64_t b = 0; b < nb; ++b) {
            const uint8_t *o = g + static_cast<size_t>(b) * kIQ4XSSuper;
            x[b].d = get16(o + 2 * rr);
            std::memcpy(&x[b].scales_h, o + 32 + 2 * rr, 2);
            std::memcpy(x[b].scales_l, o + 64 + lane, 4);
            for (size_t c = 0; c < 4; ++c)
                for (size_t ib = 0; ib < 8; ++ib)
                    std::memcpy(x[b].qs + 16 * ib + 4 * c, o + 128 + (c * 8 + ib) * kRunBytes + lane, 4);
        }
        break;
    }
    default: break;
    }
}

} // namespace

bool packSupported(GgmlType type, int64_t K)
{
    if (K <= 0 || K > kMaxK || groupBytesFor(type, 1) == 0)
        return false;
    return K % blockSizeOf(type) == 0;
}

size_t packedMatrixBytes(GgmlType type, int64_t K, int64_t N)
{
    if (!packSupported(type, K) || N < 1 || N > (int64_t{1} << 32))
        return 0;
    // <= 2^28 groups * (K/32 * 544) bytes: no overflow for K <= 2^20
    return static_cast<size_t>((N + kPackRows - 1) / kPackRows) * groupBytesFor(type, K / blockSizeOf(type));
}

const int8_t *packedCodeValues(GgmlType type)
{
    return type == GgmlType::GGML_TYPE_MXFP4 ? kValuesMxfp4 : kValuesIq4nl;
}

bool packableRows(GgmlType type, const uint8_t *rows, size_t rowBytes, int64_t K, int64_t N)
{
    if (type != GgmlType::GGML_TYPE_MXFP4)
        return true;
    for (int64_t r = 0; r < N; ++r) {
        const auto *x = reinterpret_cast<const BlockMXFP4 *>(rows + static_cast<size_t>(r) * rowBytes);
        for (int64_t b = 0; b < K / QK_MXFP4; ++b)
            if (x[b].e < 104 || x[b].e > 143)
                return false;
    }
    return true;
}

Result<std::unique_ptr<PackedMatrix>> packMatrix(GgmlType type, const uint8_t *rows, size_t rowBytes, int64_t K,
                                                 int64_t N, uint8_t *into)
{
    if (!packSupported(type, K) || N < 1 || N > (int64_t{1} << 32))
        return Status::error("packing weights: type " + std::to_string(static_cast<int>(type)) + " with rows of " +
                             std::to_string(K) + " elements x " + std::to_string(N) + " cannot be packed");
    auto m = std::make_unique<PackedMatrix>();
    m->type = type;
    m->K = K;
    m->N = N;
    m->groups = (N + kPackRows - 1) / kPackRows;
    m->blocks = K / blockSizeOf(type);
    m->groupBytes = groupBytesFor(type, m->blocks);
    const size_t total = m->bytes();   // <= 2^28 groups * (K/32 * 544) bytes: no overflow for K <= 2^20
    // On huge pages from 2 MiB up (common/streamed_memory.h): generation
    // streams every byte once per token.
    auto *p = into ? into : static_cast<uint8_t *>(allocateStreamed(total));
    if (!p)
        return Status::error("packing weights: out of memory for " + std::to_string(total) + " bytes");
    m->data = std::unique_ptr<uint8_t[], void (*)(uint8_t *)>(p, into ? keepArena : freeAligned);
    for (int64_t g = 0; g < m->groups; ++g) {
        // Zeroed group by group while it is in cache (padding bytes, K-quant
        // padding rows), not in a pass of its own over the whole copy.
        uint8_t *dst = p + static_cast<size_t>(g) * m->groupBytes;
        // The group's rows checked just before they are packed (read once from memory).
        const int64_t r0 = g * kPackRows;
        if (!packableRows(type, rows + static_cast<size_t>(r0) * rowBytes, rowBytes, K, std::min<int64_t>(kPackRows, N - r0)))
            return Status::error("packing weights: an MXFP4 block scale outside what the packed layout holds "
                                 "(E8M0 exponents 104 to 143)");
        std::memset(dst, 0, m->groupBytes);
        for (int rr = 0; rr < kPackRows; ++rr) {
            const int64_t r = g * kPackRows + rr;
            if (r < N)
                packRow(type, rows + static_cast<size_t>(r) * rowBytes, m->blocks, dst, rr);
            else
                packPaddingRow(type, m->blocks, dst, rr);
        }
    }
    return m;
}

namespace {
// Tokens in whole 16-token tiles the AMX kernels read from their own tile
// rows: with `now`, where they run now for `type` (0 otherwise); without,
// where they could run on this CPU whatever the path and switch (the bytes
// reserved: a scratch sized before setCpuPath / setPackedAmx still holds
// the rows after).
int64_t amxTileTokens(GgmlType type, int64_t nTokens, bool now)
{
#if defined(BURROW_QUANT_X86)
    const bool runs = now ? packedAmxActive(type) : x86::packedAmxSupports(type) && amxUsable();
    return nTokens >= 16 && runs ? nTokens / 16 * 16 : 0;
#else
    (void)type;
    (void)nTokens;
    (void)now;
    return 0;
#endif
}

size_t sideArrayBytes(GgmlType type, int64_t K, int64_t nTokens)
{
    if (iqTileType(type))
        return iqTileSideBytes(K, nTokens);
    if (lowbit::packs(type))
        type = lowbit::sideArraysOf(type);
    const size_t blocks = static_cast<size_t>(K / 32) * static_cast<size_t>(nTokens);
    if (type == GgmlType::GGML_TYPE_Q8_0 || type == GgmlType::GGML_TYPE_Q5_0)
        return blocks * (sizeof(float) + 8 * sizeof(int32_t));
    if (type == GgmlType::GGML_TYPE_Q4_0 || type == GgmlType::GGML_TYPE_IQ4_NL || type == GgmlType::GGML_TYPE_MXFP4)
        return blocks * (sizeof(float) + sizeof(int32_t));
    return 0;
}
} // namespace

size_t packedSideBytes(GgmlType type, int64_t K, int64_t nTokens)
{
    const int64_t amx = amxTileTokens(type, nTokens, false);
    return sideArrayBytes(type, K, nTokens) + (amx > 0 ? static_cast<size_t>(amx) * static_cast<size_t>(K) + 64 : 0);
}

PackedActivation packedActivation(GgmlType type, int64_t K, const uint8_t *rows, size_t stride, int64_t nTokens,
                                  void *side)
{
    const GgmlType original = type;
    if (lowbit::packs(type))
        type = lowbit::sideArraysOf(type);
    PackedActivation out;
    out.rows = rows;
    out.stride = stride;
    if (iqTileType(type))
        out.tileSide = static_cast<uint8_t *>(side);
    if (type == GgmlType::GGML_TYPE_Q8_0 || type == GgmlType::GGML_TYPE_Q4_0 || type == GgmlType::GGML_TYPE_Q5_0 ||
        type == GgmlType::GGML_TYPE_IQ4_NL || type == GgmlType::GGML_TYPE_MXFP4) {
        out.scale = static_cast<float *>(side);
        out.sum = reinterpret_cast<int32_t *>(out.scale + (K / 32) * nTokens);
    }
    if (const int64_t amx = amxTileTokens(original, nTokens, true); amx > 0) {
        out.amxTiles = alignToLine(static_cast<uint8_t *>(side) + sideArrayBytes(original, K, nTokens));
        out.amxTokens = amx;
    }
    return out;
}

void preparePackedRow(GgmlType type, int64_t K, const PackedActivation &act, int64_t t)
{
    if (t < act.amxTokens) {
        // token t's 32-code runs into row t % 16 of its tile's K/32 tiles
        const bool q8K = type == GgmlType::GGML_TYPE_Q4_K;
        const int64_t n32 = K / 32;
        const uint8_t *row = act.rows + static_cast<size_t>(t) * act.stride;
        uint8_t *dst = act.amxTiles + (static_cast<size_t>(t / 16) * static_cast<size_t>(n32) * 16 + static_cast<size_t>(t % 16)) * 32;
        for (int64_t k = 0; k < n32; ++k) {
            const uint8_t *src = q8K ? row + static_cast<size_t>(k / 8) * sizeof(BlockQ8_K) + offsetof(BlockQ8_K, qs) + 32 * static_cast<size_t>(k % 8)
                                     : row + static_cast<size_t>(k) * sizeof(BlockQ8_0) + offsetof(BlockQ8_0, qs);
            std::memcpy(dst + static_cast<size_t>(k) * 16 * 32, src, 32);
        }
    }
    if (iqTileType(type)) {
        iqTilePrepareRow(type, K, act, t);
        return;
    }
    if (lowbit::packs(type))
        type = lowbit::sideArraysOf(type);
    if (type == GgmlType::GGML_TYPE_IQ4_NL || type == GgmlType::GGML_TYPE_MXFP4)
        type = GgmlType::GGML_TYPE_Q4_0;   // their block sums
    if (type != GgmlType::GGML_TYPE_Q8_0 && type != GgmlType::GGML_TYPE_Q4_0 && type != GgmlType::GGML_TYPE_Q5_0)
        return;
    // the offset taken back out per 4-code run: Q8_0's codes are w + 128, Q5_0's w + 16
    const int32_t runOffset = type == GgmlType::GGML_TYPE_Q5_0 ? -16 : -128;
    const int64_t nb = K / 32;
    const auto *a = reinterpret_cast<const BlockQ8_0 *>(act.rows + static_cast<size_t>(t) * act.stride);
    for (int64_t b = 0; b < nb; ++b) {
        act.scale[t * nb + b] = fp16ToFp32(a[b].d);
        if (type == GgmlType::GGML_TYPE_Q4_0) {
            int32_t s = 0;
            for (int i = 0; i < 32; ++i)
                s += a[b].qs[i];
            act.sum[t * nb + b] = -8 * s;
        } else {
            for (int m = 0; m < 8; ++m) {
                int32_t s = 0;
                for (int i = 4 * m; i < 4 * m + 4; ++i)
                    s += a[b].qs[i];
                act.sum[(t * nb + b) * 8 + m] = runOffset * s;
            }
        }
    }
}

// The 1- and 2-bit types and NVFP4 (one form each): rows unpacked into the
// scalar twin's blocks.
static void packedMatmulScalarLowbit(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act,
                              int64_t nTokens, float *y, size_t ldy)
{
    const VecDotFn dot = lowbit::scalarDot(W.type);
    const size_t blockBytes = ggmlTypeInfo(lowbit::unpackedType(W.type))->typeSize;
    std::unique_ptr<uint8_t[]> row(new uint8_t[static_cast<size_t>(W.blocks) * blockBytes]);
    for (int64_t g = g0; g < g1; ++g) {
        const int64_t rows = std::min<int64_t>(kPackRows, W.N - g * kPackRows);
        for (int rr = 0; rr < rows; ++rr) {
            lowbit::unpackRow(W.type, W.group(g), W.blocks, rr, row.get());
            for (int64_t t = 0; t < nTokens; ++t)
                dot(W.K, y + static_cast<size_t>(t) * ldy + static_cast<size_t>(g * kPackRows + rr), row.get(),
                    act.rows + static_cast<size_t>(t) * act.stride);
        }
    }
}

void packedMatmulScalar(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act,
                        int64_t nTokens, int64_t nGemm, float *y, size_t ldy)
{
    if (lowbit::packs(W.type)) {
        packedMatmulScalarLowbit(W, g0, g1, act, nTokens, y, ldy);
        return;
    }
    VecDotFn dot = nullptr, gemm = nullptr;
    size_t blockBytes = 0;
    switch (W.type) {
    case GgmlType::GGML_TYPE_Q8_0: dot = gemm = generic::vecDotQ8_0Q8_0; blockBytes = sizeof(BlockQ8_0); break;
    case GgmlType::GGML_TYPE_Q4_0: dot = gemm = generic::vecDotQ4_0Q8_0; blockBytes = sizeof(BlockQ4_0); break;
    case GgmlType::GGML_TYPE_Q5_0: dot = gemm = generic::vecDotQ5_0Q8_0; blockBytes = sizeof(BlockQ5_0); break;
    case GgmlType::GGML_TYPE_IQ4_NL: dot = gemm = generic::vecDotIQ4_NLQ8_0; blockBytes = sizeof(BlockIQ4_NL); break;
    case GgmlType::GGML_TYPE_MXFP4: dot = gemm = generic::vecDotMXFP4Q8_0; blockBytes = sizeof(BlockMXFP4); break;
    case GgmlType::GGML_TYPE_Q4_K:
        dot = generic::vecDotQ4_KQ8_K;
        gemm = generic::vecDotQ4_KQ8_KGemm;
        blockBytes = sizeof(BlockQ4_K);
        break;
    case GgmlType::GGML_TYPE_Q6_K: dot = gemm = generic::vecDotQ6_KQ8_K; blockBytes = sizeof(BlockQ6_K); break;
    case GgmlType::GGML_TYPE_Q5_K: dot = gemm = generic::vecDotQ5_KQ8_K; blockBytes = sizeof(BlockQ5_K); break;
    case GgmlType::GGML_TYPE_IQ4_XS: dot = gemm = generic::vecDotIQ4_XSQ8_K; blockBytes = sizeof(BlockIQ4_XS); break;
    default: return;
    }
    std::unique_ptr<uint8_t[]> row(new uint8_t[static_cast<size_t>(W.blocks) * blockBytes]);
    for (int64_t g = g0; g < g1; ++g) {
        const int64_t rows = std::min<int64_t>(kPackRows, W.N - g * kPackRows);
        for (int rr = 0; rr < rows; ++rr) {
            unpackRow(W.type, W.group(g), W.blocks, rr, row.get());
            for (int64_t t = 0; t < nTokens; ++t)
                (t < nGemm ? gemm : dot)(W.K, y + static_cast<size_t>(t) * ldy + static_cast<size_t>(g * kPackRows + rr),
                                         row.get(), act.rows + static_cast<size_t>(t) * act.stride);
        }
    }
}

namespace {
// The avx2 path's packed kernels on AVX-VNNI where quant::avxVnniAllowed()
// (the CPU has it, BURROW_AVX_VNNI is not 0); setPackedAvxVnni(false) keeps
// them off it.
std::atomic<bool> g_avxVnniAllowed{true};

bool useAvxVnni()
{
    return g_avxVnniAllowed.load(std::memory_order_relaxed) && avxVnniAllowed();
}
} // namespace

void setPackedAvxVnni(bool allowed)
{
    g_avxVnniAllowed.store(allowed, std::memory_order_relaxed);
}

bool packedAvxVnniActive() { return useAvxVnni(); }

namespace {
// BURROW_AMX=0 keeps the avx512 path's packed kernels off AMX (to compare
// the two on one machine); setPackedAmx overrides it.
bool amxFromEnvironment()
{
    const char *env = std::getenv("BURROW_AMX");
    return !(env && std::strcmp(env, "0") == 0);
}

std::atomic<bool> g_amxAllowed{amxFromEnvironment()};
} // namespace

void setPackedAmx(bool allowed)
{
    g_amxAllowed.store(allowed, std::memory_order_relaxed);
}

bool packedAmxActive(GgmlType type)
{
#if defined(BURROW_QUANT_X86)
    return activeCpuPath() == CpuPath::CPU_PATH_AVX512 && g_amxAllowed.load(std::memory_order_relaxed) &&
           x86::packedAmxSupports(type) && amxUsable();
#else
    (void)type;
    return false;
#endif
}

bool packedKernelsActive(GgmlType type)
{
#if defined(BURROW_QUANT_X86)
    if (lowbit::packs(type)) {
        const CpuPath path = activeCpuPath();
        return path == CpuPath::CPU_PATH_AVX512 ||
               (path == CpuPath::CPU_PATH_AVX2 && x86::packedAvx2LowbitSupports(type, useAvxVnni()));
    }
    switch (activeCpuPath()) {
    case CpuPath::CPU_PATH_AVX512: return groupBytesFor(type, 1) != 0;
    case CpuPath::CPU_PATH_AVX2: return useAvxVnni() ? groupBytesFor(type, 1) != 0 : x86::packedAvx2Supports(type);
    default: return false;
    }
#else
    (void)type;
    return false;
#endif
}

void packedMatmul(const PackedMatrix &W, int64_t g0, int64_t g1, const PackedActivation &act, int64_t nTokens,
                  int64_t nGemm, float *y, size_t ldy)
{
#if defined(BURROW_QUANT_X86)
    if (packedKernelsActive(W.type)) {
        if (lowbit::packs(W.type)) {
            if (activeCpuPath() == CpuPath::CPU_PATH_AVX512)
                x86::packedMatmulAvx512Lowbit(W, g0, g1, act, nTokens, y, ldy);
            else if (useAvxVnni())
                x86::packedMatmulAvxVnniLowbit(W, g0, g1, act, nTokens, y, ldy);
            else
                x86::packedMatmulAvx2Lowbit(W, g0, g1, act, nTokens, y, ldy);
        }
        else if (act.amxTiles && packedAmxActive(W.type))
            x86::packedMatmulAmx(W, g0, g1, act, nTokens, nGemm, y, ldy);
        else if (activeCpuPath() == CpuPath::CPU_PATH_AVX512)
            x86::packedMatmulAvx512(W, g0, g1, act, nTokens, nGemm, y, ldy);
        else if (useAvxVnni())
            x86::packedMatmulAvxVnni(W, g0, g1, act, nTokens, nGemm, y, ldy);
        else
            x86::packedMatmulAvx2(W, g0, g1, act, nTokens, nGemm, y, ldy);
        return;
    }
#endif
    packedMatmulScalar(W, g0, g1, act, nTokens, nGemm, y, ldy);
}

} // namespace burrow::quant
