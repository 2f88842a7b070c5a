// e^x for vectors of floats, shared by the SIMD kernels of ops/x86 (softmax
// in attention, SwiGLU). x = n ln2 + r with |r| <= ln2 / 2, e^r by the
// Cephes expf polynomial (within about 1 ulp, as libm's expf), times 2^n;
// the ends as expf gives them: 0 below -87.34 (and for -inf), +inf above
// 88.72. Only for the x86/ files, which are compiled with AVX2 + FMA (exp256)
// or also AVX-512F (exp512). Internal linkage (static inline), see
// x86_kernels.h.
#pragma once

#include <immintrin.h>

namespace burrow::ops::x86::simd {

inline constexpr float kExpHi = 88.7228391f;    // above: +inf
inline constexpr float kExpLo = -87.3365448f;   // below: 0

#ifdef __AVX512F__
// 16 lanes (AVX-512F): 2^n by vscalefps.
static inline __m512 exp512(__m512 x)
{
    const __m512 xc = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(kExpLo)), _mm512_set1_ps(kExpHi));
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(xc, _mm512_set1_ps(1.44269504088896341f)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), xc);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
    __m512 v = _mm512_scalef_ps(p, n);
    v = _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(x, _mm512_set1_ps(kExpHi), _CMP_GT_OQ),
                           _mm512_set1_ps(__builtin_inff()));
    return _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(x, _mm512_set1_ps(kExpLo), _CMP_LT_OQ), _mm512_setzero_ps());
}
#endif

// 2^e for integer lanes e in [-126, 127], built in the exponent bits.
static inline __m256 pow2i256(__m256i e)
{
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(e, _mm256_set1_epi32(127)), 23));
}

// 8 lanes (AVX2 + FMA): 2^n as two factors 2^(n/2) 2^(n - n/2), so n = 128
// (x near the top) stays a normal float.
static inline __m256 exp256(__m256 x)
{
    const __m256 hi = _mm256_set1_ps(kExpHi), lo = _mm256_set1_ps(kExpLo);
    const __m256 xc = _mm256_min_ps(_mm256_max_ps(x, lo), hi);
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(1.44269504088896341f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), xc);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.9875691500e-4f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    const __m256i ni = _mm256_cvtps_epi32(n);
    const __m256i n1 = _mm256_srai_epi32(ni, 1), n2 = _mm256_sub_epi32(ni, n1);
    __m256 v = _mm256_mul_ps(_mm256_mul_ps(p, pow2i256(n1)), pow2i256(n2));
    v = _mm256_blendv_ps(v, _mm256_set1_ps(__builtin_inff()), _mm256_cmp_ps(x, hi, _CMP_GT_OQ));
    return _mm256_blendv_ps(v, _mm256_setzero_ps(), _mm256_cmp_ps(x, lo, _CMP_LT_OQ));
}

} // namespace burrow::ops::x86::simd
