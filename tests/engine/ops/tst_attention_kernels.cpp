// The attention kernels (ops/attention_kernels.h) on every CPU path this
// machine offers, forced in turn, against the scalar kernel on random heads:
// head sizes that are and are not multiples of the SIMD width, key ranges
// with a sliding-window start, softcapping, one key (output = that value row
// exactly), large score ranges (exp underflow), and the grouped kernels for
// query heads that share a KV head. Attention sinks: every kernel against a
// softmax with the sink worked out here in double, and a sink too small to
// matter (or none spelled -inf or NaN) giving bit for bit the result without one.
#include "ops/attention_kernels.h"
#include "ops/f16.h"
#include "quant/cpu_features.h"
#include "test_support.h"

#include <QTest>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace burrow;
using namespace burrow::ops;

namespace {

// Normalized RMS difference allowed between a SIMD kernel and the scalar one.
// Float lanes instead of double sums and a polynomial exp (< 3e-7 relative)
// are ~1e-7 apart, but then a probability may round to the neighbouring F16
// (2^-11 relative): with hundreds of keys the output is an average of nearly
// cancelling rows, so one such flip moves it by ~3e-5 of its norm.
constexpr double kAttentionTolerance = 2e-4;
// Against the double-precision softmax: the kernels round each probability to
// F16 (2^-12 relative), which moves an average of many value rows by up to
// ~1e-3 of its norm in these tests' worst case (a few dominant keys).
constexpr double kDoubleSoftmaxTolerance = 2e-3;

struct Head {
    std::vector<uint16_t> k, v;
    std::vector<float> q;
    AttentionHead h;
};

Head makeHead(int dk, int dv, uint32_t nKeys, uint32_t first, float qScale, float softcap, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    Head x;
    const size_t kStride = static_cast<size_t>(dk) * 3 + 5, vStride = static_cast<size_t>(dv) * 2 + 3;   // other heads between rows
    x.k.resize(nKeys * kStride + dk);
    x.v.resize(nKeys * vStride + dv);
    for (uint16_t &e : x.k)
        e = f32ToF16(nd(rng));
    for (uint16_t &e : x.v)
        e = f32ToF16(nd(rng));
    x.q.resize(static_cast<size_t>(dk));
    for (float &e : x.q)
        e = f16ToF32(f32ToF16(nd(rng) * qScale));
    x.h.k = x.k.data() + 1;
    x.h.kStride = kStride;
    x.h.v = x.v.data() + 1;
    x.h.vStride = vStride;
    x.h.dk = dk;
    x.h.dv = dv;
    x.h.first = first;
    x.h.last = nKeys - 1;
    x.h.scale = 1.0f / std::sqrt(static_cast<float>(dk));
    x.h.softcap = softcap;
    return x;
}

double normalizedRms(const std::vector<float> &a, const std::vector<float> &ref)
{
    double err = 0, norm = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        err += (static_cast<double>(a[i]) - ref[i]) * (static_cast<double>(a[i]) - ref[i]);
        norm += static_cast<double>(ref[i]) * ref[i];
    }
    return norm > 0 ? std::sqrt(err / norm) : std::sqrt(err);
}

// out = sum_j p_j V_j with p = softmax over the keys [first, last] and the
// sink (no value row), all in double from the halves the head holds.
std::vector<double> attendDouble(const AttentionHead &h, const float *q, double *sinkProbability)
{
    std::vector<double> s;
    double m = -INFINITY;
    for (uint32_t j = h.first; j <= h.last; ++j) {
        double d = 0;
        for (int i = 0; i < h.dk; ++i)
            d += static_cast<double>(f16ToF32(h.k[j * h.kStride + static_cast<size_t>(i)])) * q[i];
        if (h.softcap != 0.0f)
            d = h.softcap * std::tanh(d / h.softcap);
        d *= h.scale;
        s.push_back(d);
        m = std::max(m, d);
    }
    const bool sink = h.sink > -INFINITY;
    if (sink)
        m = std::max(m, static_cast<double>(h.sink));
    double sum = sink ? std::exp(h.sink - m) : 0.0;
    for (double &x : s) {
        x = std::exp(x - m);
        sum += x;
    }
    *sinkProbability = sink ? std::exp(h.sink - m) / sum : 0.0;
    std::vector<double> out(static_cast<size_t>(h.dv), 0.0);
    for (uint32_t j = h.first; j <= h.last; ++j)
        for (int d = 0; d < h.dv; ++d)
            out[static_cast<size_t>(d)] += s[j - h.first] / sum * f16ToF32(h.v[j * h.vStride + static_cast<size_t>(d)]);
    return out;
}

