// McpClient (backend/mcpclient.h) against a fake MCP server: over stdio a
// small program (fake_mcp_server.cpp) that answers, sends garbage, dies,
// hangs, or sends a megabyte-sized result; over streamable HTTP a QTcpServer
// here that answers in JSON and in text/event-stream. Each misbehaviour is
// bounded (a timeout, a size) and reported as a sentence, never a hang.
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include "backend/mcpclient.h"

namespace {

McpServerSpec fake(const QString &mode)
{
    McpServerSpec s;
    s.name = QStringLiteral("fake");
    s.command = QStringLiteral(FAKE_MCP_SERVER);
    s.args = {mode};
    return s;
}

struct CallResult {
    bool done = false;
    QString text;
    bool isError = false;
};

// Calls `tool` and waits (≤ 20 s) for its answer.
CallResult call(McpClient &client, const QString &tool, const QJsonObject &args = {})
{
    auto result = std::make_shared<CallResult>();
    client.callTool(tool, args, [result](const QString &text, bool isError) {
        result->done = true;
        result->text = text;
        result->isError = isError;
    });
    (void)QTest::qWaitFor([&] { return result->done; }, 20000);
    return *result;
}

bool waitSettled(McpClient &client, int ms = 20000)
{
    return QTest::qWaitFor([&] {
        return client.state() == McpClient::State::Ready || client.state() == McpClient::State::Failed;
    }, ms);
}

// A streamable-HTTP MCP server on loopback: initialize answers in JSON with
// a session id, tools/list and tools/call in text/event-stream (a
// notification event first); a call to "slow" is never answered.
class FakeHttpServer : public QTcpServer {
public:
    QList<QByteArray> sessions;   // the Mcp-Session-Id of each request after initialize

    FakeHttpServer()
    {
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = nextPendingConnection()) {
                auto buffer = std::make_shared<QByteArray>();
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket, buffer] {
                    *buffer += socket->readAll();
                    const qsizetype end = buffer->indexOf("\r\n\r\n");
                    if (end < 0)
                        return;
                    const QByteArray head = buffer->left(end).toLower();
                    const qsizetype at = head.indexOf("content-length:");
                    const int length = at < 0 ? 0 : head.mid(at + 15, head.indexOf("\r\n", at) - at - 15).trimmed().toInt();
                    if (buffer->size() < end + 4 + length)
                        return;
                    const qsizetype s = head.indexOf("mcp-session-id:");
                    if (s >= 0)
                        sessions << head.mid(s + 15, head.indexOf("\r\n", s) - s - 15).trimmed();
                    respond(socket, QJsonDocument::fromJson(buffer->mid(end + 4, length)).object());
                    buffer->clear();
                });
            }
        });
    }

private:
    static void reply(QTcpSocket *socket, const QByteArray &status, const QByteArray &type, const QByteArray &body,
                      const QByteArray &extra = {})
    {
        socket->write("HTTP/1.1 " + status + "\r\nContent-Type: " + type + "\r\nContent-Length: "
                      + QByteArray::number(body.size()) + "\r\n" + extra + "Connection: close\r\n\r\n" + body);
        socket->disconnectFromHost();
    }

    void respond(QTcpSocket *socket, const QJsonObject &request)
    {
        const QString method = request.value(QLatin1String("method")).toString();
        const QJsonValue id = request.value(QLatin1String("id"));
        const auto message = [&](const QJsonObject &result) {
            return QJsonDocument(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                                             {QStringLiteral("id"), id},
                                             {QStringLiteral("result"), result}})
                .toJson(QJsonDocument::Compact);
        };
        if (method == QLatin1String("initialize")) {
            reply(socket, "200 OK", "application/json",
                  message({{QStringLiteral("protocolVersion"), QStringLiteral("2025-03-26")}}),
                  "Mcp-Session-Id: session-42\r\n");
        } else if (id.isUndefined()) {
            reply(socket, "202 Accepted", "application/json", {});
        } else if (method == QLatin1String("tools/list")) {
            const QJsonObject tool{{QStringLiteral("name"), QStringLiteral("echo")},
                                   {QStringLiteral("inputSchema"), QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}}}};
            reply(socket, "200 OK", "text/event-stream",
                  "event: message\ndata: " + message({{QStringLiteral("tools"), QJsonArray{tool}}}) + "\n\n");
        } else if (request.value(QLatin1String("params")).toObject().value(QLatin1String("name")) == QLatin1String("slow")) {
            return;   // never answered
        } else {
            const QString text = QStringLiteral("Echo: ")
                                 + request.value(QLatin1String("params")).toObject().value(QLatin1String("arguments"))
                                       .toObject().value(QLatin1String("message")).toString();
            const QJsonArray content{QJsonObject{{QStringLiteral("type"), QStringLiteral("text")}, {QStringLiteral("text"), text}}};
            reply(socket, "200 OK", "text/event-stream",
                  "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n"
                  "data: " + message({{QStringLiteral("content"), content}}) + "\n\n");
        }
    }
};

} // namespace

