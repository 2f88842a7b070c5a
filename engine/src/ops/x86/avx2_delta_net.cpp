// The Gated DeltaNet kernels with AVX2 + FMA (x86/delta_net_simd.h).
#include "ops/x86/x86_kernels.h"

#include "ops/x86/delta_net_simd.h"

#include <immintrin.h>

namespace burrow::ops::x86 {

namespace {

struct Avx2 {
    using R = __m256;
    static constexpr int W = 8;
    static R zero() { return _mm256_setzero_ps(); }
    static R set1(float x) { return _mm256_set1_ps(x); }
    static R load(const float *p) { return _mm256_loadu_ps(p); }
    static void store(float *p, R v) { _mm256_storeu_ps(p, v); }
    static R mul(R a, R b) { return _mm256_mul_ps(a, b); }
    static R fmadd(R a, R b, R c) { return _mm256_fmadd_ps(a, b, c); }
    static float reduce(R v)
    {
        const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        const __m128 h = _mm_add_ps(s, _mm_movehl_ps(s, s));
        return _mm_cvtss_f32(_mm_add_ss(h, _mm_shuffle_ps(h, h, 1)));
    }
};

} // namespace

void fillAvx2DeltaNet(Kernels &k)
{
    k.deltaNetStep = deltaNetStepOrTwin<Avx2>;
    k.deltaNetChunk = deltaNetChunkOrTwin<Avx2>;
}

} // namespace burrow::ops::x86
