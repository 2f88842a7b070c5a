// burrow-cli models, run as a process on a fake home (fake_home.h) found
// through HOME and OLLAMA_MODELS: the JSON lists the home's models exactly
// (path, source, name, family, type, size, parts, runnable or why not), the
// files passed over and the places; the text shows each model's row and
// path and a summary; --folder adds a folder; usage errors exit 2.
#include "cli_process.h"
#include "fake_home.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace burrow::test;

namespace {

// A user whose home is `home`: none of the test runner's XDG folders, no
// Hugging Face variables, Ollama's folder named (so a system-wide one on
// this machine stays out).
QProcessEnvironment homeEnvironment(const QString &home)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *name : {"XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "HF_HOME", "HF_HUB_CACHE",
                             "HUGGINGFACE_HUB_CACHE"})
        env.remove(QString::fromLatin1(name));
    env.insert(QStringLiteral("HOME"), home);
    env.insert(QStringLiteral("OLLAMA_MODELS"), home + QStringLiteral("/.ollama/models"));
    return env;
}

} // namespace

class TestModelsTool : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        QVERIFY(m_fake.build(m_home.path()));
    }

    void json()
    {
        const ProcessResult r = runCli({QStringLiteral("models"), QStringLiteral("--json"), QStringLiteral("--folder"),
                                        m_fake.path(QStringLiteral("Models"))},
                                       {}, 60000, homeEnvironment(m_home.path()));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QJsonParseError error{};
        const QJsonObject doc = QJsonDocument::fromJson(r.out, &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));

        const QJsonArray models = doc.value(QLatin1String("models")).toArray();
        const QList<ExpectedModel> expected = FakeHome::expectedModels();
        QCOMPARE(models.size(), expected.size());
        for (int i = 0; i < expected.size(); ++i) {
            const QJsonObject m = models.at(i).toObject();
            const ExpectedModel &e = expected[i];
            QCOMPARE(m.value(QLatin1String("path")).toString(), m_fake.path(e.path));
            QCOMPARE(m.value(QLatin1String("real_path")).toString(), QFileInfo(m_fake.path(e.path)).canonicalFilePath());
            QCOMPARE(m.value(QLatin1String("source")).toString(), e.source);
            QCOMPARE(m.value(QLatin1String("name")).toString(), e.name);
            QCOMPARE(m.value(QLatin1String("repository")).toString(), e.repository);
            QCOMPARE(m.value(QLatin1String("family")).toString(), e.family);
            QCOMPARE(m.value(QLatin1String("parts")).toInt(), e.parts);
            QCOMPARE(m.value(QLatin1String("runnable")).toBool(), e.runnable == QLatin1String("yes"));
            if (e.runnable == QLatin1String("yes")) {
                QVERIFY(m.value(QLatin1String("why_not")).isNull());
                QVERIFY(m.value(QLatin1String("why_not_kind")).isNull());
                QCOMPARE(m.value(QLatin1String("type")).toString(), QStringLiteral("F32"));
                QCOMPARE(qint64(m.value(QLatin1String("file_size")).toDouble()), QFileInfo(m_fake.path(e.path)).size());
                QCOMPARE(m.value(QLatin1String("context_length")).toInt(), 64);
            } else {
                QCOMPARE(m.value(QLatin1String("why_not_kind")).toString(), e.runnable);
                QVERIFY(!m.value(QLatin1String("why_not")).toString().isEmpty());
            }
            QVERIFY(!m.value(QLatin1String("size_class")).toString().isEmpty());
            QVERIFY(m.value(QLatin1String("parameter_count")).toDouble() > 0);
            QVERIFY(m.value(QLatin1String("modified")).toDouble() > 0);
            QCOMPARE(m.value(QLatin1String("model_name")).toString().isEmpty(), false);
        }

        QSet<QString> skipped;
        for (const QJsonValue &s : doc.value(QLatin1String("skipped")).toArray())
            skipped.insert(s.toObject().value(QLatin1String("path")).toString().mid(m_home.path().size() + 1));
        QSet<QString> expectedSkipped;
        for (const ExpectedSkip &s : m_fake.expectedSkipped())
            expectedSkipped.insert(s.path);
        QCOMPARE(skipped, expectedSkipped);

        // The places: the defaults of this home, then the folder.
        const QJsonArray places = doc.value(QLatin1String("places")).toArray();
        QCOMPARE(places.size(), 11);
        QCOMPARE(places.first().toObject().value(QLatin1String("source")).toString(), QStringLiteral("burrow"));
        QCOMPARE(places.first().toObject().value(QLatin1String("path")).toString(),
                 m_fake.path(QStringLiteral(".local/share/Burrow/models")));
        QCOMPARE(places.last().toObject().value(QLatin1String("source")).toString(), QStringLiteral("folder"));
        QCOMPARE(places.last().toObject().value(QLatin1String("models")).toInt(), 1);
        QCOMPARE(places.at(9).toObject().value(QLatin1String("exists")).toBool(), true);   // the hub cache
        QCOMPARE(places.at(8).toObject().value(QLatin1String("exists")).toBool(), false);  // ~/jan/models
    }

    void text()
    {
        const ProcessResult r = runCli({QStringLiteral("models")}, {}, 60000, homeEnvironment(m_home.path()));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QStringList lines = QString::fromUtf8(r.out).split(QLatin1Char('\n'));
        QVERIFY(lines.first().startsWith(QStringLiteral("SOURCE")));
        for (const char *column : {"NAME", "FAMILY", "SIZE", "TYPE", "FILE SIZE", "RUNS"})
            QVERIFY2(lines.first().contains(QLatin1String(column)), column);
        // Without --folder: every expected model but the folder's, each a row and its path below.
        QList<ExpectedModel> expected = FakeHome::expectedModels();
        expected.removeLast();
        int runnable = 0;
        for (int i = 0; i < expected.size(); ++i) {
            const QString row = lines.value(1 + 2 * i), path = lines.value(2 + 2 * i);
            QVERIFY2(row.contains(expected[i].name), qPrintable(row));
            QCOMPARE(path.trimmed(), m_fake.path(expected[i].path));
            if (expected[i].runnable == QLatin1String("yes")) {
                QVERIFY2(row.endsWith(QStringLiteral("  yes")), qPrintable(row));
                ++runnable;
            } else {
                QVERIFY2(row.contains(QStringLiteral("  no: ")), qPrintable(row));
            }
        }
        QVERIFY2(r.out.contains("no: the 'mamba' architecture is not supported yet"), r.out.constData());
        QVERIFY(r.out.contains(QStringLiteral("\n%1 models, %2 of them runnable. %3 files or folders passed over "
                                              "(--verbose lists them).\n")
                                   .arg(expected.size())
                                   .arg(runnable)
                                   .arg(m_fake.expectedSkipped().size())
                                   .toUtf8()));
    }

    void verbose()
    {
        const ProcessResult r = runCli({QStringLiteral("models"), QStringLiteral("--verbose")}, {}, 60000,
                                       homeEnvironment(m_home.path()));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("\nplaces:\n"));
        QVERIFY(r.out.contains((m_fake.path(QStringLiteral(".ollama/models")) + QStringLiteral(" (2 models)")).toUtf8()));
        QVERIFY(r.out.contains((m_fake.path(QStringLiteral("jan/models")) + QStringLiteral(" (absent)")).toUtf8()));
        QVERIFY(r.out.contains("\npassed over:\n"));
        QVERIFY(r.out.contains(
            (m_fake.path(QStringLiteral(".lmstudio/models/notes/fake.gguf")) + QStringLiteral(": not a GGUF file"))
                .toUtf8()));
    }

    void emptyHome()
    {
        QTemporaryDir empty;
        QVERIFY(empty.isValid());
        const ProcessResult text = runCli({QStringLiteral("models")}, {}, 60000, homeEnvironment(empty.path()));
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains("\n0 models, 0 of them runnable.\n"));
        const ProcessResult json =
            runCli({QStringLiteral("models"), QStringLiteral("--json")}, {}, 60000, homeEnvironment(empty.path()));
        QCOMPARE(json.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(json.out).object();
        QVERIFY(doc.value(QLatin1String("models")).isArray());
        QCOMPARE(doc.value(QLatin1String("models")).toArray().size(), 0);
        QCOMPARE(doc.value(QLatin1String("skipped")).toArray().size(), 0);
    }

    void usage_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown option") << QStringList{"models", "--fast"} << "unknown option '--fast'";
        QTest::newRow("folder without a value") << QStringList{"models", "--folder"} << "--folder needs a value";
    }
    void usage()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const ProcessResult r = runCli(args, {}, 60000, homeEnvironment(m_home.path()));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    }

private:
    QTemporaryDir m_home;
    FakeHome m_fake;
};

QTEST_MAIN(TestModelsTool)
#include "tst_models_tool.moc"
