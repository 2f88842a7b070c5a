// AVX2 + FMA + F16C flash-attention kernels (ops/flash_attention.h has the
// contract and the rounding points). Head sizes that are not a multiple of 8
// take the scalar twin. Internal linkage for everything but the fill
// function and no std:: inline function (see x86_kernels.h).
#include "ops/x86/x86_kernels.h"

#include "ops/flash_attention.h"
#include "ops/generic/generic_kernels.h"
#include "ops/x86/vec_exp.h"
#include "quant/quant_blocks.h"

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

inline float hmax(__m256 v)
{
    const __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 t = _mm_max_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_max_ss(t, _mm_movehdup_ps(t)));
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
        __m256 dots[kMaxOnlineHeads];
        for (int g = 0; g < nHeads; ++g)
            dots[g] = _mm256_setzero_ps();
        for (int d = 0; d < dk; d += 8) {
            const __m256 kvec = loadHalves8(kj + d);
            for (int g = 0; g < nHeads; ++g)
                dots[g] = _mm256_fmadd_ps(kvec, _mm256_loadu_ps(qf[g] + d), dots[g]);
        }
        for (int g = 0; g < nHeads; ++g) {
            const float s = scoreOf(kv, hsum(dots[g]));
            ms[g] = 1.0f;
            vs[g] = 1.0f;
            if (s > M[g]) {
                ms[g] = __builtin_expf(M[g] - s);
                M[g] = s;
            } else {
                vs[g] = __builtin_expf(s - M[g]);
            }
            S[g] = S[g] * ms[g] + vs[g];
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
                S[g] = S[g] * scale + 1.0f;
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

void attendTiledAvx2(const KvView &kv, const TileQuery *queries, int nq, float *scratch)
{
    const int dk = kv.dk, dv = kv.dv;
    if (dk % 8 != 0 || dv % 8 != 0) {
        generic::attendTiled(kv, queries, nq, scratch);
        return;
    }
    float *kt = scratch;                                   // [dk][kTileKeys]
    float *vt = kt + static_cast<size_t>(kTileKeys) * dk;  // [kTileKeys][dv]
    float *acc = vt + static_cast<size_t>(kTileKeys) * dv; // [nq][dv]
    float M[kTileCallQueries], S[kTileCallQueries];
    uint32_t lo = queries[0].first, hi = queries[0].last;
    for (int i = 0; i < nq; ++i) {
        lo = queries[i].first < lo ? queries[i].first : lo;
        hi = queries[i].last > hi ? queries[i].last : hi;
        M[i] = -__builtin_inff();
        S[i] = 0.0f;
        for (int d = 0; d < dv; ++d)
            acc[static_cast<size_t>(i) * dv + d] = 0.0f;
    }
    alignas(32) float p[kTileKeys];
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (uint32_t t0 = lo / kTileKeys * kTileKeys; t0 <= hi; t0 += kTileKeys) {
        const int n = static_cast<int>(hi - t0 + 1 < static_cast<uint32_t>(kTileKeys) ? hi - t0 + 1 : kTileKeys);
        for (int tk = 0; tk < n; ++tk) {
            const size_t cell = kvCell(kv.blocks, t0 + static_cast<uint32_t>(tk));
            const uint16_t *kj = kv.k + cell * kv.kStride, *vj = kv.v + cell * kv.vStride;
            alignas(32) float row[kMaxFlashHeadDim];
            for (int d = 0; d < dk; d += 8)
                _mm256_storeu_ps(row + d, loadHalves8(kj + d));
            for (int d = 0; d < dk; ++d)
                kt[static_cast<size_t>(d) * kTileKeys + tk] = row[d];
            for (int d = 0; d < dv; d += 8)
                _mm256_storeu_ps(vt + static_cast<size_t>(tk) * dv + d, loadHalves8(vj + d));
        }
        for (int tk = n; tk < kTileKeys; ++tk)
            for (int d = 0; d < dk; ++d)
                kt[static_cast<size_t>(d) * kTileKeys + tk] = 0.0f;
        for (int i = 0; i < nq; ++i) {
            const TileQuery &qi = queries[i];
            if (qi.last < t0 || qi.first >= t0 + static_cast<uint32_t>(n))
                continue;
            __m256 s[8];
            for (int c = 0; c < 8; ++c)
                s[c] = _mm256_setzero_ps();
            for (int d = 0; d < dk; ++d) {
                const __m256 b = _mm256_set1_ps(qi.q[d]);
                const float *r = kt + static_cast<size_t>(d) * kTileKeys;
                for (int c = 0; c < 8; ++c)
                    s[c] = _mm256_fmadd_ps(b, _mm256_loadu_ps(r + 8 * c), s[c]);
            }
            __m256 vmax = _mm256_set1_ps(-__builtin_inff());
            for (int c = 0; c < 8; ++c) {
                __m256 sc = s[c];
                if (kv.softcap != 0.0f) {
                    alignas(32) float tmp[8];
                    _mm256_storeu_ps(tmp, sc);
                    for (int l = 0; l < 8; ++l)
                        tmp[l] = scoreOf(kv, tmp[l]);
                    sc = _mm256_loadu_ps(tmp);
                } else {
                    sc = _mm256_mul_ps(sc, _mm256_set1_ps(kv.scale));
                }
                const __m256i pos = _mm256_add_epi32(lane, _mm256_set1_epi32(static_cast<int>(t0) + 8 * c));
                // first <= pos <= last and pos < t0 + n (signed compares; positions < 2^31).
                const __m256i below = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(qi.first)), pos);
                const __m256i above = _mm256_cmpgt_epi32(pos, _mm256_set1_epi32(static_cast<int>(qi.last)));
                const __m256i past = _mm256_cmpgt_epi32(pos, _mm256_set1_epi32(static_cast<int>(t0) + n - 1));
                const __m256 out = _mm256_castsi256_ps(_mm256_or_si256(_mm256_or_si256(below, above), past));
                sc = _mm256_blendv_ps(sc, _mm256_set1_ps(-__builtin_inff()), out);
                _mm256_storeu_ps(p + 8 * c, sc);
                vmax = _mm256_max_ps(vmax, sc);
            }
            const float tileMax = hmax(vmax);
            if (tileMax == -__builtin_inff())
                continue;
            float *a = acc + static_cast<size_t>(i) * dv;
            const float mNew = M[i] > tileMax ? M[i] : tileMax;
            if (mNew > M[i]) {
                const float ms = __builtin_expf(M[i] - mNew);
                for (int d = 0; d < dv; d += 8)
                    _mm256_storeu_ps(a + d, _mm256_mul_ps(_mm256_loadu_ps(a + d), _mm256_set1_ps(ms)));
                S[i] *= ms;
            }
            M[i] = mNew;
            double sum = 0.0;
            for (int c = 0; c < kTileKeys; c += 8) {
                const __m256 e = simd::exp256(_mm256_sub_ps(_mm256_loadu_ps(p + c), _mm256_set1_ps(mNew)));
                _mm256_storeu_ps(p + c, e);
                sum += static_cast<double>(hsum(e));
            }
            S[i] = static_cast<float>(S[i] + sum);
            for (int d = 0; d < dv; d += 32) {
                const int w = dv - d;   // a multiple of 8
                __m256 a0 = _mm256_loadu_ps(a + d);
                __m256 a1 = w > 8 ? _mm256_loadu_ps(a + d + 8) : _mm256_setzero_ps();
                __m256 a2 = w > 16 ? _mm256_loadu_ps(a + d + 16) : _mm256_setzero_ps();
                __m256 a3 = w > 24 ? _mm256_loadu_ps(a + d + 24) : _mm256_setzero_ps();
                for (int tk = 0; tk < n; ++tk) {
                    if (p[tk] == 0.0f)
                        continue;
                    const __m256 b = _mm256_set1_ps(p[tk]);
                    const float *vr = vt + static_cast<size_t>(tk) * dv + d;
                    a0 = _mm256_fmadd_ps(b, _mm256_loadu_ps(vr), a0);
                    if (w > 8) a1 = _mm256_fmadd_ps(b, _mm256_loadu_ps(vr + 8), a1);
                    if (w > 16) a2 = _mm256_fmadd_ps(b, _mm256_loadu_ps(vr + 16), a2);
                    if (w > 24) a3 = _mm256_fmadd_ps(b, _mm256_loadu_ps(vr + 24), a3);
                }
                _mm256_storeu_ps(a + d, a0);
                if (w > 8) _mm256_storeu_ps(a + d + 8, a1);
                if (w > 16) _mm256_storeu_ps(a + d + 16, a2);
                if (w > 24) _mm256_storeu_ps(a + d + 24, a3);
            }
        }
    }
    for (int i = 0; i < nq; ++i) {
        float *a = acc + static_cast<size_t>(i) * dv;
        float scale = 1.0f;
        const float sink = queries[i].sink;
        if (sink > -__builtin_inff()) {
            if (sink > M[i]) {
                scale = __builtin_expf(M[i] - sink);
                S[i] = S[i] * scale + 1.0f;
            } else {
                S[i] += __builtin_expf(sink - M[i]);
            }
        }
        const float inv = S[i] == 0.0f ? 0.0f : 1.0f / S[i];
        for (int d = 0; d < dv; d += 8) {
            __m256 o = _mm256_loadu_ps(a + d);
            if (scale != 1.0f)
                o = _mm256_mul_ps(o, _mm256_set1_ps(scale));
            _mm256_storeu_ps(queries[i].out + d, _mm256_mul_ps(o, _mm256_set1_ps(inv)));
        }
    }
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
            S[g] = S[g] * ms + vs;
        }
    }
    for (int g = 0; g < nHeads; ++g) {
        const float sink = sinks ? sinks[g] : kNoSink;
        float ms = 1.0f;
        if (sink > -__builtin_inff()) {
            if (sink > M[g]) {
                ms = __builtin_expf(M[g] - sink);
                S[g] = S[g] * ms + 1.0f;
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
