// What the client receives: the SSE sequence of a streamed chat or
// completion (role first, pieces, finish_reason last, the usage chunk when
// asked, [DONE]), whole responses, errors, read back with Qt's own JSON
// parser (not the one that wrote them).
#include "server/api_error.h"
#include "server/api_response.h"
#include "server/response_assembler.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace burrow;
using namespace burrow::server;

namespace {

ResponseIds ids()
{
    return {"chatcmpl-test", 1700000000, "tiny"};
}

JobEvent piece(int choice, const char *text, bool reasoning = false)
{
    JobEvent e;
    e.kind = reasoning ? JobEvent::Kind::KIND_REASONING : JobEvent::Kind::KIND_TEXT;
    e.choice = choice;
    e.text = text;
    return e;
}

JobEvent done(int choice, StopReason reason, int tokens, Status status = Status::ok())
{
    JobEvent e;
    e.kind = JobEvent::Kind::KIND_DONE;
    e.choice = choice;
    e.result.stopReason = reason;
    e.result.tokens.assign(size_t(tokens), 1);
    e.result.timings.reusedTokens = 3;
    e.status = status;
    return e;
}

// The events of an SSE text: the JSON objects of its data lines, "[DONE]"
// as a null object; fails the test on anything that is not "data: ...\n\n".
QList<QJsonObject> events(const std::string &sse, bool *sawDone)
{
    QList<QJsonObject> out;
    *sawDone = false;
    const QByteArray all = QByteArray::fromStdString(sse);
    const QList<QByteArray> blocks = all.split('\n');
    // Each event is "data: X" followed by one empty line.
    for (int i = 0; i < blocks.size(); ++i) {
        const QByteArray &line = blocks[i];
        if (line.isEmpty())
            continue;
        if (!line.startsWith("data: ") || i + 1 >= blocks.size() || !blocks[i + 1].isEmpty()) {
            qWarning("bad SSE line: %s", line.constData());
            return {};
        }
        const QByteArray data = line.mid(6);
        if (data == "[DONE]") {
            *sawDone = true;
            continue;
        }
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(data, &err);
        if (err.error != QJsonParseError::NoError || !doc.isObject()) {
            qWarning("bad JSON: %s", data.constData());
            return {};
        }
        out.push_back(doc.object());
    }
    return out;
}

ApiRequest request(Endpoint endpoint, bool stream, int n, bool usage)
{
    ApiRequest r;
    r.endpoint = endpoint;
    r.stream = stream;
    r.n = n;
    r.includeUsage = usage;
    return r;
}

} // namespace

class TestServerResponse : public QObject {
    Q_OBJECT

private slots:
    void chatStream()
    {
        ResponseAssembler a(request(Endpoint::ENDPOINT_CHAT_COMPLETIONS, true, 1, true), ids(), 5);
        std::string sse = a.open();
        sse += a.onEvent(piece(0, "thinking...", true));
        sse += a.onEvent(piece(0, "Hello"));
        sse += a.onEvent(piece(0, ""));       // nothing for an empty piece
        sse += a.onEvent(piece(0, " \"world\"\n"));
        QVERIFY(!a.finished());
        sse += a.onEvent(done(0, StopReason::STOP_REASON_MAX_TOKENS, 4));
        QVERIFY(a.finished());
        QCOMPARE(a.onEvent(piece(0, "late")), std::string());   // nothing after the end
        QVERIFY(sse.rfind("data: [DONE]\n\n") == sse.size() - 14);

        bool sawDone = false;
        const QList<QJsonObject> ev = events(sse, &sawDone);
        QVERIFY(sawDone);
        QCOMPARE(ev.size(), 6);
        for (const QJsonObject &o : ev) {
            QCOMPARE(o["id"].toString(), QStringLiteral("chatcmpl-test"));
            QCOMPARE(o["object"].toString(), QStringLiteral("chat.completion.chunk"));
            QCOMPARE(o["created"].toInteger(), 1700000000);
            QCOMPARE(o["model"].toString(), QStringLiteral("tiny"));
        }
        const auto delta = [&](int i) { return ev[i]["choices"].toArray().at(0).toObject().value("delta").toObject(); };
        const auto finish = [&](int i) { return ev[i]["choices"].toArray().at(0).toObject().value("finish_reason"); };
        QCOMPARE(delta(0)["role"].toString(), QStringLiteral("assistant"));
        QVERIFY(finish(0).isNull());
        QCOMPARE(delta(1)["reasoning_content"].toString(), QStringLiteral("thinking..."));
        QVERIFY(!delta(1).contains("content"));
        QCOMPARE(delta(2)["content"].toString(), QStringLiteral("Hello"));
        QCOMPARE(delta(3)["content"].toString(), QStringLiteral(" \"world\"\n"));
        QVERIFY(finish(3).isNull());
        QVERIFY(delta(4).isEmpty());
        QCOMPARE(finish(4).toString(), QStringLiteral("length"));
        // The usage chunk: no choices.
        QCOMPARE(ev[5]["choices"].toArray().size(), 0);
        const QJsonObject usage = ev[5]["usage"].toObject();
        QCOMPARE(usage["prompt_tokens"].toInt(), 5);
        QCOMPARE(usage["completion_tokens"].toInt(), 4);
        QCOMPARE(usage["total_tokens"].toInt(), 9);
        QCOMPARE(usage["prompt_tokens_details"].toObject().value("cached_tokens").toInt(), 3);
    }

