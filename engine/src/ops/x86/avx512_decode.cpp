// AVX-512 attendDecode (ops/flash_attention.h): the tiled recipe for the
// query heads of one generated token (nq <= 16 queries of one KV head over one
// key range), bit for bit attendTiled's per query, laid out for few queries.
// Compiled with AVX-512 F/BW/VL on top of AVX2 + FMA + F16C; internal
// linkage for everything but the fill function (see x86_kernels.h).
//
// Layout: the queries padded to P = 1, 2, 4, 8 or 16 and R = 16 / P keys per
// vector, lane l = query l / R, key l % R of a group of R consecutive keys.
// A tile's keys are converted to floats R-interleaved (kI[group][d][r]), so
// one 16R-bit broadcast feeds a fused multiply-add for R keys x P queries:
// every lane useful where attendTiled, whose lanes are queries, fills nq of
// 16. The scores stay fused chains over the dims from 0; the tile's maxima
// reduce within a query's R lanes; e^(s - M) runs on full vectors (vexpf512);
// the sums of 16 keys follow sum16Ref's halving tree (strides 8, 4, 2, 1:
// whole vectors while the stride is >= R, lanes after); p V is one fused
// chain over the tile's keys per output element, as attendTiled.
#include "ops/x86/x86_kernels.h"

#include "ops/expf.h"
#include "ops/flash_attention.h"
#include "ops/x86/tiled_out.h"

#include <immintrin.h>

namespace burrow::ops::x86 {

namespace {

inline __mmask16 laneMask(int n)
{
    return static_cast<__mmask16>(n <= 0 ? 0u : n >= 16 ? 0xFFFFu : (1u << n) - 1u);
}

// R consecutive floats of p broadcast to every group of R lanes.
template <int R>
inline __m512 broadcastR(const float *p)
{
    if constexpr (R == 1)
        return _mm512_set1_ps(*p);
    else if constexpr (R == 2)
        return _mm512_castpd_ps(_mm512_set1_pd(*reinterpret_cast<const double *>(p)));
    else if constexpr (R == 4)
        return _mm512_broadcast_f32x4(_mm_loadu_ps(p));
    else if constexpr (R == 8)
        return _mm512_castpd_ps(_mm512_broadcast_f64x4(_mm256_castps_pd(_mm256_loadu_ps(p))));
    else
        return _mm512_loadu_ps(p);
}

// x[0..R): 16 dims of R keys -> R vectors of the same dims R-interleaved
// (vector m: dims 16 m / R ... as [d][r]): log2 R rounds of pairing vectors
// r and r + R / 2 element by element.
template <int R>
inline void interleave(__m512 *x)
{
    if constexpr (R > 1) {
        const __m512i lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
        const __m512i hi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
        for (int round = 1; round < R; round *= 2) {
            __m512 y[R];
            for (int r = 0; r < R / 2; ++r) {
                y[2 * r] = _mm512_permutex2var_ps(x[r], lo, x[r + R / 2]);
                y[2 * r + 1] = _mm512_permutex2var_ps(x[r], hi, x[r + R / 2]);
            }
            for (int r = 0; r < R; ++r)
                x[r] = y[r];
        }
    }
}

// Keys t0 + [0, n) of a tile into kI (R-interleaved, dk floats per key;
// keys below lo and the padding up to 64 as zeros) and the value rows' F16
// addresses into vrow (keys below lo: a row of zeros, their cells maybe not
// held).
template <int R, int DK>
inline void loadTile(const KvView &kv, uint32_t t0, int n, uint32_t lo, uint32_t hi, float *kI, const uint16_t **vrow)
{
    static const uint16_t zeros[kMaxFlashHeadDim] = {};
    const int dk = DK > 0 ? DK : kv.dk;
    const int kLines = (dk * 2 + 63) / 64, vLines = ((DK > 0 ? DK : kv.dv) * 2 + 63) / 64;
    const uint32_t next = t0 + kTileKeys;
    for (int g = 0; g < kTileKeys / R; ++g) {
        const uint16_t *rows[R];
        for (int r = 0; r < R; ++r) {
            const int tk = g * R + r;
            const uint32_t j = t0 + static_cast<uint32_t>(tk);
            rows[r] = nullptr;
            if (tk < n && j >= lo) {
                const size_t cell = kvCell(kv.blocks, j);
                rows[r] = kv.k + cell * kv.kStride;
                vrow[tk] = kv.v + cell * kv.vStride;
                if (next + static_cast<uint32_t>(tk) <= hi) {   // the next tile's rows on their way
                    const size_t nc = kvCell(kv.blocks, next + static_cast<uint32_t>(tk));
                    for (int l = 0; l < kLines; ++l)
                        _mm_prefetch(reinterpret_cast<const char *>(kv.k + nc * kv.kStride) + 64 * l, _MM_HINT_T0);
                    for (int l = 0; l < vLines; ++l)
                        _mm_prefetch(reinterpret_cast<const char *>(kv.v + nc * kv.vStride) + 64 * l, _MM_HINT_T0);
                }
            } else {
                vrow[tk] = zeros;
            }
        }
        float *dst = kI + static_cast<size_t>(g) * dk * R;
        for (int d = 0; d < dk; d += 16) {
            __m512 x[R];
            for (int r = 0; r < R; ++r)
                x[r] = rows[r] ? _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(rows[r] + d)))
                               : _mm512_setzero_ps();
            interleave<R>(x);
            for (int r = 0; r < R; ++r)
                _mm512_storeu_ps(dst + static_cast<size_t>(d) * R + 16 * r, x[r]);
        }
    }
}

