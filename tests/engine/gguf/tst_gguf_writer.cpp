// GGUF writer -> reader round trips: every metadata value type, arrays of
// every element type, tensors of several types and shapes, alignments and
// both versions; plus the typed getters' conversions and error messages.
#include "gguf/gguf_reader.h"
#include "gguf/gguf_writer.h"
#include "test_support.h"

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>
#include <limits>

using namespace burrow;
using namespace burrow::gguf;

namespace {

Result<std::unique_ptr<GgufFile>> roundTrip(const GgufWriter &w, const std::string &name = "rt.gguf")
{
    return GgufFile::parse(MappedFile::fromBytes(w.bytes(), name));
}

template <typename T>
T element(const Value &v, uint64_t k)
{
    T out;
    std::memcpy(&out, v.arrayData + k * sizeof(T), sizeof(T));
    return out;
}

} // namespace

class TestGgufWriter : public QObject {
    Q_OBJECT

private slots:
    void scalars();
    void strings();
    void arrays();
    void tensors_data();
    void tensors();
    void writeFileAndOpen();
    void getters();
    void getterErrors();
    void emptyFile();
};

void TestGgufWriter::scalars()
{
    GgufWriter w;
    w.addU8("u8", 250);
    w.addI8("i8", -120);
    w.addU16("u16", 65000);
    w.addI16("i16", -32000);
    w.addU32("u32", 4000000000u);
    w.addI32("i32", -2000000000);
    w.addF32("f32", 1.5f);
    w.addBool("bool.true", true);
    w.addBool("bool.false", false);
    w.addU64("u64", 18000000000000000000ull);
    w.addI64("i64", -9000000000000000000ll);
    w.addF64("f64", -2.25e300);
    auto f = roundTrip(w);
    QVERIFY2(f.isOk(), f.message().c_str());
    const GgufFile &g = **f;
    QCOMPARE(g.metadata().size(), size_t(12));
    QCOMPARE(g.version(), 3u);
    QCOMPARE(g.alignment(), GGUF_DEFAULT_ALIGNMENT);

    struct Expect {
        const char *key;
        ValueType type;
    };
    const Expect types[] = {{"u8", ValueType::VALUE_TYPE_U8}, {"i8", ValueType::VALUE_TYPE_I8},
                            {"u16", ValueType::VALUE_TYPE_U16}, {"i16", ValueType::VALUE_TYPE_I16},
                            {"u32", ValueType::VALUE_TYPE_U32}, {"i32", ValueType::VALUE_TYPE_I32},
                            {"f32", ValueType::VALUE_TYPE_F32}, {"bool.true", ValueType::VALUE_TYPE_BOOL},
                            {"u64", ValueType::VALUE_TYPE_U64}, {"i64", ValueType::VALUE_TYPE_I64},
                            {"f64", ValueType::VALUE_TYPE_F64}};
    for (const Expect &e : types) {
        const KeyValue *kv = g.find(e.key);
        QVERIFY2(kv, e.key);
        QCOMPARE(kv->value.type, e.type);
    }
    QCOMPARE(g.find("u8")->value.u, uint64_t(250));
    QCOMPARE(g.find("i8")->value.i, int64_t(-120));
    QCOMPARE(g.find("u16")->value.u, uint64_t(65000));
    QCOMPARE(g.find("i16")->value.i, int64_t(-32000));
    QCOMPARE(g.find("u32")->value.u, uint64_t(4000000000u));
    QCOMPARE(g.find("i32")->value.i, int64_t(-2000000000));
    QCOMPARE(g.find("f32")->value.f, 1.5);
    QCOMPARE(g.find("bool.true")->value.b, true);
    QCOMPARE(g.find("bool.false")->value.b, false);
    QCOMPARE(g.find("u64")->value.u, uint64_t(18000000000000000000ull));
    QCOMPARE(g.find("i64")->value.i, int64_t(-9000000000000000000ll));
    QCOMPARE(g.find("f64")->value.f, -2.25e300);
    QVERIFY(g.find("absent") == nullptr);
    // Metadata keeps the file's order.
    QCOMPARE(g.metadata().front().key, std::string_view("u8"));
    QCOMPARE(g.metadata().back().key, std::string_view("f64"));
}

