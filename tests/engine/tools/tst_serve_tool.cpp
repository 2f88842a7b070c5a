// `burrow-cli serve` as a process on the story model, with the real
// scheduler behind it: usage errors; curl (whole, streamed, completions, the
// key, a foreign Host, a 10 MB body the way curl sends it); hostile requests
// over raw sockets, each answered with its status while the server goes on
// serving; a client that leaves mid-stream; a stop with connections open.
// Skips without the model.
#include "http_client.h"
#include "serve_process.h"
#include "test_support.h"

#include <QProcess>
#include <QStandardPaths>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace burrow::test;

namespace {

const char *const kModel = "models/stories260K.gguf";

QByteArray chatBody(const QByteArray &extra = {})
{
    return R"({"messages":[{"role":"user","content":"Once upon a time"}],"max_tokens":12,"temperature":0)" +
           (extra.isEmpty() ? QByteArray() : "," + extra) + "}";
}

} // namespace

class TestServeTool : public QObject {
    Q_OBJECT

    std::unique_ptr<ServeProcess> m_server;
    QString m_curl;

    // curl ARGS...; its stdout (the HTTP status appended as "\nSTATUS").
    QByteArray curl(const QStringList &args)
    {
        QProcess p;
        p.start(m_curl, QStringList{QStringLiteral("-s"), QStringLiteral("-S"), QStringLiteral("-w"),
                                    QStringLiteral("\n%{http_code}")} +
                            args);
        if (!p.waitForFinished(60000)) {
            p.kill();
            p.waitForFinished();
            return {};
        }
        return p.readAllStandardOutput();
    }
    static int curlStatus(const QByteArray &out) { return out.mid(out.lastIndexOf('\n') + 1).toInt(); }
    static QByteArray curlBody(const QByteArray &out) { return out.left(out.lastIndexOf('\n')); }

    // n connections to `port`, each with one POST /v1/completions of `body` sent.
    static std::vector<std::unique_ptr<QTcpSocket>> sendCompletions(int port, int n, const QByteArray &body)
    {
        std::vector<std::unique_ptr<QTcpSocket>> sockets;
        for (int i = 0; i < n; ++i) {
            auto s = std::make_unique<QTcpSocket>();
            s->connectToHost(QStringLiteral("127.0.0.1"), static_cast<quint16>(port));
            if (!s->waitForConnected(5000))
                return {};
            s->write(httpRequest("POST", "/v1/completions", body));
            s->flush();
            sockets.push_back(std::move(s));
        }
        return sockets;
    }

