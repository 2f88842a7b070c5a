// GgufStreamWriter: the bytes GgufWriter builds in memory for the same
// metadata and tensors (any alignment, data written in pieces), and its
// refusals: bad geometry named by tensor, too many or too few bytes, a
// declaration after the header; the .part file is removed on failure and
// renamed only when complete.
#include "gguf/gguf_reader.h"
#include "gguf/gguf_stream_writer.h"
#include "gguf/gguf_writer.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace burrow;
using gguf::GgufStreamWriter;
using gguf::GgufWriter;

namespace {

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

struct Tensor {
    std::string name;
    GgmlType type;
    std::vector<int64_t> dims;
    std::vector<uint8_t> data;
};

std::vector<Tensor> sampleTensors()
{
    std::vector<Tensor> t = {
        {"a.weight", GgmlType::GGML_TYPE_F32, {3}, {}},
        {"b.weight", GgmlType::GGML_TYPE_Q8_0, {64, 3}, {}},
        {"c.weight", GgmlType::GGML_TYPE_Q4_K, {256, 2, 3}, {}},
        {"d.weight", GgmlType::GGML_TYPE_F16, {5, 1}, {}},
    };
    uint8_t v = 1;
    for (Tensor &x : t) {
        size_t row = 0;
        ggmlRowBytes(x.type, x.dims[0], &row);
        size_t n = row;
        for (size_t i = 1; i < x.dims.size(); ++i)
            n *= size_t(x.dims[i]);
        x.data.resize(n);
        for (uint8_t &b : x.data)
            b = v++;
    }
    return t;
}

void addMetadata(GgufWriter &w)
{
    w.addString("general.architecture", "llama");
    w.addU32("llama.block_count", 1);
    w.addStringArray("tokenizer.ggml.tokens", {"a", "b", "c"});
}

} // namespace

