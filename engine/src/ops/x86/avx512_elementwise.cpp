// AVX-512 elementwise kernels (this file is compiled with AVX-512 F/BW/VL +
// VNNI on top of AVX2 + FMA + F16C; see x86_kernels.h). Internal linkage for
// everything but the fill function (see avx2_elementwise.cpp).
#include "ops/x86/x86_kernels.h"

#include "ops/generic/generic_kernels.h"
#include "ops/expf.h"

#include <immintrin.h>

namespace burrow::ops::x86 {

namespace {

// The scalar twin's sums in 8 double lanes (float products widened exactly),
// then its float steps 16 lanes at a time.
void rmsNormAvx512(const float *x, const float *w, float *y, int64_t n, float eps)
{
    __m512d acc0 = _mm512_setzero_pd(), acc1 = _mm512_setzero_pd();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 v = _mm512_loadu_ps(x + i);
        const __m512 sq = _mm512_mul_ps(v, v);
        acc0 = _mm512_add_pd(acc0, _mm512_cvtps_pd(_mm512_castps512_ps256(sq)));
        acc1 = _mm512_add_pd(acc1, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(sq), 1))));
    }
    double sum = _mm512_reduce_add_pd(_mm512_add_pd(acc0, acc1));
    for (int64_t k = i; k < n; ++k)
        sum += static_cast<double>(x[k] * x[k]);
    const float mean = static_cast<float>(sum / static_cast<double>(n));
    const float scale = 1.0f / __builtin_sqrtf(mean + eps);
    const __m512 s = _mm512_set1_ps(scale);
    for (i = 0; i + 16 <= n; i += 16)
        _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_mul_ps(_mm512_loadu_ps(x + i), s), _mm512_loadu_ps(w + i)));
    for (; i < n; ++i)
        y[i] = (x[i] * scale) * w[i];
}

// ggml_vec_swiglu_f32: 16 lanes with vexpf512 for the first n & ~15
// elements, the scalar leftover form for the rest (the scalar twin's steps).
void swigluAvx512(const float *gate, const float *up, float *out, int64_t n)
{
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 g = _mm512_loadu_ps(gate + i);
        const __m512 e = simd::vexpf512(_mm512_sub_ps(_mm512_setzero_ps(), g));
        const __m512 silu = _mm512_div_ps(g, _mm512_add_ps(_mm512_set1_ps(1.0f), e));
        _mm512_storeu_ps(out + i, _mm512_mul_ps(silu, _mm512_loadu_ps(up + i)));
    }
    generic::swigluTail(gate + i, up + i, out + i, n - i);
}

// ggml_vec_geglu_f32's table form, 16 lanes: the gate rounded to half
// (vcvtps2ph, to nearest even, as the scalar twin's f32ToF16), the table
// entry gathered, times up; gate >= 10 gives gate * up and gate <= -10 an
// exact +0. A group holding a NaN gate goes through the scalar twin (its
// half NaN pattern is the twin's business).
void gegluAvx512(const float *gate, const float *up, float *out, int64_t n)
{
    const float *table = generic::geluTable();
    const __m512 lo = _mm512_set1_ps(-10.0f), hi = _mm512_set1_ps(10.0f);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 g = _mm512_loadu_ps(gate + i);
        if (_mm512_cmp_ps_mask(g, g, _CMP_UNORD_Q) != 0) {
            generic::geglu(gate + i, up + i, out + i, 16);
            continue;
        }
        const __m256i h = _mm512_cvtps_ph(g, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        __m512 gl = _mm512_i32gather_ps(_mm512_cvtepu16_epi32(h), table, 4);
        gl = _mm512_mask_mov_ps(gl, _mm512_cmp_ps_mask(g, hi, _CMP_GE_OQ), g);
        const __m512 r = _mm512_mul_ps(gl, _mm512_loadu_ps(up + i));
        _mm512_storeu_ps(out + i, _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(g, lo, _CMP_LE_OQ), _mm512_setzero_ps()));
    }
    generic::geglu(gate + i, up + i, out + i, n - i);
}

} // namespace

void fillAvx512Elementwise(Kernels &k)
{
    k.rmsNorm = rmsNormAvx512;
    k.swiglu = swigluAvx512;
    k.geglu = gegluAvx512;
}

} // namespace burrow::ops::x86
