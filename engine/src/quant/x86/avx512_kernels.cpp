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

// 16 floats: a in lanes 0-7, b in lanes 8-15.
inline __m512 splat2(float a, float b)
{
    const __m512d lo = _mm512_castpd256_pd512(_mm256_castps_pd(_mm256_set1_ps(a)));
    return _mm512_castpd_ps(_mm512_insertf64x4(lo, _mm256_castps_pd(_mm256_set1_ps(b)), 1));
}

inline float hsum256(__m256 v)
{
    __m128 r = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    r = _mm_add_ps(r, _mm_movehl_ps(r, r));
    r = _mm_add_ss(r, _mm_movehdup_ps(r));
    return _mm_cvtss_f32(r);
}

// 16 int32 sums of 4 products x*y; x any int8, y in [-127, 127].
inline __m512i dotI8(__m512i x, __m512i y)
{
    const __m512i ax = _mm512_abs_epi8(x);
    const __m512i sy = _mm512_mask_sub_epi8(y, _mm512_movepi8_mask(x), _mm512_setzero_si512(), y);
    return _mm512_dpbusd_epi32(_mm512_setzero_si512(), ax, sy);
}

inline __m256i dotI8x256(__m256i x, __m256i y)
{
    const __m256i ax = _mm256_sign_epi8(x, x);
    const __m256i sy = _mm256_sign_epi8(y, x);
    return _mm256_dpbusd_epi32(_mm256_setzero_si256(), ax, sy);
}

inline __m256i nibbles32(const uint8_t *p)
{
    const __m128i t = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
    return _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(t, 4), t), _mm256_set1_epi8(0x0f));
}

// --- float types ---

void vecDotF32(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const float *>(vx);
    const auto *y = static_cast<const float *>(vy);
    __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    int64_t i = 0;
    for (; i + 64 <= n; i += 64)
        for (int k = 0; k < 4; ++k)
            acc[k] = _mm512_fmadd_ps(_mm512_loadu_ps(x + i + 16 * k), _mm512_loadu_ps(y + i + 16 * k), acc[k]);
    for (; i + 16 <= n; i += 16)
        acc[0] = _mm512_fmadd_ps(_mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i), acc[0]);
    float sum = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3])));
    for (; i < n; ++i)
        sum += x[i] * y[i];
    *s = sum;
}

inline __m512 loadHalf16(const fp16_t *p) { return _mm512_cvtph_ps(loadu256(p)); }

void vecDotF16(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const fp16_t *>(vx);
    const auto *y = static_cast<const fp16_t *>(vy);
    __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    int64_t i = 0;
    for (; i + 64 <= n; i += 64)
        for (int k = 0; k < 4; ++k)
            acc[k] = _mm512_fmadd_ps(loadHalf16(x + i + 16 * k), loadHalf16(y + i + 16 * k), acc[k]);
    for (; i + 16 <= n; i += 16)
        acc[0] = _mm512_fmadd_ps(loadHalf16(x + i), loadHalf16(y + i), acc[0]);
    float sum = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3])));
    for (; i < n; ++i)
        sum += halfToFloat(x[i]) * halfToFloat(y[i]);
    *s = sum;
}

inline __m512 loadBf16x16(const bf16_t *p)
{
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(loadu256(p)), 16));
}

void vecDotBF16(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const bf16_t *>(vx);
    const auto *y = static_cast<const bf16_t *>(vy);
    __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    int64_t i = 0;
    for (; i + 64 <= n; i += 64)
        for (int k = 0; k < 4; ++k)
            acc[k] = _mm512_fmadd_ps(loadBf16x16(x + i + 16 * k), loadBf16x16(y + i + 16 * k), acc[k]);
    for (; i + 16 <= n; i += 16)
        acc[0] = _mm512_fmadd_ps(loadBf16x16(x + i), loadBf16x16(y + i), acc[0]);
    float sum = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3])));
    for (; i < n; ++i)
        sum += bf16ToFp32(x[i]) * bf16ToFp32(y[i]);
    *s = sum;
}

// --- 32-element blocks against Q8_0, two blocks per register ---

void vecDotQ8_0Q8_0(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ8_0 *>(vx);
    const auto *y = static_cast<const BlockQ8_0 *>(vy);
    const int64_t nb = n / QK8_0;
    __m512 acc = _mm512_setzero_ps();
    int64_t ib = 0;
    for (; ib + 2 <= nb; ib += 2) {
        const __m512i qx = join256(loadu256(x[ib].qs), loadu256(x[ib + 1].qs));
        const __m512i qy = join256(loadu256(y[ib].qs), loadu256(y[ib + 1].qs));
        const __m512 d = splat2(halfToFloat(x[ib].d) * halfToFloat(y[ib].d),
                                halfToFloat(x[ib + 1].d) * halfToFloat(y[ib + 1].d));
        acc = _mm512_fmadd_ps(d, _mm512_cvtepi32_ps(dotI8(qx, qy)), acc);
    }
    __m256 tail = _mm256_setzero_ps();
    for (; ib < nb; ++ib) {
        const __m256 d = _mm256_set1_ps(halfToFloat(x[ib].d) * halfToFloat(y[ib].d));
        tail = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(dotI8x256(loadu256(x[ib].qs), loadu256(y[ib].qs))), tail);
    }
    *s = _mm512_reduce_add_ps(acc) + hsum256(tail);
}