class TestGgufStreamWriter : public QObject {
    Q_OBJECT

private slots:
    void sameBytesAsInMemory_data()
    {
        QTest::addColumn<uint32_t>("alignment");
        QTest::addColumn<int>("piece");   // bytes per writeData call (0: whole tensors)
        QTest::newRow("default alignment, whole tensors") << 32u << 0;
        QTest::newRow("alignment 64, pieces of 7 bytes") << 64u << 7;
        QTest::newRow("alignment 1, pieces of 1 byte") << 1u << 1;
    }
    void sameBytesAsInMemory()
    {
        QFETCH(uint32_t, alignment);
        QFETCH(int, piece);
        const std::vector<Tensor> tensors = sampleTensors();
        GgufWriter ref;
        addMetadata(ref);
        if (alignment != 32)
            ref.setAlignment(alignment);
        for (const Tensor &t : tensors)
            QVERIFY(ref.addTensor(t.name, t.type, t.dims, t.data));
        const std::vector<uint8_t> expected = ref.bytes();

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("s.gguf"));
        GgufStreamWriter w;
        addMetadata(w.metadata());
        if (alignment != 32)
            w.setAlignment(alignment);
        for (const Tensor &t : tensors)
            QVERIFY(w.declareTensor(t.name, t.type, t.dims));
        QCOMPARE(w.tensorCount(), tensors.size());
        QCOMPARE(w.fileBytes(), uint64_t(expected.size()));
        QVERIFY(w.begin(path.toStdString()));
        QVERIFY(QFile::exists(path + QStringLiteral(".part")));
        for (size_t k = 0; k < tensors.size(); ++k) {
            QCOMPARE(w.currentTensor(), k);
            const std::vector<uint8_t> &d = tensors[k].data;
            const size_t step = piece > 0 ? size_t(piece) : d.size();
            for (size_t at = 0; at < d.size(); at += step)
                QVERIFY(w.writeData(d.data() + at, std::min(step, d.size() - at)));
        }
        QCOMPARE(w.currentTensor(), tensors.size());
        QVERIFY(w.finish());
        QVERIFY(!QFile::exists(path + QStringLiteral(".part")));
        const QByteArray got = readAll(path);
        QCOMPARE(got, QByteArray(reinterpret_cast<const char *>(expected.data()), qsizetype(expected.size())));
        auto f = gguf::GgufFile::open(path.toStdString());
        QVERIFY2(f, f.message().c_str());
        QCOMPARE((*f)->tensors().size(), tensors.size());
    }

    void refusals_data()
    {
        QTest::addColumn<int>("variant");
        QTest::addColumn<QString>("expected");
        QTest::newRow("row not whole blocks") << 0 << "tensor 'x': a row of 100 elements is not a whole number of Q4_K blocks";
        QTest::newRow("negative dimension") << 1 << "tensor 'x': dimension 1 is -2";
        QTest::newRow("five dimensions") << 2 << "tensor 'x': 5 dimensions, expected 1 to 4";
        QTest::newRow("size overflows") << 3 << "tensor 'x': the";
        QTest::newRow("too many bytes") << 4 << "tensor 'b.weight': 300 bytes written where";
        QTest::newRow("too few bytes") << 5 << "tensor 'c.weight' is incomplete";
        QTest::newRow("declared after begin") << 6 << "tensor 'late' declared after the header was written";
        QTest::newRow("bytes past the last tensor") << 7 << "bytes more than the declared tensors hold";
        QTest::newRow("alignment not a power of two") << 8 << "alignment 48 is not a power of two";
    }
    void refusals()
    {
        QFETCH(int, variant);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("s.gguf"));
        const std::vector<Tensor> tensors = sampleTensors();
        Status failure;
        {
            GgufStreamWriter w;
            addMetadata(w.metadata());
            const auto declareAll = [&] {
                for (const Tensor &t : tensors)
                    if (Status s = w.declareTensor(t.name, t.type, t.dims); !s)
                        return s;
                return Status();
            };
            switch (variant) {
            case 0: failure = w.declareTensor("x", GgmlType::GGML_TYPE_Q4_K, {100, 2}); break;
            case 1: failure = w.declareTensor("x", GgmlType::GGML_TYPE_F32, {4, -2}); break;
            case 2: failure = w.declareTensor("x", GgmlType::GGML_TYPE_F32, {1, 1, 1, 1, 1}); break;
            case 3: failure = w.declareTensor("x", GgmlType::GGML_TYPE_F32, {int64_t(1) << 40, int64_t(1) << 40}); break;
            case 4:
            case 5:
            case 6:
            case 7: {
                QVERIFY(declareAll());
                QVERIFY(w.begin(path.toStdString()));
                QVERIFY(w.writeData(tensors[0].data.data(), tensors[0].data.size()));
                if (variant == 4) {
                    const std::vector<uint8_t> big(300);
                    failure = w.writeData(big.data(), big.size());
                } else if (variant == 5) {
                    QVERIFY(w.writeData(tensors[1].data.data(), tensors[1].data.size()));
                    QVERIFY(w.writeData(tensors[2].data.data(), 10));
                    failure = w.finish();
                } else if (variant == 6) {
                    failure = w.declareTensor("late", GgmlType::GGML_TYPE_F32, {4});
                } else {
                    for (size_t k = 1; k < tensors.size(); ++k)
                        QVERIFY(w.writeData(tensors[k].data.data(), tensors[k].data.size()));
                    const uint8_t one = 0;
                    failure = w.writeData(&one, 1);
                }
                break;
            }
            case 8:
                w.setAlignment(48);
                failure = w.begin(path.toStdString());
                break;
            default: QFAIL("unknown variant");
            }
        }   // the writer is gone: no .part may stay
        QVERIFY(!failure);
        QVERIFY2(QString::fromStdString(failure.message()).contains(expected), failure.message().c_str());
        QVERIFY(!QFile::exists(path));
        QVERIFY(!QFile::exists(path + QStringLiteral(".part")));
    }

    void cannotCreate()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        GgufStreamWriter w;
        QVERIFY(w.declareTensor("a", GgmlType::GGML_TYPE_F32, {4}));
        const Status s = w.begin(dir.filePath(QStringLiteral("nowhere/s.gguf")).toStdString());
        QVERIFY(!s);
        QVERIFY2(QString::fromStdString(s.message()).contains(QLatin1String("cannot create")), s.message().c_str());
    }
};

QTEST_MAIN(TestGgufStreamWriter)
#include "tst_gguf_stream_writer.moc"
