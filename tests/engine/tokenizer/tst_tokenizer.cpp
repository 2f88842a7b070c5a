// Tokenizer exactness against the reference vectors in ../shared/tokenizer:
// every case of every vocabulary (tokenized without BOS and without special
// parsing, as the reference's test-tokenizer-0), decoding back to the text,
// special-token parsing, BOS/EOS, end-of-generation ids and token bytes.
// Expected values come from the vectors and from the files' own metadata.
#include "gguf/gguf_reader.h"
#include "gguf/gguf_writer.h"
#include "test_support.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/pretokenizer.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QTest>

#include <algorithm>
#include <map>
#include <memory>

using namespace burrow;
using namespace burrow::tokenizer;

namespace {

const char *const kSeparator = "\n__ggml_vocab_test__\n";

struct VectorFile {
    std::vector<std::string> texts;
    std::vector<std::vector<int32_t>> ids;
};

// The folders of ../shared holding vocabularies with vectors: the early set
// and the 2026 families (Qwen3, Gemma 3, gpt-oss, DeepSeek V3).
const char *const kVocabDirs[] = {"tokenizer", "tokenizer-2026"};

// The vocabularies in those folders, by name ("llama-bpe", "qwen3"); names
// are unique across the folders.
QStringList vocabNames()
{
    QStringList names;
    for (const char *folder : kVocabDirs) {
        const QDir dir(test::sharedPath(QString::fromLatin1(folder)));
        for (const QString &file : dir.entryList({QStringLiteral("ggml-vocab-*.gguf")}, QDir::Files, QDir::Name))
            names << file.mid(int(strlen("ggml-vocab-")), file.size() - int(strlen("ggml-vocab-")) - int(strlen(".gguf")));
    }
    return names;
}

// ../shared/<folder>/ggml-vocab-NAME.gguf, relative to ../shared, in the
// first folder that has it (the first folder when none has).
QString vocabRelative(const QString &name)
{
    for (const char *folder : kVocabDirs) {
        const QString relative = QStringLiteral("%1/ggml-vocab-%2.gguf").arg(QString::fromLatin1(folder), name);
        if (QFileInfo::exists(test::sharedPath(relative)))
            return relative;
    }
    return QStringLiteral("tokenizer/ggml-vocab-%1.gguf").arg(name);
}

QString vocabPath(const QString &name)
{
    return test::sharedPath(vocabRelative(name));
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

// .inp: texts separated by kSeparator (the last one followed by it too);
// .out: line k = ids of text k separated by spaces.
VectorFile readVectors(const QString &name)
{
    VectorFile v;
    const std::string inp = readAll(vocabPath(name) + QStringLiteral(".inp")).toStdString();
    const std::string sep = kSeparator;
    size_t pos = 0;
    while (true) {
        const size_t next = inp.find(sep, pos);
        if (next == std::string::npos)
            break;
        v.texts.push_back(inp.substr(pos, next - pos));
        pos = next + sep.size();
    }
    const QList<QByteArray> lines = readAll(vocabPath(name) + QStringLiteral(".out")).split('\n');
    for (int i = 0; i < int(v.texts.size()) && i < lines.size(); ++i) {
        std::vector<int32_t> ids;
        for (const QByteArray &field : lines[i].split(' '))
            if (!field.isEmpty())
                ids.push_back(field.toInt());
        v.ids.push_back(std::move(ids));
    }
    return v;
}

QList<int> toList(const std::vector<int32_t> &ids)
{
    return QList<int>(ids.begin(), ids.end());
}

QByteArray bytes(const std::string &s)
{
    return QByteArray(s.data(), qsizetype(s.size()));
}

// `text` with every '▁' (U+2581) written as a space: what SentencePiece
// detokenization gives back for it.
std::string spmSpaces(const std::string &text)
{
    const std::string mark = "\xe2\x96\x81";
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        if (text.compare(i, mark.size(), mark) == 0) {
            out += ' ';
            i += mark.size();
        } else {
            out += text[i++];
        }
    }
    return out;
}

// A copy of `file`'s metadata (no tensors) with the string `key` set to
// `value`: the vocabulary of a real file under another pre-tokenizer.
std::vector<uint8_t> withString(const gguf::GgufFile &file, std::string_view key, const std::string &value)
{
    gguf::GgufWriter w;
    for (const gguf::KeyValue &kv : file.metadata()) {
        const std::string name(kv.key);
        const gguf::Value &v = kv.value;
        if (kv.key == key) {
            w.addString(name, value);
        } else if (v.type == gguf::ValueType::VALUE_TYPE_STRING) {
            w.addString(name, v.str);
        } else if (v.type == gguf::ValueType::VALUE_TYPE_ARRAY) {
            if (v.arrayType == gguf::ValueType::VALUE_TYPE_STRING)
                w.addStringArray(name, std::vector<std::string>(v.arrayStrings.begin(), v.arrayStrings.end()));
            else
                w.addScalarArray(name, v.arrayType, v.arrayData, v.arrayCount);
        } else {
            // A scalar: its bytes as stored, after the key and the type.
            const uint64_t start = kv.offset + 8 + kv.key.size() + 4;
            const size_t size = gguf::valueTypeSize(v.type);
            const uint8_t *p = file.fileData() + start;
            w.addRaw(name, static_cast<uint32_t>(v.type), std::vector<uint8_t>(p, p + size));
        }
    }
    if (!file.find(key))
        w.addString(std::string(key), value);
    return w.bytes();
}

} // namespace

