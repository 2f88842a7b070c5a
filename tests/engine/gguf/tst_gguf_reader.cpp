// The GGUF reader against every .gguf in ../shared (checked against facts
// stated in ../shared/README.md and the issue), a table of corrupt and wrong
// files made here, and mutation/truncation sweeps that must never crash
// (this suite also runs under ASan + UBSan).
#include "gguf/gguf_reader.h"
#include "gguf/gguf_writer.h"
#include "test_support.h"

#include <QDirIterator>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <set>

using namespace burrow;
using namespace burrow::gguf;

namespace {

std::vector<uint8_t> toVector(const QByteArray &b) { return {b.begin(), b.end()}; }
QByteArray toBytes(const std::vector<uint8_t> &v)
{
    return QByteArray(reinterpret_cast<const char *>(v.data()), static_cast<qsizetype>(v.size()));
}

void putU32(std::vector<uint8_t> &b, uint64_t off, uint32_t v) { std::memcpy(b.data() + off, &v, 4); }
void putU64(std::vector<uint8_t> &b, uint64_t off, uint64_t v) { std::memcpy(b.data() + off, &v, 8); }

std::vector<uint8_t> u32Bytes(uint32_t v)
{
    std::vector<uint8_t> out;
    GgufWriter::appendU32(out, v);
    return out;
}

std::vector<std::string> someTokens(int n)
{
    std::vector<std::string> out;
    for (int k = 0; k < n; ++k)
        out.push_back("tok" + std::to_string(k));
    return out;
}

// A small valid file: 4 keys (the last a 40-string array), 2 tensors.
GgufWriter baseWriter()
{
    GgufWriter w;
    w.addString("general.architecture", "llama");
    w.addU32("llama.block_count", 1);
    w.addF32("llama.rope.freq_base", 10000.0f);
    w.addStringArray("tokenizer.ggml.tokens", someTokens(40));
    w.addTensor("token_embd.weight", GgmlType::GGML_TYPE_F32, {4, 3});
    w.addTensor("output.weight", GgmlType::GGML_TYPE_Q8_0, {32, 2});
    return w;
}

// Offsets inside tensor info k of a baseWriter()-like file.
struct InfoFields {
    uint64_t nDims, dims, type, offset;
};
InfoFields infoFields(const GgufLayout &l, size_t k, size_t nameLen, uint32_t nDims)
{
    InfoFields f;
    f.nDims = l.tensorInfoOffsets[k] + 8 + nameLen;
    f.dims = f.nDims + 4;
    f.type = f.dims + 8ull * nDims;
    f.offset = f.type + 4;
    return f;
}

QByteArray cut(const std::vector<uint8_t> &b, uint64_t n) { return toBytes(b).left(static_cast<qsizetype>(n)); }

Result<std::unique_ptr<GgufFile>> parseBytes(const QByteArray &bytes, const std::string &name = "mem.gguf")
{
    return GgufFile::parse(MappedFile::fromBytes(toVector(bytes), name));
}

} // namespace

class TestGgufReader : public QObject {
    Q_OBJECT

private slots:
    void sharedFiles_data();
    void sharedFiles();
    void corruptFiles_data();
    void corruptFiles();
    void validBaseFile();
    void everyPrefixIsRefused();
    void mutationsNeverCrash();
    void sharedPrefixesNeverCrash();
    void keptCrashInputs();
    void sniffer();
};

// ---------------------------------------------------------------- ../shared

void TestGgufReader::sharedFiles_data()
{
    QTest::addColumn<QString>("relative");
    if (!test::sharedAvailable()) {
        QTest::newRow("no-shared") << QString();
        return;
    }
    QDirIterator it(test::sharedPath(QString()), {QStringLiteral("*.gguf")}, QDir::Files, QDirIterator::Subdirectories);
    QStringList files;
    while (it.hasNext())
        files << QDir(test::sharedPath(QString())).relativeFilePath(it.next());
    files.sort();
    QVERIFY2(files.size() >= 30, "../shared should hold the models and vocabularies listed in its README");
    for (const QString &f : files)
        QTest::newRow(qPrintable(f)) << f;
}

