// AVX-512 F/BW/VL + VNNI kernels (this file is compiled with those flags; see
// x86_kernels.h). 512-bit registers hold two 32-element blocks or one
// 64-element chunk of a K-quant super-block; VNNI's vpdpbusd / vpdpwssd do the
// u8 x s8 and s16 x s16 multiply-accumulate in one instruction. Integer dot
// products are exact; only float summation order differs from the scalar twin.
//
// Internal linkage for everything but the fill function (see avx2_kernels.cpp).
#include "quant/x86/x86_kernels.h"

#include "quant/quant_blocks.h"

#include <immintrin.h>

namespace burrow::quant::x86 {

namespace {

inline float halfToFloat(fp16_t h) { return _cvtsh_ss(h); }

inline __m256i loadu256(const void *p) { return _mm256_loadu_si256(static_cast<const __m256i *>(p)); }
inline __m512i loadu512(const void *p) { return _mm512_loadu_si512(p); }

inline __m512i join256(__m256i lo, __m256i hi) { return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1); }

inline float hsum256(__m256 v)
{
    __m128 r = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    r = _mm_add_ps(r, _mm_movehl_ps(r, r));
    r = _mm_add_ss(r, _mm_movehdup_ps(r));
    return _mm_cvtss_f32(r);
}

inline __m256i nibbles32(const uint8_t *p)
{
    const __m128i t = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
    return _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(t, 4), t), _mm256_set1_epi8(0x0f));
}

// --- float types ---
//
// One 16-lane accumulator over the whole row, then one horizontal reduction:
// the order of the reference engine's x86 float matrix multiply (llamafile's
// tinyBLAS with AVX-512), so float models round as there. BF16 pairs are
// added odd element first, then even, exactly as vdpbf16ps accumulates.

void vecDotF32(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const float *>(vx);
    const auto *y = static_cast<const float *>(vy);
    __m512 acc = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        acc = _mm512_fmadd_ps(_mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i), acc);
    float sum = _mm512_reduce_add_ps(acc);
    for (; i < n; ++i)
        sum += x[i] * y[i];
    *s = sum;
}

inline __m512 loadHalf16(const fp16_t *p) { return _mm512_cvtph_ps(loadu256(p)); }

void vecDotF16(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const fp16_t *>(vx);
    const auto *y = static_cast<const fp16_t *>(vy);
    __m512 acc = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        acc = _mm512_fmadd_ps(loadHalf16(x + i), loadHalf16(y + i), acc);
    float sum = _mm512_reduce_add_ps(acc);
    for (; i < n; ++i)
        sum += halfToFloat(x[i]) * halfToFloat(y[i]);
    *s = sum;
}

void vecDotBF16(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const bf16_t *>(vx);
    const auto *y = static_cast<const bf16_t *>(vy);
    const __m512i highHalf = _mm512_set1_epi32(static_cast<int>(0xffff0000u));
    __m512 acc = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m512i a = _mm512_loadu_si512(x + i), b = _mm512_loadu_si512(y + i);
        const __m512 aOdd = _mm512_castsi512_ps(_mm512_and_si512(a, highHalf));
        const __m512 bOdd = _mm512_castsi512_ps(_mm512_and_si512(b, highHalf));
        const __m512 aEven = _mm512_castsi512_ps(_mm512_slli_epi32(a, 16));
        const __m512 bEven = _mm512_castsi512_ps(_mm512_slli_epi32(b, 16));
        acc = _mm512_fmadd_ps(aOdd, bOdd, acc);   // products of two bf16 are exact in f32
        acc = _mm512_fmadd_ps(aEven, bEven, acc);
    }
    float sum = _mm512_reduce_add_ps(acc);
    for (; i < n; ++i)
        sum += bf16ToFp32(x[i]) * bf16ToFp32(y[i]);
    *s = sum;
}

// Multi-column kernels: Kernel<NY> computes one weight row against NY
// activation rows; every column's arithmetic is the same as NY = 1 (vecDot),
// so results are bit-identical between vecDot and vecDotMulti.
template <typename Block>
struct Columns {
    const Block *y[4];
    Columns(const void *base, size_t stride, int ny)
    {
        for (int j = 0; j < ny; ++j)
            y[j] = reinterpret_cast<const Block *>(static_cast<const uint8_t *>(base) + static_cast<size_t>(j) * stride);
    }
};

// --- 32-element blocks against Q8_0, two blocks per register ---

