// `burrow-cli chat --remote` (issue 33) against `burrow-cli serve` on a tiny
// model (started here, with an API key in a 0600 file), and against a small
// scripted server (QTcpServer) whose stream is cut in the middle: replies
// stream to stdout (the reasoning apart) with the server's token counts on
// stderr; a wrong key, a missing model, an https address and a cut stream
// are each one line that says so; Ctrl+C closes the request.
#include <QFile>
#include <QProcess>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <signal.h>

#include "cli_process.h"
#include "serve_process.h"
#include "tiny_model.h"

using namespace burrow::test;

namespace {

// Runs burrow-cli with `input` on stdin while this thread's event loop
// turns (a server in this process must answer); -1 when it did not end in 30 s.
ProcessResult runTurning(const QStringList &args, const QByteArray &input)
{
    QProcess p;
    p.start(cliPath(), args);
    ProcessResult r;
    if (!p.waitForStarted(10000))
        return r;
    p.write(input);
    p.closeWriteChannel();
    if (!QTest::qWaitFor([&] { return p.state() == QProcess::NotRunning; }, 30000)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

} // namespace

class TestServeRemoteChat : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_model, m_keyFile;

private slots:
    void initTestCase()
    {
        TinySpec spec;
        spec.nCtx = 512;
        m_model = m_dir.filePath(QStringLiteral("tiny.gguf"));
        QVERIFY(writeTinyModel(spec, m_model.toStdString()));
        m_keyFile = m_dir.filePath(QStringLiteral("key"));
        QFile key(m_keyFile);
        QVERIFY(key.open(QIODevice::WriteOnly));
        key.write("sesame\n");
        key.close();
        QVERIFY(QFile::setPermissions(m_keyFile, QFileDevice::ReadOwner | QFileDevice::WriteOwner));
    }

    void chatsWithBurrowServe()
    {
        ServeProcess serve(m_model, {QStringLiteral("--api-key"), QStringLiteral("sesame")});
        QVERIFY2(serve.ok(), qPrintable(serve.error()));
        const QString url = serve.url() + QStringLiteral("/v1");
        const ProcessResult r = runCli({QStringLiteral("chat"), QStringLiteral("--remote"), url, QStringLiteral("--api-key-file"),
                                        m_keyFile, QStringLiteral("-n"), QStringLiteral("6"), QStringLiteral("--temp"),
                                        QStringLiteral("0")},
                                       "a b a b\nb a\n/exit\n");
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.err.contains("tiny on " + url.toUtf8()), r.err.constData());
        QCOMPARE(r.err.count("[prompt "), 2);   // two turns, each with the server's counts
        QVERIFY2(r.err.contains("(the server's counts)"), r.err.constData());
        QVERIFY(!r.out.trimmed().isEmpty());
        QVERIFY(!r.err.contains("warning"));      // loopback: no warning
    }

    void failuresInWords_data()
    {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QByteArray>("said");
        QTest::newRow("no key") << QStringList{} << 1 << QByteArray("refused the API key (HTTP 401)");
        QTest::newRow("missing model") << QStringList{QStringLiteral("--model"), QStringLiteral("gone")} << 1
                                       << QByteArray("the server has no model 'gone' (it has: tiny)");
    }
    void failuresInWords()
    {
        QFETCH(QStringList, extra);
        QFETCH(int, exitCode);
        QFETCH(QByteArray, said);
        ServeProcess serve(m_model, {QStringLiteral("--api-key"), QStringLiteral("sesame")});
        QVERIFY2(serve.ok(), qPrintable(serve.error()));
        QStringList args{QStringLiteral("chat"), QStringLiteral("--remote"), serve.url() + QStringLiteral("/v1")};
        if (!extra.isEmpty())
            args << QStringLiteral("--api-key-file") << m_keyFile << extra;
        const ProcessResult r = runCli(args, "hello\n");
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(r.err.contains(said), r.err.constData());
    }

