// Packed 16-row weight groups (quant/packed.h): the packed scalar twin
// against the trait table's per-row vecDot / vecDotGemm on random rows (bit
// for bit: the same float steps), and the AVX-512, AVX2 and AVX-VNNI kernels
// against the scalar twin (bit for bit) when the CPU has them, with the
// tokens split between the batch form and the one-token form at several
// points (Q4_K's gemm and gemv forms differ), and the AMX tile products
// (Q4_0, IQ4_NL, MXFP4, Q4_K with 16 tokens or more) against the same twin;
// MXFP4 rows whose E8M0 scales the packed layout cannot hold are refused. Shapes: row counts that do and
// do not fill a group, one and several super-blocks, token counts around the
// tiles, a group range inside the matrix.
#include "quant/cpu_features.h"
#include "quant/packed.h"
#include "quant/quant_traits.h"

#include <QTest>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace burrow;

namespace {

struct Problem {
    std::vector<uint8_t> weights, acts, side;
    size_t rowBytes = 0, actBytes = 0;
};

Problem makeProblem(GgmlType type, int K, int rows, int tokens, unsigned seed)
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
    for (int r = 0; r < rows; ++r) {
        // Rows of different magnitude, so per-block scales differ.
        const float scale = 0.01f + 0.2f * static_cast<float>(r % 7);
        for (float &v : f)
            v = nd(rng) * scale;
        tr->quantize(f.data(), p.weights.data() + static_cast<size_t>(r) * p.rowBytes, K);
    }
    p.acts.resize(p.actBytes * static_cast<size_t>(tokens));
    const quant::QuantizeRowFn q = partner->quantizeActivation ? partner->quantizeActivation : partner->quantize;
    for (int t = 0; t < tokens; ++t) {
        for (float &v : f)
            v = nd(rng);
        q(f.data(), p.acts.data() + static_cast<size_t>(t) * p.actBytes, K);
    }
    p.side.resize(quant::packedSideBytes(type, K, tokens) + 8);
    return p;
}

const char *typeName(GgmlType t) { return quant::typeTraits(t)->name; }

} // namespace

class TestPacked : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        if (!quant::amxUsable())
            qInfo("this CPU (or the OS) gives no AMX-INT8 tiles: the avx512 + amx rows are not checked here");
        if (!quant::cpuFeatures().avxvnni)
            qInfo("this CPU has no AVX-VNNI: the avx2 + avx-vnni rows are not checked here");
    }
    void cleanup()
    {
        quant::setCpuPath(quant::bestCpuPath());
        quant::setPackedAvxVnni(true);
        quant::setPackedAmx(true);
    }
    void matchesVecDot_data();
    void matchesVecDot();
    void extremeCodes_data();
    void extremeCodes();
    void refusesUnsupported_data();
    void refusesUnsupported();
    void mxfp4ScaleRange_data();
    void mxfp4ScaleRange();
};