class TestMcpClient : public QObject {
    Q_OBJECT

private slots:
    void listsAndCallsOverStdio()
    {
        McpClient client(fake(QStringLiteral("ok")));
        client.start();
        QVERIFY(waitSettled(client));
        QCOMPARE(client.state(), McpClient::State::Ready);
        QCOMPARE(client.tools().size(), 3);
        QCOMPARE(client.tools().at(0).name, QStringLiteral("echo"));
        QCOMPARE(client.tools().at(0).inputSchema.value(QLatin1String("type")).toString(), QStringLiteral("object"));
        const CallResult r = call(client, QStringLiteral("echo"), {{QStringLiteral("message"), QStringLiteral("hi")}});
        QVERIFY(r.done);
        QVERIFY(!r.isError);
        QCOMPARE(r.text, QStringLiteral("Echo: hi"));
    }

    // A call before the server is up starts it and waits for it.
    void callStartsTheServer()
    {
        McpClient client(fake(QStringLiteral("ok")));
        const CallResult r = call(client, QStringLiteral("echo"), {{QStringLiteral("message"), QStringLiteral("early")}});
        QCOMPARE(r.text, QStringLiteral("Echo: early"));
        QCOMPARE(client.state(), McpClient::State::Ready);
    }

    // A megabyte-sized result arrives whole, and is cut for the chat at the bound.
    void bigResultIsCut()
    {
        McpClient client(fake(QStringLiteral("ok")));
        client.setMaxResultChars(64 * 1024);
        const CallResult r = call(client, QStringLiteral("big"));
        QVERIFY(r.done);
        QVERIFY(!r.isError);
        QVERIFY(r.text.startsWith(QString(64 * 1024, QLatin1Char('x'))));
        QVERIFY2(r.text.contains(QLatin1String("cut here")) && r.text.contains(QLatin1String("1048576")),
                 qPrintable(r.text.right(100)));
        QVERIFY(r.text.size() < 64 * 1024 + 200);
    }

