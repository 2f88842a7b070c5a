// Packed 16-row groups of Q1_0, Q2_0, TQ1_0, TQ2_0 and NVFP4
// (quant/packed_lowbit.h): the packed scalar twin against the trait table's
// per-row vecDot on random rows (bit for bit), and the AVX-512 VNNI, AVX2
// and AVX-VNNI kernels against the twin (bit for bit) where the CPU has
// them. Rows from the
// quantizers and rows with every code (TQ2_0 / Q2_0 code 3, every NVFP4
// scale byte); row counts that do and do not fill a group, token counts
// around the tiles, a group range inside the matrix.
#include "quant/cpu_features.h"
#include "quant/packed.h"
#include "quant/quant_traits.h"
#if defined(__x86_64__)
#include "quant/x86/x86_lowbit.h"
#endif

#include <QTest>

#include <cstring>
#include <random>
#include <vector>

using namespace burrow;
using T = GgmlType;

namespace {

struct Problem {
    std::vector<uint8_t> weights, acts, side;
    size_t rowBytes = 0, actBytes = 0;
};

Problem makeProblem(GgmlType type, int K, int rows, int tokens, bool randomBytes, unsigned seed)
{
    const quant::TypeTraits *tr = quant::typeTraits(type);
    const quant::TypeTraits *partner = quant::typeTraits(tr->vecDotType);
    Problem p;
    p.rowBytes = static_cast<size_t>(K / tr->blockSize) * tr->typeSize;
    p.actBytes = static_cast<size_t>(K / partner->blockSize) * partner->typeSize;
    std::mt19937 rng(seed);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float> f(static_cast<size_t>(K));
    p.weights.resize(p.rowBytes * static_cast<size_t>(rows));
    if (randomBytes) {
        // every bit pattern, but the F16 scales finite (exponent below 31)
        for (uint8_t &b : p.weights)
            b = static_cast<uint8_t>(rng());
        const size_t dAt = type == T::GGML_TYPE_TQ1_0 ? 52 : type == T::GGML_TYPE_TQ2_0 ? 64 : 0;
        if (type != T::GGML_TYPE_NVFP4)
            for (size_t b = 0; b < p.weights.size(); b += tr->typeSize)
                p.weights[b + dAt + 1] = static_cast<uint8_t>((p.weights[b + dAt + 1] & 0x83) | 0x20);
    } else {
        for (int r = 0; r < rows; ++r) {
            const float scale = 0.01f + 0.2f * static_cast<float>(r % 7);
            for (float &v : f)
                v = nd(rng) * scale;
            tr->quantize(f.data(), p.weights.data() + static_cast<size_t>(r) * p.rowBytes, K);
        }
    }
    p.acts.resize(p.actBytes * static_cast<size_t>(tokens));
    for (int t = 0; t < tokens; ++t) {
        for (float &v : f)
            v = nd(rng);
        partner->quantizeActivation(f.data(), p.acts.data() + static_cast<size_t>(t) * p.actBytes, K);
    }
    p.side.resize(quant::packedSideBytes(type, K, tokens) + 8);
    return p;
}

} // namespace

class TestPackedLowbit : public QObject {
    Q_OBJECT

private slots:
    void cleanup()
    {
        quant::setCpuPath(quant::bestCpuPath());
        quant::setPackedAvxVnni(true);
    }

    void matchesVecDot_data()
    {
        QTest::addColumn<GgmlType>("type");
        QTest::addColumn<int>("K");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("g0");
        QTest::addColumn<int>("tokens");
        QTest::addColumn<bool>("randomBytes");
        for (T t : {T::GGML_TYPE_Q1_0, T::GGML_TYPE_Q2_0, T::GGML_TYPE_TQ1_0, T::GGML_TYPE_TQ2_0, T::GGML_TYPE_NVFP4}) {
            const char *n = quant::typeTraits(t)->name;
            QTest::addRow("%s 256x16 t1", n) << t << 256 << 16 << 0 << 1 << false;
            QTest::addRow("%s 1024x48 t4", n) << t << 1024 << 48 << 0 << 4 << false;
            QTest::addRow("%s 512x5 t9 (one partial group)", n) << t << 512 << 5 << 0 << 9 << false;
            QTest::addRow("%s 256x50 groups 2..4 t3", n) << t << 256 << 50 << 2 << 3 << false;
            QTest::addRow("%s 2816x17 t2", n) << t << 2816 << 17 << 0 << 2 << false;
            QTest::addRow("%s 768x20 t3 every code", n) << t << 768 << 20 << 0 << 3 << true;
        }
    }

