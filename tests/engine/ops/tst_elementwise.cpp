// The elementwise ops (ops/ops.h) and the dispatch table behind them
// (ops/kernels.h): the table follows the trait table's CPU path; gpt-oss's
// clamped SwiGLU on values worked out here from the reference's formula
// (g = min(gate, 7), u = clamp(up, -7, 7), g / (1 + e^(-1.702 g)) * (u + 1)),
// bit for bit on every path (the reference computes it with libm's expf);
// SwiGLU bit for bit on every path as the reference's AVX-512 build computes
// it (ggml_v_expf for the first n & ~15 elements of a row, expf for the rest,
// both written out here from the reference's recipe); RoPE's rotation in the
// reference's contracted form (fma(x0, cos, -(x1 sin)), fma(x0, sin, x1 cos))
// on values where the unfused form rounds differently; and
// gemma's table GELU against the reference's table formula evaluated here for
// every half (float steps, tanhf, 1 + 0.044715 x^2 fused, rounded to half),
// with its |x| >= 10 bypass.
#include "model/model_config.h"
#include "ops/expf.h"
#include "ops/generic/generic_kernels.h"
#include "ops/kernels.h"
#include "ops/ops.h"
#include "quant/cpu_features.h"
#include "test_support.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <vector>

using namespace burrow;

namespace {

void addPathRows()
{
    QTest::addColumn<int>("path");
    for (quant::CpuPath p : {quant::CpuPath::CPU_PATH_SCALAR, quant::CpuPath::CPU_PATH_AVX2, quant::CpuPath::CPU_PATH_AVX512})
        if (quant::cpuPathSupported(p))
            QTest::newRow(quant::cpuPathName(p)) << static_cast<int>(p);
}

// The reference's clamped SwiGLU in float, operation by operation.
float swigluOaiFloat(float gate, float up)
{
    const float x = std::min(gate, 7.0f);
    const float y = std::clamp(up, -7.0f, 7.0f);
    const float glu = x / (1.0f + std::exp(1.702f * (-x)));
    return glu * (y + 1.0f);
}

// Gates and ups around the clamps and the ends of e^x.
void oaiInputs(std::vector<float> *g, std::vector<float> *u)
{
    const float gates[] = {0.0f, -0.0f, 1e-6f, -1e-6f, 0.5f, -0.5f, 1.0f, -2.0f, 6.99f, 7.0f, 7.01f, 8.0f,
                           100.0f, -7.0f, -8.0f, -30.0f, -51.0f, -52.0f, -60.0f, -100.0f, 3.25f, -3.25f};
    const float ups[] = {0.0f, -1.0f, 1.0f, -7.0f, 7.0f, -7.5f, 7.5f, 100.0f, -100.0f, 0.3f, -0.3f};
    for (float a : gates)
        for (float b : ups) {
            g->push_back(a);
            u->push_back(b);
        }
    for (int i = 0; i < 333; ++i) {   // a long run: the SIMD loop plus a tail
        g->push_back(-12.0f + 0.061f * static_cast<float>(i));
        u->push_back(-9.0f + 0.05f * static_cast<float>(i % 360));
    }
}

bool sameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// ggml_v_expf (AVX-512 build) as its source states it, one lane: the
// polynomial by fused multiply-adds, then j * 2^n by ldexp (one rounding, as
// vscalefps), |n| > 192 to 0 or +inf.
float refVExpf(float x)
{
    const float r = 0x1.8p23f;
    const float z = std::fma(x, 0x1.715476p+0f, r);
    const float n = z - r;
    const float b = std::fma(-n, 0x1.7f7d1cp-20f, std::fma(-n, 0x1.62e4p-1f, x));
    const float u = b * b;
    const float j = std::fma(std::fma(std::fma(0x1.0e4020p-7f, b, 0x1.573e2ep-5f), u,
                                      std::fma(0x1.555e66p-3f, b, 0x1.fffdb6p-2f)),
                             u, std::fma(0x1.ffffecp-1f, b, 1.0f));
    if (std::isnan(n))
        return n;
    if (std::fabs(n) > 192.0f)
        return n <= 0.0f ? 0.0f : INFINITY;
    return std::ldexp(j, static_cast<int>(n));
}

// The reference's ggml_vec_swiglu_f32 on one row of n elements.
float refSwiglu(float g, float u, int64_t i, int64_t n)
{
    if (i < (n & ~int64_t{15}))
        return (g / (1.0f + refVExpf(0.0f - g))) * u;
    return g / (1.0f + std::exp(-g)) * u;
}

// IEEE half decoding and round-to-nearest-even encoding, written from the format.
double halfValue(uint16_t h)
{
    const int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    const double v = exp == 0 ? std::ldexp(mant, -24) : exp == 31 ? (mant ? NAN : INFINITY) : std::ldexp(1024 + mant, exp - 25);
    return (h & 0x8000) ? -v : v;
}

double roundToHalf(double v)
{
    const double a = std::fabs(v);
    if (a >= 65520.0)
        return std::copysign(INFINITY, v);
    int e = 0;
    std::frexp(a, &e);                                    // a in [2^(e-1), 2^e)
    const double step = a < std::ldexp(1.0, -14) ? std::ldexp(1.0, -24) : std::ldexp(1.0, e - 11);
    return std::copysign(std::nearbyint(a / step) * step, v);   // ties to even
}

// The reference table's formula for one input, in float, as its x86 build runs it.
float geluTableFormula(float x)
{
    const float inner = std::fma(0.044715f * x, x, 1.0f);
    return 0.5f * x * (1.0f + std::tanh(0.79788456080286535587989211986876f * x * inner));
}

} // namespace