    void misbehaviourIsReported_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QString>("expected");   // in the call's message
        QTest::addColumn<int>("finalState");
        // The timeouts a row waits out are short; the others are long, so a
        // loaded machine starting the fake server slowly changes nothing.
        QTest::addColumn<int>("startMs");
        QTest::addColumn<int>("callMs");
        QTest::newRow("garbage then silence") << "garbage" << "echo" << "not a JSON-RPC message: \"this is not json\""
                                              << int(McpClient::State::Ready) << 10000 << 2000;
        QTest::newRow("dies") << "die" << "echo" << "ended (exit status 3): fake server: giving up on purpose"
                              << int(McpClient::State::Failed) << 10000 << 10000;
        QTest::newRow("hangs") << "hang" << "echo" << "did not answer initialize" << int(McpClient::State::Failed)
                               << 800 << 800;
        QTest::newRow("garbage only") << "noinit" << "echo" << "did not answer initialize"
                                      << int(McpClient::State::Failed) << 800 << 800;
        QTest::newRow("a message over the bound") << "ok" << "huge" << "over 4 MiB" << int(McpClient::State::Failed)
                                                  << 10000 << 10000;
    }

    void misbehaviourIsReported()
    {
        QFETCH(QString, mode);
        QFETCH(QString, tool);
        QFETCH(QString, expected);
        QFETCH(int, finalState);
        QFETCH(int, startMs);
        QFETCH(int, callMs);
        McpClient client(fake(mode));
        client.setStartTimeoutMs(startMs);
        client.setCallTimeoutMs(callMs);
        const CallResult r = call(client, tool, {{QStringLiteral("message"), QStringLiteral("hi")}});
        QVERIFY2(r.done, "the call never came back");
        QVERIFY(r.isError);
        QVERIFY2(r.text.contains(expected), qPrintable(r.text));
        QCOMPARE(int(client.state()), finalState);
        if (client.state() == McpClient::State::Failed)
            QVERIFY2(client.error().contains(expected), qPrintable(client.error()));
    }

    // A server that died is started again by the next call.
    void restartsAfterDeath()
    {
        McpClient client(fake(QStringLiteral("die")));
        QVERIFY(call(client, QStringLiteral("echo")).isError);
        QCOMPARE(client.state(), McpClient::State::Failed);
        const CallResult again = call(client, QStringLiteral("echo"));
        QVERIFY(again.done);
        QVERIFY2(again.text.contains(QLatin1String("exit status 3")), qPrintable(again.text));
    }

    void missingProgram()
    {
        McpServerSpec spec;
        spec.name = QStringLiteral("missing");
        spec.command = QStringLiteral("/nonexistent/mcp-server");
        McpClient client(spec);
        client.start();
        QVERIFY(waitSettled(client, 5000));
        QCOMPARE(client.state(), McpClient::State::Failed);
        QVERIFY2(client.error().contains(QLatin1String("could not be started")), qPrintable(client.error()));
    }

    void streamableHttp()
    {
        FakeHttpServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost));
        McpServerSpec spec;
        spec.name = QStringLiteral("http");
        spec.url = QUrl(QStringLiteral("http://127.0.0.1:%1/mcp").arg(server.serverPort()));
        McpClient client(spec);
        client.setCallTimeoutMs(800);
        client.start();
        QVERIFY(waitSettled(client));
        QCOMPARE(client.state(), McpClient::State::Ready);
        QCOMPARE(client.tools().size(), 1);
        const CallResult r = call(client, QStringLiteral("echo"), {{QStringLiteral("message"), QStringLiteral("over http")}});
        QVERIFY(!r.isError);
        QCOMPARE(r.text, QStringLiteral("Echo: over http"));
        // Every request after initialize carried the session.
        QVERIFY(server.sessions.size() >= 3);
        for (const QByteArray &s : std::as_const(server.sessions))
            QCOMPARE(s, QByteArray("session-42"));
        // A call the server never answers times out.
        const CallResult slow = call(client, QStringLiteral("slow"));
        QVERIFY(slow.isError);
        QVERIFY2(slow.text.contains(QLatin1String("did not answer tools/call")), qPrintable(slow.text));
    }

    void httpServerNotThere()
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost));
        const quint16 port = probe.serverPort();
        probe.close();   // nothing listens there now
        McpServerSpec spec;
        spec.name = QStringLiteral("gone");
        spec.url = QUrl(QStringLiteral("http://127.0.0.1:%1/mcp").arg(port));
        McpClient client(spec);
        client.start();
        QVERIFY(waitSettled(client));
        QCOMPARE(client.state(), McpClient::State::Failed);
        QVERIFY2(client.error().contains(QLatin1String("cannot be reached")), qPrintable(client.error()));
    }

    void specFromJson_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<bool>("isHttp");
        QTest::newRow("command") << QByteArray("{\"command\": \"npx\", \"args\": [\"-y\", \"pkg\"], \"env\": {\"A\": \"1\"}}") << true << false;
        QTest::newRow("url") << QByteArray("{\"url\": \"http://127.0.0.1:3001/mcp\"}") << true << true;
        QTest::newRow("https") << QByteArray("{\"url\": \"https://example.org/mcp\"}") << true << true;
        QTest::newRow("empty command") << QByteArray("{\"command\": \" \"}") << false << false;
        QTest::newRow("ftp") << QByteArray("{\"url\": \"ftp://example.org/\"}") << false << false;
        QTest::newRow("neither") << QByteArray("{\"args\": [\"x\"]}") << false << false;
    }

    void specFromJson()
    {
        QFETCH(QByteArray, json);
        QFETCH(bool, ok);
        QFETCH(bool, isHttp);
        McpServerSpec spec;
        QString error;
        QCOMPARE(McpServerSpec::fromJson(QStringLiteral("s"), QJsonDocument::fromJson(json).object(), &spec, &error), ok);
        if (!ok) {
            QVERIFY(!error.isEmpty());
            return;
        }
        QCOMPARE(spec.isHttp(), isHttp);
        // And back: the same shape.
        McpServerSpec again;
        QVERIFY(McpServerSpec::fromJson(QStringLiteral("s"), spec.toJson(), &again, &error));
        QCOMPARE(again.command, spec.command);
        QCOMPARE(again.args, spec.args);
        QCOMPARE(again.env, spec.env);
        QCOMPARE(again.url, spec.url);
    }
};

QTEST_GUILESS_MAIN(TestMcpClient)
#include "tst_mcpclient.moc"