double normalizedRms(const std::vector<float> &a, const std::vector<double> &ref)
{
    double err = 0, norm = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        err += (a[i] - ref[i]) * (a[i] - ref[i]);
        norm += ref[i] * ref[i];
    }
    return norm > 0 ? std::sqrt(err / norm) : std::sqrt(err);
}

bool sameBits(const std::vector<float> &a, const std::vector<float> &b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

void addPathRows()
{
    QTest::addColumn<int>("path");
    for (quant::CpuPath p : {quant::CpuPath::CPU_PATH_SCALAR, quant::CpuPath::CPU_PATH_AVX2, quant::CpuPath::CPU_PATH_AVX512})
        if (quant::cpuPathSupported(p))
            QTest::newRow(quant::cpuPathName(p)) << static_cast<int>(p);
}

} // namespace

class TestAttentionKernels : public QObject {
    Q_OBJECT

private slots:
    void cleanup() { quant::setCpuPath(quant::bestCpuPath()); }
    void blockMatchesScalar_data();
    void blockMatchesScalar();
    void matchesScalar_data();
    void matchesScalar();
    void groupMatchesScalar_data();
    void groupMatchesScalar();
    void oneKeyIsItsValue_data();
    void oneKeyIsItsValue();
    void sinkMatchesDoubleSoftmax_data();
    void sinkMatchesDoubleSoftmax();
    void noSinkIsBitIdentical_data() { addPathRows(); }
    void noSinkIsBitIdentical();
    void groupSinksPerHead_data();
    void groupSinksPerHead();
    void blockSinksPerQuery_data();
    void blockSinksPerQuery();
};

void TestAttentionKernels::matchesScalar_data()
{
    QTest::addColumn<int>("path");
    QTest::addColumn<int>("dk");
    QTest::addColumn<int>("dv");
    QTest::addColumn<uint32_t>("keys");
    QTest::addColumn<uint32_t>("first");
    QTest::addColumn<float>("qScale");
    QTest::addColumn<float>("softcap");
    const quant::CpuPath paths[] = {quant::CpuPath::CPU_PATH_SCALAR, quant::CpuPath::CPU_PATH_AVX2,
                                    quant::CpuPath::CPU_PATH_AVX512};
    struct Shape {
        int dk, dv;
        uint32_t keys, first;
        float qScale, softcap;
    };
    const Shape shapes[] = {
        {64, 64, 1, 0, 1.0f, 0.0f},     {64, 64, 17, 0, 1.0f, 0.0f},   {64, 64, 300, 0, 1.0f, 0.0f},
        {64, 64, 300, 200, 1.0f, 0.0f}, {128, 128, 77, 3, 1.0f, 0.0f}, {256, 256, 40, 0, 1.0f, 50.0f},
        {80, 80, 33, 0, 1.0f, 0.0f},    {20, 36, 25, 5, 1.0f, 0.0f},   {96, 48, 64, 0, 1.0f, 0.0f},
        {64, 64, 200, 0, 40.0f, 0.0f},  // scores spread over hundreds: most exponentials underflow
    };
    for (quant::CpuPath p : paths) {
        if (!quant::cpuPathSupported(p))
            continue;
        for (const Shape &s : shapes)
            QTest::addRow("%s dk%d dv%d keys%u first%u q%g cap%g", quant::cpuPathName(p), s.dk, s.dv, s.keys, s.first,
                          static_cast<double>(s.qScale), static_cast<double>(s.softcap))
                << static_cast<int>(p) << s.dk << s.dv << s.keys << s.first << s.qScale << s.softcap;
    }
}

