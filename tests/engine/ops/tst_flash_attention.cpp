// The flash-attention kernels (ops/flash_attention.h) on every CPU path this
// machine offers, forced in turn:
//   - attendOnline against an emulation written here of the reference's
//     one_chunk recipe (F16 query, its ggml_vec_dot_f16 order, online
//     softmax, F16 accumulator rounded per key, S updated by one fused
//     multiply-add), bit for bit, and against the exact softmax in double;
//   - attendTiled against an emulation written here of the reference's tiled
//     recipe (ggml_compute_forward_flash_attn_ext_tiled: tiles of 64 keys
//     from position 0, K . q as one fused chain over the dims, the tile's
//     softmax by the reference's AVX-512 e^x summed 16 at a time as
//     _mm512_reduce_add_ps into double, the rescale by libm's expf, p V as
//     one fused chain over the tile's keys), bit for bit, and against the
//     exact softmax in double (its accumulator is F32), with keys spanning
//     several tiles, per-query ranges (causal ends and sliding-window starts
//     at the window edges), softcapping;
//   - sinks against a softmax with the sink worked out in double, and no sink
//     (-infinity) bit for bit equal to not passing one;
//   - attendDecode (the query heads of one position) against the scalar
//     attendTiled, bit for bit, for 1 to 16 heads, head sizes 64 to 256,
//     windows, softcapping, sinks, keys from one to many tiles;
//   - block tables: keys scattered over shuffled 16-position blocks give bit
//     for bit the result of the same keys laid out in order.
#include "ops/expf.h"
#include "ops/flash_attention.h"
#include "ops/f16.h"
#include "quant/cpu_features.h"
#include "test_support.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

using namespace burrow;
using namespace burrow::ops;

namespace {

// A sequence of nKeys cached positions of one KV head: keys and values as
// halves, in cells of a block table (identity, or shuffled blocks).
struct Cache {
    int dk = 0, dv = 0;
    uint32_t nKeys = 0;
    std::vector<uint16_t> k, v;          // [cells][stride]
    size_t kStride = 0, vStride = 0;
    std::vector<int32_t> blocks;         // empty: linear
    KvView view(float scale, float softcap) const
    {
        KvView x;
        x.k = k.data();
        x.kStride = kStride;
        x.v = v.data();
        x.vStride = vStride;
        x.blocks = blocks.empty() ? nullptr : blocks.data();
        x.dk = dk;
        x.dv = dv;
        x.scale = scale;
        x.softcap = softcap;
        return x;
    }
    const uint16_t *key(uint32_t j) const { return k.data() + kvCell(blocks.empty() ? nullptr : blocks.data(), j) * kStride; }
    const uint16_t *value(uint32_t j) const { return v.data() + kvCell(blocks.empty() ? nullptr : blocks.data(), j) * vStride; }
};

// Keys drawn from N(0, 1) (values too); with `shuffle`, the position -> cell
// map goes through a random permutation of blocks (and spare cells between).
Cache makeCache(int dk, int dv, uint32_t nKeys, bool shuffle, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    Cache c;
    c.dk = dk;
    c.dv = dv;
    c.nKeys = nKeys;
    c.kStride = static_cast<size_t>(dk) + 3;   // other heads' halves between rows
    c.vStride = static_cast<size_t>(dv) + 5;
    const uint32_t nBlocks = (nKeys + 15) / 16;
    const uint32_t cells = (nBlocks * 2 + 1) * 16;
    c.k.resize(cells * c.kStride);
    c.v.resize(cells * c.vStride);
    for (uint16_t &e : c.k)
        e = f32ToF16(nd(rng));
    for (uint16_t &e : c.v)
        e = f32ToF16(nd(rng));
    if (shuffle) {
        std::vector<int32_t> perm(nBlocks * 2 + 1);
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng);
        c.blocks.assign(perm.begin(), perm.begin() + nBlocks);
    }
    return c;
}

// The same keys and values in order (cell = position).
Cache linearCopy(const Cache &c)
{
    Cache l = c;
    l.blocks.clear();
    l.k.assign(c.k.size(), 0);
    l.v.assign(c.v.size(), 0);
    for (uint32_t j = 0; j < c.nKeys; ++j) {
        std::memcpy(l.k.data() + j * l.kStride, c.key(j), c.dk * sizeof(uint16_t));
        std::memcpy(l.v.data() + j * l.vStride, c.value(j), c.dv * sizeof(uint16_t));
    }
    return l;
}

std::vector<float> randomQuery(int dk, float scale, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float> q(static_cast<size_t>(dk));
    for (float &e : q)
        e = nd(rng) * scale;
    return q;
}