void TestGgufReader::sharedFiles()
{
    QFETCH(QString, relative);
    if (relative.isEmpty())
        QSKIP("../shared is absent; skipping");
    const QString path = test::sharedPath(relative);
    auto opened = GgufFile::open(path.toStdString());
    QVERIFY2(opened.isOk(), opened.message().c_str());
    const GgufFile &f = **opened;

    // Cross-check the counts in the header with an independent read.
    QFile raw(path);
    QVERIFY(raw.open(QIODevice::ReadOnly));
    const QByteArray head = raw.read(24);
    QCOMPARE(head.size(), qsizetype(24));
    QCOMPARE(head.left(4), QByteArray("GGUF"));
    char header[24] = {};
    std::memcpy(header, head.constData(), std::min<size_t>(sizeof header, size_t(head.size())));
    int64_t nTensors = 0, nKv = 0;
    uint32_t version = 0;
    std::memcpy(&version, header + 4, 4);
    std::memcpy(&nTensors, header + 8, 8);
    std::memcpy(&nKv, header + 16, 8);
    QCOMPARE(f.version(), version);
    QCOMPARE(int64_t(f.tensors().size()), nTensors);
    QCOMPARE(int64_t(f.metadata().size()), nKv);
    QCOMPARE(f.fileSize(), uint64_t(raw.size()));

    // Every tensor lies inside the file, aligned, and is found by name.
    for (const TensorInfo &t : f.tensors()) {
        QVERIFY(t.data >= f.fileData() + f.dataOffset());
        QVERIFY(t.data + t.nBytes <= f.fileData() + f.fileSize());
        QCOMPARE(uint64_t(t.data - f.fileData()) % f.alignment(), uint64_t(0));
        QCOMPARE(f.tensor(t.name), &t);
    }

    std::string arch;
    QVERIFY(f.getString("general.architecture", arch).isOk());
    std::vector<std::string> tokens;
    QVERIFY(f.getStringArray("tokenizer.ggml.tokens", tokens).isOk());
    std::string vocabModel;
    QVERIFY(f.getString("tokenizer.ggml.model", vocabModel).isOk());

    auto u32 = [&](const std::string &key) {
        uint32_t v = 0;
        const Status s = f.getU32(key, v);
        if (!s)
            qWarning("%s", s.message().c_str());
        return v;
    };
    auto countType = [&](GgmlType type) {
        int n = 0;
        for (const TensorInfo &t : f.tensors())
            n += t.type == type;
        return n;
    };

    const QString file = QFileInfo(relative).fileName();
    if (relative == QLatin1String("models/stories260K.gguf")) {
        // Facts from the issue: llama, 5 layers, embedding 64, 8 heads, 4 KV heads, 48 F32 tensors, 512 tokens.
        QCOMPARE(arch, std::string("llama"));
        QCOMPARE(u32("llama.block_count"), 5u);
        QCOMPARE(u32("llama.embedding_length"), 64u);
        QCOMPARE(u32("llama.attention.head_count"), 8u);
        QCOMPARE(u32("llama.attention.head_count_kv"), 4u);
        QCOMPARE(int(f.tensors().size()), 48);
        QCOMPARE(countType(GgmlType::GGML_TYPE_F32), 48);
        QCOMPARE(tokens.size(), size_t(512));
        QCOMPARE(vocabModel, std::string("llama"));
        const TensorInfo *embd = f.tensor("token_embd.weight");
        QVERIFY(embd);
        QCOMPARE(embd->ne[0], int64_t(64));
        QCOMPARE(embd->ne[1], int64_t(512));
    } else if (relative == QLatin1String("models/bench/llama-155M-Q4_K_M.gguf")) {
        // README: 1024 embedding, 8 layers, 16 heads, 4 KV heads, 32000-token vocabulary.
        QCOMPARE(arch, std::string("llama"));
        QCOMPARE(u32("llama.embedding_length"), 1024u);
        QCOMPARE(u32("llama.block_count"), 8u);
        QCOMPARE(u32("llama.attention.head_count"), 16u);
        QCOMPARE(u32("llama.attention.head_count_kv"), 4u);
        QCOMPARE(tokens.size(), size_t(32000));
        QVERIFY(countType(GgmlType::GGML_TYPE_Q4_K) > 0);
    } else if (relative.startsWith(QLatin1String("models/synthetic/"))) {
        // <arch>-<type>.gguf; 512-token vocabulary except phi3 (32064); gemma2 has 26 layers.
        const QString base = file.chopped(5);
        const QString archName = base.section(QLatin1Char('-'), 0, 0);
        const QString typeName = base.section(QLatin1Char('-'), 1).toUpper();
        QCOMPARE(QString::fromStdString(arch), archName);
        QCOMPARE(tokens.size(), size_t(archName == QLatin1String("phi3") ? 32064 : 512));
        if (archName == QLatin1String("gemma2"))
            QCOMPARE(u32("gemma2.block_count"), 26u);
        // The file's weight type appears among its tensors (K mixes: the base type).
        QString tensorType = typeName;
        if (tensorType.endsWith(QLatin1String("_M")) && tensorType.contains(QLatin1String("_K")))
            tensorType.chop(2);
        bool found = false;
        for (const TensorInfo &t : f.tensors())
            found |= QString::fromStdString(ggmlTypeName(t.type)) == tensorType;
        QVERIFY2(found, qPrintable(QStringLiteral("no %1 tensor in %2").arg(tensorType, file)));
    } else if (relative.startsWith(QLatin1String("tokenizer/"))) {
        // Vocabulary-only files: SentencePiece for llama-spm and phi-3, byte-level BPE otherwise;
        // every id in the test vectors is inside the vocabulary.
        QVERIFY(f.tensors().empty());
        const bool spm = file.contains(QLatin1String("llama-spm")) || file.contains(QLatin1String("phi-3"));
        QCOMPARE(vocabModel, std::string(spm ? "llama" : "gpt2"));
        QFile out(path + QStringLiteral(".out"));
        QVERIFY(out.open(QIODevice::ReadOnly));
        int maxId = -1;
        for (const QByteArray &line : out.readAll().split('\n'))
            for (const QByteArray &id : line.split(' '))
                if (!id.trimmed().isEmpty())
                    maxId = std::max(maxId, id.trimmed().toInt());
        QVERIFY(maxId >= 0);
        QVERIFY(size_t(maxId) < tokens.size());
    }
}

