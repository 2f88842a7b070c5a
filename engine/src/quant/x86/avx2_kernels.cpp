// AVX2 + FMA + F16C kernels (this file is compiled with -mavx2 -mfma -mf16c;
// see x86_kernels.h). Integer dot products are exact; the float scaling is
// accumulated in vector lanes, so results differ from the scalar twins only by
// float summation order. Activation quantizers write the same bytes as the
// scalar reference quantizers.
//
// Everything here has internal linkage (anonymous namespace) except the fill
// function, so no AVX2 code can be picked by the linker for scalar callers.
#include "quant/x86/x86_kernels.h"

#include "quant/quant_blocks.h"

#include <immintrin.h>

namespace burrow::quant::x86 {

namespace {

inline float halfToFloat(fp16_t h) { return _cvtsh_ss(h); }

inline float hsum(__m256 v)
{
    __m128 r = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    r = _mm_add_ps(r, _mm_movehl_ps(r, r));
    r = _mm_add_ss(r, _mm_movehdup_ps(r));
    return _mm_cvtss_f32(r);
}

inline int hsumI32(__m256i v)
{
    __m128i r = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    r = _mm_add_epi32(r, _mm_unpackhi_epi64(r, r));
    r = _mm_add_epi32(r, _mm_shuffle_epi32(r, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_cvtsi128_si32(r);
}

// 8 int32 sums of 4 products x*y each. x: any int8 (-128 allowed);
// y: int8 in [-127, 127] (activations never hold -128).
inline __m256i dotI8(__m256i x, __m256i y)
{
    const __m256i ax = _mm256_sign_epi8(x, x);
    const __m256i sy = _mm256_sign_epi8(y, x);
    const __m256i pairs = _mm256_maddubs_epi16(ax, sy);
    return _mm256_madd_epi16(pairs, _mm256_set1_epi16(1));
}

// 32 nibbles -> 32 bytes: low nibbles of 16 bytes, then high nibbles.
inline __m256i nibbles32(const uint8_t *p)
{
    const __m128i t = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
    const __m256i both = _mm256_set_m128i(_mm_srli_epi16(t, 4), t);
    return _mm256_and_si256(both, _mm256_set1_epi8(0x0f));
}

inline __m256i loadu256(const void *p) { return _mm256_loadu_si256(static_cast<const __m256i *>(p)); }

// --- float types ---

void vecDotF32(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const float *>(vx);
    const auto *y = static_cast<const float *>(vy);
    __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    int64_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int k = 0; k < 4; ++k)
            acc[k] = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8 * k), _mm256_loadu_ps(y + i + 8 * k), acc[k]);
    for (; i + 8 <= n; i += 8)
        acc[0] = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), acc[0]);
    float sum = hsum(_mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3])));
    for (; i < n; ++i)
        sum += x[i] * y[i];
    *s = sum;
}

inline __m256 loadHalf8(const fp16_t *p) { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p))); }

void vecDotF16(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const fp16_t *>(vx);
    const auto *y = static_cast<const fp16_t *>(vy);
    __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    int64_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int k = 0; k < 4; ++k)
            acc[k] = _mm256_fmadd_ps(loadHalf8(x + i + 8 * k), loadHalf8(y + i + 8 * k), acc[k]);
    for (; i + 8 <= n; i += 8)
        acc[0] = _mm256_fmadd_ps(loadHalf8(x + i), loadHalf8(y + i), acc[0]);
    float sum = hsum(_mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3])));
    for (; i < n; ++i)
        sum += halfToFloat(x[i]) * halfToFloat(y[i]);
    *s = sum;
}

inline __m256 loadBf16x8(const bf16_t *p)
{
    const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
    return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}