double scoreOf(double dot, float scale, float softcap)
{
    return softcap != 0.0f ? softcap * std::tanh(dot * scale / softcap) : dot * scale;
}

// Exact attention in double: softmax over [first, last] (and the sink).
std::vector<double> exactAttention(const Cache &c, const float *q, uint32_t first, uint32_t last, float scale,
                                   float softcap, float sink, bool queryAsHalves)
{
    std::vector<double> s;
    double m = -INFINITY;
    for (uint32_t j = first; j <= last; ++j) {
        double d = 0;
        for (int i = 0; i < c.dk; ++i)
            d += static_cast<double>(f16ToF32(c.key(j)[i])) * (queryAsHalves ? f16ToF32(f32ToF16(q[i])) : q[i]);
        s.push_back(scoreOf(d, scale, softcap));
        m = std::max(m, s.back());
    }
    const bool hasSink = sink > -INFINITY;
    if (hasSink)
        m = std::max(m, static_cast<double>(sink));
    double sum = hasSink ? std::exp(sink - m) : 0.0;
    for (double &x : s) {
        x = std::exp(x - m);
        sum += x;
    }
    std::vector<double> out(static_cast<size_t>(c.dv), 0.0);
    for (uint32_t j = first; j <= last; ++j)
        for (int d = 0; d < c.dv; ++d)
            out[static_cast<size_t>(d)] += s[j - first] / sum * f16ToF32(c.value(j)[d]);
    return out;
}

// The reference's one_chunk recipe, step by step in float (independent of
// the kernels' code): what attendOnline must give up to the dot products'
// summation order.
std::vector<float> oneChunkEmulation(const Cache &c, const float *q, uint32_t first, uint32_t last, float scale,
                                     float softcap, float sink)
{
    std::vector<float> qh(static_cast<size_t>(c.dk));
    for (int i = 0; i < c.dk; ++i)
        qh[static_cast<size_t>(i)] = f16ToF32(f32ToF16(q[i]));
    std::vector<uint16_t> acc(static_cast<size_t>(c.dv), f32ToF16(0.0f));
    float M = -INFINITY, S = 0.0f;
    for (uint32_t j = first; j <= last; ++j) {
        // ggml_vec_dot_f16 of the reference's AVX-512 build: 4 accumulators of
        // 16 lanes over each 64 elements, (a0 + a2) + (a1 + a3), the lanes
        // halved, the tail added in double.
        float lanes[4][16] = {};
        const int np = c.dk - c.dk % 64;
        for (int i = 0; i < np; i += 64)
            for (int a = 0; a < 4; ++a)
                for (int l = 0; l < 16; ++l)
                    lanes[a][l] = std::fma(f16ToF32(c.key(j)[i + 16 * a + l]), qh[static_cast<size_t>(i + 16 * a + l)], lanes[a][l]);
        float sum[16];
        for (int l = 0; l < 16; ++l)
            sum[l] = (lanes[0][l] + lanes[2][l]) + (lanes[1][l] + lanes[3][l]);
        for (int half = 8; half >= 1; half /= 2)
            for (int l = 0; l < half; ++l)
                sum[l] += sum[l + half];
        double dot = sum[0];
        for (int i = np; i < c.dk; ++i)
            dot += static_cast<double>(f16ToF32(c.key(j)[i]) * qh[static_cast<size_t>(i)]);
        float sc = static_cast<float>(dot);
        sc = softcap != 0.0f ? softcap * std::tanh(sc * (scale / softcap)) : sc * scale;
        float ms = 1.0f, vs = 1.0f;
        if (sc > M) {
            ms = std::exp(M - sc);
            M = sc;
            for (uint16_t &a : acc)
                a = f32ToF16(f16ToF32(a) * ms);
        } else {
            vs = std::exp(sc - M);
        }
        for (int d = 0; d < c.dv; ++d)
            acc[static_cast<size_t>(d)] = f32ToF16(std::fma(f16ToF32(c.value(j)[d]), vs, f16ToF32(acc[static_cast<size_t>(d)])));
        S = std::fma(S, ms, vs);   // the reference's S*ms + vs, contracted by its build
    }
    std::vector<float> out(static_cast<size_t>(c.dv));
    for (int d = 0; d < c.dv; ++d)
        out[static_cast<size_t>(d)] = f16ToF32(acc[static_cast<size_t>(d)]);
    if (sink > -INFINITY) {
        if (sink > M) {
            const float ms = std::exp(M - sink);
            for (float &o : out)
                o *= ms;
            S = std::fma(S, ms, 1.0f);
        } else {
            S += std::exp(sink - M);
        }
    }
    for (float &o : out)
        o *= 1.0f / S;
    return out;
}