class TestTokenizer : public QObject {
    Q_OBJECT

private slots:
    void vectors_data();
    void vectors();
    void roundTrip_data();
    void roundTrip();
    void randomBytesRoundTrip_data();
    void randomBytesRoundTrip();
    void specialParsing_data();
    void specialParsing();
    void addSpecial_data();
    void addSpecial();
    void endOfGeneration();
    void harmonyMarkup();
    void gemma4Vocabulary();
    void preSplits_data();
    void preSplits();
    void qwen35Vocabulary();
    void tokenBytes();
    void cleanSpaces();
    void everyPreTokenizerCompiles();
    void unknownPreRefused();

private:
    const Tokenizer *load(const QString &name);
    void vectorRows();
    std::map<QString, std::unique_ptr<Tokenizer>> m_cache;
    std::map<QString, VectorFile> m_vectors;
};

// Loads (once) the tokenizer of a vocabulary in ../shared/tokenizer.
const Tokenizer *TestTokenizer::load(const QString &name)
{
    auto it = m_cache.find(name);
    if (it != m_cache.end())
        return it->second.get();
    auto file = gguf::GgufFile::open(vocabPath(name).toStdString());
    if (!file) {
        qWarning("%s", file.message().c_str());
        return nullptr;
    }
    auto tok = Tokenizer::fromGguf(*file.value());
    if (!tok) {
        qWarning("%s", tok.message().c_str());
        return nullptr;
    }
    return (m_cache[name] = std::move(tok.value())).get();
}

void TestTokenizer::vectorRows()
{
    QTest::addColumn<QString>("vocab");
    QTest::addColumn<int>("index");
    const QStringList names = vocabNames();
    if (names.isEmpty()) {
        QTest::newRow("no-shared") << QString() << -1;
        return;
    }
    for (const QString &name : names) {
        auto &v = m_vectors[name];
        if (v.texts.empty())
            v = readVectors(name);
        for (int i = 0; i < int(v.texts.size()); ++i)
            QTest::addRow("%s/%02d", qPrintable(name), i) << name << i;
    }
}

void TestTokenizer::vectors_data() { vectorRows(); }

void TestTokenizer::vectors()
{
    QFETCH(QString, vocab);
    QFETCH(int, index);
    if (index < 0)
        BURROW_REQUIRE_SHARED(QStringLiteral("tokenizer/ggml-vocab-llama-bpe.gguf"));
    const VectorFile &v = m_vectors[vocab];
    QVERIFY2(index < int(v.ids.size()), "the .out file has fewer lines than the .inp file has texts");
    const Tokenizer *tok = load(vocab);
    QVERIFY(tok);
    const std::vector<int32_t> got = tok->tokenize(v.texts[index], /*addSpecial=*/false, /*parseSpecial=*/false);
    QCOMPARE(toList(got), toList(v.ids[index]));
}

void TestTokenizer::roundTrip_data() { vectorRows(); }

// The expected ids decode to the text: every byte is representable in these
// vocabularies (SPM byte fallback, byte-level BPE), so with the GPT-2 space
// clean-up off the tokenizers are lossless here.
void TestTokenizer::roundTrip()
{
    QFETCH(QString, vocab);
    QFETCH(int, index);
    if (index < 0)
        BURROW_REQUIRE_SHARED(QStringLiteral("tokenizer/ggml-vocab-llama-bpe.gguf"));
    const VectorFile &v = m_vectors[vocab];
    const Tokenizer *tok = load(vocab);
    QVERIFY(tok);
    DetokenizeOptions exact;
    exact.cleanSpaces = false;
    const std::string decoded = tok->detokenize(v.ids[index], exact);
    // SentencePiece writes spaces as '▁': a literal '▁' in the text comes
    // back as a space (Gemma 3's vectors have some).
    const std::string expected =
        tok->type() == VocabType::VOCAB_TYPE_SPM || tok->vocab().rawUtf8 ? spmSpaces(v.texts[index]) : v.texts[index];
    QCOMPARE(bytes(decoded), bytes(expected));
    // The default (clean-up as the vocabulary says) never adds bytes.
    QVERIFY(tok->detokenize(v.ids[index]).size() <= decoded.size());
}

void TestTokenizer::randomBytesRoundTrip_data()
{
    QTest::addColumn<QString>("vocab");
    const QStringList names = vocabNames();
    if (names.isEmpty())
        QTest::newRow("no-shared") << QString();
    for (const QString &name : names)
        QTest::newRow(qPrintable(name)) << name;
}

// Arbitrary bytes (invalid UTF-8 included) tokenize without failing; valid
// UTF-8 always decodes back to itself (SentencePiece reads a literal '▁' as a
// space), and so does invalid text for byte-level BPE vocabularies where every
// byte has a normal byte-level token (vocabularies trained on UTF-8 may lack
// e.g. 0xFF: it is dropped, as in the reference).
void TestTokenizer::randomBytesRoundTrip()
{
    QFETCH(QString, vocab);
    if (vocab.isEmpty())
        BURROW_REQUIRE_SHARED(QStringLiteral("tokenizer/ggml-vocab-llama-bpe.gguf"));
    const Tokenizer *tok = load(vocab);
    QVERIFY(tok);
    // SentencePiece and Gemma 4 write spaces as '▁' and cut symbols by lead bytes.
    const bool spm = tok->type() == VocabType::VOCAB_TYPE_SPM || tok->vocab().rawUtf8;
    bool everyByte = true;
    if (!spm)
        for (int b = 0; b < 256; ++b) {
            const int32_t id = tok->findToken(byteLevelEncodeByte(uint8_t(b)));
            everyByte = everyByte && id >= 0 && tok->tokenType(id) == TokenType::TOKEN_TYPE_NORMAL;
        }

    // Pieces mixing ASCII, valid multi-byte characters and stray bytes.
    static const char *const pieces[] = {"a", "Z", " ", "  ", "\n", "\t", "'s", "7", "12345", "!", "é", "中", "文",
                                         "🦙", "\xe2\x96\x81", "\xff", "\xc3", "\xe4\xb8", "\x80", "\xf0\x9f", "\0"};
    QRandomGenerator rng(1234);
    DetokenizeOptions exact;
    exact.cleanSpaces = false;
    int compared = 0;
    for (int round = 0; round < 600; ++round) {
        std::string text;
        const int n = int(rng.bounded(1, 16));
        for (int k = 0; k < n; ++k) {
            const char *p = pieces[rng.bounded(int(std::size(pieces)))];
            text += (*p == 0) ? std::string(1, '\0') : std::string(p);
        }
        const std::vector<int32_t> ids = tok->tokenize(text, false, false);
        for (const int32_t id : ids)
            QVERIFY(id >= 0 && id < tok->size());
        const std::string decoded = tok->detokenize(ids, exact);
        const bool valid = utf8IsValid(text);
        if (!valid && !spm && !everyByte)
            continue;
        // SentencePiece cuts text into symbols by lead bytes (as the
        // reference), so a stray lead byte swallows the next bytes, which may
        // be part of a '▁' standing for a space: those come back as '▁'.
        if (!valid && spm)
            continue;
        const std::string expected = spm ? spmSpaces(text) : text;
        QCOMPARE(bytes(decoded), bytes(expected));
        ++compared;
    }
    QVERIFY(compared > 50);
}

