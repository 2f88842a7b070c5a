// burrow-cli quantize, run as a process:
//   - quantizing ../shared/models/synthetic/{llama,qwen2}-f32.gguf (and
//     synthetic-2026/qwen35-f32.gguf: DeltaNet tensors, ssm_conv1d kept F32) reproduces
//     the reference engine's llama-quantize output byte for byte (Q8_0, Q4_0,
//     Q4_K_M and the other offered types that have a reference file);
//   - requantizing a Q4_K_M file to Q8_0 dequantizes first;
//   - a model made here with the GGUF writer (runs without ../shared): tensor
//     types from the mix rules written out by hand (more-bits layers,
//     fallbacks for rows that are not a multiple of 256, tied output), 1-D
//     tensors copied, the reference's tensor order, metadata copied with
//     general.file_type replaced and appended last, the input's alignment;
//   - IQ4_NL and IQ4_XS byte for byte as the reference's llama-IQ4_{NL,XS}.gguf;
//   - mixture-of-experts files (made here by model/synthetic_model): the 3-D
//     expert tensors get the types the reference's rules give (worked out
//     here: layer from the name, the 8-expert bumps, fallbacks of expert rows),
//     and a qwen3moe model gets the tensor types llama-quantize gave
//     ../shared/models/synthetic-2026/qwen3moe-{Q4_K_M,Q8_0}.gguf (from F32,
//     and requantized from the Q8_0 file); gpt-oss in MXFP4_MOE likewise once
//     MXFP4 has a quantizer;
//   - usage and input errors: exit status, message, and no OUT or OUT.part left.
#include "gguf/gguf_reader.h"
#include "gguf/gguf_writer.h"
#include "model/synthetic_model.h"
#include "quant/quant_traits.h"
#include "cli_process.h"
#include "test_support.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>
#include <map>

using namespace burrow;