// The reference's tiled recipe for one query row (its result does not
// depend on the other rows of its tile), step by step in float,
// independent of the kernels' code.
std::vector<float> tiledEmulation(const Cache &c, const float *q, uint32_t first, uint32_t last, float scale,
                                  float softcap, float sink)
{
    constexpr int T = 64;   // GGML_FA_TILE_KV
    const float sc = softcap != 0.0f ? scale / softcap : scale;
    std::vector<float> vkq(static_cast<size_t>(c.dv), 0.0f);
    float M = -INFINITY, S = 0.0f;
    for (uint32_t ic = 0; ic < c.nKeys; ic += T) {
        const int kvTile = static_cast<int>(std::min<uint32_t>(T, c.nKeys - ic));
        float mask[T], kq[T];
        bool skip = true;
        for (int tk = 0; tk < T; ++tk) {
            const uint32_t j = ic + static_cast<uint32_t>(tk);
            mask[tk] = tk < kvTile && j >= first && j <= last ? 0.0f : -INFINITY;
            skip = skip && mask[tk] == -INFINITY;
        }
        if (skip)
            continue;
        for (int tk = 0; tk < T; ++tk) {
            float a = 0.0f;   // simd_gemm: C += A B, one fused chain over the dims
            if (tk < kvTile)
                for (int d = 0; d < c.dk; ++d)
                    a = std::fma(f16ToF32(c.key(ic + static_cast<uint32_t>(tk))[d]), q[d], a);
            kq[tk] = a * sc;
            if (tk >= kvTile)
                kq[tk] = -INFINITY;
            if (softcap != 0.0f)
                kq[tk] = std::tanh(kq[tk]) * softcap;
            kq[tk] += mask[tk];
        }
        float tileMax = -INFINITY;
        for (float x : kq)
            tileMax = std::max(tileMax, x);
        if (tileMax == -INFINITY)
            continue;
        const float mNew = std::max(M, tileMax);
        if (mNew > M) {
            const float ms = std::exp(M - mNew);
            for (float &a : vkq)
                a *= ms;
            S *= ms;
        }
        M = mNew;
        double sum = 0.0;   // ggml_vec_soft_max_f32, AVX-512: 16 at a time
        for (int g = 0; g < T; g += 16) {
            float e[16];
            for (int l = 0; l < 16; ++l)
                e[l] = kq[g + l] = vexpf(kq[g + l] - mNew);
            float h[8], r[4];
            for (int l = 0; l < 8; ++l)
                h[l] = e[l + 8] + e[l];
            for (int l = 0; l < 4; ++l)
                r[l] = h[l + 4] + h[l];
            sum += static_cast<double>((r[0] + r[2]) + (r[1] + r[3]));
        }
        S = static_cast<float>(S + sum);
        for (int d = 0; d < c.dv; ++d) {
            float a = vkq[static_cast<size_t>(d)];
            for (int tk = 0; tk < T; ++tk)
                a = std::fma(kq[tk], tk < kvTile ? f16ToF32(c.value(ic + static_cast<uint32_t>(tk))[d]) : 0.0f, a);
            vkq[static_cast<size_t>(d)] = a;
        }
    }
    if (sink > -INFINITY) {
        float ms = 1.0f, vs = 1.0f;
        if (sink > M) {
            ms = std::exp(M - sink);
            for (float &a : vkq)
                a *= ms;
        } else {
            vs = std::exp(sink - M);
        }
        S = std::fma(S, ms, vs);   // S*ms + vs, contracted as in one_chunk
    }
    const float inv = S == 0.0f ? 0.0f : 1.0f / S;
    for (float &a : vkq)
        a *= inv;
    return vkq;
}

template <typename V>
double normalizedRms(const std::vector<float> &a, const std::vector<V> &ref)
{
    double err = 0, norm = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        err += (a[i] - static_cast<double>(ref[i])) * (a[i] - static_cast<double>(ref[i]));
        norm += static_cast<double>(ref[i]) * static_cast<double>(ref[i]);
    }
    return norm > 0 ? std::sqrt(err / norm) : std::sqrt(err);
}