void TestTokenizer::specialParsing_data()
{
    QTest::addColumn<QString>("vocab");
    QTest::addColumn<QStringList>("parts");   // alternating text, special token text, text, ...
    QTest::newRow("llama-bpe") << QStringLiteral("llama-bpe")
                               << QStringList{QString(), QStringLiteral("<|start_header_id|>"), QStringLiteral("user"),
                                              QStringLiteral("<|end_header_id|>"), QStringLiteral("\n\nHello there"),
                                              QStringLiteral("<|eot_id|>"), QString()};
    QTest::newRow("qwen2") << QStringLiteral("qwen2")
                           << QStringList{QString(), QStringLiteral("<|im_start|>"), QStringLiteral("system\nYou are"),
                                          QStringLiteral("<|im_end|>"), QStringLiteral("\n"),
                                          QStringLiteral("<|im_start|>"), QStringLiteral("user\n你好")};
    QTest::newRow("phi-3") << QStringLiteral("phi-3")
                           << QStringList{QString(), QStringLiteral("<|user|>"), QStringLiteral("Hi"),
                                          QStringLiteral("<|end|>"), QStringLiteral("Ok")};
}

// With parsing on, each special text becomes its single token and the text
// between them is tokenized as a piece of its own; with parsing off, none of
// those ids appear.
void TestTokenizer::specialParsing()
{
    QFETCH(QString, vocab);
    QFETCH(QStringList, parts);
    BURROW_REQUIRE_SHARED(vocabRelative(vocab));
    const Tokenizer *tok = load(vocab);
    QVERIFY(tok);

    std::string text;
    std::vector<int32_t> expected;
    std::vector<int32_t> specialIds;
    // phi-3's special tokens strip the white space after them (rstrip), and an
    // SPM piece after a special token gets the space prefix.
    for (int i = 0; i < parts.size(); ++i) {
        const std::string part = parts[i].toStdString();
        text += part;
        if (i % 2 == 1) {
            const int32_t id = tok->findToken(part);
            QVERIFY2(id >= 0, part.c_str());
            QVERIFY(tok->isControl(id));
            expected.push_back(id);
            specialIds.push_back(id);
        } else if (!part.empty()) {
            const std::vector<int32_t> piece = tok->tokenize(part, false, false);
            expected.insert(expected.end(), piece.begin(), piece.end());
        }
    }
    QCOMPARE(toList(tok->tokenize(text, false, true)), toList(expected));
    for (const int32_t id : tok->tokenize(text, false, false))
        QVERIFY(std::find(specialIds.begin(), specialIds.end(), id) == specialIds.end());
}

void TestTokenizer::addSpecial_data()
{
    QTest::addColumn<QString>("vocab");
    for (const char *name : {"llama-spm", "phi-3", "llama-bpe", "qwen2", "gpt-2", "deepseek-llm"})
        QTest::newRow(name) << QString::fromLatin1(name);
}

// BOS/EOS follow tokenizer.ggml.add_bos_token / add_eos_token and the ids in
// the file (read here with the GGUF reader, not through the tokenizer).
void TestTokenizer::addSpecial()
{
    QFETCH(QString, vocab);
    BURROW_REQUIRE_SHARED(vocabRelative(vocab));
    auto file = gguf::GgufFile::open(vocabPath(vocab).toStdString());
    QVERIFY(file);
    uint32_t bosId = 0, eosId = 0;
    QVERIFY(file.value()->getU32("tokenizer.ggml.bos_token_id", bosId));
    QVERIFY(file.value()->getU32("tokenizer.ggml.eos_token_id", eosId));
    std::string model;
    QVERIFY(file.value()->getString("tokenizer.ggml.model", model));
    std::string pre;
    QVERIFY(file.value()->getOptionalString("tokenizer.ggml.pre", pre));
    // Default: SPM adds BOS; BPE adds it for the Llama 3 pre-tokenizer only.
    bool addBos = model == "llama" || pre == "llama-bpe";
    QVERIFY(file.value()->getOptionalBool("tokenizer.ggml.add_bos_token", addBos));
    bool addEos = false;
    QVERIFY(file.value()->getOptionalBool("tokenizer.ggml.add_eos_token", addEos));

    const Tokenizer *tok = load(vocab);
    QVERIFY(tok);
    QCOMPARE(tok->bos(), int32_t(bosId));
    QCOMPARE(tok->eos(), int32_t(eosId));
    QCOMPARE(tok->addBos(), addBos);
    QCOMPARE(tok->addEos(), addEos);

    const std::vector<int32_t> plain = tok->tokenize("Hello world", false, false);
    std::vector<int32_t> expected;
    if (addBos)
        expected.push_back(int32_t(bosId));
    expected.insert(expected.end(), plain.begin(), plain.end());
    if (addEos)
        expected.push_back(int32_t(eosId));
    QCOMPARE(toList(tok->tokenize("Hello world", true, false)), toList(expected));
    // Empty text: only what addSpecial adds.
    QCOMPARE(tok->tokenize("", true, false).size(), size_t(addBos) + size_t(addEos));
    QVERIFY(tok->tokenize("", false, false).empty());
}