void TestAttentionKernels::matchesScalar()
{
    QFETCH(int, path);
    QFETCH(int, dk);
    QFETCH(int, dv);
    QFETCH(uint32_t, keys);
    QFETCH(uint32_t, first);
    QFETCH(float, qScale);
    QFETCH(float, softcap);
    const Head x = makeHead(dk, dv, keys, first, qScale, softcap, static_cast<uint32_t>(dk * 131 + keys));
    std::vector<float> scores(keys), want(static_cast<size_t>(dv)), got(static_cast<size_t>(dv), -1.0f);
    std::vector<uint16_t> probs(keys);
    attendHeadScalar(x.h, x.q.data(), scores.data(), probs.data(), want.data());
    QVERIFY(quant::setCpuPath(static_cast<quant::CpuPath>(path)));
    attendHead(x.h, x.q.data(), scores.data(), probs.data(), got.data());
    for (float v : got)
        QVERIFY(std::isfinite(v));
    const double err = normalizedRms(got, want);
    QVERIFY2(err <= kAttentionTolerance, qPrintable(QStringLiteral("normalized RMS %1 > %2").arg(err).arg(kAttentionTolerance)));
    // The probabilities written are a distribution over [first, last].
    double sum = 0;
    for (uint32_t j = first; j < keys; ++j)
        sum += f16ToF32(probs[j]);
    QVERIFY2(std::fabs(sum - 1.0) < 2e-3 * std::max<uint32_t>(1, keys - first) / 16 + 2e-3, qPrintable(QString::number(sum)));
}

void TestAttentionKernels::groupMatchesScalar_data()
{
    QTest::addColumn<int>("path");
    QTest::addColumn<int>("headSize");
    QTest::addColumn<int>("heads");
    QTest::addColumn<uint32_t>("keys");
    for (quant::CpuPath p : {quant::CpuPath::CPU_PATH_SCALAR, quant::CpuPath::CPU_PATH_AVX2, quant::CpuPath::CPU_PATH_AVX512}) {
        if (!quant::cpuPathSupported(p))
            continue;
        for (int hs : {64, 128, 80})
            for (int nh = 1; nh <= kMaxGroupHeads; ++nh)
                for (uint32_t keys : {1u, 45u, 260u})
                    QTest::addRow("%s head%d x%d keys%u", quant::cpuPathName(p), hs, nh, keys)
                        << static_cast<int>(p) << hs << nh << keys;
    }
}

// attendHeads (the grouped kernels on AVX-512) against the scalar kernel run
// head by head.
void TestAttentionKernels::groupMatchesScalar()
{
    QFETCH(int, path);
    QFETCH(int, headSize);
    QFETCH(int, heads);
    QFETCH(uint32_t, keys);
    const uint32_t first = keys > 40 ? 7 : 0;
    Head base = makeHead(headSize, headSize, keys, first, 1.0f, 0.0f, static_cast<uint32_t>(headSize + keys));
    std::vector<std::vector<float>> qs(static_cast<size_t>(heads)), want(static_cast<size_t>(heads)),
        got(static_cast<size_t>(heads));
    std::mt19937 rng(99);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    const float *qp[kMaxGroupHeads];
    float *op[kMaxGroupHeads];
    std::vector<float> scores(keys * static_cast<size_t>(heads) + 3);
    std::vector<uint16_t> probs(keys * static_cast<size_t>(heads) + 3);
    for (int g = 0; g < heads; ++g) {
        qs[g].resize(static_cast<size_t>(headSize));
        for (float &e : qs[g])
            e = f16ToF32(f32ToF16(nd(rng)));
        want[g].resize(static_cast<size_t>(headSize));
        got[g].assign(static_cast<size_t>(headSize), -1.0f);
        attendHeadScalar(base.h, qs[g].data(), scores.data(), probs.data(), want[g].data());
        qp[g] = qs[g].data();
        op[g] = got[g].data();
    }
    QVERIFY(quant::setCpuPath(static_cast<quant::CpuPath>(path)));
    attendHeads(base.h, heads, qp, op, scores.data(), keys + 1, probs.data(), keys + 1);
    for (int g = 0; g < heads; ++g) {
        const double err = normalizedRms(got[g], want[g]);
        QVERIFY2(err <= kAttentionTolerance,
                 qPrintable(QStringLiteral("head %1: normalized RMS %2 > %3").arg(g).arg(err).arg(kAttentionTolerance)));
    }
}

