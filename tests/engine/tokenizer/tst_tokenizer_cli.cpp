// burrow-cli tokenize, run as a process: ids match the reference vectors on
// every vocabulary in ../shared/tokenizer, BOS handling, --special, the
// three text sources, the readable output and the usage errors.
#include "gguf/gguf_reader.h"
#include "cli_process.h"
#include "test_support.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

using burrow::test::cliPath;

QString vocabPath(const QString &name)
{
    return burrow::test::sharedPath(QStringLiteral("tokenizer/ggml-vocab-%1.gguf").arg(name));
}

using Run = burrow::test::ProcessResult;

Run runCli(const QStringList &args, const QByteArray &input = {})
{
    return burrow::test::runCli(QStringList{QStringLiteral("tokenize")} + args, input);
}

// Text k of a vocabulary's .inp and line k of its .out.
bool vectorCase(const QString &name, int k, QByteArray &text, QByteArray &ids)
{
    QFile inp(vocabPath(name) + QStringLiteral(".inp")), out(vocabPath(name) + QStringLiteral(".out"));
    if (!inp.open(QIODevice::ReadOnly) || !out.open(QIODevice::ReadOnly))
        return false;
    const QList<QByteArray> texts = inp.readAll().split('\n');
    // Re-split on the separator line: texts may contain newlines.
    const QByteArray all = texts.join('\n');
    const QList<QByteArray> cases = [&] {
        QList<QByteArray> r;
        const QByteArray sep("\n__ggml_vocab_test__\n");
        qsizetype pos = 0;
        for (qsizetype at; (at = all.indexOf(sep, pos)) >= 0; pos = at + sep.size())
            r << all.mid(pos, at - pos);
        return r;
    }();
    const QList<QByteArray> lines = out.readAll().split('\n');
    if (k >= cases.size() || k >= lines.size())
        return false;
    text = cases[k];
    ids = lines[k].trimmed();
    return true;
}

uint32_t bosOf(const QString &name)
{
    auto file = burrow::gguf::GgufFile::open(vocabPath(name).toStdString());
    uint32_t bos = 0;
    if (!file || !file.value()->getU32("tokenizer.ggml.bos_token_id", bos))
        return UINT32_MAX;
    return bos;
}

} // namespace

class TestTokenizerCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void everyVocabulary_data();
    void everyVocabulary();
    void bos_data();
    void bos();
    void special();
    void sources();
    void readableOutput();
    void errors_data();
    void errors();
};

void TestTokenizerCli::initTestCase()
{
    QVERIFY2(QFileInfo::exists(cliPath()), qPrintable(cliPath() + QStringLiteral(" is not built")));
}

void TestTokenizerCli::everyVocabulary_data()
{
    QTest::addColumn<QString>("vocab");
    QTest::addColumn<int>("index");
    const QDir dir(burrow::test::sharedPath(QStringLiteral("tokenizer")));
    const QStringList files = dir.entryList({QStringLiteral("ggml-vocab-*.gguf")}, QDir::Files, QDir::Name);
    if (files.isEmpty())
        QTest::newRow("no-shared") << QString() << 0;
    for (QString file : files) {
        file.chop(int(strlen(".gguf")));
        const QString name = file.mid(int(strlen("ggml-vocab-")));
        // "Hello, y'all! How are you 😁 ?我想在apple工作1314151天～" and a
        // whitespace-heavy case.
        QTest::addRow("%s/32", qPrintable(name)) << name << 32;
        QTest::addRow("%s/28", qPrintable(name)) << name << 28;
    }
}

void TestTokenizerCli::everyVocabulary()
{
    QFETCH(QString, vocab);
    QFETCH(int, index);
    if (vocab.isEmpty())
        BURROW_REQUIRE_SHARED(QStringLiteral("tokenizer/ggml-vocab-llama-bpe.gguf"));
    QByteArray text, ids;
    QVERIFY(vectorCase(vocab, index, text, ids));
    QTemporaryDir dir;
    QFile f(dir.filePath(QStringLiteral("text.txt")));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
    f.close();
    const Run r = runCli({QStringLiteral("-m"), vocabPath(vocab), QStringLiteral("--ids"), QStringLiteral("--no-bos"),
                          QStringLiteral("-f"), f.fileName()});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out, ids + '\n');
    QCOMPARE(r.err, QByteArray());
}

