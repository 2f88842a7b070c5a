// AVX2 + FMA + F16C attention kernels (this file is compiled with -mavx2
// -mfma -mf16c; see x86_kernels.h and attention_kernels.h for the contract).
// Internal linkage for everything but the fill function, no std:: inline
// function (see avx2_elementwise.cpp). Scalar tails state their multiply-adds
// as fma, as the former target("fma") build contracted them.
#include "ops/x86/x86_kernels.h"

#include "ops/f16.h"
#include "ops/flash_attention.h"
#include "ops/x86/vec_exp.h"

#include <immintrin.h>

namespace burrow::ops::x86 {

namespace {

// std::max / std::min's comparisons, without their inline functions.
template <typename T>
inline T maxOf(T a, T b)
{
    return a < b ? b : a;
}
template <typename T>
inline T minOf(T a, T b)
{
    return b < a ? b : a;
}

inline __m256 loadHalves8(const uint16_t *p)
{
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
}

inline float hsum256(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

void attendHeadAvx2(const AttentionHead &h, const float *q, float *scores, uint16_t *probs, float *out)
{
    const float *f16 = f16Table();
    const int dk = h.dk, dv = h.dv;
    const int dkFull = dk & ~7, dvFull = dv & ~7;
    float maxScore = -__builtin_inff();
    for (uint32_t j = h.first; j <= h.last; ++j) {
        const uint16_t *kj = h.k + kvCell(h.blocks, j) * h.kStride;
        __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
        int d = 0;
        for (; d + 16 <= dkFull; d += 16) {
            acc0 = _mm256_fmadd_ps(loadHalves8(kj + d), _mm256_loadu_ps(q + d), acc0);
            acc1 = _mm256_fmadd_ps(loadHalves8(kj + d + 8), _mm256_loadu_ps(q + d + 8), acc1);
        }
        for (; d < dkFull; d += 8)
            acc0 = _mm256_fmadd_ps(loadHalves8(kj + d), _mm256_loadu_ps(q + d), acc0);
        float s = hsum256(_mm256_add_ps(acc0, acc1));
        for (; d < dk; ++d)
            s = __builtin_fmaf(f16[kj[d]], q[d], s);
        if (h.softcap != 0.0f)
            s = __builtin_tanhf(s * (1.0f / h.softcap)) * h.softcap;
        s *= h.scale;
        scores[j] = s;
        maxScore = maxOf(maxScore, s);
    }
    const bool hasSink = h.sink > kNoSink;
    if (hasSink)
        maxScore = maxOf(maxScore, h.sink);

    const __m256 vmax = _mm256_set1_ps(maxScore);
    __m256 vsum = _mm256_setzero_ps();
    float tail = 0.0f;
    uint32_t j = h.first;
    for (; j + 8 <= h.last + 1; j += 8) {
        const __m256 e = simd::exp256(_mm256_sub_ps(_mm256_loadu_ps(scores + j), vmax));
        _mm256_storeu_ps(scores + j, e);
        vsum = _mm256_add_ps(vsum, e);
    }
    for (; j <= h.last; ++j) {
        scores[j] = __builtin_expf(scores[j] - maxScore);
        tail += scores[j];
    }
    float sum = hsum256(vsum) + tail;
    if (hasSink)
        sum += __builtin_expf(h.sink - maxScore);
    const float inv = 1.0f / sum;
    const __m256 vinv = _mm256_set1_ps(inv);
    for (j = h.first; j + 8 <= h.last + 1; j += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i *>(probs + j),
                         _mm256_cvtps_ph(_mm256_mul_ps(_mm256_loadu_ps(scores + j), vinv), _MM_FROUND_TO_NEAREST_INT));
    for (; j <= h.last; ++j)
        probs[j] = f32ToF16(scores[j] * inv);

    for (int d0 = 0; d0 < dvFull; d0 += 32) {
        const int blocks = minOf(4, (dvFull - d0) / 8);
        __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps(), a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();
        for (uint32_t jj = h.first; jj <= h.last; ++jj) {
            const uint16_t *vj = h.v + kvCell(h.blocks, jj) * h.vStride + d0;
            const __m256 p = _mm256_set1_ps(f16[probs[jj]]);
            a0 = _mm256_fmadd_ps(p, loadHalves8(vj), a0);
            if (blocks > 1) a1 = _mm256_fmadd_ps(p, loadHalves8(vj + 8), a1);
            if (blocks > 2) a2 = _mm256_fmadd_ps(p, loadHalves8(vj + 16), a2);
            if (blocks > 3) a3 = _mm256_fmadd_ps(p, loadHalves8(vj + 24), a3);
        }
        _mm256_storeu_ps(out + d0, a0);
        if (blocks > 1) _mm256_storeu_ps(out + d0 + 8, a1);
        if (blocks > 2) _mm256_storeu_ps(out + d0 + 16, a2);
        if (blocks > 3) _mm256_storeu_ps(out + d0 + 24, a3);
    }
    for (int d = dvFull; d < dv; ++d) {
        float a = 0.0f;
        for (uint32_t jj = h.first; jj <= h.last; ++jj)
            a = __builtin_fmaf(f16[probs[jj]], f16[h.v[kvCell(h.blocks, jj) * h.vStride + d]], a);
        out[d] = a;
    }
}


// ---- blocked queries (AVX2: 8 query lanes) ----

// Lane i = the sum of the 8 lanes of a[i].
inline __m256 transposeSum8(__m256 a[8])
{
    for (int i = 0; i < 4; ++i)   // 128-bit halves: pairs (i, i+4)
        a[i] = _mm256_add_ps(_mm256_permute2f128_ps(a[i], a[i + 4], 0x20), _mm256_permute2f128_ps(a[i], a[i + 4], 0x31));
    for (int i = 0; i < 2; ++i) {   // 64-bit pairs: (i, i+2)
        const __m256 lo = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(a[i]), _mm256_castps_pd(a[i + 2])));
        const __m256 hi = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(a[i]), _mm256_castps_pd(a[i + 2])));
        a[i] = _mm256_add_ps(lo, hi);
    }
    const __m256 sum = _mm256_add_ps(_mm256_shuffle_ps(a[0], a[1], 0x88), _mm256_shuffle_ps(a[0], a[1], 0xDD));
    // Lanes hold sums 0 2 1 3 4 6 5 7: put them in order.
    return _mm256_permutevar8x32_ps(sum, _mm256_setr_epi32(0, 2, 1, 3, 4, 6, 5, 7));
}

