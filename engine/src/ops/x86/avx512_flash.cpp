// AVX-512 flash-attention kernels (ops/flash_attention.h has the contract
// and the rounding points; this file is compiled with AVX-512 F/BW/VL on top
// of AVX2 + FMA + F16C). Internal linkage for everything but the fill
// function and no std:: inline function (see x86_kernels.h).
#include "ops/x86/x86_kernels.h"

#include "ops/expf.h"
#include "ops/flash_attention.h"
#include "ops/generic/generic_kernels.h"
#include "ops/x86/vec_exp.h"
#include "ops/x86/tiled_out.h"
#include "quant/quant_blocks.h"

#include <algorithm>
#include <immintrin.h>

namespace burrow::ops::x86 {

namespace {

// Lanes [0, n) of a vector (n <= 0: none, n >= 16: all).
inline __mmask16 tailMask(int n)
{
    return static_cast<__mmask16>(n <= 0 ? 0u : n >= 16 ? 0xFFFFu : (1u << n) - 1u);
}

inline __m512 loadHalves(const uint16_t *p, int n)
{
    return n >= 16 ? _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)))
                   : _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(tailMask(n), p));
}

inline void storeHalves(uint16_t *p, __m512 v, int n)
{
    const __m256i h = _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    if (n >= 16)
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(p), h);
    else
        _mm256_mask_storeu_epi16(p, tailMask(n), h);
}

inline float scoreOf(const KvView &kv, float dot)
{
    if (kv.softcap != 0.0f)
        return kv.softcap * __builtin_tanhf(dot * (kv.scale / kv.softcap));
    return dot * kv.scale;
}

