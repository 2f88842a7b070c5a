// AVX-512 attention kernels (this file is compiled with AVX-512 F/BW/VL +
// VNNI on top of AVX2 + FMA + F16C; see x86_kernels.h and attention_kernels.h
// for the contract). Internal linkage for everything but the fill function,
// no std:: inline function (see avx2_elementwise.cpp).
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

inline __m512 loadHalves16(const uint16_t *p)
{
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)));
}

inline __m512 loadHalvesMasked(const uint16_t *p, int n)
{
    const __mmask16 m = static_cast<__mmask16>((1u << n) - 1u);
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, p));
}

// probs[j] = f16(exp(scores[j] - maxScore) / sum) for j in [first, last],
// sum = the exponentials' sum + expf(sink - maxScore) when there is a sink
// (maxScore then includes it); scores[] is overwritten with the exponentials.
void softmaxAvx512(const AttentionHead &h, float *scores, float maxScore, float sink, uint16_t *probs)
{
    const __m512 vmax = _mm512_set1_ps(maxScore);
    __m512 vsum = _mm512_setzero_ps();
    uint32_t j = h.first;
    for (; j + 16 <= h.last + 1; j += 16) {
        const __m512 e = simd::exp512(_mm512_sub_ps(_mm512_loadu_ps(scores + j), vmax));
        _mm512_storeu_ps(scores + j, e);
        vsum = _mm512_add_ps(vsum, e);
    }
    if (j <= h.last) {
        const __mmask16 m = static_cast<__mmask16>((1u << (h.last + 1 - j)) - 1u);
        const __m512 e = simd::exp512(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, scores + j), vmax));
        _mm512_mask_storeu_ps(scores + j, m, e);
        vsum = _mm512_add_ps(vsum, _mm512_maskz_mov_ps(m, e));
    }
    float sum = _mm512_reduce_add_ps(vsum);
    if (sink > kNoSink)
        sum += __builtin_expf(sink - maxScore);
    const float inv = 1.0f / sum;
    const __m512 vinv = _mm512_set1_ps(inv);
    for (j = h.first; j + 16 <= h.last + 1; j += 16)
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(probs + j),
                            _mm512_cvtps_ph(_mm512_mul_ps(_mm512_loadu_ps(scores + j), vinv), _MM_FROUND_TO_NEAREST_INT));
    for (; j <= h.last; ++j)
        probs[j] = f32ToF16(scores[j] * inv);
}