namespace {

using Run = test::ProcessResult;

Run runQuantize(const QStringList &args)
{
    return test::runCli(QStringList{QStringLiteral("quantize")} + args, {}, 120000);
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Deterministic values in [-1, 1) with a few larger outliers.
std::vector<float> values(size_t n, uint32_t seed)
{
    std::vector<float> v(n);
    uint32_t s = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; ++i) {
        s = s * 1664525u + 1013904223u;
        v[i] = static_cast<float>(s >> 8) / static_cast<float>(1u << 24) * 2.0f - 1.0f;
        if (i % 97 == 0)
            v[i] *= 4.0f;
    }
    return v;
}

std::vector<uint8_t> bytesOf(const std::vector<float> &v)
{
    std::vector<uint8_t> b(v.size() * sizeof(float));
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

constexpr int kLayers = 12;   // more-bits layers: i < 1, i >= 10, (i - 1) % 3 == 2 -> 0, 3, 6, 9, 10, 11

bool moreBitsLayer(int i)
{
    return i == 0 || i == 3 || i == 6 || i == 9 || i == 10 || i == 11;
}

struct SelfMade {
    bool ok = true;                                  // every tensor was accepted by the writer
    std::vector<uint8_t> file;
    std::map<std::string, std::vector<float>> f32;   // input values of each F32 tensor
};

// A 12-layer llama-shaped file (tied output): token_embd [256, 16],
// output_norm [256], per layer attn_norm [256], attn_v [256, 4] and
// ffn_down [96, 4] (rows not a multiple of 256), added out of order.
// oddTensor adds blk.0.ffn_up.weight [48, 2]; iq2Tensor adds an I32
// matrix (a type without a dequantizer).
SelfMade selfMadeModel(bool oddTensor = false, bool iq2Tensor = false)
{
    SelfMade m;
    gguf::GgufWriter w;
    w.addString("general.architecture", "llama");
    w.addString("general.name", "self-made");
    w.addU32("llama.block_count", kLayers);
    w.addU32("general.file_type", 0);
    w.addString("test.custom", "kept as is");
    w.addF32("test.float", 0.1f);
    w.setAlignment(64);
    const auto add = [&](const std::string &name, std::vector<int64_t> dims, uint32_t seed) {
        size_t n = 1;
        for (int64_t d : dims)
            n *= static_cast<size_t>(d);
        m.f32[name] = values(n, seed);
        m.ok = m.ok && w.addTensor(name, GgmlType::GGML_TYPE_F32, dims, bytesOf(m.f32[name]));
    };
    uint32_t seed = 1;
    for (int i = kLayers - 1; i >= 0; --i) {   // reversed on purpose: the output is sorted
        const std::string p = "blk." + std::to_string(i) + ".";
        add(p + "ffn_down.weight", {96, 4}, seed++);
        add(p + "attn_v.weight", {256, 4}, seed++);
        add(p + "attn_norm.weight", {256}, seed++);
    }
    add("token_embd.weight", {256, 16}, seed++);
    add("output_norm.weight", {256}, seed++);
    if (oddTensor)
        add("blk.0.ffn_up.weight", {48, 2}, seed++);
    if (iq2Tensor)
        m.ok = m.ok && w.addTensor("blk.0.ffn_gate.weight", GgmlType::GGML_TYPE_I32, {256, 2});
    m.file = w.bytes();
    return m;
}

bool writeFile(const QString &path, const std::vector<uint8_t> &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) &&
           f.write(reinterpret_cast<const char *>(bytes.data()), static_cast<qint64>(bytes.size())) ==
               static_cast<qint64>(bytes.size());
}

// The first tensor whose type or bytes differ, for failure messages.
QString firstDifference(const QString &ours, const QString &reference)
{
    auto a = gguf::GgufFile::open(ours.toStdString());
    auto b = gguf::GgufFile::open(reference.toStdString());
    if (!a || !b)
        return QStringLiteral("cannot open: %1 %2").arg(a.message().c_str(), b.message().c_str());
    if ((*a)->metadata().size() != (*b)->metadata().size())
        return QStringLiteral("metadata counts %1 vs %2").arg((*a)->metadata().size()).arg((*b)->metadata().size());
    for (size_t k = 0; k < (*a)->metadata().size(); ++k)
        if ((*a)->metadata()[k].key != (*b)->metadata()[k].key)
            return QStringLiteral("metadata key %1: %2 vs %3")
                .arg(k)
                .arg(QString::fromUtf8((*a)->metadata()[k].key.data(), (*a)->metadata()[k].key.size()),
                     QString::fromUtf8((*b)->metadata()[k].key.data(), (*b)->metadata()[k].key.size()));
    const auto &ta = (*a)->tensors();
    const auto &tb = (*b)->tensors();
    if (ta.size() != tb.size())
        return QStringLiteral("tensor counts %1 vs %2").arg(ta.size()).arg(tb.size());
    for (size_t k = 0; k < ta.size(); ++k) {
        const QString name = QString::fromUtf8(ta[k].name.data(), ta[k].name.size());
        if (ta[k].name != tb[k].name)
            return QStringLiteral("tensor %1 is %2, expected %3")
                .arg(k)
                .arg(name, QString::fromUtf8(tb[k].name.data(), tb[k].name.size()));
        if (ta[k].type != tb[k].type)
            return QStringLiteral("%1: type %2, expected %3")
                .arg(name, QString::fromStdString(ggmlTypeName(ta[k].type)),
                     QString::fromStdString(ggmlTypeName(tb[k].type)));
        if (ta[k].nBytes != tb[k].nBytes || std::memcmp(ta[k].data, tb[k].data, ta[k].nBytes) != 0)
            return QStringLiteral("%1: data differs").arg(name);
    }
    return QStringLiteral("header bytes differ");
}

// Types of a file, by tensor name, in file order.
std::vector<std::pair<std::string, GgmlType>> typesOf(const QString &path)
{
    std::vector<std::pair<std::string, GgmlType>> out;
    auto f = gguf::GgufFile::open(path.toStdString());
    if (f)
        for (const gguf::TensorInfo &t : (*f)->tensors())
            out.emplace_back(std::string(t.name), t.type);
    return out;
}

QString describeDifference(const std::vector<std::pair<std::string, GgmlType>> &ours,
                           const std::vector<std::pair<std::string, GgmlType>> &expected)
{
    if (ours.size() != expected.size())
        return QStringLiteral("%1 tensors, expected %2").arg(ours.size()).arg(expected.size());
    for (size_t k = 0; k < ours.size(); ++k)
        if (ours[k] != expected[k])
            return QStringLiteral("tensor %1: %2 %3, expected %4 %5")
                .arg(k)
                .arg(QString::fromStdString(ours[k].first), QString::fromStdString(ggmlTypeName(ours[k].second)),
                     QString::fromStdString(expected[k].first), QString::fromStdString(ggmlTypeName(expected[k].second)));
    return {};
}

// An F32 mixture-of-experts model made with the project's generator.
bool writeSynthetic(const QString &path, const std::string &arch, const model::SyntheticShape &shape)
{
    model::SyntheticSpec spec;
    spec.arch = arch;
    spec.shape = shape;
    spec.fileType = "F32";
    spec.seed = 5;
    spec.threads = 2;
    auto r = model::writeSyntheticModel(spec, path.toStdString());
    if (!r)
        qWarning("%s", r.message().c_str());
    return bool(r);
}

} // namespace