bool sameBits(const std::vector<float> &a, const std::vector<float> &b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

void addPathRows(const char *suffix = "")
{
    for (quant::CpuPath p : {quant::CpuPath::CPU_PATH_SCALAR, quant::CpuPath::CPU_PATH_AVX2, quant::CpuPath::CPU_PATH_AVX512})
        if (quant::cpuPathSupported(p))
            QTest::newRow((std::string(quant::cpuPathName(p)) + suffix).c_str()) << static_cast<int>(p);
}

// The F16 accumulator rounds after every key: against exact attention the
// output moves by up to ~1e-3 of its norm (hundreds of keys); the emulation
// takes the same steps (the reference's dot product order, the fused S
// update), so every path gives its bits exactly.
constexpr double kOnlineVsExact = 3e-3;
constexpr double kOnlineVsEmulation = 0.0;
// The tiled path accumulates in F32: close to exact attention.
constexpr double kTiledVsExact = 2e-5;

} // namespace

class TestFlashAttention : public QObject {
    Q_OBJECT

private slots:
    void cleanup() { quant::setCpuPath(quant::bestCpuPath()); }

    void onlineMatchesReferenceRecipe_data()
    {
        QTest::addColumn<int>("path");
        QTest::addColumn<int>("dk");
        QTest::addColumn<int>("dv");
        QTest::addColumn<int>("heads");
        QTest::addColumn<uint32_t>("keys");
        QTest::addColumn<uint32_t>("first");
        QTest::addColumn<float>("softcap");
        QTest::addColumn<float>("sink");
        QTest::addColumn<bool>("shuffle");
        struct Case { const char *name; int dk, dv, heads; uint32_t keys, first; float softcap, sink; bool shuffle; };
        const Case cases[] = {
            {"one key", 64, 64, 1, 1, 0, 0.0f, kNoSink, false},
            {"128, 4 heads, 300 keys", 128, 128, 4, 300, 0, 0.0f, kNoSink, true},
            {"64, 8 heads, window", 64, 64, 8, 200, 120, 0.0f, kNoSink, true},
            {"256 (gemma), softcap", 256, 256, 2, 90, 0, 50.0f, kNoSink, false},
            {"sink above the scores", 64, 64, 2, 40, 0, 0.0f, 6.0f, true},
            {"sink below the scores", 64, 64, 2, 40, 0, 0.0f, -4.0f, false},
            {"head size 80", 80, 80, 3, 70, 5, 0.0f, kNoSink, false},
            {"dk 96, dv 64", 96, 64, 2, 33, 0, 0.0f, 0.5f, true},
        };
        for (quant::CpuPath p : {quant::CpuPath::CPU_PATH_SCALAR, quant::CpuPath::CPU_PATH_AVX2, quant::CpuPath::CPU_PATH_AVX512}) {
            if (!quant::cpuPathSupported(p))
                continue;
            for (const Case &c : cases)
                QTest::newRow((std::string(quant::cpuPathName(p)) + ": " + c.name).c_str())
                    << static_cast<int>(p) << c.dk << c.dv << c.heads << c.keys << c.first << c.softcap << c.sink
                    << c.shuffle;
        }
    }

    void onlineMatchesReferenceRecipe()
    {
        QFETCH(int, path);
        QFETCH(int, dk);
        QFETCH(int, dv);
        QFETCH(int, heads);
        QFETCH(uint32_t, keys);
        QFETCH(uint32_t, first);
        QFETCH(float, softcap);
        QFETCH(float, sink);
        QFETCH(bool, shuffle);
        quant::setCpuPath(static_cast<quant::CpuPath>(path));
        const Cache c = makeCache(dk, dv, keys, shuffle, 7u + keys);
        const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
        std::vector<std::vector<float>> q, out(static_cast<size_t>(heads), std::vector<float>(static_cast<size_t>(dv)));
        std::vector<const float *> qp;
        std::vector<float *> op;
        std::vector<float> sinks(static_cast<size_t>(heads), sink);
        for (int g = 0; g < heads; ++g) {
            q.push_back(randomQuery(dk, 1.5f, 100u + static_cast<uint32_t>(g)));
            qp.push_back(q.back().data());
        }
        for (auto &o : out)
            op.push_back(o.data());
        attendOnline(c.view(scale, softcap), first, keys - 1, heads, qp.data(), op.data(), sinks.data());
        for (int g = 0; g < heads; ++g) {
            const std::vector<float> emulated = oneChunkEmulation(c, qp[static_cast<size_t>(g)], first, keys - 1, scale, softcap, sink);
            const std::vector<double> exact = exactAttention(c, qp[static_cast<size_t>(g)], first, keys - 1, scale, softcap, sink, true);
            const double vsEmulation = normalizedRms(out[static_cast<size_t>(g)], emulated);
            const double vsExact = normalizedRms(out[static_cast<size_t>(g)], exact);
            QVERIFY2(vsEmulation <= kOnlineVsEmulation, qPrintable(QString("head %1: %2 from the one_chunk recipe").arg(g).arg(vsEmulation)));
            QVERIFY2(vsExact <= kOnlineVsExact, qPrintable(QString("head %1: %2 from exact attention").arg(g).arg(vsExact)));
            if (keys == 1 && sink == kNoSink)   // one key: its value row (F16 accumulation of one row is exact)
                for (int d = 0; d < dv; ++d)
                    QCOMPARE(out[static_cast<size_t>(g)][static_cast<size_t>(d)], f16ToF32(c.value(0)[d]));
        }
    }

