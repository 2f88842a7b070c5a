// ops::hadamardBlocks (the Walsh-Hadamard turn a quantized KV cache applies):
// against the product with the Sylvester matrix built as the reference
// builds it (H_1 = 1 / sqrt(n), then [[H, H], [H, -H]]) in double, its own
// inverse, norm-preserving, blocks independent.
#include "ops/ops.h"

#include <QTest>

#include <cmath>
#include <random>
#include <vector>

using namespace burrow;

class TestHadamard : public QObject {
    Q_OBJECT

private slots:
    void matchesMatrix_data()
    {
        QTest::addColumn<int>("block");
        QTest::addColumn<int>("blocks");
        QTest::newRow("64 x 1") << 64 << 1;
        QTest::newRow("64 x 3") << 64 << 3;
        QTest::newRow("128 x 2") << 128 << 2;
        QTest::newRow("256 x 1") << 256 << 1;
        QTest::newRow("2 x 4") << 2 << 4;
    }

    void matchesMatrix()
    {
        QFETCH(int, block);
        QFETCH(int, blocks);
        const int n = block * blocks;
        std::vector<double> h(static_cast<size_t>(block) * block, 0.0);
        h[0] = 1.0 / std::sqrt(double(block));
        for (int s = 1; s < block; s *= 2)
            for (int i = 0; i < s; ++i)
                for (int j = 0; j < s; ++j) {
                    const double v = h[size_t(i) * block + j];
                    h[size_t(i + s) * block + j] = v;
                    h[size_t(i) * block + j + s] = v;
                    h[size_t(i + s) * block + j + s] = -v;
                }
        std::mt19937 rng(7);
        std::normal_distribution<float> nd(0.0f, 3.0f);
        std::vector<float> x(static_cast<size_t>(n));
        for (float &e : x)
            e = nd(rng);
        std::vector<float> y = x;
        ops::hadamardBlocks(y.data(), n, block);
        double norm0 = 0, norm1 = 0;
        for (int b = 0; b < blocks; ++b)
            for (int i = 0; i < block; ++i) {
                double ref = 0;
                for (int j = 0; j < block; ++j)
                    ref += h[size_t(i) * block + j] * x[size_t(b * block + j)];
                const float got = y[size_t(b * block + i)];
                QVERIFY2(std::fabs(got - ref) <= 1e-5 * (1.0 + std::fabs(ref)),
                         qPrintable(QString("block %1 row %2: %3, expected %4").arg(b).arg(i).arg(got).arg(ref)));
                norm0 += double(x[size_t(b * block + i)]) * x[size_t(b * block + i)];
                norm1 += double(got) * got;
            }
        QVERIFY(std::fabs(norm1 - norm0) <= 1e-5 * norm0);
        ops::hadamardBlocks(y.data(), n, block);   // its own inverse
        for (int i = 0; i < n; ++i)
            QVERIFY2(std::fabs(y[size_t(i)] - x[size_t(i)]) <= 1e-5f * (1.0f + std::fabs(x[size_t(i)])),
                     qPrintable(QString("element %1: %2 back, was %3").arg(i).arg(y[size_t(i)]).arg(x[size_t(i)])));
    }
};

QTEST_MAIN(TestHadamard)
#include "tst_hadamard.moc"
