// The AVX2 attendTiledQ8_0 (ops/flash_attention.h), bit for bit
// generic::attendTiledQ8_0, for two files: avx2_flash_q8.cpp (AVX2 + FMA +
// F16C: the int8 products by vpmaddubsw + vpmaddwd) and avxvnni_flash_q8.cpp
// (the same with AVX-VNNI's 256-bit vpdpbusd). Header only, internal linkage:
// each file compiles its own copy with its own instruction set.
//
// Lanes are keys, 8 to a vector (a group; 8 groups to a tile). Each block's
// 32 int8 values of a group's keys are transposed into 8 vectors (vector t:
// bytes 4t..4t+3 of every key's block). Without VNNI a query's 4 bytes are
// broadcast as |q| (unsigned) and their signs moved onto the keys
// (vpsignb), so vpmaddubsw's pairs stay within 2 x 127 x 127 (no
// saturation) and vpmaddwd sums them to 32 bits; with VNNI the keys are
// shifted to unsigned (+128) and the chain starts from -128 sum(q), as the
// AVX-512 kernel does. Every integer sum is exact, so the float steps are
// the twin's: s = fma(f32(sum), dK dQ, s) per block in order, attendTiled's
// softmax per query (16 keys, two groups, summed as sum16Ref), p V as one
// fused chain over the tile's keys per element.
#pragma once

#include "ops/expf.h"
#include "ops/flash_attention.h"
#include "ops/x86/flash_q8_rows.h"
#include "ops/generic/generic_kernels.h"
#include "ops/x86/tiled_out.h"
#include "quant/quant_blocks.h"

#include <immintrin.h>

#include <cmath>
#include <cstring>