// 32-element blocks stay 256 bits wide (one block per register): joining two
// blocks costs more shuffles than the wider multiply saves; VNNI's vpdpbusd
// replaces AVX2's maddubs + madd pair.
template <int NY, bool Four, typename Block>
void q32Cols(int64_t n, float *out, const Block *x, const Columns<BlockQ8_0> &c)
{
    const int64_t nb = n / QK8_0;
    __m256 acc[NY];
    for (int j = 0; j < NY; ++j)
        acc[j] = _mm256_setzero_ps();
    for (int64_t ib = 0; ib < nb; ++ib) {
        __m256i qx;
        if constexpr (Four)
            qx = _mm256_sub_epi8(nibbles32(x[ib].qs), _mm256_set1_epi8(8));
        else
            qx = loadu256(x[ib].qs);
        const __m256i ax = _mm256_sign_epi8(qx, qx);
        const float dx = halfToFloat(x[ib].d);
        for (int j = 0; j < NY; ++j) {
            const __m256i sy = _mm256_sign_epi8(loadu256(c.y[j][ib].qs), qx);
            const __m256i p = _mm256_dpbusd_epi32(_mm256_setzero_si256(), ax, sy);
            acc[j] = _mm256_fmadd_ps(_mm256_set1_ps(dx * halfToFloat(c.y[j][ib].d)), _mm256_cvtepi32_ps(p), acc[j]);
        }
    }
    for (int j = 0; j < NY; ++j)
        out[j] = hsum256(acc[j]);
}

// --- MXFP4 against Q8_0 ---

// The 32 codes of an MXFP4 block as signed bytes, elements in order.
inline __m256i mxfp4Values(const uint8_t *qs, __m128i table)
{
    const __m128i t = _mm_loadu_si128(reinterpret_cast<const __m128i *>(qs));
    const __m128i low4 = _mm_set1_epi8(0x0f);
    return _mm256_set_m128i(_mm_shuffle_epi8(table, _mm_and_si128(_mm_srli_epi16(t, 4), low4)),
                            _mm_shuffle_epi8(table, _mm_and_si128(t, low4)));
}

// 8 int32 sums of 4 products q * y (VNNI on |q| and y with q's sign); the
// same integers as AVX2's maddubs + madd.
inline __m256i dotI8Vnni(__m256i q, __m256i y)
{
    return _mm256_dpbusd_epi32(_mm256_setzero_si256(), _mm256_sign_epi8(q, q), _mm256_sign_epi8(y, q));
}

// The reference's x86 float order, as the AVX2 kernel: pairs of blocks into
// two 8-lane accumulators, their sum reduced, an odd last block in scalar
// float. Bit-identical to the AVX2 kernel.
template <int NY>
void mxfp4Cols(int64_t n, float *out, const BlockMXFP4 *x, const Columns<BlockQ8_0> &c)
{
    const int64_t nb = n / QK_MXFP4;
    const __m128i table = _mm_loadu_si128(reinterpret_cast<const __m128i *>(kValuesMxfp4));
    __m256 acc1[NY], acc2[NY];
    for (int j = 0; j < NY; ++j)
        acc1[j] = acc2[j] = _mm256_setzero_ps();
    int64_t ib = 0;
    for (; ib + 1 < nb; ib += 2) {
        const __m256i q1 = mxfp4Values(x[ib].qs, table), q2 = mxfp4Values(x[ib + 1].qs, table);
        const float e1 = e8m0ToFp32Half(x[ib].e), e2 = e8m0ToFp32Half(x[ib + 1].e);
        for (int j = 0; j < NY; ++j) {
            const BlockQ8_0 *y = c.y[j] + ib;
            const __m256i p1 = dotI8Vnni(q1, loadu256(y[0].qs)), p2 = dotI8Vnni(q2, loadu256(y[1].qs));
            acc1[j] = _mm256_fmadd_ps(_mm256_set1_ps(halfToFloat(y[0].d) * e1), _mm256_cvtepi32_ps(p1), acc1[j]);
            acc2[j] = _mm256_fmadd_ps(_mm256_set1_ps(halfToFloat(y[1].d) * e2), _mm256_cvtepi32_ps(p2), acc2[j]);
        }
    }
    for (int j = 0; j < NY; ++j) {
        float sum = hsum256(_mm256_add_ps(acc1[j], acc2[j]));
        if (ib < nb) {
            const BlockQ8_0 &y = c.y[j][ib];
            int sumi1 = 0, sumi2 = 0;
            for (int k = 0; k < QK_MXFP4 / 2; ++k) {
                sumi1 += y.qs[k] * kValuesMxfp4[x[ib].qs[k] & 0xf];
                sumi2 += y.qs[k + QK_MXFP4 / 2] * kValuesMxfp4[x[ib].qs[k] >> 4];
            }
            sum += halfToFloat(y.d) * e8m0ToFp32Half(x[ib].e) * static_cast<float>(sumi1 + sumi2);
        }
        out[j] = sum;
    }
}