// ---------------------------------------------------------------- corrupt files

void TestGgufReader::corruptFiles_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<bool>("directory");
    QTest::addColumn<QString>("section");   // "" for failures before parsing (empty file, directory)
    QTest::addColumn<QString>("expected");  // substring of the message

    GgufLayout l;
    const std::vector<uint8_t> base = baseWriter().bytes(&l);
    const InfoFields t0 = infoFields(l, 0, std::strlen("token_embd.weight"), 2);
    const InfoFields t1 = infoFields(l, 1, std::strlen("output.weight"), 2);
    auto patched = [&](auto fn) {
        std::vector<uint8_t> b = base;
        fn(b);
        return toBytes(b);
    };
    auto row = [](const char *name, const QByteArray &bytes, const char *section, const char *expected) {
        QTest::newRow(name) << bytes << false << QString::fromLatin1(section) << QString::fromUtf8(expected);
    };

    // Truncated inside every section.
    row("truncated: magic", QByteArray("GGU"), "header", "the file is truncated");
    row("truncated: version", cut(base, 6), "header", "the file is truncated");
    row("truncated: counts", cut(base, 20), "header", "the file is truncated");
    row("truncated: metadata key", cut(base, l.kvOffsets[3] + 4), "metadata", "the file is truncated");
    row("truncated: metadata key bytes", cut(base, l.kvOffsets[3] + 12), "metadata", "the file is truncated");
    row("truncated: metadata value type", cut(base, l.kvValueOffsets[3] - 2), "metadata", "the file is truncated");
    row("truncated: metadata array", cut(base, l.kvValueOffsets[3] + 30), "metadata", "the file is truncated");
    row("truncated: metadata array strings", cut(base, l.kvValueOffsets[3] + 12 + 40 * 8 - 4), "metadata",
        "the file is truncated");
    row("truncated: tensor name", cut(base, l.tensorInfoOffsets[1] + 20), "tensor infos", "the file is truncated");
    row("truncated: tensor dims", cut(base, t1.dims + 3), "tensor infos", "the file is truncated");
    row("truncated: tensor offset", cut(base, l.tensorInfosEnd - 3), "tensor infos", "the file is truncated");
    row("truncated: before the data", cut(base, l.tensorInfosEnd), "tensor data", "past the end of the file");
    row("truncated: tensor data", cut(base, l.fileSize - 50), "tensor data", "runs past the end of the file");

    // Header.
    row("bad magic", patched([](auto &b) { std::memcpy(b.data(), "GGUX", 4); }), "header", "expected \"GGUF\"");
    row("text file", QByteArray("hello, this is not a model\n"), "header", "expected \"GGUF\"");
    row("version 1", patched([](auto &b) { putU32(b, 4, 1); }), "header",
        "GGUF version 1 is not supported (it predates");
    row("version 4", patched([](auto &b) { putU32(b, 4, 4); }), "header", "GGUF version 4 is not supported");
    row("version 0", patched([](auto &b) { putU32(b, 4, 0); }), "header", "expected version 2 or 3");
    row("big-endian", patched([](auto &b) { putU32(b, 4, 0x03000000u); }), "header", "big-endian");
    row("huge tensor count", patched([](auto &b) { putU64(b, 8, uint64_t(1) << 60); }), "header",
        "tensor count 1152921504606846976 cannot fit");
    row("negative tensor count", patched([](auto &b) { putU64(b, 8, uint64_t(-1)); }), "header",
        "tensor count -1 cannot fit");
    row("huge metadata count", patched([](auto &b) { putU64(b, 16, uint64_t(1) << 62); }), "header",
        "metadata count 4611686018427387904 cannot fit");
    row("too many tensors for the file", patched([](auto &b) { putU64(b, 8, 20); }), "tensor infos",
        "the file is truncated");

    // Metadata.
    row("huge key length", patched([&](auto &b) { putU64(b, l.kvOffsets[0], uint64_t(1) << 40); }), "metadata",
        "key has length 1099511627776, expected at most 65535");
    row("huge string length", patched([&](auto &b) { putU64(b, l.kvValueOffsets[0], uint64_t(1) << 62); }),
        "metadata", "string value has length 4611686018427387904, expected at most 1073741824");
    row("string past the end", patched([&](auto &b) { putU64(b, l.kvValueOffsets[0], 1u << 20); }), "metadata",
        "the file is truncated: string value has length 1048576");
    row("huge array count", patched([&](auto &b) { putU64(b, l.kvValueOffsets[3] + 4, uint64_t(1) << 40); }),
        "metadata", "array has 1099511627776 elements, expected at most 1073741824");
    row("array past the end", patched([&](auto &b) { putU64(b, l.kvValueOffsets[3] + 4, 1u << 20); }), "metadata",
        "the file is truncated: array of 1048576 string elements");
    row("nested array", patched([&](auto &b) { putU32(b, l.kvValueOffsets[3], 9); }), "metadata",
        "nested arrays are not supported");
    row("unknown array element type", patched([&](auto &b) { putU32(b, l.kvValueOffsets[3], 77); }), "metadata",
        "unknown array element type 77");
    row("unknown value type", patched([&](auto &b) { putU32(b, l.kvValueOffsets[1] - 4, 13); }), "metadata",
        "unknown value type 13, expected 0..12");
    {
        GgufWriter w = baseWriter();
        w.addString("llama.block_count", "again");
        row("duplicate key", toBytes(w.bytes()), "metadata", "key 'llama.block_count' at offset");
        QTest::newRow("duplicate key (message)") << toBytes(w.bytes()) << false << QStringLiteral("metadata")
                                                 << QStringLiteral("duplicate key (first defined at offset 69)");
    }
    {
        GgufWriter w = baseWriter();
        w.addRaw("", 4, u32Bytes(1));
        row("empty key", toBytes(w.bytes()), "metadata", "the key is empty");
    }
    {
        GgufWriter w = baseWriter();
        w.addRaw("tokenizer.ggml.add_bos_token", 7, {2});
        row("bool value 2", toBytes(w.bytes()), "metadata", "bool value is 2, expected 0 or 1");
    }
    {
        GgufWriter w = baseWriter();
        w.addI32("general.alignment", 32);
        row("alignment not u32", toBytes(w.bytes()), "metadata",
            "key 'general.alignment' at offset 693: declared type is i32, expected u32");
    }
    {
        GgufWriter w = baseWriter();
        w.addU32("general.alignment", 48);
        row("alignment not a power of two", toBytes(w.bytes()), "metadata", "alignment is 48, expected a power of two");
    }
    {
        GgufWriter w = baseWriter();
        w.addU32("general.alignment", 0);
        row("alignment zero", toBytes(w.bytes()), "metadata", "alignment is 0, expected a power of two");
    }
    {
        GgufWriter w;
        w.addU32("general.architecture", 7);
        row("architecture not a string", toBytes(w.bytes()), "metadata",
            "key 'general.architecture' at offset 24: declared type is u32, expected string");
    }
    {
        GgufWriter w;
        w.addString("general.architecture", "llama");
        w.addString("llama.context_length", "2048");
        row("arch key of the wrong type", toBytes(w.bytes()), "metadata",
            "key 'llama.context_length' at offset 69: declared type is string, expected an integer");
    }
    {
        GgufWriter w;
        w.addArray("tokenizer.ggml.tokens", ValueType::VALUE_TYPE_I32, std::vector<int32_t>{1, 2, 3});
        row("tokens not strings", toBytes(w.bytes()), "metadata",
            "declared type is array of i32, expected array of string");
    }
    {
        GgufWriter w;
        w.addStringArray("tokenizer.ggml.tokens", someTokens(3));
        w.addArray("tokenizer.ggml.scores", ValueType::VALUE_TYPE_F32, std::vector<float>{0.f, 1.f});
        row("scores shorter than tokens", toBytes(w.bytes()), "metadata",
            "has 2 elements, expected 3 (one per entry of tokenizer.ggml.tokens)");
    }

    // Tensor infos.
    row("n_dims 0", patched([&](auto &b) { putU32(b, t0.nDims, 0); }), "tensor infos",
        "tensor 'token_embd.weight' at offset 718: n_dims is 0, expected 1..4");
    row("n_dims 5", patched([&](auto &b) { putU32(b, t0.nDims, 5); }), "tensor infos", "n_dims is 5, expected 1..4");
    row("zero dimension", patched([&](auto &b) { putU64(b, t0.dims + 8, 0); }), "tensor infos",
        "dimension 1 is 0, expected >= 1");
    row("negative dimension", patched([&](auto &b) { putU64(b, t0.dims, uint64_t(-5)); }), "tensor infos",
        "dimension 0 is -5, expected >= 1");
    row("element count overflow",
        patched([&](auto &b) { putU64(b, t0.dims, uint64_t(1) << 32); putU64(b, t0.dims + 8, uint64_t(1) << 32); }),
        "tensor infos", "the element count overflows at dimension 1");
    row("data size overflow", patched([&](auto &b) { putU64(b, t0.dims, uint64_t(1) << 62); putU64(b, t0.dims + 8, 1); }),
        "tensor infos", "the data size overflows");
    row("unknown tensor type", patched([&](auto &b) { putU32(b, t0.type, 200); }), "tensor infos",
        "unknown tensor type 200");
    row("removed tensor type", patched([&](auto &b) { putU32(b, t0.type, 31); }), "tensor infos",
        "unknown tensor type 31");
    row("row not a multiple of the block", patched([&](auto &b) { putU64(b, t1.dims, 48); }), "tensor infos",
        "row length ne[0] = 48 is not a multiple of Q8_0's block size, expected a multiple of 32");
    row("misaligned offset", patched([&](auto &b) { putU64(b, t1.offset, 64 + 4); }), "tensor infos",
        "data offset 68 is misaligned, expected a multiple of 32");
    row("overlapping tensors", patched([&](auto &b) { putU64(b, t1.offset, 32); }), "tensor data",
        "overlap tensor 'token_embd.weight'");
    row("data past the end", patched([&](auto &b) { putU64(b, t1.offset, 1024); }), "tensor data",
        "runs past the end of the file");
    row("offset overflow", patched([&](auto &b) { putU64(b, t1.offset, uint64_t(-32)); }), "tensor data",
        "runs past the end of the file");
    {
        GgufWriter w;
        w.addTensor("a", GgmlType::GGML_TYPE_F32, {8});
        w.addTensor("a", GgmlType::GGML_TYPE_F32, {8});
        row("duplicate tensor name", toBytes(w.bytes()), "tensor infos",
            "tensor 'a' at offset 57: duplicate tensor name (first defined at offset 24)");
    }
    {
        GgufWriter w;
        w.addTensor(std::string(64, 'x'), GgmlType::GGML_TYPE_F32, {8});
        row("tensor name too long", toBytes(w.bytes()), "tensor infos", "the name is 64 bytes long, expected at most 63");
    }
    {
        GgufWriter w;
        w.addTensorRaw({"", 0, {8}, std::vector<uint8_t>(32), std::nullopt});
        row("empty tensor name", toBytes(w.bytes()), "tensor infos", "the tensor name is empty");
    }

    // Wrong kinds of files.
    QByteArray zip("PK\x03\x04\x14\x00\x00\x00\x08\x00", 10);
    zip += QByteArray(16, '\0') + "notes.txt" + QByteArray(64, 'z');
    row("zip archive", zip, "header", "this is a zip archive, expected a GGUF model file");
    QByteArray torch("PK\x03\x04\x00\x00\x00\x00\x00\x00", 10);
    torch += QByteArray(16, '\0') + "archive/data.pkl" + QByteArray("\x80\x02}q\x00.", 6);
    row("pytorch zip", torch, "header", "this is a PyTorch checkpoint");
    row("pytorch pickle", QByteArray("\x80\x02\x8a\x0a" "l\xfc\x9c" "F\xf9 j\xa8P\x19.", 16), "header",
        "this is a PyTorch checkpoint (a Python pickle)");
    QByteArray tar(1024, '\0');
    tar.replace(0, 9, "model.bin");
    tar.replace(257, 6, QByteArray("ustar\0", 6));
    row("tar archive", tar, "header", "this is a tar archive");
    row("gzip", QByteArray("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10) + QByteArray(40, 'x'), "header",
        "this is a gzip-compressed file");
    row("xz", QByteArray("\xfd" "7zXZ\x00\x00\x04", 8) + QByteArray(40, 'x'), "header", "this is an xz-compressed file");
    row("zstd", QByteArray("\x28\xb5\x2f\xfd\x04\x00", 6) + QByteArray(40, 'x'), "header",
        "this is a zstd-compressed file");
    {
        const QByteArray header = "{\"__metadata__\":{\"format\":\"pt\"}}";
        QByteArray st(8, '\0');
        const uint64_t n = uint64_t(header.size());
        std::memcpy(st.data(), &n, 8);
        st += header + QByteArray(16, '\0');
        row("safetensors", st, "header", "this is a safetensors file");
    }
    QTest::newRow("empty file") << QByteArray() << false << QString() << QStringLiteral("the file is empty");
    QTest::newRow("directory") << QByteArray() << true << QString() << QStringLiteral("is a directory");
}

