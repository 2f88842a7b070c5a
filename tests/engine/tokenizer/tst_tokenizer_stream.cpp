// Streaming detokenization: characters split across tokens appear once,
// whole; invalid bytes become U+FFFD; the output always is valid UTF-8.
#include "gguf/gguf_reader.h"
#include "test_support.h"
#include "tokenizer/stream_decoder.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8.h"

#include <QTest>

using namespace burrow;
using namespace burrow::tokenizer;

namespace {

QByteArray bytes(const std::string &s)
{
    return QByteArray(s.data(), qsizetype(s.size()));
}

std::unique_ptr<Tokenizer> loadShared(const char *name)
{
    auto file = gguf::GgufFile::open(test::sharedPath(QStringLiteral("tokenizer/ggml-vocab-%1.gguf").arg(name)).toStdString());
    if (!file)
        return nullptr;
    auto tok = Tokenizer::fromGguf(*file.value());
    return tok ? std::move(tok.value()) : nullptr;
}

} // namespace

class TestTokenizerStream : public QObject {
    Q_OBJECT

private slots:
    void splitAtEveryByte_data();
    void splitAtEveryByte();
    void splitIntoTwoAtEveryBoundary_data();
    void splitIntoTwoAtEveryBoundary();
    void invalid_data();
    void invalid();
    void realTokens_data();
    void realTokens();
};

void TestTokenizerStream::splitAtEveryByte_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::newRow("chinese") << QByteArray("我想在apple工作");
    QTest::newRow("emoji") << QByteArray("🦙 and 🚀!");
    QTest::newRow("zwj sequence") << QByteArray("😶‍🌫️");
    QTest::newRow("two-byte") << QByteArray("Führer Cửa Việt");
    QTest::newRow("ascii") << QByteArray("plain text");
}

// Byte by byte: nothing comes out until a character is complete, then the
// whole character does.
void TestTokenizerStream::splitAtEveryByte()
{
    QFETCH(QByteArray, text);
    const std::string s = text.toStdString();
    Utf8StreamDecoder decoder;
    std::string all;
    size_t pos = 0;
    while (pos < s.size()) {
        const Utf8Sequence seq = utf8Decode(s, pos);
        QCOMPARE(int(seq.status), int(Utf8Status::UTF8_STATUS_VALID));
        for (size_t k = 0; k < seq.length; ++k) {
            const std::string out = decoder.push(s.substr(pos + k, 1));
            if (k + 1 < seq.length) {
                QCOMPARE(bytes(out), QByteArray());
                QVERIFY(decoder.hasPending());
            } else {
                QCOMPARE(bytes(out), bytes(s.substr(pos, seq.length)));
                QVERIFY(!decoder.hasPending());
            }
            all += out;
        }
        pos += seq.length;
    }
    QCOMPARE(bytes(decoder.finish()), QByteArray());
    QCOMPARE(bytes(all), text);
}

void TestTokenizerStream::splitIntoTwoAtEveryBoundary_data()
{
    splitAtEveryByte_data();
}

// Cut anywhere into two pushes: each output is valid UTF-8, together the text.
void TestTokenizerStream::splitIntoTwoAtEveryBoundary()
{
    QFETCH(QByteArray, text);
    const std::string s = text.toStdString();
    for (size_t cut = 0; cut <= s.size(); ++cut) {
        Utf8StreamDecoder decoder;
        const std::string a = decoder.push(s.substr(0, cut));
        const std::string b = decoder.push(s.substr(cut));
        const std::string c = decoder.finish();
        QVERIFY(utf8IsValid(a));
        QVERIFY(utf8IsValid(b));
        QCOMPARE(bytes(a + b + c), text);
        QVERIFY(utf8IsValid(s.substr(0, a.size())));
    }
}

