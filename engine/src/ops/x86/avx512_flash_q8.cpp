// AVX-512 VNNI attendTiledQ8_0 (ops/flash_attention.h): attendTiled's recipe
// over a Q8_0 cache, bit for bit generic::attendTiledQ8_0. Compiled with
// AVX-512 F/BW/VL/VNNI on top of AVX2 + FMA + F16C; internal linkage for
// everything but the fill function (see x86_kernels.h).
//
// Lanes are keys. A tile's keys are taken 16 at a time (a group): each
// block's 32 int8 values of the 16 keys transposed into 8 vectors of 16
// lanes (vector t: bytes 4t..4t+3 of every key's block), shifted to
// unsigned (x + 128, an xor of the sign bit), so a query's score of 16
// keys is 8 vpdpbusd per block against the query's bytes broadcast 4 at a
// time; the shift comes back exactly as 128 times the query block's sum
// (the chain starts from -128 sum). Integer sums are exact in any order, so
// only the float steps need the twin's order: s = fma(f32(sum), dK dQ, s)
// per block in order, then attendTiled's softmax per query on 16-key
// vectors (a vector's 16 keys summed as sum16Ref) and p V as one fused
// chain over the tile's keys per output element, NJ queries at a time.
// Values are dequantized once per tile into floats (d q, one product).
#include "ops/x86/x86_kernels.h"

#include "ops/expf.h"
#include "ops/x86/flash_q8_rows.h"
#include "ops/f16.h"
#include "ops/flash_attention.h"
#include "ops/generic/generic_kernels.h"
#include "ops/x86/tiled_out.h"
#include "quant/quant_blocks.h"

#include <immintrin.h>

#include <cmath>
#include <cstring>

namespace burrow::ops::x86 {

namespace {

using quant::BlockQ8_0;

constexpr int kGroups = kTileKeys / 16;          // 16-key groups of a tile

// The 16 keys' block b transposed: out[t] lane r = bytes 4t..4t+3 of key r's
// block, each byte + 128 (as unsigned).
inline void transposeBlock(const BlockQ8_0 *const *rows, int b, __m512i *out)
{
    __m512i z[8], t[8], u[8];
    for (int i = 0; i < 8; ++i) {
        const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(rows[i][b].qs));
        const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(rows[i + 8][b].qs));
        z[i] = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
    }
    // 128-bit lane L of z[i]: dwords 4 (L % 2) .. + 3 of key i + 8 (L / 2).
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm512_unpacklo_epi32(z[i], z[i + 1]);
        t[i + 1] = _mm512_unpackhi_epi32(z[i], z[i + 1]);
    }
    // u[m] (m < 4): lane L = dword 4 (L % 2) + m of keys 8 (L / 2) + 0..3;
    // u[4 + m] the same of keys 8 (L / 2) + 4..7.
    for (int h = 0; h < 2; ++h) {
        const __m512i *s = t + 4 * h;
        u[4 * h + 0] = _mm512_unpacklo_epi64(s[0], s[2]);
        u[4 * h + 1] = _mm512_unpackhi_epi64(s[0], s[2]);
        u[4 * h + 2] = _mm512_unpacklo_epi64(s[1], s[3]);
        u[4 * h + 3] = _mm512_unpackhi_epi64(s[1], s[3]);
    }
    const __m512i idx0 = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
    const __m512i idx1 = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
    const __m512i sign = _mm512_set1_epi8(static_cast<char>(0x80));
    for (int m = 0; m < 4; ++m) {
        out[m] = _mm512_xor_si512(_mm512_permutex2var_epi64(u[m], idx0, u[4 + m]), sign);
        out[4 + m] = _mm512_xor_si512(_mm512_permutex2var_epi64(u[m], idx1, u[4 + m]), sign);
    }
}

// sum16Ref's tree over the 16 lanes.
inline float sum16(__m512 x)
{
    const __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1));
    const __m256 t = _mm256_add_ps(hi, _mm512_castps512_ps256(x));
    const __m128 u = _mm_add_ps(_mm256_extractf128_ps(t, 1), _mm256_castps256_ps128(t));
    const __m128 v = _mm_add_ps(u, _mm_movehl_ps(u, u));
    return _mm_cvtss_f32(_mm_add_ss(v, _mm_shuffle_ps(v, v, 1)));
}