void vecDotQ4_0Q8_0(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ4_0 *>(vx);
    const auto *y = static_cast<const BlockQ8_0 *>(vy);
    const int64_t nb = n / QK8_0;
    const __m512i eights = _mm512_set1_epi8(8);
    __m512 acc = _mm512_setzero_ps();
    int64_t ib = 0;
    for (; ib + 2 <= nb; ib += 2) {
        const __m512i qx = join256(nibbles32(x[ib].qs), nibbles32(x[ib + 1].qs)); // u8 0..15
        const __m512i qy = join256(loadu256(y[ib].qs), loadu256(y[ib + 1].qs));
        // sum (q - 8) * y = sum q * y - sum 8 * y
        const __m512i p = _mm512_sub_epi32(_mm512_dpbusd_epi32(_mm512_setzero_si512(), qx, qy),
                                           _mm512_dpbusd_epi32(_mm512_setzero_si512(), eights, qy));
        const __m512 d = splat2(halfToFloat(x[ib].d) * halfToFloat(y[ib].d),
                                halfToFloat(x[ib + 1].d) * halfToFloat(y[ib + 1].d));
        acc = _mm512_fmadd_ps(d, _mm512_cvtepi32_ps(p), acc);
    }
    __m256 tail = _mm256_setzero_ps();
    for (; ib < nb; ++ib) {
        const __m256 d = _mm256_set1_ps(halfToFloat(x[ib].d) * halfToFloat(y[ib].d));
        const __m256i q = _mm256_sub_epi8(nibbles32(x[ib].qs), _mm256_set1_epi8(8));
        tail = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(dotI8x256(q, loadu256(y[ib].qs))), tail);
    }
    *s = _mm512_reduce_add_ps(acc) + hsum256(tail);
}

// --- K-quants against Q8_K: one 64-element chunk per register ---

inline int sumMins(const BlockQ8_K &y, const uint8_t packed[12])
{
    int s = 0;
    for (int j = 0; j < 8; ++j) {
        uint8_t sc, mn;
        getScaleMinK4(j, packed, &sc, &mn);
        s += (y.bsums[2 * j] + y.bsums[2 * j + 1]) * mn;
    }
    return s;
}

// 32 int16: a in the first 16, b in the last 16.
inline __m512i scalePair(int a, int b) { return join256(_mm256_set1_epi16(static_cast<int16_t>(a)), _mm256_set1_epi16(static_cast<int16_t>(b))); }

void vecDotQ4_KQ8_K(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ4_K *>(vx);
    const auto *y = static_cast<const BlockQ8_K *>(vy);
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    __m512 acc = _mm512_setzero_ps();
    float accMin = 0.0f;
    for (int64_t i = 0; i < n / QK_K; ++i) {
        uint8_t sc[8], mn[8];
        for (int j = 0; j < 8; ++j)
            getScaleMinK4(j, x[i].scales, &sc[j], &mn[j]);
        const float d = halfToFloat(x[i].d) * y[i].d;
        const float dmin = halfToFloat(x[i].dmin) * y[i].d;
        accMin += dmin * static_cast<float>(sumMins(y[i], x[i].scales));
        __m512i sumi = _mm512_setzero_si512();
        for (int c = 0; c < 4; ++c) {
            const __m256i q4 = loadu256(x[i].qs + 32 * c);
            const __m512i q = join256(_mm256_and_si256(q4, low4), _mm256_and_si256(_mm256_srli_epi16(q4, 4), low4));
            const __m512i pairs = _mm512_maddubs_epi16(q, loadu512(y[i].qs + 64 * c));
            sumi = _mm512_dpwssd_epi32(sumi, pairs, scalePair(sc[2 * c], sc[2 * c + 1]));
        }
        acc = _mm512_fmadd_ps(_mm512_set1_ps(d), _mm512_cvtepi32_ps(sumi), acc);
    }
    *s = _mm512_reduce_add_ps(acc) - accMin;
}