namespace burrow::ops::x86::flash_q8_avx2 {

using quant::BlockQ8_0;

inline constexpr int kGroups = kTileKeys / 8;

// The 8 keys' block b transposed: out[t] lane r = bytes 4t..4t+3 of key r's
// block (shifted to unsigned with Vnni).
template <bool Vnni>
static inline void transposeBlock(const BlockQ8_0 *const *rows, int b, __m256i *out)
{
    __m256i r[8], t[8], u[8];
    for (int i = 0; i < 8; ++i)
        r[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(rows[i][b].qs));
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_epi32(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_epi32(r[i], r[i + 1]);
    }
    // u[m] lane L: dword 4 L + m of rows 0..3; u[4 + m] the same of rows 4..7.
    for (int h = 0; h < 2; ++h) {
        const __m256i *s = t + 4 * h;
        u[4 * h + 0] = _mm256_unpacklo_epi64(s[0], s[2]);
        u[4 * h + 1] = _mm256_unpackhi_epi64(s[0], s[2]);
        u[4 * h + 2] = _mm256_unpacklo_epi64(s[1], s[3]);
        u[4 * h + 3] = _mm256_unpackhi_epi64(s[1], s[3]);
    }
    for (int m = 0; m < 4; ++m) {
        out[m] = _mm256_permute2x128_si256(u[m], u[4 + m], 0x20);
        out[4 + m] = _mm256_permute2x128_si256(u[m], u[4 + m], 0x31);
    }
    if constexpr (Vnni) {
        const __m256i sign = _mm256_set1_epi8(static_cast<char>(0x80));
        for (int m = 0; m < 8; ++m)
            out[m] = _mm256_xor_si256(out[m], sign);
    }
}

// sum16Ref over keys 0..7 (lo) and 8..15 (hi).
static inline float sum16(__m256 lo, __m256 hi)
{
    const __m256 t = _mm256_add_ps(hi, lo);
    const __m128 u = _mm_add_ps(_mm256_extractf128_ps(t, 1), _mm256_castps256_ps128(t));
    const __m128 v = _mm_add_ps(u, _mm_movehl_ps(u, u));
    return _mm_cvtss_f32(_mm_add_ss(v, _mm_shuffle_ps(v, v, 1)));
}

static inline float hmax(__m256 x)
{
    __m128 m = _mm_max_ps(_mm256_extractf128_ps(x, 1), _mm256_castps256_ps128(x));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    return _mm_cvtss_f32(_mm_max_ss(m, _mm_shuffle_ps(m, m, 1)));
}

struct Layout {
    int32_t *kT;        // [kGroups][nb][8][8] transposed key bytes
    float *kd;          // [kGroups][nb][8] the keys' block scales
    float *vt;          // [kTileKeys][dv]
    float *acc;         // [nq][dv]
    float *p;           // [nq][kTileKeys]
    int32_t *qbias;     // [nq][nb] -128 sum(q) (VNNI)
    float *qd;          // [nq][nb]
    uint8_t *qabs;      // [nq][nb][32] |q| (without VNNI)
    BlockQ8_0 *qq;      // [nq][nb]
};

static inline Layout layoutOf(float *scratch, int nb, int dv, int nq)
{
    Layout l;
    l.kT = reinterpret_cast<int32_t *>(scratch);
    l.kd = scratch + static_cast<size_t>(kGroups) * nb * 64;
    l.vt = l.kd + static_cast<size_t>(kGroups) * nb * 8;
    l.acc = l.vt + static_cast<size_t>(kTileKeys) * dv;
    l.p = l.acc + static_cast<size_t>(nq) * dv;
    l.qbias = reinterpret_cast<int32_t *>(l.p + static_cast<size_t>(nq) * kTileKeys);
    l.qd = reinterpret_cast<float *>(l.qbias + static_cast<size_t>(nq) * nb);
    l.qabs = reinterpret_cast<uint8_t *>(l.qd + static_cast<size_t>(nq) * nb);
    l.qq = reinterpret_cast<BlockQ8_0 *>(l.qabs + static_cast<size_t>(nq) * nb * 32);
    return l;
}

// Keys t0 + [0, n) (below lo and past n: a row of zeros): K transposed,
// the block scales, the values dequantized; the next tile's group on its way.
template <bool Vnni, int NB>
static inline void loadTile(const KvView &kv, int nbRun, uint32_t t0, int n, uint32_t lo, uint32_t hi, const Layout &l)
{
    const int nb = NB > 0 ? NB : nbRun, dv = kv.dv;
    for (int g = 0; g < kGroups; ++g) {
        const BlockQ8_0 *krow[8], *vrow[8];
        flash_q8::groupRows<8>(kv, t0, 8 * g, n, lo, krow, vrow);
        flash_q8::prefetchGroup<8>(kv, t0 + kTileKeys + static_cast<uint32_t>(8 * g), hi);
        for (int b = 0; b < nb; ++b) {
            __m256i x[8];
            transposeBlock<Vnni>(krow, b, x);
            int32_t *dst = l.kT + (static_cast<size_t>(g) * nb + b) * 64;
            for (int t = 0; t < 8; ++t)
                _mm256_store_si256(reinterpret_cast<__m256i *>(dst + 8 * t), x[t]);
            alignas(16) uint16_t d[8];
            for (int r = 0; r < 8; ++r)
                d[r] = krow[r][b].d;
            _mm256_store_ps(l.kd + (static_cast<size_t>(g) * nb + b) * 8,
                            _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i *>(d))));
        }
        for (int r = 0; r < 8; ++r) {
            float *vr = l.vt + static_cast<size_t>(8 * g + r) * dv;
            for (int b = 0; b < dv / 32; ++b) {
                const __m256 d = _mm256_set1_ps(_cvtsh_ss(vrow[r][b].d));
                for (int c = 0; c < 4; ++c) {
                    const __m128i q8 = _mm_loadl_epi64(reinterpret_cast<const __m128i *>(vrow[r][b].qs + 8 * c));
                    _mm256_store_ps(vr + 32 * b + 8 * c, _mm256_mul_ps(d, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q8))));
                }
            }
        }
    }
}