void TestGgufReader::corruptFiles()
{
    QFETCH(QByteArray, bytes);
    QFETCH(bool, directory);
    QFETCH(QString, section);
    QFETCH(QString, expected);

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString path = dir.filePath(QStringLiteral("model.gguf"));
    if (directory) {
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("model.gguf")));
    } else {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        QCOMPARE(f.write(bytes), bytes.size());
    }
    auto opened = GgufFile::open(path.toStdString());
    QVERIFY2(!opened.isOk(), "the reader accepted a corrupt file");
    const QString message = QString::fromStdString(opened.message());
    QVERIFY2(message.contains(expected), qPrintable(QStringLiteral("message: ") + message));
    QVERIFY2(message.startsWith(path), qPrintable(QStringLiteral("message does not name the file: ") + message));
    if (!section.isEmpty()) {
        QVERIFY2(message.contains(QStringLiteral(": ") + section + QStringLiteral(": ")),
                 qPrintable(QStringLiteral("message does not name the section: ") + message));
        QVERIFY2(message.contains(QStringLiteral("at offset ")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("expected")), qPrintable(message));
    }
    // The same bytes through parse() (the fuzzer's path) give the same verdict.
    if (!directory && !bytes.isEmpty()) {
        auto parsed = parseBytes(bytes, path.toStdString());
        QVERIFY(!parsed.isOk());
        QCOMPARE(QString::fromStdString(parsed.message()), message);
    }
}