class TestElementwise : public QObject {
    Q_OBJECT

private slots:
    void cleanup() { quant::setCpuPath(quant::bestCpuPath()); }

    // The table of the active path is the one setCpuPath chose, with every
    // entry set and the optional kernels where the path has them.
    void tableFollowsPath_data() { addPathRows(); }
    void tableFollowsPath()
    {
        QFETCH(int, path);
        const auto p = static_cast<quant::CpuPath>(path);
        QVERIFY(quant::setCpuPath(p));
        const ops::Kernels &k = ops::kernels();
        QCOMPARE(k.path, p);
        QVERIFY(k.rmsNorm && k.swiglu && k.swigluOai && k.geglu && k.f32ToF16Row && k.attendHead && k.attendHeads);
        QCOMPARE(k.attendBlock != nullptr, p != quant::CpuPath::CPU_PATH_SCALAR);
        QCOMPARE(k.attendBlockQueries, p == quant::CpuPath::CPU_PATH_AVX512 ? 16 : p == quant::CpuPath::CPU_PATH_AVX2 ? 8 : 0);
    }

    // Hand-checked points: the gate clamps at 7 but not below, the up clamps
    // at +-7, up = -1 zeroes the output, and sigmoid(1.702) at gate 1.
    void swigluOaiPoints_data() { addPathRows(); }
    void swigluOaiPoints()
    {
        QFETCH(int, path);
        QVERIFY(quant::setCpuPath(static_cast<quant::CpuPath>(path)));
        // 16 + 1 values so each row goes through the 16- and 8-lane loops and the tail.
        auto run = [](float gate, float up) {
            std::vector<float> g(17, gate), u(17, up), o(17, NAN);
            ops::swigluOai(g.data(), u.data(), o.data(), 17);
            return o;
        };
        const double sig = 1.0 / (1.0 + std::exp(-static_cast<double>(1.702f)));   // sigmoid(1.702) = 0.84584...
        for (float v : run(1.0f, 0.0f))
            QVERIFY2(std::fabs(v - sig) <= 4e-7, qPrintable(QString::number(v, 'g', 9)));
        for (float v : run(1.0f, 1.0f))
            QVERIFY(std::fabs(v - 2 * sig) <= 8e-7);
        // gate 8 and 100 are gate 7: 7 * sigmoid(11.914) * (up + 1)
        const std::vector<float> at7 = run(7.0f, 0.5f), at8 = run(8.0f, 0.5f), at100 = run(100.0f, 0.5f);
        QVERIFY(at7 == at8 && at7 == at100);
        QVERIFY(std::fabs(at7[0] - 7.0 / (1.0 + std::exp(-7.0 * static_cast<double>(1.702f))) * 1.5) <= 4e-6);
        // the gate is not clamped from below: gate -8 differs from gate -7
        QVERIFY(run(-8.0f, 0.5f)[0] != run(-7.0f, 0.5f)[0]);
        // up clamps to [-7, 7]
        QVERIFY(run(2.0f, 7.0f) == run(2.0f, 100.0f));
        QVERIFY(run(2.0f, -7.0f) == run(2.0f, -100.0f));
        // up = -1: (u + 1) = 0, so exactly zero (negative zero for a negative gate)
        for (float v : run(3.0f, -1.0f))
            QVERIFY(v == 0.0f && !std::signbit(v));
        for (float v : run(-3.0f, -1.0f))
            QVERIFY(v == 0.0f && std::signbit(v));
        // very negative gates: e^(1.702 * 60) overflows, the output is -0 * (u + 1)
        for (float v : run(-60.0f, 2.0f))
            QVERIFY(v == 0.0f);
    }