void TestTokenizer::endOfGeneration()
{
    BURROW_REQUIRE_SHARED(QStringLiteral("tokenizer/ggml-vocab-qwen2.gguf"));
    struct Case {
        const char *vocab;
        std::vector<const char *> eog;
        std::vector<const char *> notEog;
    };
    const Case cases[] = {
        {"llama-bpe", {"<|eot_id|>", "<|end_of_text|>"}, {"<|begin_of_text|>", "<|start_header_id|>", "Hello"}},
        {"qwen2", {"<|im_end|>", "<|endoftext|>"}, {"<|im_start|>", "Hello"}},
        {"phi-3", {"<|end|>", "<|endoftext|>"}, {"<|user|>", "<s>"}},
        {"gpt-2", {"<|endoftext|>"}, {"Hello"}},
        // The 2026 families.
        {"qwen3", {"<|im_end|>", "<|endoftext|>"}, {"<|im_start|>", "<think>", "</think>", "Hello"}},
        {"gemma-3", {"<end_of_turn>", "<eos>"}, {"<start_of_turn>", "<bos>", "Hello"}},
        {"gpt-oss", {"<|return|>", "<|call|>", "<|endoftext|>"},
         {"<|end|>", "<|start|>", "<|channel|>", "<|message|>", "<|constrain|>", "Hello"}},
        // Gemma 4 ends a turn with <turn|> and a tool call with <|tool_response>;
        // </s> is not an end there (the reference's workaround).
        {"gemma-4", {"<turn|>", "<eos>", "<|tool_response>"}, {"<|turn>", "<bos>", "<|channel>", "</s>", "Hello"}},
        {"deepseek-v3", {"<\xef\xbd\x9c" "end\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c>"},
         {"<\xef\xbd\x9c" "begin\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c>", "Hello"}},
    };
    for (const Case &c : cases) {
        if (!QFileInfo::exists(vocabPath(QString::fromLatin1(c.vocab))))
            continue;   // the 2026 folder may be absent on its own
        const Tokenizer *tok = load(QString::fromLatin1(c.vocab));
        QVERIFY(tok);
        for (const char *text : c.eog) {
            const int32_t id = tok->findToken(text);
            QVERIFY2(id >= 0, text);
            QVERIFY2(tok->isEndOfGeneration(id), text);
            QVERIFY(std::binary_search(tok->endOfGenerationIds().begin(), tok->endOfGenerationIds().end(), id));
        }
        for (const char *text : c.notEog) {
            const int32_t id = tok->findToken(text);
            QVERIFY2(id >= 0, text);
            QVERIFY2(!tok->isEndOfGeneration(id), text);
        }
        QVERIFY(tok->isEndOfGeneration(tok->eos()));
        QVERIFY(!tok->isEndOfGeneration(-1));
        QVERIFY(!tok->isEndOfGeneration(tok->size()));
    }
    // EOT found by text where the file has no eot_token_id.
    QCOMPARE(load(QStringLiteral("llama-bpe"))->eot(), load(QStringLiteral("llama-bpe"))->findToken("<|eot_id|>"));
    QCOMPARE(load(QStringLiteral("qwen2"))->eot(), load(QStringLiteral("qwen2"))->findToken("<|im_end|>"));
}

// Gemma 4 (tokenizer model "gemma4"): BPE over raw UTF-8 with spaces as '▁'
// (so a literal '▁' is a space), runs of line breaks as one token, BOS
// always added, byte fallback through <0xHH>; the channel and tool-call
// markers are USER_DEFINED (matched in text without special parsing,
// rendered as text for the reasoning splitter), the turn markers and
// <|tool_response> (an end of generation) control tokens.
void TestTokenizer::gemma4Vocabulary()
{
    BURROW_REQUIRE_SHARED(QStringLiteral("tokenizer-2026/ggml-vocab-gemma-4.gguf"));
    const Tokenizer *tok = load(QStringLiteral("gemma-4"));
    QVERIFY(tok);
    QCOMPARE(QString::fromStdString(tok->modelName()), QStringLiteral("gemma4"));
    for (const char *text : {"<|channel>", "<channel|>", "<|tool_call>", "<tool_call|>", "<tool_response|>", "<|\"|>"}) {
        const int32_t id = tok->findToken(text);
        QVERIFY2(id >= 0, text);
        QCOMPARE(tok->tokenType(id), TokenType::TOKEN_TYPE_USER_DEFINED);
        QCOMPARE(bytes(tok->tokenBytes(id)), QByteArray(text));
        QCOMPARE(tok->tokenize(text, false, false), std::vector<int32_t>{id});
    }
    // <|tool_response> ends the generation (a tool call's turn): forced to
    // control as every end-of-generation text, as the reference does.
    for (const char *text : {"<|turn>", "<turn|>", "<|think|>", "<|tool_response>"})
        QVERIFY2(tok->isControl(tok->findToken(text)), text);
    // The reply of a thinking model as the splitter sees it.
    const std::string reply = "<|channel>thought\nHmm.<channel|>Hello there!";
    const std::vector<int32_t> ids = tok->tokenize(reply, false, false);
    QCOMPARE(ids.front(), tok->findToken("<|channel>"));
    QCOMPARE(bytes(tok->detokenize(ids)), bytes(reply));
    // A literal '▁' is a space; BOS comes first even without add_bos in the file.
    QCOMPARE(tok->tokenize("a\xe2\x96\x81" "b c", false, false), tok->tokenize("a b c", false, false));
    QVERIFY(tok->addBos());
    QCOMPARE(tok->tokenize("Hi", true, false).front(), tok->bos());
    // A run of line breaks is one token; a byte no token spells falls back to <0xHH>.
    QCOMPARE(tok->tokenize("\n\n\n", false, false), std::vector<int32_t>{tok->findToken("\n\n\n")});
    const std::vector<int32_t> invalid = tok->tokenize("\xff", false, false);
    QCOMPARE(invalid, std::vector<int32_t>{tok->findToken("<0xFF>")});
    QCOMPARE(bytes(tok->detokenize(invalid)), QByteArray("\xff"));
}

