// e^x as the reference engine's vector code computes it (ggml_v_expf of its
// AVX-512 build, the ARM optimized-routines polynomial), in one scalar and
// two vector forms that give the same bits lane for lane:
//
//   z = fma(x, 0x1.715476p+0, 0x1.8p23); n = z - 0x1.8p23          (round(x / ln2))
//   b = fma(-n, 0x1.7f7d1cp-20, fma(-n, 0x1.62e4p-1, x)); u = b * b
//   j = fma(fma(fma(0x1.0e4020p-7, b, 0x1.573e2ep-5), u, fma(0x1.555e66p-3, b, 0x1.fffdb6p-2)),
//           u, fma(0x1.ffffecp-1, b, 1))
//   e^x = j * 2^n (one rounding, as vscalefps), or for |n| > 192: 0 when n <= 0, +inf otherwise
//
// NaN in gives NaN out. The reference uses it for SwiGLU (the first n & ~15
// elements of a row), the tiled flash-attention softmax and soft_max; callers
// that must match the reference use exactly this function (not libm's expf,
// which the reference uses for the scalar leftovers).
//
//   vexpf(float)           any file (std::fma: exact on every CPU)
//   x86::simd::vexpf512    files compiled with AVX-512F
//   x86::simd::vexpf256    files compiled with AVX2 + FMA (2^n as two exact
//                          power-of-two factors: the same single rounding)
//
// Header only, internal linkage (static inline), so each instruction-set file
// keeps its own copy (see ops/x86/x86_kernels.h).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace burrow::ops {

namespace expf_detail {
inline constexpr float kShift = 0x1.8p23f;
inline constexpr float kInvLn2 = 0x1.715476p+0f;
inline constexpr float kLn2Hi = 0x1.62e4p-1f;
inline constexpr float kLn2Lo = 0x1.7f7d1cp-20f;
inline constexpr float kC0 = 0x1.0e4020p-7f;
inline constexpr float kC1 = 0x1.573e2ep-5f;
inline constexpr float kC2 = 0x1.555e66p-3f;
inline constexpr float kC3 = 0x1.fffdb6p-2f;
inline constexpr float kC4 = 0x1.ffffecp-1f;
inline constexpr float kBig = 192.0f;
} // namespace expf_detail

static inline float vexpf(float x)
{
    using namespace expf_detail;
    const float z = std::fma(x, kInvLn2, kShift);
    const float n = z - kShift;
    const float b = std::fma(-n, kLn2Lo, std::fma(-n, kLn2Hi, x));
    const float u = b * b;
    const float j = std::fma(std::fma(std::fma(kC0, b, kC1), u, std::fma(kC2, b, kC3)), u, std::fma(kC4, b, 1.0f));
    if (std::fabs(n) > kBig)
        return n <= 0.0f ? 0.0f : HUGE_VALF;
    if (n != n)
        return n;   // NaN
    // j * 2^n with one rounding: |n| <= 192, so as two exact power-of-two
    // factors of at most 2^96 each (the first product stays normal).
    const int ni = static_cast<int>(n);
    const int n1 = ni / 2, n2 = ni - n1;
    const auto pow2 = [](int e) {
        const uint32_t bits = static_cast<uint32_t>(e + 127) << 23;
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return f;
    };
    return (j * pow2(n1)) * pow2(n2);
}

} // namespace burrow::ops

namespace burrow::ops::x86::simd {

#if defined(__AVX512F__)
static inline __m512 vexpf512(__m512 x)
{
    using namespace burrow::ops::expf_detail;
    const __m512 r = _mm512_set1_ps(kShift);
    const __m512 z = _mm512_fmadd_ps(x, _mm512_set1_ps(kInvLn2), r);
    const __m512 n = _mm512_sub_ps(z, r);
    const __m512 b = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Lo), _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Hi), x));
    const __mmask16 big = _mm512_cmp_ps_mask(_mm512_abs_ps(n), _mm512_set1_ps(kBig), _CMP_GT_OQ);
    const __m512 u = _mm512_mul_ps(b, b);
    const __m512 j = _mm512_fmadd_ps(
        _mm512_fmadd_ps(_mm512_fmadd_ps(_mm512_set1_ps(kC0), b, _mm512_set1_ps(kC1)), u,
                        _mm512_fmadd_ps(_mm512_set1_ps(kC2), b, _mm512_set1_ps(kC3))),
        u, _mm512_fmadd_ps(_mm512_set1_ps(kC4), b, _mm512_set1_ps(1.0f)));
    const __m512 res = _mm512_scalef_ps(j, n);
    if (big == 0)
        return res;
    const __m512 alt = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(n, _mm512_setzero_ps(), _CMP_LE_OQ),
                                            _mm512_set1_ps(HUGE_VALF), _mm512_setzero_ps());
    return _mm512_mask_blend_ps(big, res, alt);
}
#endif

#if defined(__AVX2__) && defined(__FMA__)
static inline __m256 vexpf256(__m256 x)
{
    using namespace burrow::ops::expf_detail;
    const __m256 r = _mm256_set1_ps(kShift);
    const __m256 z = _mm256_fmadd_ps(x, _mm256_set1_ps(kInvLn2), r);
    const __m256 n = _mm256_sub_ps(z, r);
    const __m256 b = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Lo), _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Hi), x));
    const __m256 absN = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), n);
    const __m256 big = _mm256_cmp_ps(absN, _mm256_set1_ps(kBig), _CMP_GT_OQ);
    const __m256 u = _mm256_mul_ps(b, b);
    const __m256 j = _mm256_fmadd_ps(
        _mm256_fmadd_ps(_mm256_fmadd_ps(_mm256_set1_ps(kC0), b, _mm256_set1_ps(kC1)), u,
                        _mm256_fmadd_ps(_mm256_set1_ps(kC2), b, _mm256_set1_ps(kC3))),
        u, _mm256_fmadd_ps(_mm256_set1_ps(kC4), b, _mm256_set1_ps(1.0f)));
    // 2^n as 2^n1 * 2^n2 (n1 = trunc(n / 2)): exact factors, one rounding
    // in the last product, as vscalefps. Lanes with |n| > 192 or NaN are
    // replaced below (their integer conversion is garbage but harmless).
    const __m256i ni = _mm256_cvttps_epi32(_mm256_blendv_ps(n, _mm256_setzero_ps(), big));
    const __m256i n1 = _mm256_srai_epi32(_mm256_add_epi32(ni, _mm256_srli_epi32(ni, 31)), 1);   // ni / 2 toward zero
    const __m256i n2 = _mm256_sub_epi32(ni, n1);
    const __m256i bias = _mm256_set1_epi32(127);
    const __m256 p1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, bias), 23));
    const __m256 p2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, bias), 23));
    __m256 res = _mm256_mul_ps(_mm256_mul_ps(j, p1), p2);
    res = _mm256_blendv_ps(res, n, _mm256_cmp_ps(n, n, _CMP_UNORD_Q));   // NaN stays NaN
    if (_mm256_movemask_ps(big) == 0)
        return res;
    const __m256 alt = _mm256_blendv_ps(_mm256_set1_ps(HUGE_VALF), _mm256_setzero_ps(),
                                        _mm256_cmp_ps(n, _mm256_setzero_ps(), _CMP_LE_OQ));
    return _mm256_blendv_ps(res, alt, big);
}
#endif

} // namespace burrow::ops::x86::simd
