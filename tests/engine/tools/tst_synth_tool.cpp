// burrow-cli synth, run as a process: the file it writes is described by
// `burrow-cli info --json` as asked (architecture, file type, sizes, heads,
// experts, sliding window, vocabulary, parameter counts worked out here from
// the options), the same seed gives the same bytes, and usage errors exit 2
// with a message (a failed write exits 1) leaving neither the file nor a
// .part behind; burrow-cli bench's weights read per token on gemma4 files.
#include "cli_process.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace burrow::test;

namespace {

QJsonObject infoJson(const QString &path)
{
    const ProcessResult r = runCli({QStringLiteral("info"), path, QStringLiteral("--json")});
    if (r.exitCode != 0)
        return {};
    return QJsonDocument::fromJson(r.out).object();
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestSynthTool : public QObject {
    Q_OBJECT

private slots:
    void describedAsAsked_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("arch");
        QTest::addColumn<QString>("fileType");
        // embd, layers, heads, kv heads, head dim, ffn, vocab, ctx, experts, used, expert ffn, window, sliding layers
        QTest::addColumn<QList<int>>("shape");
        QTest::newRow("llama by options, Q8_0")
            << QStringList{"--arch", "llama", "--embd", "128", "--layers", "3", "--heads", "4", "--kv-heads", "2",
                           "--ffn", "256", "--vocab", "300", "--ctx", "512", "--type", "Q8_0"}
            << "llama" << "Q8_0" << QList<int>{128, 3, 4, 2, 32, 256, 300, 512, 0, 0, 0, 0, 0};
        QTest::newRow("gemma3 with a window, Q4_K_M")
            << QStringList{"--arch", "gemma3", "--embd", "256", "--layers", "7", "--heads", "4", "--kv-heads", "1",
                           "--head-dim", "64", "--ffn", "512", "--vocab", "260", "--ctx", "1024",
                           "--sliding-window", "32", "--type", "Q4_K_M"}
            << "gemma3" << "Q4_K_M" << QList<int>{256, 7, 4, 1, 64, 512, 260, 1024, 0, 0, 0, 32, 6};
        QTest::newRow("qwen3moe preset with more experts, F16")
            << QStringList{"--preset", "qwen3moe-tiny", "--experts", "16", "--experts-used", "4", "--type", "f16"}
            << "qwen3moe" << "F16" << QList<int>{256, 2, 4, 2, 128, 768, 512, 1024, 16, 4, 256, 0, 0};
        QTest::newRow("gpt-oss preset, pattern 4, Q4_0")
            << QStringList{"--preset", "gpt-oss-tiny", "--sliding-pattern", "4", "--type", "Q4_0"}
            << "gpt-oss" << "Q4_0" << QList<int>{256, 4, 8, 2, 64, 256, 512, 1024, 8, 2, 256, 8, 3};
    }
    void describedAsAsked()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, arch);
        QFETCH(QString, fileType);
        QFETCH(QList<int>, shape);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString out = dir.filePath(QStringLiteral("m.gguf"));
        const ProcessResult r = runCli(QStringList{QStringLiteral("synth")} + args +
                                       QStringList{QStringLiteral("--seed"), QStringLiteral("3"), QStringLiteral("-o"), out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("[   1/"));   // a line per tensor
        QVERIFY(r.out.contains(out.toUtf8() + ": " + arch.toUtf8()));
        QVERIFY(!QFile::exists(out + QStringLiteral(".part")));

        const QJsonObject info = infoJson(out);
        QVERIFY(!info.isEmpty());
        QCOMPARE(info.value(QLatin1String("architecture")).toString(), arch);
        QCOMPARE(info.value(QLatin1String("file_type")).toString(), fileType);
        const uint64_t E = shape[0], L = shape[1], H = shape[2], KVH = shape[3], Dh = shape[4], F = shape[5],
                       V = shape[6], X = shape[8], XU = shape[9], FE = shape[10];
        QCOMPARE(info.value(QLatin1String("embedding_length")).toInt(), shape[0]);
        QCOMPARE(info.value(QLatin1String("block_count")).toInt(), shape[1]);
        QCOMPARE(info.value(QLatin1String("head_count")).toInt(), shape[2]);
        QCOMPARE(info.value(QLatin1String("head_count_kv")).toInt(), shape[3]);
        QCOMPARE(info.value(QLatin1String("head_dim")).toInt(), shape[4]);
        QCOMPARE(info.value(QLatin1String("vocab_size")).toInt(), shape[6]);
        QCOMPARE(info.value(QLatin1String("context_length")).toInt(), shape[7]);
        QCOMPARE(info.value(QLatin1String("expert_count")).toInt(), shape[8]);
        QCOMPARE(info.value(QLatin1String("expert_used_count")).toInt(), shape[9]);
        QCOMPARE(info.value(QLatin1String("sliding_window")).toInt(), shape[11]);
        QCOMPARE(info.value(QLatin1String("sliding_layer_count")).toInt(), shape[12]);
        QCOMPARE(info.value(QLatin1String("bos_token_id")).toInt(), 1);
        QCOMPARE(info.value(QLatin1String("eos_token_id")).toInt(), 2);
        QCOMPARE(qint64(info.value(QLatin1String("file_size")).toDouble()), QFileInfo(out).size());

        // Parameters from the shape (every row here has its own output matrix).
        const uint64_t Q = H * Dh, KV = KVH * Dh;
        const bool gptOss = arch == QLatin1String("gpt-oss"), gemma3 = arch == QLatin1String("gemma3");
        const bool moe = X > 0;
        uint64_t layer = 2 * E + E * Q + 2 * E * KV + Q * E;   // attn_norm, ffn norm, q, k, v, o
        if (arch == QLatin1String("qwen3moe") || gemma3)
            layer += 2 * Dh;                                    // q/k norms
        if (gemma3)
            layer += 2 * E;                                     // post-norms
        if (gptOss)
            layer += Q + 2 * KV + E + H + X;                    // q/k/v/o biases, sinks, router bias
        uint64_t experts = 0;
        if (moe) {
            layer += E * X;
            experts = 3 * E * FE * X + (gptOss ? 2 * FE * X + E * X : 0);
        } else {
            layer += 3 * E * F;
        }
        const uint64_t total = 2 * E * V + E + L * (layer + experts);
        const uint64_t active = moe ? total - L * experts + L * experts / X * XU : total;
        QCOMPARE(uint64_t(info.value(QLatin1String("parameter_count")).toDouble()), total);
        QCOMPARE(uint64_t(info.value(QLatin1String("active_parameter_count")).toDouble()), active);
    }