void attendOnlineAvx512(const KvView &kv, uint32_t first, uint32_t last, int nHeads, const float *const *q,
                        float *const *out, const float *sinks)
{
    const int dk = kv.dk, dv = kv.dv;
    alignas(64) float qf[kMaxOnlineHeads][kMaxFlashHeadDim];
    alignas(64) uint16_t acc[kMaxOnlineHeads][kMaxFlashHeadDim];
    float M[kMaxOnlineHeads], S[kMaxOnlineHeads], ms[kMaxOnlineHeads], vs[kMaxOnlineHeads];
    for (int g = 0; g < nHeads; ++g) {
        // q16 = f16(q), kept as floats.
        for (int d = 0; d < dk; d += 16) {
            const int n = dk - d;
            const __m512 x = n >= 16 ? _mm512_loadu_ps(q[g] + d) : _mm512_maskz_loadu_ps(tailMask(n), q[g] + d);
            const __m512 r = _mm512_cvtph_ps(_mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
            _mm512_mask_storeu_ps(qf[g] + d, tailMask(n), r);
        }
        for (int d = 0; d < dv; ++d)
            acc[g][d] = 0;
        M[g] = -__builtin_inff();
        S[g] = 0.0f;
    }
    for (uint32_t j = first; j <= last; ++j) {
        const size_t cell = kvCell(kv.blocks, j);
        const uint16_t *kj = kv.k + cell * kv.kStride, *vj = kv.v + cell * kv.vStride;
        // K . q16 in the reference's ggml_vec_dot_f16 order (flash_attention.h):
        // 4 accumulators over each 64 elements, (a0 + a2) + (a1 + a3), the
        // lanes halved; the tail (dk % 64) in double.
        __m512 dots[kMaxOnlineHeads][4];
        for (int g = 0; g < nHeads; ++g)
            for (int a = 0; a < 4; ++a)
                dots[g][a] = _mm512_setzero_ps();
        const int np = dk - dk % 64;
        for (int d = 0; d < np; d += 64)
            for (int a = 0; a < 4; ++a) {
                const __m512 kvec = loadHalves(kj + d + 16 * a, 16);
                for (int g = 0; g < nHeads; ++g)
                    dots[g][a] = _mm512_fmadd_ps(kvec, _mm512_loadu_ps(qf[g] + d + 16 * a), dots[g][a]);
            }
        for (int g = 0; g < nHeads; ++g) {
            const __m512 lanes = _mm512_add_ps(_mm512_add_ps(dots[g][0], dots[g][2]), _mm512_add_ps(dots[g][1], dots[g][3]));
            double dot = _mm512_reduce_add_ps(lanes);
            for (int d = np; d < dk; ++d)
                dot += static_cast<double>(_cvtsh_ss(kj[d]) * qf[g][d]);
            const float s = scoreOf(kv, static_cast<float>(dot));
            ms[g] = 1.0f;
            vs[g] = 1.0f;
            if (s > M[g]) {
                ms[g] = __builtin_expf(M[g] - s);
                M[g] = s;
            } else {
                vs[g] = __builtin_expf(s - M[g]);
            }
            S[g] = __builtin_fmaf(S[g], ms[g], vs[g]);   // the reference's S*ms + vs, contracted
        }
        for (int d = 0; d < dv; d += 16) {
            const int n = dv - d;
            const __m512 vvec = loadHalves(vj + d, n);
            for (int g = 0; g < nHeads; ++g) {
                __m512 a = loadHalves(acc[g] + d, n);
                if (ms[g] != 1.0f)   // a new maximum: acc = f16(acc ms) first (its own rounding)
                    a = _mm512_cvtph_ps(_mm512_cvtps_ph(_mm512_mul_ps(a, _mm512_set1_ps(ms[g])),
                                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
                storeHalves(acc[g] + d, _mm512_fmadd_ps(vvec, _mm512_set1_ps(vs[g]), a), n);
            }
        }
    }
    for (int g = 0; g < nHeads; ++g) {
        float scale = 1.0f;
        const float sink = sinks ? sinks[g] : kNoSink;
        if (sink > -__builtin_inff()) {
            if (sink > M[g]) {
                scale = __builtin_expf(M[g] - sink);
                S[g] = __builtin_fmaf(S[g], scale, 1.0f);
            } else {
                S[g] += __builtin_expf(sink - M[g]);
            }
        }
        const float inv = S[g] == 0.0f ? 0.0f : 1.0f / S[g];
        for (int d = 0; d < dv; d += 16) {
            const int n = dv - d;
            __m512 o = loadHalves(acc[g] + d, n);
            if (scale != 1.0f)
                o = _mm512_mul_ps(o, _mm512_set1_ps(scale));
            _mm512_mask_storeu_ps(out[g] + d, tailMask(n), _mm512_mul_ps(o, _mm512_set1_ps(inv)));
        }
    }
}

// attendTiled: the queries transposed (qt[d][i], query i in lane i % 16 of
// vector i / 16), a tile's keys and values converted to floats row by row,
// so the scores of one key for 16 queries are one vector: the QK products
// run 4 keys x up to 4 query vectors (16 registers) per pass over the
// query's dims, the mask, maxima, exponentials and sums run across the
// queries, and the PV products 4 queries x up to 64 value dims (16
// registers) per pass over the tile's keys. Each query's float steps are
// the scalar twin's, bit for bit (the K.q and p V fused multiply-adds in
// the same order, vexpf, the sums of 16 keys as the reference's reduce).

// Scores of keys [k0, k0 + NK) for NV query vectors: p[(k0 + k) ldp + 16 v + l] = K_k0+k . q.
template <int NK, int NV>
inline void tileScores(const float *kf, int dk, const float *qt, size_t ldq, int k0, float *p, size_t ldp)
{
    __m512 s[NK][NV];
    for (int k = 0; k < NK; ++k)
        for (int v = 0; v < NV; ++v)
            s[k][v] = _mm512_setzero_ps();
    const float *kr = kf + static_cast<size_t>(k0) * dk;
    for (int d = 0; d < dk; ++d) {
        __m512 q[NV];
        for (int v = 0; v < NV; ++v)
            q[v] = _mm512_loadu_ps(qt + static_cast<size_t>(d) * ldq + 16 * v);
        for (int k = 0; k < NK; ++k) {
            const __m512 b = _mm512_set1_ps(kr[static_cast<size_t>(k) * dk + d]);
            for (int v = 0; v < NV; ++v)
                s[k][v] = _mm512_fmadd_ps(b, q[v], s[k][v]);
        }
    }
    for (int k = 0; k < NK; ++k)
        for (int v = 0; v < NV; ++v)
            _mm512_storeu_ps(p + static_cast<size_t>(k0 + k) * ldp + 16 * v, s[k][v]);
}

template <int NV>
inline void tileScoresAll(const float *kf, int dk, int n, const float *qt, size_t ldq, float *p, size_t ldp)
{
    int k0 = 0;
    for (; k0 + 4 <= n; k0 += 4)
        tileScores<4, NV>(kf, dk, qt, ldq, k0, p, ldp);
    for (; k0 < n; ++k0)
        tileScores<1, NV>(kf, dk, qt, ldq, k0, p, ldp);
}

// acc rows [i0, i0 + 4) (row stride dv), dims [d0, d0 + 16 C) (the last
// vector masked to dv) += sum over keys tk < n of p[tk ldp + i] vf[tk].
template <int C>
inline void tileValues(const float *vf, int dv, int n, const float *p, size_t ldp, int i0, int d0, float *acc)
{
    __mmask16 m[C];
    for (int c = 0; c < C; ++c)
        m[c] = tailMask(dv - d0 - 16 * c);
    __m512 a[4][C];
    for (int j = 0; j < 4; ++j)
        for (int c = 0; c < C; ++c)
            a[j][c] = _mm512_maskz_loadu_ps(m[c], acc + static_cast<size_t>(i0 + j) * dv + d0 + 16 * c);
    for (int tk = 0; tk < n; ++tk) {
        const float *vr = vf + static_cast<size_t>(tk) * dv + d0;
        __m512 v[C];
        for (int c = 0; c < C; ++c)
            v[c] = _mm512_maskz_loadu_ps(m[c], vr + 16 * c);
        const float *pr = p + static_cast<size_t>(tk) * ldp + i0;
        for (int j = 0; j < 4; ++j) {
            const __m512 b = _mm512_set1_ps(pr[j]);
            for (int c = 0; c < C; ++c)
                a[j][c] = _mm512_fmadd_ps(b, v[c], a[j][c]);
        }
    }
    for (int j = 0; j < 4; ++j)
        for (int c = 0; c < C; ++c)
            _mm512_mask_storeu_ps(acc + static_cast<size_t>(i0 + j) * dv + d0 + 16 * c, m[c], a[j][c]);
}

inline __m512d lowPd(__m512 v) { return _mm512_cvtps_pd(_mm512_castps512_ps256(v)); }
inline __m512d highPd(__m512 v) { return _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))); }
inline __m512 joinPs(__m256 lo, __m256 hi)
{
    return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(lo)), _mm256_castps_pd(hi), 1));
}

