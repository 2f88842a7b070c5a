// Vocabularies made here with the GGUF writer: small well-formed ones whose
// tokenization is worked out by hand (merge order by score / rank, byte
// fallback, special tokens), and hostile ones that must be refused with a
// message naming the problem, never crash.
#include "gguf/gguf_reader.h"
#include "gguf/gguf_writer.h"
#include "test_support.h"
#include "tokenizer/tokenizer.h"

#include <QTest>

#include <functional>

using namespace burrow;
using namespace burrow::gguf;
using namespace burrow::tokenizer;

namespace {

const std::string kSpace = "\xe2\x96\x81";   // '▁'

QList<int> toList(const std::vector<int32_t> &ids)
{
    return QList<int>(ids.begin(), ids.end());
}

// A small SPM vocabulary:
//   0 <unk>  1 <s>  2 </s>  3 ▁  4 a  5 b  6 ▁a  7 ab  8 <0x63> ('c')  9 <|sep|> (user-defined)
// Scores: ▁a and ab are set by the caller to decide which merge comes first.
struct SpmSpec {
    std::vector<std::string> tokens = {"<unk>", "<s>", "</s>", kSpace, "a", "b", kSpace + "a", "ab", "<0x63>", "<|sep|>"};
    std::vector<float> scores = {0, 0, 0, -5, -6, -6, -1, -2, 0, 0};
    std::vector<int32_t> types = {2, 3, 3, 1, 1, 1, 1, 1, 6, 4};
};

void writeSpm(GgufWriter &w, const SpmSpec &spec)
{
    w.addString("general.architecture", "llama");
    w.addString("tokenizer.ggml.model", "llama");
    w.addStringArray("tokenizer.ggml.tokens", spec.tokens);
    w.addArray("tokenizer.ggml.scores", ValueType::VALUE_TYPE_F32, spec.scores);
    w.addArray("tokenizer.ggml.token_type", ValueType::VALUE_TYPE_I32, spec.types);
    w.addU32("tokenizer.ggml.bos_token_id", 1);
    w.addU32("tokenizer.ggml.eos_token_id", 2);
    w.addU32("tokenizer.ggml.unknown_token_id", 0);
}

// A small byte-level BPE vocabulary over the letters a, b, c:
//   0 a  1 b  2 c  3 ab  4 bc  5 abc  6 Ġ  7 Ġa  8 <|end|> (control)
struct BpeSpec {
    std::vector<std::string> tokens = {"a", "b", "c", "ab", "bc", "abc", "\xc4\xa0", "\xc4\xa0" "a", "<|end|>"};
    std::vector<int32_t> types = {1, 1, 1, 1, 1, 1, 1, 1, 3};
    std::vector<std::string> merges = {"a b", "b c", "ab c", "\xc4\xa0 a"};
    std::string pre = "gpt-2";
};

void writeBpe(GgufWriter &w, const BpeSpec &spec)
{
    w.addString("general.architecture", "gpt2");
    w.addString("tokenizer.ggml.model", "gpt2");
    w.addString("tokenizer.ggml.pre", spec.pre);
    w.addStringArray("tokenizer.ggml.tokens", spec.tokens);
    w.addArray("tokenizer.ggml.token_type", ValueType::VALUE_TYPE_I32, spec.types);
    w.addStringArray("tokenizer.ggml.merges", spec.merges);
}

Result<std::unique_ptr<Tokenizer>> load(const GgufWriter &w)
{
    auto file = GgufFile::parse(MappedFile::fromBytes(w.bytes(), "made.gguf"));
    if (!file)
        return file.status();
    return Tokenizer::fromGguf(*file.value());
}

using Build = std::function<void(GgufWriter &)>;

} // namespace

Q_DECLARE_METATYPE(Build)

class TestTokenizerVocab : public QObject {
    Q_OBJECT

private slots:
    void spmMergeByScore();
    void spmByteFallbackAndUnknown();
    void spmSpecialTokens();
    void bpeMergeByRank();
    void bpeSpecialAndEog();
    void plainData();
    void hostile_data();
    void hostile();
};

