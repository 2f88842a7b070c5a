// A bounded load on `burrow-cli serve` (the story model, --parallel 4): 32
// clients on loopback, each sending 8 requests one after another (chat and
// completions, streamed and whole, greedy), all at once. Every request must
// complete (a 503 is retried after its Retry-After, as SDKs do), every
// stream must be well-formed (role first, one finish_reason, [DONE] last),
// and every reply must equal the one the same request got alone, before
// the load. The load runs twice: the server's resident memory may grow
// once (at most 16 MiB; 1.3-1.5 MiB measured on the story model) and not
// again (at most 2 MiB; 0-0.2 measured). Skips without the model.
#include "http_client.h"
#include "serve_process.h"
#include "test_support.h"

#include <QJsonArray>
#include <QTest>
#include <QThread>

#include <atomic>
#include <mutex>
#include <thread>

using namespace burrow::test;

namespace {

constexpr int kClients = 32;
constexpr int kRequestsPerClient = 8;
constexpr int kPrompts = 8;

const char *const kPromptTexts[kPrompts] = {
    "Once upon a time", "Lily and Tom went to the", "The little dog", "One day, a girl named Sue",
    "The sun was", "Ben had a big red ball", "In the park there was", "Mom said",
};

QByteArray body(bool chat, int prompt, bool stream)
{
    const QByteArray text = kPromptTexts[prompt];
    QByteArray b = chat ? R"({"messages":[{"role":"user","content":")" + text + R"("}])"
                        : R"({"prompt":")" + text + "\"";
    b += R"(,"max_tokens":16,"temperature":0)";
    if (stream)
        b += R"(,"stream":true)";
    return b + "}";
}

// The reply's text, or an error; `wellFormed` false when a stream breaks the format.
struct Outcome {
    int status = 0;
    QString text;
    QString problem;
};

Outcome parse(bool chat, bool stream, const Reply &r)
{
    Outcome o;
    o.status = r.status;
    if (r.status != 200)
        return o;
    if (!stream) {
        const QJsonObject c = jsonObject(r.body)["choices"].toArray().at(0).toObject();
        o.text = chat ? c.value("message").toObject().value("content").toString() : c.value("text").toString();
        if (c.value("finish_reason").toString().isEmpty())
            o.problem = QStringLiteral("no finish_reason");
        return o;
    }
    QList<QByteArray> data;
    int comments = 0;
    if (!sseEvents(r.body, &data, &comments) || data.isEmpty() || data.last() != "[DONE]") {
        o.problem = QStringLiteral("malformed stream: ") + QString::fromUtf8(r.body.left(300));
        return o;
    }
    int finishes = 0;
    for (int i = 0; i + 1 < data.size(); ++i) {
        const QJsonObject chunk = jsonObject(data[i]);
        const QJsonObject c = chunk["choices"].toArray().at(0).toObject();
        if (chunk.isEmpty())
            o.problem = QStringLiteral("a data line that is not JSON");
        if (chat && i == 0 && c.value("delta").toObject().value("role").toString() != QStringLiteral("assistant"))
            o.problem = QStringLiteral("no role in the first chunk");
        if (!c.value("finish_reason").isNull()) {
            ++finishes;
            if (i + 2 != data.size())
                o.problem = QStringLiteral("finish_reason before the last chunk");
        }
        o.text += chat ? c.value("delta").toObject().value("content").toString() : c.value("text").toString();
    }
    if (finishes != 1)
        o.problem = QStringLiteral("%1 finish_reasons").arg(finishes);
    return o;
}

// One request, retried on 503 after its Retry-After.
Outcome send(int port, bool chat, int prompt, bool stream, std::atomic<int> *retries)
{
    const QByteArray path = chat ? "/v1/chat/completions" : "/v1/completions";
    for (int attempt = 0; attempt < 30; ++attempt) {
        const Reply r = httpExchange(httpRequest("POST", path, body(chat, prompt, stream)), port, 120000);
        if (r.status == 503) {
            ++*retries;
            QThread::msleep(static_cast<unsigned long>(1000 * std::max(1, r.headers.value("retry-after").toInt())));
            continue;
        }
        return parse(chat, stream, r);
    }
    return {503, {}, QStringLiteral("still busy after 30 tries")};
}

} // namespace