void attendHeadAvx512(const AttentionHead &h, const float *q, float *scores, uint16_t *probs, float *out)
{
    const int dk = h.dk, dv = h.dv;
    const int dkFull = dk & ~15, dvFull = dv & ~15;
    float maxScore = -__builtin_inff();
    for (uint32_t j = h.first; j <= h.last; ++j) {
        const uint16_t *kj = h.k + kvCell(h.blocks, j) * h.kStride;
        __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
        int d = 0;
        for (; d + 32 <= dkFull; d += 32) {
            acc0 = _mm512_fmadd_ps(loadHalves16(kj + d), _mm512_loadu_ps(q + d), acc0);
            acc1 = _mm512_fmadd_ps(loadHalves16(kj + d + 16), _mm512_loadu_ps(q + d + 16), acc1);
        }
        for (; d < dkFull; d += 16)
            acc0 = _mm512_fmadd_ps(loadHalves16(kj + d), _mm512_loadu_ps(q + d), acc0);
        if (d < dk) {
            const __mmask16 m = static_cast<__mmask16>((1u << (dk - d)) - 1u);
            acc1 = _mm512_fmadd_ps(loadHalvesMasked(kj + d, dk - d), _mm512_maskz_loadu_ps(m, q + d), acc1);
        }
        float s = _mm512_reduce_add_ps(_mm512_add_ps(acc0, acc1));
        if (h.softcap != 0.0f)
            s = __builtin_tanhf(s * (1.0f / h.softcap)) * h.softcap;
        s *= h.scale;
        scores[j] = s;
        maxScore = maxOf(maxScore, s);
    }

    if (h.sink > kNoSink)
        maxScore = maxOf(maxScore, h.sink);
    softmaxAvx512(h, scores, maxScore, h.sink, probs);

    // out = sum_j p_j V_j, 64 outputs (4 registers) at a time.
    for (int d0 = 0; d0 < dvFull; d0 += 64) {
        const int blocks = minOf(4, (dvFull - d0) / 16);
        __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps(), a2 = _mm512_setzero_ps(), a3 = _mm512_setzero_ps();
        for (uint32_t jj = h.first; jj <= h.last; ++jj) {
            const uint16_t *vj = h.v + kvCell(h.blocks, jj) * h.vStride + d0;
            const __m512 p = _mm512_set1_ps(_cvtsh_ss(probs[jj]));
            a0 = _mm512_fmadd_ps(p, loadHalves16(vj), a0);
            if (blocks > 1) a1 = _mm512_fmadd_ps(p, loadHalves16(vj + 16), a1);
            if (blocks > 2) a2 = _mm512_fmadd_ps(p, loadHalves16(vj + 32), a2);
            if (blocks > 3) a3 = _mm512_fmadd_ps(p, loadHalves16(vj + 48), a3);
        }
        _mm512_storeu_ps(out + d0, a0);
        if (blocks > 1) _mm512_storeu_ps(out + d0 + 16, a1);
        if (blocks > 2) _mm512_storeu_ps(out + d0 + 32, a2);
        if (blocks > 3) _mm512_storeu_ps(out + d0 + 48, a3);
    }
    if (dvFull < dv) {
        const int nd = dv - dvFull;
        __m512 a = _mm512_setzero_ps();
        for (uint32_t jj = h.first; jj <= h.last; ++jj)
            a = _mm512_fmadd_ps(_mm512_set1_ps(_cvtsh_ss(probs[jj])), loadHalvesMasked(h.v + kvCell(h.blocks, jj) * h.vStride + dvFull, nd), a);
        _mm512_mask_storeu_ps(out + dvFull, static_cast<__mmask16>((1u << nd) - 1u), a);
    }
}

// Sums of 4 registers: s[g] = sum of the 16 lanes of a[g].
inline void reduce4(const __m512 a[4], float s[4])
{
    const __m512 t0 = _mm512_add_ps(_mm512_shuffle_f32x4(a[0], a[1], 0x44), _mm512_shuffle_f32x4(a[0], a[1], 0xEE));
    const __m512 t1 = _mm512_add_ps(_mm512_shuffle_f32x4(a[2], a[3], 0x44), _mm512_shuffle_f32x4(a[2], a[3], 0xEE));
    const __m512 u = _mm512_add_ps(_mm512_shuffle_f32x4(t0, t1, 0x88), _mm512_shuffle_f32x4(t0, t1, 0xDD));
    const __m512 v = _mm512_add_ps(u, _mm512_permute_ps(u, 0x4E));
    const __m512 w = _mm512_add_ps(v, _mm512_permute_ps(v, 0xB1));
    alignas(64) float tmp[16];
    _mm512_store_ps(tmp, w);
    s[0] = tmp[0];
    s[1] = tmp[4];
    s[2] = tmp[8];
    s[3] = tmp[12];
}

