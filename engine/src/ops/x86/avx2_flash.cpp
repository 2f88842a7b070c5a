// AVX2 + FMA + F16C flash-attention kernels (ops/flash_attention.h has the
// contract and the rounding points). Head sizes that are not a multiple of 8
// take the scalar twin. Internal linkage for everything but the fill
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

inline __m256 loadHalves8(const uint16_t *p)
{
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
}

inline void storeHalves8(uint16_t *p, __m256 v)
{
    _mm_storeu_si128(reinterpret_cast<__m128i *>(p), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

inline float hsum(__m256 v)
{
    const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(t, _mm_movehdup_ps(t)));
}

inline float scoreOf(const KvView &kv, float dot)
{
    if (kv.softcap != 0.0f)
        return kv.softcap * __builtin_tanhf(dot * (kv.scale / kv.softcap));
    return dot * kv.scale;
}

void attendOnlineAvx2(const KvView &kv, uint32_t first, uint32_t last, int nHeads, const float *const *q,
                      float *const *out, const float *sinks)
{
    const int dk = kv.dk, dv = kv.dv;
    if (dk % 8 != 0 || dv % 8 != 0) {
        generic::attendOnline(kv, first, last, nHeads, q, out, sinks);
        return;
    }
    alignas(32) float qf[kMaxOnlineHeads][kMaxFlashHeadDim];
    alignas(32) uint16_t acc[kMaxOnlineHeads][kMaxFlashHeadDim];
    float M[kMaxOnlineHeads], S[kMaxOnlineHeads], ms[kMaxOnlineHeads], vs[kMaxOnlineHeads];
    for (int g = 0; g < nHeads; ++g) {
        for (int d = 0; d < dk; d += 8)
            _mm256_storeu_ps(qf[g] + d, _mm256_cvtph_ps(_mm256_cvtps_ph(_mm256_loadu_ps(q[g] + d),
                                                                         _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)));
        for (int d = 0; d < dv; ++d)
            acc[g][d] = 0;
        M[g] = -__builtin_inff();
        S[g] = 0.0f;
    }
    for (uint32_t j = first; j <= last; ++j) {
        const size_t cell = kvCell(kv.blocks, j);
        const uint16_t *kj = kv.k + cell * kv.kStride, *vj = kv.v + cell * kv.vStride;
        // K . q16 in the reference's AVX-512 ggml_vec_dot_f16 order
        // (flash_attention.h): its 4 accumulators of 16 lanes as 8 of 8
        // (lanes 0-7 and 8-15 of each), (a0 + a2) + (a1 + a3), the 16 lanes
        // halved (lanes 0-7 + lanes 8-15 first, then hsum's 8 -> 4 -> 2 -> 1);
        // the tail (dk % 64) in double.
        __m256 dots[kMaxOnlineHeads][8];
        for (int g = 0; g < nHeads; ++g)
            for (int a = 0; a < 8; ++a)
                dots[g][a] = _mm256_setzero_ps();
        const int np = dk - dk % 64;
        for (int d = 0; d < np; d += 64)
            for (int a = 0; a < 8; ++a) {
                const __m256 kvec = loadHalves8(kj + d + 8 * a);
                for (int g = 0; g < nHeads; ++g)
                    dots[g][a] = _mm256_fmadd_ps(kvec, _mm256_loadu_ps(qf[g] + d + 8 * a), dots[g][a]);
            }
        for (int g = 0; g < nHeads; ++g) {
            const __m256 *a = dots[g];   // accumulator k: a[2k] lanes 0-7, a[2k + 1] lanes 8-15
            const __m256 lo = _mm256_add_ps(_mm256_add_ps(a[0], a[4]), _mm256_add_ps(a[2], a[6]));
            const __m256 hi = _mm256_add_ps(_mm256_add_ps(a[1], a[5]), _mm256_add_ps(a[3], a[7]));
            double dot = hsum(_mm256_add_ps(hi, lo));
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
        for (int d = 0; d < dv; d += 8) {
            const __m256 vvec = loadHalves8(vj + d);
            for (int g = 0; g < nHeads; ++g) {
                __m256 a = loadHalves8(acc[g] + d);
                if (ms[g] != 1.0f)
                    a = _mm256_cvtph_ps(_mm256_cvtps_ph(_mm256_mul_ps(a, _mm256_set1_ps(ms[g])),
                                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
                storeHalves8(acc[g] + d, _mm256_fmadd_ps(vvec, _mm256_set1_ps(vs[g]), a));
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
        for (int d = 0; d < dv; d += 8) {
            __m256 o = loadHalves8(acc[g] + d);
            if (scale != 1.0f)
                o = _mm256_mul_ps(o, _mm256_set1_ps(scale));
            _mm256_storeu_ps(out[g] + d, _mm256_mul_ps(o, _mm256_set1_ps(inv)));
        }
    }
}

// attendTiled as in avx512_flash.cpp, 8 queries to a vector: QK products
// 4 keys x 2 query vectors and PV products 4 queries x 16 value dims in
// registers (16 of them in all on AVX2).
template <int NK, int NV>
inline void tileScores8(const float *kf, int dk, const float *qt, size_t ldq, int k0, float *p, size_t ldp)
{
    __m256 s[NK][NV];
    for (int k = 0; k < NK; ++k)
        for (int v = 0; v < NV; ++v)
            s[k][v] = _mm256_setzero_ps();
    const float *kr = kf + static_cast<size_t>(k0) * dk;
    for (int d = 0; d < dk; ++d) {
        __m256 q[NV];
        for (int v = 0; v < NV; ++v)
            q[v] = _mm256_loadu_ps(qt + static_cast<size_t>(d) * ldq + 8 * v);
        for (int k = 0; k < NK; ++k) {
            const __m256 b = _mm256_set1_ps(kr[static_cast<size_t>(k) * dk + d]);
            for (int v = 0; v < NV; ++v)
                s[k][v] = _mm256_fmadd_ps(b, q[v], s[k][v]);
        }
    }
    for (int k = 0; k < NK; ++k)
        for (int v = 0; v < NV; ++v)
            _mm256_storeu_ps(p + static_cast<size_t>(k0 + k) * ldp + 8 * v, s[k][v]);
}

template <int NV>
inline void tileScoresAll8(const float *kf, int dk, int n, const float *qt, size_t ldq, float *p, size_t ldp)
{
    int k0 = 0;
    for (; k0 + 4 <= n; k0 += 4)
        tileScores8<4, NV>(kf, dk, qt, ldq, k0, p, ldp);
    for (; k0 < n; ++k0)
        tileScores8<1, NV>(kf, dk, qt, ldq, k0, p, ldp);
}

// acc rows [i0, i0 + 4), dims [d0, d0 + 8 C) += sum over tk < n of p[tk ldp + i] vf[tk].
template <int C>
inline void tileValues8(const float *vf, int dv, int n, const float *p, size_t ldp, int i0, int d0, float *acc)
{
    __m256 a[4][C];
    for (int j = 0; j < 4; ++j)
        for (int c = 0; c < C; ++c)
            a[j][c] = _mm256_loadu_ps(acc + static_cast<size_t>(i0 + j) * dv + d0 + 8 * c);
    for (int tk = 0; tk < n; ++tk) {
        const float *vr = vf + static_cast<size_t>(tk) * dv + d0;
        __m256 v[C];
        for (int c = 0; c < C; ++c)
            v[c] = _mm256_loadu_ps(vr + 8 * c);
        const float *pr = p + static_cast<size_t>(tk) * ldp + i0;
        for (int j = 0; j < 4; ++j) {
            const __m256 b = _mm256_set1_ps(pr[j]);
            for (int c = 0; c < C; ++c)
                a[j][c] = _mm256_fmadd_ps(b, v[c], a[j][c]);
        }
    }
    for (int j = 0; j < 4; ++j)
        for (int c = 0; c < C; ++c)
            _mm256_storeu_ps(acc + static_cast<size_t>(i0 + j) * dv + d0 + 8 * c, a[j][c]);
}

// ms = expf(M - Mnew) in the lanes where the maximum grows (libm's, as the
// reference), 1 elsewhere.
inline __m256 rescale256(__m256 mOld, __m256 mNew, __m256 grow)
{
    alignas(32) float mo[8], mn[8], msl[8];
    _mm256_store_ps(mo, mOld);
    _mm256_store_ps(mn, mNew);
    const int growBits = _mm256_movemask_ps(grow);
    for (int l = 0; l < 8; ++l)
        msl[l] = (growBits >> l & 1) ? __builtin_expf(mo[l] - mn[l]) : 1.0f;
    return _mm256_load_ps(msl);
}

// p[tk ldp + l] = vexpf(p[tk ldp + l] - M[l]) (the reference's AVX-512 e^x,
// bit for bit) for the tile's keys tk < n, and their sums per lane: 16 keys
// at a time as its _mm512_reduce_add_ps (generic::sum16Ref's tree, lane by
// lane; keys past n are 0), each such sum added in double to sumLo (lanes
// 0-3) / sumHi (4-7).
inline void tileExpSums256(float *p, size_t ldp, int n, __m256 mSafe, __m256d &sumLo, __m256d &sumHi)
{
    for (int g = 0; g < n; g += 16) {
        __m256 e[16];
        for (int k = 0; k < 16; ++k) {
            if (g + k < n) {
                float *pr = p + static_cast<size_t>(g + k) * ldp;
                e[k] = simd::vexpf256(_mm256_sub_ps(_mm256_loadu_ps(pr), mSafe));
                _mm256_storeu_ps(pr, e[k]);
            } else {
                e[k] = _mm256_setzero_ps();   // the tile's padding keys
            }
        }
        for (int k = 0; k < 8; ++k)
            e[k] = _mm256_add_ps(e[k + 8], e[k]);
        for (int k = 0; k < 4; ++k)
            e[k] = _mm256_add_ps(e[k + 4], e[k]);
        const __m256 r = _mm256_add_ps(_mm256_add_ps(e[0], e[2]), _mm256_add_ps(e[1], e[3]));
        sumLo = _mm256_add_pd(sumLo, _mm256_cvtps_pd(_mm256_castps256_ps128(r)));
        sumHi = _mm256_add_pd(sumHi, _mm256_cvtps_pd(_mm256_extractf128_ps(r, 1)));
    }
}

void attendTiledAvx2(const KvView &kv, const TileQuery *queries, int nq, float *scratch)
{
    const int dk = kv.dk, dv = kv.dv;
    if (dk % 8 != 0 || dv % 8 != 0) {
        generic::attendTiled(kv, queries, nq, scratch);
        return;
    }
    constexpr int Q = kTileCallQueries;
    float *kf = scratch;                                  // [kTileKeys][dk]
    float *vf = kf + static_cast<size_t>(kTileKeys) * dk; // [kTileKeys][dv]
    float *acc = vf + static_cast<size_t>(kTileKeys) * dv;// [Q][dv]
    float *qt = acc + static_cast<size_t>(Q) * dv;        // [dk][Q]
    float *p = qt + static_cast<size_t>(dk) * Q;          // [kTileKeys][Q]
    const int nqv = (nq + 7) / 8, nq4 = (nq + 3) & ~3;
    alignas(32) float M[Q], S[Q], ms[Q];
    alignas(32) int32_t fi[Q], la[Q];   // positions < 2^31: signed compares
    uint32_t lo = queries[0].first, hi = queries[0].last;
    for (int i = 0; i < nqv * 8; ++i) {
        if (i < nq) {
            lo = queries[i].first < lo ? queries[i].first : lo;
            hi = queries[i].last > hi ? queries[i].last : hi;
            fi[i] = static_cast<int32_t>(queries[i].first);
            la[i] = static_cast<int32_t>(queries[i].last);
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
    const __m256 ninf = _mm256_set1_ps(-__builtin_inff());
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
            if (next + static_cast<uint32_t>(tk) <= hi) {
                const size_t nc = kvCell(kv.blocks, next + static_cast<uint32_t>(tk));
                for (int l = 0; l < kLines; ++l)
                    _mm_prefetch(reinterpret_cast<const char *>(kv.k + nc * kv.kStride) + 64 * l, _MM_HINT_T0);
                for (int l = 0; l < vLines; ++l)
                    _mm_prefetch(reinterpret_cast<const char *>(kv.v + nc * kv.vStride) + 64 * l, _MM_HINT_T0);
            }
            for (int d = 0; d < dk; d += 8)
                _mm256_storeu_ps(kf + static_cast<size_t>(tk) * dk + d, loadHalves8(kj + d));
            for (int d = 0; d < dv; d += 8)
                _mm256_storeu_ps(vf + static_cast<size_t>(tk) * dv + d, loadHalves8(vj + d));
        }
        for (int v0 = 0; v0 < nqv; v0 += 2) {
            if (nqv - v0 >= 2)
                tileScoresAll8<2>(kf, dk, n, qt + 8 * v0, Q, p + 8 * v0, Q);
            else
                tileScoresAll8<1>(kf, dk, n, qt + 8 * v0, Q, p + 8 * v0, Q);
        }
        for (int v = 0; v < nqv; ++v) {
            const __m256i F = _mm256_load_si256(reinterpret_cast<const __m256i *>(fi + 8 * v));
            const __m256i L = _mm256_load_si256(reinterpret_cast<const __m256i *>(la + 8 * v));
            __m256 tmax = ninf;
            for (int tk = 0; tk < n; ++tk) {
                float *pr = p + static_cast<size_t>(tk) * Q + 8 * v;
                __m256 sc = _mm256_loadu_ps(pr);
                if (kv.softcap != 0.0f) {
                    alignas(32) float tmp[8];
                    _mm256_store_ps(tmp, sc);
                    for (int l = 0; l < 8; ++l)
                        tmp[l] = scoreOf(kv, tmp[l]);
                    sc = _mm256_load_ps(tmp);
                } else {
                    sc = _mm256_mul_ps(sc, _mm256_set1_ps(kv.scale));
                }
                const __m256i pos = _mm256_set1_epi32(static_cast<int>(t0 + static_cast<uint32_t>(tk)));
                const __m256i out = _mm256_or_si256(_mm256_cmpgt_epi32(F, pos), _mm256_cmpgt_epi32(pos, L));
                sc = _mm256_blendv_ps(sc, ninf, _mm256_castsi256_ps(out));
                _mm256_storeu_ps(pr, sc);
                tmax = _mm256_max_ps(tmax, sc);
            }
            const __m256 mOld = _mm256_load_ps(M + 8 * v);
            const __m256 mNew = _mm256_max_ps(mOld, tmax);
            const __m256 grow = _mm256_cmp_ps(mNew, mOld, _CMP_GT_OQ);
            const __m256 msv = rescale256(mOld, mNew, grow);
            const __m256 mSafe = _mm256_blendv_ps(mNew, _mm256_setzero_ps(), _mm256_cmp_ps(mNew, ninf, _CMP_EQ_OQ));
            __m256d sumLo = _mm256_setzero_pd(), sumHi = _mm256_setzero_pd();
            tileExpSums256(p + 8 * v, Q, n, mSafe, sumLo, sumHi);
            const __m256 sv = _mm256_mul_ps(_mm256_load_ps(S + 8 * v), msv);
            const __m128 sLo = _mm256_cvtpd_ps(_mm256_add_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(sv)), sumLo));
            const __m128 sHi = _mm256_cvtpd_ps(_mm256_add_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(sv, 1)), sumHi));
            _mm256_store_ps(S + 8 * v, _mm256_set_m128(sHi, sLo));
            _mm256_store_ps(M + 8 * v, mNew);
            _mm256_store_ps(ms + 8 * v, msv);
        }
        for (int i = 0; i < nq; ++i)
            if (ms[i] != 1.0f) {
                float *a = acc + static_cast<size_t>(i) * dv;
                for (int d = 0; d < dv; d += 8)
                    _mm256_storeu_ps(a + d, _mm256_mul_ps(_mm256_loadu_ps(a + d), _mm256_set1_ps(ms[i])));
            }
        const uint32_t tEnd = t0 + static_cast<uint32_t>(n);
        for (int i0 = 0; i0 < nq4; i0 += 4) {
            bool any = false;
            for (int j = i0; j < i0 + 4 && j < nq; ++j)
                any = any || (static_cast<uint32_t>(la[j]) >= t0 && static_cast<uint32_t>(fi[j]) < tEnd);
            if (!any)
                continue;
            int d0 = 0;
            for (; d0 + 16 <= dv; d0 += 16)
                tileValues8<2>(vf, dv, n, p, Q, i0, d0, acc);
            if (d0 < dv)
                tileValues8<1>(vf, dv, n, p, Q, i0, d0, acc);
        }
    }
    simd::tiledOut256(acc, dv, M, S, queries, nq);
}

// The Q8_0 cache (flash_attention.h attendOnlineQ8_0): the query quantized
// and the K dot products by the trait table's kernels, the V rows
// dequantized and accumulated 8 lanes at a time (the same float steps as
// the scalar twin, element by element).
void attendOnlineQ8_0Avx2(const KvView &kv, uint32_t first, uint32_t last, int nHeads, const float *const *q,
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
            const __m256 d = _mm256_set1_ps(_cvtsh_ss(vj[b].d));
            for (int c = 0; c < 4; ++c) {
                const __m128i q8c = _mm_loadl_epi64(reinterpret_cast<const __m128i *>(vj[b].qs + 8 * c));
                _mm256_store_ps(vf + b * 32 + 8 * c, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q8c)), d));
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
            const __m256 vsv = _mm256_set1_ps(vs);
            float *a = acc[g];
            if (ms != 1.0f) {
                const __m256 msv = _mm256_set1_ps(ms);
                for (int d = 0; d < dv; d += 8)
                    _mm256_storeu_ps(a + d, _mm256_fmadd_ps(_mm256_load_ps(vf + d), vsv, _mm256_mul_ps(_mm256_load_ps(a + d), msv)));
            } else {
                for (int d = 0; d < dv; d += 8)
                    _mm256_storeu_ps(a + d, _mm256_fmadd_ps(_mm256_load_ps(vf + d), vsv, _mm256_load_ps(a + d)));
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
        for (int d = 0; d < dv; d += 8) {
            __m256 o = _mm256_load_ps(acc[g] + d);
            if (ms != 1.0f)
                o = _mm256_mul_ps(o, _mm256_set1_ps(ms));
            _mm256_storeu_ps(out[g] + d, _mm256_mul_ps(o, _mm256_set1_ps(inv)));
        }
    }
}

} // namespace

void fillAvx2Flash(Kernels &k)
{
    k.attendOnline = attendOnlineAvx2;
    k.attendOnlineQ8_0 = attendOnlineQ8_0Avx2;
    k.attendTiled = attendTiledAvx2;
}

} // namespace burrow::ops::x86
