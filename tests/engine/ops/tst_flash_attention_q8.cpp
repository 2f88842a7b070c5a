// Flash attention over a Q8_0 KV cache (ops/flash_attention.h
// attendOnlineQ8_0, attendTiledQ8_0) on every CPU path this machine offers,
// forced in turn:
//   - the active path's kernel (AVX2 / AVX-512 SIMD) bit for bit equal to its
//     scalar twin (attendOnlineQ8_0Scalar) and to an emulation written here of
//     the reference's one_chunk recipe for a quantized K and V (query
//     quantized to Q8_0, K . q by the trait table's Q8_0 dot product, V
//     dequantized, F32 accumulator with one fused multiply-add per element);
//   - against exact attention in double over the dequantized cache and the
//     quantized query (only float rounding apart), and over the original
//     float keys, values and query (the quantization error: the tolerance a
//     Q8_0 cache is held to);
//   - block tables: shuffled blocks give bit for bit the in-order result;
//   - the tiled kernel (attendTiledQ8_0): the active path's kernel (AVX-512
//     VNNI; AVX2 with AVX-VNNI where the CPU has it, and CTest runs the file
//     again with BURROW_AVX_VNNI=0 for the vpmaddubsw one) bit for bit its
//     scalar twin, for one position's heads (decode) and for prompt
//     blocks whose queries see different keys; within float rounding of
//     exact attention over the stored cache and of the one-query kernel;
//     a query's result the same alone and among others; block tables and
//     a different range as above.
#include "ops/flash_attention.h"
#include "ops/f16.h"
#include "quant/cpu_features.h"
#include "quant/quant_blocks.h"
#include "quant/quant_traits.h"
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

const quant::TypeTraits &q8Traits()
{
    return *quant::typeTraits(GgmlType::GGML_TYPE_Q8_0);
}

// nKeys positions of one KV head: the float keys and values drawn from
// N(0, 1), and the same quantized to Q8_0 rows in cells of a block table.
struct Cache {
    int dk = 0, dv = 0;
    uint32_t nKeys = 0;
    std::vector<float> kf, vf;           // [nKeys][dk], [nKeys][dv] (the originals)
    std::vector<uint16_t> k, v;          // [cells][stride] halves (Q8_0 blocks)
    size_t kStride = 0, vStride = 0;
    std::vector<int32_t> blocks;         // empty: linear
    const int32_t *table() const { return blocks.empty() ? nullptr : blocks.data(); }
    KvView view(float scale, float softcap) const
    {
        KvView x;
        x.k = k.data();
        x.kStride = kStride;
        x.v = v.data();
        x.vStride = vStride;
        x.blocks = table();
        x.dk = dk;
        x.dv = dv;
        x.scale = scale;
        x.softcap = softcap;
        return x;
    }
    const uint16_t *key(uint32_t j) const { return k.data() + kvCell(table(), j) * kStride; }
    const uint16_t *value(uint32_t j) const { return v.data() + kvCell(table(), j) * vStride; }
    std::vector<float> keyF(uint32_t j) const   // dequantized
    {
        std::vector<float> r(static_cast<size_t>(dk));
        q8Traits().dequantize(key(j), r.data(), dk);
        return r;
    }
    std::vector<float> valueF(uint32_t j) const
    {
        std::vector<float> r(static_cast<size_t>(dv));
        q8Traits().dequantize(value(j), r.data(), dv);
        return r;
    }
};

Cache makeCache(int dk, int dv, uint32_t nKeys, bool shuffle, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    Cache c;
    c.dk = dk;
    c.dv = dv;
    c.nKeys = nKeys;
    c.kStride = q8_0RowHalves(static_cast<size_t>(dk)) + 17;   // another head's block between rows
    c.vStride = q8_0RowHalves(static_cast<size_t>(dv)) + 34;
    const uint32_t nBlocks = (nKeys + 15) / 16;
    const uint32_t cells = (nBlocks * 2 + 1) * 16;
    c.k.assign(cells * c.kStride, 0);
    c.v.assign(cells * c.vStride, 0);
    c.kf.resize(static_cast<size_t>(nKeys) * dk);
    c.vf.resize(static_cast<size_t>(nKeys) * dv);
    for (float &e : c.kf)
        e = nd(rng);
    for (float &e : c.vf)
        e = nd(rng);
    if (shuffle) {
        std::vector<int32_t> perm(nBlocks * 2 + 1);
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng);
        c.blocks.assign(perm.begin(), perm.begin() + nBlocks);
    }
    for (uint32_t j = 0; j < nKeys; ++j) {
        q8Traits().quantize(c.kf.data() + static_cast<size_t>(j) * dk, c.k.data() + kvCell(c.table(), j) * c.kStride, dk);
        q8Traits().quantize(c.vf.data() + static_cast<size_t>(j) * dv, c.v.data() + kvCell(c.table(), j) * c.vStride, dv);
    }
    return c;
}

