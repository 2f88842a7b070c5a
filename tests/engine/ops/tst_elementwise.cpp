// The elementwise ops (ops/ops.h) and the dispatch table behind them
// (ops/kernels.h): the table follows the trait table's CPU path; gpt-oss's
// clamped SwiGLU on values worked out here from the reference's formula
// (g = min(gate, 7), u = clamp(up, -7, 7), g / (1 + e^(-1.702 g)) * (u + 1)),
// bit for bit on the scalar path and within the polynomial exp's error on
// the SIMD paths, whose kernels are also compared with the scalar twin.
#include "ops/kernels.h"
#include "ops/ops.h"
#include "quant/cpu_features.h"
#include "test_support.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace burrow;

namespace {

// The SIMD paths' e^x is a polynomial within ~1 ulp of expf (the scalar
// path's); through 1 / (1 + e) and two products that stays within 4 ulp.
constexpr double kPolyExpUlps = 4;

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

// The same in double from e^'s float argument on (its rounding is the
// kernels' too, and e^ amplifies it by |argument|).
double swigluOaiDouble(float gate, float up)
{
    const float x = std::min(gate, 7.0f);
    const double y = std::clamp(up, -7.0f, 7.0f);
    return x / (1.0 + std::exp(static_cast<double>(1.702f * (-x)))) * (y + 1.0);
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
        QVERIFY(k.rmsNorm && k.swiglu && k.swigluOai && k.f32ToF16Row && k.attendHead && k.attendHeads);
        QCOMPARE(k.attendBlock != nullptr, p != quant::CpuPath::CPU_PATH_SCALAR);
        QCOMPARE(k.attendBlockQueries, p == quant::CpuPath::CPU_PATH_AVX512 ? 16 : p == quant::CpuPath::CPU_PATH_AVX2 ? 8 : 0);
        QCOMPARE(k.gemmQ32 != nullptr, p == quant::CpuPath::CPU_PATH_AVX512);
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

    // The scalar path computes exactly the reference's float operations; the
    // SIMD paths stay within the polynomial exp's error of the double formula
    // and of the scalar twin. In place (out == gate) too.
    void swigluOaiPaths_data() { addPathRows(); }
    void swigluOaiPaths()
    {
        QFETCH(int, path);
        std::vector<float> g, u;
        oaiInputs(&g, &u);
        const int64_t n = static_cast<int64_t>(g.size());
        QVERIFY(quant::setCpuPath(quant::CpuPath::CPU_PATH_SCALAR));
        std::vector<float> scalar(g.size());
        ops::swigluOai(g.data(), u.data(), scalar.data(), n);
        QVERIFY(quant::setCpuPath(static_cast<quant::CpuPath>(path)));
        std::vector<float> out(g.size()), inPlace = g;
        ops::swigluOai(g.data(), u.data(), out.data(), n);
        ops::swigluOai(inPlace.data(), u.data(), inPlace.data(), n);
        const float eps = std::numeric_limits<float>::epsilon();
        for (size_t i = 0; i < g.size(); ++i) {
            QVERIFY2(sameBits(out[i], inPlace[i]), qPrintable(QString::number(i)));
            if (static_cast<quant::CpuPath>(path) == quant::CpuPath::CPU_PATH_SCALAR) {
                QVERIFY2(sameBits(out[i], swigluOaiFloat(g[i], u[i])),
                         qPrintable(QStringLiteral("g %1 u %2: %3").arg(g[i]).arg(u[i]).arg(out[i])));
                continue;
            }
            const double exact = swigluOaiDouble(g[i], u[i]);
            const double tol = kPolyExpUlps * eps * std::max(1e-30, std::fabs(exact));
            QVERIFY2(std::isfinite(out[i]) && std::fabs(out[i] - exact) <= tol + 1e-37,
                     qPrintable(QStringLiteral("g %1 u %2: got %3, expected %4").arg(g[i]).arg(u[i]).arg(out[i]).arg(exact)));
            QVERIFY2(std::fabs(out[i] - scalar[i]) <= kPolyExpUlps * eps * std::fabs(scalar[i]) + 1e-37,
                     qPrintable(QStringLiteral("g %1 u %2: %3, scalar %4").arg(g[i]).arg(u[i]).arg(out[i]).arg(scalar[i])));
        }
    }
};

QTEST_MAIN(TestElementwise)
#include "tst_elementwise.moc"
