// burrow-cli chat --mcp CONFIG, run as a process: a scripted model (synth
// --script, the qwen3 shape with tests/engine/chat/chatml-tools.jinja and
// the whole call as one token) calls the echo tool of the reference MCP
// server (server-everything from npm, tests/mcp), the call is asked about on
// the terminal (y / n) or allowed with --mcp-allow-all, its result goes back
// and the reply goes on ("ok got it"). Servers that misbehave (die at
// start or in the call, write garbage and hang, a URL, a bad file) are
// reported with a sentence, bounded by the config's "timeout".
#include "cli_process.h"

#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace burrow::test;

namespace {

const QString kTemplate = QStringLiteral(BURROW_SOURCE_DIR "/tests/engine/chat/chatml-tools.jinja");
const QString kEverything = QStringLiteral(
    BURROW_SOURCE_DIR "/tests/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const QString kCall = QStringLiteral("{\"name\":\"echo\",\"arguments\":{\"message\":\"hi\"}}");

// A stdio server in sh: answers initialize and tools/list (one tool, echo), then `then`.
QString shServer(const QString &then)
{
    return QStringLiteral(
               "read l; echo '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}'; read l; read l; "
               "echo '{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":[{\"name\":\"echo\",\"inputSchema\":"
               "{\"type\":\"object\"}}]}}'; read l; %1")
        .arg(then);
}

QByteArray jsonString(const QString &s)
{
    QByteArray out = "\"";
    for (QChar c : s) {
        if (c == QLatin1Char('"') || c == QLatin1Char('\\'))
            out += '\\';
        out += QString(c).toUtf8();
    }
    return out + "\"";
}

} // namespace

class TestChatMcp : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_model;

    QString config(const QByteArray &servers)
    {
        static int n = 0;
        const QString path = m_dir.filePath(QStringLiteral("mcp%1.json").arg(++n));
        QFile f(path);
        if (f.open(QIODevice::WriteOnly))
            f.write("{\"mcpServers\": {" + servers + "}}");
        return path;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_model = m_dir.filePath(QStringLiteral("calls-echo.gguf"));
        QStringList args{QStringLiteral("synth"), QStringLiteral("--preset"), QStringLiteral("qwen3-tiny"),
                         QStringLiteral("--untied"), QStringLiteral("--vocab"), QStringLiteral("32000"),
                         QStringLiteral("--ctx"), QStringLiteral("8192"), QStringLiteral("--type"), QStringLiteral("Q8_0"),
                         QStringLiteral("--chat-template"), kTemplate, QStringLiteral("--script"),
                         QStringLiteral("\\n <tool_call> %1 </tool_call> <|im_end|> <|tool_results|> _ok _got _it </s>").arg(kCall),
                         QStringLiteral("-q"), QStringLiteral("-o"), m_model};
        for (const char *token : {"<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<|tool_results|>"})
            args << QStringLiteral("--token") << QString::fromLatin1(token);
        args << QStringLiteral("--token") << kCall;
        const ProcessResult r = runCli(args);
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }

    // The reference server: the call, the answer typed, the result, the reply going on.
    void callsTheReferenceServer_data()
    {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QByteArray>("result");
        QTest::newRow("allowed on the terminal") << QStringList() << QByteArray("say hi\ny\n") << QByteArray("Echo: hi");
        QTest::newRow("--mcp-allow-all") << QStringList{QStringLiteral("--mcp-allow-all")} << QByteArray("say hi\n")
                                         << QByteArray("Echo: hi");
        QTest::newRow("refused") << QStringList() << QByteArray("say hi\nn\n")
                                 << QByteArray("The user did not allow this call.");
    }

    void callsTheReferenceServer()
    {
        QFETCH(QStringList, extra);
        QFETCH(QByteArray, input);
        QFETCH(QByteArray, result);
        if (QStandardPaths::findExecutable(QStringLiteral("node")).isEmpty() || !QFileInfo::exists(kEverything))
            QSKIP("server-everything is not installed (scripts/setup.sh runs npm ci in tests/mcp)");
        const QString cfg = config("\"everything\": {\"command\": \"node\", \"args\": [" + jsonString(kEverything) + "]}");
        const ProcessResult r = runCli(QStringList{QStringLiteral("chat"), QStringLiteral("-m"), m_model,
                                                   QStringLiteral("-c"), QStringLiteral("8192"), QStringLiteral("--mcp"), cfg}
                                           + extra,
                                       input);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.err.contains("tools of everything: echo, add"), r.err.constData());
        QVERIFY2(r.err.contains("[tool call] echo {\"message\":\"hi\"}"), r.err.constData());
        QVERIFY2(r.err.contains("[tool result] " + result), r.err.constData());
        QVERIFY2(r.out.contains("ok got it"), r.out.constData());
        QVERIFY2(!r.out.contains("tool_call"), r.out.constData());   // no markup on stdout
    }

    // Each misbehaviour ends in a sentence, within the config's timeout.
    void misbehaviourIsReported_data()
    {
        QTest::addColumn<QByteArray>("server");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QByteArray>("expected");   // on stderr
        QTest::newRow("dies at start") << QByteArray("\"x\": {\"command\": \"sh\", \"args\": [\"-c\", \"exit 3\"]}") << 1
                                       << QByteArray("the tool server \"x\" ended (exit status 3)");
        QTest::newRow("garbage, then silence")
            << QByteArray("\"x\": {\"command\": \"sh\", \"args\": [\"-c\", \"echo not json; sleep 20\"], \"timeout\": 1}") << 1
            << QByteArray("did not answer initialize within 1 s (it wrote text that is not a JSON-RPC message: \"not json\")");
        QTest::newRow("no such program") << QByteArray("\"x\": {\"command\": \"/nonexistent/server\"}") << 1
                                         << QByteArray("exit status 127: could it be started?");
        QTest::newRow("a URL") << QByteArray("\"x\": {\"url\": \"http://127.0.0.1:9/mcp\"}") << 1
                               << QByteArray("burrow-cli speaks to stdio servers only");
        QTest::newRow("a bad timeout") << QByteArray("\"x\": {\"command\": \"sh\", \"timeout\": 0}") << 1
                                       << QByteArray("mcpServers.x.timeout is seconds, 1..600");
        QTest::newRow("dies in the call")
            << ("\"x\": {\"command\": \"sh\", \"args\": [\"-c\", " + jsonString(shServer(QStringLiteral("exit 4"))) + "]}")
            << 0 << QByteArray("[tool result] the tool server \"x\" ended (exit status 4)");
        QTest::newRow("hangs in the call")
            << ("\"x\": {\"command\": \"sh\", \"args\": [\"-c\", " + jsonString(shServer(QStringLiteral("sleep 20")))
                + "], \"timeout\": 1}")
            << 0 << QByteArray("[tool result] the tool server \"x\" did not answer tools/call within 1 s");
    }

    void misbehaviourIsReported()
    {
        QFETCH(QByteArray, server);
        QFETCH(int, exitCode);
        QFETCH(QByteArray, expected);
        const QString cfg = config(server);
        const ProcessResult r = runCli({QStringLiteral("chat"), QStringLiteral("-m"), m_model, QStringLiteral("-c"),
                                        QStringLiteral("8192"), QStringLiteral("--mcp"), cfg, QStringLiteral("--mcp-allow-all")},
                                       "say hi\n", 30000);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(r.err.contains(expected), r.err.constData());
        if (exitCode == 0)   // the chat goes on with the failure as the result
            QVERIFY2(r.out.contains("ok got it"), r.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestChatMcp)
#include "tst_chat_mcp.moc"