// The scores' window: keys t0 + g R + l % R outside [first, last] masked.
struct ScoreMask {
    bool fused = false;          // scale and mask here (no softcap), else raw dot products
    float scale = 1.0f;
    bool partial = false;        // some key of the tile outside [first, last]
    __m512i keyLane, first, last;
    uint32_t t0 = 0;
};

// Scores of key groups [g0, g0 + NG): s[g] lane l = K_(g R + l % R) . q_(l / R),
// one fused chain over the dims; with m.fused, scaled, masked (-inf outside
// the window) and their maximum taken into tmax.
template <int R, int NG, int DK>
inline void groupScores(const float *kI, int dkRun, const float *qI, int g0, float *sc, const ScoreMask &m, __m512 &tmax)
{
    const int dk = DK > 0 ? DK : dkRun;
    __m512 s[NG];
    for (int g = 0; g < NG; ++g)
        s[g] = _mm512_setzero_ps();
    const float *base = kI + static_cast<size_t>(g0) * dk * R;
    for (int d = 0; d < dk; ++d) {
        const __m512 q = _mm512_loadu_ps(qI + static_cast<size_t>(d) * 16);
        for (int g = 0; g < NG; ++g)
            s[g] = _mm512_fmadd_ps(q, broadcastR<R>(base + static_cast<size_t>(g) * dk * R + static_cast<size_t>(d) * R), s[g]);
    }
    for (int g = 0; g < NG; ++g) {
        if (m.fused) {
            s[g] = _mm512_mul_ps(s[g], _mm512_set1_ps(m.scale));
            if (m.partial) {
                const __m512i pos = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(m.t0 + static_cast<uint32_t>((g0 + g) * R))), m.keyLane);
                const __mmask16 in = _mm512_cmp_epu32_mask(m.first, pos, _MM_CMPINT_LE) & _mm512_cmp_epu32_mask(pos, m.last, _MM_CMPINT_LE);
                s[g] = _mm512_mask_mov_ps(_mm512_set1_ps(-__builtin_inff()), in, s[g]);
            }
            tmax = _mm512_max_ps(tmax, s[g]);
        }
        _mm512_storeu_ps(sc + static_cast<size_t>(g0 + g) * 16, s[g]);
    }
}

// acc rows [i0, i0 + NJ) (dv floats apart), dims [d0, d0 + 16 C) += sum over
// keys tk < n of p(i, tk) V_tk, p(i, tk) = pb[(tk / R) 16 + i R + tk % R],
// V_tk converted from its F16 row as it is read.
template <int R, int NJ, int C>
inline void groupValues(const uint16_t *const *vrow, int dv, int n, const float *pb, int i0, int d0, float *acc)
{
    __m512 a[NJ][C];
    for (int j = 0; j < NJ; ++j)
        for (int c = 0; c < C; ++c)
            a[j][c] = _mm512_loadu_ps(acc + static_cast<size_t>(i0 + j) * dv + d0 + 16 * c);
    for (int tk = 0; tk < n; ++tk) {
        __m512 v[C];
        for (int c = 0; c < C; ++c)
            v[c] = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(vrow[tk] + d0 + 16 * c)));
        const float *pr = pb + (tk / R) * 16 + i0 * R + tk % R;
        for (int j = 0; j < NJ; ++j) {
            const __m512 b = _mm512_set1_ps(pr[j * R]);
            for (int c = 0; c < C; ++c)
                a[j][c] = _mm512_fmadd_ps(b, v[c], a[j][c]);
        }
    }
    for (int j = 0; j < NJ; ++j)
        for (int c = 0; c < C; ++c)
            _mm512_storeu_ps(acc + static_cast<size_t>(i0 + j) * dv + d0 + 16 * c, a[j][c]);
}

