// The official OpenAI Node.js SDK (tests/engine/server/sdk: `openai` pinned
// in package-lock.json, installed by scripts/setup.sh) against `burrow-cli
// serve` on the story model: the model list, chat and completions whole and
// streamed (the stream spells what the whole response says, greedily), the
// usage chunk, max_completion_tokens, stop, n, errors as the SDK's error
// classes, and an aborted stream after which the server still answers; and
// on a random-weight model (sdk_tools_test.mjs): forced tool calls whole and
// streamed with schema-valid arguments, a tool result sent back,
// json_schema / json_object replies, logprobs, an unsupported schema refused;
// and Anthropic's SDK on /v1/messages (sdk_messages_test.mjs).
// Skips when node, the SDK or the model is absent.
#include "serve_process.h"
#include "test_support.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTest>

using namespace burrow::test;

class TestServeSdk : public QObject {
    Q_OBJECT

private slots:
    void openaiNodeSdk_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("script");
        QTest::addColumn<QString>("passed");
        QTest::addColumn<QString>("key");        // --api-key, passed to the script too ("": none)
        QTest::addColumn<QString>("base");       // the base URL's path
        QTest::newRow("stories") << "models/stories260K.gguf" << "sdk_test.mjs" << "checks passed" << "" << "/v1";
        // Tool calls, structured output and logprobs on a random-weight model.
        QTest::newRow("tools") << "models/synthetic/llama-f32.gguf" << "sdk_tools_test.mjs" << "sdk tools:" << ""
                               << "/v1";
        // Anthropic's Messages API with its own SDK (the key as x-api-key).
        QTest::newRow("messages") << "models/synthetic/llama-f32.gguf" << "sdk_messages_test.mjs" << "sdk messages:"
                                  << "test-key" << "";
    }
    void openaiNodeSdk()
    {
        QFETCH(QString, model);
        QFETCH(QString, script);
        QFETCH(QString, passed);
        QFETCH(QString, key);
        QFETCH(QString, base);
        BURROW_REQUIRE_SHARED(model);
        const QString node = QStandardPaths::findExecutable(QStringLiteral("node"));
        if (node.isEmpty())
            QSKIP("node is not installed (scripts/setup.sh installs it); skipping the OpenAI SDK test");
        const QString sdkDir = QStringLiteral(BURROW_SOURCE_DIR "/tests/engine/server/sdk");
        for (const char *package : {"openai", "@anthropic-ai/sdk"})
            if (!QFileInfo::exists(sdkDir + QStringLiteral("/node_modules/") + QLatin1String(package) +
                                   QStringLiteral("/package.json")))
                QSKIP("the SDK packages are not installed (scripts/setup.sh runs npm ci in tests/engine/server/sdk); "
                      "skipping the SDK test");

        QStringList args{QStringLiteral("--parallel"), QStringLiteral("2"), QStringLiteral("-t"), QStringLiteral("2"),
                         QStringLiteral("--alias"), QStringLiteral("stories")};
        if (!key.isEmpty())
            args << QStringLiteral("--api-key") << key;
        ServeProcess server(sharedPath(model), args);
        QVERIFY2(server.ok(), qPrintable(server.error()));

        QProcess p;
        p.setWorkingDirectory(sdkDir);
        p.start(node, {sdkDir + QStringLiteral("/") + script, server.url() + base, QStringLiteral("stories"), key});
        QVERIFY(p.waitForStarted(10000));
        const bool finished = p.waitForFinished(180000);
        const QByteArray out = p.readAllStandardOutput(), err = p.readAllStandardError();
        if (!finished)
            p.kill();
        qInfo("%s", out.constData());
        QVERIFY2(finished, "the SDK script did not finish in time");
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, err.constData());
        QVERIFY(out.contains(passed.toUtf8()));
        QVERIFY2(server.running(), "the server died");
        QCOMPARE(server.stop(), 0);
    }
};

QTEST_MAIN(TestServeSdk)
#include "tst_serve_sdk.moc"