class TestServeLoad : public QObject {
    Q_OBJECT

private slots:
    void manyClientsAgreeWithSoloRuns()
    {
        BURROW_REQUIRE_SHARED(QStringLiteral("models/stories260K.gguf"));
        ServeProcess server(sharedPath(QStringLiteral("models/stories260K.gguf")),
                            {"--parallel", "4", "-t", "2", "-c", "256"});
        QVERIFY2(server.ok(), qPrintable(server.error()));
        std::atomic<int> retries{0};

        // Alone, one at a time: the expected replies.
        QString solo[2][kPrompts];
        for (int chat = 0; chat < 2; ++chat)
            for (int p = 0; p < kPrompts; ++p) {
                const Outcome o = send(server.port(), chat, p, false, &retries);
                QCOMPARE(o.status, 200);
                QVERIFY2(o.problem.isEmpty(), qPrintable(o.problem));
                QVERIFY(!o.text.isEmpty());
                solo[chat][p] = o.text;
            }

        // One load: kClients clients at once, kRequestsPerClient requests each.
        auto load = [&] {
            std::mutex mutex;
            QStringList failures;
            std::atomic<int> completed{0};
            std::vector<std::thread> clients;
            for (int c = 0; c < kClients; ++c)
                clients.emplace_back([&, c] {
                    for (int r = 0; r < kRequestsPerClient; ++r) {
                        const bool chat = (c + r) % 2 == 0;
                        const bool stream = (c / 2 + r) % 2 == 0;
                        const int prompt = (c * kRequestsPerClient + r) % kPrompts;
                        const Outcome o = send(server.port(), chat, prompt, stream, &retries);
                        QString problem = o.problem;
                        if (o.status != 200)
                            problem = QStringLiteral("status %1").arg(o.status);
                        else if (problem.isEmpty() && o.text != solo[chat][prompt])
                            problem = QStringLiteral("reply '%1' differs from the solo run's '%2'").arg(o.text, solo[chat][prompt]);
                        if (!problem.isEmpty()) {
                            std::lock_guard lock(mutex);
                            failures << QStringLiteral("client %1 request %2 (%3, %4): %5")
                                            .arg(c)
                                            .arg(r)
                                            .arg(chat ? "chat" : "completion", stream ? "streamed" : "whole", problem);
                        } else {
                            ++completed;
                        }
                    }
                });
            for (std::thread &t : clients)
                t.join();
            qInfo("%d requests completed, %d retried after 503", completed.load(), retries.load());
            if (!failures.isEmpty())
                return failures.mid(0, 5).join('\n');
            if (completed.load() != kClients * kRequestsPerClient)
                return QStringLiteral("%1 of %2 requests completed").arg(completed.load()).arg(kClients * kRequestsPerClient);
            return QString();
        };

        // Memory returns to its start: the server's resident memory after a
        // load stays near where it was before it, and a second identical
        // load adds nothing (a request, a connection or a block that were
        // not freed would add up per load). Under AddressSanitizer the
        // allocator keeps freed memory in quarantine, so only LeakSanitizer's
        // exit check applies there.
        const qint64 before = server.residentBytes();
        const QString first = load();
        QVERIFY2(first.isEmpty(), qPrintable(first));
        const qint64 afterFirst = server.residentBytes();
        const QString second = load();
        QVERIFY2(second.isEmpty(), qPrintable(second));
        const qint64 afterSecond = server.residentBytes();
        qInfo("resident memory: %.1f MiB before, %.1f after one load, %.1f after two", before / 1048576.0,
              afterFirst / 1048576.0, afterSecond / 1048576.0);
#if !defined(__SANITIZE_ADDRESS__)
        QVERIFY(before > 0 && afterFirst > 0 && afterSecond > 0);
        QVERIFY2(afterFirst - before <= 16LL << 20, "one load kept more than 16 MiB");
        QVERIFY2(afterSecond - afterFirst <= 2LL << 20, "a second identical load grew the server by more than 2 MiB");
#endif
        QCOMPARE(httpExchange(httpRequest("GET", "/health"), server.port()).status, 200);
        QCOMPARE(server.stop(), 0);
    }
};

QTEST_MAIN(TestServeLoad)
#include "tst_serve_load.moc"