    void chatStreamTwoChoicesNoUsage()
    {
        ResponseAssembler a(request(Endpoint::ENDPOINT_CHAT_COMPLETIONS, true, 2, false), ids(), 5);
        std::string sse = a.open();
        sse += a.onEvent(piece(1, "b"));
        sse += a.onEvent(piece(0, "a"));
        sse += a.onEvent(done(1, StopReason::STOP_REASON_STOP_STRING, 1));
        QVERIFY(!a.finished());
        QVERIFY(sse.find("[DONE]") == std::string::npos);
        sse += a.onEvent(done(0, StopReason::STOP_REASON_END_OF_GENERATION, 1));
        QVERIFY(a.finished());
        bool sawDone = false;
        const QList<QJsonObject> ev = events(sse, &sawDone);
        QVERIFY(sawDone);
        QCOMPARE(ev.size(), 6);   // two role chunks, two pieces, two finish chunks, no usage
        QCOMPARE(ev[0]["choices"].toArray().at(0).toObject().value("index").toInt(), 0);
        QCOMPARE(ev[1]["choices"].toArray().at(0).toObject().value("index").toInt(), 1);
        QCOMPARE(ev[4]["choices"].toArray().at(0).toObject().value("finish_reason").toString(), QStringLiteral("stop"));
        QCOMPARE(ev[5]["choices"].toArray().at(0).toObject().value("finish_reason").toString(), QStringLiteral("stop"));
        for (const QJsonObject &o : ev)
            QVERIFY(!o.contains("usage"));
    }

    void errorInStream()
    {
        ResponseAssembler a(request(Endpoint::ENDPOINT_CHAT_COMPLETIONS, true, 1, true), ids(), 5);
        std::string sse = a.open();
        sse += a.onEvent(piece(0, "x"));
        sse += a.onEvent(done(0, StopReason::STOP_REASON_END_OF_GENERATION, 1, Status::error("out of memory")));
        QVERIFY(a.finished());
        bool sawDone = true;
        const QList<QJsonObject> ev = events(sse, &sawDone);
        QVERIFY(!sawDone);   // an error ends the stream without [DONE]
        QCOMPARE(ev.size(), 3);
        QCOMPARE(ev[2]["error"].toObject().value("message").toString(), QStringLiteral("out of memory"));
        QCOMPARE(ev[2]["error"].toObject().value("type").toString(), QStringLiteral("server_error"));
    }