void TestGgufWriter::strings()
{
    GgufWriter w;
    const std::string utf8 = "Grüße, 世界 🦫";
    std::string withNul("a\0b", 3);
    w.addString("empty", "");
    w.addString("utf8", utf8);
    w.addString("nul", withNul);
    w.addString("long", std::string(100000, 'x'));
    auto f = roundTrip(w);
    QVERIFY2(f.isOk(), f.message().c_str());
    std::string s;
    QVERIFY((*f)->getString("empty", s).isOk());
    QCOMPARE(s, std::string());
    QVERIFY((*f)->getString("utf8", s).isOk());
    QCOMPARE(s, utf8);
    QVERIFY((*f)->getString("nul", s).isOk());
    QCOMPARE(s, withNul);
    QVERIFY((*f)->getString("long", s).isOk());
    QCOMPARE(s.size(), size_t(100000));
}

void TestGgufWriter::arrays()
{
    GgufWriter w;
    w.addArray("a.u8", ValueType::VALUE_TYPE_U8, std::vector<uint8_t>{0, 1, 255});
    w.addArray("a.i8", ValueType::VALUE_TYPE_I8, std::vector<int8_t>{-128, 0, 127});
    w.addArray("a.u16", ValueType::VALUE_TYPE_U16, std::vector<uint16_t>{1, 65535});
    w.addArray("a.i16", ValueType::VALUE_TYPE_I16, std::vector<int16_t>{-32768, 32767});
    w.addArray("a.u32", ValueType::VALUE_TYPE_U32, std::vector<uint32_t>{7, 4294967295u});
    w.addArray("a.i32", ValueType::VALUE_TYPE_I32, std::vector<int32_t>{-1, 2, -3});
    w.addArray("a.f32", ValueType::VALUE_TYPE_F32, std::vector<float>{0.5f, -1.25f, 3e30f});
    w.addArray("a.bool", ValueType::VALUE_TYPE_BOOL, std::vector<uint8_t>{1, 0, 1});
    w.addArray("a.u64", ValueType::VALUE_TYPE_U64, std::vector<uint64_t>{~0ull});
    w.addArray("a.i64", ValueType::VALUE_TYPE_I64, std::vector<int64_t>{std::numeric_limits<int64_t>::min()});
    w.addArray("a.f64", ValueType::VALUE_TYPE_F64, std::vector<double>{1e-300, 2.5});
    w.addArray("a.empty", ValueType::VALUE_TYPE_F32, std::vector<float>{});
    w.addStringArray("a.string", {"", "one", "two words", std::string("\xff\xfe", 2)});
    w.addStringArray("a.string.empty", {});
    auto f = roundTrip(w);
    QVERIFY2(f.isOk(), f.message().c_str());
    const GgufFile &g = **f;

    auto arr = [&](const char *key, ValueType elem, uint64_t count) -> const Value & {
        const KeyValue *kv = g.find(key);
        [&] { QVERIFY2(kv, key); }();
        static const Value none;
        if (!kv)
            return none;
        [&] {
            QCOMPARE(kv->value.type, ValueType::VALUE_TYPE_ARRAY);
            QCOMPARE(kv->value.arrayType, elem);
            QCOMPARE(kv->value.arrayCount, count);
        }();
        return kv->value;
    };
    QCOMPARE(element<uint8_t>(arr("a.u8", ValueType::VALUE_TYPE_U8, 3), 2), uint8_t(255));
    QCOMPARE(element<int8_t>(arr("a.i8", ValueType::VALUE_TYPE_I8, 3), 0), int8_t(-128));
    QCOMPARE(element<uint16_t>(arr("a.u16", ValueType::VALUE_TYPE_U16, 2), 1), uint16_t(65535));
    QCOMPARE(element<int16_t>(arr("a.i16", ValueType::VALUE_TYPE_I16, 2), 0), int16_t(-32768));
    QCOMPARE(element<uint32_t>(arr("a.u32", ValueType::VALUE_TYPE_U32, 2), 1), 4294967295u);
    QCOMPARE(element<int32_t>(arr("a.i32", ValueType::VALUE_TYPE_I32, 3), 2), -3);
    QCOMPARE(element<float>(arr("a.f32", ValueType::VALUE_TYPE_F32, 3), 2), 3e30f);
    QCOMPARE(element<uint8_t>(arr("a.bool", ValueType::VALUE_TYPE_BOOL, 3), 1), uint8_t(0));
    QCOMPARE(element<uint64_t>(arr("a.u64", ValueType::VALUE_TYPE_U64, 1), 0), ~0ull);
    QCOMPARE(element<int64_t>(arr("a.i64", ValueType::VALUE_TYPE_I64, 1), 0), std::numeric_limits<int64_t>::min());
    QCOMPARE(element<double>(arr("a.f64", ValueType::VALUE_TYPE_F64, 2), 0), 1e-300);
    arr("a.empty", ValueType::VALUE_TYPE_F32, 0);
    const Value &strs = arr("a.string", ValueType::VALUE_TYPE_STRING, 4);
    QCOMPARE(strs.arrayStrings.size(), size_t(4));
    QCOMPARE(strs.arrayStrings[2], std::string_view("two words"));
    QCOMPARE(strs.arrayStrings[3], std::string_view("\xff\xfe", 2));
    arr("a.string.empty", ValueType::VALUE_TYPE_STRING, 0);

    std::vector<std::string> sv;
    QVERIFY(g.getStringArray("a.string", sv).isOk());
    QCOMPARE(sv, (std::vector<std::string>{"", "one", "two words", std::string("\xff\xfe", 2)}));
    std::vector<float> fv;
    QVERIFY(g.getF32Array("a.f32", fv).isOk());
    QCOMPARE(fv, (std::vector<float>{0.5f, -1.25f, 3e30f}));
    QVERIFY(g.getF32Array("a.f64", fv).isOk());
    QCOMPARE(fv[1], 2.5f);
    std::vector<int32_t> iv;
    QVERIFY(g.getI32Array("a.i32", iv).isOk());
    QCOMPARE(iv, (std::vector<int32_t>{-1, 2, -3}));
    QVERIFY(g.getI32Array("a.u8", iv).isOk());
    QCOMPARE(iv, (std::vector<int32_t>{0, 1, 255}));
    QVERIFY(g.getI32Array("a.i16", iv).isOk());
    QCOMPARE(iv, (std::vector<int32_t>{-32768, 32767}));
    // Elements that do not fit i32 are refused by name.
    const Status big = g.getI32Array("a.u32", iv);
    QVERIFY(!big.isOk());
    QVERIFY2(QString::fromStdString(big.message()).contains(QStringLiteral("element 1 does not fit")), big.message().c_str());
}