// ms = expf(M - Mnew) in the lanes where the maximum grows (libm's, as the
// reference), 1 elsewhere.
inline __m512 rescale512(__m512 mOld, __m512 mNew, __mmask16 grow)
{
    alignas(64) float mo[16], mn[16], msl[16];
    _mm512_store_ps(mo, mOld);
    _mm512_store_ps(mn, mNew);
    for (int l = 0; l < 16; ++l)
        msl[l] = (grow >> l & 1) ? __builtin_expf(mo[l] - mn[l]) : 1.0f;
    return _mm512_load_ps(msl);
}

// p[tk ldp + l] = vexpf(p[tk ldp + l] - M[l]) for the tile's keys tk < n, and
// their sums per lane: 16 keys at a time as _mm512_reduce_add_ps (generic::
// sum16Ref's tree, lane by lane; keys past n are 0), each such sum added in
// double to sumLo (lanes 0-7) / sumHi (8-15).
inline void tileExpSums512(float *p, size_t ldp, int n, __m512 mSafe, __m512d &sumLo, __m512d &sumHi)
{
    for (int g = 0; g < n; g += 16) {
        __m512 e[16];
        for (int k = 0; k < 16; ++k) {
            if (g + k < n) {
                float *pr = p + static_cast<size_t>(g + k) * ldp;
                e[k] = simd::vexpf512(_mm512_sub_ps(_mm512_loadu_ps(pr), mSafe));
                _mm512_storeu_ps(pr, e[k]);
            } else {
                e[k] = _mm512_setzero_ps();   // the tile's padding keys
            }
        }
        for (int k = 0; k < 8; ++k)
            e[k] = _mm512_add_ps(e[k + 8], e[k]);
        for (int k = 0; k < 4; ++k)
            e[k] = _mm512_add_ps(e[k + 4], e[k]);
        const __m512 r = _mm512_add_ps(_mm512_add_ps(e[0], e[2]), _mm512_add_ps(e[1], e[3]));
        sumLo = _mm512_add_pd(sumLo, lowPd(r));
        sumHi = _mm512_add_pd(sumHi, highPd(r));
    }
}

