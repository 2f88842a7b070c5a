// The remote backend (issue 33) against real OpenAI-compatible servers on
// loopback: Burrow's own `burrow-cli serve` (started here on a tiny model,
// with and without --api-key), and a small scripted server (QTcpServer)
// for what a healthy server does not do on request: a stream cut in the
// middle, a 401, a 429 with Retry-After, a 400 naming a refused field, a
// server that never answers, one that stops in the middle, and reasoning
// sent as `reasoning_content`. Also: nothing is sent to an endpoint the user
// did not add, Stop closes the connection, and the request carries the
// chat's settings.
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSslCertificate>
#include <QSslKey>
#include <QSslServer>
#include <QSslSocket>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <functional>

#include "backend/remotebackend.h"
#include "backend/remotechat.h"
#include "backend/remoteendpoints.h"
#include "backend/routingbackend.h"
#include "serve_process.h"
#include "tiny_model.h"

using namespace burrow::test;

namespace {

// A scripted HTTP server: every request is read whole (headers and
// Content-Length body) and answered by `answer` on its socket.
class ScriptedServer : public QObject {
public:
    using Answer = std::function<void(QTcpSocket *socket, int requestNumber)>;

    explicit ScriptedServer(Answer answer) : m_answer(std::move(answer))
    {
        QObject::connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *s = m_server.nextPendingConnection()) {
                ++connections;
                QObject::connect(s, &QTcpSocket::readyRead, this, [this, s] { read(s); });
                QObject::connect(s, &QTcpSocket::disconnected, this, [this, s] {
                    ++disconnects;
                    s->deleteLater();
                });
            }
        });
        m_server.listen(QHostAddress::LocalHost, 0);
    }

    QUrl base() const { return QUrl(QStringLiteral("http://127.0.0.1:%1/v1").arg(m_server.serverPort())); }

    int connections = 0;
    int disconnects = 0;
    QList<QByteArray> heads;     // each request's head
    QList<QByteArray> bodies;    // and body
    QList<qint64> times;         // ms since the server started, when each request was complete

    static void respond(QTcpSocket *s, int status, const QByteArray &body, const QByteArray &extra = {})
    {
        s->write("HTTP/1.1 " + QByteArray::number(status) + " X\r\nContent-Type: application/json\r\n" + extra
                 + "Content-Length: " + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
        s->flush();
        s->disconnectFromHost();
    }
    static void streamHead(QTcpSocket *s)
    {
        s->write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                 "Connection: close\r\n\r\n");
    }
    static QByteArray delta(const char *field, const QString &text, const char *finish = nullptr)
    {
        QJsonObject choice{{QStringLiteral("index"), 0},
                           {QStringLiteral("delta"), QJsonObject{{QLatin1String(field), text}}}};
        choice.insert(QStringLiteral("finish_reason"), finish ? QJsonValue(QLatin1String(finish)) : QJsonValue());
        const QJsonObject chunk{{QStringLiteral("object"), QStringLiteral("chat.completion.chunk")},
                                {QStringLiteral("choices"), QJsonArray{choice}}};
        return "data: " + QJsonDocument(chunk).toJson(QJsonDocument::Compact) + "\n\n";
    }

private:
    void read(QTcpSocket *s)
    {
        QByteArray &buffer = m_buffers[s];
        buffer += s->readAll();
        const qsizetype headEnd = buffer.indexOf("\r\n\r\n");
        if (headEnd < 0)
            return;
        const QByteArray head = buffer.left(headEnd);
        qsizetype length = 0;
        for (const QByteArray &line : head.split('\n'))
            if (line.toLower().startsWith("content-length:"))
                length = line.mid(15).trimmed().toLongLong();
        if (buffer.size() < headEnd + 4 + length)
            return;
        heads << head;
        bodies << buffer.mid(headEnd + 4, length);
        times << m_clock.elapsed();
        buffer.clear();
        m_answer(s, int(heads.size()));
    }

    QTcpServer m_server;
    Answer m_answer;
    QHash<QTcpSocket *, QByteArray> m_buffers;
    QElapsedTimer m_clock = [] { QElapsedTimer t; t.start(); return t; }();
};

