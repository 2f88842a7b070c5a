// The server over real sockets on loopback (a free port), in front of a
// scripted scheduler (this file's FakeScheduler: it answers every request
// with the pieces "Hel", "lo", " there" on its own thread, honours cancel,
// refuses when told to), so the HTTP side is tested alone: routes, SSE
// framing, keep-alive comments, errors and limits, hostile requests, and a
// client that leaves mid-stream has its request cancelled. After every
// hostile request the server still answers /health.
#include "burrow/server.h"

#include "http_client.h"
#include "tiny_model.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

using namespace burrow;
using burrow::test::Reply;
using burrow::test::readReply;

namespace {

// A scheduler that "generates" a fixed reply: each piece after
// `pieceDelayMs`, the first after `firstDelayMs` (a long prompt).
class FakeScheduler final : public Scheduler {
public:
    FakeScheduler() : m_thread([this] { run(); }) { m_options.contextSize = 512; m_options.parallel = 4; }
    ~FakeScheduler() override
    {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_cv.notify_all();
        m_thread.join();
    }

    Result<RequestId> submit(Request request) override
    {
        std::lock_guard lock(m_mutex);
        if (refuseBusy)
            return Status::busy("queue full");
        const RequestId id = ++m_next;
        m_queue.push_back({id, std::move(request)});
        m_cv.notify_all();
        return id;
    }
    void cancel(RequestId id) override
    {
        std::lock_guard lock(m_mutex);
        m_cancelled.insert(id);
        ++cancelCalls;
    }
    void setPriority(RequestId, int32_t) override {}
    SchedulerStats stats() const override { return {}; }
    const SchedulerOptions &options() const override { return m_options; }

    // Requests that ended as cancelled.
    int cancelledRequests()
    {
        std::lock_guard lock(m_mutex);
        return m_cancelledDone;
    }
    int finishedRequests()
    {
        std::lock_guard lock(m_mutex);
        return m_finished;
    }
    Request lastRequest()
    {
        std::lock_guard lock(m_mutex);
        return m_last;
    }

    std::atomic<bool> refuseBusy{false};
    std::atomic<int> firstDelayMs{0};
    std::atomic<int> pieceDelayMs{0};
    std::atomic<int> cancelCalls{0};

private:
    bool isCancelled(RequestId id)
    {
        std::lock_guard lock(m_mutex);
        return m_cancelled.count(id) != 0;
    }
    void run()
    {
        for (;;) {
            std::pair<RequestId, Request> job;
            {
                std::unique_lock lock(m_mutex);
                m_cv.wait(lock, [this] { return m_stop || !m_queue.empty(); });
                if (m_queue.empty())
                    return;
                job = std::move(m_queue.front());
                m_queue.pop_front();
                if (m_stop) {
                    lock.unlock();
                    GenerateResult r;
                    r.stopReason = StopReason::STOP_REASON_CANCELLED;
                    job.second.onDone(r, Status::ok());
                    continue;
                }
                m_last = job.second;
            }
            Request &req = job.second;
            GenerateResult result;
            const int max = req.options.maxTokens < 0 ? 3 : std::min(3, req.options.maxTokens);
            const char *pieces[] = {"Hel", "lo", " there"};
            result.stopReason = max < 3 ? StopReason::STOP_REASON_MAX_TOKENS : StopReason::STOP_REASON_END_OF_GENERATION;
            // "Evaluate the prompt" in small steps, watching for cancel.
            for (int waited = 0; waited < firstDelayMs && !isCancelled(job.first); waited += 5)
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            for (int i = 0; i < max; ++i) {
                if (isCancelled(job.first) || (req.onText && !req.onText(pieces[i]))) {
                    result.stopReason = StopReason::STOP_REASON_CANCELLED;
                    break;
                }
                result.tokens.push_back(i + 3);
                result.text += pieces[i];
                for (int waited = 0; waited < pieceDelayMs && !isCancelled(job.first); waited += 5)
                    std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
            if (isCancelled(job.first))
                result.stopReason = StopReason::STOP_REASON_CANCELLED;
            result.timings.generatedTokens = static_cast<int32_t>(result.tokens.size());
            req.onDone(result, Status::ok());
            std::lock_guard lock(m_mutex);
            ++m_finished;
            if (result.stopReason == StopReason::STOP_REASON_CANCELLED)
                ++m_cancelledDone;
        }
    }

    SchedulerOptions m_options;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::deque<std::pair<RequestId, Request>> m_queue;
    std::set<RequestId> m_cancelled;
    RequestId m_next = 0;
    bool m_stop = false;
    int m_finished = 0, m_cancelledDone = 0;
    Request m_last;
    std::thread m_thread;
};

QJsonObject json(const QByteArray &body)
{
    return QJsonDocument::fromJson(body).object();
}

} // namespace

class TestServerHttp : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::shared_ptr<Model> m_model;
    std::shared_ptr<FakeScheduler> m_scheduler;
    std::unique_ptr<server::Server> m_server;
    uint16_t m_port = 0;

