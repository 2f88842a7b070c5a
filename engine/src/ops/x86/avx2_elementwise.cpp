// AVX2 + FMA + F16C elementwise kernels (this file is compiled with -mavx2
// -mfma -mf16c; see x86_kernels.h). Everything here has internal linkage
// except the fill function, and no std:: inline function is used, so no AVX2
// code can be picked by the linker for scalar callers.
#include "ops/x86/x86_kernels.h"

#include "ops/f16.h"
#include "ops/generic/generic_kernels.h"
#include "ops/expf.h"

#include <immintrin.h>

namespace burrow::ops::x86 {

namespace {

// The scalar twin's sums in 4 double lanes (float products widened exactly),
// then its float steps 8 lanes at a time.
void rmsNormAvx2(const float *x, const float *w, float *y, int64_t n, float eps)
{
    __m256d acc0 = _mm256_setzero_pd(), acc1 = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        const __m256 sq = _mm256_mul_ps(v, v);
        acc0 = _mm256_add_pd(acc0, _mm256_cvtps_pd(_mm256_castps256_ps128(sq)));
        acc1 = _mm256_add_pd(acc1, _mm256_cvtps_pd(_mm256_extractf128_ps(sq, 1)));
    }
    alignas(32) double lanes[4];
    _mm256_store_pd(lanes, _mm256_add_pd(acc0, acc1));
    double sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    for (int64_t k = i; k < n; ++k)
        sum += static_cast<double>(x[k] * x[k]);
    const float mean = static_cast<float>(sum / static_cast<double>(n));
    const float scale = 1.0f / __builtin_sqrtf(mean + eps);
    const __m256 s = _mm256_set1_ps(scale);
    for (i = 0; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_mul_ps(_mm256_loadu_ps(x + i), s), _mm256_loadu_ps(w + i)));
    for (; i < n; ++i)
        y[i] = (x[i] * scale) * w[i];
}

// ggml_vec_swiglu_f32 of the reference's AVX-512 build, 8 lanes at a time:
// vexpf256 for the first n & ~15 elements, the scalar leftover form for the
// rest (the scalar twin's steps).
void swigluAvx2(const float *gate, const float *up, float *out, int64_t n)
{
    const int64_t nv = n & ~int64_t{15};
    int64_t i = 0;
    for (; i < nv; i += 8) {
        const __m256 g = _mm256_loadu_ps(gate + i);
        const __m256 e = simd::vexpf256(_mm256_sub_ps(_mm256_setzero_ps(), g));
        const __m256 silu = _mm256_div_ps(g, _mm256_add_ps(_mm256_set1_ps(1.0f), e));
        _mm256_storeu_ps(out + i, _mm256_mul_ps(silu, _mm256_loadu_ps(up + i)));
    }
    generic::swigluTail(gate + i, up + i, out + i, n - i);
}

// F16C rounds to nearest even like f32ToF16 (only NaN payloads may differ).
void f32ToF16RowF16c(const float *src, uint16_t *dst, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; ++i)
        dst[i] = f32ToF16(src[i]);
}

// ggml_vec_geglu_f32's table form, 8 lanes (as gegluAvx512): gate rounded
// to half by F16C, the table entry gathered, times up; gate >= 10 gives
// gate * up, gate <= -10 an exact +0; a group with a NaN gate goes through
// the scalar twin.
void gegluAvx2(const float *gate, const float *up, float *out, int64_t n)
{
    const float *table = generic::geluTable();
    const __m256 lo = _mm256_set1_ps(-10.0f), hi = _mm256_set1_ps(10.0f);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 g = _mm256_loadu_ps(gate + i);
        if (_mm256_movemask_ps(_mm256_cmp_ps(g, g, _CMP_UNORD_Q)) != 0) {
            generic::geglu(gate + i, up + i, out + i, 8);
            continue;
        }
        const __m128i h = _mm256_cvtps_ph(g, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        __m256 gl = _mm256_i32gather_ps(table, _mm256_cvtepu16_epi32(h), 4);
        gl = _mm256_blendv_ps(gl, g, _mm256_cmp_ps(g, hi, _CMP_GE_OQ));
        const __m256 r = _mm256_mul_ps(gl, _mm256_loadu_ps(up + i));
        _mm256_storeu_ps(out + i, _mm256_blendv_ps(r, _mm256_setzero_ps(), _mm256_cmp_ps(g, lo, _CMP_LE_OQ)));
    }
    generic::geglu(gate + i, up + i, out + i, n - i);
}

} // namespace

void fillAvx2Elementwise(Kernels &k)
{
    k.rmsNorm = rmsNormAvx2;
    k.swiglu = swigluAvx2;
    k.geglu = gegluAvx2;
    k.f32ToF16Row = f32ToF16RowF16c;
}

} // namespace burrow::ops::x86