// gpt-oss (harmony): the channel markup is plain text to the detokenizer
// (USER_DEFINED, as the reference forces it), so a reply's headers reach the
// reasoning splitter; <|end|> ends a channel and is text too; <|return|> and
// <|call|> end the generation and stay control tokens. USER_DEFINED tokens
// are matched in text even without special parsing (the .inp case 40).
void TestTokenizer::harmonyMarkup()
{
    BURROW_REQUIRE_SHARED(QStringLiteral("tokenizer-2026/ggml-vocab-gpt-oss.gguf"));
    const Tokenizer *tok = load(QStringLiteral("gpt-oss"));
    QVERIFY(tok);
    for (const char *text : {"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>", "<|end|>"}) {
        const int32_t id = tok->findToken(text);
        QVERIFY2(id >= 0, text);
        QCOMPARE(tok->tokenType(id), TokenType::TOKEN_TYPE_USER_DEFINED);
        QCOMPARE(bytes(tok->tokenBytes(id)), QByteArray(text));
    }
    for (const char *text : {"<|return|>", "<|call|>"}) {
        const int32_t id = tok->findToken(text);
        QVERIFY2(id >= 0, text);
        QVERIFY(tok->isControl(id));
        QCOMPARE(bytes(tok->tokenBytes(id)), QByteArray());
    }
    // The end of turn is never the channel end.
    QVERIFY(tok->eot() != tok->findToken("<|end|>"));

    const std::string reply = "<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>Hi!";
    const std::vector<int32_t> ids = tok->tokenize(reply + "<|return|>", false, true);
    QCOMPARE(ids.back(), tok->findToken("<|return|>"));
    QCOMPARE(ids.front(), tok->findToken("<|channel|>"));
    QCOMPARE(bytes(tok->detokenize(ids)), bytes(reply));

    // Other vocabularies keep <|end|> as an end of generation (phi-3).
    BURROW_REQUIRE_SHARED(QStringLiteral("tokenizer/ggml-vocab-phi-3.gguf"));
    const Tokenizer *phi = load(QStringLiteral("phi-3"));
    QVERIFY(phi);
    QVERIFY(phi->isEndOfGeneration(phi->findToken("<|end|>")));
    QVERIFY(phi->isControl(phi->findToken("<|end|>")));
}