void TestGgufReader::validBaseFile()
{
    GgufLayout l;
    const std::vector<uint8_t> base = baseWriter().bytes(&l);
    auto parsed = parseBytes(toBytes(base));
    QVERIFY2(parsed.isOk(), parsed.message().c_str());
    QCOMPARE(int(parsed.value()->tensors().size()), 2);
    QCOMPARE(parsed.value()->dataOffset(), l.dataOffset);
    // Offsets the corrupt table relies on.
    QCOMPARE(l.kvOffsets[1], uint64_t(69)); // 24 + (8 + 20) + 4 + (8 + 5)
    QCOMPARE(l.tensorInfoOffsets[0], uint64_t(693)); // + 33 + 36 + (33 + 12 + 10 * 12 + 30 * 13)
}

// Every strict prefix of a valid file is refused, never read past.
void TestGgufReader::everyPrefixIsRefused()
{
    const std::vector<uint8_t> base = baseWriter().bytes();
    for (size_t n = 0; n < base.size(); ++n) {
        auto parsed = GgufFile::parse(MappedFile::fromBytes({base.begin(), base.begin() + long(n)}, "prefix.gguf"));
        // Trailing padding after the last tensor's data is not required.
        if (parsed.isOk()) {
            QVERIFY2(n >= base.size() - 28, qPrintable(QStringLiteral("prefix of %1 bytes accepted").arg(n)));
            continue;
        }
        QVERIFY(parsed.message().rfind("prefix.gguf: ", 0) == 0);
    }
}

