// AVX2 attendDecode (ops/flash_attention.h): avx512_decode.cpp's layout on
// 8 lanes (AVX2 + FMA + F16C; internal linkage but for the fill function,
// see x86_kernels.h). The queries padded to P = 1, 2, 4 or 8 lanes, R = 8 / P
// keys per vector (lane l = query l / R, key l % R of a group of R keys), so
// a group of 4 heads (Llama-3-8B's shape) fills the lanes attendTiled half
// fills; each query's output is attendTiled's bit for bit. More than 8 query
// heads: attendTiled (the wrapper checks attendDecodeQueries).
#include "ops/x86/x86_kernels.h"

#include "ops/expf.h"
#include "ops/flash_attention.h"
#include "ops/x86/tiled_out.h"

#include <immintrin.h>

namespace burrow::ops::x86 {

namespace {

constexpr int kLanes = 8;

template <int R>
inline __m256 broadcastR(const float *p)
{
    if constexpr (R == 1)
        return _mm256_broadcast_ss(p);
    else if constexpr (R == 2)
        return _mm256_castpd_ps(_mm256_broadcast_sd(reinterpret_cast<const double *>(p)));
    else if constexpr (R == 4)
        return _mm256_broadcast_ps(reinterpret_cast<const __m128 *>(p));
    else
        return _mm256_loadu_ps(p);
}

inline __m256 loadHalves8(const uint16_t *p)
{
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
}

// x[0..R): 8 dims of R keys -> R vectors of the same dims R-interleaved
// (log2 R rounds pairing vectors r and r + R / 2 element by element).
template <int R>
inline void interleave(__m256 *x)
{
    if constexpr (R > 1) {
        for (int round = 1; round < R; round *= 2) {
            __m256 y[R];
            for (int r = 0; r < R / 2; ++r) {
                const __m256 lo = _mm256_unpacklo_ps(x[r], x[r + R / 2]), hi = _mm256_unpackhi_ps(x[r], x[r + R / 2]);
                y[2 * r] = _mm256_permute2f128_ps(lo, hi, 0x20);
                y[2 * r + 1] = _mm256_permute2f128_ps(lo, hi, 0x31);
            }
            for (int r = 0; r < R; ++r)
                x[r] = y[r];
        }
    }
}

// A tile's keys into kI (R-interleaved; below lo and past n: zeros) and the
// value rows' addresses into vrow (below lo: a row of zeros).
template <int R>
void loadTile(const KvView &kv, uint32_t t0, int n, uint32_t lo, uint32_t hi, float *kI, const uint16_t **vrow)
{
    static const uint16_t zeros[kMaxFlashHeadDim] = {};
    const int dk = kv.dk;
    const int kLines = (dk * 2 + 63) / 64, vLines = (kv.dv * 2 + 63) / 64;
    const uint32_t next = t0 + kTileKeys;
    for (int g = 0; g < kTileKeys / R; ++g) {
        const uint16_t *rows[R];
        for (int r = 0; r < R; ++r) {
            const int tk = g * R + r;
            const uint32_t j = t0 + static_cast<uint32_t>(tk);
            rows[r] = nullptr;
            vrow[tk] = zeros;
            if (tk < n && j >= lo) {
                const size_t cell = kvCell(kv.blocks, j);
                rows[r] = kv.k + cell * kv.kStride;
                vrow[tk] = kv.v + cell * kv.vStride;
                if (next + static_cast<uint32_t>(tk) <= hi) {
                    const size_t nc = kvCell(kv.blocks, next + static_cast<uint32_t>(tk));
                    for (int l = 0; l < kLines; ++l)
                        _mm_prefetch(reinterpret_cast<const char *>(kv.k + nc * kv.kStride) + 64 * l, _MM_HINT_T0);
                    for (int l = 0; l < vLines; ++l)
                        _mm_prefetch(reinterpret_cast<const char *>(kv.v + nc * kv.vStride) + 64 * l, _MM_HINT_T0);
                }
            }
        }
        float *dst = kI + static_cast<size_t>(g) * dk * R;
        for (int d = 0; d < dk; d += kLanes) {
            __m256 x[R];
            for (int r = 0; r < R; ++r)
                x[r] = rows[r] ? loadHalves8(rows[r] + d) : _mm256_setzero_ps();
            interleave<R>(x);
            for (int r = 0; r < R; ++r)
                _mm256_storeu_ps(dst + static_cast<size_t>(d) * R + kLanes * r, x[r]);
        }
    }
}

template <int R, int NG>
inline void groupScores(const float *kI, int dk, const float *qI, int g0, float *sc)
{
    __m256 s[NG];
    for (int g = 0; g < NG; ++g)
        s[g] = _mm256_setzero_ps();
    const float *base = kI + static_cast<size_t>(g0) * dk * R;
    for (int d = 0; d < dk; ++d) {
        const __m256 q = _mm256_loadu_ps(qI + static_cast<size_t>(d) * kLanes);
        for (int g = 0; g < NG; ++g)
            s[g] = _mm256_fmadd_ps(q, broadcastR<R>(base + static_cast<size_t>(g) * dk * R + static_cast<size_t>(d) * R), s[g]);
    }
    for (int g = 0; g < NG; ++g)
        _mm256_storeu_ps(sc + static_cast<size_t>(g0 + g) * kLanes, s[g]);
}

// acc rows [i0, i0 + NJ), dims [d0, d0 + 8 C) += sum over keys tk < n of
// p(i, tk) V_tk, p(i, tk) = pb[(tk / R) 8 + i R + tk % R].
template <int R, int NJ, int C>
inline void groupValues(const uint16_t *const *vrow, int dv, int n, const float *pb, int i0, int d0, float *acc)
{
    __m256 a[NJ][C];
    for (int j = 0; j < NJ; ++j)
        for (int c = 0; c < C; ++c)
            a[j][c] = _mm256_loadu_ps(acc + static_cast<size_t>(i0 + j) * dv + d0 + kLanes * c);
    for (int tk = 0; tk < n; ++tk) {
        __m256 v[C];
        for (int c = 0; c < C; ++c)
            v[c] = loadHalves8(vrow[tk] + d0 + kLanes * c);
        const float *pr = pb + (tk / R) * kLanes + i0 * R + tk % R;
        for (int j = 0; j < NJ; ++j) {
            const __m256 b = _mm256_broadcast_ss(pr + j * R);
            for (int c = 0; c < C; ++c)
                a[j][c] = _mm256_fmadd_ps(b, v[c], a[j][c]);
        }
    }
    for (int j = 0; j < NJ; ++j)
        for (int c = 0; c < C; ++c)
            _mm256_storeu_ps(acc + static_cast<size_t>(i0 + j) * dv + d0 + kLanes * c, a[j][c]);
}

template <int R, int NJ, int C>
inline void tileValues(const uint16_t *const *vrow, int dv, int n, const float *pb, int nq, float *acc)
{
    for (int i0 = 0; i0 < nq; i0 += NJ) {
        int d0 = 0;
        for (; d0 + kLanes * C <= dv; d0 += kLanes * C)
            groupValues<R, NJ, C>(vrow, dv, n, pb, i0, d0, acc);
        for (; d0 < dv; d0 += kLanes)
            groupValues<R, NJ, 1>(vrow, dv, n, pb, i0, d0, acc);
    }
}

inline __m256 lanes(__m256 x, const int *idx)
{
    return _mm256_permutevar8x32_ps(x, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(idx)));
}

template <int R>
void decodeR(const KvView &kv, const TileQuery *queries, int nq, float *scratch)
{
    constexpr int P = kLanes / R, NG = kTileKeys / R;
    const int dk = kv.dk, dv = kv.dv;
    float *kI = scratch;                                    // [NG][dk][R]
    float *acc = kI + static_cast<size_t>(kTileKeys) * dk;  // [P][dv]
    float *qI = acc + static_cast<size_t>(P) * dv;          // [dk][8]
    float *sc = qI + static_cast<size_t>(dk) * kLanes;      // [NG][8]: scores, then p
    const uint32_t first = queries[0].first, last = queries[0].last;
    float M[P], S[P];
    for (int d = 0; d < dk; ++d)
        for (int l = 0; l < kLanes; ++l)
            qI[static_cast<size_t>(d) * kLanes + l] = l / R < nq ? queries[l / R].q[d] : 0.0f;
    for (int i = 0; i < P; ++i) {
        M[i] = -__builtin_inff();
        S[i] = 0.0f;
    }
    for (size_t e = 0; e < static_cast<size_t>(P) * dv; ++e)
        acc[e] = 0.0f;
    alignas(32) int32_t keyOf[kLanes], plus[3][kLanes], partner[3][kLanes];
    for (int l = 0; l < kLanes; ++l) {
        keyOf[l] = l % R;
        for (int b = 0; b < 3; ++b) {
            const int s = 1 << b;
            plus[b][l] = l % R + s < R ? l + s : l;
            partner[b][l] = (l / R) * R + ((l % R) ^ s) % R;
        }
    }
    const __m256i keyLane = _mm256_load_si256(reinterpret_cast<const __m256i *>(keyOf));
    // Positions are below 2^31 (the cache's capacity), so signed compares order them.
    const __m256i firstV = _mm256_set1_epi32(static_cast<int>(first)), lastV = _mm256_set1_epi32(static_cast<int>(last));
    const __m256 ninf = _mm256_set1_ps(-__builtin_inff());
    const uint16_t *vrow[kTileKeys];
    for (uint32_t t0 = first / kTileKeys * kTileKeys; t0 <= last; t0 += kTileKeys) {
        const int n = static_cast<int>(last - t0 + 1 < static_cast<uint32_t>(kTileKeys) ? last - t0 + 1 : kTileKeys);
        loadTile<R>(kv, t0, n, first, last, kI, vrow);
        for (int g0 = 0; g0 < NG; g0 += 8)
            groupScores<R, 8>(kI, dk, qI, g0, sc);
        __m256 tmax = ninf;
        for (int g = 0; g < NG; ++g) {
            float *pr = sc + static_cast<size_t>(g) * kLanes;
            __m256 s = _mm256_loadu_ps(pr);
            if (kv.softcap != 0.0f) {
                alignas(32) float tmp[kLanes];
                _mm256_store_ps(tmp, s);
                for (int l = 0; l < kLanes; ++l)
                    tmp[l] = kv.softcap * __builtin_tanhf(tmp[l] * (kv.scale / kv.softcap));
                s = _mm256_load_ps(tmp);
            } else {
                s = _mm256_mul_ps(s, _mm256_set1_ps(kv.scale));
            }
            const __m256i pos = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(t0 + static_cast<uint32_t>(g * R))), keyLane);
            const __m256i out = _mm256_or_si256(_mm256_cmpgt_epi32(firstV, pos), _mm256_cmpgt_epi32(pos, lastV));
            s = _mm256_blendv_ps(s, ninf, _mm256_castsi256_ps(out));
            _mm256_storeu_ps(pr, s);
            tmax = _mm256_max_ps(tmax, s);
        }
        for (int b = 0; (1 << b) < R; ++b)
            tmax = _mm256_max_ps(tmax, lanes(tmax, partner[b]));
        alignas(32) float tm[kLanes], mSafe[kLanes];
        _mm256_store_ps(tm, tmax);
        for (int i = 0; i < P; ++i) {
            const float mNew = M[i] > tm[i * R] ? M[i] : tm[i * R];
            if (i < nq && mNew > M[i]) {
                const float ms = __builtin_expf(M[i] - mNew);
                float *a = acc + static_cast<size_t>(i) * dv;
                for (int d = 0; d < dv; d += kLanes)
                    _mm256_storeu_ps(a + d, _mm256_mul_ps(_mm256_loadu_ps(a + d), _mm256_set1_ps(ms)));
                S[i] *= ms;
            }
            M[i] = mNew;
            for (int r = 0; r < R; ++r)
                mSafe[i * R + r] = mNew == -__builtin_inff() ? 0.0f : mNew;
        }
        const __m256 mv = _mm256_load_ps(mSafe);
        for (int g = 0; g < NG; ++g) {
            float *pr = sc + static_cast<size_t>(g) * kLanes;
            _mm256_storeu_ps(pr, simd::vexpf256(_mm256_sub_ps(_mm256_loadu_ps(pr), mv)));
        }
        // The sums of 16 keys (sum16Ref's halving tree), per query in double.
        double sums[P] = {};
        const int sixteens = (n + 15) / 16;
        constexpr int V16 = 16 / R;   // vectors holding 16 keys
        for (int c = 0; c < sixteens; ++c) {
            __m256 v[V16];
            for (int a = 0; a < V16; ++a)
                v[a] = _mm256_loadu_ps(sc + static_cast<size_t>(c * V16 + a) * kLanes);
            for (int b = 3; b >= 0; --b) {
                const int s = 1 << b;
                if (s >= R) {
                    for (int a = 0; a < s / R; ++a)
                        v[a] = _mm256_add_ps(v[a + s / R], v[a]);
                } else {
                    v[0] = _mm256_add_ps(lanes(v[0], plus[b]), v[0]);
                }
            }
            alignas(32) float r8[kLanes];
            _mm256_store_ps(r8, v[0]);
            for (int i = 0; i < nq; ++i)
                sums[i] += static_cast<double>(r8[i * R]);
        }
        for (int i = 0; i < nq; ++i)
            S[i] = static_cast<float>(S[i] + sums[i]);
        if constexpr (P == 8)
            tileValues<R, 8, 1>(vrow, dv, n, sc, nq, acc);
        else if constexpr (P == 4)
            tileValues<R, 4, 2>(vrow, dv, n, sc, nq, acc);
        else
            tileValues<R, P, 8 / P>(vrow, dv, n, sc, nq, acc);
    }
    simd::tiledOut256(acc, dv, M, S, queries, nq);
}

// nq <= 8, head sizes multiples of 16 (flash_attention.cpp checks).
void attendDecodeAvx2(const KvView &kv, const TileQuery *queries, int nq, float *scratch)
{
    if (nq == 1)
        decodeR<8>(kv, queries, nq, scratch);
    else if (nq == 2)
        decodeR<4>(kv, queries, nq, scratch);
    else if (nq <= 4)
        decodeR<2>(kv, queries, nq, scratch);
    else
        decodeR<1>(kv, queries, nq, scratch);
}

} // namespace

void fillAvx2Decode(Kernels &k)
{
    k.attendDecode = attendDecodeAvx2;
    k.attendDecodeQueries = kLanes;
}

} // namespace burrow::ops::x86