void TestAttentionKernels::oneKeyIsItsValue_data()
{
    QTest::addColumn<int>("path");
    for (quant::CpuPath p : {quant::CpuPath::CPU_PATH_SCALAR, quant::CpuPath::CPU_PATH_AVX2, quant::CpuPath::CPU_PATH_AVX512})
        if (quant::cpuPathSupported(p))
            QTest::newRow(quant::cpuPathName(p)) << static_cast<int>(p);
}

void TestAttentionKernels::oneKeyIsItsValue()
{
    QFETCH(int, path);
    QVERIFY(quant::setCpuPath(static_cast<quant::CpuPath>(path)));
    // Only key j = 5 visible (first = last = 5): probability 1, output = V_5.
    const Head x = [] {
        Head h = makeHead(64, 72, 6, 5, 1.0f, 0.0f, 7);
        return h;
    }();
    std::vector<float> scores(6), out(72);
    std::vector<uint16_t> probs(6);
    attendHead(x.h, x.q.data(), scores.data(), probs.data(), out.data());
    QCOMPARE(probs[5], f32ToF16(1.0f));
    for (int d = 0; d < 72; ++d)
        QCOMPARE(out[static_cast<size_t>(d)], f16ToF32(x.h.v[5 * x.h.vStride + static_cast<size_t>(d)]));
}

// attendBlock (several query tokens x heads per KV head, AVX-512) against the
// scalar kernel per query: each query with its own causal end and window
// start, as consecutive prompt tokens have.
void TestAttentionKernels::blockMatchesScalar_data()
{
    QTest::addColumn<int>("path");
    QTest::addColumn<int>("headSize");
    QTest::addColumn<int>("queries");
    QTest::addColumn<uint32_t>("keys");
    QTest::addColumn<uint32_t>("window");   // 0: none
    for (quant::CpuPath p : {quant::CpuPath::CPU_PATH_AVX2, quant::CpuPath::CPU_PATH_AVX512}) {
        const char *n = quant::cpuPathName(p);
        const int full = p == quant::CpuPath::CPU_PATH_AVX512 ? 16 : 8;
        QTest::addRow("%s: 64, %d queries, 300 keys", n, full) << int(p) << 64 << full << 300u << 0u;
        QTest::addRow("%s: 64, %d queries, 5 keys", n, full) << int(p) << 64 << full << 5u << 0u;
        QTest::addRow("%s: 64, 7 queries, 40 keys", n) << int(p) << 64 << 7 << 40u << 0u;
        QTest::addRow("%s: 64, 1 query, 1 key", n) << int(p) << 64 << 1 << 1u << 0u;
        QTest::addRow("%s: 64, %d queries, window 24", n, full) << int(p) << 64 << full << 200u << 24u;
        QTest::addRow("%s: 128, %d queries, 129 keys", n, full) << int(p) << 128 << full << 129u << 0u;
        QTest::addRow("%s: 128, 3 queries, 64 keys", n) << int(p) << 128 << 3 << 64u << 0u;
    }
}