// Random byte patches and count/length fields set to extremes: the reader
// either refuses or returns a consistent file, and never reads out of bounds.
void TestGgufReader::mutationsNeverCrash()
{
    GgufLayout l;
    const std::vector<uint8_t> base = baseWriter().bytes(&l);
    QRandomGenerator rng(1234);
    const uint64_t extremes[] = {0, 1, 0x7f, 0xff, 0xffff, 0xffffffffull, 0x7fffffffffffffffull, ~0ull, 1ull << 31,
                                 1ull << 32, 1ull << 63, 31, 32, 33};
    int accepted = 0;
    for (int round = 0; round < 3000; ++round) {
        std::vector<uint8_t> b = base;
        const int edits = 1 + int(rng.bounded(4));
        for (int e = 0; e < edits; ++e) {
            const size_t at = rng.bounded(quint32(b.size()));
            switch (rng.bounded(3)) {
            case 0: b[at] = uint8_t(rng.bounded(256)); break;
            case 1:
                if (at + 8 <= b.size())
                    putU64(b, at, extremes[rng.bounded(quint32(std::size(extremes)))]);
                break;
            default:
                if (at + 4 <= b.size())
                    putU32(b, at, uint32_t(extremes[rng.bounded(quint32(std::size(extremes)))]));
            }
        }
        auto parsed = GgufFile::parse(MappedFile::fromBytes(b, "mutant.gguf"));
        if (parsed.isOk()) {
            ++accepted;
            const GgufFile &f = **parsed;
            for (const TensorInfo &t : f.tensors())
                QVERIFY(t.data + t.nBytes <= f.fileData() + f.fileSize());
        } else {
            QVERIFY(!parsed.message().empty());
        }
    }
    qInfo("%d of 3000 mutants were still valid files", accepted);
}

