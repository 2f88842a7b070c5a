#include "quant/packed_lowbit.h"

#include "quant/generic/lowbit_kernels.h"
#include "quant/lowbit_blocks.h"
#include "quant/packed.h"

#include <cstring>

namespace burrow::quant::lowbit {

namespace {

using T = GgmlType;

constexpr size_t kRun = 4 * kPackRows;   // one 4-byte run of 16 rows
constexpr size_t kQ1Block = 32 + 32 * 8;
constexpr size_t kQ2Block = 32 + 4 * kRun;
constexpr size_t kTernaryBlock = 32 + 16 * kRun;
constexpr size_t kNvfp4Block = 64 + 8 * kRun;

void put16(uint8_t *dst, fp16_t v) { std::memcpy(dst, &v, 2); }
fp16_t get16(const uint8_t *src)
{
    fp16_t v;
    std::memcpy(&v, src, 2);
    return v;
}

// Q1_0: bit (32k + 4m + i) of a row <-> bit 4rr + i of mask (m, k).
void packQ1(const BlockQ1_0 *x, int64_t nb, uint8_t *g, int rr)
{
    for (int64_t b = 0; b < nb; ++b) {
        uint8_t *o = g + static_cast<size_t>(b) * kQ1Block;
        put16(o + 2 * rr, x[b].d);
        for (int m = 0; m < 8; ++m)
            for (int k = 0; k < 4; ++k) {
                const int bits = (x[b].qs[4 * k + m / 2] >> (4 * (m % 2))) & 0xf;
                uint8_t *mask = o + 32 + static_cast<size_t>(4 * m + k) * 8;
                mask[rr / 2] = static_cast<uint8_t>(mask[rr / 2] | (bits << (4 * (rr % 2))));
            }
    }
}

void unpackQ1(const uint8_t *g, int64_t nb, int rr, BlockQ1_0 *x)
{
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kQ1Block;
        x[b].d = get16(o + 2 * rr);
        std::memset(x[b].qs, 0, sizeof(x[b].qs));
        for (int m = 0; m < 8; ++m)
            for (int k = 0; k < 4; ++k) {
                const int bits = (o[32 + static_cast<size_t>(4 * m + k) * 8 + rr / 2] >> (4 * (rr % 2))) & 0xf;
                x[b].qs[4 * k + m / 2] = static_cast<uint8_t>(x[b].qs[4 * k + m / 2] | (bits << (4 * (m % 2))));
            }
    }
}

// Q2_0: code of element e of Q8_0 block k.
int q2Code(const BlockQ2_0 &b, int k, int e) { return (b.qs[8 * k + e / 4] >> (2 * (e % 4))) & 3; }

void packQ2(const BlockQ2_0 *x, int64_t nb, uint8_t *g, int rr)
{
    for (int64_t b = 0; b < nb; ++b) {
        uint8_t *o = g + static_cast<size_t>(b) * kQ2Block;
        put16(o + 2 * rr, x[b].d);
        for (int k = 0; k < 2; ++k)
            for (int p = 0; p < 2; ++p) {
                uint8_t *word = o + 32 + static_cast<size_t>(2 * k + p) * kRun + 4 * static_cast<size_t>(rr);
                for (int i = 0; i < 4; ++i) {
                    int byte = 0;
                    for (int l = 0; l < 4; ++l)
                        byte |= q2Code(x[b], k, 16 * p + 4 * l + i) << (2 * l);
                    word[i] = static_cast<uint8_t>(byte);
                }
            }
    }
}

void unpackQ2(const uint8_t *g, int64_t nb, int rr, BlockQ2_0 *x)
{
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kQ2Block;
        x[b].d = get16(o + 2 * rr);
        std::memset(x[b].qs, 0, sizeof(x[b].qs));
        for (int k = 0; k < 2; ++k)
            for (int p = 0; p < 2; ++p) {
                const uint8_t *word = o + 32 + static_cast<size_t>(2 * k + p) * kRun + 4 * static_cast<size_t>(rr);
                for (int i = 0; i < 4; ++i)
                    for (int l = 0; l < 4; ++l) {
                        const int e = 16 * p + 4 * l + i;
                        const int code = (word[i] >> (2 * l)) & 3;
                        x[b].qs[8 * k + e / 4] = static_cast<uint8_t>(x[b].qs[8 * k + e / 4] | (code << (2 * (e % 4))));
                    }
            }
    }
}