// --- K-quants against Q8_K: one 64-element chunk per register ---

// The 8 scales (bytes 0-7) and 8 mins (bytes 8-15) of a Q4_K/Q5_K block,
// unpacked from the 12-byte 6-bit field (same values as getScaleMinK4).
inline __m128i unpackScaleMins(const uint8_t packed[12])
{
    uint32_t u[4];
    __builtin_memcpy(u, packed, 12);
    u[3] = ((u[2] >> 4) & 0x0f0f0f0fu) | (((u[1] >> 6) & 0x03030303u) << 4);
    const uint32_t mins03 = u[1] & 0x3f3f3f3fu;
    u[1] = (u[2] & 0x0f0f0f0fu) | (((u[0] >> 6) & 0x03030303u) << 4);
    u[2] = mins03;
    u[0] &= 0x3f3f3f3fu;
    return _mm_loadu_si128(reinterpret_cast<const __m128i *>(u));
}

// 4 int32 partial sums of min_s * (bsums[2s] + bsums[2s+1]) over the 8 sub-blocks.
inline __m128i minsDot(__m128i mins16, const int16_t bsums[16])
{
    const __m128i b0 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(bsums));
    const __m128i b1 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(bsums + 8));
    return _mm_madd_epi16(mins16, _mm_hadd_epi16(b0, b1));
}

inline float hsum128(__m128 r)
{
    r = _mm_add_ps(r, _mm_movehl_ps(r, r));
    r = _mm_add_ss(r, _mm_movehdup_ps(r));
    return _mm_cvtss_f32(r);
}

// int16 lane l of chunk c's scale vector = scale of sub-block 2c + l / 16.
inline __m512i chunkScaleIndex(int c)
{
    return join256(_mm256_set1_epi16(static_cast<int16_t>(2 * c)), _mm256_set1_epi16(static_cast<int16_t>(2 * c + 1)));
}

inline int hsumI32x4(__m128i v)
{
    const __m128i zero = _mm_setzero_si128();
    return _mm_cvtsi128_si32(_mm_hadd_epi32(_mm_hadd_epi32(v, zero), zero));
}

// 16 int32 lanes folded to 8: lane l + lane l + 8. Our 512-bit chunk holds the
// reference's two 256-bit halves side by side, so after folding every lane
// holds exactly the integer the reference's x86 kernel holds, and the float
// steps (256-bit, as the reference) round identically.
inline __m256i fold(__m512i v) { return _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1)); }

// Q4_K keeps the min term in a 4-lane float accumulator, Q5_K in a scalar
// float (as the reference's x86 kernels).
template <int NY, bool Five, typename Block>
void qkCols(int64_t n, float *out, const Block *x, const Columns<BlockQ8_K> &c)
{
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const __m256i one = _mm256_set1_epi8(1);
    const __m512i index[4] = {chunkScaleIndex(0), chunkScaleIndex(1), chunkScaleIndex(2), chunkScaleIndex(3)};
    __m256 acc[NY];
    __m128 accMin[NY];
    float summs[NY];
    for (int j = 0; j < NY; ++j) {
        acc[j] = _mm256_setzero_ps();
        accMin[j] = _mm_setzero_ps();
        summs[j] = 0.0f;
    }
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const __m128i sm = unpackScaleMins(x[i].scales);
        const __m512i scales = _mm512_zextsi128_si512(_mm_cvtepu8_epi16(sm));
        const __m128i mins16 = _mm_cvtepu8_epi16(_mm_srli_si128(sm, 8));
        const float dx = halfToFloat(x[i].d), dminx = halfToFloat(x[i].dmin);
        __m512i sumi[NY];
        for (int j = 0; j < NY; ++j) {
            sumi[j] = _mm512_setzero_si512();
            const __m128i prod = minsDot(mins16, c.y[j][i].bsums);
            if constexpr (Five)
                summs[j] -= (c.y[j][i].d * dminx) * static_cast<float>(hsumI32x4(prod));
            else
                accMin[j] = _mm_fmadd_ps(_mm_set1_ps(c.y[j][i].d * dminx), _mm_cvtepi32_ps(prod), accMin[j]);
        }
        __m256i qh = _mm256_setzero_si256();
        if constexpr (Five)
            qh = loadu256(x[i].qh);
        for (int ch = 0; ch < 4; ++ch) {
            const __m256i q4 = loadu256(x[i].qs + 32 * ch);
            __m256i lo = _mm256_and_si256(q4, low4);
            __m256i hi = _mm256_and_si256(_mm256_srli_epi16(q4, 4), low4);
            if constexpr (Five) {
                lo = _mm256_or_si256(lo, _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * ch), one), 4));
                hi = _mm256_or_si256(hi, _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * ch + 1), one), 4));
            }
            const __m512i q = join256(lo, hi);
            const __m512i sc = _mm512_permutexvar_epi16(index[ch], scales);
            for (int j = 0; j < NY; ++j) {
                const __m512i pairs = _mm512_maddubs_epi16(q, loadu512(c.y[j][i].qs + 64 * ch));
                sumi[j] = _mm512_dpwssd_epi32(sumi[j], pairs, sc);
            }
        }
        for (int j = 0; j < NY; ++j)
            acc[j] = _mm256_fmadd_ps(_mm256_set1_ps(dx * c.y[j][i].d), _mm256_cvtepi32_ps(fold(sumi[j])), acc[j]);
    }
    for (int j = 0; j < NY; ++j)
        out[j] = Five ? hsum256(acc[j]) + summs[j] : hsum256(acc[j]) - hsum128(accMin[j]);
}