void vecDotBF16(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const bf16_t *>(vx);
    const auto *y = static_cast<const bf16_t *>(vy);
    __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    int64_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int k = 0; k < 4; ++k)
            acc[k] = _mm256_fmadd_ps(loadBf16x8(x + i + 8 * k), loadBf16x8(y + i + 8 * k), acc[k]);
    for (; i + 8 <= n; i += 8)
        acc[0] = _mm256_fmadd_ps(loadBf16x8(x + i), loadBf16x8(y + i), acc[0]);
    float sum = hsum(_mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3])));
    for (; i < n; ++i)
        sum += bf16ToFp32(x[i]) * bf16ToFp32(y[i]);
    *s = sum;
}

// Rows of F32 -> F16 / BF16 (activations of F16 / BF16 weights).
void quantizeRowF16(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<fp16_t *>(dst);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i *>(y + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; ++i)
        y[i] = fp32ToFp16(src[i]);
}

// --- 32-element block types against Q8_0 ---

void vecDotQ8_0Q8_0(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ8_0 *>(vx);
    const auto *y = static_cast<const BlockQ8_0 *>(vy);
    const int64_t nb = n / QK8_0;
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    int64_t ib = 0;
    for (; ib + 2 <= nb; ib += 2) {
        const __m256 d0 = _mm256_set1_ps(halfToFloat(x[ib].d) * halfToFloat(y[ib].d));
        const __m256 d1 = _mm256_set1_ps(halfToFloat(x[ib + 1].d) * halfToFloat(y[ib + 1].d));
        const __m256i p0 = dotI8(loadu256(x[ib].qs), loadu256(y[ib].qs));
        const __m256i p1 = dotI8(loadu256(x[ib + 1].qs), loadu256(y[ib + 1].qs));
        acc0 = _mm256_fmadd_ps(d0, _mm256_cvtepi32_ps(p0), acc0);
        acc1 = _mm256_fmadd_ps(d1, _mm256_cvtepi32_ps(p1), acc1);
    }
    for (; ib < nb; ++ib) {
        const __m256 d = _mm256_set1_ps(halfToFloat(x[ib].d) * halfToFloat(y[ib].d));
        acc0 = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(dotI8(loadu256(x[ib].qs), loadu256(y[ib].qs))), acc0);
    }
    *s = hsum(_mm256_add_ps(acc0, acc1));
}

void vecDotQ4_0Q8_0(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ4_0 *>(vx);
    const auto *y = static_cast<const BlockQ8_0 *>(vy);
    const int64_t nb = n / QK8_0;
    const __m256i eight = _mm256_set1_epi8(8);
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    int64_t ib = 0;
    for (; ib + 2 <= nb; ib += 2) {
        const __m256 d0 = _mm256_set1_ps(halfToFloat(x[ib].d) * halfToFloat(y[ib].d));
        const __m256 d1 = _mm256_set1_ps(halfToFloat(x[ib + 1].d) * halfToFloat(y[ib + 1].d));
        const __m256i q0 = _mm256_sub_epi8(nibbles32(x[ib].qs), eight);
        const __m256i q1 = _mm256_sub_epi8(nibbles32(x[ib + 1].qs), eight);
        acc0 = _mm256_fmadd_ps(d0, _mm256_cvtepi32_ps(dotI8(q0, loadu256(y[ib].qs))), acc0);
        acc1 = _mm256_fmadd_ps(d1, _mm256_cvtepi32_ps(dotI8(q1, loadu256(y[ib + 1].qs))), acc1);
    }
    for (; ib < nb; ++ib) {
        const __m256 d = _mm256_set1_ps(halfToFloat(x[ib].d) * halfToFloat(y[ib].d));
        const __m256i q = _mm256_sub_epi8(nibbles32(x[ib].qs), eight);
        acc0 = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(dotI8(q, loadu256(y[ib].qs))), acc0);
    }
    *s = hsum(_mm256_add_ps(acc0, acc1));
}

// --- K-quants against Q8_K ---

// The 8 (scale, min) pairs of a Q4_K/Q5_K block.
inline void scaleMins(const uint8_t *packed, uint8_t sc[8], uint8_t mn[8])
{
    for (int j = 0; j < 8; ++j)
        getScaleMinK4(j, packed, &sc[j], &mn[j]);
}