void TestTokenizerCli::bos_data()
{
    QTest::addColumn<QString>("vocab");
    QTest::addColumn<bool>("addsBos");   // what the file's metadata says
    QTest::newRow("llama-bpe") << QStringLiteral("llama-bpe") << true;
    QTest::newRow("llama-spm") << QStringLiteral("llama-spm") << true;
    QTest::newRow("qwen2") << QStringLiteral("qwen2") << false;
    QTest::newRow("gpt-2") << QStringLiteral("gpt-2") << false;
}

void TestTokenizerCli::bos()
{
    QFETCH(QString, vocab);
    QFETCH(bool, addsBos);
    BURROW_REQUIRE_SHARED(QStringLiteral("tokenizer/ggml-vocab-%1.gguf").arg(vocab));
    QByteArray text, ids;
    QVERIFY(vectorCase(vocab, 11, text, ids));   // "Hello world"
    QCOMPARE(text, QByteArray("Hello world"));
    const Run with = runCli({QStringLiteral("-m"), vocabPath(vocab), QStringLiteral("--ids"), QStringLiteral("-p"),
                             QString::fromUtf8(text)});
    QCOMPARE(with.exitCode, 0);
    const QByteArray expected = addsBos ? QByteArray::number(bosOf(vocab)) + ' ' + ids : ids;
    QCOMPARE(with.out, expected + '\n');
    const Run without = runCli({QStringLiteral("--no-bos"), QStringLiteral("-m"), vocabPath(vocab),
                                QStringLiteral("--ids"), QStringLiteral("-p"), QString::fromUtf8(text)});
    QCOMPARE(without.exitCode, 0);
    QCOMPARE(without.out, ids + '\n');
}

void TestTokenizerCli::special()
{
    BURROW_REQUIRE_SHARED(QStringLiteral("tokenizer/ggml-vocab-llama-bpe.gguf"));
    const QString model = vocabPath(QStringLiteral("llama-bpe"));
    // <|begin_of_text|> is 128000 and <|eot_id|> 128009 in this file's token list.
    const Run parsed = runCli({QStringLiteral("-m"), model, QStringLiteral("--ids"), QStringLiteral("--no-bos"),
                               QStringLiteral("--special"), QStringLiteral("-p"),
                               QStringLiteral("<|begin_of_text|><|eot_id|>")});
    QCOMPARE(parsed.exitCode, 0);
    QCOMPARE(parsed.out, QByteArray("128000 128009\n"));
    const Run plain = runCli({QStringLiteral("-m"), model, QStringLiteral("--ids"), QStringLiteral("--no-bos"),
                              QStringLiteral("-p"), QStringLiteral("<|eot_id|>")});
    QCOMPARE(plain.exitCode, 0);
    const QList<QByteArray> ids = plain.out.trimmed().split(' ');
    QVERIFY(ids.size() > 1);
    QVERIFY(!ids.contains("128009"));
}

void TestTokenizerCli::sources()
{
    BURROW_REQUIRE_SHARED(QStringLiteral("tokenizer/ggml-vocab-qwen2.gguf"));
    const QString model = vocabPath(QStringLiteral("qwen2"));
    const QByteArray text("Hello, y'all!\n你好");
    const Run fromArg = runCli({QStringLiteral("-m"), model, QStringLiteral("--ids"), QStringLiteral("-p"),
                                QString::fromUtf8(text)});
    QCOMPARE(fromArg.exitCode, 0);
    QVERIFY(!fromArg.out.trimmed().isEmpty());

    QTemporaryDir dir;
    QFile f(dir.filePath(QStringLiteral("in.txt")));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
    f.close();
    const Run fromFile = runCli({QStringLiteral("-m"), model, QStringLiteral("--ids"), QStringLiteral("-f"), f.fileName()});
    QCOMPARE(fromFile.exitCode, 0);
    QCOMPARE(fromFile.out, fromArg.out);

    const Run fromStdin = runCli({QStringLiteral("-m"), model, QStringLiteral("--ids"), QStringLiteral("--stdin")}, text);
    QCOMPARE(fromStdin.exitCode, 0);
    QCOMPARE(fromStdin.out, fromArg.out);
}