// G heads sharing one KV head, dk = dv = 16 C: each key and value row is
// loaded and converted once for all G heads.
template <int G, int C>
void attendGroupAvx512(const AttentionHead &h, const float *const *q, float *const *out, float *scores,
                       size_t scoresStride, uint16_t *probs, size_t probsStride, const float *sinks)
{
    float maxScore[G];
    for (int g = 0; g < G; ++g)
        maxScore[g] = -__builtin_inff();
    for (uint32_t j = h.first; j <= h.last; ++j) {
        const uint16_t *kj = h.k + kvCell(h.blocks, j) * h.kStride;
        __m512 kc[C];
        for (int c = 0; c < C; ++c)
            kc[c] = loadHalves16(kj + 16 * c);
        __m512 acc[G];
        for (int g = 0; g < G; ++g) {
            acc[g] = _mm512_mul_ps(kc[0], _mm512_loadu_ps(q[g]));
            for (int c = 1; c < C; ++c)
                acc[g] = _mm512_fmadd_ps(kc[c], _mm512_loadu_ps(q[g] + 16 * c), acc[g]);
        }
        float s[G];
        if constexpr (G == 4) {
            reduce4(acc, s);
        } else {
            for (int g = 0; g < G; ++g)
                s[g] = _mm512_reduce_add_ps(acc[g]);
        }
        for (int g = 0; g < G; ++g) {
            float sg = s[g];
            if (h.softcap != 0.0f)
                sg = __builtin_tanhf(sg * (1.0f / h.softcap)) * h.softcap;
            sg *= h.scale;
            scores[g * scoresStride + j] = sg;
            maxScore[g] = maxOf(maxScore[g], sg);
        }
    }
    for (int g = 0; g < G; ++g) {
        const float sink = sinks ? sinks[g] : h.sink;
        if (sink > kNoSink)
            maxScore[g] = maxOf(maxScore[g], sink);
        softmaxAvx512(h, scores + g * scoresStride, maxScore[g], sink, probs + g * probsStride);
    }

    __m512 a[G][C];
    for (int g = 0; g < G; ++g)
        for (int c = 0; c < C; ++c)
            a[g][c] = _mm512_setzero_ps();
    for (uint32_t j = h.first; j <= h.last; ++j) {
        const uint16_t *vj = h.v + kvCell(h.blocks, j) * h.vStride;
        __m512 vc[C];
        for (int c = 0; c < C; ++c)
            vc[c] = loadHalves16(vj + 16 * c);
        for (int g = 0; g < G; ++g) {
            const __m512 p = _mm512_set1_ps(_cvtsh_ss(probs[g * probsStride + j]));
            for (int c = 0; c < C; ++c)
                a[g][c] = _mm512_fmadd_ps(p, vc[c], a[g][c]);
        }
    }
    for (int g = 0; g < G; ++g)
        for (int c = 0; c < C; ++c)
            _mm512_storeu_ps(out[g] + 16 * c, a[g][c]);
}

// The grouped kernel for (nHeads, head size) when one exists; false otherwise.
bool attendGroupAvx512Dispatch(const AttentionHead &h, int nHeads, const float *const *q, float *const *out,
                               float *scores, size_t scoresStride, uint16_t *probs, size_t probsStride,
                               const float *sinks)
{
    if (h.dk != h.dv)
        return false;
    if (h.dk == 64) {
        switch (nHeads) {
        case 4: attendGroupAvx512<4, 4>(h, q, out, scores, scoresStride, probs, probsStride, sinks); return true;
        case 3: attendGroupAvx512<3, 4>(h, q, out, scores, scoresStride, probs, probsStride, sinks); return true;
        case 2: attendGroupAvx512<2, 4>(h, q, out, scores, scoresStride, probs, probsStride, sinks); return true;
        default: return false;
        }
    }
    if (h.dk == 128 && nHeads == 2) {
        attendGroupAvx512<2, 8>(h, q, out, scores, scoresStride, probs, probsStride, sinks);
        return true;
    }
    return false;
}


// ---- blocked queries (AVX-512) ----

