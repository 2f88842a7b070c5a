// The prompt GEMM for Q8_0/Q4_0 weights (ops/gemm_q32.h) against the
// trait table's vecDot on random rows: row counts and token counts that do
// and do not fill the 4 x 4 register tiles, an odd number of blocks, a row
// range that starts inside the matrix, and the paths without a kernel.
#include "ops/gemm_q32.h"
#include "quant/cpu_features.h"
#include "quant/quant_traits.h"
#include "test_support.h"

#include <QTest>

#include <cmath>
#include <random>
#include <vector>

using namespace burrow;

namespace {

// Normalized RMS difference allowed against vecDot: the block products are
// exact integers in both; only the order of the float sums differs (16 lanes
// summed at the end here), ~1e-7 relative.
constexpr double kGemmTolerance = 2e-6;

} // namespace

class TestGemmQ32 : public QObject {
    Q_OBJECT

private slots:
    void cleanup() { quant::setCpuPath(quant::bestCpuPath()); }
    void matchesVecDot_data();
    void matchesVecDot();
    void onlyOnAvx512();
};

void TestGemmQ32::matchesVecDot_data()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<int>("K");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("r0");
    QTest::addColumn<int>("tokens");
    for (GgmlType t : {GgmlType::GGML_TYPE_Q8_0, GgmlType::GGML_TYPE_Q4_0}) {
        const char *name = t == GgmlType::GGML_TYPE_Q8_0 ? "Q8_0" : "Q4_0";
        QTest::addRow("%s 1024x16 t4", name) << static_cast<int>(t) << 1024 << 16 << 0 << 4;
        QTest::addRow("%s 1024x16 t64", name) << static_cast<int>(t) << 1024 << 16 << 0 << 64;
        QTest::addRow("%s 2816x16 t7", name) << static_cast<int>(t) << 2816 << 16 << 0 << 7;
        QTest::addRow("%s 96x7 t5 (odd blocks)", name) << static_cast<int>(t) << 96 << 7 << 0 << 5;
        QTest::addRow("%s 32x3 t1", name) << static_cast<int>(t) << 32 << 3 << 0 << 1;
        QTest::addRow("%s 256x37 rows 5..37 t9", name) << static_cast<int>(t) << 256 << 37 << 5 << 9;
        QTest::addRow("%s 16384x2 t2 (largest K)", name) << static_cast<int>(t) << 16384 << 2 << 0 << 2;
    }
}

void TestGemmQ32::matchesVecDot()
{
    QFETCH(int, type);
    QFETCH(int, K);
    QFETCH(int, rows);
    QFETCH(int, r0);
    QFETCH(int, tokens);
    if (!quant::cpuPathSupported(quant::CpuPath::CPU_PATH_AVX512))
        QSKIP("this CPU has no AVX-512 path (the only one with a GEMM kernel)");
    QVERIFY(quant::setCpuPath(quant::CpuPath::CPU_PATH_AVX512));
    const GgmlType wt = static_cast<GgmlType>(type);
    QVERIFY(ops::gemmQ32Supported(wt, K));
    const quant::TypeTraits *tw = quant::typeTraits(wt), *ta = quant::typeTraits(GgmlType::GGML_TYPE_Q8_0);
    QVERIFY(tw && ta && tw->quantize && ta->quantizeActivation);
    const size_t wRow = static_cast<size_t>(K / 32) * tw->typeSize, aRow = static_cast<size_t>(K / 32) * ta->typeSize;
    std::mt19937 rng(static_cast<uint32_t>(K * 7 + rows * 3 + tokens));
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<uint8_t> w(wRow * rows), a(aRow * tokens);
    std::vector<float> f(static_cast<size_t>(K));
    for (int r = 0; r < rows; ++r) {
        for (float &x : f)
            x = nd(rng) * (r % 3 == 0 ? 0.01f : 1.0f);
        tw->quantize(f.data(), w.data() + r * wRow, K);
    }
    for (int t = 0; t < tokens; ++t) {
        for (float &x : f)
            x = nd(rng);
        ta->quantizeActivation(f.data(), a.data() + t * aRow, K);
    }
    std::vector<float> got(static_cast<size_t>(rows) * tokens, -12345.0f), want(got.size(), -12345.0f);
    for (int t = 0; t < tokens; ++t)
        for (int r = r0; r < rows; ++r)
            tw->vecDot(K, &want[static_cast<size_t>(t) * rows + r], w.data() + r * wRow, a.data() + t * aRow);
    ops::gemmQ32(wt, K, w.data(), wRow, r0, rows, a.data(), aRow, tokens, got.data(), rows);
    double err = 0, norm = 0;
    for (int t = 0; t < tokens; ++t) {
        for (int r = 0; r < rows; ++r) {
            const size_t i = static_cast<size_t>(t) * rows + r;
            if (r < r0) {
                QCOMPARE(got[i], -12345.0f);   // rows outside [r0, r1) untouched
                continue;
            }
            err += (static_cast<double>(got[i]) - want[i]) * (static_cast<double>(got[i]) - want[i]);
            norm += static_cast<double>(want[i]) * want[i];
        }
    }
    const double nrmse = std::sqrt(err / norm);
    QVERIFY2(nrmse <= kGemmTolerance, qPrintable(QStringLiteral("normalized RMS %1 > %2").arg(nrmse).arg(kGemmTolerance)));
}

void TestGemmQ32::onlyOnAvx512()
{
    for (quant::CpuPath p : {quant::CpuPath::CPU_PATH_SCALAR, quant::CpuPath::CPU_PATH_AVX2}) {
        if (!quant::cpuPathSupported(p))
            continue;
        QVERIFY(quant::setCpuPath(p));
        QVERIFY(!ops::gemmQ32Supported(GgmlType::GGML_TYPE_Q8_0, 1024));
        QVERIFY(!ops::gemmQ32Supported(GgmlType::GGML_TYPE_Q4_0, 1024));
    }
    if (quant::cpuPathSupported(quant::CpuPath::CPU_PATH_AVX512)) {
        QVERIFY(quant::setCpuPath(quant::CpuPath::CPU_PATH_AVX512));
        QVERIFY(ops::gemmQ32Supported(GgmlType::GGML_TYPE_Q8_0, 1024));
        QVERIFY(!ops::gemmQ32Supported(GgmlType::GGML_TYPE_Q4_K, 1024));   // no kernel for other types
        QVERIFY(!ops::gemmQ32Supported(GgmlType::GGML_TYPE_Q8_0, 16416));  // rows longer than 16384
    }
}

QTEST_MAIN(TestGemmQ32)
#include "tst_gemm_q32.moc"