void TestTokenizerCli::readableOutput()
{
    BURROW_REQUIRE_SHARED(QStringLiteral("tokenizer/ggml-vocab-llama-spm.gguf"));
    const QString model = vocabPath(QStringLiteral("llama-spm"));
    const Run ids = runCli({QStringLiteral("-m"), model, QStringLiteral("--ids"), QStringLiteral("-p"),
                            QStringLiteral("Hello\nworld 🦙")});
    const Run readable = runCli({QStringLiteral("-m"), model, QStringLiteral("-p"), QStringLiteral("Hello\nworld 🦙")});
    QCOMPARE(readable.exitCode, 0);
    const QList<QByteArray> idList = ids.out.trimmed().split(' ');
    const QList<QByteArray> lines = readable.out.trimmed().split('\n');
    QCOMPARE(lines.size(), idList.size());
    for (int i = 0; i < lines.size(); ++i) {
        QCOMPARE(lines[i].trimmed().split(' ').first(), idList[i]);
        QVERIFY(lines[i].endsWith('\''));
    }
    QCOMPARE(lines.first().trimmed(), QByteArray("1 '<s>'"));   // BOS, rendered
    QVERIFY(readable.out.contains("' Hello'"));
    QVERIFY(readable.out.contains("'\\n'"));                     // <0x0A>, escaped
    QVERIFY(readable.out.contains("'\\xF0'"));                   // the llama's first byte token
}

void TestTokenizerCli::errors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    const QString model = vocabPath(QStringLiteral("gpt-2"));
    QTest::newRow("no model") << QStringList{QStringLiteral("-p"), QStringLiteral("x")} << 2 << QStringLiteral("-m MODEL");
    QTest::newRow("no text") << QStringList{QStringLiteral("-m"), model} << 2 << QStringLiteral("exactly one");
    QTest::newRow("two sources") << QStringList{QStringLiteral("-m"), model, QStringLiteral("-p"), QStringLiteral("x"),
                                                QStringLiteral("--stdin")}
                                 << 2 << QStringLiteral("exactly one");
    QTest::newRow("unknown option") << QStringList{QStringLiteral("--frobnicate")} << 2 << QStringLiteral("--frobnicate");
    QTest::newRow("missing value") << QStringList{QStringLiteral("-m")} << 2 << QStringLiteral("needs a value");
    QTest::newRow("missing model file") << QStringList{QStringLiteral("-m"), QStringLiteral("/nonexistent/x.gguf"),
                                                       QStringLiteral("-p"), QStringLiteral("x")}
                                        << 1 << QStringLiteral("/nonexistent/x.gguf");
    QTest::newRow("missing text file") << QStringList{QStringLiteral("-m"), model, QStringLiteral("-f"),
                                                      QStringLiteral("/nonexistent/in.txt")}
                                       << 1 << QStringLiteral("/nonexistent/in.txt");
}

void TestTokenizerCli::errors()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    if (exitCode == 1 && message.endsWith(QStringLiteral("in.txt")))
        BURROW_REQUIRE_SHARED(QStringLiteral("tokenizer/ggml-vocab-gpt-2.gguf"));
    const Run r = runCli(args);
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    QVERIFY(r.out.isEmpty());
}

QTEST_GUILESS_MAIN(TestTokenizerCli)
#include "tst_tokenizer_cli.moc"