// Lane i of the result = the sum of the 16 lanes of a[i] (16 dot products
// finished at once: pairwise swaps of halves, quarters, ...).
inline __m512 transposeSum16(__m512 a[16])
{
    // Step 1: 256-bit halves: pairs (i, i+8).
    for (int i = 0; i < 8; ++i) {
        const __m512 lo = _mm512_shuffle_f32x4(a[i], a[i + 8], 0x44);   // a_i.lo256 | a_{i+8}.lo256
        const __m512 hi = _mm512_shuffle_f32x4(a[i], a[i + 8], 0xEE);
        a[i] = _mm512_add_ps(lo, hi);   // lanes 0-7: a_i partial, 8-15: a_{i+8} partial
    }
    // Step 2: 128-bit quarters: pairs (i, i+4).
    for (int i = 0; i < 4; ++i) {
        const __m512 lo = _mm512_shuffle_f32x4(a[i], a[i + 4], 0x88);   // q0,q2 of a_i | q0,q2 of a_{i+4}
        const __m512 hi = _mm512_shuffle_f32x4(a[i], a[i + 4], 0xDD);
        a[i] = _mm512_add_ps(lo, hi);
    }
    // Step 3: 64-bit pairs within 128-bit lanes: (i, i+2).
    for (int i = 0; i < 2; ++i) {
        const __m512 lo = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(a[i]), _mm512_castps_pd(a[i + 2])));
        const __m512 hi = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(a[i]), _mm512_castps_pd(a[i + 2])));
        a[i] = _mm512_add_ps(lo, hi);
    }
    // Step 4: 32-bit: (0, 1).
    const __m512 lo = _mm512_shuffle_ps(a[0], a[1], 0x88);
    const __m512 hi = _mm512_shuffle_ps(a[0], a[1], 0xDD);
    // Lanes now hold sums 0 2 1 3 8 10 9 11 4 6 5 7 12 14 13 15: put them in order.
    const __m512i order = _mm512_setr_epi32(0, 2, 1, 3, 8, 10, 9, 11, 4, 6, 5, 7, 12, 14, 13, 15);
    return _mm512_permutexvar_ps(order, _mm512_add_ps(lo, hi));
}

template <int C>
void attendBlockAvx512(const AttentionBlock &b, float *scratch)
{
    const int nq = b.nq;
    // Lanes past nq run on a zero query and write to a dummy row, so every
    // loop below has 16 lanes known at compile time (accumulators stay in
    // registers); their scores are masked, so their probabilities are 0.
    alignas(64) float zeros[16 * C] = {};
    alignas(64) float dummy[16 * C];
    const float *q[16];
    float *out[16];
    for (int i = 0; i < 16; ++i) {
        q[i] = i < nq ? b.q[i] : zeros;
        out[i] = i < nq ? b.out[i] : dummy;
    }
    uint32_t lo = b.first[0], hi = b.last[0];
    alignas(64) float firstF[16], lastF[16], sinkF[16];
    bool anySink = false;
    for (int i = 0; i < 16; ++i) {
        const int src = i < nq ? i : 0;
        lo = minOf(lo, b.first[src]);
        hi = maxOf(hi, b.last[src]);
        firstF[i] = static_cast<float>(b.first[src]);   // positions < 2^24: exact
        lastF[i] = static_cast<float>(b.last[src]);
        sinkF[i] = i < nq && b.sink[i] > kNoSink ? b.sink[i] : kNoSink;
        anySink = anySink || sinkF[i] > kNoSink;
    }
    const __m512 vFirst = _mm512_load_ps(firstF), vLast = _mm512_load_ps(lastF);
    const __mmask16 live = static_cast<__mmask16>((1u << nq) - 1u);
    const __m512 minusInf = _mm512_set1_ps(-__builtin_inff());
    const __m512 scale = _mm512_set1_ps(b.scale);
    float *S = scratch;                        // [key][16] scores, then exponentials
    float *P = scratch + 16 * (size_t(hi) + 1);   // [key][16] probabilities (as halves)

    // Scores, key-major; masked (query cannot see the key) lanes are -inf.
    __m512 vmax = minusInf;
    for (uint32_t j = lo; j <= hi; ++j) {
        const uint16_t *kj = b.k + kvCell(b.blocks, j) * b.kStride;
        __m512 kc[C];
        for (int c = 0; c < C; ++c)
            kc[c] = loadHalves16(kj + 16 * c);
        __m512 acc[16];
        for (int i = 0; i < 16; ++i) {
            acc[i] = _mm512_mul_ps(kc[0], _mm512_loadu_ps(q[i]));
            for (int c = 1; c < C; ++c)
                acc[i] = _mm512_fmadd_ps(kc[c], _mm512_loadu_ps(q[i] + 16 * c), acc[i]);
        }
        const __m512 jf = _mm512_set1_ps(static_cast<float>(j));
        const __mmask16 visible = _mm512_cmp_ps_mask(vFirst, jf, _CMP_LE_OQ) & _mm512_cmp_ps_mask(jf, vLast, _CMP_LE_OQ) & live;
        const __m512 s = _mm512_mask_mov_ps(minusInf, visible, _mm512_mul_ps(transposeSum16(acc), scale));
        _mm512_storeu_ps(S + 16 * size_t(j), s);
        vmax = _mm512_max_ps(vmax, s);
    }
    // Softmax per lane over the keys (every live query sees at least its own key).
    // A query's sink joins its maximum and its denominator (expf, as the scalar kernel).
    if (anySink)
        vmax = _mm512_max_ps(vmax, _mm512_load_ps(sinkF));
    vmax = _mm512_mask_mov_ps(_mm512_setzero_ps(), live, vmax);
    __m512 vsum = _mm512_setzero_ps();
    for (uint32_t j = lo; j <= hi; ++j) {
        const __m512 e = simd::exp512(_mm512_sub_ps(_mm512_loadu_ps(S + 16 * size_t(j)), vmax));   // -inf -> 0
        _mm512_storeu_ps(S + 16 * size_t(j), e);
        vsum = _mm512_add_ps(vsum, e);
    }
    if (anySink) {
        alignas(64) float maxF[16], sinkE[16];
        _mm512_store_ps(maxF, vmax);
        for (int i = 0; i < 16; ++i)
            sinkE[i] = sinkF[i] > kNoSink ? __builtin_expf(sinkF[i] - maxF[i]) : 0.0f;
        vsum = _mm512_add_ps(vsum, _mm512_load_ps(sinkE));
    }
    const __m512 vinv = _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_mask_mov_ps(_mm512_set1_ps(1.0f), live, vsum));
    for (uint32_t j = lo; j <= hi; ++j) {
        const __m256i h16 = _mm512_cvtps_ph(_mm512_mul_ps(_mm512_loadu_ps(S + 16 * size_t(j)), vinv), _MM_FROUND_TO_NEAREST_INT);
        _mm512_storeu_ps(P + 16 * size_t(j), _mm512_cvtph_ps(h16));   // the half the reference keeps
    }
    // out_i = sum_j p_ij V_j, one 16-wide chunk of V at a time for all queries.
    for (int c = 0; c < C; ++c) {
        __m512 o[16];
        for (int i = 0; i < 16; ++i)
            o[i] = _mm512_setzero_ps();
        for (uint32_t j = lo; j <= hi; ++j) {
            const __m512 vc = loadHalves16(b.v + kvCell(b.blocks, j) * b.vStride + 16 * c);
            const float *pj = P + 16 * size_t(j);
            for (int i = 0; i < 16; ++i)
                o[i] = _mm512_fmadd_ps(_mm512_set1_ps(pj[i]), vc, o[i]);
        }
        for (int i = 0; i < 16; ++i)
            _mm512_storeu_ps(out[i] + 16 * c, o[i]);
    }
}