void TestPacked::matchesVecDot_data()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<int>("K");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("g0");
    QTest::addColumn<int>("tokens");
    for (GgmlType t : {GgmlType::GGML_TYPE_Q8_0, GgmlType::GGML_TYPE_Q4_0, GgmlType::GGML_TYPE_Q5_0,
                       GgmlType::GGML_TYPE_IQ4_NL, GgmlType::GGML_TYPE_MXFP4}) {
        QTest::addRow("%s 1024x16 t1", typeName(t)) << static_cast<int>(t) << 1024 << 16 << 0 << 1;
        QTest::addRow("%s 1024x64 t4", typeName(t)) << static_cast<int>(t) << 1024 << 64 << 0 << 4;
        QTest::addRow("%s 96x7 t5 (one partial group)", typeName(t)) << static_cast<int>(t) << 96 << 7 << 0 << 5;
        QTest::addRow("%s 32x37 groups 1..3 t9", typeName(t)) << static_cast<int>(t) << 32 << 37 << 1 << 9;
        QTest::addRow("%s 2816x20 t3", typeName(t)) << static_cast<int>(t) << 2816 << 20 << 0 << 3;
        // AMX: whole 16-token tiles, an odd block count, the rest of the tokens on VNNI
        QTest::addRow("%s 1056x40 t37", typeName(t)) << static_cast<int>(t) << 1056 << 40 << 0 << 37;
        QTest::addRow("%s 64x9 t16", typeName(t)) << static_cast<int>(t) << 64 << 9 << 0 << 16;
    }
    for (GgmlType t : {GgmlType::GGML_TYPE_Q4_K, GgmlType::GGML_TYPE_Q5_K, GgmlType::GGML_TYPE_Q6_K,
                       GgmlType::GGML_TYPE_IQ4_XS}) {
        QTest::addRow("%s 256x16 t1", typeName(t)) << static_cast<int>(t) << 256 << 16 << 0 << 1;
        QTest::addRow("%s 1024x48 t4", typeName(t)) << static_cast<int>(t) << 1024 << 48 << 0 << 4;
        QTest::addRow("%s 512x5 t6 (one partial group)", typeName(t)) << static_cast<int>(t) << 512 << 5 << 0 << 6;
        QTest::addRow("%s 256x50 groups 2..4 t2", typeName(t)) << static_cast<int>(t) << 256 << 50 << 2 << 2;
        QTest::addRow("%s 2816x17 t7", typeName(t)) << static_cast<int>(t) << 2816 << 17 << 0 << 7;
        // a whole tile of 8 and a rest (Q4_K's small-batch tiles, Q6_K's)
        QTest::addRow("%s 768x24 t12", typeName(t)) << static_cast<int>(t) << 768 << 24 << 0 << 12;
        QTest::addRow("%s 1280x33 groups 1..3 t35", typeName(t)) << static_cast<int>(t) << 1280 << 33 << 1 << 35;
        QTest::addRow("%s 256x16 t32", typeName(t)) << static_cast<int>(t) << 256 << 16 << 0 << 32;
    }
}