void attendTiledAvx512(const KvView &kv, const TileQuery *queries, int nq, float *scratch)
{
    constexpr int Q = kTileCallQueries;
    const int dk = kv.dk, dv = kv.dv;
    float *kf = scratch;                                  // [kTileKeys][dk]
    float *vf = kf + static_cast<size_t>(kTileKeys) * dk; // [kTileKeys][dv]
    float *acc = vf + static_cast<size_t>(kTileKeys) * dv;// [Q][dv]
    float *qt = acc + static_cast<size_t>(Q) * dv;        // [dk][Q]
    float *p = qt + static_cast<size_t>(dk) * Q;          // [kTileKeys][Q]
    const int nqv = (nq + 15) / 16, nq4 = (nq + 3) & ~3;
    alignas(64) float M[Q], S[Q], ms[Q];
    alignas(64) uint32_t fi[Q], la[Q];
    uint32_t lo = queries[0].first, hi = queries[0].last;
    for (int i = 0; i < nqv * 16; ++i) {
        if (i < nq) {
            lo = queries[i].first < lo ? queries[i].first : lo;
            hi = queries[i].last > hi ? queries[i].last : hi;
            fi[i] = queries[i].first;
            la[i] = queries[i].last;
        } else {   // padding lanes: an empty range
            fi[i] = 1;
            la[i] = 0;
        }
        M[i] = -__builtin_inff();
        S[i] = 0.0f;
        for (int d = 0; d < dk; ++d)
            qt[static_cast<size_t>(d) * Q + i] = i < nq ? queries[i].q[d] : 0.0f;
    }
    for (size_t e = 0; e < static_cast<size_t>(nq4) * dv; ++e)
        acc[e] = 0.0f;
    const int kLines = (dk * 2 + 63) / 64, vLines = (dv * 2 + 63) / 64;
    for (uint32_t t0 = lo / kTileKeys * kTileKeys; t0 <= hi; t0 += kTileKeys) {
        const int n = static_cast<int>(hi - t0 + 1 < static_cast<uint32_t>(kTileKeys) ? hi - t0 + 1 : kTileKeys);
        const uint32_t next = t0 + kTileKeys;
        for (int tk = 0; tk < n; ++tk) {
            if (t0 + static_cast<uint32_t>(tk) < lo) {   // below every query's keys: masked, and maybe not held
                std::fill(kf + static_cast<size_t>(tk) * dk, kf + static_cast<size_t>(tk + 1) * dk, 0.0f);
                std::fill(vf + static_cast<size_t>(tk) * dv, vf + static_cast<size_t>(tk + 1) * dv, 0.0f);
                continue;
            }
            const size_t cell = kvCell(kv.blocks, t0 + static_cast<uint32_t>(tk));
            const uint16_t *kj = kv.k + cell * kv.kStride, *vj = kv.v + cell * kv.vStride;
            if (next + static_cast<uint32_t>(tk) <= hi) {   // the next tile's rows on their way
                const size_t nc = kvCell(kv.blocks, next + static_cast<uint32_t>(tk));
                for (int l = 0; l < kLines; ++l)
                    _mm_prefetch(reinterpret_cast<const char *>(kv.k + nc * kv.kStride) + 64 * l, _MM_HINT_T0);
                for (int l = 0; l < vLines; ++l)
                    _mm_prefetch(reinterpret_cast<const char *>(kv.v + nc * kv.vStride) + 64 * l, _MM_HINT_T0);
            }
            float *kr = kf + static_cast<size_t>(tk) * dk, *vr = vf + static_cast<size_t>(tk) * dv;
            for (int d = 0; d < dk; d += 16)
                _mm512_mask_storeu_ps(kr + d, tailMask(dk - d), loadHalves(kj + d, dk - d));
            for (int d = 0; d < dv; d += 16)
                _mm512_mask_storeu_ps(vr + d, tailMask(dv - d), loadHalves(vj + d, dv - d));
        }
        // Scores, 64 queries (4 vectors) at a time.
        for (int v0 = 0; v0 < nqv; v0 += 4) {
            const float *q = qt + 16 * v0;
            float *pv = p + 16 * v0;
            switch (nqv - v0 >= 4 ? 4 : nqv - v0) {
            case 1: tileScoresAll<1>(kf, dk, n, q, Q, pv, Q); break;
            case 2: tileScoresAll<2>(kf, dk, n, q, Q, pv, Q); break;
            case 3: tileScoresAll<3>(kf, dk, n, q, Q, pv, Q); break;
            default: tileScoresAll<4>(kf, dk, n, q, Q, pv, Q); break;
            }
        }
        // Scale (softcap), mask outside [first, last], the new maxima, e^(s - M), the sums.
        const __m512 ninf = _mm512_set1_ps(-__builtin_inff());
        for (int v = 0; v < nqv; ++v) {
            const __m512i F = _mm512_load_si512(fi + 16 * v), L = _mm512_load_si512(la + 16 * v);
            __m512 tmax = ninf;
            for (int tk = 0; tk < n; ++tk) {
                float *pr = p + static_cast<size_t>(tk) * Q + 16 * v;
                __m512 sc = _mm512_loadu_ps(pr);
                if (kv.softcap != 0.0f) {
                    alignas(64) float tmp[16];
                    _mm512_store_ps(tmp, sc);
                    for (int l = 0; l < 16; ++l)
                        tmp[l] = scoreOf(kv, tmp[l]);
                    sc = _mm512_load_ps(tmp);
                } else {
                    sc = _mm512_mul_ps(sc, _mm512_set1_ps(kv.scale));
                }
                const __m512i pos = _mm512_set1_epi32(static_cast<int>(t0 + static_cast<uint32_t>(tk)));
                const __mmask16 in = _mm512_cmp_epu32_mask(F, pos, _MM_CMPINT_LE) & _mm512_cmp_epu32_mask(pos, L, _MM_CMPINT_LE);
                sc = _mm512_mask_mov_ps(ninf, in, sc);
                _mm512_storeu_ps(pr, sc);
                tmax = _mm512_max_ps(tmax, sc);
            }
            const __m512 mOld = _mm512_load_ps(M + 16 * v);
            const __m512 mNew = _mm512_max_ps(mOld, tmax);
            const __mmask16 grow = _mm512_cmp_ps_mask(mNew, mOld, _CMP_GT_OQ);
            const __m512 msv = rescale512(mOld, mNew, grow);
            const __m512 mSafe = _mm512_mask_mov_ps(mNew, _mm512_cmp_ps_mask(mNew, ninf, _CMP_EQ_OQ), _mm512_setzero_ps());
            __m512d sumLo = _mm512_setzero_pd(), sumHi = _mm512_setzero_pd();
            tileExpSums512(p + 16 * v, Q, n, mSafe, sumLo, sumHi);
            const __m512 sv = _mm512_mul_ps(_mm512_load_ps(S + 16 * v), msv);
            _mm512_store_ps(S + 16 * v, joinPs(_mm512_cvtpd_ps(_mm512_add_pd(lowPd(sv), sumLo)),
                                               _mm512_cvtpd_ps(_mm512_add_pd(highPd(sv), sumHi))));
            _mm512_store_ps(M + 16 * v, mNew);
            _mm512_store_ps(ms + 16 * v, msv);
        }
        for (int i = 0; i < nq; ++i)
            if (ms[i] != 1.0f) {
                float *a = acc + static_cast<size_t>(i) * dv;
                for (int d = 0; d < dv; d += 16)
                    _mm512_mask_storeu_ps(a + d, tailMask(dv - d),
                                          _mm512_mul_ps(_mm512_maskz_loadu_ps(tailMask(dv - d), a + d), _mm512_set1_ps(ms[i])));
            }
        // acc += p V, 4 queries x 64 dims at a time; queries that see none of the tile skipped.
        const uint32_t tEnd = t0 + static_cast<uint32_t>(n);
        for (int i0 = 0; i0 < nq4; i0 += 4) {
            bool any = false;
            for (int j = i0; j < i0 + 4 && j < nq; ++j)
                any = any || (la[j] >= t0 && fi[j] < tEnd);
            if (!any)
                continue;
            for (int d0 = 0; d0 < dv; d0 += 64) {
                switch ((dv - d0 + 15) / 16 >= 4 ? 4 : (dv - d0 + 15) / 16) {
                case 1: tileValues<1>(vf, dv, n, p, Q, i0, d0, acc); break;
                case 2: tileValues<2>(vf, dv, n, p, Q, i0, d0, acc); break;
                case 3: tileValues<3>(vf, dv, n, p, Q, i0, d0, acc); break;
                default: tileValues<4>(vf, dv, n, p, Q, i0, d0, acc); break;
                }
            }
        }
    }
    simd::tiledOut512(acc, dv, M, S, queries, nq);
}