void TestGgufWriter::tensors_data()
{
    QTest::addColumn<uint32_t>("version");
    QTest::addColumn<uint32_t>("alignment");
    QTest::newRow("v3 align 32") << 3u << 32u;
    QTest::newRow("v2 align 32") << 2u << 32u;
    QTest::newRow("v3 align 1") << 3u << 1u;
    QTest::newRow("v3 align 64") << 3u << 64u;
    QTest::newRow("v3 align 4096") << 3u << 4096u;
}

void TestGgufWriter::tensors()
{
    QFETCH(uint32_t, version);
    QFETCH(uint32_t, alignment);
    struct Spec {
        const char *name;
        GgmlType type;
        std::vector<int64_t> dims;
    };
    const Spec specs[] = {
        {"norm", GgmlType::GGML_TYPE_F32, {7}},
        {"embd", GgmlType::GGML_TYPE_F16, {6, 5}},
        {"q4", GgmlType::GGML_TYPE_Q4_0, {64, 3, 2}},
        {"q4k", GgmlType::GGML_TYPE_Q4_K, {256, 2}},
        {"q8", GgmlType::GGML_TYPE_Q8_0, {32, 1, 1, 3}},
        {"bf16", GgmlType::GGML_TYPE_BF16, {3, 1, 2, 2}},
        {"iq4xs", GgmlType::GGML_TYPE_IQ4_XS, {512}},
    };
    GgufWriter w(version);
    if (alignment != GGUF_DEFAULT_ALIGNMENT)
        w.setAlignment(alignment);
    w.addString("general.architecture", "test");
    std::vector<std::vector<uint8_t>> datas;
    uint8_t seed = 1;
    for (const Spec &s : specs) {
        size_t row = 0;
        QVERIFY(ggmlRowBytes(s.type, s.dims[0], &row));
        size_t rows = 1;
        for (size_t k = 1; k < s.dims.size(); ++k)
            rows *= size_t(s.dims[k]);
        std::vector<uint8_t> data(row * rows);
        for (uint8_t &b : data)
            b = seed += 37;
        datas.push_back(data);
        QVERIFY(w.addTensor(s.name, s.type, s.dims, data));
    }
    // Invalid geometry is refused by the typed adder.
    QVERIFY(!w.addTensor("bad", GgmlType::GGML_TYPE_Q4_0, {33}));
    QVERIFY(!w.addTensor("bad", GgmlType::GGML_TYPE_F32, {0}));
    QVERIFY(!w.addTensor("bad", GgmlType::GGML_TYPE_F32, {1, 1, 1, 1, 1}));
    QVERIFY(!w.addTensor("bad", GgmlType::GGML_TYPE_F32, {4}, std::vector<uint8_t>(3)));

    GgufLayout layout;
    const std::vector<uint8_t> bytes = w.bytes(&layout);
    QCOMPARE(layout.fileSize, uint64_t(bytes.size()));
    QCOMPARE(layout.dataOffset % alignment, uint64_t(0));
    auto f = GgufFile::parse(MappedFile::fromBytes(bytes, "tensors.gguf"));
    QVERIFY2(f.isOk(), f.message().c_str());
    const GgufFile &g = **f;
    QCOMPARE(g.version(), version);
    QCOMPARE(g.alignment(), alignment);
    QCOMPARE(g.dataOffset(), layout.dataOffset);
    QCOMPARE(g.tensors().size(), std::size(specs));
    for (size_t k = 0; k < std::size(specs); ++k) {
        const Spec &s = specs[k];
        const TensorInfo *t = g.tensor(s.name);
        QVERIFY2(t, s.name);
        QCOMPARE(t, &g.tensors()[k]);
        QCOMPARE(t->type, s.type);
        QCOMPARE(t->nDims, uint32_t(s.dims.size()));
        int64_t elements = 1;
        for (size_t d = 0; d < GGUF_MAX_DIMS; ++d) {
            const int64_t expect = d < s.dims.size() ? s.dims[d] : 1;
            QCOMPARE(t->ne[d], expect);
            elements *= expect;
        }
        QCOMPARE(t->nElements, elements);
        QCOMPARE(t->nBytes, uint64_t(datas[k].size()));
        QCOMPARE(uint64_t(t->data - g.fileData()), layout.tensorDataOffsets[k]);
        QCOMPARE(uint64_t(t->data - g.fileData()) % alignment, uint64_t(0));
        QVERIFY(std::memcmp(t->data, datas[k].data(), datas[k].size()) == 0);
    }
    QVERIFY(g.tensor("absent") == nullptr);
}