struct Layout {
    int32_t *kT;        // [kGroups][nb][8][16] transposed, shifted key bytes
    float *kd;          // [kGroups][nb][16] the keys' block scales
    float *vt;          // [kTileKeys][dv]
    float *acc;         // [nq][dv]
    float *p;           // [nq][kTileKeys] scores, then e^(s - M)
    BlockQ8_0 *qq;      // [nq][nb] the quantized queries
    int32_t *qbias;     // [nq][nb] -128 times the block's sum of q
    float *qd;          // [nq][nb] the blocks' scales as floats
};

Layout layoutOf(float *scratch, int nb, int dv, int nq)
{
    Layout l;
    l.kT = reinterpret_cast<int32_t *>(scratch);
    l.kd = scratch + static_cast<size_t>(kGroups) * nb * 8 * 16;
    l.vt = l.kd + static_cast<size_t>(kGroups) * nb * 16;
    l.acc = l.vt + static_cast<size_t>(kTileKeys) * dv;
    l.p = l.acc + static_cast<size_t>(nq) * dv;
    l.qbias = reinterpret_cast<int32_t *>(l.p + static_cast<size_t>(nq) * kTileKeys);
    l.qd = reinterpret_cast<float *>(l.qbias + static_cast<size_t>(nq) * nb);
    l.qq = reinterpret_cast<BlockQ8_0 *>(l.qd + static_cast<size_t>(nq) * nb);
    return l;
}

// Keys t0 + [0, n) of a tile (those below lo and past n: a row of zeros,
// their cells maybe not held): K transposed into kT, the block scales into
// kd, the values dequantized into vt; the next tile's lines (up to hi) on
// their way, a group's beside each group's work.
template <int NB>
void loadTile(const KvView &kv, int nbRun, uint32_t t0, int n, uint32_t lo, uint32_t hi, const Layout &l)
{
    const int nb = NB > 0 ? NB : nbRun, dv = kv.dv;
    for (int g = 0; g < kGroups; ++g) {
        const BlockQ8_0 *krow[16], *vrow[16];
        flash_q8::groupRows<16>(kv, t0, 16 * g, n, lo, krow, vrow);
        flash_q8::prefetchGroup<16>(kv, t0 + kTileKeys + static_cast<uint32_t>(16 * g), hi);
        for (int b = 0; b < nb; ++b) {
            __m512i x[8];
            transposeBlock(krow, b, x);
            int32_t *dst = l.kT + (static_cast<size_t>(g) * nb + b) * 8 * 16;
            for (int t = 0; t < 8; ++t)
                _mm512_store_si512(dst + 16 * t, x[t]);
            alignas(32) uint16_t d[16];
            for (int r = 0; r < 16; ++r)
                d[r] = krow[r][b].d;
            _mm512_store_ps(l.kd + (static_cast<size_t>(g) * nb + b) * 16,
                            _mm512_cvtph_ps(_mm256_load_si256(reinterpret_cast<const __m256i *>(d))));
        }
        for (int r = 0; r < 16; ++r) {
            float *vr = l.vt + static_cast<size_t>(16 * g + r) * dv;
            for (int b = 0; b < dv / 32; ++b) {
                const __m512 d = _mm512_set1_ps(_cvtsh_ss(vrow[r][b].d));
                const __m128i *q = reinterpret_cast<const __m128i *>(vrow[r][b].qs);
                _mm512_store_ps(vr + 32 * b, _mm512_mul_ps(d, _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(q)))));
                _mm512_store_ps(vr + 32 * b + 16,
                                _mm512_mul_ps(d, _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(q + 1)))));
            }
        }
    }
}