    void matchesVecDot()
    {
        QFETCH(GgmlType, type);
        QFETCH(int, K);
        QFETCH(int, rows);
        QFETCH(int, g0);
        QFETCH(int, tokens);
        QFETCH(bool, randomBytes);
        Problem p = makeProblem(type, K, rows, tokens, randomBytes, static_cast<unsigned>(K * 31 + rows * 7 + tokens));
        QVERIFY(quant::packSupported(type, K));
        auto packed = quant::packMatrix(type, p.weights.data(), p.rowBytes, K, rows);
        QVERIFY2(packed, packed ? "" : packed.status().message().c_str());
        const quant::PackedMatrix &W = **packed;
        QCOMPARE(W.groups, static_cast<int64_t>((rows + 15) / 16));
        // 16 rows of the type's blocks (TQ1_0: of TQ2_0's), padded to 64 bytes
        const size_t rowsBytes = 16 * (type == T::GGML_TYPE_TQ1_0 ? size_t(K / 256 * 66) : p.rowBytes);
        QCOMPARE(W.groupBytes, (rowsBytes + 63) / 64 * 64);

        quant::PackedActivation act = quant::packedActivation(type, K, p.acts.data(), p.actBytes, tokens, p.side.data());
        for (int tok = 0; tok < tokens; ++tok)
            quant::preparePackedRow(type, K, act, tok);
        const int r0 = g0 * 16;
        const size_t ldy = static_cast<size_t>(rows);
        const float sentinel = -12345.0f;

        QVERIFY(quant::setCpuPath(quant::CpuPath::CPU_PATH_SCALAR));
        const quant::TypeTraits *tr = quant::typeTraits(type);
        std::vector<float> expected(ldy * static_cast<size_t>(tokens), sentinel);
        for (int tok = 0; tok < tokens; ++tok)
            for (int r = r0; r < rows; ++r)
                tr->vecDot(K, &expected[static_cast<size_t>(tok) * ldy + static_cast<size_t>(r)],
                           p.weights.data() + static_cast<size_t>(r) * p.rowBytes, p.acts.data() + static_cast<size_t>(tok) * p.actBytes);
        std::vector<float> scalar(expected.size(), sentinel);
        quant::packedMatmulScalar(W, g0, W.groups, act, tokens, tokens, scalar.data(), ldy);
        for (size_t i = 0; i < scalar.size(); ++i)
            if (std::memcmp(&scalar[i], &expected[i], sizeof(float)) != 0)
                QFAIL(qPrintable(QStringLiteral("element %1: twin %2, vecDot %3").arg(i).arg(scalar[i], 0, 'g', 9).arg(expected[i], 0, 'g', 9)));

        int checkedSimd = 0;
        struct Variant {
            quant::CpuPath path;
            bool vnni;
            const char *name;
        };
        for (const Variant v : {Variant{quant::CpuPath::CPU_PATH_SCALAR, false, "scalar"},
                                Variant{quant::CpuPath::CPU_PATH_AVX2, false, "avx2"},
                                Variant{quant::CpuPath::CPU_PATH_AVX2, true, "avx2 + avx-vnni"},
                                Variant{quant::CpuPath::CPU_PATH_AVX512, true, "avx512"}}) {
            if (!quant::setCpuPath(v.path))
                continue;
            if (v.vnni && v.path == quant::CpuPath::CPU_PATH_AVX2 && !quant::cpuFeatures().avxvnni)
                continue;
            quant::setPackedAvxVnni(v.vnni);
            const bool simd = quant::packedKernelsActive(type);
            const bool avx2Kernel = type == T::GGML_TYPE_Q2_0 || type == T::GGML_TYPE_NVFP4 ||
                                    (v.vnni && (type == T::GGML_TYPE_TQ1_0 || type == T::GGML_TYPE_TQ2_0));
            QCOMPARE(simd, v.path == quant::CpuPath::CPU_PATH_AVX512 || (v.path == quant::CpuPath::CPU_PATH_AVX2 && avx2Kernel));
            checkedSimd += simd;
            std::vector<float> got(expected.size(), sentinel);
            quant::packedMatmul(W, g0, W.groups, act, tokens, 0, got.data(), ldy);
#if defined(__x86_64__)
            if (v.path == quant::CpuPath::CPU_PATH_AVX2) {
                // every 256-bit kernel, also where packedMatmul would not be asked (the policy)
                std::vector<float> avx2(expected.size(), sentinel);
                if (v.vnni)
                    quant::x86::packedMatmulAvxVnniLowbit(W, g0, W.groups, act, tokens, avx2.data(), ldy);
                else
                    quant::x86::packedMatmulAvx2Lowbit(W, g0, W.groups, act, tokens, avx2.data(), ldy);
                for (size_t i = 0; i < avx2.size(); ++i)
                    if (std::memcmp(&avx2[i], &scalar[i], sizeof(float)) != 0)
                        QFAIL(qPrintable(QStringLiteral("%1 kernel, element %2: %3, scalar twin %4").arg(QLatin1String(v.name))
                                             .arg(i).arg(avx2[i], 0, 'g', 9).arg(scalar[i], 0, 'g', 9)));
            }
#endif
            quant::setPackedAvxVnni(true);
            for (size_t i = 0; i < got.size(); ++i)
                if (std::memcmp(&got[i], &scalar[i], sizeof(float)) != 0)
                    QFAIL(qPrintable(QStringLiteral("%1, element %2 (row %3, token %4): %5, scalar twin %6").arg(QLatin1String(v.name))
                                         .arg(i).arg(i % ldy).arg(i / ldy).arg(got[i], 0, 'g', 9).arg(scalar[i], 0, 'g', 9)));
        }
        if (checkedSimd == 0)
            QSKIP("this CPU has neither AVX2 nor AVX-512 VNNI: only the scalar twin was checked");
    }
};

QTEST_MAIN(TestPackedLowbit)
#include "tst_packed_lowbit.moc"