// The "- 32" of every level is taken per element pair in 16 bits (32 * q8 via
// maddubs), as the reference's x86 kernel does, so the folded lanes match it.
template <int NY>
void q6KCols(int64_t n, float *out, const BlockQ6_K *x, const Columns<BlockQ8_K> &c)
{
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const __m256i mask2 = _mm256_set1_epi8(3);
    const __m512i m32 = _mm512_set1_epi8(32);
    // int16 lane l of a 64-element chunk belongs to sub-block l / 8 of the chunk's 4
    const __m512i spread[4] = {
        _mm512_set_epi16(3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0),
        _mm512_set_epi16(7, 7, 7, 7, 7, 7, 7, 7, 6, 6, 6, 6, 6, 6, 6, 6, 5, 5, 5, 5, 5, 5, 5, 5, 4, 4, 4, 4, 4, 4, 4, 4),
        _mm512_set_epi16(11, 11, 11, 11, 11, 11, 11, 11, 10, 10, 10, 10, 10, 10, 10, 10, 9, 9, 9, 9, 9, 9, 9, 9, 8, 8,
                         8, 8, 8, 8, 8, 8),
        _mm512_set_epi16(15, 15, 15, 15, 15, 15, 15, 15, 14, 14, 14, 14, 14, 14, 14, 14, 13, 13, 13, 13, 13, 13, 13,
                         13, 12, 12, 12, 12, 12, 12, 12, 12),
    };
    __m256 acc[NY];
    for (int j = 0; j < NY; ++j)
        acc[j] = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const float dx = halfToFloat(x[i].d);
        const __m256i scales16 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(x[i].scales)));
        const __m512i scales512 = _mm512_zextsi256_si512(scales16);
        __m512i sumi[NY];
        for (int j = 0; j < NY; ++j)
            sumi[j] = _mm512_setzero_si512();
        for (int half = 0; half < 2; ++half) {
            const uint8_t *ql = x[i].ql + 64 * half;
            const __m256i qh = loadu256(x[i].qh + 32 * half);
            const __m256i ql0 = loadu256(ql), ql1 = loadu256(ql + 32);
            const __m256i q0 = _mm256_or_si256(_mm256_and_si256(ql0, low4), _mm256_slli_epi16(_mm256_and_si256(qh, mask2), 4));
            const __m256i q1 = _mm256_or_si256(_mm256_and_si256(ql1, low4),
                                               _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2), mask2), 4));
            const __m256i q2 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql0, 4), low4),
                                               _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 4), mask2), 4));
            const __m256i q3 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql1, 4), low4),
                                               _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 6), mask2), 4));
            const __m512i z01 = join256(q0, q1), z23 = join256(q2, q3);
            const __m512i s01 = _mm512_permutexvar_epi16(spread[2 * half], scales512);
            const __m512i s23 = _mm512_permutexvar_epi16(spread[2 * half + 1], scales512);
            for (int j = 0; j < NY; ++j) {
                const int8_t *q8 = c.y[j][i].qs + 128 * half;
                const __m512i y01 = loadu512(q8), y23 = loadu512(q8 + 64);
                const __m512i p01 = _mm512_sub_epi16(_mm512_maddubs_epi16(z01, y01), _mm512_maddubs_epi16(m32, y01));
                const __m512i p23 = _mm512_sub_epi16(_mm512_maddubs_epi16(z23, y23), _mm512_maddubs_epi16(m32, y23));
                sumi[j] = _mm512_dpwssd_epi32(sumi[j], p01, s01);
                sumi[j] = _mm512_dpwssd_epi32(sumi[j], p23, s23);
            }
        }
        for (int j = 0; j < NY; ++j)
            acc[j] = _mm256_fmadd_ps(_mm256_set1_ps(dx * c.y[j][i].d), _mm256_cvtepi32_ps(fold(sumi[j])), acc[j]);
    }
    for (int j = 0; j < NY; ++j)
        out[j] = hsum256(acc[j]);
}