void TestTokenizerVocab::spmMergeByScore()
{
    // "ab" -> "▁ab": the pairs ▁a (-1) and ab (-2); ▁a wins, then ▁a+b is no token.
    {
        GgufWriter w;
        writeSpm(w, SpmSpec{});
        auto tok = load(w);
        QVERIFY2(tok, tok.message().c_str());
        QCOMPARE(toList(tok.value()->tokenize("ab", false, false)), QList<int>({6, 5}));
        QCOMPARE(toList(tok.value()->tokenize("ab", true, false)), QList<int>({1, 6, 5}));
        QCOMPARE(tok.value()->detokenize(tok.value()->tokenize("ab", false, false)), std::string("ab"));
    }
    // Swap the scores: ab wins.
    {
        SpmSpec spec;
        spec.scores[6] = -2;
        spec.scores[7] = -1;
        GgufWriter w;
        writeSpm(w, spec);
        auto tok = load(w);
        QVERIFY2(tok, tok.message().c_str());
        QCOMPARE(toList(tok.value()->tokenize("ab", false, false)), QList<int>({3, 7}));
    }
    // Equal scores: the leftmost pair first.
    {
        SpmSpec spec;
        spec.scores[6] = -1;
        spec.scores[7] = -1;
        GgufWriter w;
        writeSpm(w, spec);
        auto tok = load(w);
        QVERIFY2(tok, tok.message().c_str());
        QCOMPARE(toList(tok.value()->tokenize("ab", false, false)), QList<int>({6, 5}));
    }
}

void TestTokenizerVocab::spmByteFallbackAndUnknown()
{
    GgufWriter w;
    writeSpm(w, SpmSpec{});
    w.addBool("tokenizer.ggml.add_space_prefix", false);
    auto tok = load(w);
    QVERIFY2(tok, tok.message().c_str());
    // 'c' has a byte token; 'd' has none, so it is the unknown token.
    QCOMPARE(toList(tok.value()->tokenize("acd", false, false)), QList<int>({4, 8, 0}));
    QCOMPARE(tok.value()->tokenBytes(8), std::string("c"));
    QCOMPARE(tok.value()->tokenBytes(0), std::string());
    QCOMPARE(tok.value()->tokenBytes(0, true), std::string("<unk>"));
    QVERIFY(!tok.value()->addSpacePrefix());
}

void TestTokenizerVocab::spmSpecialTokens()
{
    GgufWriter w;
    writeSpm(w, SpmSpec{});
    auto tok = load(w);
    QVERIFY2(tok, tok.message().c_str());
    const Tokenizer &t = *tok.value();
    // User-defined tokens are cut out even without special parsing; the text
    // after a special token gets the space prefix again.
    QCOMPARE(toList(t.tokenize("a<|sep|>a", false, false)), QList<int>({6, 9, 6}));
    // Control tokens only with parsing on.
    QCOMPARE(toList(t.tokenize("<s>a", false, true)), QList<int>({1, 6}));
    const std::vector<int32_t> plain = t.tokenize("<s>a", false, false);
    QVERIFY(!plain.empty());
    QVERIFY(std::find(plain.begin(), plain.end(), 1) == plain.end());
    QCOMPARE(t.eos(), 2);
    QVERIFY(t.isEndOfGeneration(2));
    QVERIFY(!t.isEndOfGeneration(1));
}