    bool healthy()
    {
        return httpExchange(httpRequest("GET", "/health"), m_server->port()).status == 200;
    }

private slots:
    void initTestCase()
    {
        BURROW_REQUIRE_SHARED(QString::fromLatin1(kModel));
        m_server = std::make_unique<ServeProcess>(sharedPath(QString::fromLatin1(kModel)),
                                                  QStringList{"--parallel", "2", "-t", "2", "-c", "256",
                                                              "--timeout", "2"});
        QVERIFY2(m_server->ok(), qPrintable(m_server->error()));
        m_curl = QStandardPaths::findExecutable(QStringLiteral("curl"));
    }
    void cleanupTestCase()
    {
        if (m_server)
            QCOMPARE(m_server->stop(), 0);   // SIGTERM ends it cleanly
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("needle");
        QTest::newRow("no model") << QStringList{"serve"} << 2 << "-m MODEL is required";
        QTest::newRow("unknown option") << QStringList{"serve", "-m", "x.gguf", "--bogus"} << 2 << "unknown option";
        QTest::newRow("bad port") << QStringList{"serve", "-m", "x.gguf", "--port", "70000"} << 2 << "--port";
        QTest::newRow("bad parallel") << QStringList{"serve", "-m", "x.gguf", "--parallel", "0"} << 2 << "--parallel";
        QTest::newRow("open without key") << QStringList{"serve", "-m", "x.gguf", "--host", "0.0.0.0"} << 2
                                          << "--api-key";
        QTest::newRow("missing file") << QStringList{"serve", "-m", "/nonexistent/x.gguf", "--port", "0"} << 1
                                      << "x.gguf";
        QTest::newRow("empty model") << QStringList{"serve", "-m", "", "--port", "0"} << 2 << "-m MODEL";
    }
    void usageErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, needle);
        const ProcessResult r = runCli(args, {}, 30000);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(QString::fromUtf8(r.err).contains(needle), r.err.constData());
    }

    void badHostAddress()
    {
        BURROW_REQUIRE_SHARED(QString::fromLatin1(kModel));
        const ProcessResult r = runCli({"serve", "-m", sharedPath(QString::fromLatin1(kModel)), "--host",
                                        "not-an-ip", "--allow-no-key", "--port", "0"},
                                       {}, 30000);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("not an IP address"), r.err.constData());
    }

    void withCurl()
    {
        if (m_curl.isEmpty())
            QSKIP("curl is not installed; skipping the curl checks");
        const QString base = m_server->url();
        QByteArray out = curl({base + "/v1/chat/completions", "-H", "Content-Type: application/json", "-d", chatBody()});
        QCOMPARE(curlStatus(out), 200);
        const QJsonObject whole = jsonObject(curlBody(out));
        const QString text = whole["choices"].toArray().at(0).toObject().value("message").toObject().value("content").toString();
        QVERIFY(!text.isEmpty());

        out = curl({"-N", base + "/v1/chat/completions", "-H", "Content-Type: application/json", "-d",
                    chatBody(R"("stream":true,"stream_options":{"include_usage":true})")});
        QCOMPARE(curlStatus(out), 200);
        QList<QByteArray> data;
        int comments = 0;
        QVERIFY(sseEvents(curlBody(out) + "\n", &data, &comments) || sseEvents(curlBody(out), &data, &comments));
        QVERIFY(data.size() >= 4);
        QCOMPARE(data.last(), QByteArray("[DONE]"));
        QString streamed;
        for (const QByteArray &d : data.mid(0, data.size() - 1)) {
            const QJsonArray choices = jsonObject(d)["choices"].toArray();
            if (!choices.isEmpty())
                streamed += choices.at(0).toObject().value("delta").toObject().value("content").toString();
        }
        QCOMPARE(streamed, text);   // greedy: the stream spells the whole reply

        out = curl({base + "/v1/completions", "-H", "Content-Type: application/json", "-d",
                    R"({"prompt":"Lily and Tom went to the","max_tokens":8,"temperature":0})"});
        QCOMPARE(curlStatus(out), 200);
        QVERIFY(!jsonObject(curlBody(out))["choices"].toArray().at(0).toObject().value("text").toString().isEmpty());

        out = curl({base + "/v1/models", "-H", "Host: evil.example"});
        QCOMPARE(curlStatus(out), 403);

        // 10 MB: curl asks with Expect: 100-continue and gets 413 before sending it.
        QTemporaryDir dir;
        QFile big(dir.filePath("big.json"));
        QVERIFY(big.open(QIODevice::WriteOnly));
        big.write(R"({"messages":[{"role":"user","content":")" + QByteArray(10 << 20, 'a') + R"("}]})");
        big.close();
        out = curl({base + "/v1/chat/completions", "-H", "Content-Type: application/json", "--data-binary",
                    "@" + big.fileName()});
        QCOMPARE(curlStatus(out), 413);
        QVERIFY(healthy());
    }

    void keyWithCurl()
    {
        if (m_curl.isEmpty())
            QSKIP("curl is not installed; skipping the curl checks");
        ServeProcess keyed(sharedPath(QString::fromLatin1(kModel)), {"--api-key", "s3cret", "-t", "1", "-c", "128"});
        QVERIFY2(keyed.ok(), qPrintable(keyed.error()));
        QCOMPARE(curlStatus(curl({keyed.url() + "/v1/models"})), 401);
        QCOMPARE(curlStatus(curl({keyed.url() + "/v1/models", "-H", "Authorization: Bearer nope"})), 401);
        QCOMPARE(curlStatus(curl({keyed.url() + "/v1/models", "-H", "Authorization: Bearer s3cret"})), 200);
        QCOMPARE(curlStatus(curl({keyed.url() + "/health"})), 200);
        QCOMPARE(keyed.stop(), 0);
    }

    void hostile_data()
    {
        QTest::addColumn<QByteArray>("raw");
        QTest::addColumn<int>("status");
        QByteArray stops = R"("stop":[)";
        for (int i = 0; i < 10000; ++i)
            stops += (i ? ",\"" : "\"") + QByteArray::number(i) + "\"";
        stops += "]";
        QTest::newRow("malformed JSON") << httpRequest("POST", "/v1/chat/completions", "{\"messages\":[{") << 400;
        QTest::newRow("wrong type") << httpRequest("POST", "/v1/chat/completions", chatBody(R"("top_k":"many")")) << 400;
        QTest::newRow("10,000 stop strings") << httpRequest("POST", "/v1/chat/completions", chatBody(stops)) << 400;
        QTest::newRow("negative max_tokens")
            << httpRequest("POST", "/v1/completions", R"({"prompt":"a","max_tokens":-3})") << 400;
        QTest::newRow("huge max_tokens")
            << httpRequest("POST", "/v1/completions", R"({"prompt":"a","max_tokens":2147483648})") << 400;
        QTest::newRow("prompt over the context")
            << httpRequest("POST", "/v1/completions", "{\"prompt\":\"" + QByteArray(2000, 'a').replace("a", "cat ") + "\"}")
            << 400;
        QTest::newRow("unknown model") << httpRequest("POST", "/v1/chat/completions", chatBody(R"("model":"llama-70b")"))
                                       << 404;
        QTest::newRow("foreign Host") << httpRequest("GET", "/v1/models", {}, {}, "attacker.example") << 403;
        QTest::newRow("10 MB body") << httpRequest("POST", "/v1/chat/completions",
                                                   "{\"messages\":[{\"role\":\"user\",\"content\":\"" +
                                                       QByteArray(10 << 20, 'b') + "\"}]}")
                                    << 413;
        QTest::newRow("n too large") << httpRequest("POST", "/v1/chat/completions", chatBody(R"("n":3)")) << 400;
    }
    void hostile()
    {
        QFETCH(QByteArray, raw);
        QFETCH(int, status);
        const Reply r = httpExchange(raw, m_server->port());
        QCOMPARE(r.status, status);
        QVERIFY2(!jsonObject(r.body)["error"].toObject().value("message").toString().isEmpty(), r.body.constData());
        QVERIFY2(healthy(), "the server stopped serving");
    }

    void halfSentRequest()
    {
        QTcpSocket s;
        s.connectToHost(QStringLiteral("127.0.0.1"), static_cast<quint16>(m_server->port()));
        QVERIFY(s.waitForConnected(5000));
        s.write("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 500\r\n\r\n{\"messages\"");
        s.flush();
        QVERIFY(healthy());   // others are served meanwhile
        // --timeout 2: the connection is dropped after it.
        QElapsedTimer t;
        t.start();
        while (s.state() == QAbstractSocket::ConnectedState && t.elapsed() < 6000)
            s.waitForReadyRead(100);
        QVERIFY2(s.state() != QAbstractSocket::ConnectedState, "a half-sent request held its connection");
        QVERIFY(healthy());
    }

    // --parallel 1 --max-queued 1: of six long requests at once, those
    // beyond the one generating and the one waiting get 503 + Retry-After;
    // the rest complete.
    void fullQueueIs503()
    {
        ServeProcess small(sharedPath(QString::fromLatin1(kModel)),
                           {"--parallel", "1", "--max-queued", "1", "-t", "1", "-c", "512"});
        QVERIFY2(small.ok(), qPrintable(small.error()));
        const auto sockets = sendCompletions(small.port(), 6, R"({"prompt":"Once upon a time","max_tokens":400})");
        QCOMPARE(sockets.size(), size_t(6));
        int ok = 0, busy = 0;
        for (auto &s : sockets) {
            Reply r;
            QVERIFY(readReply(*s, &r, 60000));
            if (r.status == 503) {
                ++busy;
                QCOMPARE(r.headers.value("retry-after"), QByteArray("1"));
                QCOMPARE(jsonObject(r.body)["error"].toObject().value("code").toString(), QStringLiteral("server_busy"));
            } else {
                QCOMPARE(r.status, 200);
                ++ok;
            }
        }
        QVERIFY2(busy >= 1 && ok >= 2, qPrintable(QStringLiteral("%1 answered, %2 busy").arg(ok).arg(busy)));
        QCOMPARE(small.stop(), 0);
    }

    // SIGTERM the moment the last answer is read, the connections still
    // open: the server stops with pending handlers (a keep-alive connection
    // between its answer and its next read). It must end with status 0; under
    // the sanitizers a connection that kept itself alive past the server
    // (a leak) ends it with an error. Several rounds: the window is short.
    void stopRightAfterAnswers()
    {
        for (int round = 0; round < 10; ++round) {
            ServeProcess server(sharedPath(QString::fromLatin1(kModel)),
                                {"--parallel", "3", "-t", "1", "-c", "256"});
            QVERIFY2(server.ok(), qPrintable(server.error()));
            const auto sockets = sendCompletions(server.port(), 3, R"({"prompt":"Once upon a time","max_tokens":4})");
            QCOMPARE(sockets.size(), size_t(3));
            for (auto &s : sockets) {
                Reply r;
                QVERIFY(readReply(*s, &r, 60000));
                QCOMPARE(r.status, 200);
            }
            QCOMPARE(server.stop(), 0);
        }
    }

    void midStreamDisconnect()
    {
        for (int i = 0; i < 3; ++i) {
            QTcpSocket s;
            s.connectToHost(QStringLiteral("127.0.0.1"), static_cast<quint16>(m_server->port()));
            QVERIFY(s.waitForConnected(5000));
            s.write(httpRequest("POST", "/v1/chat/completions",
                                R"({"messages":[{"role":"user","content":"Once upon a time"}],"max_tokens":200,"stream":true})"));
            QVERIFY(s.waitForReadyRead(10000));
            s.abort();
        }
        // The cancelled requests left their slots: a greedy reply is as before.
        const Reply a = httpExchange(httpRequest("POST", "/v1/chat/completions", chatBody()), m_server->port());
        QCOMPARE(a.status, 200);
        QVERIFY(healthy());
    }
};

QTEST_MAIN(TestServeTool)
#include "tst_serve_tool.moc"
