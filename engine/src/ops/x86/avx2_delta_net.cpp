// The Gated DeltaNet kernels with AVX2 + FMA (x86/delta_net_simd.h).
#include "ops/x86/x86_kernels.h"

#include "ops/generic/generic_kernels.h"
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

void stepAvx2(float *M, const float *q, const float *k, const float *v, float decay, float beta, float scale, float *out,
              int S)
{
    if (S % Avx2::W != 0)
        return generic::deltaNetStep(M, q, k, v, decay, beta, scale, out, S);
    deltaNetStepW<Avx2>(M, q, k, v, decay, beta, scale, out, S);
}

void chunkAvx2(float *M, const float *q, const float *k, int64_t qkStride, const float *v, int64_t vStride,
               const float *g, const float *beta, int64_t gStride, float scale, float *out, int64_t outStride, int n,
               int S, float *scratch)
{
    if (S % Avx2::W != 0)
        return generic::deltaNetChunk(M, q, k, qkStride, v, vStride, g, beta, gStride, scale, out, outStride, n, S,
                                      scratch);
    deltaNetChunkW<Avx2>(M, q, k, qkStride, v, vStride, g, beta, gStride, scale, out, outStride, n, S, scratch);
}

} // namespace

void fillAvx2DeltaNet(Kernels &k)
{
    k.deltaNetStep = stepAvx2;
    k.deltaNetChunk = chunkAvx2;
}

} // namespace burrow::ops::x86
