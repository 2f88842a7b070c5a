// Scalar twins of ops/flash_attention.h (contract and rounding points there).
// Compiled without contraction: the fused multiply-adds the contract names
// are written as std::fma.
#include "ops/flash_attention.h"
#include "ops/expf.h"
#include "ops/f16.h"
#include "ops/generic/generic_kernels.h"
#include "quant/quant_blocks.h"
#include "quant/quant_traits.h"

#include <algorithm>
#include <cmath>

namespace burrow::ops::generic {

namespace {

float scoreOf(const KvView &kv, float dot)
{
    if (kv.softcap != 0.0f)
        return kv.softcap * std::tanh(dot * (kv.scale / kv.softcap));
    return dot * kv.scale;
}

} // namespace

float sum16Ref(const float *x)
{
    float t[8], u[4];
    for (int i = 0; i < 8; ++i)
        t[i] = x[i + 8] + x[i];
    for (int i = 0; i < 4; ++i)
        u[i] = t[i + 4] + t[i];
    return (u[0] + u[2]) + (u[1] + u[3]);
}

float dotF16Ref(const float *k, const float *q, int n)
{
    float acc[4][16] = {};
    const int np = n - n % 64;
    for (int i = 0; i < np; i += 64)
        for (int a = 0; a < 4; ++a)
            for (int l = 0; l < 16; ++l)
                acc[a][l] = std::fma(k[i + 16 * a + l], q[i + 16 * a + l], acc[a][l]);
    float lanes[16];
    for (int l = 0; l < 16; ++l)
        lanes[l] = (acc[0][l] + acc[2][l]) + (acc[1][l] + acc[3][l]);
    for (int half = 8; half >= 1; half /= 2)
        for (int l = 0; l < half; ++l)
            lanes[l] = lanes[l] + lanes[l + half];
    double sum = lanes[0];
    for (int i = np; i < n; ++i)
        sum += static_cast<double>(k[i] * q[i]);
    return static_cast<float>(sum);
}

void attendOnline(const KvView &kv, uint32_t first, uint32_t last, int nHeads, const float *const *q,
                  float *const *out, const float *sinks)
{
    const int dk = kv.dk, dv = kv.dv;
    float qf[kMaxOnlineHeads][kMaxFlashHeadDim];
    uint16_t acc[kMaxOnlineHeads][kMaxFlashHeadDim];
    float M[kMaxOnlineHeads], S[kMaxOnlineHeads];
    for (int g = 0; g < nHeads; ++g) {
        for (int d = 0; d < dk; ++d)
            qf[g][d] = f16ToF32(f32ToF16(q[g][d]));
        std::fill(acc[g], acc[g] + dv, uint16_t{0});
        M[g] = -INFINITY;
        S[g] = 0.0f;
    }
    float kf[kMaxFlashHeadDim], vf[kMaxFlashHeadDim];
    for (uint32_t j = first; j <= last; ++j) {
        const size_t cell = kvCell(kv.blocks, j);
        const uint16_t *kj = kv.k + cell * kv.kStride, *vj = kv.v + cell * kv.vStride;
        for (int d = 0; d < dk; ++d)
            kf[d] = f16ToF32(kj[d]);
        for (int d = 0; d < dv; ++d)
            vf[d] = f16ToF32(vj[d]);
        for (int g = 0; g < nHeads; ++g) {
            const float s = scoreOf(kv, dotF16Ref(kf, qf[g], dk));
            float ms = 1.0f, vs = 1.0f;
            if (s > M[g]) {
                ms = std::exp(M[g] - s);
                M[g] = s;
                for (int d = 0; d < dv; ++d)
                    acc[g][d] = f32ToF16(f16ToF32(acc[g][d]) * ms);
            } else {
                vs = std::exp(s - M[g]);
            }
            for (int d = 0; d < dv; ++d)
                acc[g][d] = f32ToF16(std::fma(vf[d], vs, f16ToF32(acc[g][d])));
            S[g] = std::fma(S[g], ms, vs);   // the reference's S*ms + vs, contracted
        }
    }
    for (int g = 0; g < nHeads; ++g) {
        float *o = out[g];
        for (int d = 0; d < dv; ++d)
            o[d] = f16ToF32(acc[g][d]);
        const float sink = sinks ? sinks[g] : kNoSink;
        if (sink > -INFINITY) {
            if (sink > M[g]) {
                const float ms = std::exp(M[g] - sink);
                for (int d = 0; d < dv; ++d)
                    o[d] *= ms;
                S[g] = std::fma(S[g], ms, 1.0f);
            } else {
                S[g] += std::exp(sink - M[g]);
            }
        }
        const float inv = S[g] == 0.0f ? 0.0f : 1.0f / S[g];
        for (int d = 0; d < dv; ++d)
            o[d] *= inv;
    }
}

Q8_0Ops q8_0Ops()
{
    const quant::TypeTraits &t = *quant::typeTraits(GgmlType::GGML_TYPE_Q8_0);
    return {t.quantizeActivation, t.vecDotMulti};
}

void attendOnlineQ8_0(const KvView &kv, uint32_t first, uint32_t last, int nHeads, const float *const *q,
                      float *const *out, const float *sinks)
{
    const int dk = kv.dk, dv = kv.dv;
    const Q8_0Ops q8 = q8_0Ops();
    const size_t qRow = q8_0RowHalves(static_cast<size_t>(dk));   // halves per quantized query
    uint16_t qq[kMaxOnlineHeads * q8_0RowHalves(kMaxFlashHeadDim)];
    float acc[kMaxOnlineHeads][kMaxFlashHeadDim];
    float M[kMaxOnlineHeads], S[kMaxOnlineHeads], dots[kMaxOnlineHeads];
    for (int g = 0; g < nHeads; ++g) {
        q8.quantize(q[g], qq + static_cast<size_t>(g) * qRow, dk);
        std::fill(acc[g], acc[g] + dv, 0.0f);
        M[g] = -INFINITY;
        S[g] = 0.0f;
    }
    float vf[kMaxFlashHeadDim];
    for (uint32_t j = first; j <= last; ++j) {
        const size_t cell = kvCell(kv.blocks, j);
        const uint16_t *kj = kv.k + cell * kv.kStride;
        const auto *vj = reinterpret_cast<const quant::BlockQ8_0 *>(kv.v + cell * kv.vStride);
        q8.dotMulti(dk, dots, kj, qq, qRow * sizeof(uint16_t), nHeads);
        for (int b = 0; b < dv / 32; ++b) {
            const float d = f16ToF32(vj[b].d);
            for (int i = 0; i < 32; ++i)
                vf[b * 32 + i] = static_cast<float>(vj[b].qs[i]) * d;
        }
        for (int g = 0; g < nHeads; ++g) {
            const float s = scoreOf(kv, dots[g]);
            float ms = 1.0f, vs = 1.0f;
            if (s > M[g]) {
                ms = std::exp(M[g] - s);
                M[g] = s;
                for (int d = 0; d < dv; ++d)
                    acc[g][d] *= ms;
            } else {
                vs = std::exp(s - M[g]);
            }
            for (int d = 0; d < dv; ++d)
                acc[g][d] = std::fma(vf[d], vs, acc[g][d]);
            S[g] = std::fma(S[g], ms, vs);   // the reference's S*ms + vs, contracted
        }
    }
    for (int g = 0; g < nHeads; ++g) {
        float *o = out[g];
        const float sink = sinks ? sinks[g] : kNoSink;
        if (sink > -INFINITY) {
            if (sink > M[g]) {
                const float ms = std::exp(M[g] - sink);
                for (int d = 0; d < dv; ++d)
                    acc[g][d] *= ms;
                S[g] = std::fma(S[g], ms, 1.0f);
            } else {
                S[g] += std::exp(sink - M[g]);
            }
        }
        const float inv = S[g] == 0.0f ? 0.0f : 1.0f / S[g];
        for (int d = 0; d < dv; ++d)
            o[d] = acc[g][d] * inv;
    }
}

namespace {

// attendTiled's recipe (flash_attention.h) over a tile source: tile.load(t0,
// n, lo) makes keys t0 + [0, n) ready (those below lo masked for every
// query, maybe not held) and fills vt [kTileKeys][dv] with their values as
// floats (zeros below lo); tile.dot(i, tk) is query i's raw score of key tk.
template <class Tile>
void tiledRecipe(const KvView &kv, const TileQuery *queries, int nq, float *vt, float *acc, Tile &tile)
{
    const int dv = kv.dv;
    float M[kTileCallQueries], S[kTileCallQueries];
    uint32_t lo = queries[0].first, hi = queries[0].last;
    for (int i = 0; i < nq; ++i) {
        lo = std::min(lo, queries[i].first);
        hi = std::max(hi, queries[i].last);
        M[i] = -INFINITY;
        S[i] = 0.0f;
        std::fill(acc + static_cast<size_t>(i) * dv, acc + static_cast<size_t>(i + 1) * dv, 0.0f);
    }
    float p[kTileKeys];
    for (uint32_t t0 = lo / kTileKeys * kTileKeys; t0 <= hi; t0 += kTileKeys) {
        const int n = static_cast<int>(std::min<uint32_t>(kTileKeys, hi - t0 + 1));
        tile.load(t0, n, lo);
        for (int i = 0; i < nq; ++i) {
            const TileQuery &qi = queries[i];
            if (qi.last < t0 || qi.first >= t0 + static_cast<uint32_t>(n))
                continue;   // a tile all masked for this query changes nothing
            float tileMax = -INFINITY;
            for (int tk = 0; tk < n; ++tk) {
                const uint32_t j = t0 + static_cast<uint32_t>(tk);
                if (j < qi.first || j > qi.last) {
                    p[tk] = -INFINITY;
                    continue;
                }
                p[tk] = scoreOf(kv, tile.dot(i, tk));
                tileMax = std::max(tileMax, p[tk]);
            }
            if (tileMax == -INFINITY)
                continue;
            float *a = acc + static_cast<size_t>(i) * dv;
            const float mNew = std::max(M[i], tileMax);
            if (mNew > M[i]) {
                const float ms = std::exp(M[i] - mNew);
                for (int d = 0; d < dv; ++d)
                    a[d] *= ms;
                S[i] *= ms;
            }
            M[i] = mNew;
            for (int tk = 0; tk < n; ++tk)
                p[tk] = vexpf(p[tk] - mNew);   // masked: e^-inf = 0
            for (int tk = n; tk < (n + 15) / 16 * 16; ++tk)
                p[tk] = 0.0f;                  // the tile's padding keys
            double sum = 0.0;
            for (int g = 0; g < n; g += 16)
                sum += sum16Ref(p + g);
            S[i] = static_cast<float>(S[i] + sum);
            for (int tk = 0; tk < n; ++tk) {
                if (p[tk] == 0.0f)
                    continue;
                const float *vr = vt + static_cast<size_t>(tk) * dv;
                for (int d = 0; d < dv; ++d)
                    a[d] = std::fma(p[tk], vr[d], a[d]);
            }
        }
    }
    for (int i = 0; i < nq; ++i) {
        const float *a = acc + static_cast<size_t>(i) * dv;
        float scale, inv;
        tiledFinish(M[i], S[i], queries[i].sink, scale, inv);
        for (int d = 0; d < dv; ++d)
            queries[i].out[d] = a[d] * scale * inv;   // scale 1: a itself
    }
}

// An F16 cache's tile: keys and values converted to floats; the score one
// fused chain over the dims from 0.
struct F16Tile {
    const KvView &kv;
    const TileQuery *queries;
    float *kt;   // [kTileKeys][dk]
    float *vt;
    void load(uint32_t t0, int n, uint32_t lo)
    {
        const int dk = kv.dk, dv = kv.dv;
        for (int tk = 0; tk < n; ++tk) {
            if (t0 + static_cast<uint32_t>(tk) < lo) {   // below every query's keys: masked, and maybe not held
                std::fill(kt + static_cast<size_t>(tk) * dk, kt + static_cast<size_t>(tk + 1) * dk, 0.0f);
                std::fill(vt + static_cast<size_t>(tk) * dv, vt + static_cast<size_t>(tk + 1) * dv, 0.0f);
                continue;
            }
            const size_t cell = kvCell(kv.blocks, t0 + static_cast<uint32_t>(tk));
            const uint16_t *kj = kv.k + cell * kv.kStride, *vj = kv.v + cell * kv.vStride;
            for (int d = 0; d < dk; ++d)
                kt[static_cast<size_t>(tk) * dk + d] = f16ToF32(kj[d]);
            for (int d = 0; d < dv; ++d)
                vt[static_cast<size_t>(tk) * dv + d] = f16ToF32(vj[d]);
        }
    }
    float dot(int i, int tk) const
    {
        const float *q = queries[i].q, *k = kt + static_cast<size_t>(tk) * kv.dk;
        float s = 0.0f;
        for (int d = 0; d < kv.dk; ++d)
            s = std::fma(q[d], k[d], s);
        return s;
    }
};

// A Q8_0 cache's tile: the key rows' blocks read in place; the values
// dequantized (d q, one float product).
struct Q8_0Tile {
    const KvView &kv;
    const quant::BlockQ8_0 *qq;   // [nq][dk / 32] the quantized queries
    float *vt;
    const quant::BlockQ8_0 *krow[kTileKeys] = {};
    void load(uint32_t t0, int n, uint32_t lo)
    {
        const int dv = kv.dv;
        for (int tk = 0; tk < n; ++tk) {
            float *vr = vt + static_cast<size_t>(tk) * dv;
            if (t0 + static_cast<uint32_t>(tk) < lo) {
                krow[tk] = nullptr;
                std::fill(vr, vr + dv, 0.0f);
                continue;
            }
            const size_t cell = kvCell(kv.blocks, t0 + static_cast<uint32_t>(tk));
            krow[tk] = reinterpret_cast<const quant::BlockQ8_0 *>(kv.k + cell * kv.kStride);
            const auto *vb = reinterpret_cast<const quant::BlockQ8_0 *>(kv.v + cell * kv.vStride);
            for (int b = 0; b < dv / 32; ++b) {
                const float d = f16ToF32(vb[b].d);
                for (int e = 0; e < 32; ++e)
                    vr[32 * b + e] = d * static_cast<float>(vb[b].qs[e]);
            }
        }
    }
    float dot(int i, int tk) const
    {
        const int nb = kv.dk / 32;
        return dotQ8_0Tiled(krow[tk], qq + static_cast<size_t>(i) * nb, nb);
    }
};

} // namespace

float dotQ8_0Tiled(const quant::BlockQ8_0 *k, const quant::BlockQ8_0 *q, int nb)
{
    float s = 0.0f;
    for (int b = 0; b < nb; ++b) {
        int32_t sumi = 0;
        for (int e = 0; e < 32; ++e)
            sumi += static_cast<int32_t>(k[b].qs[e]) * static_cast<int32_t>(q[b].qs[e]);
        s = std::fma(static_cast<float>(sumi), f16ToF32(k[b].d) * f16ToF32(q[b].d), s);
    }
    return s;
}

void attendTiled(const KvView &kv, const TileQuery *queries, int nq, float *scratch)
{
    float *kt = scratch;                                          // [kTileKeys][dk]
    float *vt = kt + static_cast<size_t>(kTileKeys) * kv.dk;      // [kTileKeys][dv]
    float *acc = vt + static_cast<size_t>(kTileKeys) * kv.dv;     // [nq][dv]
    F16Tile tile{kv, queries, kt, vt};
    tiledRecipe(kv, queries, nq, vt, acc, tile);
}

void attendTiledQ8_0(const KvView &kv, const TileQuery *queries, int nq, float *scratch)
{
    float *vt = scratch;                                          // [kTileKeys][dv]
    float *acc = vt + static_cast<size_t>(kTileKeys) * kv.dv;     // [nq][dv]
    auto *qq = reinterpret_cast<quant::BlockQ8_0 *>(acc + static_cast<size_t>(nq) * kv.dv);
    const int nb = kv.dk / 32;
    const Q8_0Ops q8 = q8_0Ops();
    for (int i = 0; i < nq; ++i)
        q8.quantize(queries[i].q, qq + static_cast<size_t>(i) * nb, kv.dk);
    Q8_0Tile tile{kv, qq, vt};
    tiledRecipe(kv, queries, nq, vt, acc, tile);
}

} // namespace burrow::ops::generic