    // A server with `options` changed by `edit` (on a free port).
    std::unique_ptr<server::Server> startServer(const std::function<void(server::ServerOptions &)> &edit = {})
    {
        server::ServerOptions o;
        o.port = 0;
        o.maxChoices = 4;
        o.keepAliveSeconds = 0.05;
        o.limits.requestTimeoutSeconds = 1;
        if (edit)
            edit(o);
        auto s = server::Server::start(m_model, m_scheduler, o);
        if (!s) {
            qWarning("%s", s.message().c_str());
            return nullptr;
        }
        return std::move(s.value());
    }

    bool connect(QTcpSocket &s, uint16_t port = 0)
    {
        s.connectToHost(QStringLiteral("127.0.0.1"), port ? port : m_port);
        return s.waitForConnected(5000);
    }

    QByteArray request(const QByteArray &method, const QByteArray &path, const QByteArray &body = {},
                       const QByteArray &extraHeaders = {}, const QByteArray &host = "127.0.0.1")
    {
        return test::httpRequest(method, path, body, extraHeaders, host);
    }

    Reply exchange(const QByteArray &raw, uint16_t port = 0)
    {
        QTcpSocket s;
        Reply r;
        if (!connect(s, port))
            return r;
        s.write(raw);
        s.flush();
        readReply(s, &r);
        return r;
    }

    bool healthy()
    {
        const Reply r = exchange(request("GET", "/health"));
        return r.status == 200 && json(r.body)["status"].toString() == QStringLiteral("ok");
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        test::TinySpec spec;
        spec.nCtx = 4096;
        const std::string path = (m_dir.path() + "/tiny-test.gguf").toStdString();
        QVERIFY(test::writeTinyModel(spec, path));
        auto loaded = Model::load(path);
        QVERIFY2(loaded, loaded.message().c_str());
        m_model = std::move(loaded.value());
        m_scheduler = std::make_shared<FakeScheduler>();
        m_server = startServer();
        QVERIFY(m_server);
        m_port = m_server->port();
        QVERIFY(m_port != 0);
        QCOMPARE(QString::fromStdString(m_server->url()), QStringLiteral("http://127.0.0.1:%1").arg(m_port));
        QCOMPARE(QString::fromStdString(m_server->modelId()), QStringLiteral("tiny-test"));
    }
    void cleanupTestCase()
    {
        m_server.reset();
        m_scheduler.reset();
    }
    void cleanup()
    {
        m_scheduler->refuseBusy = false;
        m_scheduler->firstDelayMs = 0;
        m_scheduler->pieceDelayMs = 0;
        QVERIFY2(healthy(), "the server stopped answering");
    }

    void models()
    {
        Reply r = exchange(request("GET", "/v1/models"));
        QCOMPARE(r.status, 200);
        QCOMPARE(r.headers.value("content-type"), QByteArray("application/json"));
        const QJsonArray data = json(r.body)["data"].toArray();
        QCOMPARE(data.size(), 1);
        QCOMPARE(data.at(0).toObject().value("id").toString(), QStringLiteral("tiny-test"));
        r = exchange(request("GET", "/v1/models/tiny-test"));
        QCOMPARE(r.status, 200);
        QCOMPARE(json(r.body)["id"].toString(), QStringLiteral("tiny-test"));
        r = exchange(request("GET", "/v1/models/gpt-4"));
        QCOMPARE(r.status, 404);
        QCOMPARE(json(r.body)["error"].toObject().value("code").toString(), QStringLiteral("model_not_found"));
    }