void TestGgufWriter::writeFileAndOpen()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("w.gguf")).toStdString();
    GgufWriter w;
    w.addString("general.architecture", "llama");
    w.addTensor("t", GgmlType::GGML_TYPE_F32, {4, 4});
    QVERIFY(w.writeFile(path).isOk());
    auto f = GgufFile::open(path);
    QVERIFY2(f.isOk(), f.message().c_str());
    QCOMPARE((*f)->path(), path);
    QCOMPARE((*f)->fileSize(), uint64_t(w.bytes().size()));
    // The mapped data is page-aligned, so tensor data is aligned in memory too.
    QCOMPARE(reinterpret_cast<uintptr_t>((*f)->tensors()[0].data) % GGUF_DEFAULT_ALIGNMENT, uintptr_t(0));

    const Status bad = w.writeFile(dir.filePath(QStringLiteral("missing/w.gguf")).toStdString());
    QVERIFY(!bad.isOk());
    QVERIFY(QString::fromStdString(bad.message()).contains(QStringLiteral("cannot create")));
}

void TestGgufWriter::getters()
{
    GgufWriter w;
    w.addU8("small", 7);
    w.addI32("positive", 123);
    w.addU64("u64.fits", 4000000000ull);
    w.addI64("i64", -5);
    w.addF64("f64", 0.25);
    w.addBool("flag", true);
    w.addString("text", "hello");
    auto f = roundTrip(w);
    QVERIFY(f.isOk());
    const GgufFile &g = **f;
    uint32_t u = 0;
    QVERIFY(g.getU32("small", u).isOk());
    QCOMPARE(u, 7u);
    QVERIFY(g.getU32("positive", u).isOk());
    QCOMPARE(u, 123u);
    QVERIFY(g.getU32("u64.fits", u).isOk());
    QCOMPARE(u, 4000000000u);
    int64_t i = 0;
    QVERIFY(g.getI64("i64", i).isOk());
    QCOMPARE(i, int64_t(-5));
    QVERIFY(g.getI64("small", i).isOk());
    QCOMPARE(i, int64_t(7));
    uint64_t u64 = 0;
    QVERIFY(g.getU64("u64.fits", u64).isOk());
    QCOMPARE(u64, uint64_t(4000000000ull));
    float fl = 0;
    QVERIFY(g.getF32("f64", fl).isOk());
    QCOMPARE(fl, 0.25f);
    bool b = false;
    QVERIFY(g.getBool("flag", b).isOk());
    QVERIFY(b);
    // Optional getters leave the value alone when the key is absent.
    uint32_t keep = 99;
    QVERIFY(g.getOptionalU32("absent", keep).isOk());
    QCOMPARE(keep, 99u);
    std::string s = "default";
    QVERIFY(g.getOptionalString("absent", s).isOk());
    QCOMPARE(s, std::string("default"));
    float fkeep = 2.0f;
    QVERIFY(g.getOptionalF32("absent", fkeep).isOk());
    QCOMPARE(fkeep, 2.0f);
    bool bkeep = true;
    QVERIFY(g.getOptionalBool("absent", bkeep).isOk());
    QVERIFY(bkeep);
    QVERIFY(g.getOptionalString("text", s).isOk());
    QCOMPARE(s, std::string("hello"));
}