    void tiledMatchesExact_data()
    {
        QTest::addColumn<int>("path");
        QTest::addColumn<int>("dk");
        QTest::addColumn<int>("nq");
        QTest::addColumn<uint32_t>("keys");
        QTest::addColumn<uint32_t>("window");
        QTest::addColumn<float>("softcap");
        QTest::addColumn<float>("sink");
        struct Case { const char *name; int dk, nq; uint32_t keys, window; float softcap, sink; };
        const Case cases[] = {
            {"64 queries, causal, 3 tiles", 64, 64, 150, 0, 0.0f, kNoSink},
            {"window 16 at the edges", 128, 40, 100, 16, 0.0f, kNoSink},
            {"window 64 = one tile", 64, 64, 260, 64, 0.0f, kNoSink},
            {"gemma: 256, softcap", 256, 17, 80, 0, 50.0f, kNoSink},
            {"sinks", 64, 33, 70, 8, 0.0f, 1.5f},
            {"head size 80", 80, 12, 65, 0, 0.0f, kNoSink},
            {"a full call: 128 queries, 5 tiles", 64, kTileCallQueries, 300, 0, 0.0f, kNoSink},
            {"101 queries of 128, window 40", 128, 101, 230, 40, 0.0f, kNoSink},
            {"head size 96, 70 queries", 96, 70, 140, 0, 0.0f, kNoSink},
        };
        for (quant::CpuPath p : {quant::CpuPath::CPU_PATH_SCALAR, quant::CpuPath::CPU_PATH_AVX2, quant::CpuPath::CPU_PATH_AVX512}) {
            if (!quant::cpuPathSupported(p))
                continue;
            for (const Case &c : cases)
                QTest::newRow((std::string(quant::cpuPathName(p)) + ": " + c.name).c_str())
                    << static_cast<int>(p) << c.dk << c.nq << c.keys << c.window << c.softcap << c.sink;
        }
    }

    void tiledMatchesExact()
    {
        QFETCH(int, path);
        QFETCH(int, dk);
        QFETCH(int, nq);
        QFETCH(uint32_t, keys);
        QFETCH(uint32_t, window);
        QFETCH(float, softcap);
        QFETCH(float, sink);
        quant::setCpuPath(static_cast<quant::CpuPath>(path));
        const int dv = dk;
        const Cache c = makeCache(dk, dv, keys, true, 11u + keys);
        const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
        // The last nq positions as queries (a prompt chunk), causal, with a window.
        std::vector<std::vector<float>> q, out(static_cast<size_t>(nq), std::vector<float>(static_cast<size_t>(dv)));
        std::vector<TileQuery> qs(static_cast<size_t>(nq));
        for (int i = 0; i < nq; ++i) {
            q.push_back(randomQuery(dk, 1.5f, 300u + static_cast<uint32_t>(i)));
            const uint32_t pos = keys - static_cast<uint32_t>(nq) + static_cast<uint32_t>(i);
            qs[static_cast<size_t>(i)].q = q.back().data();
            qs[static_cast<size_t>(i)].out = out[static_cast<size_t>(i)].data();
            qs[static_cast<size_t>(i)].last = pos;
            qs[static_cast<size_t>(i)].first = window && pos + 1 > window ? pos + 1 - window : 0;
            qs[static_cast<size_t>(i)].sink = sink;
        }
        std::vector<float> scratch(tiledScratchFloats(dk, dv));
        attendTiled(c.view(scale, softcap), qs.data(), nq, scratch.data());
        for (int i = 0; i < nq; ++i) {
            const TileQuery &t = qs[static_cast<size_t>(i)];
            const std::vector<double> exact = exactAttention(c, t.q, t.first, t.last, scale, softcap, sink, false);
            const double err = normalizedRms(out[static_cast<size_t>(i)], exact);
            QVERIFY2(err <= kTiledVsExact, qPrintable(QString("query %1 [%2, %3]: %4").arg(i).arg(t.first).arg(t.last).arg(err)));
            const std::vector<float> emulated = tiledEmulation(c, t.q, t.first, t.last, scale, softcap, sink);
            QVERIFY2(sameBits(out[static_cast<size_t>(i)], emulated),
                     qPrintable(QString("query %1 [%2, %3]: %4 from the tiled recipe").arg(i).arg(t.first).arg(t.last)
                                    .arg(normalizedRms(out[static_cast<size_t>(i)], emulated))));
        }
    }

