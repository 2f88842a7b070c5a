// The Gated DeltaNet kernels with AVX-512F (x86/delta_net_simd.h).
#include "ops/x86/x86_kernels.h"

#include "ops/x86/delta_net_simd.h"

#include <immintrin.h>

namespace burrow::ops::x86 {

namespace {

struct Avx512 {
    using R = __m512;
    static constexpr int W = 16;
    static R zero() { return _mm512_setzero_ps(); }
    static R set1(float x) { return _mm512_set1_ps(x); }
    static R load(const float *p) { return _mm512_loadu_ps(p); }
    static void store(float *p, R v) { _mm512_storeu_ps(p, v); }
    static R mul(R a, R b) { return _mm512_mul_ps(a, b); }
    static R fmadd(R a, R b, R c) { return _mm512_fmadd_ps(a, b, c); }
    static float reduce(R v) { return _mm512_reduce_add_ps(v); }
};

} // namespace

void fillAvx512DeltaNet(Kernels &k)
{
    k.deltaNetStep = deltaNetStepOrTwin<Avx512>;
    k.deltaNetChunk = deltaNetChunkOrTwin<Avx512>;
}

} // namespace burrow::ops::x86