// TQ1_0 / TQ2_0: the TQ2_0 qs bytes of a block (TQ1_0 decoded to codes).
void tq2Bytes(const uint8_t codes[QK_K], uint8_t qs[QK_K / 4])
{
    for (int h = 0; h < 2; ++h)
        for (int m = 0; m < 32; ++m) {
            int byte = 0;
            for (int l = 0; l < 4; ++l)
                byte |= codes[128 * h + 32 * l + m] << (2 * l);
            qs[32 * h + m] = static_cast<uint8_t>(byte);
        }
}

void packTernary(GgmlType type, const uint8_t *src, int64_t nb, uint8_t *g, int rr)
{
    for (int64_t b = 0; b < nb; ++b) {
        uint8_t *o = g + static_cast<size_t>(b) * kTernaryBlock;
        uint8_t qs[QK_K / 4];
        if (type == T::GGML_TYPE_TQ1_0) {
            const auto &x = reinterpret_cast<const BlockTQ1_0 *>(src)[b];
            uint8_t codes[QK_K];
            tq1Trits(x, codes);
            tq2Bytes(codes, qs);
            put16(o + 2 * rr, x.d);
        } else {
            const auto &x = reinterpret_cast<const BlockTQ2_0 *>(src)[b];
            std::memcpy(qs, x.qs, sizeof(qs));
            put16(o + 2 * rr, x.d);
        }
        for (int m = 0; m < 8; ++m)
            for (int h = 0; h < 2; ++h)
                std::memcpy(o + 32 + static_cast<size_t>(2 * m + h) * kRun + 4 * static_cast<size_t>(rr), qs + 32 * h + 4 * m, 4);
    }
}

void unpackTernary(const uint8_t *g, int64_t nb, int rr, BlockTQ2_0 *x)
{
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kTernaryBlock;
        x[b].d = get16(o + 2 * rr);
        for (int m = 0; m < 8; ++m)
            for (int h = 0; h < 2; ++h)
                std::memcpy(x[b].qs + 32 * h + 4 * m, o + 32 + static_cast<size_t>(2 * m + h) * kRun + 4 * static_cast<size_t>(rr), 4);
    }
}

// NVFP4 scale bytes re-coded so a kernel gets the float with a shift and an
// add: code c stands for (1 + (c & 7) / 8) 2^((c >> 3) - 11) (c = 0: zero):
// half the UE4M3 value of the byte (lowbit_blocks.h), subnormals included
// (m 2^-10 is normal here). Every byte maps to the code of its value; the
// inverse gives a byte of that value (all bytes of one value compute alike).
uint8_t nvfp4ScaleCode(uint8_t x)
{
    const float v = ue4m3ToFp32Half(x);
    if (v == 0.0f)
        return 0;
    const uint32_t bits = floatBits(v);   // a normal float: 2^-10 <= v <= 240
    return static_cast<uint8_t>((((bits >> 23) - 116u) << 3) | ((bits >> 20) & 7u));
}

uint8_t nvfp4ScaleByte(uint8_t code)
{
    for (int x = 0; x < 256; ++x)
        if (nvfp4ScaleCode(static_cast<uint8_t>(x)) == code)
            return static_cast<uint8_t>(x);
    return 0;
}

void packNvfp4(const BlockNVFP4 *x, int64_t nb, uint8_t *g, int rr)
{
    for (int64_t b = 0; b < nb; ++b) {
        uint8_t *o = g + static_cast<size_t>(b) * kNvfp4Block;
        for (int s = 0; s < 4; ++s) {
            o[16 * s + rr] = nvfp4ScaleCode(x[b].d[s]);
            for (int c = 0; c < 2; ++c)
                std::memcpy(o + 64 + static_cast<size_t>(2 * s + c) * kRun + 4 * static_cast<size_t>(rr), x[b].qs + 8 * s + 4 * c, 4);
        }
    }
}

void unpackNvfp4(const uint8_t *g, int64_t nb, int rr, BlockNVFP4 *x)
{
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t *o = g + static_cast<size_t>(b) * kNvfp4Block;
        for (int s = 0; s < 4; ++s) {
            x[b].d[s] = nvfp4ScaleByte(o[16 * s + rr]);
            for (int c = 0; c < 2; ++c)
                std::memcpy(x[b].qs + 8 * s + 4 * c, o + 64 + static_cast<size_t>(2 * s + c) * kRun + 4 * static_cast<size_t>(rr), 4);
        }
    }
}

} // namespace