// A self-signed certificate for 127.0.0.1 that no authority vouches for
// (made once for this test with openssl; valid until 2126).
const char *const kUntrustedCert =
    "-----BEGIN CERTIFICATE-----\n"
    "MIIBpzCCAU6gAwIBAgIUWTQCka3f90zm3hODiB2QcPF6r+EwCgYIKoZIzj0EAwIw\n"
    "IDEeMBwGA1UEAwwVYnVycm93LXRlc3QtdW50cnVzdGVkMCAXDTI2MTIwNjA5NDQx\n"
    "MVoYDzIxMjYxMTEyMDk0NDExWjAgMR4wHAYDVQQDDBVidXJyb3ctdGVzdC11bnRy\n"
    "dXN0ZWQwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAARh6SavVHjg04/FbjBYe/0U\n"
    "nzVJ+6dJaLD1Ay4Va+Ct/BRuskYdK01vgcy8BwvLtg7F+fkXBRwC+FvQSwpMIDS9\n"
    "o2QwYjAdBgNVHQ4EFgQUI+8Ybul3HiT+nS9VhfxQvBbztdwwHwYDVR0jBBgwFoAU\n"
    "I+8Ybul3HiT+nS9VhfxQvBbztdwwDwYDVR0TAQH/BAUwAwEB/zAPBgNVHREECDAG\n"
    "hwR/AAABMAoGCCqGSM49BAMCA0cAMEQCIDIiZ04/GZ+NUc1vNPGW1FcvaT97klCv\n"
    "j0FVbZjcYo/KAiActpFf+1sHopdU72y6S0nrUxfmvl7NfBWlUc9gaQnZ7w==\n"
    "-----END CERTIFICATE-----\n";
const char *const kUntrustedKey =
    "-----BEGIN PRIVATE KEY-----\n"
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgnQuoIyHJzOzAqvx+\n"
    "f+Q4hAveLjsyEYT4C2CJl/SjIs6hRANCAARh6SavVHjg04/FbjBYe/0UnzVJ+6dJ\n"
    "aLD1Ay4Va+Ct/BRuskYdK01vgcy8BwvLtg7F+fkXBRwC+FvQSwpMIDS9\n"
    "-----END PRIVATE KEY-----\n";

// What one reply produced.
struct Reply {
    QString text, reasoning;
    int pieces = 0;
    bool done = false;
    GenerationOutcome outcome;
};

ChatRequest userSays(const QString &text, int maxTokens = 8)
{
    ChatRequest request;
    request.id = 1;
    request.messages = {{"user", text.toStdString(), {}, {}}};
    request.rows = {0};
    request.settings.maxTokens = maxTokens;
    request.settings.sampling.temperature = 0.0f;
    request.cancel = std::make_shared<burrow::CancelToken>();
    return request;
}

// Starts a reply on `backend`; `reply` fills as it streams.
void start(ChatBackend &backend, const ChatRequest &request, Reply *reply)
{
    ChatBackend::ReplySinks sinks;
    sinks.onText = [reply](const QString &piece, int tokens, bool reasoning) {
        (reasoning ? reply->reasoning : reply->text) += piece;
        reply->pieces = tokens;
        return true;
    };
    sinks.onPromptProgress = [](int, int) {};
    sinks.onPlan = [](const PromptPlan &) {};
    sinks.onDone = [reply](const GenerationOutcome &o) {
        QVERIFY(!reply->done);   // exactly once
        reply->outcome = o;
        reply->done = true;
    };
    backend.generate(request, std::move(sinks));
}

QString locator(const QUrl &base, const QString &model = QStringLiteral("m"))
{
    return RemoteModelRef{RemoteEndpoints::normalized(base), model}.locator();
}

void addEndpoint(const QUrl &base, const QString &key = QString(), const QString &name = QStringLiteral("test server"))
{
    RemoteEndpoint e;
    e.name = name;
    e.baseUrl = base;
    e.apiKey = key;
    RemoteEndpoints::instance().set({e});
}

} // namespace