    // qwen35 by options: the DeltaNet sizes and the attention interval reach
    // the file (burrow-cli info's layer and state counts), and it generates;
    // --chat-template puts a template in (burrow-cli template renders it).
    void hybridByOptions()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString out = dir.filePath(QStringLiteral("h.gguf"));
        const ProcessResult r = runCli(
            {QStringLiteral("synth"), QStringLiteral("--arch"), QStringLiteral("qwen35"), QStringLiteral("--embd"),
             QStringLiteral("128"), QStringLiteral("--layers"), QStringLiteral("5"), QStringLiteral("--heads"),
             QStringLiteral("2"), QStringLiteral("--kv-heads"), QStringLiteral("1"), QStringLiteral("--head-dim"),
             QStringLiteral("64"), QStringLiteral("--ffn"), QStringLiteral("256"), QStringLiteral("--vocab"),
             QStringLiteral("300"), QStringLiteral("--ssm-state"), QStringLiteral("32"), QStringLiteral("--ssm-key-heads"),
             QStringLiteral("2"), QStringLiteral("--ssm-value-heads"), QStringLiteral("4"),
             QStringLiteral("--attention-interval"), QStringLiteral("5"), QStringLiteral("--type"), QStringLiteral("Q8_0"),
             QStringLiteral("-q"), QStringLiteral("-o"), out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject info = infoJson(out);
        QCOMPARE(info.value(QLatin1String("architecture")).toString(), QStringLiteral("qwen35"));
        QCOMPARE(info.value(QLatin1String("block_count")).toInt(), 5);
        QCOMPARE(info.value(QLatin1String("recurrent_layer_count")).toInt(), 4);   // all but layer 4
        // Per recurrent layer: 3 conv inputs of 2 x 2 x 32 + 4 x 32 channels,
        // and 4 value heads' 32 x 32 matrices, F32.
        QCOMPARE(qint64(info.value(QLatin1String("recurrent_state_bytes")).toDouble()),
                 qint64(4 * (3 * (2 * 2 * 32 + 4 * 32) + 4 * 32 * 32) * 4));
        // --chat-template writes the file's text; `template` renders with it.
        const QString jinja = dir.filePath(QStringLiteral("t.jinja"));
        {
            QFile f(jinja);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}"
                    "{% if add_generation_prompt %}[assistant] <think>\n{% endif %}");
        }
        const QString templated = dir.filePath(QStringLiteral("t.gguf"));
        const ProcessResult withTemplate = runCli({QStringLiteral("synth"), QStringLiteral("--preset"),
                                                   QStringLiteral("qwen35-tiny"), QStringLiteral("--chat-template"),
                                                   jinja, QStringLiteral("-q"), QStringLiteral("-o"), templated});
        QVERIFY2(withTemplate.exitCode == 0, withTemplate.err.constData());
        const QString messages = dir.filePath(QStringLiteral("m.json"));
        {
            QFile f(messages);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(R"([{"role": "user", "content": "Hello"}])");
        }
        const ProcessResult rendered = runCli({QStringLiteral("template"), QStringLiteral("-m"), templated,
                                               QStringLiteral("--messages"), messages,
                                               QStringLiteral("--add-generation-prompt")});
        QVERIFY2(rendered.exitCode == 0, rendered.err.constData());
        QVERIFY2(rendered.out.contains("[user] Hello\n[assistant] <think>\n"), rendered.out.constData());
        const ProcessResult missing = runCli({QStringLiteral("synth"), QStringLiteral("--preset"),
                                              QStringLiteral("qwen35-tiny"), QStringLiteral("--chat-template"),
                                              dir.filePath(QStringLiteral("none.jinja")), QStringLiteral("-o"), templated});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(missing.err.contains("--chat-template: cannot open"), missing.err.constData());

