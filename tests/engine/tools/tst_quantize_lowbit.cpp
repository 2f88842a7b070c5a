// burrow-cli quantize to the 1- and 2-bit file types (Q2_0, TQ2_0, TQ1_0,
// Q1_0), run as a process:
//   - ../shared/models/synthetic/llama-f32.gguf to Q2_0 gives, tensor for
//     tensor (names, order, types, bytes), the reference's llama-quantize
//     output ../shared/models/synthetic-types/llama-Q2_0.gguf (made from the
//     same F32 file; its metadata differs only by the importance-matrix keys
//     the reference adds, which these types do not use);
//   - TQ1_0, TQ2_0 and Q1_0 give the tensor types of the reference's files
//     of the same shape (those were quantized from another F32 base);
//   - a model made here with the GGUF writer: the types of the reference's
//     rules written out by hand (Q4_K embeddings but for Q1_0, Q6_K output,
//     rows that are not whole blocks falling back to Q4_0 then F16, Q1_0
//     refusing them), and every quantized tensor's bytes equal the type's
//     quantizer applied row by row; general.file_type the reference's id.
#include "burrow/engine.h"
#include "gguf/gguf_reader.h"
#include "gguf/gguf_writer.h"
#include "quant/quant_traits.h"
#include "cli_process.h"
#include "test_support.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <map>

using namespace burrow;
using T = GgmlType;

namespace {

test::ProcessResult runQuantize(const QStringList &args)
{
    return test::runCli(QStringList{QStringLiteral("quantize")} + args, {}, 120000);
}

bool writeFile(const QString &path, const std::vector<uint8_t> &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) &&
           f.write(reinterpret_cast<const char *>(bytes.data()), static_cast<qint64>(bytes.size())) ==
               static_cast<qint64>(bytes.size());
}

std::vector<float> values(size_t n, uint32_t seed)
{
    std::vector<float> v(n);
    uint32_t s = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; ++i) {
        s = s * 1664525u + 1013904223u;
        v[i] = static_cast<float>(s >> 8) / static_cast<float>(1u << 24) * 0.2f - 0.1f;
    }
    return v;
}

QString describe(const gguf::TensorInfo &t)
{
    return QString::fromUtf8(t.name.data(), int(t.name.size())) + QLatin1Char(' ') +
           QString::fromStdString(ggmlTypeName(t.type));
}

// A llama-shaped model: token_embd [256, 16] and output [256, 16] (or tied),
// per layer attn_norm [256], attn_v [256, 4], ffn_down [rowLength, 4].
std::vector<uint8_t> selfMadeModel(bool tied, int64_t rowLength, std::map<std::string, std::vector<float>> *f32)
{
    gguf::GgufWriter w;
    w.addString("general.architecture", "llama");
    w.addU32("llama.block_count", 2);
    w.setAlignment(32);
    const auto add = [&](const std::string &name, std::vector<int64_t> dims, uint32_t seed) {
        size_t n = 1;
        for (int64_t d : dims)
            n *= static_cast<size_t>(d);
        (*f32)[name] = values(n, seed);
        std::vector<uint8_t> bytes(n * sizeof(float));
        std::memcpy(bytes.data(), (*f32)[name].data(), bytes.size());
        w.addTensor(name, T::GGML_TYPE_F32, dims, bytes);
    };
    uint32_t seed = 1;
    add("token_embd.weight", {256, 16}, seed++);
    if (!tied)
        add("output.weight", {256, 16}, seed++);
    add("output_norm.weight", {256}, seed++);
    for (int i = 0; i < 2; ++i) {
        const std::string p = "blk." + std::to_string(i) + ".";
        add(p + "attn_norm.weight", {256}, seed++);
        add(p + "attn_v.weight", {256, 4}, seed++);
        add(p + "ffn_down.weight", {rowLength, 4}, seed++);
    }
    return w.bytes();
}

} // namespace

