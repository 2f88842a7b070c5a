// What the client receives: the SSE sequence of a streamed chat or
// completion (role first, pieces, finish_reason last, the usage chunk when
// asked, [DONE]), whole responses, errors, read back with Qt's own JSON
// parser (not the one that wrote them).
#include "server/anthropic_response.h"
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

ApiRequest toolRequest(bool stream, bool parallel = true)
{
    ApiRequest r = request(Endpoint::ENDPOINT_CHAT_COMPLETIONS, stream, 1, false);
    r.toolsJson = R"([{"type":"function","function":{"name":"get_weather"}},{"type":"function","function":{"name":"now"}}])";
    r.toolNames = {"get_weather", "now"};
    r.parallelToolCalls = parallel;
    return r;
}

JobEvent logprob(int choice, const char *token, float lp, std::vector<LogprobText> top = {})
{
    JobEvent e;
    e.kind = JobEvent::Kind::KIND_LOGPROBS;
    e.choice = choice;
    e.logprob.chosen = {token, lp};
    e.logprob.top = std::move(top);
    return e;
}

// A Qwen3-style reply with text before two calls, cut into awkward pieces.
const char *const kToolReply[] = {"Let me ", "check.\n<tool", "_call>\n{\"name\": \"get_weather\", \"argu",
                                  "ments\": {\"city\": \"Paris\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"now\", ",
                                  "\"arguments\": {}}\n</tool_call>"};

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

    // Tool calls streamed as OpenAI does: content first, then per call a
    // chunk with index, id, type and name (arguments ""), then its arguments;
    // finish_reason "tool_calls"; no markup in any content delta.
    void toolCallsStreamed()
    {
        ResponseAssembler a(toolRequest(true), ids(), 5, chat::ToolCallSyntax::TOOL_CALL_SYNTAX_TAGGED);
        std::string sse = a.open();
        for (const char *p : kToolReply)
            sse += a.onEvent(piece(0, p));
        sse += a.onEvent(done(0, StopReason::STOP_REASON_END_OF_GENERATION, 30));
        bool sawDone = false;
        const QList<QJsonObject> ev = events(sse, &sawDone);
        QVERIFY(sawDone);
        QString content;
        QList<QJsonObject> calls;
        QString finish;
        for (const QJsonObject &e : ev) {
            const QJsonObject c = e["choices"].toArray()[0].toObject();
            const QJsonObject d = c["delta"].toObject();
            content += d["content"].toString();
            if (d.contains("tool_calls"))
                calls.push_back(d["tool_calls"].toArray()[0].toObject());
            if (!c["finish_reason"].isNull())
                finish = c["finish_reason"].toString();
        }
        QCOMPARE(content, QStringLiteral("Let me check."));
        QCOMPARE(finish, QStringLiteral("tool_calls"));
        QCOMPARE(calls.size(), 4);
        QCOMPARE(calls[0]["index"].toInt(), 0);
        QVERIFY(calls[0]["id"].toString().startsWith(QStringLiteral("call_")));
        QCOMPARE(calls[0]["type"].toString(), QStringLiteral("function"));
        QCOMPARE(calls[0]["function"].toObject()["name"].toString(), QStringLiteral("get_weather"));
        QCOMPARE(calls[0]["function"].toObject()["arguments"].toString(), QString());
        QVERIFY(!calls[1].contains("id"));
        QCOMPARE(calls[1]["index"].toInt(), 0);
        QCOMPARE(calls[1]["function"].toObject()["arguments"].toString(), QStringLiteral("{\"city\":\"Paris\"}"));
        QCOMPARE(calls[2]["index"].toInt(), 1);
        QCOMPARE(calls[2]["function"].toObject()["name"].toString(), QStringLiteral("now"));
        QVERIFY(calls[2]["id"].toString() != calls[0]["id"].toString());
        QCOMPARE(calls[3]["function"].toObject()["arguments"].toString(), QStringLiteral("{}"));
    }

    void toolCallsWhole_data()
    {
        QTest::addColumn<bool>("parallel");
        QTest::newRow("parallel") << true;
        QTest::newRow("first only") << false;
    }
    void toolCallsWhole()
    {
        QFETCH(bool, parallel);
        ResponseAssembler a(toolRequest(false, parallel), ids(), 5, chat::ToolCallSyntax::TOOL_CALL_SYNTAX_TAGGED);
        for (const char *p : kToolReply)
            QCOMPARE(a.onEvent(piece(0, p)), std::string());
        QCOMPARE(a.onEvent(done(0, StopReason::STOP_REASON_END_OF_GENERATION, 30)), std::string());
        QVERIFY(a.finished());
        const QJsonObject body = QJsonDocument::fromJson(QByteArray::fromStdString(a.body())).object();
        const QJsonObject choice = body["choices"].toArray()[0].toObject();
        const QJsonObject message = choice["message"].toObject();
        QCOMPARE(choice["finish_reason"].toString(), QStringLiteral("tool_calls"));
        QCOMPARE(message["content"].toString(), QStringLiteral("Let me check."));
        const QJsonArray calls = message["tool_calls"].toArray();
        QCOMPARE(calls.size(), parallel ? 2 : 1);
        QCOMPARE(calls[0].toObject()["function"].toObject()["name"].toString(), QStringLiteral("get_weather"));
        QCOMPARE(calls[0].toObject()["function"].toObject()["arguments"].toString(), QStringLiteral("{\"city\":\"Paris\"}"));
    }

    // A call only: content null; tool-call parts the splitter kept apart
    // (Gemma 4) parse the same; a malformed call is content, finish "stop".
    void toolCallEdges()
    {
        {
            ResponseAssembler a(toolRequest(false), ids(), 5, chat::ToolCallSyntax::TOOL_CALL_SYNTAX_GEMMA4);
            JobEvent e = piece(0, "call:now{}");
            e.kind = JobEvent::Kind::KIND_TOOL_CALL;
            a.onEvent(e);
            a.onEvent(done(0, StopReason::STOP_REASON_END_OF_GENERATION, 3));
            const QJsonObject m = QJsonDocument::fromJson(QByteArray::fromStdString(a.body()))
                                      .object()["choices"].toArray()[0].toObject()["message"].toObject();
            QVERIFY(m["content"].isNull());
            QCOMPARE(m["tool_calls"].toArray()[0].toObject()["function"].toObject()["name"].toString(),
                     QStringLiteral("now"));
        }
        {
            ResponseAssembler a(toolRequest(false), ids(), 5, chat::ToolCallSyntax::TOOL_CALL_SYNTAX_TAGGED);
            a.onEvent(piece(0, "<tool_call>{\"name\": broken</tool_call>"));
            a.onEvent(done(0, StopReason::STOP_REASON_END_OF_GENERATION, 3));
            const QJsonObject c = QJsonDocument::fromJson(QByteArray::fromStdString(a.body()))
                                      .object()["choices"].toArray()[0].toObject();
            QCOMPARE(c["finish_reason"].toString(), QStringLiteral("stop"));
            QCOMPARE(c["message"].toObject()["content"].toString(), QStringLiteral("<tool_call>{\"name\": broken</tool_call>"));
            QVERIFY(!c["message"].toObject().contains("tool_calls"));
        }
    }

    // logprobs: streamed with the chunk that carries the token's text (the
    // chat shape: content[{token, logprob, bytes, top_logprobs}]); whole in
    // the choice; completions in the legacy shape.
    void logprobsShapes()
    {
        ApiRequest r = request(Endpoint::ENDPOINT_CHAT_COMPLETIONS, true, 1, false);
        r.logprobs = true;
        r.topLogprobs = 2;
        ResponseAssembler a(r, ids(), 5);
        std::string sse = a.open();
        sse += a.onEvent(logprob(0, "Hi", -0.5f, {{"Hi", -0.5f}, {"Yo", -1.5f}}));
        sse += a.onEvent(piece(0, "Hi"));
        sse += a.onEvent(logprob(0, "\xc3", -2.0f));   // half a character: its text comes later
        sse += a.onEvent(done(0, StopReason::STOP_REASON_MAX_TOKENS, 2));
        bool sawDone = false;
        const QList<QJsonObject> ev = events(sse, &sawDone);
        QCOMPARE(ev.size(), 3);
        const QJsonArray first = ev[1]["choices"].toArray()[0].toObject()["logprobs"].toObject()["content"].toArray();
        QCOMPARE(first.size(), 1);
        QCOMPARE(first[0].toObject()["token"].toString(), QStringLiteral("Hi"));
        QCOMPARE(first[0].toObject()["logprob"].toDouble(), -0.5);
        QCOMPARE(first[0].toObject()["bytes"].toArray().size(), 2);
        QCOMPARE(first[0].toObject()["top_logprobs"].toArray().size(), 2);
        QCOMPARE(first[0].toObject()["top_logprobs"].toArray()[1].toObject()["token"].toString(), QStringLiteral("Yo"));
        const QJsonArray last = ev[2]["choices"].toArray()[0].toObject()["logprobs"].toObject()["content"].toArray();
        QCOMPARE(last.size(), 1);
        QCOMPARE(last[0].toObject()["bytes"].toArray()[0].toInt(), 0xc3);

        r.stream = false;
        ResponseAssembler whole(r, ids(), 5);
        whole.onEvent(logprob(0, "Hi", -0.25f));
        whole.onEvent(piece(0, "Hi"));
        whole.onEvent(done(0, StopReason::STOP_REASON_MAX_TOKENS, 1));
        const QJsonObject c = QJsonDocument::fromJson(QByteArray::fromStdString(whole.body())).object()["choices"].toArray()[0].toObject();
        QCOMPARE(c["logprobs"].toObject()["content"].toArray()[0].toObject()["logprob"].toDouble(), -0.25);

        ApiRequest cr = request(Endpoint::ENDPOINT_COMPLETIONS, false, 1, false);
        cr.logprobs = true;
        cr.topLogprobs = 1;
        ResponseAssembler comp(cr, ids(), 5);
        comp.onEvent(logprob(0, "a", -1.0f, {{"a", -1.0f}}));
        comp.onEvent(piece(0, "a"));
        comp.onEvent(logprob(0, "bc", -2.0f, {{"x", -0.5f}}));
        comp.onEvent(piece(0, "bc"));
        comp.onEvent(done(0, StopReason::STOP_REASON_MAX_TOKENS, 2));
        const QJsonObject lp = QJsonDocument::fromJson(QByteArray::fromStdString(comp.body()))
                                   .object()["choices"].toArray()[0].toObject()["logprobs"].toObject();
        QCOMPARE(lp["tokens"].toArray().size(), 2);
        QCOMPARE(lp["token_logprobs"].toArray()[1].toDouble(), -2.0);
        QCOMPARE(lp["top_logprobs"].toArray()[1].toObject()["x"].toDouble(), -0.5);
        QCOMPARE(lp["text_offset"].toArray()[1].toInt(), 1);
    }

    // A call's arguments stream as the model writes them, on each endpoint:
    // the reply one byte at a time; per call its opening event (id, name,
    // empty arguments) first, then more than one piece, the pieces joined the
    // compact arguments, each call closed before the next opens, and parallel
    // calls off keeps only the first one's events.
    void toolArgumentsStream_data()
    {
        QTest::addColumn<int>("endpoint");
        QTest::addColumn<bool>("parallel");
        QTest::newRow("chat") << int(Endpoint::ENDPOINT_CHAT_COMPLETIONS) << true;
        QTest::newRow("chat, parallel off") << int(Endpoint::ENDPOINT_CHAT_COMPLETIONS) << false;
        QTest::newRow("messages") << int(Endpoint::ENDPOINT_MESSAGES) << true;
        QTest::newRow("messages, parallel off") << int(Endpoint::ENDPOINT_MESSAGES) << false;
        QTest::newRow("responses") << int(Endpoint::ENDPOINT_RESPONSES) << true;
    }
    void toolArgumentsStream()
    {
        QFETCH(int, endpoint);
        QFETCH(bool, parallel);
        ApiRequest r = toolRequest(true, parallel);
        r.endpoint = Endpoint(endpoint);
        ResponseAssembler a(r, ids(), 5, chat::ToolCallSyntax::TOOL_CALL_SYNTAX_TAGGED);
        std::string sse = a.open();
        std::string reply;
        for (const char *p : kToolReply)
            reply += p;
        for (const char c : reply)
            sse += a.onEvent(piece(0, std::string(1, c).c_str()));
        sse += a.onEvent(done(0, StopReason::STOP_REASON_END_OF_GENERATION, 30));
        QVERIFY(a.finished());
        // Per call: its name, its pieces; "open"/"piece"/"close" in order.
        QStringList names, order;
        QList<QStringList> pieces;
        for (const QByteArray &line : QByteArray::fromStdString(sse).split('\n')) {
            if (!line.startsWith("data: ") || line == "data: [DONE]")
                continue;
            const QJsonObject e = QJsonDocument::fromJson(line.mid(6)).object();
            const QString type = e["type"].toString();
            if (r.endpoint == Endpoint::ENDPOINT_CHAT_COMPLETIONS) {
                const QJsonArray tc = e["choices"].toArray()[0].toObject()["delta"].toObject()["tool_calls"].toArray();
                if (tc.isEmpty())
                    continue;
                const QJsonObject d = tc[0].toObject();
                QCOMPARE(d["index"].toInt(), names.size() - (d.contains("id") ? 0 : 1));
                if (d.contains("id")) {
                    QVERIFY(d["id"].toString().startsWith(QStringLiteral("call_")));
                    QCOMPARE(d["type"].toString(), QStringLiteral("function"));
                    QCOMPARE(d["function"].toObject()["arguments"].toString(), QString());
                    if (!order.isEmpty())
                        order << QStringLiteral("close");
                    order << QStringLiteral("open");
                    names << d["function"].toObject()["name"].toString();
                    pieces << QStringList();
                } else {
                    order << QStringLiteral("piece");
                    pieces.last() << d["function"].toObject()["arguments"].toString();
                }
            } else if (type == QLatin1String("content_block_start") || type == QLatin1String("response.output_item.added")) {
                const QJsonObject block = e[type == QLatin1String("content_block_start") ? "content_block" : "item"].toObject();
                if (block["type"].toString() != QLatin1String("tool_use") &&
                    block["type"].toString() != QLatin1String("function_call"))
                    continue;
                QVERIFY(block["type"] == QLatin1String("tool_use") ? block["input"].toObject().isEmpty()
                                                                   : block["arguments"].toString().isEmpty());
                order << QStringLiteral("open");
                names << block["name"].toString();
                pieces << QStringList();
            } else if (type == QLatin1String("content_block_delta") || type == QLatin1String("response.function_call_arguments.delta")) {
                const QJsonObject delta = e["delta"].toObject();
                if (type == QLatin1String("content_block_delta") && delta["type"].toString() != QLatin1String("input_json_delta"))
                    continue;
                order << QStringLiteral("piece");
                pieces.last() << (type == QLatin1String("content_block_delta") ? delta["partial_json"].toString()
                                                                              : e["delta"].toString());
            } else if ((type == QLatin1String("content_block_stop") && order.size() && order.last() != QLatin1String("close") &&
                        !names.isEmpty()) ||
                       (type == QLatin1String("response.output_item.done") &&
                        e["item"].toObject()["type"].toString() == QLatin1String("function_call"))) {
                if (type == QLatin1String("response.output_item.done"))
                    QCOMPARE(e["item"].toObject()["arguments"].toString(), pieces.last().join(QString()));
                order << QStringLiteral("close");
            }
        }
        if (r.endpoint == Endpoint::ENDPOINT_CHAT_COMPLETIONS && !order.isEmpty())
            order << QStringLiteral("close");
        QCOMPARE(names, parallel ? (QStringList{"get_weather", "now"}) : QStringList{"get_weather"});
        QVERIFY2(pieces[0].size() > 1, qPrintable(pieces[0].join(QLatin1Char('|'))));
        QCOMPARE(pieces[0].join(QString()), QStringLiteral("{\"city\":\"Paris\"}"));
        if (parallel)
            QCOMPARE(pieces[1].join(QString()), QStringLiteral("{}"));
        // open piece... close, one call after the other.
        QString expected;
        for (const QStringList &p : pieces)
            expected += QStringLiteral("open ") + QStringLiteral("piece ").repeated(int(p.size())) + QStringLiteral("close ");
        QCOMPARE(order.join(QLatin1Char(' ')) + QLatin1Char(' '), expected);
    }

    // A streamed call that max_tokens cuts short is closed as it stands
    // (its pieces sent), its text comes as content, the finish reason is
    // "length" (docs/server.md, "Tool calls").
    void toolCallCutShortStreamed()
    {
        ResponseAssembler a(toolRequest(true), ids(), 5, chat::ToolCallSyntax::TOOL_CALL_SYNTAX_TAGGED);
        std::string sse = a.open();
        const std::string reply = "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Pa";
        for (const char c : reply)
            sse += a.onEvent(piece(0, std::string(1, c).c_str()));
        sse += a.onEvent(done(0, StopReason::STOP_REASON_MAX_TOKENS, 20));
        bool sawDone = false;
        QString content, args, finish;
        int opened = 0;
        for (const QJsonObject &e : events(sse, &sawDone)) {
            const QJsonObject c = e["choices"].toArray()[0].toObject();
            content += c["delta"].toObject()["content"].toString();
            for (const QJsonValue &tc : c["delta"].toObject()["tool_calls"].toArray()) {
                opened += tc.toObject().contains("id") ? 1 : 0;
                args += tc.toObject()["function"].toObject()["arguments"].toString();
            }
            if (!c["finish_reason"].isNull())
                finish = c["finish_reason"].toString();
        }
        QVERIFY(sawDone);
        QCOMPARE(opened, 1);
        QCOMPARE(args, QStringLiteral("{\"city\":\"Pa"));
        QCOMPARE(content, QString::fromStdString(reply));
        QCOMPARE(finish, QStringLiteral("length"));
    }

    // /v1/messages streamed: named events, blocks opened and closed in
    // order (thinking with its signature, text, tool_use with its input as
    // one input_json_delta), message_delta with stop_reason tool_use.
    void messagesStream()
    {
        ApiRequest r = toolRequest(true);
        r.endpoint = Endpoint::ENDPOINT_MESSAGES;
        ResponseAssembler a(r, {"msg_test", 1, "tiny"}, 7, chat::ToolCallSyntax::TOOL_CALL_SYNTAX_TAGGED);
        std::string sse = a.open();
        sse += a.onEvent(piece(0, "Hmm.", true));
        for (const char *p : kToolReply)
            sse += a.onEvent(piece(0, p));
        sse += a.onEvent(done(0, StopReason::STOP_REASON_END_OF_GENERATION, 30));
        QVERIFY(a.finished());
        QStringList names;
        QList<QJsonObject> data;
        for (const QByteArray &block : QByteArray::fromStdString(sse).split('\n')) {
            if (block.startsWith("event: "))
                names << QString::fromUtf8(block.mid(7));
            else if (block.startsWith("data: "))
                data << QJsonDocument::fromJson(block.mid(6)).object();
        }
        QCOMPARE(names.join(QLatin1Char(' ')),
                 (QStringList{"message_start", "content_block_start", "content_block_delta", "content_block_delta",
                              "content_block_stop", "content_block_start", "content_block_delta", "content_block_delta",
                              "content_block_stop", "content_block_start", "content_block_delta",
                              "content_block_stop", "content_block_start", "content_block_delta",
                              "content_block_stop", "message_delta", "message_stop"})
                     .join(QLatin1Char(' ')));
        QCOMPARE(names.size(), data.size());
        for (int i = 0; i < names.size(); ++i)
            QCOMPARE(data[i]["type"].toString(), names[i]);
        QCOMPARE(data[0]["message"].toObject()["usage"].toObject()["input_tokens"].toInt(), 7);
        QCOMPARE(data[1]["content_block"].toObject()["type"].toString(), QStringLiteral("thinking"));
        QCOMPARE(data[2]["delta"].toObject()["thinking"].toString(), QStringLiteral("Hmm."));
        QCOMPARE(data[3]["delta"].toObject()["type"].toString(), QStringLiteral("signature_delta"));
        // The text as the parser releases it: "Let me" (the space waits), " check.".
        QCOMPARE(data[6]["delta"].toObject()["text"].toString() + data[7]["delta"].toObject()["text"].toString(),
                 QStringLiteral("Let me check."));
        QCOMPARE(data[9]["content_block"].toObject()["type"].toString(), QStringLiteral("tool_use"));
        QCOMPARE(data[9]["content_block"].toObject()["name"].toString(), QStringLiteral("get_weather"));
        QVERIFY(data[9]["content_block"].toObject()["id"].toString().startsWith(QStringLiteral("toolu_")));
        QCOMPARE(data[10]["delta"].toObject()["partial_json"].toString(), QStringLiteral("{\"city\":\"Paris\"}"));
        QCOMPARE(data[10]["index"].toInt(), 2);
        QCOMPARE(data[13]["index"].toInt(), 3);
        QCOMPARE(data[15]["delta"].toObject()["stop_reason"].toString(), QStringLiteral("tool_use"));
        QCOMPARE(data[15]["usage"].toObject()["output_tokens"].toInt(), 30);
    }

    void messagesWhole()
    {
        ApiRequest r = request(Endpoint::ENDPOINT_MESSAGES, false, 1, false);
        ResponseAssembler a(r, {"msg_test", 1, "tiny"}, 7);
        a.onEvent(piece(0, "Hello"));
        a.onEvent(done(0, StopReason::STOP_REASON_MAX_TOKENS, 4));
        const QJsonObject m = QJsonDocument::fromJson(QByteArray::fromStdString(a.body())).object();
        QCOMPARE(m["type"].toString(), QStringLiteral("message"));
        QCOMPARE(m["id"].toString(), QStringLiteral("msg_test"));
        QCOMPARE(m["stop_reason"].toString(), QStringLiteral("max_tokens"));
        QCOMPARE(m["content"].toArray()[0].toObject()["text"].toString(), QStringLiteral("Hello"));
        QCOMPARE(m["usage"].toObject()["output_tokens"].toInt(), 4);
        QCOMPARE(m["usage"].toObject()["input_tokens"].toInt(), 7);
        const QJsonObject e = QJsonDocument::fromJson(QByteArray::fromStdString(
                                                          anthropicErrorBody(ApiError::badRequest("no"))))
                                  .object();
        QCOMPARE(e["type"].toString(), QStringLiteral("error"));
        QCOMPARE(e["error"].toObject()["type"].toString(), QStringLiteral("invalid_request_error"));
    }

    // /v1/responses streamed: the event sequence with its sequence numbers,
    // items in order (reasoning, message, two function calls), and the
    // response.completed payload equal to the whole body.
    void responsesStream()
    {
        ApiRequest r = toolRequest(true);
        r.endpoint = Endpoint::ENDPOINT_RESPONSES;
        ResponseAssembler a(r, {"resp_test", 1, "tiny"}, 7, chat::ToolCallSyntax::TOOL_CALL_SYNTAX_TAGGED);
        std::string sse = a.open();
        sse += a.onEvent(piece(0, "Hmm.", true));
        for (const char *p : kToolReply)
            sse += a.onEvent(piece(0, p));
        sse += a.onEvent(done(0, StopReason::STOP_REASON_END_OF_GENERATION, 30));
        QVERIFY(a.finished());
        QStringList names;
        QList<QJsonObject> data;
        for (const QByteArray &line : QByteArray::fromStdString(sse).split('\n')) {
            if (line.startsWith("event: "))
                names << QString::fromUtf8(line.mid(7));
            else if (line.startsWith("data: "))
                data << QJsonDocument::fromJson(line.mid(6)).object();
        }
        QCOMPARE(names.size(), data.size());
        for (int i = 0; i < data.size(); ++i) {
            QCOMPARE(data[i]["type"].toString(), names[i]);
            QCOMPARE(data[i]["sequence_number"].toInt(), i);
        }
        QCOMPARE(names.first(), QStringLiteral("response.created"));
        QCOMPARE(names.last(), QStringLiteral("response.completed"));
        QCOMPARE(names.count(QStringLiteral("response.output_item.added")), 4);
        QCOMPARE(names.count(QStringLiteral("response.output_item.done")), 4);
        const QJsonObject completed = data.last()["response"].toObject();
        QCOMPARE(completed["status"].toString(), QStringLiteral("completed"));
        const QJsonArray output = completed["output"].toArray();
        QCOMPARE(output.size(), 4);
        QCOMPARE(output[0].toObject()["type"].toString(), QStringLiteral("reasoning"));
        QCOMPARE(output[1].toObject()["content"].toArray()[0].toObject()["text"].toString(), QStringLiteral("Let me check."));
        QCOMPARE(output[2].toObject()["type"].toString(), QStringLiteral("function_call"));
        QCOMPARE(output[2].toObject()["arguments"].toString(), QStringLiteral("{\"city\":\"Paris\"}"));
        QVERIFY(output[2].toObject()["call_id"].toString().startsWith(QStringLiteral("call_")));
        QCOMPARE(output[3].toObject()["name"].toString(), QStringLiteral("now"));
        QCOMPARE(completed["usage"].toObject()["output_tokens"].toInt(), 30);
        QCOMPARE(QJsonDocument::fromJson(QByteArray::fromStdString(a.body())).object()["output"].toArray(), output);
    }

    void responsesIncomplete()
    {
        ApiRequest r = request(Endpoint::ENDPOINT_RESPONSES, false, 1, false);
        ResponseAssembler a(r, {"resp_test", 1, "tiny"}, 7);
        QCOMPARE(a.onEvent(piece(0, "Once")), std::string());
        a.onEvent(done(0, StopReason::STOP_REASON_MAX_TOKENS, 1));
        const QJsonObject body = QJsonDocument::fromJson(QByteArray::fromStdString(a.body())).object();
        QCOMPARE(body["object"].toString(), QStringLiteral("response"));
        QCOMPARE(body["status"].toString(), QStringLiteral("incomplete"));
        QCOMPARE(body["incomplete_details"].toObject()["reason"].toString(), QStringLiteral("max_output_tokens"));
        QCOMPARE(body["output"].toArray()[0].toObject()["content"].toArray()[0].toObject()["text"].toString(),
                 QStringLiteral("Once"));
    }
};

QTEST_MAIN(TestServerResponse)
#include "tst_server_response.moc"