void TestPacked::matchesVecDot()
{
    QFETCH(int, type);
    QFETCH(int, K);
    QFETCH(int, rows);
    QFETCH(int, g0);
    QFETCH(int, tokens);
    const auto t = static_cast<GgmlType>(type);
    Problem p = makeProblem(t, K, rows, tokens, static_cast<unsigned>(K * 31 + rows * 7 + tokens));
    QVERIFY(quant::packSupported(t, K));
    auto packed = quant::packMatrix(t, p.weights.data(), p.rowBytes, K, rows);
    QVERIFY2(packed, packed ? "" : packed.status().message().c_str());
    const quant::PackedMatrix &W = **packed;
    QCOMPARE(W.groups, static_cast<int64_t>((rows + 15) / 16));
    QCOMPARE(W.groupBytes % 64, size_t{0});

    quant::PackedActivation act = quant::packedActivation(t, K, p.acts.data(), p.actBytes, tokens, p.side.data());
    for (int tok = 0; tok < tokens; ++tok)
        quant::preparePackedRow(t, K, act, tok);

    const int r0 = g0 * 16;
    const size_t ldy = static_cast<size_t>(rows);
    const float sentinel = -12345.0f;
    const int gemmSplits[] = {0, tokens - tokens % 4, tokens, tokens / 2};
    int checkedSimd = 0;
    for (int nGemm : gemmSplits) {
        // Expected: the scalar path's vecDotGemm (t < nGemm) / vecDot per (row, token).
        QVERIFY(quant::setCpuPath(quant::CpuPath::CPU_PATH_SCALAR));
        const quant::TypeTraits *tr = quant::typeTraits(t);
        std::vector<float> expected(ldy * static_cast<size_t>(tokens), sentinel);
        for (int tok = 0; tok < tokens; ++tok)
            for (int r = r0; r < rows; ++r)
                (tok < nGemm ? tr->vecDotGemm : tr->vecDot)(K, &expected[static_cast<size_t>(tok) * ldy + static_cast<size_t>(r)],
                                                              p.weights.data() + static_cast<size_t>(r) * p.rowBytes,
                                                              p.acts.data() + static_cast<size_t>(tok) * p.actBytes);

        std::vector<float> scalar(expected.size(), sentinel);
        quant::packedMatmulScalar(W, g0, W.groups, act, tokens, nGemm, scalar.data(), ldy);
        for (size_t i = 0; i < scalar.size(); ++i)
            if (std::memcmp(&scalar[i], &expected[i], sizeof(float)) != 0)   // rows outside [g0, g1) untouched too
                QFAIL(qPrintable(QStringLiteral("nGemm %1, element %2: twin %3, vecDot %4")
                                     .arg(nGemm).arg(i).arg(scalar[i], 0, 'g', 9).arg(expected[i], 0, 'g', 9)));

        // packedMatmul on the scalar path is the twin; the AVX2, AVX-VNNI
        // and AVX-512 kernels (all eight types) are bit-identical to it.
        struct Variant {
            quant::CpuPath path;
            bool vnni;
            bool amx;
            const char *name;
        };
        for (const Variant v : {Variant{quant::CpuPath::CPU_PATH_SCALAR, false, false, "scalar"},
                                Variant{quant::CpuPath::CPU_PATH_AVX2, false, false, "avx2"},
                                Variant{quant::CpuPath::CPU_PATH_AVX2, true, false, "avx2 + avx-vnni"},
                                Variant{quant::CpuPath::CPU_PATH_AVX512, true, false, "avx512"},
                                Variant{quant::CpuPath::CPU_PATH_AVX512, true, true, "avx512 + amx"}}) {
            if (!quant::setCpuPath(v.path))
                continue;
            if (v.vnni && v.path == quant::CpuPath::CPU_PATH_AVX2 && !quant::cpuFeatures().avxvnni)
                continue;
            if (v.amx && !quant::amxUsable())
                continue;
            quant::setPackedAvxVnni(v.vnni);
            quant::setPackedAmx(v.amx);
            if (v.amx && !quant::packedAmxActive(t))
                continue;   // the type has no tile kernel: the avx512 row covered it
            const bool simd = quant::packedKernelsActive(t);
            const bool expectSimd = v.path != quant::CpuPath::CPU_PATH_SCALAR;
            QCOMPARE(simd, expectSimd);
            checkedSimd += simd ? 1 : 0;
            std::vector<float> got(expected.size(), sentinel);
            quant::packedMatmul(W, g0, W.groups, act, tokens, nGemm, got.data(), ldy);
            quant::setPackedAvxVnni(true);
            quant::setPackedAmx(true);
            for (size_t i = 0; i < got.size(); ++i)
                if (std::memcmp(&got[i], &scalar[i], sizeof(float)) != 0)
                    QFAIL(qPrintable(QStringLiteral("%1, nGemm %2, element %3: %4, scalar twin %5")
                                         .arg(QString::fromLatin1(v.name)).arg(nGemm).arg(i).arg(got[i], 0, 'g', 9)
                                         .arg(scalar[i], 0, 'g', 9)));
        }
    }
    if (checkedSimd == 0)
        QSKIP("this CPU has neither AVX2 nor AVX-512 VNNI: only the scalar twin was checked");
}