class TestQuantizeLowbit : public QObject {
    Q_OBJECT

private slots:
    void q2_0AsReference()
    {
        const QString input = QStringLiteral("models/synthetic/llama-f32.gguf");
        const QString reference = QStringLiteral("models/synthetic-types/llama-Q2_0.gguf");
        BURROW_REQUIRE_SHARED(input);
        BURROW_REQUIRE_SHARED(reference);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString out = dir.filePath(QStringLiteral("out.gguf"));
        const test::ProcessResult r = runQuantize({test::sharedPath(input), out, QStringLiteral("q2_0"), QStringLiteral("-q")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        auto ours = gguf::GgufFile::open(out.toStdString());
        auto ref = gguf::GgufFile::open(test::sharedPath(reference).toStdString());
        QVERIFY2(ours && ref, "cannot open");
        const auto &a = (*ours)->tensors(), &b = (*ref)->tensors();
        QCOMPARE(a.size(), b.size());
        int lowBit = 0;
        for (size_t k = 0; k < a.size(); ++k) {
            QVERIFY2(a[k].name == b[k].name && a[k].type == b[k].type,
                     qPrintable(describe(a[k]) + QStringLiteral(", reference ") + describe(b[k])));
            QVERIFY2(a[k].nBytes == b[k].nBytes && std::memcmp(a[k].data, b[k].data, a[k].nBytes) == 0,
                     qPrintable(describe(a[k]) + QStringLiteral(": bytes differ")));
            lowBit += a[k].type == T::GGML_TYPE_Q2_0;
        }
        QVERIFY(lowBit >= 14);
        uint32_t ftype = 0;
        QVERIFY((*ours)->getU32("general.file_type", ftype).isOk());
        QCOMPARE(ftype, 41u);   // LLAMA_FTYPE_MOSTLY_Q2_0
    }

    void typesAsReference_data()
    {
        QTest::addColumn<QString>("type");
        QTest::addColumn<uint32_t>("fileTypeId");
        QTest::newRow("TQ1_0") << "TQ1_0" << 36u;
        QTest::newRow("TQ2_0") << "TQ2_0" << 37u;
        QTest::newRow("Q1_0") << "Q1_0" << 40u;
        QTest::newRow("Q2_0") << "Q2_0" << 41u;
    }
    void typesAsReference()
    {
        QFETCH(QString, type);
        QFETCH(uint32_t, fileTypeId);
        const QString input = QStringLiteral("models/synthetic/llama-f32.gguf");
        const QString reference = QStringLiteral("models/synthetic-types/llama-%1.gguf").arg(type);
        BURROW_REQUIRE_SHARED(input);
        BURROW_REQUIRE_SHARED(reference);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString out = dir.filePath(QStringLiteral("out.gguf"));
        const test::ProcessResult r = runQuantize({test::sharedPath(input), out, type, QStringLiteral("-q")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        auto ours = gguf::GgufFile::open(out.toStdString());
        auto ref = gguf::GgufFile::open(test::sharedPath(reference).toStdString());
        QVERIFY2(ours && ref, "cannot open");
        const auto &a = (*ours)->tensors(), &b = (*ref)->tensors();
        QCOMPARE(a.size(), b.size());
        for (size_t k = 0; k < a.size(); ++k)
            QVERIFY2(a[k].name == b[k].name && a[k].type == b[k].type && a[k].nBytes == b[k].nBytes,
                     qPrintable(describe(a[k]) + QStringLiteral(", reference ") + describe(b[k])));
        uint32_t ftype = 0;
        QVERIFY((*ours)->getU32("general.file_type", ftype).isOk());
        QCOMPARE(ftype, fileTypeId);
        auto info = inspectModel(out.toStdString());   // the model card's file type
        QVERIFY2(info, info.message().c_str());
        QCOMPARE(QString::fromStdString(info->fileType), type);
    }

    void selfMadeMix_data()
    {
        QTest::addColumn<QString>("type");
        QTest::addColumn<bool>("tied");
        QTest::addColumn<int>("rowLength");
        for (const char *t : {"Q2_0", "TQ2_0", "TQ1_0", "Q1_0"})
            for (bool tied : {false, true})
                QTest::addRow("%s %s", t, tied ? "tied" : "output") << QString::fromLatin1(t) << tied << 256;
        QTest::newRow("TQ1_0 rows of 96") << "TQ1_0" << false << 96;   // -> Q4_0
        QTest::newRow("Q2_0 rows of 48") << "Q2_0" << false << 48;     // -> Q4_0 -> F16
    }
    void selfMadeMix()
    {
        QFETCH(QString, type);
        QFETCH(bool, tied);
        QFETCH(int, rowLength);
        std::map<std::string, std::vector<float>> f32;
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString in = dir.filePath(QStringLiteral("in.gguf")), out = dir.filePath(QStringLiteral("out.gguf"));
        QVERIFY(writeFile(in, selfMadeModel(tied, rowLength, &f32)));
        const test::ProcessResult r = runQuantize({in, out, type, QStringLiteral("-q")});
        QVERIFY2(r.exitCode == 0, r.err.constData());

        // The reference's rules for these file types, written out.
        const T base = type == "Q2_0" ? T::GGML_TYPE_Q2_0 : type == "TQ2_0" ? T::GGML_TYPE_TQ2_0
                     : type == "TQ1_0" ? T::GGML_TYPE_TQ1_0 : T::GGML_TYPE_Q1_0;
        const auto expected = [&](const std::string &name) {
            if (name.find("_norm.") != std::string::npos)
                return T::GGML_TYPE_F32;
            if (name == "output.weight" || (tied && name == "token_embd.weight"))
                return T::GGML_TYPE_Q6_K;
            if (name == "token_embd.weight")
                return base == T::GGML_TYPE_Q1_0 ? base : T::GGML_TYPE_Q4_K;
            if (name.find("ffn_down") != std::string::npos && rowLength % ggmlTypeInfo(base)->blockSize != 0)
                return rowLength % 32 == 0 ? T::GGML_TYPE_Q4_0 : T::GGML_TYPE_F16;
            return base;
        };
        auto q = gguf::GgufFile::open(out.toStdString());
        QVERIFY2(q, q.message().c_str());
        QCOMPARE((*q)->tensors().size(), f32.size());
        for (const gguf::TensorInfo &t : (*q)->tensors()) {
            const std::string name(t.name);
            QVERIFY2(t.type == expected(name), qPrintable(describe(t) + QStringLiteral(", expected ") +
                                                           QString::fromStdString(ggmlTypeName(expected(name)))));
            const std::vector<float> &src = f32.at(name);
            if (t.type == T::GGML_TYPE_F32)
                continue;
            const quant::TypeTraits *tr = quant::typeTraits(t.type);
            QVERIFY(tr && tr->quantize);
            size_t rowBytes = 0;
            QVERIFY(ggmlRowBytes(t.type, t.ne[0], &rowBytes));
            std::vector<uint8_t> bytes(rowBytes * static_cast<size_t>(t.ne[1]));
            for (int64_t row = 0; row < t.ne[1]; ++row)
                tr->quantize(src.data() + row * t.ne[0], bytes.data() + row * rowBytes, t.ne[0]);
            QVERIFY2(bytes.size() == t.nBytes && std::memcmp(bytes.data(), t.data, t.nBytes) == 0, name.c_str());
        }
    }

    // Q1_0 has no fallback type in the reference: rows that are not whole
    // blocks of 128 are refused, naming the tensor, and no file is left.
    void q1_0RefusesPartialRows()
    {
        std::map<std::string, std::vector<float>> f32;
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString in = dir.filePath(QStringLiteral("in.gguf")), out = dir.filePath(QStringLiteral("out.gguf"));
        QVERIFY(writeFile(in, selfMadeModel(false, 96, &f32)));
        const test::ProcessResult r = runQuantize({in, out, QStringLiteral("Q1_0")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("tensor 'blk.0.ffn_down.weight' has rows of 96 elements, not a multiple of 128 as type Q1_0 needs"),
                 r.err.constData());
        QVERIFY(!QFile::exists(out));
        QVERIFY(!QFile::exists(out + QStringLiteral(".part")));
    }
};

QTEST_MAIN(TestQuantizeLowbit)
#include "tst_quantize_lowbit.moc"