void TestTokenizer::preSplits_data()
{
    QTest::addColumn<QString>("pre");
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QByteArrayList>("words");
    // Worked out by hand from the expressions (see pretokenizer.cpp). Qwen
    // 3.5 keeps combining marks (\p{M}) in words and out of symbol runs;
    // Qwen 2 splits at them.
    const QByteArray decomposed = "nai\xcc\x88ve cafe\xcc\x81";   // "naïve café", NFD
    QTest::newRow("qwen2/marks") << "qwen2" << decomposed
                                 << QByteArrayList{"nai", "\xcc\x88ve", " cafe", "\xcc\x81"};
    QTest::newRow("qwen35/marks") << "qwen35" << decomposed << QByteArrayList{"nai\xcc\x88ve", " cafe\xcc\x81"};
    const QByteArray hindi = "\xe0\xa4\xa8\xe0\xa4\xae\xe0\xa4\xb8\xe0\xa5\x8d\xe0\xa4\xa4\xe0\xa5\x87";   // नमस्ते
    QTest::newRow("qwen2/hindi") << "qwen2" << hindi
                                 << QByteArrayList{"\xe0\xa4\xa8\xe0\xa4\xae\xe0\xa4\xb8", "\xe0\xa5\x8d\xe0\xa4\xa4",
                                                   "\xe0\xa5\x87"};
    QTest::newRow("qwen35/hindi") << "qwen35" << hindi << QByteArrayList{hindi};
    const QByteArray symbol = "a+\xcc\x81" "b";
    QTest::newRow("qwen2/symbol-mark") << "qwen2" << symbol << QByteArrayList{"a", "+\xcc\x81", "b"};
    QTest::newRow("qwen35/symbol-mark") << "qwen35" << symbol << QByteArrayList{"a", "+\xcc\x81" "b"};
    // Thai สวัสดี: ส ว (Lo) ั (U+0E31, Mn) ส ด (Lo) ี (U+0E35, Mn). Qwen 2:
    // \p{L}+ takes "สว" and stops at the mark; the mark is the optional
    // [^\r\n\p{L}\p{N}] lead of the next word "ัสด"; the last mark has no
    // letter after it, so it is a symbol run of its own. Qwen 3.5:
    // [\p{L}\p{M}]+ takes all six.
    const QByteArray thai = "\xe0\xb8\xaa\xe0\xb8\xa7\xe0\xb8\xb1\xe0\xb8\xaa\xe0\xb8\x94\xe0\xb8\xb5";
    QTest::newRow("qwen2/thai") << "qwen2" << thai
                                << QByteArrayList{"\xe0\xb8\xaa\xe0\xb8\xa7", "\xe0\xb8\xb1\xe0\xb8\xaa\xe0\xb8\x94",
                                                  "\xe0\xb8\xb5"};
    QTest::newRow("qwen35/thai") << "qwen35" << thai << QByteArrayList{thai};
    // Hindi है। : ह (Lo) ै (U+0948, Mn) । (U+0964, Po). Qwen 2: "ह", then the
    // mark cannot lead a word (no letter follows) and starts a symbol run
    // that takes the danda too. Qwen 3.5: the word "है", then the danda
    // alone (a symbol run; marks never join one).
    const QByteArray hai = "\xe0\xa4\xb9\xe0\xa5\x88\xe0\xa5\xa4";
    QTest::newRow("qwen2/danda") << "qwen2" << hai << QByteArrayList{"\xe0\xa4\xb9", "\xe0\xa5\x88\xe0\xa5\xa4"};
    QTest::newRow("qwen35/danda") << "qwen35" << hai << QByteArrayList{"\xe0\xa4\xb9\xe0\xa5\x88", "\xe0\xa5\xa4"};
    // " ❤️ ok": ❤ (U+2764, So) and the variation selector U+FE0F (Mn). Qwen 2:
    // " ?[^\s\p{L}\p{N}]+" takes " ❤️". Qwen 3.5: the symbol run stops at the
    // mark (" ❤"); the mark has no letter after it, so it is a word of
    // [\p{L}\p{M}]+ alone.
    const QByteArray heart = " \xe2\x9d\xa4\xef\xb8\x8f ok";
    QTest::newRow("qwen2/variation-selector") << "qwen2" << heart << QByteArrayList{" \xe2\x9d\xa4\xef\xb8\x8f", " ok"};
    QTest::newRow("qwen35/variation-selector") << "qwen35" << heart
                                               << QByteArrayList{" \xe2\x9d\xa4", "\xef\xb8\x8f", " ok"};
    // An apostrophe before a mark is no contraction ('\u0301s). Qwen 2: "'"
    // cannot lead a word (a mark follows, not a letter), so "'\u0301" is a
    // symbol run and "s" a word. Qwen 3.5: "'" leads the word "\u0301s".
    const QByteArray apostrophe = "'\xcc\x81s";
    QTest::newRow("qwen2/apostrophe-mark") << "qwen2" << apostrophe << QByteArrayList{"'\xcc\x81", "s"};
    QTest::newRow("qwen35/apostrophe-mark") << "qwen35" << apostrophe << QByteArrayList{apostrophe};
    // A space before a mark: Qwen 2 makes " \u0301" a symbol run (the space
    // cannot lead a word whose first character is a mark) and "y" a word;
    // Qwen 3.5 one word " \u0301y".
    const QByteArray spaceMark = "x \xcc\x81y";
    QTest::newRow("qwen2/space-mark") << "qwen2" << spaceMark << QByteArrayList{"x", " \xcc\x81", "y"};
    QTest::newRow("qwen35/space-mark") << "qwen35" << spaceMark << QByteArrayList{"x", " \xcc\x81y"};
    // Stacked marks before punctuation (e + two acute accents + "!"): Qwen 2
    // "e" and the symbol run "\u0301\u0301!"; Qwen 3.5 "e\u0301\u0301" and "!".
    const QByteArray stacked = "e\xcc\x81\xcc\x81!";
    QTest::newRow("qwen2/stacked-marks") << "qwen2" << stacked << QByteArrayList{"e", "\xcc\x81\xcc\x81!"};
    QTest::newRow("qwen35/stacked-marks") << "qwen35" << stacked << QByteArrayList{"e\xcc\x81\xcc\x81", "!"};
    // Line breaks between marked words: Qwen 2's symbol run "\u0301" takes
    // the "\n\n" after it ([\r\n]*), and the second mark leads "\u0301b";
    // Qwen 3.5 keeps "a\u0301", the line breaks are \s*[\r\n]+, then "\u0301b".
    const QByteArray lines = "a\xcc\x81\n\n\xcc\x81" "b";
    QTest::newRow("qwen2/newlines-marks") << "qwen2" << lines << QByteArrayList{"a", "\xcc\x81\n\n", "\xcc\x81" "b"};
    QTest::newRow("qwen35/newlines-marks") << "qwen35" << lines << QByteArrayList{"a\xcc\x81", "\n\n", "\xcc\x81" "b"};
    // Where they agree although different alternatives match: a contraction
    // comes before the word alternatives, so "'s" is taken before its mark,
    // and the mark alone at the end is a symbol run (Qwen 2) or a word
    // (Qwen 3.5); a digit is never part of a word, so the enclosing mark
    // U+20DD (Me) between digits stands alone; a mark at the start of the
    // text leads (Qwen 2) or begins (Qwen 3.5) the word.
    for (const char *pre : {"qwen2", "qwen35"}) {
        QTest::newRow(qPrintable(QStringLiteral("%1/contraction-mark").arg(QLatin1String(pre))))
            << pre << QByteArray("it's\xcc\x81") << QByteArrayList{"it", "'s", "\xcc\x81"};
        QTest::newRow(qPrintable(QStringLiteral("%1/digit-mark").arg(QLatin1String(pre))))
            << pre << QByteArray("1\xe2\x83\x9d" "2") << QByteArrayList{"1", "\xe2\x83\x9d", "2"};
        QTest::newRow(qPrintable(QStringLiteral("%1/leading-mark").arg(QLatin1String(pre))))
            << pre << QByteArray("\xcc\x81" "a b") << QByteArrayList{"\xcc\x81" "a", " b"};
        // No marks: contractions in any case, single digits, "\r\n" as
        // \s*[\r\n]+, the space before a digit as \s+ alone.
        QTest::newRow(qPrintable(QStringLiteral("%1/plain").arg(QLatin1String(pre))))
            << pre << QByteArray("I'M fine 123\r\n") << QByteArrayList{"I", "'M", " fine", " ", "1", "2", "3", "\r\n"};
    }
    // What both share: contractions, single digits, symbol runs with their
    // line breaks, white space before a word kept apart.
    QTest::newRow("qwen35/common") << "qwen35" << QByteArray("I'LL pay 42!!\n\n  ok")
                                   << QByteArrayList{"I", "'LL", " pay", " ", "4", "2", "!!\n\n", " ", " ok"};
    QTest::newRow("qwen2/common") << "qwen2" << QByteArray("I'LL pay 42!!\n\n  ok")
                                  << QByteArrayList{"I", "'LL", " pay", " ", "4", "2", "!!\n\n", " ", " ok"};
    // o200k: a combining mark is not a letter to the reference's adapted
    // expression, so it splits the word; letters outside ASCII count as both
    // cases: " éTÉs" stays one word (Hugging Face's original splits it after
    // the lower-case "é"), while ASCII case changes split ("HelloWorld").
    QTest::newRow("gpt-4o/marks") << "gpt-4o" << decomposed
                                  << QByteArrayList{"nai", "\xcc\x88ve", " cafe", "\xcc\x81"};
    QTest::newRow("gpt-4o/case") << "gpt-4o" << QByteArray("HelloWorld \xc3\xa9T\xc3\x89s")
                                 << QByteArrayList{"Hello", "World", " \xc3\xa9T\xc3\x89s"};
    // DeepSeek V3: '~' is neither punctuation nor symbol to the reference,
    // so it joins the letters after it and is not part of a symbol run.
    QTest::newRow("deepseek-v3/tilde") << "deepseek-v3" << QByteArray("a ~b !~ ~~")
                                       << QByteArrayList{"a", " ", "~b", " !", "~", " ", "~~"};
}