// Codes at the ends of their ranges, all products of one sign: the sums the
// AVX2 kernels keep in int16 (Q4_0, Q4_K: a block's 8 vpmaddubsw pairs) or
// take with the weight's sign moved onto the activation (Q8_0 with -128
// weights, IQ4_NL's -127) reach their largest values; every path must still
// give the scalar vecDot's result bit for bit.
void TestPacked::extremeCodes_data()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<int>("weightByte");   // every quant byte of the rows
    QTest::addColumn<int>("actCode");      // every activation code
    QTest::addRow("Q8_0 -128 x 127") << static_cast<int>(GgmlType::GGML_TYPE_Q8_0) << 0x80 << 127;
    QTest::addRow("Q8_0 -128 x -127") << static_cast<int>(GgmlType::GGML_TYPE_Q8_0) << 0x80 << -127;
    QTest::addRow("Q8_0 127 x 127") << static_cast<int>(GgmlType::GGML_TYPE_Q8_0) << 0x7f << 127;
    QTest::addRow("Q4_0 15 x 127") << static_cast<int>(GgmlType::GGML_TYPE_Q4_0) << 0xff << 127;
    QTest::addRow("Q4_0 15 x -127") << static_cast<int>(GgmlType::GGML_TYPE_Q4_0) << 0xff << -127;
    QTest::addRow("IQ4_NL -127 x -127") << static_cast<int>(GgmlType::GGML_TYPE_IQ4_NL) << 0x00 << -127;
    QTest::addRow("IQ4_NL 113 x 127") << static_cast<int>(GgmlType::GGML_TYPE_IQ4_NL) << 0xff << 127;
    QTest::addRow("MXFP4 -12 x 127") << static_cast<int>(GgmlType::GGML_TYPE_MXFP4) << 0xff << 127;
    QTest::addRow("MXFP4 12 x -127") << static_cast<int>(GgmlType::GGML_TYPE_MXFP4) << 0x77 << -127;
    QTest::addRow("Q4_K 15 x 127, scales 63") << static_cast<int>(GgmlType::GGML_TYPE_Q4_K) << 0xff << 127;
    QTest::addRow("Q4_K 15 x -127, scales 63") << static_cast<int>(GgmlType::GGML_TYPE_Q4_K) << 0xff << -127;
}