// Query i's raw scores of the tile's 16-key groups: s[g] lane r = the
// twin's dotQ8_0Tiled of key 16 g + r.
template <int NB>
inline void scores(const Layout &l, int nbRun, int i, __m512 *s)
{
    const int nb = NB > 0 ? NB : nbRun;
    const int32_t *q32 = nullptr;
    for (int g = 0; g < kGroups; ++g)
        s[g] = _mm512_setzero_ps();
    for (int b = 0; b < nb; ++b) {
        q32 = reinterpret_cast<const int32_t *>(l.qq[static_cast<size_t>(i) * nb + b].qs);
        int32_t qw[8];
        std::memcpy(qw, q32, sizeof(qw));   // the block's bytes start 2 bytes in: copied, not cast
        const __m512i bias = _mm512_set1_epi32(l.qbias[static_cast<size_t>(i) * nb + b]);
        const __m512 dq = _mm512_set1_ps(l.qd[static_cast<size_t>(i) * nb + b]);
        __m512i a[kGroups];
        for (int g = 0; g < kGroups; ++g)
            a[g] = bias;
        for (int t = 0; t < 8; ++t) {
            const __m512i qv = _mm512_set1_epi32(qw[t]);
            for (int g = 0; g < kGroups; ++g)
                a[g] = _mm512_dpbusd_epi32(a[g], _mm512_load_si512(l.kT + ((static_cast<size_t>(g) * nb + b) * 8 + t) * 16), qv);
        }
        for (int g = 0; g < kGroups; ++g) {
            const __m512 scale = _mm512_mul_ps(_mm512_load_ps(l.kd + (static_cast<size_t>(g) * nb + b) * 16), dq);
            s[g] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(a[g]), scale, s[g]);
        }
    }
}

// acc rows [i0, i0 + NJ), dims [d0, d0 + 16 C) += sum over keys tk < n of
// p(i, tk) vt(tk): one fused chain over the keys per element.
template <int NJ, int C>
inline void groupValues(const Layout &l, int dv, int n, int i0, int d0)
{
    __m512 a[NJ][C];
    for (int j = 0; j < NJ; ++j)
        for (int c = 0; c < C; ++c)
            a[j][c] = _mm512_loadu_ps(l.acc + static_cast<size_t>(i0 + j) * dv + d0 + 16 * c);
    for (int tk = 0; tk < n; ++tk) {
        __m512 v[C];
        for (int c = 0; c < C; ++c)
            v[c] = _mm512_load_ps(l.vt + static_cast<size_t>(tk) * dv + d0 + 16 * c);
        for (int j = 0; j < NJ; ++j) {
            const __m512 pj = _mm512_set1_ps(l.p[static_cast<size_t>(i0 + j) * kTileKeys + tk]);
            for (int c = 0; c < C; ++c)
                a[j][c] = _mm512_fmadd_ps(pj, v[c], a[j][c]);
        }
    }
    for (int j = 0; j < NJ; ++j)
        for (int c = 0; c < C; ++c)
            _mm512_storeu_ps(l.acc + static_cast<size_t>(i0 + j) * dv + d0 + 16 * c, a[j][c]);
}

template <int NJ>
inline void queryValues(const Layout &l, int dv, int n, int i0)
{
    int d0 = 0;
    for (; d0 + 64 <= dv; d0 += 64)
        groupValues<NJ, 4>(l, dv, n, i0, d0);
    for (; d0 < dv; d0 += 32)
        groupValues<NJ, 2>(l, dv, n, i0, d0);
}

