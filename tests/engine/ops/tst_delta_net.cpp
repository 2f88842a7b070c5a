// The Gated DeltaNet kernels (ops/delta_net.h) against the recurrence written
// out here in double: the causal convolution with its rolling window, the
// L2 norm, one delta-rule step, and a chunk of steps in the chunked form
// (the same outputs and final state as step by step, float tolerance), for
// chunk lengths 1..kDeltaChunk and head sizes 8..128, with strong and weak
// decays, on every CPU path this machine has; the SIMD kernels against their
// scalar twins (generic/).
#include "ops/delta_net.h"
#include "ops/generic/generic_kernels.h"
#include "quant/cpu_features.h"

#include <QtTest>

#include <cmath>
#include <random>
#include <vector>

using namespace burrow;

namespace {

std::vector<float> randomVector(std::mt19937 &rng, size_t n, float sd)
{
    std::normal_distribution<float> d(0.0f, sd);
    std::vector<float> v(n);
    for (float &x : v)
        x = d(rng);
    return v;
}

void normalize(float *x, int n)
{
    double s = 0;
    for (int i = 0; i < n; ++i)
        s += double(x[i]) * x[i];
    const double inv = 1.0 / std::sqrt(s);
    for (int i = 0; i < n; ++i)
        x[i] = float(x[i] * inv);
}

// The delta rule in double, state(i, j) = st[i * S + j] (not transposed).
struct ExactHead {
    int S;
    std::vector<double> st;
    explicit ExactHead(int s) : S(s), st(size_t(s) * s, 0.0) {}
    void step(const float *q, const float *k, const float *v, double g, double beta, double scale, double *out)
    {
        const double a = std::exp(g);
        for (double &x : st)
            x *= a;
        std::vector<double> d(S);
        for (int j = 0; j < S; ++j) {
            double dot = 0;
            for (int i = 0; i < S; ++i)
                dot += st[size_t(i) * S + j] * k[i];
            d[j] = (v[j] - dot) * beta;
        }
        for (int i = 0; i < S; ++i)
            for (int j = 0; j < S; ++j)
                st[size_t(i) * S + j] += k[i] * d[j];
        for (int j = 0; j < S; ++j) {
            double o = 0;
            for (int i = 0; i < S; ++i)
                o += st[size_t(i) * S + j] * q[i];
            out[j] = o * scale;
        }
    }
};

double maxAbs(const std::vector<double> &v)
{
    double m = 0;
    for (double x : v)
        m = std::max(m, std::fabs(x));
    return m;
}

const quant::CpuPath kPaths[] = {quant::CpuPath::CPU_PATH_SCALAR, quant::CpuPath::CPU_PATH_AVX2,
                                 quant::CpuPath::CPU_PATH_AVX512};

} // namespace

class TestDeltaNet : public QObject {
    Q_OBJECT

private slots:
    void cleanup() { quant::setCpuPath(quant::bestCpuPath()); }

