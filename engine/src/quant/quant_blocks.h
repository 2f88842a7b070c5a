// Block layouts of the ggml quantized types and the scalar float conversions
// they rely on. Pure data and tiny inline helpers: no SIMD, no state.
//
// Layouts are the GGUF file format (little-endian, packed in this order; the
// reference engine's ggml-common.h defines the same bytes). Every helper here
// has internal linkage (`static inline`) on purpose: the SIMD translation units
// under x86/ are compiled with wider instruction sets, and a shared inline
// function with external linkage could be emitted there and then picked by the
// linker for scalar callers too.
#pragma once

#include <cstdint>
#include <cstring>

namespace burrow::quant {

inline constexpr int QK4_0 = 32;
inline constexpr int QK4_1 = 32;
inline constexpr int QK5_0 = 32;
inline constexpr int QK5_1 = 32;
inline constexpr int QK8_0 = 32;
inline constexpr int QK8_1 = 32;
inline constexpr int QK4_NL = 32;
inline constexpr int QK_MXFP4 = 32;
inline constexpr int QK_K = 256;      // super-block size of the K-quants and IQ4_XS
inline constexpr int K_SCALE_SIZE = 12;

using fp16_t = uint16_t; // IEEE half, raw bits
using bf16_t = uint16_t; // bfloat16, raw bits (upper half of an f32)

// x = d * (q - 8), q in 0..15; qs[j] low nibble = element j, high nibble = element j + 16.
struct BlockQ4_0 { fp16_t d; uint8_t qs[QK4_0 / 2]; };
// x = d * q + m, q in 0..15; same nibble order as Q4_0.
struct BlockQ4_1 { fp16_t d; fp16_t m; uint8_t qs[QK4_1 / 2]; };
// x = d * (q - 16), q in 0..31: low 4 bits as Q4_0, bit 4 of element j is bit j of qh (u32 LE).
struct BlockQ5_0 { fp16_t d; uint8_t qh[4]; uint8_t qs[QK5_0 / 2]; };
// x = d * q + m, q in 0..31; bits as Q5_0.
struct BlockQ5_1 { fp16_t d; fp16_t m; uint8_t qh[4]; uint8_t qs[QK5_1 / 2]; };
// x = d * q.
struct BlockQ8_0 { fp16_t d; int8_t qs[QK8_0]; };
// Activations for Q4_1/Q5_1: x = d * q, s = d * sum(q) (both rounded to f16).
struct BlockQ8_1 { fp16_t d; fp16_t s; int8_t qs[QK8_1]; };

// 16 sub-blocks of 16: x = d * (scales[i] & 15) * q - dmin * (scales[i] >> 4), q in 0..3.
// qs: for each 128-element half, byte l (0..31) holds elements l, l+32, l+64, l+96
// at bit shifts 0, 2, 4, 6.
struct BlockQ2_K { uint8_t scales[QK_K / 16]; uint8_t qs[QK_K / 4]; fp16_t d; fp16_t dmin; };
// 16 sub-blocks of 16: x = d * (s - 32) * (q - (hmask bit ? 0 : 4)), s 6-bit packed in scales[12],
// q low 2 bits packed as Q2_K, high bit of element 32*b + l in bit b of hmask[l].
struct BlockQ3_K { uint8_t hmask[QK_K / 8]; uint8_t qs[QK_K / 4]; uint8_t scales[12]; fp16_t d; };
// 8 sub-blocks of 32: x = d * sc * q - dmin * m, q in 0..15, (sc, m) 6-bit (getScaleMinK4).
// qs: each 64-element chunk is 32 bytes, low nibbles first 32 elements, high nibbles next 32.
struct BlockQ4_K { fp16_t d; fp16_t dmin; uint8_t scales[K_SCALE_SIZE]; uint8_t qs[QK_K / 2]; };
// As Q4_K with a 5th bit: element 64*c + l has its high bit in qh[l] bit 2c, element 64*c+32+l in bit 2c+1.
struct BlockQ5_K { fp16_t d; fp16_t dmin; uint8_t scales[K_SCALE_SIZE]; uint8_t qh[QK_K / 8]; uint8_t qs[QK_K / 2]; };
// 16 sub-blocks of 16: x = d * scales[i] * (q - 32), q 6-bit: low 4 in ql, high 2 in qh.
struct BlockQ6_K { uint8_t ql[QK_K / 2]; uint8_t qh[QK_K / 4]; int8_t scales[QK_K / 16]; fp16_t d; };
// Activations for the K-quants and IQ4_XS: x = d * q; bsums[i] = sum of qs[16i .. 16i+15].
struct BlockQ8_K { float d; int8_t qs[QK_K]; int16_t bsums[QK_K / 16]; };
// x = d * kvaluesIq4nl[q]; nibble order as Q4_0.
struct BlockIQ4_NL { fp16_t d; uint8_t qs[QK4_NL / 2]; };
// 8 sub-blocks of 32: x = d * (ls - 32) * kvaluesIq4nl[q]; ls 6-bit: low 4 bits in
// scales_l[ib/2] (nibble ib%2), high 2 bits at bit 2*ib of scales_h; nibbles per 32 as Q4_0.
struct BlockIQ4_XS { fp16_t d; uint16_t scales_h; uint8_t scales_l[QK_K / 64]; uint8_t qs[QK_K / 2]; };
// The lattice i-quants (codebooks in iq_grids.h). Super-blocks of 256 in
// groups of 8 (IQ1, IQ2) or 4 (IQ3) elements, each group one grid point of
// magnitudes with signs (IQ1: of signed values -1, 0, 1 plus a shift of 1/8).
// "Even signs": a 7-bit field whose 8th sign is its parity (kIqEvenSigns).
// IQ2_XXS: per 32 elements two u32 (qs[4ib], qs[4ib+1] as u16 pairs): the first
// holds 4 8-bit grid indices, the second 4 7-bit even-sign fields (bits 7l..) and
// the 4-bit scale ls in bits 28..31; x = d * (ls + 1/2) / 4 * grid * sign.
struct BlockIQ2_XXS { fp16_t d; uint16_t qs[QK_K / 8]; };
// IQ2_XS: qs[4ib + l] = 9-bit grid index | 7-bit even-sign field << 9; scales[ib]
// low nibble for elements 0..15 of the 32, high nibble 16..31; x = d * (s + 1/2) / 4 * grid * sign.
struct BlockIQ2_XS { fp16_t d; uint16_t qs[QK_K / 8]; uint8_t scales[QK_K / 32]; };
// IQ2_S: qs[0..31] low 8 bits of 10-bit grid indices (bits 8, 9 of index 4ib + l at
// bits 2l, 2l + 1 of qh[ib]), qs[32..63] one plain sign byte per group of 8; scales as IQ2_XS.
struct BlockIQ2_S { fp16_t d; uint8_t qs[QK_K / 4]; uint8_t qh[QK_K / 32]; uint8_t scales[QK_K / 32]; };
// IQ3_XXS: qs[0..63] 8-bit indices of 4-element points; qs[64 + 4ib..] one u32
// per 32 elements as IQ2_XXS's second word; x = d * (ls + 1/2) / 2 * grid * sign.
struct BlockIQ3_XXS { fp16_t d; uint8_t qs[3 * QK_K / 8]; };
// IQ3_S: qs low 8 bits of 9-bit indices of 4-element points (bit 8 of index 8ib + k
// is bit k of qh[ib]), signs one plain byte per 8 elements, scales[ib/2] nibble
// (ib % 2) for 32 elements; x = d * (1 + 2s) * grid * sign.
struct BlockIQ3_S { fp16_t d; uint8_t qs[QK_K / 4]; uint8_t qh[QK_K / 32]; uint8_t signs[QK_K / 8]; uint8_t scales[QK_K / 64]; };
// IQ1_S: qs low 8 bits of 11-bit indices; qh[ib] (per 32): bits 3l..3l+2 the index's
// high bits for group l, bits 12..14 the scale s, bit 15 the shift's sign;
// x = d * (2s + 1) * (grid +- 1/8).
struct BlockIQ1_S { fp16_t d; uint8_t qs[QK_K / 8]; uint16_t qh[QK_K / 32]; };
// IQ1_M (no d field): qs as IQ1_S; qh[2ib + k] low nibble for group 2k, high nibble
// for 2k + 1: bits 0..2 the index's high bits, bit 3 the shift's sign; scales as 4
// u16: 3-bit scales, 4 per u16 (per 16 elements), the top nibbles together the f16 d.
struct BlockIQ1_M { uint8_t qs[QK_K / 8]; uint8_t qh[QK_K / 16]; uint8_t scales[QK_K / 32]; };
// Grid index of point l (0..3) of 32-element sub-block ib (IQ2_S: 10 bits,
// IQ1_S and IQ1_M: 11 bits).
static inline unsigned iq2sPointIndex(const BlockIQ2_S &x, int ib, int l)
{
    return x.qs[4 * ib + l] | ((static_cast<unsigned>(x.qh[ib]) << (8 - 2 * l)) & 0x300u);
}
static inline unsigned iq1sPointIndex(const BlockIQ1_S &x, int ib, int l)
{
    return x.qs[4 * ib + l] | (((static_cast<unsigned>(x.qh[ib]) >> (3 * l)) & 7u) << 8);
}
static inline unsigned iq1mPointIndex(const BlockIQ1_M &x, int ib, int l)
{
    return x.qs[4 * ib + l] | ((static_cast<unsigned>(x.qh[2 * ib + l / 2]) << (8 - 4 * (l % 2))) & 0x700u);
}
// OCP microscaling FP4: x = e8m0ToFp32Half(e) * kValuesMxfp4[q]; e is an E8M0 exponent
// byte, q a 4-bit E2M1 code; nibble order as Q4_0 (qs[j] low: element j, high: j + 16).
struct BlockMXFP4 { uint8_t e; uint8_t qs[QK_MXFP4 / 2]; };

static_assert(sizeof(BlockQ4_0) == 18);
static_assert(sizeof(BlockQ4_1) == 20);
static_assert(sizeof(BlockQ5_0) == 22);
static_assert(sizeof(BlockQ5_1) == 24);
static_assert(sizeof(BlockQ8_0) == 34);
static_assert(sizeof(BlockQ8_1) == 36);
static_assert(sizeof(BlockQ2_K) == 84);
static_assert(sizeof(BlockQ3_K) == 110);
static_assert(sizeof(BlockQ4_K) == 144);
static_assert(sizeof(BlockQ5_K) == 176);
static_assert(sizeof(BlockQ6_K) == 210);
static_assert(sizeof(BlockQ8_K) == 292);
static_assert(sizeof(BlockIQ4_NL) == 18);
static_assert(sizeof(BlockIQ4_XS) == 136);
static_assert(sizeof(BlockIQ2_XXS) == 66);
static_assert(sizeof(BlockIQ2_XS) == 74);
static_assert(sizeof(BlockIQ2_S) == 82);
static_assert(sizeof(BlockIQ3_XXS) == 98);
static_assert(sizeof(BlockIQ3_S) == 110);
static_assert(sizeof(BlockIQ1_S) == 50);
static_assert(sizeof(BlockIQ1_M) == 56);
static_assert(sizeof(BlockMXFP4) == 17);

// The non-linear 4-bit codebook of IQ4_NL and IQ4_XS.
inline constexpr int8_t kValuesIq4nl[16] = {
    -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113,
};

// The E2M1 codes of MXFP4 as twice their value (0, 0.5, 1, 1.5, 2, 3, 4, 6 and
// their negatives, doubled to integers); e8m0ToFp32Half halves the scale to match.
inline constexpr int8_t kValuesMxfp4[16] = {
    0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12,
};

static inline uint32_t floatBits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
static inline float bitsFloat(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

// Exact half -> float (every half is representable).
static inline float fp16ToFp32(fp16_t h)
{
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu;
    const uint32_t mant = h & 0x3ffu;
    if (exp == 0) {
        // zero or subnormal: mant * 2^-24, exact in float
        const float v = static_cast<float>(mant) * 5.9604644775390625e-08f;
        return sign ? -v : v;
    }
    if (exp == 31)
        return bitsFloat(sign | 0x7f800000u | (mant << 13));
    return bitsFloat(sign | ((exp + 112u) << 23) | (mant << 13));
}

// Float -> half, round to nearest even; overflow gives infinity, NaN a quiet NaN
// (same results as x86 F16C `vcvtps2ph` with rounding mode 0 and ggml's
// software fallback for every non-NaN input).
static inline fp16_t fp32ToFp16(float f)
{
    uint32_t x = floatBits(f);
    const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
    x &= 0x7fffffffu;
    if (x > 0x7f800000u)
        return sign | 0x7e00u;                  // NaN
    if (x >= 0x477ff000u)
        return sign | 0x7c00u;                  // >= 65520 rounds to infinity
    if (x >= 0x38800000u) {                     // normal half (>= 2^-14)
        x += 0xfffu + ((x >> 13) & 1u);         // round to nearest even at bit 13
        return static_cast<fp16_t>(sign | ((x - 0x38000000u) >> 13));
    }
    // Subnormal half: adding 0.5f makes the float ulp 2^-24, so the hardware
    // add performs the round-to-nearest-even to the half subnormal grid.
    const float v = bitsFloat(x) + 0.5f;
    return static_cast<fp16_t>(sign | (floatBits(v) - 0x3f000000u));
}

// 2^(e - 128): half the E8M0 scale 2^(e - 127), as the reference's
// ggml_e8m0_to_fp32_half builds it: e = 0 and 1 give the subnormals 2^-128
// and 2^-127 (bit patterns 0x00200000, 0x00400000), e >= 2 the normal float
// with exponent field e - 1; e = 255 gives 2^127 (E8M0's NaN code is not
// special-cased, as there).
static inline float e8m0ToFp32Half(uint8_t e)
{
    const uint32_t bits = e < 2 ? 0x00200000u << e : static_cast<uint32_t>(e - 1) << 23;
    return bitsFloat(bits);
}

static inline float bf16ToFp32(bf16_t h) { return bitsFloat(static_cast<uint32_t>(h) << 16); }

// Float -> bfloat16, round to nearest even, NaN made quiet; subnormals kept
// (as ggml's ggml_compute_fp32_to_bf16).
static inline bf16_t fp32ToBf16(float f)
{
    const uint32_t u = floatBits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return static_cast<bf16_t>((u >> 16) | 64u);
    return static_cast<bf16_t>((u + (0x7fffu + ((u >> 16) & 1u))) >> 16);
}

// Round to nearest, ties to even, for |v| < 2^22 (the reference's nearest_int,
// which adds 1.5 * 2^23 and reads the mantissa).
static inline int nearestInt(float v)
{
    const float shifted = v + 12582912.f;
    return static_cast<int>(floatBits(shifted) & 0x007fffffu) - 0x00400000;
}

// The 6-bit scale and min of sub-block j (0..7) of a Q4_K/Q5_K block.
static inline void getScaleMinK4(int j, const uint8_t *q, uint8_t *d, uint8_t *m)
{
    if (j < 4) {
        *d = q[j] & 63;
        *m = q[j + 4] & 63;
    } else {
        *d = static_cast<uint8_t>((q[j + 4] & 0xf) | ((q[j - 4] >> 6) << 4));
        *m = static_cast<uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
    }
}

// The 16 signed 6-bit scales (already minus 32) of a Q3_K block.
static inline void unpackQ3KScales(const uint8_t *packed, int8_t out[16])
{
    for (int j = 0; j < 16; ++j) {
        const int low = j < 8 ? (packed[j] & 0xf) : (packed[j - 8] >> 4);
        const int high = (packed[8 + j % 4] >> (2 * (j / 4))) & 3;
        out[j] = static_cast<int8_t>((low | (high << 4)) - 32);
    }
}

} // namespace burrow::quant