    void chatWhole()
    {
        const Reply r = exchange(request("POST", "/v1/chat/completions",
                                         R"({"model":"tiny-test","messages":[{"role":"user","content":"a b"}],"stop":["zz"],"max_tokens":9,"temperature":0})"));
        QCOMPARE(r.status, 200);
        const QJsonObject o = json(r.body);
        QCOMPARE(o["object"].toString(), QStringLiteral("chat.completion"));
        QVERIFY(o["id"].toString().startsWith("chatcmpl-"));
        const QJsonObject choice = o["choices"].toArray().at(0).toObject();
        QCOMPARE(choice.value("message").toObject().value("content").toString(), QStringLiteral("Hello there"));
        QCOMPARE(choice.value("finish_reason").toString(), QStringLiteral("stop"));
        QCOMPARE(o["usage"].toObject().value("completion_tokens").toInt(), 3);
        QVERIFY(o["usage"].toObject().value("prompt_tokens").toInt() > 0);
        // What reached the scheduler.
        const Request last = m_scheduler->lastRequest();
        QCOMPARE(last.options.maxTokens, 9);
        QCOMPARE(last.sampling.temperature, 0.0f);
        QVERIFY(std::find(last.options.stopStrings.begin(), last.options.stopStrings.end(), "zz") !=
                last.options.stopStrings.end());
        QVERIFY(last.options.overflow == ContextOverflow::CONTEXT_OVERFLOW_STOP);
    }

    void chatStream()
    {
        const Reply r = exchange(request("POST", "/v1/chat/completions",
                                         R"({"messages":[{"role":"user","content":"a"}],"stream":true,"stream_options":{"include_usage":true},"max_tokens":2})"));
        QCOMPARE(r.status, 200);
        QCOMPARE(r.headers.value("content-type"), QByteArray("text/event-stream"));
        QCOMPARE(r.headers.value("transfer-encoding"), QByteArray("chunked"));
        QList<QByteArray> data;
        int comments = 0;
        QVERIFY2(test::sseEvents(r.body, &data, &comments), r.body.constData());
        QCOMPARE(data.size(), 6);   // role, "Hel", "lo", finish, usage, [DONE]
        QCOMPARE(data.last(), QByteArray("[DONE]"));
        const auto delta = [&](int i) {
            return json(data[i])["choices"].toArray().at(0).toObject().value("delta").toObject();
        };
        QCOMPARE(delta(0).value("role").toString(), QStringLiteral("assistant"));
        QCOMPARE(delta(1).value("content").toString(), QStringLiteral("Hel"));
        QCOMPARE(delta(2).value("content").toString(), QStringLiteral("lo"));
        QCOMPARE(json(data[3])["choices"].toArray().at(0).toObject().value("finish_reason").toString(),
                 QStringLiteral("length"));
        QCOMPARE(json(data[4])["usage"].toObject().value("completion_tokens").toInt(), 2);
    }

    void keepAliveWhileThePromptEvaluates()
    {
        m_scheduler->firstDelayMs = 400;
        const Reply r = exchange(request("POST", "/v1/chat/completions",
                                         R"({"messages":[{"role":"user","content":"a"}],"stream":true})"));
        QCOMPARE(r.status, 200);
        QList<QByteArray> data;
        int comments = 0;
        QVERIFY(test::sseEvents(r.body, &data, &comments));
        QVERIFY2(comments >= 2, r.body.constData());
        QVERIFY(r.body.indexOf(": keep-alive\n\n") < r.body.indexOf("Hel"));
        QCOMPARE(data.last(), QByteArray("[DONE]"));
    }

    void completions()
    {
        Reply r = exchange(request("POST", "/v1/completions", R"({"prompt":"a b","max_tokens":5})"));
        QCOMPARE(r.status, 200);
        QCOMPARE(json(r.body)["object"].toString(), QStringLiteral("text_completion"));
        QCOMPARE(json(r.body)["choices"].toArray().at(0).toObject().value("text").toString(), QStringLiteral("Hello there"));
        r = exchange(request("POST", "/completions", R"({"prompt":"a","stream":true})"));
        QCOMPARE(r.status, 200);
        QList<QByteArray> data;
        int comments = 0;
        QVERIFY(test::sseEvents(r.body, &data, &comments));
        QCOMPARE(data.size(), 5);   // three pieces, finish, [DONE]
        QCOMPARE(json(data[0])["choices"].toArray().at(0).toObject().value("text").toString(), QStringLiteral("Hel"));
    }