    // The SIMD tiled kernels against the scalar twin: the same products,
    // exponentials and sums in the same order, bit for bit.
    void tiledMatchesScalarTwin_data()
    {
        QTest::addColumn<int>("path");
        QTest::addColumn<int>("dk");
        QTest::addColumn<int>("nq");
        QTest::addColumn<uint32_t>("keys");
        for (quant::CpuPath p : {quant::CpuPath::CPU_PATH_AVX2, quant::CpuPath::CPU_PATH_AVX512}) {
            if (!quant::cpuPathSupported(p))
                continue;
            const std::string name = quant::cpuPathName(p);
            QTest::newRow((name + ": 64, 128 queries").c_str()) << static_cast<int>(p) << 64 << kTileCallQueries << 700u;
            QTest::newRow((name + ": 128, 45 queries").c_str()) << static_cast<int>(p) << 128 << 45 << 333u;
            QTest::newRow((name + ": 80, 9 queries").c_str()) << static_cast<int>(p) << 80 << 9 << 70u;
        }
    }

    void tiledMatchesScalarTwin()
    {
        QFETCH(int, path);
        QFETCH(int, dk);
        QFETCH(int, nq);
        QFETCH(uint32_t, keys);
        const int dv = dk;
        const Cache c = makeCache(dk, dv, keys, true, 77u + keys);
        std::vector<std::vector<float>> q, simd(static_cast<size_t>(nq), std::vector<float>(static_cast<size_t>(dv)));
        std::vector<std::vector<float>> twin = simd;
        std::vector<TileQuery> qs(static_cast<size_t>(nq));
        for (int i = 0; i < nq; ++i) {
            q.push_back(randomQuery(dk, 2.0f, 900u + static_cast<uint32_t>(i)));
            qs[static_cast<size_t>(i)].q = q.back().data();
            qs[static_cast<size_t>(i)].last = keys - 1 - static_cast<uint32_t>(nq - 1 - i) / 2;   // causal, two heads a position
            qs[static_cast<size_t>(i)].first = i % 5 == 0 ? 0 : static_cast<uint32_t>(i) * 3;
        }
        std::vector<float> scratch(tiledScratchFloats(dk, dv));
        const auto run = [&](std::vector<std::vector<float>> &out) {
            for (int i = 0; i < nq; ++i)
                qs[static_cast<size_t>(i)].out = out[static_cast<size_t>(i)].data();
            attendTiled(c.view(1.0f / std::sqrt(static_cast<float>(dk)), 0.0f), qs.data(), nq, scratch.data());
        };
        quant::setCpuPath(quant::CpuPath::CPU_PATH_SCALAR);
        run(twin);
        quant::setCpuPath(static_cast<quant::CpuPath>(path));
        run(simd);
        for (int i = 0; i < nq; ++i)
            QVERIFY2(sameBits(simd[static_cast<size_t>(i)], twin[static_cast<size_t>(i)]),
                     qPrintable(QString("query %1: %2 from the scalar twin").arg(i)
                                    .arg(normalizedRms(simd[static_cast<size_t>(i)], twin[static_cast<size_t>(i)]))));
    }

    // A query's result does not depend on which queries share its call: the
    // 128 queries in one call, in two of 64, and one of 1 then one of 127.
    void tiledCallGroupingChangesNothing_data()
    {
        QTest::addColumn<int>("path");
        addPathRows();
    }