// acc += p V for queries [0, nq) in blocks of NJ, 16 C dims at a time (dv a
// multiple of 16: C = 2 where it divides, else 1).
template <int R, int NJ, int C>
inline void tileValues(const uint16_t *const *vrow, int dv, int n, const float *pb, int nq, float *acc)
{
    for (int i0 = 0; i0 < nq; i0 += NJ) {
        int d0 = 0;
        for (; d0 + 16 * C <= dv; d0 += 16 * C)
            groupValues<R, NJ, C>(vrow, dv, n, pb, i0, d0, acc);
        for (; d0 < dv; d0 += 16)
            groupValues<R, NJ, 1>(vrow, dv, n, pb, i0, d0, acc);
    }
}

// Lane l takes lane idx[l] of x.
inline __m512 lanes(__m512 x, const int *idx)
{
    return _mm512_permutexvar_ps(_mm512_loadu_si512(idx), x);
}

// The decode kernel for R keys per vector (P = 16 / R query lanes).
template <int R, int DK>
void decodeR(const KvView &kv, const TileQuery *queries, int nq, float *scratch)
{
    constexpr int P = 16 / R, NG = kTileKeys / R;   // query lanes, vectors per tile
    const int dk = DK > 0 ? DK : kv.dk, dv = DK > 0 ? DK : kv.dv;
    float *kI = scratch;                                    // [NG][dk][R]
    float *acc = kI + static_cast<size_t>(kTileKeys) * dk;  // [P][dv]
    float *qI = acc + static_cast<size_t>(P) * dv;          // [dk][16]
    float *sc = qI + static_cast<size_t>(dk) * 16;          // [NG][16]: scores, then p
    const uint32_t first = queries[0].first, last = queries[0].last;
    float M[P], S[P];
    for (int d = 0; d < dk; ++d)
        for (int l = 0; l < 16; ++l)
            qI[static_cast<size_t>(d) * 16 + l] = l / R < nq ? queries[l / R].q[d] : 0.0f;
    for (int i = 0; i < P; ++i) {
        M[i] = -__builtin_inff();
        S[i] = 0.0f;
    }
    for (size_t e = 0; e < static_cast<size_t>(P) * dv; ++e)
        acc[e] = 0.0f;
    // Lane constants: the key within its group, the lane of the same query
    // s keys on (for the sums' tree), the lanes of query l / R's partners.
    alignas(64) int32_t keyOf[16], plus[4][16], partner[4][16];
    for (int l = 0; l < 16; ++l) {
        keyOf[l] = l % R;
        for (int b = 0; b < 4; ++b) {
            const int s = 1 << b;
            plus[b][l] = l % R + s < R ? l + s : l;
            partner[b][l] = (l / R) * R + ((l % R) ^ s) % R;
        }
    }
    const __m512i keyLane = _mm512_load_si512(keyOf);
    const __m512 ninf = _mm512_set1_ps(-__builtin_inff());
    const uint16_t *vrow[kTileKeys];
    for (uint32_t t0 = first / kTileKeys * kTileKeys; t0 <= last; t0 += kTileKeys) {
        const int n = static_cast<int>(last - t0 + 1 < static_cast<uint32_t>(kTileKeys) ? last - t0 + 1 : kTileKeys);
        loadTile<R, DK>(kv, t0, n, first, last, kI, vrow);
        ScoreMask sm;
        sm.fused = kv.softcap == 0.0f;
        sm.scale = kv.scale;
        sm.partial = t0 < first || t0 + kTileKeys - 1 > last;
        sm.keyLane = keyLane;
        sm.first = _mm512_set1_epi32(static_cast<int>(first));
        sm.last = _mm512_set1_epi32(static_cast<int>(last));
        sm.t0 = t0;
        __m512 tmax = ninf;
        for (int g0 = 0; g0 < NG; g0 += 16) {
            if constexpr (NG >= 16)
                groupScores<R, 16, DK>(kI, dk, qI, g0, sc, sm, tmax);
            else
                groupScores<R, NG, DK>(kI, dk, qI, g0, sc, sm, tmax);
        }
        // Softcapped: scale, mask [first, last], the tile's maximum per query.
        for (int g = 0; g < NG && !sm.fused; ++g) {
            float *pr = sc + static_cast<size_t>(g) * 16;
            __m512 s = _mm512_loadu_ps(pr);
            if (kv.softcap != 0.0f) {
                alignas(64) float tmp[16];
                _mm512_store_ps(tmp, s);
                for (int l = 0; l < 16; ++l)
                    tmp[l] = kv.softcap * __builtin_tanhf(tmp[l] * (kv.scale / kv.softcap));
                s = _mm512_load_ps(tmp);
            } else {
                s = _mm512_mul_ps(s, _mm512_set1_ps(kv.scale));
            }
            const __m512i pos = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(t0 + static_cast<uint32_t>(g * R))), keyLane);
            const __mmask16 in = _mm512_cmp_epu32_mask(_mm512_set1_epi32(static_cast<int>(first)), pos, _MM_CMPINT_LE) &
                                 _mm512_cmp_epu32_mask(pos, _mm512_set1_epi32(static_cast<int>(last)), _MM_CMPINT_LE);
            s = _mm512_mask_mov_ps(ninf, in, s);
            _mm512_storeu_ps(pr, s);
            tmax = _mm512_max_ps(tmax, s);
        }
        for (int b = 0; (1 << b) < R; ++b)
            tmax = _mm512_max_ps(tmax, lanes(tmax, partner[b]));
        alignas(64) float tm[16], mSafe[16];
        _mm512_store_ps(tm, tmax);
        for (int i = 0; i < P; ++i) {
            const float mNew = M[i] > tm[i * R] ? M[i] : tm[i * R];
            if (i < nq && mNew > M[i]) {   // a new maximum: acc and S scaled by expf(M - Mnew) (libm's)
                const float ms = __builtin_expf(M[i] - mNew);
                float *a = acc + static_cast<size_t>(i) * dv;
                for (int d = 0; d < dv; d += 16)
                    _mm512_storeu_ps(a + d, _mm512_mul_ps(_mm512_loadu_ps(a + d), _mm512_set1_ps(ms)));
                S[i] *= ms;
            }
            M[i] = mNew;
            for (int r = 0; r < R; ++r)
                mSafe[i * R + r] = mNew == -__builtin_inff() ? 0.0f : mNew;
        }
        // p = e^(s - M), and per query the sums of 16 keys (sum16Ref's tree) added in double.
        const __m512 mv = _mm512_load_ps(mSafe);
        for (int g = 0; g < NG; ++g) {
            float *pr = sc + static_cast<size_t>(g) * 16;
            _mm512_storeu_ps(pr, simd::vexpf512(_mm512_sub_ps(_mm512_loadu_ps(pr), mv)));
        }
        double sums[P] = {};
        const int sixteens = (n + 15) / 16;
        for (int c = 0; c < sixteens; ++c) {
            __m512 v[P];   // keys 16 c .. 16 c + 15: P vectors (16 / R groups of R keys)
            for (int a = 0; a < P; ++a)
                v[a] = _mm512_loadu_ps(sc + static_cast<size_t>(c * P + a) * 16);
            for (int b = 3; b >= 0; --b) {
                const int s = 1 << b;
                if (s >= R) {
                    for (int a = 0; a < s / R; ++a)
                        v[a] = _mm512_add_ps(v[a + s / R], v[a]);
                } else {
                    v[0] = _mm512_add_ps(lanes(v[0], plus[b]), v[0]);
                }
            }
            alignas(64) float r16[16];
            _mm512_store_ps(r16, v[0]);
            for (int i = 0; i < nq; ++i)
                sums[i] += static_cast<double>(r16[i * R]);
        }
        for (int i = 0; i < nq; ++i)
            S[i] = static_cast<float>(S[i] + sums[i]);
        // acc += p V.
        if constexpr (P >= 8)
            tileValues<R, 8, 2>(vrow, dv, n, sc, nq, acc);
        else
            tileValues<R, P, 16 / P < 4 ? 16 / P : 4>(vrow, dv, n, sc, nq, acc);
    }
    simd::tiledOut512(acc, dv, M, S, queries, nq);
}