    void severalChoices()
    {
        const Reply r = exchange(request("POST", "/v1/chat/completions",
                                         R"({"messages":[{"role":"user","content":"a"}],"n":3,"seed":5})"));
        QCOMPARE(r.status, 200);
        const QJsonArray choices = json(r.body)["choices"].toArray();
        QCOMPARE(choices.size(), 3);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(choices.at(i).toObject().value("index").toInt(), i);
        QCOMPARE(exchange(request("POST", "/v1/chat/completions", R"({"messages":[{"role":"user","content":"a"}],"n":5})"))
                     .status,
                 400);
    }

    void keepAliveConnection()
    {
        QTcpSocket s;
        QVERIFY(connect(s));
        for (int i = 0; i < 3; ++i) {
            s.write(request("POST", "/v1/chat/completions", R"({"messages":[{"role":"user","content":"a"}],"stream":true})"));
            Reply r;
            QVERIFY(readReply(s, &r));
            QCOMPARE(r.status, 200);
            QVERIFY(r.body.endsWith("data: [DONE]\n\n"));
            s.write(request("GET", "/health"));
            Reply h;
            QVERIFY(readReply(s, &h));
            QCOMPARE(h.status, 200);
        }
    }

    void errors_data()
    {
        QTest::addColumn<QByteArray>("raw");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("type");
        const QByteArray msgs = R"("messages":[{"role":"user","content":"a"}])";
        QTest::newRow("malformed json") << request("POST", "/v1/chat/completions", "{\"messages\": [") << 400
                                        << "invalid_request_error";
        QTest::newRow("wrong type") << request("POST", "/v1/chat/completions", "{" + msgs + ",\"temperature\":\"x\"}")
                                    << 400 << "invalid_request_error";
        QTest::newRow("negative max_tokens") << request("POST", "/v1/chat/completions", "{" + msgs + ",\"max_tokens\":-1}")
                                             << 400 << "invalid_request_error";
        QTest::newRow("huge max_tokens")
            << request("POST", "/v1/chat/completions", "{" + msgs + ",\"max_tokens\":99999999999}") << 400
            << "invalid_request_error";
        QTest::newRow("unknown model") << request("POST", "/v1/chat/completions", "{" + msgs + ",\"model\":\"gpt-4\"}")
                                       << 404 << "not_found_error";
        QTest::newRow("unknown path") << request("GET", "/v1/embeddings") << 404 << "not_found_error";
        QTest::newRow("wrong method") << request("GET", "/v1/chat/completions") << 405 << "invalid_request_error";
        QTest::newRow("foreign host") << request("GET", "/v1/models", {}, {}, "evil.example:8080") << 403
                                      << "permission_error";
        QTest::newRow("no host") << request("GET", "/v1/models", {}, {}, {}) << 400 << "invalid_request_error";
        QTest::newRow("foreign origin") << request("GET", "/v1/models", {}, "Origin: https://evil.example\r\n") << 403
                                        << "permission_error";
        QTest::newRow("prompt too long")
            << request("POST", "/v1/completions", "{\"prompt\":\"" + QByteArray(3000, 'a').replace("a", "a b ") + "\"}")
            << 400 << "invalid_request_error";
        QTest::newRow("not http") << QByteArray("HELLO\r\n\r\n") << 400 << "invalid_request_error";
        QTest::newRow("header too large")
            << request("GET", "/health", {}, "X-Big: " + QByteArray(20000, 'x') + "\r\n") << 431
            << "invalid_request_error";
        QTest::newRow("body too large (declared)")
            << (request("POST", "/v1/chat/completions", {}, {}).replace("Content-Length: 0", "Content-Length: 10485760") +
                QByteArray(65536, ' '))
            << 413 << "invalid_request_error";
    }
    void errors()
    {
        QFETCH(QByteArray, raw);
        QFETCH(int, status);
        QFETCH(QString, type);
        const Reply r = exchange(raw);
        QCOMPARE(r.status, status);
        const QJsonObject e = json(r.body)["error"].toObject();
        QCOMPARE(e.value("type").toString(), type);
        QVERIFY(!e.value("message").toString().isEmpty());
    }