void TestPacked::extremeCodes()
{
    QFETCH(int, type);
    QFETCH(int, weightByte);
    QFETCH(int, actCode);
    const auto t = static_cast<GgmlType>(type);
    constexpr int K = 512, rows = 16, tokens = 21;   // one AMX tile and 5 VNNI tokens
    const quant::TypeTraits *tr = quant::typeTraits(t);
    const quant::TypeTraits *partner = quant::typeTraits(tr->vecDotType);
    const size_t rowBytes = static_cast<size_t>(K / tr->blockSize) * tr->typeSize;
    const size_t actBytes = static_cast<size_t>(K / partner->blockSize) * partner->typeSize;
    const uint16_t one = 0x3c00;   // 1.0 as f16
    std::vector<uint8_t> weights(rowBytes * rows, static_cast<uint8_t>(weightByte));
    for (size_t b = 0; b < weights.size(); b += tr->typeSize) {
        if (t == GgmlType::GGML_TYPE_MXFP4) {
            weights[b] = 127;   // e: the scale 2^-1
            continue;
        }
        std::memcpy(&weights[b], &one, 2);   // d (and Q4_K's dmin)
        if (t == GgmlType::GGML_TYPE_Q4_K)
            std::memcpy(&weights[b + 2], &one, 2);
    }
    std::vector<uint8_t> acts(actBytes * tokens, static_cast<uint8_t>(static_cast<int8_t>(actCode)));
    for (size_t b = 0; b < acts.size(); b += partner->typeSize) {
        if (tr->vecDotType == GgmlType::GGML_TYPE_Q8_0) {
            std::memcpy(&acts[b], &one, 2);
        } else {   // Q8_K: float d, 256 codes, 16 sums of 16
            const float d = 1.0f;
            const auto sum = static_cast<int16_t>(16 * actCode);
            std::memcpy(&acts[b], &d, 4);
            for (int i = 0; i < 16; ++i)
                std::memcpy(&acts[b + 4 + 256 + 2 * static_cast<size_t>(i)], &sum, 2);
        }
    }
    auto packed = quant::packMatrix(t, weights.data(), rowBytes, K, rows);
    QVERIFY(packed);
    std::vector<uint8_t> side(quant::packedSideBytes(t, K, tokens) + 8);
    quant::PackedActivation act = quant::packedActivation(t, K, acts.data(), actBytes, tokens, side.data());
    for (int tok = 0; tok < tokens; ++tok)
        quant::preparePackedRow(t, K, act, tok);
    const int nGemm = t == GgmlType::GGML_TYPE_Q4_K ? tokens : 0;
    QVERIFY(quant::setCpuPath(quant::CpuPath::CPU_PATH_SCALAR));
    std::vector<float> expected(static_cast<size_t>(rows * tokens));
    for (int tok = 0; tok < tokens; ++tok)
        for (int r = 0; r < rows; ++r)
            (nGemm > 0 ? tr->vecDotGemm : tr->vecDot)(K, &expected[static_cast<size_t>(tok * rows + r)],
                                                     weights.data() + static_cast<size_t>(r) * rowBytes,
                                                     acts.data() + static_cast<size_t>(tok) * actBytes);
    int checked = 0;
    for (const quant::CpuPath path : {quant::CpuPath::CPU_PATH_AVX2, quant::CpuPath::CPU_PATH_AVX512})
        for (const int variant : {0, 1, 2}) {   // plain, + AVX-VNNI (avx2 path) or + AMX (avx512 path)
            const bool vnni = variant == 1, amx = variant == 2;
            if (!quant::setCpuPath(path) || (vnni && !quant::cpuFeatures().avxvnni))
                continue;
            if (amx && (path != quant::CpuPath::CPU_PATH_AVX512 || !quant::amxUsable()))
                continue;
            quant::setPackedAvxVnni(vnni || path == quant::CpuPath::CPU_PATH_AVX512);
            quant::setPackedAmx(amx);
            QVERIFY(quant::packedKernelsActive(t));
            if (amx != quant::packedAmxActive(t))
                continue;   // amx: the type has no tile kernel (the avx512 row covered it)
            std::vector<float> got(expected.size(), -1.0f);
            quant::packedMatmul(**packed, 0, 1, act, tokens, nGemm, got.data(), rows);
            quant::setPackedAvxVnni(true);
            quant::setPackedAmx(true);
            ++checked;
            for (size_t i = 0; i < got.size(); ++i)
                if (std::memcmp(&got[i], &expected[i], sizeof(float)) != 0)
                    QFAIL(qPrintable(QStringLiteral("%1%2, element %3: %4, vecDot %5")
                                         .arg(QString::fromLatin1(quant::cpuPathName(path)))
                                         .arg(vnni ? " + avx-vnni" : amx ? " + amx" : "").arg(i).arg(got[i], 0, 'g', 9)
                                         .arg(expected[i], 0, 'g', 9)));
        }
    if (checked == 0)
        QSKIP("this CPU has neither AVX2 nor AVX-512 VNNI: nothing to check against vecDot");
}

void TestPacked::refusesUnsupported_data()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<int>("K");
    QTest::addRow("Q3_K has no packed layout") << static_cast<int>(GgmlType::GGML_TYPE_Q3_K) << 256;
    QTest::addRow("Q5_K row not a whole super-block") << static_cast<int>(GgmlType::GGML_TYPE_Q5_K) << 320;
    QTest::addRow("IQ4_XS row not a whole super-block") << static_cast<int>(GgmlType::GGML_TYPE_IQ4_XS) << 96;
    QTest::addRow("F32 has no packed layout") << static_cast<int>(GgmlType::GGML_TYPE_F32) << 256;
    QTest::addRow("Q4_K row not a whole super-block") << static_cast<int>(GgmlType::GGML_TYPE_Q4_K) << 288;
    QTest::addRow("Q8_0 row not a whole block") << static_cast<int>(GgmlType::GGML_TYPE_Q8_0) << 40;
    QTest::addRow("empty row") << static_cast<int>(GgmlType::GGML_TYPE_Q4_0) << 0;
}

void TestPacked::refusesUnsupported()
{
    QFETCH(int, type);
    QFETCH(int, K);
    const auto t = static_cast<GgmlType>(type);
    QVERIFY(!quant::packSupported(t, K));
    std::vector<uint8_t> bytes(4096, 0);
    auto packed = quant::packMatrix(t, bytes.data(), 64, K, 4);
    QVERIFY(!packed);
    QVERIFY(packed.status().message().find("cannot be packed") != std::string::npos);
}