void TestAttentionKernels::blockMatchesScalar()
{
    QFETCH(int, path);
    QFETCH(int, headSize);
    QFETCH(int, queries);
    QFETCH(uint32_t, keys);
    QFETCH(uint32_t, window);
    if (!quant::setCpuPath(static_cast<quant::CpuPath>(path)))
        QSKIP("this CPU lacks the path");
    QCOMPARE(attendBlockQueries(headSize), path == int(quant::CpuPath::CPU_PATH_AVX512) ? 16 : 8);
    const Head base = makeHead(headSize, headSize, keys, 0, 1.0f, 0.0f, static_cast<uint32_t>(headSize * 7 + keys));
    std::mt19937 rng(5);
    std::normal_distribution<float> nd(0.0f, 2.0f);
    AttentionBlock b;
    b.k = base.h.k;
    b.kStride = base.h.kStride;
    b.v = base.h.v;
    b.vStride = base.h.vStride;
    b.d = headSize;
    b.scale = base.h.scale;
    b.nq = queries;
    std::vector<std::vector<float>> qs(16), got(16), want(16);
    std::vector<float> scores(keys + 1);
    std::vector<uint16_t> probs(keys + 1);
    for (int i = 0; i < queries; ++i) {
        qs[i].resize(static_cast<size_t>(headSize));
        for (float &e : qs[i])
            e = f16ToF32(f32ToF16(nd(rng)));
        // Query i is token keys - 1 - (i / 4) of the block (4 heads per token).
        const uint32_t last = keys - 1 - std::min<uint32_t>(keys - 1, static_cast<uint32_t>(i / 4));
        const uint32_t first = window && last + 1 > window ? last + 1 - window : 0;
        b.q[i] = qs[i].data();
        got[i].assign(static_cast<size_t>(headSize), -7.0f);
        b.out[i] = got[i].data();
        b.first[i] = first;
        b.last[i] = last;
        AttentionHead h = base.h;
        h.first = first;
        h.last = last;
        want[i].resize(static_cast<size_t>(headSize));
        attendHeadScalar(h, qs[i].data(), scores.data(), probs.data(), want[i].data());
    }
    std::vector<float> scratch(32 * (static_cast<size_t>(keys) + 1) + 16);
    QVERIFY(attendBlock(b, scratch.data()));
    for (int i = 0; i < queries; ++i) {
        const double err = normalizedRms(got[i], want[i]);
        QVERIFY2(err <= kAttentionTolerance,
                 qPrintable(QStringLiteral("query %1: normalized RMS %2 > %3").arg(i).arg(err).arg(kAttentionTolerance)));
    }
    // Refused, nothing computed: more queries than the path takes, another
    // head size, the scalar path.
    AttentionBlock tooMany = b;
    tooMany.nq = attendBlockQueries(headSize) + 1;
    QVERIFY(!attendBlock(tooMany, scratch.data()));
    AttentionBlock other = b;
    other.d = 80;
    QVERIFY(!attendBlock(other, scratch.data()));
    QVERIFY(quant::setCpuPath(quant::CpuPath::CPU_PATH_SCALAR));
    QCOMPARE(attendBlockQueries(headSize), 0);
    QVERIFY(!attendBlock(b, scratch.data()));
}

// attendHead with a sink on every path against the double softmax: sinks
// far below, near, at and far above the scores (the sink then takes most of
// the probability mass), with softcapping and head sizes off the SIMD width.
void TestAttentionKernels::sinkMatchesDoubleSoftmax_data()
{
    QTest::addColumn<int>("path");
    QTest::addColumn<int>("dk");
    QTest::addColumn<uint32_t>("keys");
    QTest::addColumn<float>("softcap");
    QTest::addColumn<float>("sink");
    for (quant::CpuPath p : {quant::CpuPath::CPU_PATH_SCALAR, quant::CpuPath::CPU_PATH_AVX2, quant::CpuPath::CPU_PATH_AVX512}) {
        if (!quant::cpuPathSupported(p))
            continue;
        for (float sink : {-30.0f, -1.0f, 0.5f, 3.0f, 8.0f})
            for (int dk : {64, 80})
                for (uint32_t keys : {1u, 37u, 300u})
                    QTest::addRow("%s dk%d keys%u sink%g", quant::cpuPathName(p), dk, keys, static_cast<double>(sink))
                        << static_cast<int>(p) << dk << keys << 0.0f << sink;
        QTest::addRow("%s softcap sink2", quant::cpuPathName(p)) << static_cast<int>(p) << 128 << 50u << 20.0f << 2.0f;
    }
}