// The Q8_0 cache (flash_attention.h attendOnlineQ8_0): the query quantized
// and the K dot products by the trait table's kernels, the V rows
// dequantized and accumulated 16 lanes at a time (the same float steps as
// the scalar twin, element by element).
void attendOnlineQ8_0Avx512(const KvView &kv, uint32_t first, uint32_t last, int nHeads, const float *const *q,
                            float *const *out, const float *sinks)
{
    const int dk = kv.dk, dv = kv.dv;
    const generic::Q8_0Ops q8 = generic::q8_0Ops();
    const size_t qRow = q8_0RowHalves(static_cast<size_t>(dk));
    uint16_t qq[kMaxOnlineHeads * q8_0RowHalves(kMaxFlashHeadDim)];
    alignas(64) float acc[kMaxOnlineHeads][kMaxFlashHeadDim];
    alignas(64) float vf[kMaxFlashHeadDim];
    float M[kMaxOnlineHeads], S[kMaxOnlineHeads], dots[kMaxOnlineHeads];
    for (int g = 0; g < nHeads; ++g) {
        q8.quantize(q[g], qq + static_cast<size_t>(g) * qRow, dk);
        for (int d = 0; d < dv; ++d)
            acc[g][d] = 0.0f;
        M[g] = -__builtin_inff();
        S[g] = 0.0f;
    }
    for (uint32_t j = first; j <= last; ++j) {
        const size_t cell = kvCell(kv.blocks, j);
        const auto *vj = reinterpret_cast<const quant::BlockQ8_0 *>(kv.v + cell * kv.vStride);
        q8.dotMulti(dk, dots, kv.k + cell * kv.kStride, qq, qRow * sizeof(uint16_t), nHeads);
        for (int b = 0; b < dv / 32; ++b) {
            const __m512 d = _mm512_set1_ps(_cvtsh_ss(vj[b].d));
            for (int c = 0; c < 2; ++c) {
                const __m128i q8c = _mm_loadu_si128(reinterpret_cast<const __m128i *>(vj[b].qs + 16 * c));
                _mm512_store_ps(vf + b * 32 + 16 * c, _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(q8c)), d));
            }
        }
        for (int g = 0; g < nHeads; ++g) {
            const float s = scoreOf(kv, dots[g]);
            float ms = 1.0f, vs = 1.0f;
            if (s > M[g]) {
                ms = __builtin_expf(M[g] - s);
                M[g] = s;
            } else {
                vs = __builtin_expf(s - M[g]);
            }
            const __m512 vsv = _mm512_set1_ps(vs);
            float *a = acc[g];
            if (ms != 1.0f) {
                const __m512 msv = _mm512_set1_ps(ms);
                for (int d = 0; d < dv; d += 16)
                    _mm512_storeu_ps(a + d, _mm512_fmadd_ps(_mm512_load_ps(vf + d), vsv, _mm512_mul_ps(_mm512_load_ps(a + d), msv)));
            } else {
                for (int d = 0; d < dv; d += 16)
                    _mm512_storeu_ps(a + d, _mm512_fmadd_ps(_mm512_load_ps(vf + d), vsv, _mm512_load_ps(a + d)));
            }
            S[g] = __builtin_fmaf(S[g], ms, vs);
        }
    }
    for (int g = 0; g < nHeads; ++g) {
        const float sink = sinks ? sinks[g] : kNoSink;
        float ms = 1.0f;
        if (sink > -__builtin_inff()) {
            if (sink > M[g]) {
                ms = __builtin_expf(M[g] - sink);
                S[g] = __builtin_fmaf(S[g], ms, 1.0f);
            } else {
                S[g] += __builtin_expf(sink - M[g]);
            }
        }
        const float inv = S[g] == 0.0f ? 0.0f : 1.0f / S[g];
        for (int d = 0; d < dv; d += 16) {
            __m512 o = _mm512_load_ps(acc[g] + d);
            if (ms != 1.0f)
                o = _mm512_mul_ps(o, _mm512_set1_ps(ms));
            _mm512_storeu_ps(out[g] + d, _mm512_mul_ps(o, _mm512_set1_ps(inv)));
        }
    }
}

} // namespace

void fillAvx512Flash(Kernels &k)
{
    k.attendOnline = attendOnlineAvx512;
    k.attendOnlineQ8_0 = attendOnlineQ8_0Avx512;
    k.attendTiled = attendTiledAvx512;
}

} // namespace burrow::ops::x86