// MXFP4's scale 2^(e - 128) is packed as the f16 it equals: exponents 104
// (2^-24, the smallest f16) to 143 (2^15) pack and give vecDot's bits on
// every path; one block outside refuses the matrix (it keeps its row
// kernels), with a message.
void TestPacked::mxfp4ScaleRange_data()
{
    QTest::addColumn<int>("e");
    QTest::addColumn<bool>("packs");
    QTest::addRow("e 103 (2^-25)") << 103 << false;
    QTest::addRow("e 104 (2^-24, f16 subnormal)") << 104 << true;
    QTest::addRow("e 113 (2^-15, f16 subnormal)") << 113 << true;
    QTest::addRow("e 114 (2^-14, smallest normal f16)") << 114 << true;
    QTest::addRow("e 143 (2^15)") << 143 << true;
    QTest::addRow("e 144 (2^16)") << 144 << false;
    QTest::addRow("e 0 (subnormal float)") << 0 << false;
    QTest::addRow("e 255") << 255 << false;
}

void TestPacked::mxfp4ScaleRange()
{
    QFETCH(int, e);
    QFETCH(bool, packs);
    constexpr int K = 256, rows = 20, tokens = 19;
    const auto t = GgmlType::GGML_TYPE_MXFP4;
    Problem p = makeProblem(t, K, rows, tokens, 7u + static_cast<unsigned>(e));
    // One block of row 17 (the second group) takes the exponent under test.
    p.weights[17 * p.rowBytes + 3 * sizeof(uint8_t) * 17] = static_cast<uint8_t>(e);
    QCOMPARE(quant::packableRows(t, p.weights.data(), p.rowBytes, K, rows), packs);
    auto packed = quant::packMatrix(t, p.weights.data(), p.rowBytes, K, rows);
    QCOMPARE(static_cast<bool>(packed), packs);
    if (!packs) {
        QVERIFY(packed.status().message().find("MXFP4 block scale") != std::string::npos);
        return;
    }
    quant::PackedActivation act = quant::packedActivation(t, K, p.acts.data(), p.actBytes, tokens, p.side.data());
    for (int tok = 0; tok < tokens; ++tok)
        quant::preparePackedRow(t, K, act, tok);
    const quant::TypeTraits *tr = quant::typeTraits(t);
    std::vector<float> expected(static_cast<size_t>(rows * tokens));
    QVERIFY(quant::setCpuPath(quant::CpuPath::CPU_PATH_SCALAR));
    for (int tok = 0; tok < tokens; ++tok)
        for (int r = 0; r < rows; ++r)
            tr->vecDot(K, &expected[static_cast<size_t>(tok * rows + r)], p.weights.data() + static_cast<size_t>(r) * p.rowBytes,
                       p.acts.data() + static_cast<size_t>(tok) * p.actBytes);
    for (const quant::CpuPath path : {quant::CpuPath::CPU_PATH_SCALAR, quant::CpuPath::CPU_PATH_AVX2, quant::CpuPath::CPU_PATH_AVX512}) {
        if (!quant::setCpuPath(path))
            continue;
        std::vector<float> got(expected.size(), -1.0f);
        quant::packedMatmul(**packed, 0, (**packed).groups, act, tokens, 0, got.data(), rows);
        for (size_t i = 0; i < got.size(); ++i)
            if (std::memcmp(&got[i], &expected[i], sizeof(float)) != 0)
                QFAIL(qPrintable(QStringLiteral("%1, element %2: %3, vecDot %4")
                                     .arg(QString::fromLatin1(quant::cpuPathName(path))).arg(i)
                                     .arg(got[i], 0, 'g', 9).arg(expected[i], 0, 'g', 9)));
    }
}

QTEST_MAIN(TestPacked)
#include "tst_packed.moc"