bool packs(GgmlType type)
{
    switch (type) {
    case T::GGML_TYPE_Q1_0:
    case T::GGML_TYPE_Q2_0:
    case T::GGML_TYPE_TQ1_0:
    case T::GGML_TYPE_TQ2_0:
    case T::GGML_TYPE_NVFP4: return true;
    default: return false;
    }
}

int64_t blockSize(GgmlType type)
{
    const GgmlTypeInfo *info = ggmlTypeInfo(type);
    return info ? info->blockSize : 0;
}

size_t groupBytes(GgmlType type, int64_t blocks)
{
    const auto nb = static_cast<size_t>(blocks);
    size_t bytes = 0;
    switch (type) {
    case T::GGML_TYPE_Q1_0: bytes = nb * kQ1Block; break;
    case T::GGML_TYPE_Q2_0: bytes = nb * kQ2Block; break;
    case T::GGML_TYPE_TQ1_0:
    case T::GGML_TYPE_TQ2_0: bytes = nb * kTernaryBlock; break;
    case T::GGML_TYPE_NVFP4: bytes = nb * kNvfp4Block; break;
    default: return 0;
    }
    return (bytes + 63) & ~size_t{63};   // groups start on a cache line (packed.h)
}

void packRow(GgmlType type, const uint8_t *src, int64_t nb, uint8_t *g, int rr)
{
    switch (type) {
    case T::GGML_TYPE_Q1_0: packQ1(reinterpret_cast<const BlockQ1_0 *>(src), nb, g, rr); break;
    case T::GGML_TYPE_Q2_0: packQ2(reinterpret_cast<const BlockQ2_0 *>(src), nb, g, rr); break;
    case T::GGML_TYPE_TQ1_0:
    case T::GGML_TYPE_TQ2_0: packTernary(type, src, nb, g, rr); break;
    case T::GGML_TYPE_NVFP4: packNvfp4(reinterpret_cast<const BlockNVFP4 *>(src), nb, g, rr); break;
    default: break;
    }
}

GgmlType sideArraysOf(GgmlType type)
{
    switch (type) {
    case T::GGML_TYPE_Q1_0:
    case T::GGML_TYPE_NVFP4: return T::GGML_TYPE_Q8_0;
    case T::GGML_TYPE_Q2_0: return T::GGML_TYPE_Q4_0;
    default: return T::GGML_TYPE_Q8_K;
    }
}

GgmlType unpackedType(GgmlType type)
{
    return type == T::GGML_TYPE_TQ1_0 ? T::GGML_TYPE_TQ2_0 : type;
}

void unpackRow(GgmlType type, const uint8_t *g, int64_t nb, int rr, uint8_t *dst)
{
    switch (type) {
    case T::GGML_TYPE_Q1_0: unpackQ1(g, nb, rr, reinterpret_cast<BlockQ1_0 *>(dst)); break;
    case T::GGML_TYPE_Q2_0: unpackQ2(g, nb, rr, reinterpret_cast<BlockQ2_0 *>(dst)); break;
    case T::GGML_TYPE_TQ1_0:
    case T::GGML_TYPE_TQ2_0: unpackTernary(g, nb, rr, reinterpret_cast<BlockTQ2_0 *>(dst)); break;
    case T::GGML_TYPE_NVFP4: unpackNvfp4(g, nb, rr, reinterpret_cast<BlockNVFP4 *>(dst)); break;
    default: break;
    }
}

VecDotFn scalarDot(GgmlType type)
{
    switch (type) {
    case T::GGML_TYPE_Q1_0: return generic::vecDotQ1_0Q8_0;
    case T::GGML_TYPE_Q2_0: return generic::vecDotQ2_0Q8_0;
    case T::GGML_TYPE_TQ1_0:
    case T::GGML_TYPE_TQ2_0: return generic::vecDotTQ2_0Q8_K;
    case T::GGML_TYPE_NVFP4: return generic::vecDotNVFP4Q8_0;
    default: return nullptr;
    }
}

} // namespace burrow::quant::lowbit