void TestAttentionKernels::sinkMatchesDoubleSoftmax()
{
    QFETCH(int, path);
    QFETCH(int, dk);
    QFETCH(uint32_t, keys);
    QFETCH(float, softcap);
    QFETCH(float, sink);
    Head x = makeHead(dk, dk, keys, keys > 10 ? 3 : 0, 1.0f, softcap, static_cast<uint32_t>(dk + 7 * keys));
    x.h.sink = sink;
    double pSink = 0;
    const std::vector<double> want = attendDouble(x.h, x.q.data(), &pSink);
    QVERIFY(quant::setCpuPath(static_cast<quant::CpuPath>(path)));
    std::vector<float> scores(keys), got(static_cast<size_t>(dk), -1.0f);
    std::vector<uint16_t> probs(keys);
    attendHead(x.h, x.q.data(), scores.data(), probs.data(), got.data());
    const double err = normalizedRms(got, want);
    QVERIFY2(err <= kDoubleSoftmaxTolerance, qPrintable(QStringLiteral("normalized RMS %1").arg(err)));
    // The keys' probabilities add up to what the sink leaves.
    double sum = 0;
    for (uint32_t j = x.h.first; j < keys; ++j)
        sum += f16ToF32(probs[j]);
    QVERIFY2(std::fabs(sum - (1.0 - pSink)) < 1e-3 * (keys - x.h.first) + 1e-3,
             qPrintable(QStringLiteral("keys hold %1, expected %2").arg(sum).arg(1.0 - pSink)));
}

// A sink of -infinity (the default), NaN or one so far below the scores that
// its exponential is 0 gives exactly the output without a sink, on every
// kernel (single head, grouped heads, blocked queries).
void TestAttentionKernels::noSinkIsBitIdentical()
{
    QFETCH(int, path);
    QVERIFY(quant::setCpuPath(static_cast<quant::CpuPath>(path)));
    const float noSinks[] = {-INFINITY, NAN, -1e30f};
    for (int d : {64, 128, 80}) {
        const uint32_t keys = 70;
        const Head x = makeHead(d, d, keys, 2, 1.0f, 0.0f, static_cast<uint32_t>(d));
        std::vector<float> scores(4 * (keys + 1)), plain(static_cast<size_t>(d));
        std::vector<uint16_t> probs(4 * (keys + 1));
        attendHead(x.h, x.q.data(), scores.data(), probs.data(), plain.data());
        for (float sink : noSinks) {
            AttentionHead h = x.h;
            h.sink = sink;
            std::vector<float> got(static_cast<size_t>(d));
            attendHead(h, x.q.data(), scores.data(), probs.data(), got.data());
            QVERIFY2(sameBits(got, plain), qPrintable(QStringLiteral("head %1, sink %2").arg(d).arg(sink)));
        }
        // grouped: null sinks, then per-head arrays of none
        std::vector<std::vector<float>> plainG(4, std::vector<float>(static_cast<size_t>(d))), gotG = plainG;
        const float *qp[4] = {x.q.data(), x.q.data(), x.q.data(), x.q.data()};
        float *op[4];
        for (int g = 0; g < 4; ++g)
            op[g] = plainG[static_cast<size_t>(g)].data();
        attendHeads(x.h, 4, qp, op, scores.data(), keys + 1, probs.data(), keys + 1);
        for (float sink : noSinks) {
            const float sinks[4] = {sink, sink, sink, sink};
            for (int g = 0; g < 4; ++g)
                op[g] = gotG[static_cast<size_t>(g)].data();
            attendHeads(x.h, 4, qp, op, scores.data(), keys + 1, probs.data(), keys + 1, sinks);
            for (int g = 0; g < 4; ++g)
                QVERIFY2(sameBits(gotG[static_cast<size_t>(g)], plainG[static_cast<size_t>(g)]),
                         qPrintable(QStringLiteral("grouped head %1 of size %2, sink %3").arg(g).arg(d).arg(sink)));
        }
        // blocked
        if (attendBlockQueries(d) == 0)
            continue;
        AttentionBlock b;
        b.k = x.h.k;
        b.kStride = x.h.kStride;
        b.v = x.h.v;
        b.vStride = x.h.vStride;
        b.d = d;
        b.scale = x.h.scale;
        b.nq = 5;
        std::vector<std::vector<float>> plainB(5, std::vector<float>(static_cast<size_t>(d))), gotB = plainB;
        for (int i = 0; i < 5; ++i) {
            b.q[i] = x.q.data();
            b.first[i] = static_cast<uint32_t>(i);
            b.last[i] = keys - 1 - static_cast<uint32_t>(i);
            b.out[i] = plainB[static_cast<size_t>(i)].data();
        }
        std::vector<float> scratch(32 * (keys + 1) + 16);
        QVERIFY(attendBlock(b, scratch.data()));
        for (float sink : noSinks) {
            AttentionBlock bs = b;
            for (int i = 0; i < 5; ++i) {
                bs.sink[i] = sink;
                bs.out[i] = gotB[static_cast<size_t>(i)].data();
            }
            QVERIFY(attendBlock(bs, scratch.data()));
            for (int i = 0; i < 5; ++i)
                QVERIFY2(sameBits(gotB[static_cast<size_t>(i)], plainB[static_cast<size_t>(i)]),
                         qPrintable(QStringLiteral("blocked query %1 of size %2, sink %3").arg(i).arg(d).arg(sink)));
        }
    }
}