    void httpsAndBadAddressesAreRefused_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QByteArray>("said");
        QTest::newRow("https") << "https://example.org/v1" << QByteArray("plain http only");
        QTest::newRow("no scheme") << "example.org:8080" << QByteArray("takes an http:// address");
        QTest::newRow("bad port") << "http://127.0.0.1:99999/v1" << QByteArray("the port must be 1 to 65535");
    }
    void httpsAndBadAddressesAreRefused()
    {
        QFETCH(QString, url);
        QFETCH(QByteArray, said);
        const ProcessResult r = runCli({QStringLiteral("chat"), QStringLiteral("--remote"), url}, "");
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(said), r.err.constData());
    }

    // Ctrl+C in the middle of a reply closes the request (the server sees
    // its connection end) and exits with 130.
    void ctrlCClosesTheRequest()
    {
        QTcpServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost, 0));
        int closed = 0;
        bool streaming = false;
        connect(&server, &QTcpServer::newConnection, this, [&] {
            QTcpSocket *s = server.nextPendingConnection();
            connect(s, &QTcpSocket::disconnected, s, [&, s] {
                if (s->property("chat").toBool())
                    ++closed;
            });
            connect(s, &QTcpSocket::readyRead, s, [&, s] {
                const QByteArray head = s->peek(4096);
                if (!head.contains("\r\n\r\n") || s->property("chat").toBool())
                    return;
                s->readAll();
                if (head.startsWith("GET /v1/models")) {
                    const QByteArray body = R"({"data":[{"id":"m"}]})";
                    s->write("HTTP/1.1 200 OK\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body);
                    s->disconnectFromHost();
                    return;
                }
                s->setProperty("chat", true);
                s->write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n");
                auto *timer = new QTimer(s);
                connect(timer, &QTimer::timeout, s, [&, s] {
                    s->write("data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n");
                    streaming = true;
                });
                timer->start(20);
            });
        });
        QProcess p;
        p.start(cliPath(), {QStringLiteral("chat"), QStringLiteral("--remote"),
                            QStringLiteral("http://127.0.0.1:%1/v1").arg(server.serverPort())});
        QVERIFY(p.waitForStarted(10000));
        p.write("go on\n");
        QVERIFY(QTest::qWaitFor([&] { return streaming; }, 10000));
        QTest::qWait(100);
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(QTest::qWaitFor([&] { return p.state() == QProcess::NotRunning; }, 5000));
        QCOMPARE(p.exitCode(), 130);
        QVERIFY(p.readAllStandardError().contains("cancelled"));
        QTRY_COMPARE_WITH_TIMEOUT(closed, 1, 5000);
    }

    // The stream ends in the middle of the reply: what arrived is shown,
    // stderr says it is cut off, and the chat goes on to the next message.
    void cutStreamIsSaid()
    {
        QTcpServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost, 0));
        int chats = 0;
        connect(&server, &QTcpServer::newConnection, this, [&] {
            QTcpSocket *s = server.nextPendingConnection();
            connect(s, &QTcpSocket::readyRead, s, [&, s] {
                const QByteArray head = s->peek(4096);
                if (!head.contains("\r\n\r\n"))
                    return;
                s->readAll();
                if (head.startsWith("GET /v1/models")) {
                    const QByteArray body = R"({"object":"list","data":[{"id":"m","object":"model"}]})";
                    s->write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                             QByteArray::number(body.size()) + "\r\n\r\n" + body);
                    s->disconnectFromHost();
                    return;
                }
                ++chats;
                s->write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
                         "data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"mulling\"}}]}\n\n"
                         "data: {\"choices\":[{\"delta\":{\"content\":\"Half a\"}}]}\n\n"
                         "data: {\"choices\":[{\"delta\":{\"content\":\" sentence\"}}]}\n\n");
                s->flush();
                s->abort();
            });
        });
        const ProcessResult r = runTurning({QStringLiteral("chat"), QStringLiteral("--remote"),
                                            QStringLiteral("http://127.0.0.1:%1/v1").arg(server.serverPort())},
                                           "hi\nagain\n");
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(chats, 2);
        QVERIFY2(r.out.contains("Half a sentence"), r.out.constData());
        // The reasoning apart: on stderr when stdout is not a terminal.
        QVERIFY(!r.out.contains("mulling"));
        QCOMPARE(r.err.count("mulling"), 2);
        QCOMPARE(r.err.count("the reply above is cut off"), 2);
    }
};

QTEST_MAIN(TestServeRemoteChat)
#include "tst_serve_remote_chat.moc"