Cache linearCopy(const Cache &c)
{
    Cache l = c;
    l.blocks.clear();
    std::fill(l.k.begin(), l.k.end(), uint16_t{0});
    std::fill(l.v.begin(), l.v.end(), uint16_t{0});
    for (uint32_t j = 0; j < c.nKeys; ++j) {
        std::memcpy(l.k.data() + j * l.kStride, c.key(j), q8_0RowHalves(static_cast<size_t>(c.dk)) * sizeof(uint16_t));
        std::memcpy(l.v.data() + j * l.vStride, c.value(j), q8_0RowHalves(static_cast<size_t>(c.dv)) * sizeof(uint16_t));
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

// The query as the kernel sees it: quantized by the active path's activation
// quantizer, then dequantized.
std::vector<float> quantizedQuery(const float *q, int dk)
{
    std::vector<uint16_t> qq(q8_0RowHalves(static_cast<size_t>(dk)));
    q8Traits().quantizeActivation(q, qq.data(), dk);
    std::vector<float> r(static_cast<size_t>(dk));
    q8Traits().dequantize(qq.data(), r.data(), dk);
    return r;
}

// Exact attention in double over [first, last] (and the sink): over the
// cache as stored (`quantized`, with the quantized query) or over the
// original floats.
std::vector<double> exactAttention(const Cache &c, const float *q, uint32_t first, uint32_t last, float scale,
                                   float softcap, float sink, bool quantized)
{
    const std::vector<float> qq = quantized ? quantizedQuery(q, c.dk) : std::vector<float>(q, q + c.dk);
    std::vector<double> s;
    double m = -INFINITY;
    std::vector<std::vector<float>> values;
    for (uint32_t j = first; j <= last; ++j) {
        const std::vector<float> kj = quantized ? c.keyF(j)
                                                : std::vector<float>(c.kf.begin() + static_cast<ptrdiff_t>(j) * c.dk,
                                                                     c.kf.begin() + static_cast<ptrdiff_t>(j + 1) * c.dk);
        values.push_back(quantized ? c.valueF(j)
                                   : std::vector<float>(c.vf.begin() + static_cast<ptrdiff_t>(j) * c.dv,
                                                        c.vf.begin() + static_cast<ptrdiff_t>(j + 1) * c.dv));
        double d = 0;
        for (int i = 0; i < c.dk; ++i)
            d += static_cast<double>(kj[static_cast<size_t>(i)]) * qq[static_cast<size_t>(i)];
        s.push_back(softcap != 0.0f ? softcap * std::tanh(d * scale / softcap) : d * scale);
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
    for (size_t j = 0; j < s.size(); ++j)
        for (int d = 0; d < c.dv; ++d)
            out[static_cast<size_t>(d)] += s[j] / sum * values[j][static_cast<size_t>(d)];
    return out;
}

// The reference's one_chunk recipe for a Q8_0 K and V, step by step in
// float (written independently of the kernels).
std::vector<float> oneChunkEmulation(const Cache &c, const float *q, uint32_t first, uint32_t last, float scale,
                                     float softcap, float sink)
{
    std::vector<uint16_t> qq(q8_0RowHalves(static_cast<size_t>(c.dk)));
    q8Traits().quantizeActivation(q, qq.data(), c.dk);
    std::vector<float> acc(static_cast<size_t>(c.dv), 0.0f);
    float M = -INFINITY, S = 0.0f;
    for (uint32_t j = first; j <= last; ++j) {
        float sc = 0.0f;
        q8Traits().vecDot(c.dk, &sc, c.key(j), qq.data());
        sc = softcap != 0.0f ? softcap * std::tanh(sc * (scale / softcap)) : sc * scale;
        float ms = 1.0f, vs = 1.0f;
        if (sc > M) {
            ms = std::exp(M - sc);
            M = sc;
            for (float &a : acc)
                a *= ms;
        } else {
            vs = std::exp(sc - M);
        }
        const auto *blocks = reinterpret_cast<const quant::BlockQ8_0 *>(c.value(j));
        for (int d = 0; d < c.dv; ++d) {
            const float vd = static_cast<float>(blocks[d / 32].qs[d % 32]) * f16ToF32(blocks[d / 32].d);
            acc[static_cast<size_t>(d)] = std::fma(vd, vs, acc[static_cast<size_t>(d)]);
        }
        S = std::fma(S, ms, vs);   // the reference's S*ms + vs, contracted by its build
    }
    if (sink > -INFINITY) {
        if (sink > M) {
            const float ms = std::exp(M - sink);
            for (float &a : acc)
                a *= ms;
            S = std::fma(S, ms, 1.0f);
        } else {
            S += std::exp(sink - M);
        }
    }
    const float inv = S == 0.0f ? 0.0f : 1.0f / S;
    for (float &a : acc)
        a *= inv;
    return acc;
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

// F32 accumulation over the stored cache: float rounding only.
constexpr double kQ8VsExactStored = 2e-5;
// Against the unquantized keys, values and query: Q8_0's error (a code step
// is amax / 127 per block, about 0.6% of each element in RMS for normal
// data; the scores' errors move the softmax too). Measured up to 1.6e-2 on
// these cases (a sharp softmax over 80 keys).
constexpr double kQ8VsExactFloat = 3e-2;

} // namespace

class TestFlashAttentionQ8 : public QObject {
    Q_OBJECT

private slots:
    void cleanup() { quant::setCpuPath(quant::bestCpuPath()); }

    void matchesRecipeAndTwin_data()
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
            {"dk 96, dv 64", 96, 64, 3, 33, 0, 0.0f, 0.5f, true},
            {"head size 32, 600 keys", 32, 32, 2, 600, 0, 0.0f, kNoSink, true},
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

    void matchesRecipeAndTwin()
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
        const Cache c = makeCache(dk, dv, keys, shuffle, 17u + keys);
        const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
        std::vector<std::vector<float>> q;
        std::vector<std::vector<float>> out(static_cast<size_t>(heads), std::vector<float>(static_cast<size_t>(dv)));
        std::vector<std::vector<float>> twin = out;
        std::vector<const float *> qp;
        std::vector<float *> op, tp;
        std::vector<float> sinks(static_cast<size_t>(heads), sink);
        for (int g = 0; g < heads; ++g) {
            q.push_back(randomQuery(dk, 1.5f, 200u + static_cast<uint32_t>(g)));
            qp.push_back(q.back().data());
            op.push_back(out[static_cast<size_t>(g)].data());
            tp.push_back(twin[static_cast<size_t>(g)].data());
        }
        attendOnlineQ8_0(c.view(scale, softcap), first, keys - 1, heads, qp.data(), op.data(), sinks.data());
        attendOnlineQ8_0Scalar(c.view(scale, softcap), first, keys - 1, heads, qp.data(), tp.data(), sinks.data());
        for (int g = 0; g < heads; ++g) {
            const size_t gi = static_cast<size_t>(g);
            QVERIFY2(sameBits(out[gi], twin[gi]), qPrintable(QString("head %1: the SIMD kernel differs from its scalar twin").arg(g)));
            const std::vector<float> emulated = oneChunkEmulation(c, qp[gi], first, keys - 1, scale, softcap, sink);
            QVERIFY2(sameBits(out[gi], emulated),
                     qPrintable(QString("head %1: %2 from the one_chunk recipe").arg(g).arg(normalizedRms(out[gi], emulated))));
            const double vsStored = normalizedRms(out[gi], exactAttention(c, qp[gi], first, keys - 1, scale, softcap, sink, true));
            const double vsFloat = normalizedRms(out[gi], exactAttention(c, qp[gi], first, keys - 1, scale, softcap, sink, false));
            QVERIFY2(vsStored <= kQ8VsExactStored, qPrintable(QString("head %1: %2 from exact attention over the stored cache").arg(g).arg(vsStored)));
            QVERIFY2(vsFloat <= kQ8VsExactFloat, qPrintable(QString("head %1: %2 from exact attention over the floats").arg(g).arg(vsFloat)));
            if (keys == 1 && sink == kNoSink) {   // one key: its dequantized value row
                const std::vector<float> v0 = c.valueF(0);
                for (int d = 0; d < dv; ++d)
                    QCOMPARE(out[gi][static_cast<size_t>(d)], v0[static_cast<size_t>(d)]);
            }
        }
    }

    void blockTablesChangeNothing_data()
    {
        QTest::addColumn<int>("path");
        for (quant::CpuPath p : {quant::CpuPath::CPU_PATH_SCALAR, quant::CpuPath::CPU_PATH_AVX2, quant::CpuPath::CPU_PATH_AVX512})
            if (quant::cpuPathSupported(p))
                QTest::newRow(quant::cpuPathName(p)) << static_cast<int>(p);
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
        attendOnlineQ8_0(paged.view(0.125f, 0.0f), 17, 209, 2, qp, oa, nullptr);
        attendOnlineQ8_0(linear.view(0.125f, 0.0f), 17, 209, 2, qp, ob, nullptr);
        QVERIFY(sameBits(a0, b0) && sameBits(a1, b1));
        // And a different range gives a different result (the test can fail).
        attendOnlineQ8_0(linear.view(0.125f, 0.0f), 18, 209, 2, qp, ob, nullptr);
        QVERIFY(!sameBits(a0, b0));

        // The same for the tiled kernel.
        std::vector<float> scratch(tiledScratchFloats(64, 64));
        TileQuery qa[2] = {{q0.data(), a0.data(), 17, 209, kNoSink}, {q1.data(), a1.data(), 17, 209, kNoSink}};
        TileQuery qb[2] = {{q0.data(), b0.data(), 17, 209, kNoSink}, {q1.data(), b1.data(), 17, 209, kNoSink}};
        attendTiledQ8_0(paged.view(0.125f, 0.0f), qa, 2, scratch.data());
        attendTiledQ8_0(linear.view(0.125f, 0.0f), qb, 2, scratch.data());
        QVERIFY(sameBits(a0, b0) && sameBits(a1, b1));
        qb[0].first = 18;
        attendTiledQ8_0(linear.view(0.125f, 0.0f), qb, 2, scratch.data());
        QVERIFY(!sameBits(a0, b0));
    }

    void tiledMatchesTwinAndExact_data()
    {
        QTest::addColumn<int>("path");
        QTest::addColumn<int>("dk");
        QTest::addColumn<int>("dv");
        QTest::addColumn<int>("nq");
        QTest::addColumn<uint32_t>("keys");
        QTest::addColumn<uint32_t>("first");
        QTest::addColumn<bool>("diagonal");   // query i sees keys up to keys - nq + i (a prompt block)
        QTest::addColumn<float>("softcap");
        QTest::addColumn<float>("sink");
        QTest::addColumn<bool>("shuffle");
        struct Case { const char *name; int dk, dv, nq; uint32_t keys, first; bool diagonal; float softcap, sink; bool shuffle; };
        const Case cases[] = {
            {"one key", 64, 64, 1, 1, 0, false, 0.0f, kNoSink, false},
            {"decode: 64, 8 heads, 1000 keys", 64, 64, 8, 1000, 0, false, 0.0f, kNoSink, true},
            {"decode: 128, 4 heads, window from 70", 128, 128, 4, 300, 70, false, 0.0f, kNoSink, true},
            {"decode: 64, 16 heads, a partial last tile", 64, 64, 16, 130, 0, false, 0.0f, kNoSink, false},
            {"prompt: 64, 128 queries, diagonal", 64, 64, 128, 400, 0, true, 0.0f, kNoSink, true},
            {"prompt: 128, 33 queries, diagonal from 90", 128, 128, 33, 250, 90, true, 0.0f, kNoSink, true},
            {"256 (gemma), softcap", 256, 256, 3, 90, 0, false, 50.0f, kNoSink, false},
            {"sink above the scores", 64, 64, 2, 40, 0, false, 0.0f, 6.0f, true},
            {"sink below the scores", 64, 64, 5, 140, 0, true, 0.0f, -4.0f, false},
            {"dk 96, dv 64", 96, 64, 3, 33, 0, false, 0.0f, 0.5f, true},
            {"head size 32, 600 keys", 32, 32, 2, 600, 0, false, 0.0f, kNoSink, true},
        };
        for (quant::CpuPath p : {quant::CpuPath::CPU_PATH_SCALAR, quant::CpuPath::CPU_PATH_AVX2, quant::CpuPath::CPU_PATH_AVX512}) {
            if (!quant::cpuPathSupported(p))
                continue;
            for (const Case &c : cases)
                QTest::newRow((std::string(quant::cpuPathName(p)) + ": " + c.name).c_str())
                    << static_cast<int>(p) << c.dk << c.dv << c.nq << c.keys << c.first << c.diagonal << c.softcap
                    << c.sink << c.shuffle;
        }
    }

    void tiledMatchesTwinAndExact()
    {
        QFETCH(int, path);
        QFETCH(int, dk);
        QFETCH(int, dv);
        QFETCH(int, nq);
        QFETCH(uint32_t, keys);
        QFETCH(uint32_t, first);
        QFETCH(bool, diagonal);
        QFETCH(float, softcap);
        QFETCH(float, sink);
        QFETCH(bool, shuffle);
        quant::setCpuPath(static_cast<quant::CpuPath>(path));
        if (path != static_cast<int>(quant::CpuPath::CPU_PATH_SCALAR))
            QVERIFY2(hasTiledQ8_0(), "the AVX2 and AVX-512 paths have a tiled Q8_0 kernel");
        const Cache c = makeCache(dk, dv, keys, shuffle, 31u + keys);
        const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
        const size_t n = static_cast<size_t>(nq);
        std::vector<std::vector<float>> q(n), out(n, std::vector<float>(static_cast<size_t>(dv))), twin = out;
        std::vector<TileQuery> qs(n), ts(n);
        for (size_t i = 0; i < n; ++i) {
            q[i] = randomQuery(dk, 1.5f, 400u + static_cast<uint32_t>(i));
            qs[i].q = q[i].data();
            qs[i].out = out[i].data();
            qs[i].first = first;
            qs[i].last = diagonal ? keys - static_cast<uint32_t>(nq) + static_cast<uint32_t>(i) : keys - 1;
            qs[i].sink = sink;
            ts[i] = qs[i];
            ts[i].out = twin[i].data();
        }
        std::vector<float> scratch(tiledScratchFloats(dk, dv));
        attendTiledQ8_0(c.view(scale, softcap), qs.data(), nq, scratch.data());
        attendTiledQ8_0Scalar(c.view(scale, softcap), ts.data(), nq, scratch.data());
        for (size_t i = 0; i < n; ++i) {
            QVERIFY2(sameBits(out[i], twin[i]), qPrintable(QString("query %1: the SIMD kernel differs from its scalar twin by %2")
                                                               .arg(i).arg(normalizedRms(out[i], twin[i]))));
            const double vsStored = normalizedRms(out[i], exactAttention(c, q[i].data(), first, qs[i].last, scale, softcap, sink, true));
            QVERIFY2(vsStored <= kQ8VsExactStored, qPrintable(QString("query %1: %2 from exact attention over the stored cache").arg(i).arg(vsStored)));
            std::vector<float> online(static_cast<size_t>(dv));
            const float *qp = q[i].data();
            float *op = online.data();
            attendOnlineQ8_0(c.view(scale, softcap), first, qs[i].last, 1, &qp, &op, &sink);
            const double vsOnline = normalizedRms(out[i], online);
            QVERIFY2(vsOnline <= 2 * kQ8VsExactStored, qPrintable(QString("query %1: %2 from the one-query kernel").arg(i).arg(vsOnline)));
            if (keys == 1 && sink == kNoSink) {
                const std::vector<float> v0 = c.valueF(0);
                for (int d = 0; d < dv; ++d)
                    QCOMPARE(out[i][static_cast<size_t>(d)], v0[static_cast<size_t>(d)]);
            }
        }
        // A query's result does not depend on the queries sharing the call.
        const size_t last = n - 1;
        std::vector<float> alone(static_cast<size_t>(dv));
        TileQuery one = qs[last];
        one.out = alone.data();
        attendTiledQ8_0(c.view(scale, softcap), &one, 1, scratch.data());
        QVERIFY2(sameBits(alone, out[last]), "the last query alone differs from it among the others");
    }
};

QTEST_MAIN(TestFlashAttentionQ8)
#include "tst_flash_attention_q8.moc"