void TestTokenizer::preSplits()
{
    QFETCH(QString, pre);
    QFETCH(QByteArray, text);
    QFETCH(QByteArrayList, words);
    auto info = lookupPreTokenizer(pre.toStdString());
    QVERIFY2(info, info.message().c_str());
    auto splitter = PreTokenizer::create(info->regexSet);
    QVERIFY2(splitter, splitter.message().c_str());
    std::vector<std::string_view> got;
    const std::string input = text.toStdString();
    splitter.value()->split(input, got);
    QByteArrayList gotList;
    for (const auto w : got)
        gotList << QByteArray(w.data(), qsizetype(w.size()));
    QCOMPARE(gotList, words);
}

// A byte-level BPE file whose `pre` is "qwen35" loads and tokenizes with the
// Qwen 3.5 split. Qwen 3.5's own vocabulary is not in ../shared, so this is
// Qwen3's (pre "qwen2") written again with pre "qwen35": where the two
// splits agree (no combining marks: 45 of the 51 texts) the ids must be the
// reference's for Qwen3; where they differ, the ids must spell the text,
// no token may cross a boundary of the Qwen 3.5 split, and in some texts a
// token crosses one of the Qwen 2 split (so the other split is in use).
void TestTokenizer::qwen35Vocabulary()
{
    BURROW_REQUIRE_SHARED(QStringLiteral("tokenizer-2026/ggml-vocab-qwen3.gguf"));
    auto original = gguf::GgufFile::open(vocabPath(QStringLiteral("qwen3")).toStdString());
    QVERIFY2(original, original.message().c_str());
    auto file = gguf::GgufFile::parse(
        MappedFile::fromBytes(withString(*original.value(), "tokenizer.ggml.pre", "qwen35"), "qwen35-vocab.gguf"));
    QVERIFY2(file, file.message().c_str());
    auto loaded = Tokenizer::fromGguf(*file.value());
    QVERIFY2(loaded, loaded.message().c_str());
    const Tokenizer &tok = *loaded.value();
    QCOMPARE(QString::fromStdString(tok.preName()), QStringLiteral("qwen35"));
    QCOMPARE(tok.size(), load(QStringLiteral("qwen3"))->size());
    QVERIFY(!tok.addBos());   // as Qwen 2: no BOS by default

    auto qwen2 = PreTokenizer::create("qwen2");
    auto qwen35 = PreTokenizer::create("qwen35");
    QVERIFY(qwen2 && qwen35);
    // Byte offsets where words of `splitter` end (the text's end included).
    auto boundaries = [](const PreTokenizer &splitter, const std::string &text) {
        std::vector<std::string_view> words;
        splitter.split(text, words);
        std::vector<size_t> ends;
        size_t at = 0;
        for (const auto w : words)
            ends.push_back(at += w.size());
        return ends;
    };

    const VectorFile vectors = readVectors(QStringLiteral("qwen3"));
    QCOMPARE(int(vectors.texts.size()), 51);
    DetokenizeOptions exact;
    exact.cleanSpaces = false;
    int agreeing = 0, differing = 0, crossing = 0;
    for (size_t i = 0; i < vectors.texts.size(); ++i) {
        const std::string &text = vectors.texts[i];
        const std::vector<int32_t> ids = tok.tokenize(text, false, false);
        const std::vector<size_t> ends35 = boundaries(*qwen35.value(), text);
        const std::vector<size_t> ends2 = boundaries(*qwen2.value(), text);
        if (ends35 == ends2) {
            ++agreeing;
            QVERIFY2(toList(ids) == toList(vectors.ids[i]), qPrintable(QStringLiteral("text %1").arg(i)));
            continue;
        }
        ++differing;
        QCOMPARE(bytes(tok.detokenize(ids, exact)), bytes(text));
        std::vector<size_t> tokenEnds;
        size_t at = 0;
        for (const int32_t id : ids)
            tokenEnds.push_back(at += tok.tokenBytes(id).size());
        for (const size_t end : ends35)
            QVERIFY2(std::binary_search(tokenEnds.begin(), tokenEnds.end(), end),
                     qPrintable(QStringLiteral("text %1: a token crosses the word end at byte %2").arg(i).arg(end)));
        crossing += std::any_of(ends2.begin(), ends2.end(), [&](size_t end) {
            return !std::binary_search(tokenEnds.begin(), tokenEnds.end(), end);
        });
    }
    QCOMPARE(agreeing, 45);
    QCOMPARE(differing, 6);
    QVERIFY(crossing > 0);
}