// Prefixes of a real model's header (cut inside metadata and tensor infos).
void TestGgufReader::sharedPrefixesNeverCrash()
{
    BURROW_REQUIRE_SHARED(QStringLiteral("models/stories260K.gguf"));
    QFile f(test::sharedPath(QStringLiteral("models/stories260K.gguf")));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray all = f.readAll();
    auto full = parseBytes(all);
    QVERIFY(full.isOk());
    const uint64_t headerBytes = full.value()->dataOffset();
    int refused = 0;
    for (uint64_t n = 0; n < headerBytes; n += 7) {
        auto parsed = parseBytes(all.left(qsizetype(n)));
        QVERIFY(!parsed.isOk());
        ++refused;
    }
    QVERIFY(refused > 100);
}

// Inputs the fuzzer once crashed on (tests/engine/gguf/data/gguf-crashes/).
void TestGgufReader::keptCrashInputs()
{
    QDir dir(QStringLiteral(BURROW_SOURCE_DIR "/tests/engine/gguf/data/gguf-crashes"));
    QStringList files = dir.entryList(QDir::Files);
    files.removeAll(QStringLiteral("README.md"));
    if (files.isEmpty())
        QSKIP("no kept crash inputs");
    for (const QString &name : files) {
        QFile f(dir.filePath(name));
        QVERIFY(f.open(QIODevice::ReadOnly));
        auto parsed = parseBytes(f.readAll(), name.toStdString());
        // Kept inputs are corrupt files: refused with a message naming the file.
        QVERIFY2(!parsed.isOk(), qPrintable(name));
        QVERIFY(parsed.message().rfind(name.toStdString() + ": ", 0) == 0);
    }
}

void TestGgufReader::sniffer()
{
    const uint8_t gguf[] = {'G', 'G', 'U', 'F', 3, 0, 0, 0};
    QVERIFY(sniffNonGguf(gguf, sizeof gguf) == nullptr);
    QCOMPARE(QString::fromLatin1(sniffNonGguf(nullptr, 0)), QStringLiteral("an empty file"));
    const char lfs[] = "version https://git-lfs.github.com/spec/v1\noid sha256:abc\n";
    QVERIFY(QString::fromLatin1(sniffNonGguf(reinterpret_cast<const uint8_t *>(lfs), sizeof lfs - 1))
                .contains(QStringLiteral("Git LFS")));
    const char html[] = "<!DOCTYPE html><html>";
    QVERIFY(QString::fromLatin1(sniffNonGguf(reinterpret_cast<const uint8_t *>(html), sizeof html - 1))
                .contains(QStringLiteral("HTML")));
    const uint8_t random[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    QVERIFY(sniffNonGguf(random, sizeof random) == nullptr);
}

QTEST_MAIN(TestGgufReader)
#include "tst_gguf_reader.moc"