    // 10 MB sent in full (no Expect): 413, and the server still serves.
    void tenMegabytes()
    {
        QTcpSocket s;
        QVERIFY(connect(s));
        const QByteArray body = "{\"messages\":[{\"role\":\"user\",\"content\":\"" + QByteArray(10 << 20, 'x') + "\"}]}";
        s.write(request("POST", "/v1/chat/completions", body));
        Reply r;
        QVERIFY(readReply(s, &r));
        QCOMPARE(r.status, 413);
        // With Expect: 100-continue (curl's way) the answer comes before the body.
        QTcpSocket e;
        QVERIFY(connect(e));
        e.write("POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Length: 10485760\r\n"
                "Expect: 100-continue\r\n\r\n");
        Reply r2;
        QVERIFY(readReply(e, &r2));
        QCOMPARE(r2.status, 413);
    }

    void expectContinue()
    {
        QTcpSocket s;
        QVERIFY(connect(s));
        const QByteArray body = R"({"messages":[{"role":"user","content":"a"}]})";
        s.write("POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Length: " +
                QByteArray::number(body.size()) + "\r\nExpect: 100-continue\r\n\r\n");
        QVERIFY(s.waitForReadyRead(5000));
        QVERIFY(s.readAll().startsWith("HTTP/1.1 100 Continue"));
        s.write(body);
        Reply r;
        QVERIFY(readReply(s, &r));
        QCOMPARE(r.status, 200);
    }

    // A request that never finishes arriving: the connection is dropped
    // after the request timeout, and others are served meanwhile.
    void halfSentRequest()
    {
        QTcpSocket slow;
        QVERIFY(connect(slow));
        slow.write("POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{\"mess");
        slow.flush();
        QVERIFY(healthy());
        QElapsedTimer t;
        t.start();
        Reply r;
        readReply(slow, &r, 5000);
        QVERIFY(slow.state() != QAbstractSocket::ConnectedState || r.closed);
        QVERIFY2(t.elapsed() < 4000, "the half-sent request held the connection past the timeout");
        // Headers that never end.
        QTcpSocket slower;
        QVERIFY(connect(slower));
        slower.write("GET /health HTTP/1.1\r\nHost: local");
        QVERIFY(!slower.waitForReadyRead(300));
        QVERIFY(healthy());
    }

    void midStreamDisconnectCancels()
    {
        m_scheduler->pieceDelayMs = 300;
        const int before = m_scheduler->cancelledRequests();
        {
            QTcpSocket s;
            QVERIFY(connect(s));
            s.write(request("POST", "/v1/chat/completions", R"({"messages":[{"role":"user","content":"a"}],"stream":true})"));
            QVERIFY(s.waitForReadyRead(5000));   // the stream started
            s.abort();
        }
        QTRY_COMPARE_WITH_TIMEOUT(m_scheduler->cancelledRequests(), before + 1, 3000);
        // Also for a whole (non-streamed) request.
        {
            QTcpSocket s;
            QVERIFY(connect(s));
            s.write(request("POST", "/v1/chat/completions", R"({"messages":[{"role":"user","content":"a"}]})"));
            s.flush();
            QTest::qWait(100);
            s.close();
        }
        QTRY_COMPARE_WITH_TIMEOUT(m_scheduler->cancelledRequests(), before + 2, 3000);
    }

    void busyIs503()
    {
        m_scheduler->refuseBusy = true;
        const Reply r = exchange(request("POST", "/v1/chat/completions", R"({"messages":[{"role":"user","content":"a"}]})"));
        QCOMPARE(r.status, 503);
        QCOMPARE(r.headers.value("retry-after"), QByteArray("1"));
        QCOMPARE(json(r.body)["error"].toObject().value("code").toString(), QStringLiteral("server_busy"));
    }