    void causalConvRollsItsWindow_data()
    {
        QTest::addColumn<int>("K");
        QTest::addColumn<QList<int>>("chunks");   // tokens per call
        QTest::newRow("K 4, one call of 7") << 4 << QList<int>{7};
        QTest::newRow("K 4, 1 + 1 + 5") << 4 << QList<int>{1, 1, 5};
        QTest::newRow("K 2, 3 + 4") << 2 << QList<int>{3, 4};
        QTest::newRow("K 16, 2 + 9 + 1") << 16 << QList<int>{2, 9, 1};
    }
    void causalConvRollsItsWindow()
    {
        QFETCH(int, K);
        QFETCH(QList<int>, chunks);
        std::mt19937 rng(7);
        const int C = 24;
        int n = 0;
        for (int c : chunks)
            n += c;
        const std::vector<float> w = randomVector(rng, size_t(C) * K, 0.5f);
        const std::vector<float> x = randomVector(rng, size_t(n) * C, 1.0f);
        std::vector<float> state(size_t(C) * (K - 1), 0.0f), y(size_t(n) * C, 0.0f);
        int t0 = 0;
        for (int len : chunks) {
            // Two channel ranges, as two threads would split them.
            ops::causalConv(w.data(), state.data(), x.data() + size_t(t0) * C, y.data() + size_t(t0) * C, len, C, K, 0, 10);
            ops::causalConv(w.data(), state.data(), x.data() + size_t(t0) * C, y.data() + size_t(t0) * C, len, C, K, 10, C);
            t0 += len;
        }
        for (int t = 0; t < n; ++t)
            for (int c = 0; c < C; ++c) {
                double want = 0;
                for (int j = 0; j < K; ++j) {
                    const int src = t - (K - 1) + j;   // inputs before the first token are 0
                    if (src >= 0)
                        want += double(w[size_t(c) * K + j]) * x[size_t(src) * C + c];
                }
                QVERIFY2(std::fabs(y[size_t(t) * C + c] - want) <= 1e-5 * (1 + std::fabs(want)),
                         qPrintable(QStringLiteral("token %1 channel %2: %3 vs %4").arg(t).arg(c).arg(y[size_t(t) * C + c]).arg(want)));
            }
        // The window now holds each channel's last K - 1 inputs, oldest first.
        for (int c = 0; c < C; ++c)
            for (int j = 0; j < K - 1; ++j) {
                const int src = n - (K - 1) + j;
                QCOMPARE(state[size_t(c) * (K - 1) + j], src >= 0 ? x[size_t(src) * C + c] : 0.0f);
            }
    }

    void l2NormIsUnitLength()
    {
        std::vector<float> x{3.0f, 4.0f, 0.0f, 0.0f};
        ops::l2Norm(x.data(), 4, 1e-6f);
        QCOMPARE(x[0], 0.6f);
        QCOMPARE(x[1], 0.8f);
        std::vector<float> tiny{1e-9f, 0.0f};   // below eps: divided by eps, not blown up
        ops::l2Norm(tiny.data(), 2, 1e-6f);
        QVERIFY(std::fabs(tiny[0] - 1e-3f) < 1e-9f);
    }

    void stepMatchesTheRecurrence_data()
    {
        QTest::addColumn<int>("path");
        QTest::addColumn<int>("S");
        for (quant::CpuPath p : kPaths)
            if (quant::cpuPathSupported(p))
                for (int S : {8, 24, 64, 128})
                    QTest::newRow(qPrintable(QStringLiteral("%1, S %2").arg(quant::cpuPathName(p)).arg(S))) << int(p) << S;
    }
    void stepMatchesTheRecurrence()
    {
        QFETCH(int, path);
        QFETCH(int, S);
        QVERIFY(quant::setCpuPath(static_cast<quant::CpuPath>(path)));
        std::mt19937 rng(11);
        ExactHead exact(S);
        std::vector<float> M(size_t(S) * S, 0.0f), out(S);
        std::vector<double> want(S);
        const float scale = 1.0f / std::sqrt(float(S));
        for (int t = 0; t < 20; ++t) {
            std::vector<float> q = randomVector(rng, S, 1), k = randomVector(rng, S, 1), v = randomVector(rng, S, 1);
            normalize(q.data(), S);
            normalize(k.data(), S);
            const float g = -0.05f * float(t % 5), beta = 0.3f + 0.03f * float(t);
            ops::deltaNetStep(M.data(), q.data(), k.data(), v.data(), std::exp(g), beta, scale, out.data(), S);
            exact.step(q.data(), k.data(), v.data(), g, beta, scale, want.data());
            for (int j = 0; j < S; ++j)
                QVERIFY2(std::fabs(out[j] - want[j]) <= 1e-4 * (1 + std::fabs(want[j])),
                         qPrintable(QStringLiteral("token %1 out %2: %3 vs %4").arg(t).arg(j).arg(out[j]).arg(want[j])));
        }
        // Stored transposed: M[j * S + i] = state(i, j).
        for (int i = 0; i < S; ++i)
            for (int j = 0; j < S; ++j)
                QVERIFY(std::fabs(M[size_t(j) * S + i] - exact.st[size_t(i) * S + j]) <= 1e-4);
    }