    void tiledCallGroupingChangesNothing()
    {
        QFETCH(int, path);
        quant::setCpuPath(static_cast<quant::CpuPath>(path));
        const int dk = 64, nq = kTileCallQueries;
        const uint32_t keys = 400;
        const Cache c = makeCache(dk, dk, keys, true, 3);
        std::vector<std::vector<float>> q;
        std::vector<TileQuery> qs(static_cast<size_t>(nq));
        for (int i = 0; i < nq; ++i) {
            q.push_back(randomQuery(dk, 1.5f, 40u + static_cast<uint32_t>(i)));
            qs[static_cast<size_t>(i)].q = q.back().data();
            qs[static_cast<size_t>(i)].last = keys - 1 - static_cast<uint32_t>(nq - 1 - i);
            qs[static_cast<size_t>(i)].first = static_cast<uint32_t>(i);
        }
        std::vector<float> scratch(tiledScratchFloats(dk, dk));
        const auto outputs = [&](std::initializer_list<int> splits) {
            std::vector<float> out(static_cast<size_t>(nq) * dk, -1.0f);
            for (int i = 0; i < nq; ++i)
                qs[static_cast<size_t>(i)].out = out.data() + static_cast<size_t>(i) * dk;
            int begin = 0;
            for (int n : splits) {
                attendTiled(c.view(0.125f, 0.0f), qs.data() + begin, n, scratch.data());
                begin += n;
            }
            return out;
        };
        const std::vector<float> one = outputs({nq});
        QVERIFY(sameBits(one, outputs({64, 64})));
        QVERIFY(sameBits(one, outputs({1, nq - 1})));
    }

    // The decode kernel is attendTiled for the heads of one position: every
    // query's output bit for bit the scalar attendTiled's (so a position's
    // logits do not depend on which kernel ran it: batch invariance).
    void decodeMatchesTiled_data()
    {
        QTest::addColumn<int>("path");
        QTest::addColumn<int>("dk");
        QTest::addColumn<int>("dv");
        QTest::addColumn<int>("nq");
        QTest::addColumn<uint32_t>("keys");
        QTest::addColumn<uint32_t>("first");
        QTest::addColumn<float>("softcap");
        QTest::addColumn<float>("sink");
        struct Case { const char *name; int dk, dv, nq; uint32_t keys, first; float softcap, sink; };
        const Case cases[] = {
            {"1 head, one key", 64, 64, 1, 1, 0, 0.0f, kNoSink},
            {"1 head, 700 keys", 64, 64, 1, 700, 0, 0.0f, kNoSink},
            {"2 heads, 130 keys", 128, 128, 2, 130, 0, 0.0f, kNoSink},
            {"3 heads, window from 37", 64, 64, 3, 300, 37, 0.0f, kNoSink},
            {"4 heads, 1000 keys", 128, 128, 4, 1000, 0, 0.0f, kNoSink},
            {"5 heads, sinks", 64, 64, 5, 200, 0, 0.0f, 2.5f},
            {"8 heads, 2049 keys", 64, 64, 8, 2049, 0, 0.0f, kNoSink},
            {"8 heads, window in one tile", 64, 64, 8, 500, 470, 0.0f, kNoSink},
            {"12 heads, 80", 80, 80, 12, 333, 0, 0.0f, kNoSink},
            {"16 heads, 256, softcap", 256, 256, 16, 150, 0, 50.0f, kNoSink},
            {"6 heads, dk 96 dv 64, sinks below", 96, 64, 6, 260, 3, 0.0f, -3.0f},
            {"20 heads (attendTiled)", 64, 64, 20, 90, 0, 0.0f, kNoSink},
            {"8 heads, head size 72 (attendTiled)", 72, 72, 8, 90, 0, 0.0f, kNoSink},
        };
        for (quant::CpuPath p : {quant::CpuPath::CPU_PATH_SCALAR, quant::CpuPath::CPU_PATH_AVX2, quant::CpuPath::CPU_PATH_AVX512}) {
            if (!quant::cpuPathSupported(p))
                continue;
            for (const Case &c : cases)
                QTest::newRow((std::string(quant::cpuPathName(p)) + ": " + c.name).c_str())
                    << static_cast<int>(p) << c.dk << c.dv << c.nq << c.keys << c.first << c.softcap << c.sink;
        }
    }