void vecDotQ5_KQ8_K(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ5_K *>(vx);
    const auto *y = static_cast<const BlockQ8_K *>(vy);
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const __m256i one = _mm256_set1_epi8(1);
    __m512 acc = _mm512_setzero_ps();
    float accMin = 0.0f;
    for (int64_t i = 0; i < n / QK_K; ++i) {
        uint8_t sc[8], mn[8];
        for (int j = 0; j < 8; ++j)
            getScaleMinK4(j, x[i].scales, &sc[j], &mn[j]);
        const float d = halfToFloat(x[i].d) * y[i].d;
        const float dmin = halfToFloat(x[i].dmin) * y[i].d;
        accMin += dmin * static_cast<float>(sumMins(y[i], x[i].scales));
        const __m256i qh = loadu256(x[i].qh);
        __m512i sumi = _mm512_setzero_si512();
        for (int c = 0; c < 4; ++c) {
            const __m256i q4 = loadu256(x[i].qs + 32 * c);
            const __m256i hl = _mm256_and_si256(_mm256_srli_epi16(qh, 2 * c), one);
            const __m256i hh = _mm256_and_si256(_mm256_srli_epi16(qh, 2 * c + 1), one);
            const __m256i lo = _mm256_or_si256(_mm256_and_si256(q4, low4), _mm256_slli_epi16(hl, 4));
            const __m256i hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(q4, 4), low4),
                                               _mm256_slli_epi16(hh, 4));
            const __m512i pairs = _mm512_maddubs_epi16(join256(lo, hi), loadu512(y[i].qs + 64 * c));
            sumi = _mm512_dpwssd_epi32(sumi, pairs, scalePair(sc[2 * c], sc[2 * c + 1]));
        }
        acc = _mm512_fmadd_ps(_mm512_set1_ps(d), _mm512_cvtepi32_ps(sumi), acc);
    }
    *s = _mm512_reduce_add_ps(acc) - accMin;
}

void vecDotQ6_KQ8_K(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ6_K *>(vx);
    const auto *y = static_cast<const BlockQ8_K *>(vy);
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const __m256i mask2 = _mm256_set1_epi8(3);
    // int16 lane l of a 64-element chunk belongs to sub-block l / 8 of the chunk's 4
    const __m512i spread[4] = {
        _mm512_set_epi16(3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0),
        _mm512_set_epi16(7, 7, 7, 7, 7, 7, 7, 7, 6, 6, 6, 6, 6, 6, 6, 6, 5, 5, 5, 5, 5, 5, 5, 5, 4, 4, 4, 4, 4, 4, 4, 4),
        _mm512_set_epi16(11, 11, 11, 11, 11, 11, 11, 11, 10, 10, 10, 10, 10, 10, 10, 10, 9, 9, 9, 9, 9, 9, 9, 9, 8, 8,
                         8, 8, 8, 8, 8, 8),
        _mm512_set_epi16(15, 15, 15, 15, 15, 15, 15, 15, 14, 14, 14, 14, 14, 14, 14, 14, 13, 13, 13, 13, 13, 13, 13,
                         13, 12, 12, 12, 12, 12, 12, 12, 12),
    };
    __m512 acc = _mm512_setzero_ps();
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const float d = halfToFloat(x[i].d) * y[i].d;
        const __m256i scales16 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(x[i].scales)));
        const __m512i scales512 = _mm512_castsi256_si512(scales16);
        // the "- 32" of every level: 32 * sum over sub-blocks of scale * sum(q8)
        const __m256i offset = _mm256_slli_epi32(_mm256_madd_epi16(loadu256(y[i].bsums), scales16), 5);
        __m512i sumi = _mm512_setzero_si512();
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
            const __m512i p01 = _mm512_maddubs_epi16(join256(q0, q1), loadu512(y[i].qs + 128 * half));
            const __m512i p23 = _mm512_maddubs_epi16(join256(q2, q3), loadu512(y[i].qs + 128 * half + 64));
            sumi = _mm512_dpwssd_epi32(sumi, p01, _mm512_permutexvar_epi16(spread[2 * half], scales512));
            sumi = _mm512_dpwssd_epi32(sumi, p23, _mm512_permutexvar_epi16(spread[2 * half + 1], scales512));
        }
        const __m512i total = _mm512_sub_epi32(sumi, _mm512_zextsi256_si512(offset));
        acc = _mm512_fmadd_ps(_mm512_set1_ps(d), _mm512_cvtepi32_ps(total), acc);
    }
    *s = _mm512_reduce_add_ps(acc);
}

} // namespace

void fillAvx512(TypeTraits *rows)
{
    auto row = [rows](GgmlType t) -> TypeTraits & { return rows[static_cast<size_t>(t)]; };
    row(GgmlType::GGML_TYPE_F32).vecDot = vecDotF32;
    row(GgmlType::GGML_TYPE_F16).vecDot = vecDotF16;
    row(GgmlType::GGML_TYPE_BF16).vecDot = vecDotBF16;
    row(GgmlType::GGML_TYPE_Q8_0).vecDot = vecDotQ8_0Q8_0;
    row(GgmlType::GGML_TYPE_Q4_0).vecDot = vecDotQ4_0Q8_0;
    row(GgmlType::GGML_TYPE_Q4_K).vecDot = vecDotQ4_KQ8_K;
    row(GgmlType::GGML_TYPE_Q5_K).vecDot = vecDotQ5_KQ8_K;
    row(GgmlType::GGML_TYPE_Q6_K).vecDot = vecDotQ6_KQ8_K;
}

} // namespace burrow::quant::x86