class TestQuantizeTool : public QObject {
    Q_OBJECT

private slots:
    void matchesReference_data();
    void matchesReference();
    void requantizes();
    void selfMadeMix_data();
    void selfMadeMix();
    void fallbackToF16();
    void expertMix_data();
    void expertMix();
    void expertTypesAsReference_data();
    void expertTypesAsReference();
    void errors_data();
    void errors();
};

void TestQuantizeTool::matchesReference_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("reference");
    const char *types[] = {"Q8_0", "Q4_0", "Q4_K_M", "Q4_1", "Q5_0", "Q5_1", "Q5_K_M", "Q6_K", "F16", "BF16",
                           "IQ4_NL", "IQ4_XS"};
    for (const char *t : types)
        QTest::addRow("llama %s", t) << "models/synthetic/llama-f32.gguf" << t
                                     << QStringLiteral("models/synthetic/llama-%1.gguf").arg(t);
    QTest::addRow("qwen2 Q8_0") << "models/synthetic/qwen2-f32.gguf" << "Q8_0" << "models/synthetic/qwen2-Q8_0.gguf";
    QTest::addRow("qwen2 Q4_K_M") << "models/synthetic/qwen2-f32.gguf" << "Q4_K_M"
                                  << "models/synthetic/qwen2-Q4_K_M.gguf";
    QTest::addRow("qwen35 Q4_K_M") << "models/synthetic-2026/qwen35-f32.gguf" << "Q4_K_M"
                                   << "models/synthetic-2026/qwen35-Q4_K_M.gguf";
}