void TestTokenizer::tokenBytes()
{
    BURROW_REQUIRE_SHARED(QStringLiteral("tokenizer/ggml-vocab-llama-spm.gguf"));
    const Tokenizer *spm = load(QStringLiteral("llama-spm"));
    QVERIFY(spm);
    QCOMPARE(bytes(spm->tokenBytes(spm->findToken("\xe2\x96\x81Hello"))), QByteArray(" Hello"));
    QCOMPARE(bytes(spm->tokenBytes(spm->findToken("<0x0A>"))), QByteArray("\n"));
    QCOMPARE(bytes(spm->tokenBytes(spm->findToken("<0xE4>"))), QByteArray("\xe4"));
    QCOMPARE(bytes(spm->tokenBytes(spm->bos())), QByteArray());
    QCOMPARE(bytes(spm->tokenBytes(spm->bos(), true)), QByteArray("<s>"));
    QCOMPARE(bytes(spm->tokenBytes(-1)), QByteArray());
    QCOMPARE(bytes(spm->tokenBytes(spm->size())), QByteArray());
    // SPM detokenize drops the space prefix of the first piece only.
    const std::vector<int32_t> ids = spm->tokenize(" Hello  world", false, false);
    QCOMPARE(bytes(spm->detokenize(ids)), QByteArray(" Hello  world"));

    BURROW_REQUIRE_SHARED(QStringLiteral("tokenizer/ggml-vocab-llama-bpe.gguf"));
    const Tokenizer *bpe = load(QStringLiteral("llama-bpe"));
    QVERIFY(bpe);
    QCOMPARE(bytes(bpe->tokenBytes(bpe->findToken("\xc4\xa0Hello"))), QByteArray(" Hello"));   // ĠHello
    QCOMPARE(bytes(bpe->tokenBytes(bpe->findToken("\xc4\x8a"))), QByteArray("\n"));           // Ċ
    QCOMPARE(bytes(bpe->tokenBytes(bpe->findToken("<|eot_id|>"))), QByteArray());
    QCOMPARE(bytes(bpe->tokenBytes(bpe->findToken("<|eot_id|>"), true)), QByteArray("<|eot_id|>"));
    DetokenizeOptions render;
    render.renderSpecial = true;
    QCOMPARE(bytes(bpe->detokenize(bpe->tokenize("<|eot_id|>hi", false, true), render)), QByteArray("<|eot_id|>hi"));
}

// The GPT-2 heritage clean-up (only for vocabularies that ask for it).
void TestTokenizer::cleanSpaces()
{
    BURROW_REQUIRE_SHARED(QStringLiteral("tokenizer/ggml-vocab-gpt-2.gguf"));
    const Tokenizer *gpt2 = load(QStringLiteral("gpt-2"));
    QVERIFY(gpt2);
    const std::string text = "Hello , world ! it 's ok . I ' m fine , don 't";
    const std::vector<int32_t> ids = gpt2->tokenize(text, false, false);
    QCOMPARE(bytes(gpt2->detokenize(ids)), QByteArray("Hello, world! it's ok. I'm fine, don 't"));
    DetokenizeOptions exact;
    exact.cleanSpaces = false;
    QCOMPARE(bytes(gpt2->detokenize(ids, exact)), bytes(text));
    // Qwen 2 does not clean up.
    const Tokenizer *qwen = load(QStringLiteral("qwen2"));
    QVERIFY(qwen);
    QCOMPARE(bytes(qwen->detokenize(qwen->tokenize(text, false, false))), bytes(text));
}

void TestTokenizer::everyPreTokenizerCompiles()
{
    for (const std::string &name : knownPreTokenizers()) {
        auto info = lookupPreTokenizer(name);
        QVERIFY2(info, info.message().c_str());
        auto pre = PreTokenizer::create(info->regexSet);
        QVERIFY2(pre, pre.message().c_str());
        std::vector<std::string_view> words;
        const std::string text = "Hello, y'all! 1234 你好 \xff\n\n  x";
        pre.value()->split(text, words);
        std::string joined;
        for (const auto w : words) {
            QVERIFY(!w.empty());
            joined += w;
        }
        QCOMPARE(bytes(joined), bytes(text));
    }
}

void TestTokenizer::unknownPreRefused()
{
    VocabData data;
    data.source = "made-up.gguf";
    data.model = "gpt2";
    data.pre = "no-such-pre";
    data.tokens = {"a", "b", "ab"};
    data.merges = {"a b"};
    auto tok = Tokenizer::create(data);
    QVERIFY(!tok);
    QVERIFY2(tok.message().find("'no-such-pre'") != std::string::npos, tok.message().c_str());
    QVERIFY2(tok.message().find("made-up.gguf") != std::string::npos, tok.message().c_str());
}

QTEST_GUILESS_MAIN(TestTokenizer)
#include "tst_tokenizer.moc"