template <int DK>
void attendDecodeDk(const KvView &kv, const TileQuery *queries, int nq, float *scratch)
{
    if (nq == 1)
        decodeR<16, DK>(kv, queries, nq, scratch);
    else if (nq == 2)
        decodeR<8, DK>(kv, queries, nq, scratch);
    else if (nq <= 4)
        decodeR<4, DK>(kv, queries, nq, scratch);
    else if (nq <= 8)
        decodeR<2, DK>(kv, queries, nq, scratch);
    else
        decodeR<1, DK>(kv, queries, nq, scratch);
}

// nq <= kDecodeQueries, head sizes multiples of 16 (flash_attention.cpp checks).
// The common head sizes (K and V alike) with the size known to the compiler.
void attendDecodeAvx512(const KvView &kv, const TileQuery *queries, int nq, float *scratch)
{
    if (kv.dk == 64 && kv.dv == 64)
        attendDecodeDk<64>(kv, queries, nq, scratch);
    else if (kv.dk == 128 && kv.dv == 128)
        attendDecodeDk<128>(kv, queries, nq, scratch);
    else
        attendDecodeDk<0>(kv, queries, nq, scratch);
}

} // namespace

void fillAvx512Decode(Kernels &k)
{
    k.attendDecode = attendDecodeAvx512;
    k.attendDecodeQueries = 16;
}

} // namespace burrow::ops::x86