void TestTokenizerStream::invalid_data()
{
    QTest::addColumn<QByteArrayList>("pushes");
    QTest::addColumn<QByteArray>("expected");   // all outputs plus finish()
    QTest::addColumn<QByteArray>("beforeFinish");
    const QByteArray fffd("\xEF\xBF\xBD");
    QTest::newRow("stray continuation") << QByteArrayList{"a\x80" "b"} << "a" + fffd + "b" << "a" + fffd + "b";
    QTest::newRow("0xFF") << QByteArrayList{"\xFF", "x"} << fffd + "x" << fffd + "x";
    QTest::newRow("unfinished at end") << QByteArrayList{"ok\xE4\xB8"} << "ok" + fffd << QByteArray("ok");
    QTest::newRow("broken by next token") << QByteArrayList{"\xE4\xB8", "a"} << fffd + "a" << fffd + "a";
    QTest::newRow("completed by next token") << QByteArrayList{"\xE4\xB8", "\xAD"} << QByteArray("中") << QByteArray("中");
    QTest::newRow("overlong") << QByteArrayList{"\xC0\xAF"} << fffd + fffd << fffd + fffd;
    QTest::newRow("surrogate") << QByteArrayList{"\xED\xA0\x80"} << fffd + fffd + fffd << fffd + fffd + fffd;
    QTest::newRow("above U+10FFFF") << QByteArrayList{"\xF4\x90\x80\x80"} << fffd + fffd + fffd + fffd
                                    << fffd + fffd + fffd + fffd;
    QTest::newRow("emoji in four tokens") << QByteArrayList{"\xF0", "\x9F", "\xA6", "\x99"} << QByteArray("🦙")
                                          << QByteArray("🦙");
}

void TestTokenizerStream::invalid()
{
    QFETCH(QByteArrayList, pushes);
    QFETCH(QByteArray, expected);
    QFETCH(QByteArray, beforeFinish);
    Utf8StreamDecoder decoder;
    std::string all;
    for (const QByteArray &p : pushes) {
        const std::string out = decoder.push(std::string_view(p.constData(), size_t(p.size())));
        QVERIFY(utf8IsValid(out));
        all += out;
    }
    QCOMPARE(bytes(all), beforeFinish);
    all += decoder.finish();
    QCOMPARE(bytes(all), expected);
    QVERIFY(!decoder.hasPending());
    // The same as sanitizing the whole byte string.
    QCOMPARE(bytes(utf8Sanitize(pushes.join().toStdString())), expected);
}

void TestTokenizerStream::realTokens_data()
{
    QTest::addColumn<QString>("vocab");
    QTest::addColumn<QByteArray>("text");
    for (const char *vocab : {"llama-bpe", "qwen2", "llama-spm", "gpt-2"}) {
        QTest::addRow("%s/chinese", vocab) << QString::fromLatin1(vocab) << QByteArray("我想在apple工作1314151天～");
        QTest::addRow("%s/emoji", vocab) << QString::fromLatin1(vocab)
                                         << QByteArray("🚀 (normal) 😶‍🌫️ (multiple emojis concatenated) ✅ 🦙🦙");
        QTest::addRow("%s/khmer", vocab) << QString::fromLatin1(vocab) << QByteArray("កាន់តែពិសេសអាចខលចេញ");
    }
}

// Real tokenizations split characters across tokens (byte-level BPE pieces,
// SPM byte fallback); the stream shows each character once, whole.
void TestTokenizerStream::realTokens()
{
    QFETCH(QString, vocab);
    QFETCH(QByteArray, text);
    BURROW_REQUIRE_SHARED(QStringLiteral("tokenizer/ggml-vocab-%1.gguf").arg(vocab));
    const auto tok = loadShared(qPrintable(vocab));
    QVERIFY(tok);
    const std::vector<int32_t> ids = tok->tokenize(text.toStdString(), false, false);

    int splitCharacters = 0;
    StreamDecoder decoder(*tok);
    std::string all;
    for (const int32_t id : ids) {
        const std::string piece = tok->tokenBytes(id);
        if (!utf8IsValid(piece))
            ++splitCharacters;
        const std::string out = decoder.push(id);
        QVERIFY2(utf8IsValid(out), qPrintable(QStringLiteral("token %1").arg(id)));
        all += out;
    }
    all += decoder.finish();
    std::string expected = text.toStdString();
    if (tok->addSpacePrefix())
        expected.insert(expected.begin(), ' ');   // the stream keeps SentencePiece's leading space
    QCOMPARE(bytes(all), bytes(expected));
    if (QByteArray(QTest::currentDataTag()).endsWith("/emoji"))
        QVERIFY2(splitCharacters > 0, "the emoji row should split some character across tokens");
}

QTEST_GUILESS_MAIN(TestTokenizerStream)
#include "tst_tokenizer_stream.moc"