void attendHeadsAvx512(const AttentionHead &h, int nHeads, const float *const *q, float *const *out, float *scores,
                       size_t scoresStride, uint16_t *probs, size_t probsStride, const float *sinks)
{
    const int step = h.dk == 128 ? 2 : 4;   // heads per grouped call (accumulators fit the registers)
    AttentionHead one = h;
    for (int g = 0; g < nHeads;) {
        const int take = minOf(step, nHeads - g);
        if (!attendGroupAvx512Dispatch(h, take, q + g, out + g, scores + g * scoresStride, scoresStride,
                                       probs + g * probsStride, probsStride, sinks ? sinks + g : nullptr))
            for (int k = g; k < g + take; ++k) {
                if (sinks)
                    one.sink = sinks[k];
                attendHeadAvx512(one, q[k], scores + k * scoresStride, probs + k * probsStride, out[k]);
            }
        g += take;
    }
}

void attendBlockAvx512Any(const AttentionBlock &b, float *scratch)
{
    if (b.d == 64)
        attendBlockAvx512<4>(b, scratch);
    else
        attendBlockAvx512<8>(b, scratch);
}

} // namespace

void fillAvx512Attention(Kernels &k)
{
    k.attendHead = attendHeadAvx512;
    k.attendHeads = attendHeadsAvx512;
    k.attendBlock = attendBlockAvx512Any;
    k.attendBlockQueries = 16;
}

} // namespace burrow::ops::x86