template <int C>
void attendBlockAvx2(const AttentionBlock &b, float *scratch)
{
    const int nq = b.nq;
    alignas(32) float zeros[8 * C] = {};
    alignas(32) float dummy[8 * C];
    const float *q[8];
    float *out[8];
    alignas(32) float firstF[8], lastF[8], liveF[8], sinkF[8];
    bool anySink = false;
    uint32_t lo = b.first[0], hi = b.last[0];
    for (int i = 0; i < 8; ++i) {
        const int src = i < nq ? i : 0;
        q[i] = i < nq ? b.q[i] : zeros;
        out[i] = i < nq ? b.out[i] : dummy;
        lo = minOf(lo, b.first[src]);
        hi = maxOf(hi, b.last[src]);
        firstF[i] = static_cast<float>(b.first[src]);
        lastF[i] = static_cast<float>(b.last[src]);
        liveF[i] = i < nq ? 1.0f : 0.0f;
        sinkF[i] = i < nq && b.sink[i] > kNoSink ? b.sink[i] : kNoSink;
        anySink = anySink || sinkF[i] > kNoSink;
    }
    const __m256 vFirst = _mm256_load_ps(firstF), vLast = _mm256_load_ps(lastF);
    const __m256 live = _mm256_cmp_ps(_mm256_load_ps(liveF), _mm256_setzero_ps(), _CMP_NEQ_OQ);
    const __m256 minusInf = _mm256_set1_ps(-__builtin_inff());
    const __m256 scale = _mm256_set1_ps(b.scale);
    float *S = scratch;
    float *P = scratch + 8 * (size_t(hi) + 1);

    __m256 vmax = minusInf;
    for (uint32_t j = lo; j <= hi; ++j) {
        const uint16_t *kj = b.k + kvCell(b.blocks, j) * b.kStride;
        __m256 acc[8];
        for (int i = 0; i < 8; ++i)
            acc[i] = _mm256_setzero_ps();
        for (int c = 0; c < C; ++c) {
            const __m256 kc = loadHalves8(kj + 8 * c);
            for (int i = 0; i < 8; ++i)
                acc[i] = _mm256_fmadd_ps(kc, _mm256_loadu_ps(q[i] + 8 * c), acc[i]);
        }
        const __m256 jf = _mm256_set1_ps(static_cast<float>(j));
        const __m256 visible = _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(vFirst, jf, _CMP_LE_OQ), _mm256_cmp_ps(jf, vLast, _CMP_LE_OQ)), live);
        const __m256 sc = _mm256_blendv_ps(minusInf, _mm256_mul_ps(transposeSum8(acc), scale), visible);
        _mm256_storeu_ps(S + 8 * size_t(j), sc);
        vmax = _mm256_max_ps(vmax, sc);
    }
    if (anySink)
        vmax = _mm256_max_ps(vmax, _mm256_load_ps(sinkF));
    vmax = _mm256_blendv_ps(_mm256_setzero_ps(), vmax, live);
    __m256 vsum = _mm256_setzero_ps();
    for (uint32_t j = lo; j <= hi; ++j) {
        const __m256 e = simd::exp256(_mm256_sub_ps(_mm256_loadu_ps(S + 8 * size_t(j)), vmax));   // -inf -> 0
        _mm256_storeu_ps(S + 8 * size_t(j), e);
        vsum = _mm256_add_ps(vsum, e);
    }
    if (anySink) {
        // Each query's sink joins its denominator (expf, as the scalar kernel).
        alignas(32) float maxF[8], sinkE[8];
        _mm256_store_ps(maxF, vmax);
        for (int i = 0; i < 8; ++i)
            sinkE[i] = sinkF[i] > kNoSink ? __builtin_expf(sinkF[i] - maxF[i]) : 0.0f;
        vsum = _mm256_add_ps(vsum, _mm256_load_ps(sinkE));
    }
    const __m256 vinv = _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_blendv_ps(_mm256_set1_ps(1.0f), vsum, live));
    for (uint32_t j = lo; j <= hi; ++j) {
        const __m128i h8 = _mm256_cvtps_ph(_mm256_mul_ps(_mm256_loadu_ps(S + 8 * size_t(j)), vinv), _MM_FROUND_TO_NEAREST_INT);
        _mm256_storeu_ps(P + 8 * size_t(j), _mm256_cvtph_ps(h8));
    }
    for (int c = 0; c < C; ++c) {
        __m256 o[8];
        for (int i = 0; i < 8; ++i)
            o[i] = _mm256_setzero_ps();
        for (uint32_t j = lo; j <= hi; ++j) {
            const __m256 vc = loadHalves8(b.v + kvCell(b.blocks, j) * b.vStride + 8 * c);
            const float *pj = P + 8 * size_t(j);
            for (int i = 0; i < 8; ++i)
                o[i] = _mm256_fmadd_ps(_mm256_broadcast_ss(pj + i), vc, o[i]);
        }
        for (int i = 0; i < 8; ++i)
            _mm256_storeu_ps(out[i] + 8 * c, o[i]);
    }
}

void attendHeadsAvx2(const AttentionHead &h, int nHeads, const float *const *q, float *const *out, float *scores,
                     size_t scoresStride, uint16_t *probs, size_t probsStride, const float *sinks)
{
    AttentionHead one = h;
    for (int g = 0; g < nHeads; ++g) {
        if (sinks)
            one.sink = sinks[g];
        attendHeadAvx2(one, q[g], scores + g * scoresStride, probs + g * probsStride, out[g]);
    }
}

void attendBlockAvx2Any(const AttentionBlock &b, float *scratch)
{
    if (b.d == 64)
        attendBlockAvx2<8>(b, scratch);
    else
        attendBlockAvx2<16>(b, scratch);
}

} // namespace

void fillAvx2Attention(Kernels &k)
{
    k.attendHead = attendHeadAvx2;
    k.attendHeads = attendHeadsAvx2;
    k.attendBlock = attendBlockAvx2Any;
    k.attendBlockQueries = 8;
}

} // namespace burrow::ops::x86
