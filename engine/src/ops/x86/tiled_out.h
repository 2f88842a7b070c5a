// The tiled attention kernels' last step, vectorized (ops::tiledFinish
// states it): for each query i, out = (acc_i * scale) * (1 / S), acc_i the
// dv floats of query i in acc (dv apart), in that order of multiplies, as
// the scalar twin. Only for the x86/ files, compiled with AVX2 (256) or
// also AVX-512F (512); internal linkage (static inline), see x86_kernels.h.
#pragma once

#include "ops/flash_attention.h"

#include <immintrin.h>

#include <cstddef>

namespace burrow::ops::x86::simd {

// dv a multiple of 8.
static inline void tiledOut256(const float *acc, int dv, const float *M, const float *S, const TileQuery *queries, int nq)
{
    for (int i = 0; i < nq; ++i) {
        const float *a = acc + static_cast<size_t>(i) * static_cast<size_t>(dv);
        float scale, inv;
        tiledFinish(M[i], S[i], queries[i].sink, scale, inv);
        for (int d = 0; d < dv; d += 8) {
            __m256 o = _mm256_loadu_ps(a + d);
            if (scale != 1.0f)
                o = _mm256_mul_ps(o, _mm256_set1_ps(scale));
            _mm256_storeu_ps(queries[i].out + d, _mm256_mul_ps(o, _mm256_set1_ps(inv)));
        }
    }
}

#ifdef __AVX512F__
// Any dv (a partial last vector masked).
static inline void tiledOut512(const float *acc, int dv, const float *M, const float *S, const TileQuery *queries, int nq)
{
    for (int i = 0; i < nq; ++i) {
        const float *a = acc + static_cast<size_t>(i) * static_cast<size_t>(dv);
        float scale, inv;
        tiledFinish(M[i], S[i], queries[i].sink, scale, inv);
        for (int d = 0; d < dv; d += 16) {
            const __mmask16 keep = static_cast<__mmask16>(dv - d >= 16 ? 0xFFFFu : (1u << (dv - d)) - 1u);
            __m512 o = _mm512_maskz_loadu_ps(keep, a + d);
            if (scale != 1.0f)
                o = _mm512_mul_ps(o, _mm512_set1_ps(scale));
            _mm512_mask_storeu_ps(queries[i].out + d, keep, _mm512_mul_ps(o, _mm512_set1_ps(inv)));
        }
    }
}
#endif

} // namespace burrow::ops::x86::simd