template <int NB>
void tiledQ8(const KvView &kv, const TileQuery *queries, int nq, float *scratch)
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
        flash_q8::prepareQuery(q8, queries[i], kv.dk, i, l.qq, l.qbias, l.qd, nullptr);
        for (int d = 0; d < dv; d += 16)
            _mm512_storeu_ps(l.acc + static_cast<size_t>(i) * dv + d, _mm512_setzero_ps());
    }
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512 ninf = _mm512_set1_ps(-__builtin_inff());
    for (uint32_t t0 = lo / kTileKeys * kTileKeys; t0 <= hi; t0 += kTileKeys) {
        const int n = static_cast<int>(hi - t0 + 1 < static_cast<uint32_t>(kTileKeys) ? hi - t0 + 1 : kTileKeys);
        loadTile<NB>(kv, nb, t0, n, lo, hi, l);
        for (int i = 0; i < nq; ++i) {
            const TileQuery &qi = queries[i];
            float *pi = l.p + static_cast<size_t>(i) * kTileKeys;
            if (qi.last < t0 || qi.first >= t0 + static_cast<uint32_t>(n)) {
                for (int g = 0; g < kGroups; ++g)   // a tile all masked for this query changes nothing
                    _mm512_store_ps(pi + 16 * g, _mm512_setzero_ps());
                continue;
            }
            __m512 s[kGroups];
            scores<NB>(l, nb, i, s);
            const __m512i first = _mm512_set1_epi32(static_cast<int>(qi.first));
            const __m512i last = _mm512_set1_epi32(static_cast<int>(qi.last));
            __m512 tmax = ninf;
            for (int g = 0; g < kGroups; ++g) {
                if (kv.softcap != 0.0f) {
                    alignas(64) float tmp[16];
                    _mm512_store_ps(tmp, s[g]);
                    for (int r = 0; r < 16; ++r)
                        tmp[r] = kv.softcap * std::tanh(tmp[r] * (kv.scale / kv.softcap));
                    s[g] = _mm512_load_ps(tmp);
                } else {
                    s[g] = _mm512_mul_ps(s[g], _mm512_set1_ps(kv.scale));
                }
                const __m512i pos = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(t0 + static_cast<uint32_t>(16 * g))), lane);
                const __mmask16 in = _mm512_cmp_epu32_mask(first, pos, _MM_CMPINT_LE) & _mm512_cmp_epu32_mask(pos, last, _MM_CMPINT_LE);
                s[g] = _mm512_mask_mov_ps(ninf, in, s[g]);
                tmax = _mm512_max_ps(tmax, s[g]);
            }
            const float tileMax = _mm512_reduce_max_ps(tmax);
            if (tileMax == -__builtin_inff()) {
                for (int g = 0; g < kGroups; ++g)
                    _mm512_store_ps(pi + 16 * g, _mm512_setzero_ps());
                continue;
            }
            const float mNew = M[i] > tileMax ? M[i] : tileMax;
            if (mNew > M[i]) {   // acc and S scaled by expf(M - Mnew) (libm's)
                const float ms = std::exp(M[i] - mNew);
                float *a = l.acc + static_cast<size_t>(i) * dv;
                for (int d = 0; d < dv; d += 16)
                    _mm512_storeu_ps(a + d, _mm512_mul_ps(_mm512_loadu_ps(a + d), _mm512_set1_ps(ms)));
                S[i] *= ms;
            }
            M[i] = mNew;
            const __m512 mv = _mm512_set1_ps(mNew);
            double sum = 0.0;
            for (int g = 0; g < kGroups; ++g) {
                const __m512 e = simd::vexpf512(_mm512_sub_ps(s[g], mv));   // masked: e^-inf = 0
                _mm512_store_ps(pi + 16 * g, e);
                if (16 * g < n)
                    sum += static_cast<double>(sum16(e));
            }
            S[i] = static_cast<float>(S[i] + sum);
        }
        int i0 = 0;
        for (; i0 + 4 <= nq; i0 += 4)
            queryValues<4>(l, dv, n, i0);
        for (; i0 < nq; ++i0)
            queryValues<1>(l, dv, n, i0);
    }
    simd::tiledOut512(l.acc, dv, M, S, queries, nq);
}

// dk, dv multiples of 32 (a Q8_0 cache's rows).
void attendTiledQ8_0Avx512(const KvView &kv, const TileQuery *queries, int nq, float *scratch)
{
    if (kv.dk == 64)
        tiledQ8<2>(kv, queries, nq, scratch);
    else if (kv.dk == 128)
        tiledQ8<4>(kv, queries, nq, scratch);
    else
        tiledQ8<0>(kv, queries, nq, scratch);
}

} // namespace

void fillAvx512FlashQ8(Kernels &k)
{
    k.attendTiledQ8_0 = attendTiledQ8_0Avx512;
}

} // namespace burrow::ops::x86