// attendHeads with a different sink per head against the double softmax of
// each head and against the scalar kernel with that head's sink.
void TestAttentionKernels::groupSinksPerHead_data()
{
    QTest::addColumn<int>("path");
    QTest::addColumn<int>("headSize");
    QTest::addColumn<int>("heads");
    for (quant::CpuPath p : {quant::CpuPath::CPU_PATH_SCALAR, quant::CpuPath::CPU_PATH_AVX2, quant::CpuPath::CPU_PATH_AVX512}) {
        if (!quant::cpuPathSupported(p))
            continue;
        for (int hs : {64, 128, 80})
            for (int nh = 1; nh <= kMaxGroupHeads; ++nh)
                QTest::addRow("%s head%d x%d", quant::cpuPathName(p), hs, nh) << static_cast<int>(p) << hs << nh;
    }
}

void TestAttentionKernels::groupSinksPerHead()
{
    QFETCH(int, path);
    QFETCH(int, headSize);
    QFETCH(int, heads);
    const uint32_t keys = 90;
    const Head base = makeHead(headSize, headSize, keys, 4, 1.0f, 0.0f, static_cast<uint32_t>(headSize * heads));
    const float sinkOf[kMaxGroupHeads] = {2.5f, -INFINITY, 0.0f, 6.0f};
    std::mt19937 rng(17);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<std::vector<float>> qs(static_cast<size_t>(heads)), got(static_cast<size_t>(heads)),
        scalar(static_cast<size_t>(heads));
    const float *qp[kMaxGroupHeads];
    float *op[kMaxGroupHeads];
    std::vector<float> scores(keys * static_cast<size_t>(heads) + 3);
    std::vector<uint16_t> probs(keys * static_cast<size_t>(heads) + 3);
    for (int g = 0; g < heads; ++g) {
        qs[g].resize(static_cast<size_t>(headSize));
        for (float &e : qs[g])
            e = f16ToF32(f32ToF16(nd(rng)));
        AttentionHead h = base.h;
        h.sink = sinkOf[g];
        scalar[g].resize(static_cast<size_t>(headSize));
        attendHeadScalar(h, qs[g].data(), scores.data(), probs.data(), scalar[g].data());
        got[g].assign(static_cast<size_t>(headSize), -1.0f);
        qp[g] = qs[g].data();
        op[g] = got[g].data();
    }
    QVERIFY(quant::setCpuPath(static_cast<quant::CpuPath>(path)));
    AttentionHead shared = base.h;
    shared.sink = -5.0f;   // ignored: the array wins
    attendHeads(shared, heads, qp, op, scores.data(), keys + 1, probs.data(), keys + 1, sinkOf);
    for (int g = 0; g < heads; ++g) {
        AttentionHead h = base.h;
        h.sink = sinkOf[g];
        double pSink = 0;
        const double errD = normalizedRms(got[g], attendDouble(h, qs[g].data(), &pSink));
        const double errS = normalizedRms(got[g], scalar[g]);
        QVERIFY2(errD <= kDoubleSoftmaxTolerance && errS <= kAttentionTolerance,
                 qPrintable(QStringLiteral("head %1: %2 from double, %3 from scalar").arg(g).arg(errD).arg(errS)));
    }
}