    void apiKey()
    {
        auto keyed = startServer([](server::ServerOptions &o) { o.apiKey = "s3cret"; });
        QVERIFY(keyed);
        const uint16_t port = keyed->port();
        const QByteArray body = R"({"messages":[{"role":"user","content":"a"}]})";
        Reply r = exchange(request("POST", "/v1/chat/completions", body), port);
        QCOMPARE(r.status, 401);
        QCOMPARE(json(r.body)["error"].toObject().value("type").toString(), QStringLiteral("authentication_error"));
        r = exchange(request("POST", "/v1/chat/completions", body, "Authorization: Bearer wrong\r\n"), port);
        QCOMPARE(r.status, 401);
        r = exchange(request("GET", "/v1/models", {}, "Authorization: Bearer s3cre\r\n"), port);
        QCOMPARE(r.status, 401);
        r = exchange(request("POST", "/v1/chat/completions", body, "Authorization: Bearer s3cret\r\n"), port);
        QCOMPARE(r.status, 200);
        r = exchange(request("GET", "/health"), port);   // public
        QCOMPARE(r.status, 200);
    }

    void cors()
    {
        auto open = startServer([](server::ServerOptions &o) { o.corsOrigins = {"http://localhost:3000"}; });
        QVERIFY(open);
        const uint16_t port = open->port();
        Reply r = exchange(request("OPTIONS", "/v1/chat/completions", {},
                                   "Origin: http://localhost:3000\r\nAccess-Control-Request-Method: POST\r\n"
                                   "Access-Control-Request-Headers: authorization, content-type\r\n"),
                           port);
        QCOMPARE(r.status, 204);
        QCOMPARE(r.headers.value("access-control-allow-origin"), QByteArray("http://localhost:3000"));
        QVERIFY(r.headers.value("access-control-allow-methods").contains("POST"));
        QCOMPARE(r.headers.value("access-control-allow-headers"), QByteArray("authorization, content-type"));
        r = exchange(request("GET", "/v1/models", {}, "Origin: http://localhost:3000\r\n"), port);
        QCOMPARE(r.status, 200);
        QCOMPARE(r.headers.value("access-control-allow-origin"), QByteArray("http://localhost:3000"));
        r = exchange(request("GET", "/v1/models", {}, "Origin: http://localhost:3001\r\n"), port);
        QCOMPARE(r.status, 403);
        // Without a list, no CORS header ever.
        r = exchange(request("GET", "/v1/models"));
        QVERIFY(!r.headers.contains("access-control-allow-origin"));
    }

    void tooManyConnections()
    {
        auto small = startServer([](server::ServerOptions &o) {
            o.limits.maxConnections = 2;
            o.limits.requestTimeoutSeconds = 5;
        });
        QVERIFY(small);
        QTcpSocket a, b;
        QVERIFY(connect(a, small->port()));
        QVERIFY(connect(b, small->port()));
        QTRY_COMPARE(small->stats().connections, 2);
        const Reply r = exchange(request("GET", "/health"), small->port());
        QCOMPARE(r.status, 503);
        a.abort();
        b.abort();
        QTRY_COMPARE(small->stats().connections, 0);
        QCOMPARE(exchange(request("GET", "/health"), small->port()).status, 200);
    }

    void portTaken()
    {
        auto second = server::Server::start(m_model, m_scheduler, [this] {
            server::ServerOptions o;
            o.port = m_port;
            return o;
        }());
        QVERIFY(!second);
        QVERIFY2(QString::fromStdString(second.message()).contains("cannot listen"), second.message().c_str());
        auto bad = server::Server::start(m_model, m_scheduler, [] {
            server::ServerOptions o;
            o.host = "localhost.evil";
            return o;
        }());
        QVERIFY(!bad);
    }

    // Stopping the server while a stream runs cancels it and returns.
    void stopWhileStreaming()
    {
        m_scheduler->pieceDelayMs = 200;
        auto temp = startServer();
        QVERIFY(temp);
        QTcpSocket s;
        QVERIFY(connect(s, temp->port()));
        s.write(request("POST", "/v1/chat/completions", R"({"messages":[{"role":"user","content":"a"}],"stream":true})"));
        QVERIFY(s.waitForReadyRead(5000));
        const int before = m_scheduler->cancelCalls;
        temp.reset();
        QVERIFY(m_scheduler->cancelCalls > before);
    }
};

QTEST_MAIN(TestServerHttp)
#include "tst_server_http.moc"