inline int sumMins(const BlockQ8_K &y, const uint8_t mn[8])
{
    int s = 0;
    for (int j = 0; j < 8; ++j)
        s += (y.bsums[2 * j] + y.bsums[2 * j + 1]) * mn[j];
    return s;
}

void vecDotQ4_KQ8_K(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ4_K *>(vx);
    const auto *y = static_cast<const BlockQ8_K *>(vy);
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    __m256 acc = _mm256_setzero_ps();
    float accMin = 0.0f;
    for (int64_t i = 0; i < n / QK_K; ++i) {
        uint8_t sc[8], mn[8];
        scaleMins(x[i].scales, sc, mn);
        const float d = halfToFloat(x[i].d) * y[i].d;
        const float dmin = halfToFloat(x[i].dmin) * y[i].d;
        accMin += dmin * static_cast<float>(sumMins(y[i], mn));
        __m256i sumi = _mm256_setzero_si256();
        for (int c = 0; c < 4; ++c) {
            const __m256i q4 = loadu256(x[i].qs + 32 * c);
            const __m256i lo = _mm256_and_si256(q4, low4);
            const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(q4, 4), low4);
            const __m256i pl = _mm256_maddubs_epi16(lo, loadu256(y[i].qs + 64 * c));
            const __m256i ph = _mm256_maddubs_epi16(hi, loadu256(y[i].qs + 64 * c + 32));
            sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(pl, _mm256_set1_epi16(sc[2 * c])));
            sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(ph, _mm256_set1_epi16(sc[2 * c + 1])));
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sumi), acc);
    }
    *s = hsum(acc) - accMin;
}

void vecDotQ5_KQ8_K(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ5_K *>(vx);
    const auto *y = static_cast<const BlockQ8_K *>(vy);
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const __m256i one = _mm256_set1_epi8(1);
    __m256 acc = _mm256_setzero_ps();
    float accMin = 0.0f;
    for (int64_t i = 0; i < n / QK_K; ++i) {
        uint8_t sc[8], mn[8];
        scaleMins(x[i].scales, sc, mn);
        const float d = halfToFloat(x[i].d) * y[i].d;
        const float dmin = halfToFloat(x[i].dmin) * y[i].d;
        accMin += dmin * static_cast<float>(sumMins(y[i], mn));
        const __m256i qh = loadu256(x[i].qh);
        __m256i sumi = _mm256_setzero_si256();
        for (int c = 0; c < 4; ++c) {
            const __m256i q4 = loadu256(x[i].qs + 32 * c);
            const __m256i hl = _mm256_and_si256(_mm256_srli_epi16(qh, 2 * c), one);
            const __m256i hh = _mm256_and_si256(_mm256_srli_epi16(qh, 2 * c + 1), one);
            const __m256i lo = _mm256_or_si256(_mm256_and_si256(q4, low4), _mm256_slli_epi16(hl, 4));
            const __m256i hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(q4, 4), low4),
                                               _mm256_slli_epi16(hh, 4));
            const __m256i pl = _mm256_maddubs_epi16(lo, loadu256(y[i].qs + 64 * c));
            const __m256i ph = _mm256_maddubs_epi16(hi, loadu256(y[i].qs + 64 * c + 32));
            sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(pl, _mm256_set1_epi16(sc[2 * c])));
            sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(ph, _mm256_set1_epi16(sc[2 * c + 1])));
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sumi), acc);
    }
    *s = hsum(acc) - accMin;
}