        const ProcessResult run = runCli({QStringLiteral("run"), QStringLiteral("-m"), out, QStringLiteral("-p"),
                                          QStringLiteral("ab cd"), QStringLiteral("-n"), QStringLiteral("8"),
                                          QStringLiteral("--temp"), QStringLiteral("0")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
    }

    void sameSeedSameBytes()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QByteArray files[3];
        const char *seeds[3] = {"9", "9", "10"};
        const char *threads[3] = {"1", "2", "2"};
        for (int i = 0; i < 3; ++i) {
            const QString out = dir.filePath(QStringLiteral("m%1.gguf").arg(i));
            const ProcessResult r = runCli({QStringLiteral("synth"), QStringLiteral("--preset"), QStringLiteral("llama-tiny"),
                                            QStringLiteral("--type"), QStringLiteral("Q4_K_M"), QStringLiteral("--seed"),
                                            QString::fromLatin1(seeds[i]), QStringLiteral("-t"),
                                            QString::fromLatin1(threads[i]), QStringLiteral("-q"), QStringLiteral("-o"), out});
            QVERIFY2(r.exitCode == 0, r.err.constData());
            QVERIFY(!r.out.contains("[   1/"));   // -q
            files[i] = readAll(out);
        }
        QVERIFY(!files[0].isEmpty());
        QVERIFY(files[0] == files[1]);
        QVERIFY(files[0] != files[2]);
    }