class TestRemoteBackend : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_model;

    // A backend with the model at `base` loaded (the endpoint added first).
    bool loadAt(RemoteBackend &backend, const QUrl &base, const QString &key = QString())
    {
        addEndpoint(base, key);
        QString error;
        const bool ok = backend.load(locator(base), 0, {}, &error);
        if (!ok)
            qWarning() << error;
        return ok;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        TinySpec spec;
        spec.nCtx = 512;
        m_model = m_dir.filePath(QStringLiteral("tiny.gguf"));
        QVERIFY(writeTinyModel(spec, m_model.toStdString()));
    }

    void cleanup()
    {
        RemoteEndpoints::instance().set({});
        RemoteChat::limits() = RemoteChat::Limits();
    }

    void locatorRoundTrip_data()
    {
        QTest::addColumn<QString>("base");
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("normalized");
        QTest::newRow("vllm") << "http://GPU-Box:8000/v1/" << "Qwen/Qwen3-32B" << "http://gpu-box:8000/v1";
        QTest::newRow("ollama tag") << "http://localhost:11434/v1" << "llama3.2:latest" << "http://localhost:11434/v1";
        QTest::newRow("no path gets /v1") << "https://example.org" << "a b#c" << "https://example.org/v1";
    }
    void locatorRoundTrip()
    {
        QFETCH(QString, base);
        QFETCH(QString, model);
        QFETCH(QString, normalized);
        const RemoteModelRef ref{RemoteEndpoints::normalized(QUrl(base)), model};
        QCOMPARE(ref.baseUrl.toString(), normalized);
        QVERIFY(RemoteModelRef::isLocator(ref.locator()));
        const RemoteModelRef back = RemoteModelRef::parse(ref.locator());
        QCOMPARE(back.baseUrl, ref.baseUrl);
        QCOMPARE(back.modelId, model);
        QVERIFY(!RemoteModelRef::isLocator(QStringLiteral("/home/me/models/x.gguf")));
    }

    void insecureIsPlainHttpToAnotherComputer_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<bool>("insecure");
        QTest::newRow("loopback") << "http://127.0.0.1:8080/v1" << false;
        QTest::newRow("localhost") << "http://localhost:1234/v1" << false;
        QTest::newRow("ipv6 loopback") << "http://[::1]:8080/v1" << false;
        QTest::newRow("lan") << "http://192.168.1.20:8000/v1" << true;
        QTest::newRow("https") << "https://gpu.example.org/v1" << false;
    }
    void insecureIsPlainHttpToAnotherComputer()
    {
        QFETCH(QString, url);
        QFETCH(bool, insecure);
        QCOMPARE(RemoteEndpoints::isInsecure(QUrl(url)), insecure);
    }

    // Burrow's own server, started here: a streamed reply with the server's
    // token counts; with --api-key, the right key works and a wrong one is
    // refused in words.
    void chatsWithBurrowServe()
    {
        ServeProcess serve(m_model, {QStringLiteral("--api-key"), QStringLiteral("sesame")});
        QVERIFY2(serve.ok(), qPrintable(serve.error()));
        const QUrl base(serve.url() + QStringLiteral("/v1"));
        // Its model id, as its /v1/models says (the file's name).
        RemoteBackend backend;
        addEndpoint(base, QStringLiteral("sesame"));
        QString error;
        QVERIFY2(backend.load(locator(base, QStringLiteral("tiny")), 0, {}, &error), qPrintable(error));
        QVERIFY(backend.loadedModel().remote);
        QCOMPARE(backend.loadedModel().remoteServer, QStringLiteral("test server"));

        Reply reply;
        start(backend, userSays(QStringLiteral("a b a b")), &reply);
        QTRY_VERIFY_WITH_TIMEOUT(reply.done, 30000);
        QVERIFY2(reply.outcome.stop != GenerationOutcome::Stop::Error, qPrintable(reply.outcome.error));
        QVERIFY(!reply.text.isEmpty());
        // The counts are the server's (usage), not the pieces counted here.
        QVERIFY(reply.outcome.generatedTokens > 0);
        QVERIFY(reply.outcome.generatedTokens <= 8);
        QVERIFY(reply.outcome.promptTokens + reply.outcome.reusedTokens > 0);
        QCOMPARE(reply.outcome.contextUsed,
                 reply.outcome.promptTokens + reply.outcome.reusedTokens + reply.outcome.generatedTokens);
        QVERIFY(reply.outcome.tokensPerSecond() > 0);   // a speed, also when the pieces came at once

        addEndpoint(base, QStringLiteral("wrong"));
        Reply refused;
        start(backend, userSays(QStringLiteral("a")), &refused);
        QTRY_VERIFY_WITH_TIMEOUT(refused.done, 30000);
        QCOMPARE(refused.outcome.stop, GenerationOutcome::Stop::Error);
        QVERIFY2(refused.outcome.error.contains(QLatin1String("refused the API key (HTTP 401)")),
                 qPrintable(refused.outcome.error));
    }

    // A model the user picked that the server does not have (any more): 404 in words.
    void missingModelIsNamed()
    {
        ServeProcess serve(m_model);
        QVERIFY2(serve.ok(), qPrintable(serve.error()));
        const QUrl base(serve.url() + QStringLiteral("/v1"));
        addEndpoint(base);
        RemoteBackend backend;
        QString error;
        QVERIFY(backend.load(locator(base, QStringLiteral("gone-model")), 0, {}, &error));
        Reply reply;
        start(backend, userSays(QStringLiteral("a")), &reply);
        QTRY_VERIFY_WITH_TIMEOUT(reply.done, 30000);
        QCOMPARE(reply.outcome.stop, GenerationOutcome::Stop::Error);
        QVERIFY2(reply.outcome.error.contains(QStringLiteral("no model “gone-model” (HTTP 404)")),
                 qPrintable(reply.outcome.error));
    }

    // The answer and the reasoning apart; the request carries the chat's
    // settings (and only those that do something) and asks for usage.
    void streamsReasoningApartAndSendsSettings()
    {
        ScriptedServer server([](QTcpSocket *s, int) {
            ScriptedServer::streamHead(s);
            s->write(ScriptedServer::delta("reasoning_content", QStringLiteral("think ")));
            s->write(ScriptedServer::delta("reasoning", QStringLiteral("more")));
            s->write(ScriptedServer::delta("content", QStringLiteral("Hello")));
            s->write(ScriptedServer::delta("content", QStringLiteral(" there"), "stop"));
            s->write("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":5,"
                     "\"prompt_tokens_details\":{\"cached_tokens\":4}},\"timings\":{\"predicted_ms\":250}}\n\n"
                     "data: [DONE]\n\n");
            s->disconnectFromHost();
        });
        RemoteBackend backend;
        QVERIFY(loadAt(backend, server.base(), QStringLiteral("k1")));
        ChatRequest request = userSays(QStringLiteral("hi"), 100);
        request.settings.systemPrompt = "Be brief.";
        request.settings.sampling.topK = 0;   // off: not sent
        request.settings.sampling.seed = 7;
        request.settings.enableThinking = false;
        request.settings.reasoningEffort = "high";
        Reply reply;
        start(backend, request, &reply);
        QTRY_VERIFY_WITH_TIMEOUT(reply.done, 10000);
        QCOMPARE(reply.outcome.stop, GenerationOutcome::Stop::EndOfText);
        QCOMPARE(reply.reasoning, QStringLiteral("think more"));
        QCOMPARE(reply.text, QStringLiteral("Hello there"));
        QCOMPARE(reply.outcome.generatedTokens, 5);
        QCOMPARE(reply.outcome.promptTokens, 7);
        QCOMPARE(reply.outcome.reusedTokens, 4);
        QCOMPARE(reply.outcome.generateMs, 250.0);   // llama-server's own measure (timings.predicted_ms)
        QVERIFY(reply.outcome.reasoningMs >= 0);

        QCOMPARE(server.heads.size(), 1);
        QVERIFY(server.heads[0].startsWith("POST /v1/chat/completions "));
        QVERIFY(server.heads[0].contains("Authorization: Bearer k1"));
        const QJsonObject body = QJsonDocument::fromJson(server.bodies[0]).object();
        QCOMPARE(body.value(QLatin1String("model")).toString(), QStringLiteral("m"));
        QCOMPARE(body.value(QLatin1String("stream")).toBool(), true);
        QVERIFY(body.value(QLatin1String("stream_options")).toObject().value(QLatin1String("include_usage")).toBool());
        const QJsonArray messages = body.value(QLatin1String("messages")).toArray();
        QCOMPARE(messages.size(), 2);
        QCOMPARE(messages[0].toObject().value(QLatin1String("role")).toString(), QStringLiteral("system"));
        QCOMPARE(body.value(QLatin1String("max_tokens")).toInt(), 100);
        QCOMPARE(body.value(QLatin1String("seed")).toInt(), 7);
        QCOMPARE(body.value(QLatin1String("temperature")).toDouble(), 0.0);
        QVERIFY(!body.contains(QLatin1String("top_k")));
        QCOMPARE(body.value(QLatin1String("reasoning_effort")).toString(), QStringLiteral("high"));
        QCOMPARE(body.value(QLatin1String("chat_template_kwargs")).toObject().value(QLatin1String("enable_thinking")).toBool(true),
                 false);
    }

    // A stream cut in the middle: the text so far is kept, the reply fails
    // and says so.
    void cutStreamKeepsThePartialReply()
    {
        ScriptedServer server([](QTcpSocket *s, int) {
            ScriptedServer::streamHead(s);
            s->write(ScriptedServer::delta("content", QStringLiteral("Half a")));
            s->write(ScriptedServer::delta("content", QStringLiteral(" sentence")));
            s->write("data: {\"choices\":[{\"delta\":{\"content\":\"tr");   // cut inside an event
            s->flush();
            s->abort();
        });
        RemoteBackend backend;
        QVERIFY(loadAt(backend, server.base()));
        Reply reply;
        start(backend, userSays(QStringLiteral("hi")), &reply);
        QTRY_VERIFY_WITH_TIMEOUT(reply.done, 10000);
        QCOMPARE(reply.outcome.stop, GenerationOutcome::Stop::Error);
        QCOMPARE(reply.text, QStringLiteral("Half a sentence"));
        QVERIFY2(reply.outcome.error.contains(QLatin1String("ended in the middle of the reply")),
                 qPrintable(reply.outcome.error));
        QCOMPARE(reply.outcome.generatedTokens, 2);
    }

    void httpFailuresInWords_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("words");
        QTest::newRow("401") << 401 << QByteArray("{\"error\":{\"message\":\"Invalid API key\"}}")
                             << "refused the API key (HTTP 401) (Invalid API key)";
        QTest::newRow("403") << 403 << QByteArray("forbidden") << "refused the API key (HTTP 403)";
        QTest::newRow("404") << 404 << QByteArray("{\"detail\":\"Not Found\"}") << "no model “m” (HTTP 404)";
        QTest::newRow("400 param") << 400
                                   << QByteArray("{\"error\":{\"message\":\"min_p: unsupported\",\"param\":\"min_p\"}}")
                                   << "refused the chat settings min_p (HTTP 400)";
        QTest::newRow("400 in message") << 400
                                        << QByteArray("{\"error\":{\"message\":\"Unrecognized request argument "
                                                      "supplied: top_k\"}}")
                                        << "refused the chat settings top_k (HTTP 400)";
        QTest::newRow("500") << 500 << QByteArray("{\"error\":\"boom\"}") << "answered HTTP 500 (boom)";
    }
    void httpFailuresInWords()
    {
        QFETCH(int, status);
        QFETCH(QByteArray, body);
        QFETCH(QString, words);
        ScriptedServer server([&](QTcpSocket *s, int) { ScriptedServer::respond(s, status, body); });
        RemoteBackend backend;
        QVERIFY(loadAt(backend, server.base()));
        ChatRequest request = userSays(QStringLiteral("hi"));
        request.settings.sampling.topK = 40;
        request.settings.sampling.minP = 0.05f;
        Reply reply;
        start(backend, request, &reply);
        QTRY_VERIFY_WITH_TIMEOUT(reply.done, 10000);
        QCOMPARE(reply.outcome.stop, GenerationOutcome::Stop::Error);
        QVERIFY2(reply.outcome.error.contains(words), qPrintable(reply.outcome.error));
        QVERIFY(reply.outcome.error.startsWith(QLatin1String("test server")));
        QCOMPARE(server.heads.size(), 1);   // never retried
    }

    // A server that ignores "stream" and sends one JSON answer: taken whole;
    // one that sends an endless answer is cut at the bound.
    void wholeAnswerIsTakenAndBounded()
    {
        ScriptedServer whole([](QTcpSocket *s, int) {
            ScriptedServer::respond(s, 200, "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"All at once\","
                                            "\"reasoning_content\":\"hm\"},\"finish_reason\":\"stop\"}],"
                                            "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4}}");
        });
        RemoteBackend backend;
        QVERIFY(loadAt(backend, whole.base()));
        Reply reply;
        start(backend, userSays(QStringLiteral("hi")), &reply);
        QTRY_VERIFY_WITH_TIMEOUT(reply.done, 10000);
        QVERIFY2(reply.outcome.stop == GenerationOutcome::Stop::EndOfText, qPrintable(reply.outcome.error));
        QCOMPARE(reply.text, QStringLiteral("All at once"));
        QCOMPARE(reply.reasoning, QStringLiteral("hm"));
        QCOMPARE(reply.outcome.generatedTokens, 4);

        RemoteChat::limits().maxLine = 64 << 10;
        ScriptedServer endless([](QTcpSocket *s, int) {
            s->write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n");
            auto *timer = new QTimer(s);
            QObject::connect(timer, &QTimer::timeout, s, [s] { s->write(QByteArray(16 << 10, ' ')); });
            timer->start(5);
        });
        RemoteBackend second;
        QVERIFY(loadAt(second, endless.base()));
        Reply cut;
        start(second, userSays(QStringLiteral("hi")), &cut);
        QTRY_VERIFY_WITH_TIMEOUT(cut.done, 10000);
        QVERIFY2(cut.outcome.error.contains(QLatin1String("sent an answer of more than")), qPrintable(cut.outcome.error));
        QTRY_COMPARE_WITH_TIMEOUT(endless.disconnects, 1, 5000);
    }

    // 429 with Retry-After: 1 — asked again after a second, and the reply comes.
    void busyServerIsAskedAgainAfterRetryAfter()
    {
        ScriptedServer server([](QTcpSocket *s, int n) {
            if (n == 1) {
                ScriptedServer::respond(s, 429, "{\"error\":{\"message\":\"slow down\"}}", "Retry-After: 1\r\n");
                return;
            }
            ScriptedServer::streamHead(s);
            s->write(ScriptedServer::delta("content", QStringLiteral("ok"), "stop"));
            s->write("data: [DONE]\n\n");
            s->disconnectFromHost();
        });
        RemoteBackend backend;
        QVERIFY(loadAt(backend, server.base()));
        Reply reply;
        start(backend, userSays(QStringLiteral("hi")), &reply);
        QTRY_VERIFY_WITH_TIMEOUT(reply.done, 10000);
        QCOMPARE(reply.outcome.stop, GenerationOutcome::Stop::EndOfText);
        QCOMPARE(reply.text, QStringLiteral("ok"));
        QCOMPARE(server.heads.size(), 2);
        QVERIFY2(server.times[1] - server.times[0] >= 900, qPrintable(QString::number(server.times[1] - server.times[0])));
    }

    // A Retry-After past the bound is reported, not waited for; a server
    // busy every time is asked Limits::retries + 1 times, then reported.
    void retriesAreBounded()
    {
        ScriptedServer far([](QTcpSocket *s, int) { ScriptedServer::respond(s, 503, "busy", "Retry-After: 3600\r\n"); });
        RemoteBackend backend;
        QVERIFY(loadAt(backend, far.base()));
        Reply reply;
        start(backend, userSays(QStringLiteral("hi")), &reply);
        QTRY_VERIFY_WITH_TIMEOUT(reply.done, 10000);
        QVERIFY2(reply.outcome.error.contains(QLatin1String("is busy (HTTP 503) and asked to wait 3600 s")),
                 qPrintable(reply.outcome.error));
        QCOMPARE(far.heads.size(), 1);

        RemoteChat::limits().retries = 2;
        ScriptedServer always([](QTcpSocket *s, int) { ScriptedServer::respond(s, 429, "{}", "Retry-After: 0\r\n"); });
        RemoteBackend second;
        QVERIFY(loadAt(second, always.base()));
        Reply busy;
        start(second, userSays(QStringLiteral("hi")), &busy);
        QTRY_VERIFY_WITH_TIMEOUT(busy.done, 10000);
        QCOMPARE(always.heads.size(), 3);
        QVERIFY2(busy.outcome.error.contains(QLatin1String("is busy (HTTP 429)")), qPrintable(busy.outcome.error));
    }

    // A server that takes the request and never answers, and one that stops
    // in the middle: bounded waits, in words.
    void hangingServerIsGivenUp()
    {
        RemoteChat::limits().firstByteMs = 400;
        RemoteChat::limits().idleMs = 400;
        ScriptedServer silent([](QTcpSocket *, int) {});
        RemoteBackend backend;
        QVERIFY(loadAt(backend, silent.base()));
        Reply reply;
        start(backend, userSays(QStringLiteral("hi")), &reply);
        QTRY_VERIFY_WITH_TIMEOUT(reply.done, 5000);
        QCOMPARE(reply.outcome.stop, GenerationOutcome::Stop::Error);
        QVERIFY2(reply.outcome.error.contains(QLatin1String("did not answer within")), qPrintable(reply.outcome.error));
        QTRY_COMPARE_WITH_TIMEOUT(silent.disconnects, 1, 5000);   // the connection was closed

        ScriptedServer stalls([](QTcpSocket *s, int) {
            ScriptedServer::streamHead(s);
            s->write(ScriptedServer::delta("content", QStringLiteral("Begun")));
            s->flush();
        });
        RemoteBackend second;
        QVERIFY(loadAt(second, stalls.base()));
        Reply stalled;
        start(second, userSays(QStringLiteral("hi")), &stalled);
        QTRY_VERIFY_WITH_TIMEOUT(stalled.done, 5000);
        QCOMPARE(stalled.text, QStringLiteral("Begun"));
        QVERIFY2(stalled.outcome.error.contains(QLatin1String("sent nothing for")), qPrintable(stalled.outcome.error));
    }

    // Stop closes the request: the server sees its connection end.
    void stopClosesTheRequest()
    {
        ScriptedServer endless([](QTcpSocket *s, int) {
            ScriptedServer::streamHead(s);
            auto *timer = new QTimer(s);
            QObject::connect(timer, &QTimer::timeout, s, [s] { s->write(ScriptedServer::delta("content", QStringLiteral("x"))); });
            timer->start(20);
        });
        RemoteBackend backend;
        QVERIFY(loadAt(backend, endless.base()));
        const ChatRequest request = userSays(QStringLiteral("hi"));
        Reply reply;
        start(backend, request, &reply);
        QTRY_VERIFY_WITH_TIMEOUT(reply.text.size() >= 3, 5000);
        request.cancel->cancel();
        QTRY_VERIFY_WITH_TIMEOUT(reply.done, 2000);
        QCOMPARE(reply.outcome.stop, GenerationOutcome::Stop::Cancelled);
        QTRY_COMPARE_WITH_TIMEOUT(endless.disconnects, 1, 5000);
    }

    // A certificate that cannot be checked is never accepted: the reply
    // fails, names the certificate (its subject and SHA-256 fingerprint),
    // and no request reaches the server.
    void untrustedCertificateIsShownNotAccepted()
    {
        const QSslCertificate cert(QByteArray(kUntrustedCert), QSsl::Pem);
        const QSslKey key(QByteArray(kUntrustedKey), QSsl::Ec, QSsl::Pem);
        QVERIFY(!cert.isNull() && !key.isNull());
        QSslServer server;
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.setLocalCertificate(cert);
        tls.setPrivateKey(key);
        server.setSslConfiguration(tls);
        int requestBytes = 0;
        connect(&server, &QSslServer::pendingConnectionAvailable, this, [&] {
            while (QTcpSocket *s = server.nextPendingConnection())
                connect(s, &QTcpSocket::readyRead, s, [&, s] { requestBytes += int(s->readAll().size()); });
        });
        QVERIFY(server.listen(QHostAddress::LocalHost, 0));
        RemoteBackend backend;
        QVERIFY(loadAt(backend, QUrl(QStringLiteral("https://127.0.0.1:%1/v1").arg(server.serverPort())), QStringLiteral("secret")));
        Reply reply;
        start(backend, userSays(QStringLiteral("hi")), &reply);
        QTRY_VERIFY_WITH_TIMEOUT(reply.done, 10000);
        QCOMPARE(reply.outcome.stop, GenerationOutcome::Stop::Error);
        const QString fingerprint = QString::fromLatin1(cert.digest(QCryptographicHash::Sha256).toHex(':'));
        QVERIFY2(reply.outcome.error.contains(QLatin1String("its certificate could not be checked")), qPrintable(reply.outcome.error));
        QVERIFY2(reply.outcome.error.contains(QLatin1String("burrow-test-untrusted")), qPrintable(reply.outcome.error));
        QVERIFY2(reply.outcome.error.contains(fingerprint), qPrintable(reply.outcome.error));
        QTest::qWait(100);
        QCOMPARE(requestBytes, 0);
    }

    void unreachableServerInWords()
    {
        quint16 port = 0;
        {
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
            port = probe.serverPort();
        }
        RemoteBackend backend;
        QVERIFY(loadAt(backend, QUrl(QStringLiteral("http://127.0.0.1:%1/v1").arg(port))));
        Reply reply;
        start(backend, userSays(QStringLiteral("hi")), &reply);
        QTRY_VERIFY_WITH_TIMEOUT(reply.done, 10000);
        QVERIFY2(reply.outcome.error.startsWith(QLatin1String("Could not reach test server")), qPrintable(reply.outcome.error));
    }

    // Nothing goes to a server the user did not add: not at the load, not
    // when it was removed after the load.
    void nothingIsSentToAnEndpointNotAdded()
    {
        ScriptedServer server([](QTcpSocket *s, int) { ScriptedServer::respond(s, 200, "{}"); });
        RemoteEndpoints::instance().set({});
        RoutingBackend routing(std::make_unique<RemoteBackend>(), std::make_unique<RemoteBackend>());
        QString error;
        QVERIFY(!routing.load(locator(server.base()), 0, {}, &error));
        QVERIFY2(error.contains(QLatin1String("is not among your servers")), qPrintable(error));
        QVERIFY(!RoutingBackend::inspect(locator(server.base()), &error).isValid());
        // Another endpoint added does not open this one.
        addEndpoint(QUrl(QStringLiteral("http://127.0.0.1:1/v1")));
        QVERIFY(!routing.load(locator(server.base()), 0, {}, &error));

        addEndpoint(server.base());
        RemoteBackend backend;
        QVERIFY(backend.load(locator(server.base()), 0, {}, &error));
        RemoteEndpoints::instance().set({});
        Reply reply;
        start(backend, userSays(QStringLiteral("hi")), &reply);
        QVERIFY(reply.done);
        QVERIFY2(reply.outcome.error.contains(QStringLiteral("was removed from Settings → Servers; nothing was sent")),
                 qPrintable(reply.outcome.error));
        QTest::qWait(200);
        QCOMPARE(server.connections, 0);
    }
};

QTEST_MAIN(TestRemoteBackend)
#include "tst_remotebackend.moc"