// Query i's raw scores of the tile's groups: s[g] lane r = dotQ8_0Tiled of
// key 8 g + r.
template <bool Vnni, int NB>
static inline void scores(const Layout &l, int nbRun, int i, __m256 *s)
{
    const int nb = NB > 0 ? NB : nbRun;
    for (int g = 0; g < kGroups; ++g)
        s[g] = _mm256_setzero_ps();
    for (int b = 0; b < nb; ++b) {
        const size_t ib = static_cast<size_t>(i) * nb + b;
        int32_t qw[8], aw[8];
        std::memcpy(qw, l.qq[ib].qs, sizeof(qw));   // the block's bytes start 2 bytes in: copied, not cast
        std::memcpy(aw, l.qabs + ib * 32, sizeof(aw));
        const __m256 dq = _mm256_set1_ps(l.qd[ib]);
        __m256i a[kGroups];
        for (int g = 0; g < kGroups; ++g)
            a[g] = Vnni ? _mm256_set1_epi32(l.qbias[ib]) : _mm256_setzero_si256();
        for (int t = 0; t < 8; ++t) {
            const __m256i qv = _mm256_set1_epi32(qw[t]);
            const __m256i av = _mm256_set1_epi32(aw[t]);
            for (int g = 0; g < kGroups; ++g) {
                const __m256i k = _mm256_load_si256(reinterpret_cast<const __m256i *>(l.kT + ((static_cast<size_t>(g) * nb + b) * 8 + t) * 8));
                if constexpr (Vnni) {
#ifdef __AVXVNNI__
                    a[g] = _mm256_dpbusd_avx_epi32(a[g], k, qv);
#endif
                } else {
                    const __m256i pairs = _mm256_maddubs_epi16(av, _mm256_sign_epi8(k, qv));
                    a[g] = _mm256_add_epi32(a[g], _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
                }
            }
        }
        for (int g = 0; g < kGroups; ++g) {
            const __m256 scale = _mm256_mul_ps(_mm256_load_ps(l.kd + (static_cast<size_t>(g) * nb + b) * 8), dq);
            s[g] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(a[g]), scale, s[g]);
        }
    }
}

// acc rows [i0, i0 + NJ), dims [d0, d0 + 8 C) += sum over keys tk < n of
// p(i, tk) vt(tk), one fused chain over the keys per element.
template <int NJ, int C>
static inline void groupValues(const Layout &l, int dv, int n, int i0, int d0)
{
    __m256 a[NJ][C];
    for (int j = 0; j < NJ; ++j)
        for (int c = 0; c < C; ++c)
            a[j][c] = _mm256_loadu_ps(l.acc + static_cast<size_t>(i0 + j) * dv + d0 + 8 * c);
    for (int tk = 0; tk < n; ++tk) {
        __m256 v[C];
        for (int c = 0; c < C; ++c)
            v[c] = _mm256_load_ps(l.vt + static_cast<size_t>(tk) * dv + d0 + 8 * c);
        for (int j = 0; j < NJ; ++j) {
            const __m256 pj = _mm256_broadcast_ss(l.p + static_cast<size_t>(i0 + j) * kTileKeys + tk);
            for (int c = 0; c < C; ++c)
                a[j][c] = _mm256_fmadd_ps(pj, v[c], a[j][c]);
        }
    }
    for (int j = 0; j < NJ; ++j)
        for (int c = 0; c < C; ++c)
            _mm256_storeu_ps(l.acc + static_cast<size_t>(i0 + j) * dv + d0 + 8 * c, a[j][c]);
}

template <int NJ>
static inline void queryValues(const Layout &l, int dv, int n, int i0)
{
    for (int d0 = 0; d0 < dv; d0 += 32)   // dv: a multiple of 32
        groupValues<NJ, 4>(l, dv, n, i0, d0);
}