void TestTokenizerVocab::bpeMergeByRank()
{
    {
        GgufWriter w;
        writeBpe(w, BpeSpec{});
        auto tok = load(w);
        QVERIFY2(tok, tok.message().c_str());
        // a b (rank 0) first, then ab c (rank 2).
        QCOMPARE(toList(tok.value()->tokenize("abc", false, false)), QList<int>({5}));
        // " a" is one GPT-2 word: Ġ a merges.
        QCOMPARE(toList(tok.value()->tokenize("abc a", false, false)), QList<int>({5, 7}));
        QCOMPARE(tok.value()->detokenize(tok.value()->tokenize("abc a", false, false)), std::string("abc a"));
        QVERIFY(!tok.value()->addBos());
    }
    {
        // b c first: a + bc has no merge.
        BpeSpec spec;
        spec.merges = {"b c", "a b", "ab c", "\xc4\xa0 a"};
        GgufWriter w;
        writeBpe(w, spec);
        auto tok = load(w);
        QVERIFY2(tok, tok.message().c_str());
        QCOMPARE(toList(tok.value()->tokenize("abc", false, false)), QList<int>({0, 4}));
    }
    {
        // Llama 3 pre-tokenizer: a word that is a whole token is taken as is,
        // even when no merge leads to it; BOS is added by default.
        BpeSpec spec;
        spec.pre = "llama-bpe";
        spec.merges = {"b c", "\xc4\xa0 a"};
        GgufWriter w;
        writeBpe(w, spec);
        w.addU32("tokenizer.ggml.bos_token_id", 8);
        auto tok = load(w);
        QVERIFY2(tok, tok.message().c_str());
        QCOMPARE(toList(tok.value()->tokenize("abc", false, false)), QList<int>({5}));
        QCOMPARE(toList(tok.value()->tokenize("abc", true, false)), QList<int>({8, 5}));
    }
}

void TestTokenizerVocab::bpeSpecialAndEog()
{
    GgufWriter w;
    writeBpe(w, BpeSpec{});
    auto tok = load(w);
    QVERIFY2(tok, tok.message().c_str());
    const Tokenizer &t = *tok.value();
    QCOMPARE(toList(t.tokenize("ab<|end|>c", false, true)), QList<int>({3, 8, 2}));
    QVERIFY(t.isEndOfGeneration(8));   // found by its text
    QCOMPARE(t.eot(), 8);
    // The BPE default BOS/EOS id (11) does not exist in a 9-token vocabulary: none.
    QCOMPARE(t.bos(), -1);
    QCOMPARE(t.eos(), -1);
}

// The same checks on plain data (Tokenizer::create), where no GGUF reader
// stands in front.
void TestTokenizerVocab::plainData()
{
    auto make = [] {
        VocabData d;
        d.source = "plain";
        d.model = "llama";
        const SpmSpec s;
        d.tokens = s.tokens;
        d.scores = s.scores;
        d.tokenTypes = s.types;
        return d;
    };
    QVERIFY(Tokenizer::create(make()));
    {
        VocabData d = make();
        d.scores.resize(3);
        auto tok = Tokenizer::create(d);
        QVERIFY(!tok);
        QCOMPARE(tok.message(), std::string("plain: tokenizer: tokenizer.ggml.scores has 3 entries, expected 10 (one per token)"));
    }
    {
        VocabData d = make();
        d.tokenTypes.resize(12, 1);
        auto tok = Tokenizer::create(d);
        QVERIFY(!tok);
        QCOMPARE(tok.message(), std::string("plain: tokenizer: tokenizer.ggml.token_type has 12 entries, expected 10 (one per token)"));
    }
    {
        VocabData d = make();
        d.bosId = 10;
        auto tok = Tokenizer::create(d);
        QVERIFY(!tok);
        QVERIFY2(tok.message().find("bos_token_id is 10, expected 0..9") != std::string::npos, tok.message().c_str());
    }
    {
        // An out-of-range padding id only warns (real files have such ids).
        VocabData d = make();
        d.padId = 99;
        QVERIFY(Tokenizer::create(d));
    }
}