// attendBlock with a different sink per query against the double softmax.
void TestAttentionKernels::blockSinksPerQuery_data()
{
    QTest::addColumn<int>("path");
    QTest::addColumn<int>("headSize");
    QTest::addColumn<int>("queries");
    for (quant::CpuPath p : {quant::CpuPath::CPU_PATH_AVX2, quant::CpuPath::CPU_PATH_AVX512})
        for (int hs : {64, 128})
            for (int nq : {1, 6, p == quant::CpuPath::CPU_PATH_AVX512 ? 16 : 8})
                QTest::addRow("%s head%d x%d", quant::cpuPathName(p), hs, nq) << static_cast<int>(p) << hs << nq;
}

void TestAttentionKernels::blockSinksPerQuery()
{
    QFETCH(int, path);
    QFETCH(int, headSize);
    QFETCH(int, queries);
    if (!quant::setCpuPath(static_cast<quant::CpuPath>(path)))
        QSKIP("this CPU lacks the path");
    const uint32_t keys = 120;
    const Head base = makeHead(headSize, headSize, keys, 0, 1.0f, 0.0f, static_cast<uint32_t>(headSize + queries));
    std::mt19937 rng(23);
    std::normal_distribution<float> nd(0.0f, 1.5f);
    AttentionBlock b;
    b.k = base.h.k;
    b.kStride = base.h.kStride;
    b.v = base.h.v;
    b.vStride = base.h.vStride;
    b.d = headSize;
    b.scale = base.h.scale;
    b.nq = queries;
    std::vector<std::vector<float>> qs(16), got(16);
    for (int i = 0; i < queries; ++i) {
        qs[i].resize(static_cast<size_t>(headSize));
        for (float &e : qs[i])
            e = f16ToF32(f32ToF16(nd(rng)));
        b.q[i] = qs[i].data();
        got[i].assign(static_cast<size_t>(headSize), -7.0f);
        b.out[i] = got[i].data();
        b.last[i] = keys - 1 - static_cast<uint32_t>(i / 2);
        b.first[i] = i % 3 == 0 ? 0 : b.last[i] - 40;
        b.sink[i] = i % 4 == 1 ? -INFINITY : -2.0f + 0.75f * static_cast<float>(i);
    }
    std::vector<float> scratch(32 * (static_cast<size_t>(keys) + 1) + 16);
    QVERIFY(attendBlock(b, scratch.data()));
    for (int i = 0; i < queries; ++i) {
        AttentionHead h = base.h;
        h.first = b.first[i];
        h.last = b.last[i];
        h.sink = b.sink[i];
        double pSink = 0;
        const double err = normalizedRms(got[i], attendDouble(h, qs[i].data(), &pSink));
        QVERIFY2(err <= kDoubleSoftmaxTolerance,
                 qPrintable(QStringLiteral("query %1 (sink %2): normalized RMS %3").arg(i).arg(b.sink[i]).arg(err)));
    }
}

QTEST_MAIN(TestAttentionKernels)
#include "tst_attention_kernels.moc"