    // Every path computes exactly the reference's float operations (with
    // libm's expf, as the reference), in place (out == gate) too.
    void swigluOaiPaths_data() { addPathRows(); }
    void swigluOaiPaths()
    {
        QFETCH(int, path);
        std::vector<float> g, u;
        oaiInputs(&g, &u);
        const int64_t n = static_cast<int64_t>(g.size());
        QVERIFY(quant::setCpuPath(static_cast<quant::CpuPath>(path)));
        std::vector<float> out(g.size()), inPlace = g;
        ops::swigluOai(g.data(), u.data(), out.data(), n);
        ops::swigluOai(inPlace.data(), u.data(), inPlace.data(), n);
        for (size_t i = 0; i < g.size(); ++i) {
            QVERIFY2(sameBits(out[i], inPlace[i]), qPrintable(QString::number(i)));
            QVERIFY2(sameBits(out[i], swigluOaiFloat(g[i], u[i])),
                     qPrintable(QStringLiteral("g %1 u %2: %3").arg(g[i]).arg(u[i]).arg(out[i])));
        }
    }

    // ops::vexpf against the recipe on the whole range: the ends (0 below
    // about -133 where |n| > 192 cuts in, denormal results, +inf), NaN,
    // and values where it differs from libm's expf (so it is not expf).
    void vexpfRecipe()
    {
        std::vector<float> xs = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 88.0f, 88.7f, 88.73f, 89.0f, 100.0f, 133.0f, 134.0f,
                                 -87.0f, -87.4f, -100.0f, -103.9f, -104.0f, -110.0f, -132.0f, -133.0f, -134.0f,
                                 -200.0f, 1e30f, -1e30f, INFINITY, -INFINITY};
        for (int i = 0; i < 20000; ++i)
            xs.push_back(-120.0f + 0.0107f * static_cast<float>(i));
        int differsFromLibm = 0;
        for (float x : xs) {
            const float got = ops::vexpf(x), want = refVExpf(x);
            QVERIFY2(sameBits(got, want), qPrintable(QStringLiteral("x %1: %2, recipe %3").arg(x, 0, 'g', 9)
                                                         .arg(got, 0, 'g', 9).arg(want, 0, 'g', 9)));
            differsFromLibm += !sameBits(got, std::exp(x));
        }
        QVERIFY(std::isnan(ops::vexpf(NAN)));
        QVERIFY2(differsFromLibm > 100, qPrintable(QString::number(differsFromLibm)));
    }

    // SwiGLU on every path is the reference's AVX-512 row kernel bit for bit:
    // rows whose length is and is not a multiple of 16 (the vector part uses
    // ggml_v_expf, the leftovers expf), gates at the ends of e^-g (denormal
    // and cut-off exponents), in place too.
    void swigluRecipe_data()
    {
        QTest::addColumn<int>("path");
        QTest::addColumn<int>("n");
        for (quant::CpuPath p : {quant::CpuPath::CPU_PATH_SCALAR, quant::CpuPath::CPU_PATH_AVX2, quant::CpuPath::CPU_PATH_AVX512})
            if (quant::cpuPathSupported(p))
                for (int n : {1, 15, 16, 17, 40, 333, 1024})
                    QTest::addRow("%s n=%d", quant::cpuPathName(p), n) << static_cast<int>(p) << n;
    }
    void swigluRecipe()
    {
        QFETCH(int, path);
        QFETCH(int, n);
        QVERIFY(quant::setCpuPath(static_cast<quant::CpuPath>(path)));
        const float special[] = {0.0f, -0.0f, 90.0f, 100.0f, 104.0f, 130.0f, 140.0f, -89.0f, -95.0f, -200.0f,
                                 1e-7f, -1e-7f, 3.0f, -3.0f, 20.0f, -20.0f};
        std::vector<float> g(static_cast<size_t>(n)), u(static_cast<size_t>(n));
        for (int i = 0; i < n; ++i) {
            g[static_cast<size_t>(i)] = i < 16 && n >= 16 ? special[i] : -9.0f + 0.0371f * static_cast<float>(i % 500);
            u[static_cast<size_t>(i)] = 0.75f - 0.013f * static_cast<float>(i % 97);
        }
        std::vector<float> out(g.size()), inPlace = g;
        ops::swiglu(g.data(), u.data(), out.data(), n);
        ops::swiglu(inPlace.data(), u.data(), inPlace.data(), n);
        for (int i = 0; i < n; ++i) {
            const size_t k = static_cast<size_t>(i);
            const float want = refSwiglu(g[k], u[k], i, n);
            QVERIFY2(sameBits(out[k], want), qPrintable(QStringLiteral("i %1 g %2: %3, recipe %4").arg(i)
                                                            .arg(g[k], 0, 'g', 9).arg(out[k], 0, 'g', 9).arg(want, 0, 'g', 9)));
            QVERIFY2(sameBits(inPlace[k], want), qPrintable(QString::number(i)));
        }
    }

    // RoPE rotates in the reference's contracted form. The rows are built so
    // that the unfused x0 cos - x1 sin / x0 sin + x1 cos round differently
    // from the fused form for some pairs (checked), in both layouts.
    void ropeFusedForm_data()
    {
        QTest::addColumn<bool>("neox");
        QTest::newRow("norm") << false;
        QTest::newRow("neox") << true;
    }
    void ropeFusedForm()
    {
        QFETCH(bool, neox);
        const int headDim = 64, nRot = 64, heads = 3;
        std::vector<float> cs(nRot);
        ops::ropeCache(7.0f, nRot, 10000.0f, 1.0f, nullptr, cs.data());
        std::vector<float> x(static_cast<size_t>(heads * headDim));
        for (size_t i = 0; i < x.size(); ++i)
            x[i] = std::sin(0.37f * static_cast<float>(i) + 0.1f) * (1.0f + 0.01f * static_cast<float>(i));
        const std::vector<float> orig = x;
        ops::ropeApply(x.data(), heads, headDim, nRot, neox ? model::RopeType::ROPE_TYPE_NEOX : model::RopeType::ROPE_TYPE_NORM,
                       cs.data());
        int unfusedDiffers = 0;
        for (int h = 0; h < heads; ++h)
            for (int i = 0; i < nRot / 2; ++i) {
                const int a = h * headDim + (neox ? i : 2 * i), b = h * headDim + (neox ? i + nRot / 2 : 2 * i + 1);
                const float c = cs[static_cast<size_t>(2 * i)], sn = cs[static_cast<size_t>(2 * i + 1)];
                const float x0 = orig[static_cast<size_t>(a)], x1 = orig[static_cast<size_t>(b)];
                const float p = x1 * sn, q = x1 * c;
                const float want0 = std::fma(x0, c, -p), want1 = std::fma(x0, sn, q);
                QVERIFY2(sameBits(x[static_cast<size_t>(a)], want0) && sameBits(x[static_cast<size_t>(b)], want1),
                         qPrintable(QStringLiteral("head %1 pair %2").arg(h).arg(i)));
                const float m0 = x0 * c, m1 = x0 * sn;
                unfusedDiffers += !sameBits(m0 - p, want0) || !sameBits(m1 + q, want1);
            }
        QVERIFY2(unfusedDiffers > 0, "the rows do not tell the fused form from the unfused one");
    }

    // Every half in (-10, 10): the looked-up value is the formula's result
    // rounded to half; inputs that are not halves use their nearest half.
    void geluEveryHalf()
    {
        int checked = 0;
        for (uint32_t h = 0; h < 0x10000; ++h) {
            const double x = halfValue(static_cast<uint16_t>(h));
            if (!(std::fabs(x) < 10.0))
                continue;
            const float xf = static_cast<float>(x);
            const double want = roundToHalf(geluTableFormula(xf));
            const float got = ops::geluTanh(xf);
            if (static_cast<double>(got) != want)
                QFAIL(qPrintable(QStringLiteral("half 0x%1 (%2): %3, expected %4").arg(h, 4, 16, QLatin1Char('0'))
                                     .arg(x).arg(got, 0, 'g', 9).arg(want, 0, 'g', 9)));
            ++checked;
        }
        QCOMPARE(checked, 2 * (18 * 1024 + 256));   // exponents up to [4, 8), and [8, 10)
    }

    void geluPoints_data()
    {
        QTest::addColumn<float>("x");
        QTest::addColumn<double>("expected");
        // the one entry where fusing 1 + 0.044715 x^2 matters: x = -1.9990234375 (0xbfff)
        QTest::newRow("0xbfff fused") << -1.9990234375f << -0x1.74cp-5;
        // not a half: 1 + 2^-11 is a tie between 1 and 1 + 2^-10, rounds to even (1)
        QTest::newRow("tie to even") << 1.00048828125f << roundToHalf(geluTableFormula(1.0f));
        QTest::newRow("above the tie") << 1.00049f << roundToHalf(geluTableFormula(1.0009765625f));
        QTest::newRow("zero") << 0.0f << 0.0;
        QTest::newRow("9.99 in the table") << 9.99f << roundToHalf(geluTableFormula(9.9921875f));
        QTest::newRow("10 passes through") << 10.0f << 10.0;
        QTest::newRow("123.5 passes through") << 123.5f << 123.5;
        QTest::newRow("-9.99 in the table") << -9.99f << roundToHalf(geluTableFormula(-9.9921875f));
        QTest::newRow("-10 is zero") << -10.0f << 0.0;
        QTest::newRow("-1e30 is zero") << -1e30f << 0.0;
    }
    void geluPoints()
    {
        QFETCH(float, x);
        QFETCH(double, expected);
        QCOMPARE(static_cast<double>(ops::geluTanh(x)), expected);
        // and never far from the exact tanh GELU
        const double exact = 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * double(x) * x * x)));
        QVERIFY(std::fabs(ops::geluTanh(x) - exact) <= 2e-3 * std::max(1.0, std::fabs(exact)));
    }

    // geglu = table GELU of the gate times up, with the reference's bypass:
    // gate <= -10 gives exactly +0 whatever up is (not 0 * up), gate >= 10
    // gate * up. The eight cases repeat to 8 x 5 = 40 values on every path, so
    // each lands in the 16-lane, the 8-lane and the scalar tail loops.
    void gegluBypass_data() { addPathRows(); }
    void gegluBypass()
    {
        QFETCH(int, path);
        QVERIFY(quant::setCpuPath(static_cast<quant::CpuPath>(path)));
        const float gate8[] = {-10.0f, -10.0f, -50.0f, -1e30f, 10.0f, 20.0f, 0.5f, -1.9990234375f};
        const float up8[] = {-3.0f, INFINITY, -0.0f, NAN, -2.0f, 0.25f, 3.0f, -4.0f};
        constexpr int kRepeat = 5, n = 8 * kRepeat;
        float gate[n], up[n], out[n];
        for (int i = 0; i < n; ++i) {
            gate[i] = gate8[i % 8];
            up[i] = up8[i % 8];
        }
        ops::geglu(gate, up, out, n);
        for (int r = 0; r < kRepeat; ++r) {
            const float *o = out + 8 * r;
            for (int i = 0; i < 4; ++i)
                QVERIFY2(o[i] == 0.0f && !std::signbit(o[i]), qPrintable(QString::number(8 * r + i)));
            QCOMPARE(o[4], -20.0f);
            QCOMPARE(o[5], 5.0f);
            QCOMPARE(static_cast<double>(o[6]), static_cast<double>(static_cast<float>(roundToHalf(geluTableFormula(0.5f))) * 3.0f));
            QCOMPARE(static_cast<double>(o[7]), static_cast<double>(static_cast<float>(-0x1.74cp-5) * -4.0f));
        }
    }

    // Every path's geglu equals the scalar twin bit for bit: every half as a
    // gate, floats between halves (ties included), the bypass edges, NaN and
    // infinities, a length that leaves a tail, and in place (out == gate).
    void gegluPaths_data() { addPathRows(); }
    void gegluPaths()
    {
        QFETCH(int, path);
        std::vector<float> g, u;
        for (uint32_t h = 0; h < 0x10000; ++h) {
            const float x = static_cast<float>(halfValue(static_cast<uint16_t>(h)));
            g.push_back(x);
            g.push_back(std::nextafter(x, 0.0f));
            u.push_back(1.0f + static_cast<float>(h % 7) * 0.375f);
            u.push_back(-0.5f - static_cast<float>(h % 5));
        }
        for (float x : {-10.0f, std::nextafter(-10.0f, 0.0f), 10.0f, std::nextafter(10.0f, 0.0f), INFINITY, -INFINITY,
                        NAN, -NAN, 1.00048828125f, 0.0f, -0.0f}) {
            g.push_back(x);
            u.push_back(2.5f);
        }
        const int64_t n = static_cast<int64_t>(g.size());   // 131083: not a multiple of 8 or 16
        std::vector<float> want(g.size());
        ops::generic::geglu(g.data(), u.data(), want.data(), n);
        QVERIFY(quant::setCpuPath(static_cast<quant::CpuPath>(path)));
        QVERIFY(ops::kernels().geglu);
        std::vector<float> out(g.size()), inPlace = g;
        ops::geglu(g.data(), u.data(), out.data(), n);
        ops::geglu(inPlace.data(), u.data(), inPlace.data(), n);
        for (size_t i = 0; i < g.size(); ++i) {
            QVERIFY2(sameBits(out[i], want[i]), qPrintable(QStringLiteral("g %1 u %2: %3, twin %4").arg(g[i]).arg(u[i])
                                                                .arg(out[i], 0, 'g', 9).arg(want[i], 0, 'g', 9)));
            QVERIFY2(sameBits(inPlace[i], want[i]), qPrintable(QString::number(i)));
        }
    }
};

QTEST_MAIN(TestElementwise)
#include "tst_elementwise.moc"