void TestTokenizerVocab::hostile_data()
{
    QTest::addColumn<Build>("build");
    QTest::addColumn<QStringList>("message");   // parts the error must contain

    QTest::newRow("scores too short") << Build([](GgufWriter &w) {
        SpmSpec s;
        s.scores.resize(3);
        writeSpm(w, s);
    }) << QStringList{QStringLiteral("tokenizer.ggml.scores"), QStringLiteral("3"), QStringLiteral("10")};
    QTest::newRow("scores too long") << Build([](GgufWriter &w) {
        SpmSpec s;
        s.scores.resize(11);
        writeSpm(w, s);
    }) << QStringList{QStringLiteral("tokenizer.ggml.scores"), QStringLiteral("11"), QStringLiteral("10")};
    QTest::newRow("token types too short") << Build([](GgufWriter &w) {
        SpmSpec s;
        s.types.resize(9);
        writeSpm(w, s);
    }) << QStringList{QStringLiteral("tokenizer.ggml.token_type"), QStringLiteral("9"), QStringLiteral("10")};
    QTest::newRow("token type out of range") << Build([](GgufWriter &w) {
        SpmSpec s;
        s.types[4] = 77;
        writeSpm(w, s);
    }) << QStringList{QStringLiteral("has token_type 77, expected 0..6")};
    QTest::newRow("byte token <0x-1>") << Build([](GgufWriter &w) {
        SpmSpec s;
        s.tokens[8] = "<0x-1>";
        writeSpm(w, s);
    }) << QStringList{QStringLiteral("'<0x-1>' has type byte but is not spelled <0xHH>")};
    QTest::newRow("byte token <0x100>") << Build([](GgufWriter &w) {
        SpmSpec s;
        s.tokens[8] = "<0x100>";
        writeSpm(w, s);
    }) << QStringList{QStringLiteral("is not spelled <0xHH>")};
    QTest::newRow("scores of the wrong type") << Build([](GgufWriter &w) {
        w.addString("tokenizer.ggml.model", "llama");
        w.addStringArray("tokenizer.ggml.tokens", {"a", "b"});
        w.addStringArray("tokenizer.ggml.scores", {"1", "2"});
    }) << QStringList{QStringLiteral("tokenizer.ggml.scores")};
    QTest::newRow("tokens not strings") << Build([](GgufWriter &w) {
        w.addString("tokenizer.ggml.model", "llama");
        w.addArray("tokenizer.ggml.tokens", ValueType::VALUE_TYPE_I32, std::vector<int32_t>{1, 2});
    }) << QStringList{QStringLiteral("tokenizer.ggml.tokens")};
    QTest::newRow("no tokens") << Build([](GgufWriter &w) {
        w.addString("tokenizer.ggml.model", "llama");
    }) << QStringList{QStringLiteral("tokenizer.ggml.tokens")};
    QTest::newRow("empty tokens") << Build([](GgufWriter &w) {
        w.addString("tokenizer.ggml.model", "llama");
        w.addStringArray("tokenizer.ggml.tokens", {});
    }) << QStringList{QStringLiteral("tokenizer.ggml.tokens is empty")};
    QTest::newRow("no model") << Build([](GgufWriter &w) {
        w.addStringArray("tokenizer.ggml.tokens", {"a"});
    }) << QStringList{QStringLiteral("tokenizer.ggml.model")};
    QTest::newRow("unsupported model") << Build([](GgufWriter &w) {
        w.addString("tokenizer.ggml.model", "bert");
        w.addStringArray("tokenizer.ggml.tokens", {"a"});
    }) << QStringList{QStringLiteral("'bert'")};
    QTest::newRow("bos out of range") << Build([](GgufWriter &w) {
        SpmSpec s;
        w.addString("tokenizer.ggml.model", "llama");
        w.addStringArray("tokenizer.ggml.tokens", s.tokens);
        w.addU32("tokenizer.ggml.bos_token_id", 10);
    }) << QStringList{QStringLiteral("tokenizer.ggml.bos_token_id is 10, expected 0..9")};
    QTest::newRow("eos negative") << Build([](GgufWriter &w) {
        SpmSpec s;
        w.addString("tokenizer.ggml.model", "llama");
        w.addStringArray("tokenizer.ggml.tokens", s.tokens);
        w.addI32("tokenizer.ggml.eos_token_id", -1);
    }) << QStringList{QStringLiteral("tokenizer.ggml.eos_token_id is -1")};
    QTest::newRow("unknown id huge") << Build([](GgufWriter &w) {
        SpmSpec s;
        w.addString("tokenizer.ggml.model", "llama");
        w.addStringArray("tokenizer.ggml.tokens", s.tokens);
        w.addU64("tokenizer.ggml.unknown_token_id", ~uint64_t(0));
    }) << QStringList{QStringLiteral("tokenizer.ggml.unknown_token_id is")};
    QTest::newRow("eot id out of range") << Build([](GgufWriter &w) {
        writeBpe(w, BpeSpec{});
        w.addU32("tokenizer.ggml.eot_token_id", 4000000000u);
    }) << QStringList{QStringLiteral("tokenizer.ggml.eot_token_id is 4000000000, expected 0..8")};
    QTest::newRow("id of the wrong type") << Build([](GgufWriter &w) {
        writeBpe(w, BpeSpec{});
        w.addString("tokenizer.ggml.eos_token_id", "3");
    }) << QStringList{QStringLiteral("tokenizer.ggml.eos_token_id")};
    QTest::newRow("merge names unknown token") << Build([](GgufWriter &w) {
        BpeSpec s;
        s.merges.push_back("ab zz");
        writeBpe(w, s);
    }) << QStringList{QStringLiteral("merge 4 'ab zz' names 'zz', which is not a token")};
    QTest::newRow("merge without space") << Build([](GgufWriter &w) {
        BpeSpec s;
        s.merges.insert(s.merges.begin(), "abc");
        writeBpe(w, s);
    }) << QStringList{QStringLiteral("merge 0 'abc' has no space")};
    QTest::newRow("merges missing") << Build([](GgufWriter &w) {
        BpeSpec s;
        w.addString("tokenizer.ggml.model", "gpt2");
        w.addString("tokenizer.ggml.pre", "gpt-2");
        w.addStringArray("tokenizer.ggml.tokens", s.tokens);
    }) << QStringList{QStringLiteral("without tokenizer.ggml.merges")};
    QTest::newRow("merges of the wrong type") << Build([](GgufWriter &w) {
        BpeSpec s;
        w.addString("tokenizer.ggml.model", "gpt2");
        w.addString("tokenizer.ggml.pre", "gpt-2");
        w.addStringArray("tokenizer.ggml.tokens", s.tokens);
        w.addArray("tokenizer.ggml.merges", ValueType::VALUE_TYPE_U8, std::vector<uint8_t>{1, 2});
    }) << QStringList{QStringLiteral("tokenizer.ggml.merges")};
    QTest::newRow("unknown pre") << Build([](GgufWriter &w) {
        BpeSpec s;
        s.pre = "gpt-5-secret";
        writeBpe(w, s);
    }) << QStringList{QStringLiteral("unknown pre-tokenizer 'gpt-5-secret'")};
    QTest::newRow("add_bos not a bool") << Build([](GgufWriter &w) {
        writeBpe(w, BpeSpec{});
        w.addString("tokenizer.ggml.add_bos_token", "yes");
    }) << QStringList{QStringLiteral("tokenizer.ggml.add_bos_token")};
}

void TestTokenizerVocab::hostile()
{
    QFETCH(Build, build);
    QFETCH(QStringList, message);
    GgufWriter w;
    build(w);
    auto tok = load(w);
    QVERIFY2(!tok, "the vocabulary was accepted");
    for (const QString &part : message)
        QVERIFY2(tok.message().find(part.toStdString()) != std::string::npos, tok.message().c_str());
    QVERIFY2(tok.message().find("made.gguf") != std::string::npos, tok.message().c_str());
}

QTEST_GUILESS_MAIN(TestTokenizerVocab)
#include "tst_tokenizer_vocab.moc"