// vecDot (one column) and vecDotMulti (any number, 4 at a time) for a kernel family.
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

template <int NY> struct Q8_0K { static void run(int64_t n, float *o, const BlockQ8_0 *x, const Columns<BlockQ8_0> &c) { q32Cols<NY, false>(n, o, x, c); } };
template <int NY> struct Q4_0K { static void run(int64_t n, float *o, const BlockQ4_0 *x, const Columns<BlockQ8_0> &c) { q32Cols<NY, true>(n, o, x, c); } };
template <int NY> struct MXFP4K { static void run(int64_t n, float *o, const BlockMXFP4 *x, const Columns<BlockQ8_0> &c) { mxfp4Cols<NY>(n, o, x, c); } };
template <int NY> struct Q4_KK { static void run(int64_t n, float *o, const BlockQ4_K *x, const Columns<BlockQ8_K> &c) { qkCols<NY, false>(n, o, x, c); } };
template <int NY> struct Q5_KK { static void run(int64_t n, float *o, const BlockQ5_K *x, const Columns<BlockQ8_K> &c) { qkCols<NY, true>(n, o, x, c); } };
template <int NY> struct Q6_KK { static void run(int64_t n, float *o, const BlockQ6_K *x, const Columns<BlockQ8_K> &c) { q6KCols<NY>(n, o, x, c); } };

} // namespace

void fillAvx512(TypeTraits *rows)
{
    auto row = [rows](GgmlType t) -> TypeTraits & { return rows[static_cast<size_t>(t)]; };
    auto set = [&](GgmlType t, VecDotFn dot, VecDotMultiFn multi) {
        row(t).vecDot = dot;
        row(t).vecDotMulti = multi;
    };
    set(GgmlType::GGML_TYPE_F32, vecDotF32, vecDotMultiLoop<vecDotF32>);
    set(GgmlType::GGML_TYPE_F16, vecDotF16, vecDotMultiLoop<vecDotF16>);
    set(GgmlType::GGML_TYPE_BF16, vecDotBF16, vecDotMultiLoop<vecDotBF16>);
    using Q8_0E = Entry<BlockQ8_0, BlockQ8_0, Q8_0K>;
    using Q4_0E = Entry<BlockQ4_0, BlockQ8_0, Q4_0K>;
    using MXFP4E = Entry<BlockMXFP4, BlockQ8_0, MXFP4K>;
    using Q4_KE = Entry<BlockQ4_K, BlockQ8_K, Q4_KK>;
    using Q5_KE = Entry<BlockQ5_K, BlockQ8_K, Q5_KK>;
    using Q6_KE = Entry<BlockQ6_K, BlockQ8_K, Q6_KK>;
    set(GgmlType::GGML_TYPE_Q8_0, Q8_0E::dot, Q8_0E::multi);
    set(GgmlType::GGML_TYPE_Q4_0, Q4_0E::dot, Q4_0E::multi);
    set(GgmlType::GGML_TYPE_MXFP4, MXFP4E::dot, MXFP4E::multi);
    // Q4_K/Q5_K: one column runs faster on the AVX2 kernel (no 512-bit joins
    // and folds to amortize); it gives the same bits, so only the
    // multi-column entry is replaced.
    row(GgmlType::GGML_TYPE_Q4_K).vecDotMulti = Q4_KE::multi;
    row(GgmlType::GGML_TYPE_Q5_K).vecDotMulti = Q5_KE::multi;
    set(GgmlType::GGML_TYPE_Q6_K, Q6_KE::dot, Q6_KE::multi);
}

} // namespace burrow::quant::x86