    // A prompt in chunks = the same tokens one step at a time: outputs and
    // the state after, for every chunk length, from a state that is not zero.
    void chunkEqualsSteps_data()
    {
        QTest::addColumn<int>("path");
        QTest::addColumn<int>("S");
        QTest::addColumn<int>("n");
        QTest::addColumn<float>("decay");   // log decay per token (g)
        for (quant::CpuPath p : kPaths)
            if (quant::cpuPathSupported(p))
                for (int S : {8, 64, 128})
                    for (int n : {1, 2, 5, ops::kDeltaChunk})
                        for (float g : {-0.02f, -3.0f})
                            QTest::newRow(qPrintable(QStringLiteral("%1, S %2, %3 tokens, g %4")
                                                         .arg(quant::cpuPathName(p)).arg(S).arg(n).arg(g)))
                                << int(p) << S << n << g;
    }
    void chunkEqualsSteps()
    {
        QFETCH(int, path);
        QFETCH(int, S);
        QFETCH(int, n);
        QFETCH(float, decay);
        QVERIFY(quant::setCpuPath(static_cast<quant::CpuPath>(path)));
        std::mt19937 rng(uint32_t(S * 100 + n));
        const int stride = 3 * S + 5, gStride = 3;   // rows of a batch, as the forward pass lays them out
        std::vector<float> rows(size_t(n) * stride);
        std::vector<float> g(size_t(n) * gStride), beta(size_t(n) * gStride);
        for (int t = 0; t < n; ++t) {
            std::vector<float> q = randomVector(rng, S, 1), k = randomVector(rng, S, 1), v = randomVector(rng, S, 1);
            normalize(q.data(), S);
            normalize(k.data(), S);
            std::copy(q.begin(), q.end(), rows.begin() + size_t(t) * stride);
            std::copy(k.begin(), k.end(), rows.begin() + size_t(t) * stride + S);
            std::copy(v.begin(), v.end(), rows.begin() + size_t(t) * stride + 2 * S);
            g[size_t(t) * gStride] = decay * (1.0f + 0.1f * float(t));
            beta[size_t(t) * gStride] = 0.2f + 0.05f * float(t % 7);
        }
        const float scale = 1.0f / std::sqrt(float(S));
        std::vector<float> start = randomVector(rng, size_t(S) * S, 0.1f);
        std::vector<float> Mstep = start, Mchunk = start;
        std::vector<float> outStep(size_t(n) * S), outChunk(size_t(n) * stride, 0.0f);
        for (int t = 0; t < n; ++t) {
            const float *r = rows.data() + size_t(t) * stride;
            ops::deltaNetStep(Mstep.data(), r, r + S, r + 2 * S, std::exp(g[size_t(t) * gStride]), beta[size_t(t) * gStride],
                              scale, outStep.data() + size_t(t) * S, S);
        }
        std::vector<float> scratch(size_t(ops::deltaNetChunkScratch(S)));
        ops::deltaNetChunk(Mchunk.data(), rows.data(), rows.data() + S, stride, rows.data() + 2 * S, stride, g.data(),
                           beta.data(), gStride, scale, outChunk.data(), stride, n, S, scratch.data());
        std::vector<double> dOut, dState, ref;
        for (int t = 0; t < n; ++t)
            for (int j = 0; j < S; ++j) {
                dOut.push_back(double(outChunk[size_t(t) * stride + j]) - outStep[size_t(t) * S + j]);
                ref.push_back(outStep[size_t(t) * S + j]);
            }
        for (size_t e = 0; e < Mstep.size(); ++e)
            dState.push_back(double(Mchunk[e]) - Mstep[e]);
        const double tol = 2e-5 * (1.0 + maxAbs(ref));
        QVERIFY2(maxAbs(dOut) <= tol, qPrintable(QStringLiteral("outputs differ by %1").arg(maxAbs(dOut))));
        QVERIFY2(maxAbs(dState) <= 2e-5, qPrintable(QStringLiteral("states differ by %1").arg(maxAbs(dState))));
        // The chunk's gaps between rows are left alone.
        for (int t = 0; t < n; ++t)
            for (int j = S; j < stride; ++j)
                QCOMPARE(outChunk[size_t(t) * stride + j], 0.0f);
    }

