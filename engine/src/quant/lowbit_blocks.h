// Block layouts of the 1- and 2-bit types and NVFP4 (the reference engine's
// ggml-common.h defines the same bytes; GGUF files store them as is) and the
// scalar conversions they need. Pure data and tiny inline helpers with
// internal linkage, as quant_blocks.h (SIMD translation units include this
// too).
//
// Element order and values (j = element index within the block):
//   Q1_0   128 per block: x = qs bit (j % 8) of byte j / 8 ? d : -d.
//   Q2_0   64 per block: q = (qs[j / 4] >> 2 (j % 4)) & 3, x = (q - 1) d
//          (the reference's quantizer writes q in 0..2; q = 3 means +2 d).
//   TQ1_0  256 per block, ternary, five trits per byte: q = (uint8)(byte * 3^n)
//          * 3 >> 8 (trit n, 0..2, most significant first), x = (q - 1) d;
//          qs[m] (m < 32) holds elements 32n + m, qs[32 + m] (m < 16)
//          elements 160 + 16n + m, qh[m] (m < 4, trits n < 4) elements
//          240 + 4n + m.
//   TQ2_0  256 per block: q = (qs[32h + m] >> 2l) & 3 for element 128h +
//          32l + m, x = (q - 1) d (the quantizer writes 0..2; 3 means +2 d).
//   NVFP4  64 per block, four sub-blocks s of 16: x = ue4m3ToFp32Half(d[s]) *
//          kValuesMxfp4[code]; qs[8s + j] low nibble: element 16s + j, high
//          nibble: element 16s + 8 + j (j < 8).
#pragma once

#include "quant/quant_blocks.h"

#include <cstdint>

namespace burrow::quant {

inline constexpr int QK1_0 = 128;
inline constexpr int QK2_0 = 64;
inline constexpr int QK_NVFP4 = 64;
inline constexpr int QK_NVFP4_SUB = 16;

struct BlockQ1_0 { fp16_t d; uint8_t qs[QK1_0 / 8]; };
struct BlockQ2_0 { fp16_t d; uint8_t qs[QK2_0 / 4]; };
struct BlockTQ1_0 { uint8_t qs[(QK_K - 4 * QK_K / 64) / 5]; uint8_t qh[QK_K / 64]; fp16_t d; };
struct BlockTQ2_0 { uint8_t qs[QK_K / 4]; fp16_t d; };
struct BlockNVFP4 { uint8_t d[QK_NVFP4 / QK_NVFP4_SUB]; uint8_t qs[QK_NVFP4 / 2]; };

static_assert(sizeof(BlockQ1_0) == 18);
static_assert(sizeof(BlockQ2_0) == 18);
static_assert(sizeof(BlockTQ1_0) == 54);
static_assert(sizeof(BlockTQ2_0) == 66);
static_assert(sizeof(BlockNVFP4) == 36);

// Trit n (0..4) of a TQ1_0 byte: the top two bits of (byte * 3^n mod 256) * 3.
static inline int tq1Trit(uint8_t byte, int n)
{
    static constexpr uint8_t kPow3[5] = {1, 3, 9, 27, 81};
    const auto q = static_cast<uint8_t>(byte * kPow3[n]);
    return (q * 3) >> 8;
}

// The 256 trits (0..2) of a TQ1_0 block in element order.
static inline void tq1Trits(const BlockTQ1_0 &b, uint8_t out[QK_K])
{
    for (int n = 0; n < 5; ++n)
        for (int m = 0; m < 32; ++m)
            out[32 * n + m] = static_cast<uint8_t>(tq1Trit(b.qs[m], n));
    for (int n = 0; n < 5; ++n)
        for (int m = 0; m < 16; ++m)
            out[160 + 16 * n + m] = static_cast<uint8_t>(tq1Trit(b.qs[32 + m], n));
    for (int n = 0; n < 4; ++n)
        for (int m = 0; m < 4; ++m)
            out[240 + 4 * n + m] = static_cast<uint8_t>(tq1Trit(b.qh[m], n));
}

// The 256 codes (0..3) of a TQ2_0 block in element order.
static inline void tq2Codes(const BlockTQ2_0 &b, uint8_t out[QK_K])
{
    for (int h = 0; h < 2; ++h)
        for (int l = 0; l < 4; ++l)
            for (int m = 0; m < 32; ++m)
                out[128 * h + 32 * l + m] = static_cast<uint8_t>((b.qs[32 * h + m] >> (2 * l)) & 3);
}

// The nibble code of element j (0..63) of an NVFP4 block.
static inline int nvfp4Code(const BlockNVFP4 &b, int j)
{
    const int s = j / QK_NVFP4_SUB, k = j % QK_NVFP4_SUB;
    const uint8_t byte = b.qs[8 * s + (k & 7)];
    return k < 8 ? byte & 0xf : byte >> 4;
}

// Half the UE4M3 scale byte's value, as the reference's ggml_ue4m3_to_fp32
// computes it (kValuesMxfp4 holds the E2M1 values doubled): 0 and 0x7f give
// 0; otherwise exponent e = bits 3..6, mantissa m = bits 0..2 (bit 7 is not
// looked at): e = 0 gives m * 2^-10, else (8 + m) * 2^(e - 11). Exact.
static inline float ue4m3ToFp32Half(uint8_t x)
{
    if (x == 0 || x == 0x7f)
        return 0.0f;
    const uint32_t e = (x >> 3) & 0xfu, m = x & 7u;
    if (e == 0)
        return static_cast<float>(m) * 0.0009765625f;      // m * 2^-10, exact
    return bitsFloat(((e + 119u) << 23) | (m << 20));      // (1 + m/8) * 2^(e - 8)
}

// The reference's ggml_fp32_to_ue4m3: 0 for x <= 0 or NaN; x clamped to 448;
// normal values keep 3 mantissa bits, rounded up when the next bit is set
// (ties away from zero), saturating at 0x7e; below 2^-6 the subnormal code
// (int)(x * 512 + 0.5) limited to 1..7 (0 under half the smallest).
static inline uint8_t fp32ToUe4m3(float x)
{
    if (!(x > 0.0f))
        return 0;
    if (x > 448.0f)
        x = 448.0f;
    const uint32_t bits = floatBits(x);
    const int exp = static_cast<int>((bits >> 23) & 0xff) - 127 + 7;
    if (exp <= 0) {
        const int man = static_cast<int>(x * 512.0f + 0.5f);
        return man < 1 ? 0 : static_cast<uint8_t>(man > 7 ? 7 : man);
    }
    if (exp >= 15)
        return 0x7e;
    int man = static_cast<int>((bits >> 20) & 7) + static_cast<int>((bits >> 19) & 1);
    int e = exp;
    if (man > 7) {
        man = 0;
        if (++e >= 15)
            return 0x7e;
    }
    return static_cast<uint8_t>((e << 3) | man);
}

} // namespace burrow::quant