void TestQuantizeTool::matchesReference()
{
    QFETCH(QString, input);
    QFETCH(QString, type);
    QFETCH(QString, reference);
    BURROW_REQUIRE_SHARED(input);
    BURROW_REQUIRE_SHARED(reference);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString out = dir.filePath(QStringLiteral("out.gguf"));
    const Run r = runQuantize({test::sharedPath(input), out, type, QStringLiteral("-q")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(!QFile::exists(out + QStringLiteral(".part")));
    const QByteArray ours = readAll(out), ref = readAll(test::sharedPath(reference));
    QVERIFY(!ref.isEmpty());
    if (ours != ref)
        QFAIL(qPrintable(QStringLiteral("differs from the reference: ") + firstDifference(out, test::sharedPath(reference))));
}

void TestQuantizeTool::requantizes()
{
    const QString input = QStringLiteral("models/synthetic/llama-Q4_K_M.gguf");
    BURROW_REQUIRE_SHARED(input);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString out = dir.filePath(QStringLiteral("q8.gguf"));
    const Run r = runQuantize({test::sharedPath(input), out, QStringLiteral("q8_0"), QStringLiteral("-q")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    auto in = gguf::GgufFile::open(test::sharedPath(input).toStdString());
    auto q = gguf::GgufFile::open(out.toStdString());
    QVERIFY2(in.isOk(), in.message().c_str());
    QVERIFY2(q.isOk(), q.message().c_str());
    uint32_t ftype = 0;
    QVERIFY((*q)->getU32("general.file_type", ftype).isOk());
    QCOMPARE(ftype, 7u);   // LLAMA_FTYPE_MOSTLY_Q8_0
    const quant::TypeTraits *q8 = quant::typeTraits(GgmlType::GGML_TYPE_Q8_0);
    QVERIFY(q8 && q8->quantize);
    for (const gguf::TensorInfo &t : (*q)->tensors()) {
        const gguf::TensorInfo *src = (*in)->tensor(t.name);
        QVERIFY(src);
        if (t.nDims == 1) {
            QCOMPARE(t.type, src->type);
            QVERIFY(t.nBytes == src->nBytes && std::memcmp(t.data, src->data, t.nBytes) == 0);
            continue;
        }
        QCOMPARE(t.type, GgmlType::GGML_TYPE_Q8_0);
        // Each row: the Q8_0 quantization of the dequantized Q4_K/Q6_K row.
        const quant::TypeTraits *from = quant::typeTraits(src->type);
        QVERIFY(from && from->dequantize);
        const int64_t ne0 = t.ne[0], rows = t.nElements / ne0;
        size_t inRow = 0, outRow = 0;
        QVERIFY(ggmlRowBytes(src->type, ne0, &inRow) && ggmlRowBytes(GgmlType::GGML_TYPE_Q8_0, ne0, &outRow));
        std::vector<float> f(static_cast<size_t>(ne0));
        std::vector<uint8_t> expect(outRow);
        for (int64_t row = 0; row < rows; ++row) {
            from->dequantize(src->data + row * inRow, f.data(), ne0);
            q8->quantize(f.data(), expect.data(), ne0);
            if (std::memcmp(expect.data(), t.data + row * outRow, outRow) != 0)
                QFAIL(qPrintable(QStringLiteral("%1 row %2 differs").arg(QString::fromUtf8(t.name.data(), t.name.size())).arg(row)));
        }
    }
}

void TestQuantizeTool::selfMadeMix_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<uint32_t>("fileTypeId");
    QTest::newRow("Q4_K_M") << "Q4_K_M" << 15u;
    QTest::newRow("Q8_0") << "Q8_0" << 7u;
    QTest::newRow("Q4_0") << "Q4_0" << 2u;
    QTest::newRow("F16") << "F16" << 1u;
}

void TestQuantizeTool::selfMadeMix()
{
    QFETCH(QString, type);
    QFETCH(uint32_t, fileTypeId);
    const SelfMade m = selfMadeModel();
    QVERIFY(m.ok);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString in = dir.filePath(QStringLiteral("in.gguf")), out = dir.filePath(QStringLiteral("out.gguf"));
    QVERIFY(writeFile(in, m.file));
    const Run r = runQuantize({in, out, type});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.contains("38 tensors"));

    // Expected types, from the rules (not from our output).
    using T = GgmlType;
    std::map<std::string, T> expect;
    const auto matrix = [&](const std::string &name, int layer, bool isAttnV, bool isDown) {
        T t = T::GGML_TYPE_F32;
        if (type == "Q8_0")
            t = T::GGML_TYPE_Q8_0;
        else if (type == "Q4_0")
            t = name == "token_embd.weight" ? T::GGML_TYPE_Q6_K : T::GGML_TYPE_Q4_0;   // tied: embeddings are the output
        else if (type == "F16")
            t = T::GGML_TYPE_F16;
        else if (name == "token_embd.weight")
            t = T::GGML_TYPE_Q6_K;
        else if (isAttnV)
            t = moreBitsLayer(layer) ? T::GGML_TYPE_Q6_K : T::GGML_TYPE_Q4_K;
        else if (isDown)   // rows of 96: Q6_K falls back to Q8_0, Q4_K to Q5_0
            t = moreBitsLayer(layer) ? T::GGML_TYPE_Q8_0 : T::GGML_TYPE_Q5_0;
        expect[name] = t;
    };
    std::vector<std::string> order = {"output_norm.weight", "token_embd.weight"};
    expect["output_norm.weight"] = T::GGML_TYPE_F32;
    matrix("token_embd.weight", -1, false, false);
    for (int i = 0; i < kLayers; ++i) {
        const std::string p = "blk." + std::to_string(i) + ".";
        order.push_back(p + "attn_norm.weight");
        order.push_back(p + "attn_v.weight");
        order.push_back(p + "ffn_down.weight");
        expect[p + "attn_norm.weight"] = T::GGML_TYPE_F32;
        matrix(p + "attn_v.weight", i, true, false);
        matrix(p + "ffn_down.weight", i, false, true);
    }

    auto q = gguf::GgufFile::open(out.toStdString());
    QVERIFY2(q.isOk(), q.message().c_str());
    const gguf::GgufFile &g = **q;
    QCOMPARE(g.alignment(), 64u);
    QCOMPARE(g.dataOffset() % 64, uint64_t(0));
    QCOMPARE(g.tensors().size(), order.size());
    for (size_t k = 0; k < order.size(); ++k) {
        const gguf::TensorInfo &t = g.tensors()[k];
        QCOMPARE(std::string(t.name), order[k]);
        QVERIFY2(t.type == expect[order[k]],
                 qPrintable(QStringLiteral("%1: %2, expected %3")
                                .arg(QString::fromStdString(order[k]), QString::fromStdString(ggmlTypeName(t.type)),
                                     QString::fromStdString(ggmlTypeName(expect[order[k]])))));
        QCOMPARE(t.offset % 64, uint64_t(0));
        const std::vector<float> &src = m.f32.at(order[k]);
        if (t.type == GgmlType::GGML_TYPE_F32) {
            QCOMPARE(t.nBytes, src.size() * sizeof(float));
            QVERIFY(std::memcmp(t.data, src.data(), t.nBytes) == 0);
            continue;
        }
        const quant::TypeTraits *tr = quant::typeTraits(t.type);
        QVERIFY(tr && tr->quantize);
        std::vector<uint8_t> bytes(t.nBytes);
        size_t rowBytes = 0;
        QVERIFY(ggmlRowBytes(t.type, t.ne[0], &rowBytes));
        for (int64_t row = 0; row < t.ne[1]; ++row)
            tr->quantize(src.data() + row * t.ne[0], bytes.data() + row * rowBytes, t.ne[0]);
        QVERIFY2(std::memcmp(bytes.data(), t.data, t.nBytes) == 0, order[k].c_str());
    }

    // Metadata: copied in order, general.file_type moved to the end after
    // general.quantization_version.
    std::vector<std::string> keys;
    for (const gguf::KeyValue &kv : g.metadata())
        keys.emplace_back(kv.key);
    const std::vector<std::string> expectKeys = {"general.architecture", "general.name", "llama.block_count",
                                                 "test.custom", "test.float", "general.alignment",
                                                 "general.quantization_version", "general.file_type"};
    QCOMPARE(keys, expectKeys);
    std::string custom;
    QVERIFY(g.getString("test.custom", custom).isOk());
    QCOMPARE(custom, std::string("kept as is"));
    float f = 0;
    QVERIFY(g.getF32("test.float", f).isOk());
    QCOMPARE(f, 0.1f);
    uint32_t v = 0;
    QVERIFY(g.getU32("general.quantization_version", v).isOk());
    QCOMPARE(v, 2u);
    QVERIFY(g.getU32("general.file_type", v).isOk());
    QCOMPARE(v, fileTypeId);
}

void TestQuantizeTool::fallbackToF16()
{
    // Rows of 48: Q4_K -> Q5_0 needs a multiple of 32, so the reference falls back to F16.
    const SelfMade m = selfMadeModel(true);
    QVERIFY(m.ok);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString in = dir.filePath(QStringLiteral("in.gguf")), out = dir.filePath(QStringLiteral("out.gguf"));
    QVERIFY(writeFile(in, m.file));
    const Run r = runQuantize({in, out, QStringLiteral("Q4_K_M"), QStringLiteral("-q")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    auto q = gguf::GgufFile::open(out.toStdString());
    QVERIFY2(q.isOk(), q.message().c_str());
    const gguf::TensorInfo *t = (*q)->tensor("blk.0.ffn_up.weight");
    QVERIFY(t);
    QCOMPARE(t->type, GgmlType::GGML_TYPE_F16);
}

// qwen3moe, 8 layers (more-bits layers 0, 3, 6, 7), 8 heads over 2 KV heads
// (gqa 4), expert rows of 32 (ffn_down_exps: not a multiple of 256, so the
// K-quant fallbacks apply to a 3-D tensor), 16 or 8 experts.
void TestQuantizeTool::expertMix_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<uint32_t>("experts");
    for (const char *type : {"Q4_K_M", "Q5_K_M", "Q4_K_S", "Q6_K", "Q8_0", "Q4_0", "IQ4_XS"})
        for (uint32_t experts : {16u, 8u})
            QTest::addRow("%s, %u experts", type, experts) << QString::fromLatin1(type) << experts;
}

void TestQuantizeTool::expertMix()
{
    QFETCH(QString, type);
    QFETCH(uint32_t, experts);
    model::SyntheticShape shape;
    shape.nEmbd = 256;
    shape.nLayer = 8;
    shape.nHead = 8;
    shape.nHeadKv = 2;
    shape.headDim = 32;
    shape.nFf = 0;
    shape.nExpert = experts;
    shape.nExpertUsed = 2;
    shape.nFfExp = 32;
    shape.nVocab = 300;
    shape.nCtx = 256;
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString in = dir.filePath(QStringLiteral("in.gguf")), out = dir.filePath(QStringLiteral("out.gguf"));
    QVERIFY(writeSynthetic(in, "qwen3moe", shape));
    const Run r = runQuantize({in, out, type, QStringLiteral("-q")});
    QVERIFY2(r.exitCode == 0, r.err.constData());

    // The reference's rules for these tensors (llama_tensor_get_type), by hand.
    using T = GgmlType;
    const std::string ft = type.toStdString();
    const bool kM = ft == "Q4_K_M" || ft == "Q5_K_M";
    const bool eight = experts == 8;
    const T base = ft == "Q4_K_M" || ft == "Q4_K_S" ? T::GGML_TYPE_Q4_K
                 : ft == "Q5_K_M" ? T::GGML_TYPE_Q5_K
                 : ft == "Q6_K" ? T::GGML_TYPE_Q6_K
                 : ft == "Q8_0" ? T::GGML_TYPE_Q8_0
                 : ft == "Q4_0" ? T::GGML_TYPE_Q4_0 : T::GGML_TYPE_IQ4_XS;
    // Rows of 32: the fallbacks of the 256-element types.
    const auto rows32 = [](T t) {
        switch (t) {
        case T::GGML_TYPE_Q4_K: return T::GGML_TYPE_Q5_0;
        case T::GGML_TYPE_Q5_K: return T::GGML_TYPE_Q5_1;
        case T::GGML_TYPE_Q6_K: return T::GGML_TYPE_Q8_0;
        case T::GGML_TYPE_IQ4_XS: return T::GGML_TYPE_IQ4_NL;
        default: return t;
        }
    };
    const auto moreBits = [](int i) { return i == 0 || i == 3 || i == 6 || i == 7; };   // n = 8
    std::vector<std::pair<std::string, T>> expected;
    expected.emplace_back("output.weight", base == T::GGML_TYPE_Q8_0 ? T::GGML_TYPE_Q8_0 : T::GGML_TYPE_Q6_K);
    expected.emplace_back("output_norm.weight", T::GGML_TYPE_F32);
    expected.emplace_back("token_embd.weight", base);
    for (int i = 0; i < 8; ++i) {
        const std::string b = "blk." + std::to_string(i) + ".";
        T v = base, k = base, o = base, down = base;
        if (ft == "IQ4_XS")
            v = T::GGML_TYPE_Q5_K;                       // gqa >= 4
        else if (kM && moreBits(i))                      // attn_v counter == layer here
            v = T::GGML_TYPE_Q6_K;
        else if (ft == "Q4_K_S" && i < 4)
            v = T::GGML_TYPE_Q5_K;
        if (eight) {
            v = k = T::GGML_TYPE_Q8_0;
            if (ft == "Q4_K_M" || ft == "Q4_K_S" || ft == "IQ4_XS")
                o = T::GGML_TYPE_Q5_K;
        }
        if (kM && moreBits(i))
            down = T::GGML_TYPE_Q6_K;
        else if ((ft == "IQ4_XS" || ft == "Q4_K_S") && i < 1)   // i < n/8
            down = T::GGML_TYPE_Q5_K;
        expected.emplace_back(b + "attn_k.weight", k);
        expected.emplace_back(b + "attn_k_norm.weight", T::GGML_TYPE_F32);
        expected.emplace_back(b + "attn_norm.weight", T::GGML_TYPE_F32);
        expected.emplace_back(b + "attn_output.weight", o);
        expected.emplace_back(b + "attn_q.weight", base);
        expected.emplace_back(b + "attn_q_norm.weight", T::GGML_TYPE_F32);
        expected.emplace_back(b + "attn_v.weight", v);
        expected.emplace_back(b + "ffn_down_exps.weight", rows32(down));
        expected.emplace_back(b + "ffn_gate_exps.weight", base);
        expected.emplace_back(b + "ffn_gate_inp.weight", T::GGML_TYPE_F32);   // the router is never quantized
        expected.emplace_back(b + "ffn_norm.weight", T::GGML_TYPE_F32);
        expected.emplace_back(b + "ffn_up_exps.weight", base);
    }
    // ("blk.N." names sort bytewise within a layer, and layers numerically.)
    const auto ours = typesOf(out);
    const QString diff = describeDifference(ours, expected);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));

    // Each expert's rows are the quantization of that expert's F32 rows.
    auto fin = gguf::GgufFile::open(in.toStdString());
    auto fout = gguf::GgufFile::open(out.toStdString());
    QVERIFY(fin && fout);
    for (const char *name : {"blk.7.ffn_down_exps.weight", "blk.2.ffn_up_exps.weight"}) {
        const gguf::TensorInfo *src = (*fin)->tensor(name), *dst = (*fout)->tensor(name);
        QVERIFY(src && dst && dst->nDims == 3 && dst->ne[2] == experts);
        const quant::TypeTraits *tr = quant::typeTraits(dst->type);
        QVERIFY(tr && tr->quantize);
        size_t rowBytes = 0;
        QVERIFY(ggmlRowBytes(dst->type, dst->ne[0], &rowBytes));
        const int64_t rows = dst->ne[1] * dst->ne[2];
        QCOMPARE(dst->nBytes, rowBytes * size_t(rows));
        std::vector<uint8_t> expect(dst->nBytes);
        for (int64_t row = 0; row < rows; ++row)
            tr->quantize(reinterpret_cast<const float *>(src->data) + row * src->ne[0], expect.data() + row * rowBytes,
                         src->ne[0]);
        QVERIFY2(std::memcmp(expect.data(), dst->data, dst->nBytes) == 0, name);
    }
}

// The tensor types llama-quantize gave the reference's random qwen3moe (and
// gpt-oss) models, for a model of the same shape made here, from F32 and
// requantized from the reference's Q8_0 file.
void TestQuantizeTool::expertTypesAsReference_data()
{
    QTest::addColumn<QString>("preset");
    QTest::addColumn<QString>("input");   // "" = the preset in F32, made here
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("reference");
    QTest::newRow("qwen3moe F32 -> Q4_K_M") << "qwen3moe-tiny" << "" << "Q4_K_M"
                                            << "models/synthetic-2026/qwen3moe-Q4_K_M.gguf";
    QTest::newRow("qwen3moe F32 -> Q8_0") << "qwen3moe-tiny" << "" << "Q8_0" << "models/synthetic-2026/qwen3moe-Q8_0.gguf";
    QTest::newRow("qwen3moe Q8_0 -> Q4_K_M") << "" << "models/synthetic-2026/qwen3moe-Q8_0.gguf" << "Q4_K_M"
                                             << "models/synthetic-2026/qwen3moe-Q4_K_M.gguf";
    QTest::newRow("gpt-oss F32 -> MXFP4_MOE") << "gpt-oss-tiny" << "" << "MXFP4_MOE"
                                              << "models/synthetic-2026/gpt-oss-MXFP4.gguf";
    QTest::newRow("qwen35moe F32 -> Q4_K_M") << "qwen35moe-tiny" << "" << "Q4_K_M"
                                             << "models/synthetic-2026/qwen35moe-Q4_K_M.gguf";
    QTest::newRow("qwen35moe F32 -> Q8_0") << "qwen35moe-tiny" << "" << "Q8_0"
                                           << "models/synthetic-2026/qwen35moe-Q8_0.gguf";
    QTest::newRow("qwen35moe Q8_0 -> Q4_K_M") << "" << "models/synthetic-2026/qwen35moe-Q8_0.gguf" << "Q4_K_M"
                                              << "models/synthetic-2026/qwen35moe-Q4_K_M.gguf";
}

void TestQuantizeTool::expertTypesAsReference()
{
    QFETCH(QString, preset);
    QFETCH(QString, input);
    QFETCH(QString, type);
    QFETCH(QString, reference);
    BURROW_REQUIRE_SHARED(reference);
    if (!model::findQuantFileType(type.toStdString()))
        QSKIP(qPrintable(type + QStringLiteral(" has no quantizer in this build yet")));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString in = dir.filePath(QStringLiteral("in.gguf"));
    if (input.isEmpty()) {
        const model::SyntheticPreset *p = model::findSyntheticPreset(preset.toStdString());
        QVERIFY(p);
        QVERIFY(writeSynthetic(in, p->arch, p->shape));
    } else {
        BURROW_REQUIRE_SHARED(input);
        in = test::sharedPath(input);
    }
    const QString out = dir.filePath(QStringLiteral("out.gguf"));
    const Run r = runQuantize({in, out, type, QStringLiteral("-q")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString diff = describeDifference(typesOf(out), typesOf(test::sharedPath(reference)));
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

void TestQuantizeTool::errors_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown type") << "unknown type" << 2 << "unknown type 'Q3_K_XL', expected one of: F32, F16";
    QTest::newRow("too few arguments") << "too few" << 2 << "expected IN.gguf OUT.gguf TYPE, got 2 arguments";
    QTest::newRow("unknown option") << "option" << 2 << "unknown option '--imatrix'";
    QTest::newRow("bad threads") << "threads" << 2 << "-t expects a number of threads";
    QTest::newRow("same file") << "same" << 2 << "IN and OUT are the same file";
    QTest::newRow("missing input") << "missing" << 1 << "absent.gguf";
    QTest::newRow("not a gguf") << "text" << 1 << "notes.txt";
    QTest::newRow("no output folder") << "no folder" << 1 << "cannot create";
    QTest::newRow("no dequantizer") << "iq2" << 1 << "tensor 'blk.0.ffn_gate.weight' has type I32, which cannot be converted";
    QTest::newRow("rows not a multiple of the block") << "odd" << 1
        << "tensor 'blk.0.ffn_up.weight' has rows of 48 elements, not a multiple of 32 as type Q8_0 needs";
}

void TestQuantizeTool::errors()
{
    QFETCH(QString, kind);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString good = dir.filePath(QStringLiteral("in.gguf"));
    const SelfMade m = selfMadeModel(kind == "odd", kind == "iq2");
    QVERIFY(m.ok);
    QVERIFY(writeFile(good, m.file));
    QString out = dir.filePath(QStringLiteral("out.gguf"));
    QStringList args = {good, out, QStringLiteral("Q8_0")};
    if (kind == "unknown type") {
        args[2] = QStringLiteral("Q3_K_XL");
    } else if (kind == "too few") {
        args.removeLast();
    } else if (kind == "option") {
        args << QStringLiteral("--imatrix");
    } else if (kind == "threads") {
        args << QStringLiteral("-t") << QStringLiteral("0");
    } else if (kind == "same") {
        args[1] = good;
        out = dir.filePath(QStringLiteral("unused.gguf"));
    } else if (kind == "missing") {
        args[0] = dir.filePath(QStringLiteral("absent.gguf"));
    } else if (kind == "text") {
        args[0] = dir.filePath(QStringLiteral("notes.txt"));
        QVERIFY(writeFile(args[0], {'h', 'e', 'l', 'l', 'o', '\n'}));
    } else if (kind == "no folder") {
        out = dir.filePath(QStringLiteral("nowhere/out.gguf"));
        args[1] = out;
    }
    const QByteArray before = readAll(good);
    const Run r = runQuantize(args);
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
    QVERIFY(!QFile::exists(out));
    QVERIFY(!QFile::exists(out + QStringLiteral(".part")));
    QCOMPARE(readAll(good), before);   // the input is never touched
}

QTEST_MAIN(TestQuantizeTool)
#include "tst_quantize_tool.moc"