    // burrow-cli bench's weights read per token on gemma4 files synth writes
    // in F32: the E-shape reads one row of its per-layer embedding table
    // (the output tied to the embeddings, read whole); the 26B-A4B shape
    // reads 2 of its 8 experts (5 layers of experts: gate and up 256 x 512,
    // down 256 x 256, 4 bytes each).
    void benchReadsPerToken_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::newRow("E-shape") << QStringLiteral("gemma4-tiny");
        QTest::newRow("26B-A4B shape") << QStringLiteral("gemma4moe-tiny");
    }

    void benchReadsPerToken()
    {
        QFETCH(QString, preset);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString out = dir.filePath(preset + QStringLiteral(".gguf"));
        const ProcessResult made = runCli({QStringLiteral("synth"), QStringLiteral("--preset"), preset, QStringLiteral("-q"),
                                           QStringLiteral("-o"), out});
        QVERIFY2(made.exitCode == 0, made.err.constData());
        const QJsonObject info = infoJson(out);
        const qint64 weights = info.value(QStringLiteral("weight_bytes")).toInteger();
        QVERIFY(weights > 0);
        qint64 expected = weights;
        if (preset == QLatin1String("gemma4-tiny")) {
            const qint64 table = info.value(QStringLiteral("per_layer_embedding_bytes")).toInteger();
            QCOMPARE(table, qint64(128) * 6 * 512 * 4);
            expected = weights - table + table / 512;
        } else {
            const qint64 experts = qint64(5) * (256 * 512 + 256 * 256) * 8 * 4;
            expected = weights - experts / 8 * 6;
        }
        const ProcessResult r = runCli({QStringLiteral("bench"), QStringLiteral("-m"), out, QStringLiteral("-p"),
                                        QStringLiteral("0"), QStringLiteral("-n"), QStringLiteral("1"), QStringLiteral("-r"),
                                        QStringLiteral("1"), QStringLiteral("-t"), QStringLiteral("1"),
                                        QStringLiteral("--no-warmup"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray tests = QJsonDocument::fromJson(r.out).array();
        QCOMPARE(tests.size(), 1);
        QCOMPARE(tests.at(0).toObject().value(QStringLiteral("weight_bytes_per_token")).toInteger(), expected);
    }

    // --dry-run writes nothing and gives the size the file will have.
    void dryRun()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString out = dir.filePath(QStringLiteral("m.gguf"));
        const QStringList args = {QStringLiteral("synth"), QStringLiteral("--preset"), QStringLiteral("gpt-oss-tiny"),
                                  QStringLiteral("--type"), QStringLiteral("Q4_K_M")};
        const ProcessResult plan = runCli(args + QStringList{QStringLiteral("--dry-run")});
        QVERIFY2(plan.exitCode == 0, plan.err.constData());
        QVERIFY(!QFile::exists(out));
        qint64 size = -1;
        int tensors = -1, typed = 0;
        for (const QByteArray &line : plan.out.split('\n')) {
            const QList<QByteArray> f = line.split(' ');
            if (f.size() == 2 && f[0] == "file_size")
                size = f[1].toLongLong();
            else if (f.size() == 2 && f[0] == "tensors")
                tensors = f[1].toInt();
            else if (f.size() == 3 && f[0] == "type")
                typed += f[2].toInt();
        }
        const ProcessResult r = runCli(args + QStringList{QStringLiteral("-q"), QStringLiteral("-o"), out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(QFileInfo(out).size(), size);
        const QJsonObject info = infoJson(out);
        QCOMPARE(info.value(QLatin1String("tensor_count")).toInt(), tensors);
        QCOMPARE(typed, tensors);
    }

    void help()
    {
        const ProcessResult r = runCli({QStringLiteral("synth"), QStringLiteral("--help")});
        QCOMPARE(r.exitCode, 0);
        for (const char *text : {"usage: burrow-cli synth", "presets:", "llama-1.1b", "llama-3b", "qwen3moe-1b",
                                 "dense-for-qwen3moe-1b", "gpt-oss-tiny", "IQ4_XS"})
            QVERIFY2(r.out.contains(text), text);
        const ProcessResult list = runCli({QStringLiteral("--help")});
        QVERIFY(list.out.contains("synth"));
    }

    void errors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("no architecture") << QStringList{"--type", "Q8_0"} << 2 << "give --arch ARCH or --preset NAME";
        QTest::newRow("no output") << QStringList{"--preset", "llama-tiny", "NOOUT"} << 2 << "give the output file with -o";
        QTest::newRow("unknown preset") << QStringList{"--preset", "llama-7b"} << 2 << "unknown preset 'llama-7b' (presets: llama-1.1b";
        QTest::newRow("preset and arch disagree") << QStringList{"--preset", "llama-tiny", "--arch", "qwen2"} << 2
                                                  << "--arch qwen2 does not match the preset's architecture (llama)";
        QTest::newRow("unknown architecture") << QStringList{"--arch", "mamba"} << 2 << "architecture 'mamba' is not supported";
        QTest::newRow("unknown type") << QStringList{"--preset", "llama-tiny", "--type", "Q9"} << 2
                                      << "file type 'Q9' is not one of: F32, F16";
        QTest::newRow("bad number") << QStringList{"--preset", "llama-tiny", "--layers", "two"} << 2
                                    << "--layers expects a number 0..4294967295, got 'two'";
        QTest::newRow("negative number") << QStringList{"--preset", "llama-tiny", "--embd", "-5"} << 2
                                         << "--embd expects a number";
        QTest::newRow("value missing") << QStringList{"--preset", "llama-tiny", "-o", "unused.gguf", "--seed", "NOOUT"} << 2
                                       << "--seed needs a value";
        QTest::newRow("more active experts than experts")
            << QStringList{"--preset", "qwen3moe-tiny", "--experts-used", "9"} << 2 << "active expert count is 9, expected 1..8";
        QTest::newRow("experts on llama") << QStringList{"--preset", "llama-tiny", "--experts", "4"} << 2 << "llama has no experts";
        QTest::newRow("unknown option") << QStringList{"--preset", "llama-tiny", "--imatrix", "x"} << 2 << "unknown option '--imatrix'";
        QTest::newRow("bad threads") << QStringList{"--preset", "llama-tiny", "-t", "0"} << 2 << "-t expects a number of threads";
        QTest::newRow("rows not a multiple of the block")
            << QStringList{"--preset", "llama-tiny", "--embd", "200", "--heads", "4", "--kv-heads", "2", "--type", "Q8_0"} << 1
            << "has rows of 200 elements, not a multiple of 32 as type Q8_0 needs";
        QTest::newRow("no output folder") << QStringList{"--preset", "llama-tiny", "NOWHERE"} << 1 << "cannot create";
    }
    void errors()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QString out = dir.filePath(QStringLiteral("m.gguf"));
        const int noOut = args.indexOf(QStringLiteral("NOOUT"));
        const int nowhere = args.indexOf(QStringLiteral("NOWHERE"));
        if (noOut >= 0) {
            args.removeAt(noOut);
        } else if (nowhere >= 0) {
            out = dir.filePath(QStringLiteral("nowhere/m.gguf"));
            args.removeAt(nowhere);
            args << QStringLiteral("-o") << out;
        } else {
            args << QStringLiteral("-o") << out;
        }
        const ProcessResult r = runCli(QStringList{QStringLiteral("synth")} + args);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
        QVERIFY(!QFile::exists(out));
        QVERIFY(!QFile::exists(out + QStringLiteral(".part")));
    }
};

QTEST_MAIN(TestSynthTool)
#include "tst_synth_tool.moc"
