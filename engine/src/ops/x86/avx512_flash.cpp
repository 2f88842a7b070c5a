// AVX-512 flash-attention kernels (ops/flash_attention.h has the contract
// and the rounding points; this file is compiled with AVX-512 F/BW/VL on top
// of AVX2 + FMA + F16C). Internal linkage for everything but the fill
// function and no std:: inline function (see x86_kernels.h).
#include "ops/x86/x86_kernels.h"

#include "ops/flash_attention.h"
#include "ops/generic/generic_kernels.h"
#include "ops/x86/vec_exp.h"
#include "quant/quant_blocks.h"

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
        __m512 dots[kMaxOnlineHeads];
        for (int g = 0; g < nHeads; ++g)
            dots[g] = _mm512_setzero_ps();
        for (int d = 0; d < dk; d += 16) {
            const int n = dk - d;
            const __m512 kvec = loadHalves(kj + d, n);
            for (int g = 0; g < nHeads; ++g)
                dots[g] = _mm512_fmadd_ps(kvec, _mm512_maskz_loadu_ps(tailMask(n), qf[g] + d), dots[g]);
        }
        for (int g = 0; g < nHeads; ++g) {
            const float s = scoreOf(kv, _mm512_reduce_add_ps(dots[g]));
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
                S[g] = S[g] * scale + 1.0f;
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

// Keys of a tile transposed (kt[d][tk], kTileKeys floats per d) so a query's
// 64 scores are 4 vectors; values row by row.
void attendTiledAvx512(const KvView &kv, const TileQuery *queries, int nq, float *scratch)
{
    const int dk = kv.dk, dv = kv.dv;
    float *kt = scratch;                                   // [dk][kTileKeys]
    float *vt = kt + static_cast<size_t>(kTileKeys) * dk;  // [kTileKeys][dv]
    float *acc = vt + static_cast<size_t>(kTileKeys) * dv; // [nq][dv]
    float M[kTileQueries], S[kTileQueries];
    uint32_t lo = queries[0].first, hi = queries[0].last;
    for (int i = 0; i < nq; ++i) {
        lo = queries[i].first < lo ? queries[i].first : lo;
        hi = queries[i].last > hi ? queries[i].last : hi;
        M[i] = -__builtin_inff();
        S[i] = 0.0f;
        for (int d = 0; d < dv; ++d)
            acc[static_cast<size_t>(i) * dv + d] = 0.0f;
    }
    alignas(64) float p[kTileKeys];
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (uint32_t t0 = lo / kTileKeys * kTileKeys; t0 <= hi; t0 += kTileKeys) {
        const int n = static_cast<int>(hi - t0 + 1 < static_cast<uint32_t>(kTileKeys) ? hi - t0 + 1 : kTileKeys);
        for (int tk = 0; tk < n; ++tk) {
            const size_t cell = kvCell(kv.blocks, t0 + static_cast<uint32_t>(tk));
            const uint16_t *kj = kv.k + cell * kv.kStride, *vj = kv.v + cell * kv.vStride;
            alignas(64) float row[kMaxFlashHeadDim];
            for (int d = 0; d < dk; d += 16)
                _mm512_storeu_ps(row + d, loadHalves(kj + d, dk - d));
            for (int d = 0; d < dk; ++d)
                kt[static_cast<size_t>(d) * kTileKeys + tk] = row[d];
            for (int d = 0; d < dv; d += 16)
                _mm512_mask_storeu_ps(vt + static_cast<size_t>(tk) * dv + d, tailMask(dv - d), loadHalves(vj + d, dv - d));
        }
        for (int tk = n; tk < kTileKeys; ++tk)   // keys past the end: zero (masked below)
            for (int d = 0; d < dk; ++d)
                kt[static_cast<size_t>(d) * kTileKeys + tk] = 0.0f;
        for (int i = 0; i < nq; ++i) {
            const TileQuery &qi = queries[i];
            if (qi.last < t0 || qi.first >= t0 + static_cast<uint32_t>(n))
                continue;
            __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
            for (int d = 0; d < dk; ++d) {
                const __m512 b = _mm512_set1_ps(qi.q[d]);
                const float *r = kt + static_cast<size_t>(d) * kTileKeys;
                s0 = _mm512_fmadd_ps(b, _mm512_loadu_ps(r), s0);
                s1 = _mm512_fmadd_ps(b, _mm512_loadu_ps(r + 16), s1);
                s2 = _mm512_fmadd_ps(b, _mm512_loadu_ps(r + 32), s2);
                s3 = _mm512_fmadd_ps(b, _mm512_loadu_ps(r + 48), s3);
            }
            _mm512_storeu_ps(p, s0);
            _mm512_storeu_ps(p + 16, s1);
            _mm512_storeu_ps(p + 32, s2);
            _mm512_storeu_ps(p + 48, s3);
            // Scores, the mask outside [first, last], the tile's maximum.
            const int64_t base = static_cast<int64_t>(t0);
            __m512 vmax = _mm512_set1_ps(-__builtin_inff());
            for (int c = 0; c < kTileKeys; c += 16) {
                __m512 sc = _mm512_loadu_ps(p + c);
                if (kv.softcap != 0.0f) {
                    alignas(64) float tmp[16];
                    _mm512_storeu_ps(tmp, sc);
                    for (int l = 0; l < 16; ++l)
                        tmp[l] = scoreOf(kv, tmp[l]);
                    sc = _mm512_loadu_ps(tmp);
                } else {
                    sc = _mm512_mul_ps(sc, _mm512_set1_ps(kv.scale));
                }
                const __m512i pos = _mm512_add_epi32(lane, _mm512_set1_epi32(static_cast<int>(base + c)));
                const __mmask16 in = _mm512_cmp_epi32_mask(pos, _mm512_set1_epi32(static_cast<int>(qi.first)), _MM_CMPINT_NLT) &
                                     _mm512_cmp_epi32_mask(pos, _mm512_set1_epi32(static_cast<int>(qi.last)), _MM_CMPINT_LE) &
                                     tailMask(n - c < 0 ? 0 : n - c);
                sc = _mm512_mask_mov_ps(_mm512_set1_ps(-__builtin_inff()), in, sc);
                _mm512_storeu_ps(p + c, sc);
                vmax = _mm512_max_ps(vmax, sc);
            }
            const float tileMax = _mm512_reduce_max_ps(vmax);
            if (tileMax == -__builtin_inff())
                continue;
            float *a = acc + static_cast<size_t>(i) * dv;
            const float mNew = M[i] > tileMax ? M[i] : tileMax;
            if (mNew > M[i]) {
                const float ms = __builtin_expf(M[i] - mNew);
                for (int d = 0; d < dv; d += 16)
                    _mm512_mask_storeu_ps(a + d, tailMask(dv - d),
                                          _mm512_mul_ps(_mm512_maskz_loadu_ps(tailMask(dv - d), a + d), _mm512_set1_ps(ms)));
                S[i] *= ms;
            }
            M[i] = mNew;
            double sum = 0.0;
            for (int c = 0; c < kTileKeys; c += 16) {
                const __m512 e = simd::exp512(_mm512_sub_ps(_mm512_loadu_ps(p + c), _mm512_set1_ps(mNew)));
                _mm512_storeu_ps(p + c, e);
                sum += static_cast<double>(_mm512_reduce_add_ps(e));
            }
            S[i] = static_cast<float>(S[i] + sum);
            for (int d = 0; d < dv; d += 64) {
                // Up to 4 vectors of the accumulator in registers over the tile's keys.
                const int w = dv - d;
                __m512 a0 = _mm512_maskz_loadu_ps(tailMask(w), a + d);
                __m512 a1 = _mm512_maskz_loadu_ps(tailMask(w - 16), a + d + 16);
                __m512 a2 = _mm512_maskz_loadu_ps(tailMask(w - 32), a + d + 32);
                __m512 a3 = _mm512_maskz_loadu_ps(tailMask(w - 48), a + d + 48);
                for (int tk = 0; tk < n; ++tk) {
                    if (p[tk] == 0.0f)
                        continue;
                    const __m512 b = _mm512_set1_ps(p[tk]);
                    const float *vr = vt + static_cast<size_t>(tk) * dv + d;
                    a0 = _mm512_fmadd_ps(b, _mm512_maskz_loadu_ps(tailMask(w), vr), a0);
                    if (w > 16) a1 = _mm512_fmadd_ps(b, _mm512_maskz_loadu_ps(tailMask(w - 16), vr + 16), a1);
                    if (w > 32) a2 = _mm512_fmadd_ps(b, _mm512_maskz_loadu_ps(tailMask(w - 32), vr + 32), a2);
                    if (w > 48) a3 = _mm512_fmadd_ps(b, _mm512_maskz_loadu_ps(tailMask(w - 48), vr + 48), a3);
                }
                _mm512_mask_storeu_ps(a + d, tailMask(w), a0);
                if (w > 16) _mm512_mask_storeu_ps(a + d + 16, tailMask(w - 16), a1);
                if (w > 32) _mm512_mask_storeu_ps(a + d + 32, tailMask(w - 32), a2);
                if (w > 48) _mm512_mask_storeu_ps(a + d + 48, tailMask(w - 48), a3);
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
        for (int d = 0; d < dv; d += 16) {
            __m512 o = _mm512_maskz_loadu_ps(tailMask(dv - d), a + d);
            if (scale != 1.0f)
                o = _mm512_mul_ps(o, _mm512_set1_ps(scale));
            _mm512_mask_storeu_ps(queries[i].out + d, tailMask(dv - d), _mm512_mul_ps(o, _mm512_set1_ps(inv)));
        }
    }
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