template <bool Vnni, int NB>
static void tiledQ8(const KvView &kv, const TileQuery *queries, int nq, float *scratch)
{
    const int nb = NB > 0 ? NB : kv.dk / 32, dv = kv.dv;
    const Layout l = layoutOf(scratch, nb, dv, nq);
    const generic::Q8_0Ops q8 = generic::q8_0Ops();
    float M[kTileCallQueries], S[kTileCallQueries];
    uint32_t lo = queries[0].first, hi = queries[0].last;
    for (int i = 0; i < nq; ++i) {
        lo = queries[i].first < lo ? queries[i].first : lo;
        hi = queries[i].last > hi ? queries[i].last : hi;
        M[i] = -__builtin_inff();
        S[i] = 0.0f;
        flash_q8::prepareQuery(q8, queries[i], kv.dk, i, l.qq, l.qbias, l.qd, Vnni ? nullptr : l.qabs);
        for (int d = 0; d < dv; d += 8)
            _mm256_storeu_ps(l.acc + static_cast<size_t>(i) * dv + d, _mm256_setzero_ps());
    }
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256 ninf = _mm256_set1_ps(-__builtin_inff());
    for (uint32_t t0 = lo / kTileKeys * kTileKeys; t0 <= hi; t0 += kTileKeys) {
        const int n = static_cast<int>(hi - t0 + 1 < static_cast<uint32_t>(kTileKeys) ? hi - t0 + 1 : kTileKeys);
        loadTile<Vnni, NB>(kv, nb, t0, n, lo, hi, l);
        for (int i = 0; i < nq; ++i) {
            const TileQuery &qi = queries[i];
            float *pi = l.p + static_cast<size_t>(i) * kTileKeys;
            if (qi.last < t0 || qi.first >= t0 + static_cast<uint32_t>(n)) {
                for (int g = 0; g < kGroups; ++g)   // a tile all masked for this query changes nothing
                    _mm256_store_ps(pi + 8 * g, _mm256_setzero_ps());
                continue;
            }
            __m256 s[kGroups];
            scores<Vnni, NB>(l, nb, i, s);
            // Positions stay below 2^31 (the cache's cells), so signed compares.
            const __m256i first = _mm256_set1_epi32(static_cast<int>(qi.first));
            const __m256i last = _mm256_set1_epi32(static_cast<int>(qi.last));
            __m256 tmax = ninf;
            for (int g = 0; g < kGroups; ++g) {
                if (kv.softcap != 0.0f) {
                    alignas(32) float tmp[8];
                    _mm256_store_ps(tmp, s[g]);
                    for (int r = 0; r < 8; ++r)
                        tmp[r] = kv.softcap * std::tanh(tmp[r] * (kv.scale / kv.softcap));
                    s[g] = _mm256_load_ps(tmp);
                } else {
                    s[g] = _mm256_mul_ps(s[g], _mm256_set1_ps(kv.scale));
                }
                const __m256i pos = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(t0 + static_cast<uint32_t>(8 * g))), lane);
                const __m256i out = _mm256_or_si256(_mm256_cmpgt_epi32(first, pos), _mm256_cmpgt_epi32(pos, last));
                s[g] = _mm256_blendv_ps(s[g], ninf, _mm256_castsi256_ps(out));
                tmax = _mm256_max_ps(tmax, s[g]);
            }
            const float tileMax = hmax(tmax);
            if (tileMax == -__builtin_inff()) {
                for (int g = 0; g < kGroups; ++g)
                    _mm256_store_ps(pi + 8 * g, _mm256_setzero_ps());
                continue;
            }
            const float mNew = M[i] > tileMax ? M[i] : tileMax;
            if (mNew > M[i]) {   // acc and S scaled by expf(M - Mnew) (libm's)
                const float ms = std::exp(M[i] - mNew);
                float *a = l.acc + static_cast<size_t>(i) * dv;
                for (int d = 0; d < dv; d += 8)
                    _mm256_storeu_ps(a + d, _mm256_mul_ps(_mm256_loadu_ps(a + d), _mm256_set1_ps(ms)));
                S[i] *= ms;
            }
            M[i] = mNew;
            const __m256 mv = _mm256_set1_ps(mNew);
            __m256 e[kGroups];
            for (int g = 0; g < kGroups; ++g) {
                e[g] = simd::vexpf256(_mm256_sub_ps(s[g], mv));   // masked: e^-inf = 0
                _mm256_store_ps(pi + 8 * g, e[g]);
            }
            double sum = 0.0;
            for (int g = 0; g < kGroups; g += 2)
                if (8 * g < n)
                    sum += static_cast<double>(sum16(e[g], e[g + 1]));
            S[i] = static_cast<float>(S[i] + sum);
        }
        int i0 = 0;
        for (; i0 + 2 <= nq; i0 += 2)
            queryValues<2>(l, dv, n, i0);
        for (; i0 < nq; ++i0)
            queryValues<1>(l, dv, n, i0);
    }
    simd::tiledOut256(l.acc, dv, M, S, queries, nq);
}

// dk, dv multiples of 32 (a Q8_0 cache's rows).
template <bool Vnni>
static void attendTiledQ8_0(const KvView &kv, const TileQuery *queries, int nq, float *scratch)
{
    if (kv.dk == 64)
        tiledQ8<Vnni, 2>(kv, queries, nq, scratch);
    else if (kv.dk == 128)
        tiledQ8<Vnni, 4>(kv, queries, nq, scratch);
    else
        tiledQ8<Vnni, 0>(kv, queries, nq, scratch);
}

} // namespace burrow::ops::x86::flash_q8_avx2