    // Each path's kernels against the scalar twins on the same inputs: only
    // the order of the sums differs (and fused multiply-adds).
    void simdMatchesTheTwins_data()
    {
        QTest::addColumn<int>("path");
        for (quant::CpuPath p : {quant::CpuPath::CPU_PATH_AVX2, quant::CpuPath::CPU_PATH_AVX512})
            if (quant::cpuPathSupported(p))
                QTest::newRow(quant::cpuPathName(p)) << int(p);
        if (!quant::cpuPathSupported(quant::CpuPath::CPU_PATH_AVX2))
            QTest::newRow("none") << -1;
    }
    void simdMatchesTheTwins()
    {
        QFETCH(int, path);
        if (path < 0)
            QSKIP("this CPU has no AVX2: only the scalar kernels run here");
        QVERIFY(quant::setCpuPath(static_cast<quant::CpuPath>(path)));
        const int S = 128, n = ops::kDeltaChunk;
        std::mt19937 rng(5);
        std::vector<float> rows(size_t(n) * 3 * S), g(n), beta(n);
        for (int t = 0; t < n; ++t) {
            std::vector<float> x = randomVector(rng, 3 * size_t(S), 1);
            normalize(x.data(), S);
            normalize(x.data() + S, S);
            std::copy(x.begin(), x.end(), rows.begin() + size_t(t) * 3 * S);
            g[t] = -0.1f * float(t % 4);
            beta[t] = 0.5f;
        }
        const float scale = 1.0f / std::sqrt(float(S));
        const std::vector<float> start = randomVector(rng, size_t(S) * S, 0.1f);
        std::vector<float> a = start, b = start, oa(size_t(n) * S), ob(size_t(n) * S), scratch(size_t(ops::deltaNetChunkScratch(S)));
        ops::deltaNetChunk(a.data(), rows.data(), rows.data() + S, 3 * S, rows.data() + 2 * S, 3 * S, g.data(), beta.data(), 1,
                           scale, oa.data(), S, n, S, scratch.data());
        ops::generic::deltaNetChunk(b.data(), rows.data(), rows.data() + S, 3 * S, rows.data() + 2 * S, 3 * S, g.data(),
                                    beta.data(), 1, scale, ob.data(), S, n, S, scratch.data());
        double chunkOut = 0, chunkState = 0;
        for (size_t i = 0; i < oa.size(); ++i)
            chunkOut = std::max(chunkOut, std::fabs(double(oa[i]) - ob[i]));
        for (size_t i = 0; i < a.size(); ++i)
            chunkState = std::max(chunkState, std::fabs(double(a[i]) - b[i]));
        a = start;
        b = start;
        ops::deltaNetStep(a.data(), rows.data(), rows.data() + S, rows.data() + 2 * S, 0.9f, 0.5f, scale, oa.data(), S);
        ops::generic::deltaNetStep(b.data(), rows.data(), rows.data() + S, rows.data() + 2 * S, 0.9f, 0.5f, scale, ob.data(), S);
        double stepOut = 0, stepState = 0;
        for (int j = 0; j < S; ++j)
            stepOut = std::max(stepOut, std::fabs(double(oa[j]) - ob[j]));
        for (size_t i = 0; i < a.size(); ++i)
            stepState = std::max(stepState, std::fabs(double(a[i]) - b[i]));
        qInfo("chunk: outputs %.2g, state %.2g; step: outputs %.2g, state %.2g", chunkOut, chunkState, stepOut, stepState);
        QVERIFY(chunkOut < 1e-5 && chunkState < 1e-5 && stepOut < 1e-5 && stepState < 1e-5);
        // Not the scalar twin itself (a table that forgot its SIMD entry would pass the rest).
        QVERIFY(chunkOut > 0 || chunkState > 0 || stepOut > 0 || stepState > 0);
    }
};

QTEST_MAIN(TestDeltaNet)
#include "tst_delta_net.moc"