void vecDotQ6_KQ8_K(int64_t n, float *s, const void *vx, const void *vy)
{
    const auto *x = static_cast<const BlockQ6_K *>(vx);
    const auto *y = static_cast<const BlockQ8_K *>(vy);
    const __m256i low4 = _mm256_set1_epi8(0x0f);
    const __m256i mask2 = _mm256_set1_epi8(3);
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const float d = halfToFloat(x[i].d) * y[i].d;
        // sum over sub-blocks of scale * 32 * sum(q8): the "- 32" of every level
        const __m256i bsums = loadu256(y[i].bsums);
        const __m256i scales16 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(x[i].scales)));
        const __m256i offset = _mm256_slli_epi32(_mm256_madd_epi16(bsums, scales16), 5);
        __m256i sumi = _mm256_setzero_si256();
        for (int half = 0; half < 2; ++half) {
            const uint8_t *ql = x[i].ql + 64 * half;
            const __m256i qh = loadu256(x[i].qh + 32 * half);
            const __m256i ql0 = loadu256(ql), ql1 = loadu256(ql + 32);
            const __m256i q[4] = {
                _mm256_or_si256(_mm256_and_si256(ql0, low4), _mm256_slli_epi16(_mm256_and_si256(qh, mask2), 4)),
                _mm256_or_si256(_mm256_and_si256(ql1, low4),
                                _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2), mask2), 4)),
                _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql0, 4), low4),
                                _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 4), mask2), 4)),
                _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql1, 4), low4),
                                _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 6), mask2), 4)),
            };
            for (int k = 0; k < 4; ++k) {
                const int sub = 8 * half + 2 * k; // sub-blocks of 16: this group of 32 is sub, sub + 1
                const __m256i p = _mm256_maddubs_epi16(q[k], loadu256(y[i].qs + 128 * half + 32 * k));
                const __m256i scale = _mm256_set_m128i(_mm_set1_epi16(x[i].scales[sub + 1]),
                                                       _mm_set1_epi16(x[i].scales[sub]));
                sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(p, scale));
            }
        }
        sumi = _mm256_sub_epi32(sumi, offset);
        acc = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sumi), acc);
    }
    *s = hsum(acc);
}

// --- activation quantizers (same bytes as generic::quantizeRowQ8_0 / Q8_K) ---

// roundf(): round half away from zero, exactly.
inline __m256 roundHalfAway(__m256 v)
{
    const __m256 t = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m256 frac = _mm256_sub_ps(v, t);                         // exact
    const __m256 signMask = _mm256_set1_ps(-0.0f);
    const __m256 absFrac = _mm256_andnot_ps(signMask, frac);
    const __m256 bump = _mm256_and_ps(_mm256_cmp_ps(absFrac, _mm256_set1_ps(0.5f), _CMP_GE_OQ),
                                      _mm256_or_ps(_mm256_set1_ps(1.0f), _mm256_and_ps(v, signMask)));
    return _mm256_add_ps(t, bump);
}