    void chatWhole()
    {
        ResponseAssembler a(request(Endpoint::ENDPOINT_CHAT_COMPLETIONS, false, 2, false), ids(), 7);
        QCOMPARE(a.open(), std::string());
        QCOMPARE(a.onEvent(piece(0, "Hel")), std::string());
        a.onEvent(piece(0, "lo"));
        a.onEvent(piece(0, "why", true));
        a.onEvent(piece(1, "Hi"));
        a.onEvent(done(0, StopReason::STOP_REASON_END_OF_GENERATION, 3));
        a.onEvent(done(1, StopReason::STOP_REASON_CONTEXT_FULL, 2));
        QVERIFY(a.finished());
        QVERIFY(!a.error());
        const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(a.body())).object();
        QCOMPARE(o["object"].toString(), QStringLiteral("chat.completion"));
        const QJsonArray choices = o["choices"].toArray();
        QCOMPARE(choices.size(), 2);
        QCOMPARE(choices[0].toObject().value("message").toObject().value("role").toString(), QStringLiteral("assistant"));
        QCOMPARE(choices[0].toObject().value("message").toObject().value("content").toString(), QStringLiteral("Hello"));
        QCOMPARE(choices[0].toObject().value("message").toObject().value("reasoning_content").toString(), QStringLiteral("why"));
        QCOMPARE(choices[0].toObject().value("finish_reason").toString(), QStringLiteral("stop"));
        QVERIFY(!choices[1].toObject().value("message").toObject().contains("reasoning_content"));
        QCOMPARE(choices[1].toObject().value("finish_reason").toString(), QStringLiteral("length"));
        QCOMPARE(o["usage"].toObject().value("completion_tokens").toInt(), 5);
        QCOMPARE(o["usage"].toObject().value("total_tokens").toInt(), 12);
    }

    void wholeError()
    {
        ResponseAssembler a(request(Endpoint::ENDPOINT_COMPLETIONS, false, 1, false), ids(), 1);
        a.onEvent(done(0, StopReason::STOP_REASON_END_OF_GENERATION, 0, Status::error("boom")));
        QVERIFY(a.finished());
        QVERIFY(a.error());
        QCOMPARE(a.error()->status, 500);
    }

    void completionStream()
    {
        ResponseAssembler a(request(Endpoint::ENDPOINT_COMPLETIONS, true, 1, true), {"cmpl-x", 1, "tiny"}, 2);
        std::string sse = a.open();
        QCOMPARE(sse, std::string());   // no role chunk for completions
        sse += a.onEvent(piece(0, "upon"));
        sse += a.onEvent(done(0, StopReason::STOP_REASON_STOP_STRING, 2));
        bool sawDone = false;
        const QList<QJsonObject> ev = events(sse, &sawDone);
        QVERIFY(sawDone);
        QCOMPARE(ev.size(), 3);
        QCOMPARE(ev[0]["object"].toString(), QStringLiteral("text_completion"));
        QCOMPARE(ev[0]["choices"].toArray().at(0).toObject().value("text").toString(), QStringLiteral("upon"));
        QVERIFY(ev[0]["choices"].toArray().at(0).toObject().value("finish_reason").isNull());
        QCOMPARE(ev[1]["choices"].toArray().at(0).toObject().value("finish_reason").toString(), QStringLiteral("stop"));
        QCOMPARE(ev[2]["usage"].toObject().value("completion_tokens").toInt(), 2);
    }

    void invalidUtf8Replaced()
    {
        const std::string chunk = chatDeltaChunk(ids(), 0, "content", "a\xff" "b");
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(chunk), &err);
        QCOMPARE(err.error, QJsonParseError::NoError);
        QCOMPARE(doc.object()["choices"].toArray().at(0).toObject().value("delta").toObject().value("content").toString(),
                 QString::fromUtf8("a\xEF\xBF\xBD" "b"));
    }

    void errorShape()
    {
        const std::string body = errorBody(ApiError::badRequest("max_tokens: bad", "max_tokens"));
        const QJsonObject e = QJsonDocument::fromJson(QByteArray::fromStdString(body)).object()["error"].toObject();
        QCOMPARE(e["message"].toString(), QStringLiteral("max_tokens: bad"));
        QCOMPARE(e["type"].toString(), QStringLiteral("invalid_request_error"));
        QCOMPARE(e["param"].toString(), QStringLiteral("max_tokens"));
        QVERIFY(e["code"].isNull());
        const ApiError busy = ApiError::busy("full");
        QCOMPARE(busy.status, 503);
        QVERIFY(busy.retryAfterSeconds > 0);
        QCOMPARE(ApiError::unauthorized().status, 401);
    }

    void ids_are_unique()
    {
        const std::string a = newResponseId("chatcmpl-"), b = newResponseId("chatcmpl-");
        QVERIFY(a != b);
        QVERIFY(a.rfind("chatcmpl-", 0) == 0);
        QCOMPARE(a.size(), size_t(9 + 24));
    }

    void models()
    {
        const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(modelList("tiny", 5))).object();
        QCOMPARE(o["object"].toString(), QStringLiteral("list"));
        QCOMPARE(o["data"].toArray().at(0).toObject().value("id").toString(), QStringLiteral("tiny"));
        QCOMPARE(o["data"].toArray().at(0).toObject().value("object").toString(), QStringLiteral("model"));
    }
};

QTEST_MAIN(TestServerResponse)
#include "tst_server_response.moc"