    void decodeMatchesTiled()
    {
        QFETCH(int, path);
        QFETCH(int, dk);
        QFETCH(int, dv);
        QFETCH(int, nq);
        QFETCH(uint32_t, keys);
        QFETCH(uint32_t, first);
        QFETCH(float, softcap);
        QFETCH(float, sink);
        const Cache c = makeCache(dk, dv, keys, true, 31u + keys);
        const KvView view = c.view(1.0f / std::sqrt(static_cast<float>(dk)), softcap);
        std::vector<std::vector<float>> q;
        std::vector<float> twin(static_cast<size_t>(nq) * dv, -1.0f), decode(twin.size(), -2.0f);
        std::vector<TileQuery> qs(static_cast<size_t>(nq));
        for (int i = 0; i < nq; ++i) {
            q.push_back(randomQuery(dk, 2.0f, 500u + static_cast<uint32_t>(i)));
            qs[static_cast<size_t>(i)].q = q.back().data();
            qs[static_cast<size_t>(i)].first = first;
            qs[static_cast<size_t>(i)].last = keys - 1;
            qs[static_cast<size_t>(i)].sink = sink + static_cast<float>(i) * 0.25f;
        }
        std::vector<float> scratch(tiledScratchFloats(dk, dv), NAN);
        quant::setCpuPath(quant::CpuPath::CPU_PATH_SCALAR);
        for (int i = 0; i < nq; ++i)
            qs[static_cast<size_t>(i)].out = twin.data() + static_cast<size_t>(i) * dv;
        attendTiled(view, qs.data(), nq, scratch.data());
        quant::setCpuPath(static_cast<quant::CpuPath>(path));
        for (int i = 0; i < nq; ++i)
            qs[static_cast<size_t>(i)].out = decode.data() + static_cast<size_t>(i) * dv;
        attendDecode(view, qs.data(), nq, scratch.data());
        for (int i = 0; i < nq; ++i) {
            const std::vector<float> a(decode.begin() + i * dv, decode.begin() + (i + 1) * dv);
            const std::vector<float> b(twin.begin() + i * dv, twin.begin() + (i + 1) * dv);
            QVERIFY2(sameBits(a, b), qPrintable(QString("head %1: %2 from the scalar attendTiled").arg(i).arg(normalizedRms(a, b))));
        }
        // And against exact attention (a check on the twin as much as on the kernel).
        const std::vector<float> q0(decode.begin(), decode.begin() + dv);
        QVERIFY(normalizedRms(q0, exactAttention(c, qs[0].q, first, keys - 1, view.scale, softcap, qs[0].sink, false)) <= kTiledVsExact);
    }

    void blockTablesChangeNothing_data()
    {
        QTest::addColumn<int>("path");
        addPathRows();
    }

    void blockTablesChangeNothing()
    {
        QFETCH(int, path);
        quant::setCpuPath(static_cast<quant::CpuPath>(path));
        const Cache paged = makeCache(64, 64, 210, true, 5);
        const Cache linear = linearCopy(paged);
        const std::vector<float> q0 = randomQuery(64, 1.0f, 1), q1 = randomQuery(64, 1.0f, 2);
        const float *qp[2] = {q0.data(), q1.data()};
        std::vector<float> a0(64), a1(64), b0(64), b1(64);
        float *oa[2] = {a0.data(), a1.data()}, *ob[2] = {b0.data(), b1.data()};
        attendOnline(paged.view(0.125f, 0.0f), 17, 209, 2, qp, oa, nullptr);
        attendOnline(linear.view(0.125f, 0.0f), 17, 209, 2, qp, ob, nullptr);
        QVERIFY(sameBits(a0, b0) && sameBits(a1, b1));

        TileQuery ta[2], tb[2];
        for (int i = 0; i < 2; ++i) {
            ta[i].q = tb[i].q = qp[i];
            ta[i].first = tb[i].first = 3u + 50u * static_cast<uint32_t>(i);
            ta[i].last = tb[i].last = 200u + static_cast<uint32_t>(i);
            ta[i].out = oa[i];
            tb[i].out = ob[i];
        }
        std::vector<float> scratch(tiledScratchFloats(64, 64));
        attendTiled(paged.view(0.125f, 0.0f), ta, 2, scratch.data());
        attendTiled(linear.view(0.125f, 0.0f), tb, 2, scratch.data());
        QVERIFY(sameBits(a0, b0) && sameBits(a1, b1));
    }

    void noSinkIsNoSink_data()
    {
        QTest::addColumn<int>("path");
        addPathRows();
    }

    void noSinkIsNoSink()
    {
        QFETCH(int, path);
        quant::setCpuPath(static_cast<quant::CpuPath>(path));
        const Cache c = makeCache(64, 64, 50, false, 9);
        const std::vector<float> q = randomQuery(64, 1.0f, 3);
        const float *qp[1] = {q.data()};
        std::vector<float> a(64), b(64);
        float *oa[1] = {a.data()}, *ob[1] = {b.data()};
        const float none[1] = {kNoSink};
        attendOnline(c.view(0.125f, 0.0f), 0, 49, 1, qp, oa, nullptr);
        attendOnline(c.view(0.125f, 0.0f), 0, 49, 1, qp, ob, none);
        QVERIFY(sameBits(a, b));
        // A sink far below every score changes nothing measurable.
        const float low[1] = {-1e4f};
        attendOnline(c.view(0.125f, 0.0f), 0, 49, 1, qp, ob, low);
        QVERIFY(sameBits(a, b));
    }
};

QTEST_MAIN(TestFlashAttention)
#include "tst_flash_attention.moc"