void TestGgufWriter::getterErrors()
{
    GgufWriter w;
    w.addI64("negative", -1);
    w.addU64("huge", ~0ull);
    w.addString("text", "hello");
    w.addF32("float", 1.0f);
    auto f = roundTrip(w, "errs.gguf");
    QVERIFY(f.isOk());
    const GgufFile &g = **f;
    uint32_t u = 0;
    int64_t i = 0;
    float fl = 0;
    bool b = false;
    std::string s;
    std::vector<float> fv;
    auto message = [](const Status &st) { return QString::fromStdString(st.message()); };
    QCOMPARE(message(g.getU32("absent", u)), QStringLiteral("errs.gguf: metadata: missing metadata key 'absent'"));
    QVERIFY(message(g.getU32("negative", u)).contains(QStringLiteral("value does not fit, expected 0..4294967295")));
    QVERIFY(message(g.getU32("huge", u)).contains(QStringLiteral("does not fit")));
    QVERIFY(message(g.getI64("huge", i)).contains(QStringLiteral("does not fit")));
    QCOMPARE(message(g.getU32("text", u)),
             QStringLiteral("errs.gguf: metadata: key 'text' at offset 76: declared type is string, expected u32"));
    QVERIFY(message(g.getString("float", s)).contains(QStringLiteral("declared type is f32, expected string")));
    QVERIFY(message(g.getF32("text", fl)).contains(QStringLiteral("expected f32")));
    QVERIFY(message(g.getBool("float", b)).contains(QStringLiteral("expected bool")));
    QVERIFY(message(g.getF32Array("float", fv)).contains(QStringLiteral("expected array of f32")));
    QVERIFY(message(g.getOptionalU32("text", u)).contains(QStringLiteral("expected u32")));
}

void TestGgufWriter::emptyFile()
{
    // No metadata and no tensors: still a valid (if useless) GGUF file.
    GgufWriter w;
    auto f = roundTrip(w);
    QVERIFY2(f.isOk(), f.message().c_str());
    QVERIFY((*f)->metadata().empty());
    QVERIFY((*f)->tensors().empty());
    QCOMPARE((*f)->fileSize(), uint64_t(32)); // 24-byte header padded to the alignment
}

QTEST_MAIN(TestGgufWriter)
#include "tst_gguf_writer.moc"