// 32 int32 in four vectors (elements in order) -> 32 int8 (saturating).
inline __m256i packI32ToI8(__m256i a, __m256i b, __m256i c, __m256i d)
{
    const __m256i ab = _mm256_packs_epi32(a, b);   // lanes interleaved by 128-bit halves
    const __m256i cd = _mm256_packs_epi32(c, d);
    const __m256i abcd = _mm256_packs_epi16(ab, cd);
    return _mm256_permutevar8x32_epi32(abcd, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

void quantizeRowQ8_0(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<BlockQ8_0 *>(dst);
    const __m256 signMask = _mm256_set1_ps(-0.0f);
    for (int64_t i = 0; i < n / QK8_0; ++i, src += QK8_0) {
        __m256 v[4];
        __m256 m = _mm256_setzero_ps();
        for (int k = 0; k < 4; ++k) {
            v[k] = _mm256_loadu_ps(src + 8 * k);
            m = _mm256_max_ps(m, _mm256_andnot_ps(signMask, v[k]));
        }
        __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
        m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
        m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
        const float amax = _mm_cvtss_f32(m4);
        const float d = amax / ((1 << 7) - 1);
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        y[i].d = fp32ToFp16(d);
        const __m256 mul = _mm256_set1_ps(id);
        __m256i q[4];
        for (int k = 0; k < 4; ++k)
            q[k] = _mm256_cvttps_epi32(roundHalfAway(_mm256_mul_ps(v[k], mul)));
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(y[i].qs), packI32ToI8(q[0], q[1], q[2], q[3]));
    }
}

void quantizeRowQ8_K(const float *src, void *dst, int64_t n)
{
    auto *y = static_cast<BlockQ8_K *>(dst);
    const __m256 signMask = _mm256_set1_ps(-0.0f);
    for (int64_t i = 0; i < n / QK_K; ++i, src += QK_K) {
        __m256 m = _mm256_setzero_ps();
        for (int k = 0; k < QK_K; k += 8)
            m = _mm256_max_ps(m, _mm256_andnot_ps(signMask, _mm256_loadu_ps(src + k)));
        __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
        m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
        m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
        const float amax = _mm_cvtss_f32(m4);
        if (amax == 0.0f) {
            __builtin_memset(&y[i], 0, sizeof(BlockQ8_K));
            continue;
        }
        // the first element of largest magnitude gives the sign (as the scalar scan)
        float max = 0.0f;
        for (int k = 0; k < QK_K; k += 8) {
            const __m256 a = _mm256_andnot_ps(signMask, _mm256_loadu_ps(src + k));
            const int hit = _mm256_movemask_ps(_mm256_cmp_ps(a, _mm256_set1_ps(amax), _CMP_EQ_OQ));
            if (hit) {
                max = src[k + __builtin_ctz(static_cast<unsigned>(hit))];
                break;
            }
        }
        const float iscale = -127.f / max;
        const __m256 mul = _mm256_set1_ps(iscale);
        for (int k = 0; k < QK_K; k += 32) {
            __m256i q[4];
            for (int j = 0; j < 4; ++j) // cvtps rounds to nearest even, as nearestInt
                q[j] = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(src + k + 8 * j), mul));
            // 16-element sums for bsums
            y[i].bsums[k / 16] = static_cast<int16_t>(hsumI32(_mm256_add_epi32(q[0], q[1])));
            y[i].bsums[k / 16 + 1] = static_cast<int16_t>(hsumI32(_mm256_add_epi32(q[2], q[3])));
            _mm256_storeu_si256(reinterpret_cast<__m256i *>(y[i].qs + k), packI32ToI8(q[0], q[1], q[2], q[3]));
        }
        y[i].d = 1 / iscale;
    }
}

} // namespace

void fillAvx2(TypeTraits *rows)
{
    auto row = [rows](GgmlType t) -> TypeTraits & { return rows[static_cast<size_t>(t)]; };
    auto set = [&](GgmlType t, VecDotFn dot, VecDotMultiFn multi) {
        row(t).vecDot = dot;
        row(t).vecDotMulti = multi;
    };
    set(GgmlType::GGML_TYPE_F32, vecDotF32, vecDotMultiLoop<vecDotF32>);
    set(GgmlType::GGML_TYPE_F16, vecDotF16, vecDotMultiLoop<vecDotF16>);
    set(GgmlType::GGML_TYPE_BF16, vecDotBF16, vecDotMultiLoop<vecDotBF16>);
    set(GgmlType::GGML_TYPE_Q8_0, vecDotQ8_0Q8_0, vecDotMultiLoop<vecDotQ8_0Q8_0>);
    set(GgmlType::GGML_TYPE_Q4_0, vecDotQ4_0Q8_0, vecDotMultiLoop<vecDotQ4_0Q8_0>);
    set(GgmlType::GGML_TYPE_Q4_K, vecDotQ4_KQ8_K, vecDotMultiLoop<vecDotQ4_KQ8_K>);
    set(GgmlType::GGML_TYPE_Q5_K, vecDotQ5_KQ8_K, vecDotMultiLoop<vecDotQ5_KQ8_K>);
    set(GgmlType::GGML_TYPE_Q6_K, vecDotQ6_KQ8_K, vecDotMultiLoop<vecDotQ6_KQ8_K>);
    row(GgmlType::GGML_TYPE_F16).quantizeActivation = quantizeRowF16;
    row(GgmlType::GGML_TYPE_Q8_0).quantizeActivation = quantizeRowQ8_0;
    row(GgmlType::GGML_TYPE_Q8_K).quantizeActivation = quantizeRowQ8_K;
}

} // namespace burrow::quant::x86
