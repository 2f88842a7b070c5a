// Request bodies of POST /v1/chat/completions and /v1/completions: every
// field read with its type and range; a bad one is a 400 that names it;
// unknown fields are ignored; the limits hold.
#include "server/api_request.h"

#include <QtTest>

#include <string>

using namespace burrow::server;

Q_DECLARE_METATYPE(burrow::server::Endpoint)

namespace {

constexpr auto CHAT = Endpoint::ENDPOINT_CHAT_COMPLETIONS;
constexpr auto COMPLETIONS = Endpoint::ENDPOINT_COMPLETIONS;

const char *const kMessages = R"("messages":[{"role":"user","content":"hi"}])";

QByteArray chat(const char *fields)
{
    return QByteArray("{") + kMessages + (fields[0] ? "," : "") + fields + "}";
}

std::variant<ApiRequest, ApiError> parse(Endpoint e, const QByteArray &body, int maxChoices = 4)
{
    return parseApiRequest(e, std::string_view(body.constData(), size_t(body.size())), ServerLimits{}, maxChoices);
}

} // namespace

class TestServerRequest : public QObject {
    Q_OBJECT

private slots:
    void refused_data()
    {
        QTest::addColumn<Endpoint>("endpoint");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("param");      // the field the 400 names ("" = none)
        QTest::addColumn<QString>("needle");     // a part of the message

        QTest::newRow("malformed json") << CHAT << QByteArray("{\"messages\": [") << "" << "not valid JSON";
        QTest::newRow("not an object") << CHAT << QByteArray("[1,2]") << "" << "JSON object";
        QTest::newRow("empty body") << CHAT << QByteArray("") << "" << "not valid JSON";
        QTest::newRow("invalid utf-8") << CHAT << QByteArray("{\"messages\":[{\"role\":\"user\",\"content\":\"\xff\"}]}")
                                       << "" << "not valid JSON";
        QTest::newRow("deep nesting") << CHAT << (QByteArray(100, '[') + QByteArray(100, ']')) << "" << "nests deeper";
        QTest::newRow("no messages") << CHAT << QByteArray("{}") << "messages" << "missing";
        QTest::newRow("messages empty") << CHAT << QByteArray("{\"messages\":[]}") << "messages" << "at least one";
        QTest::newRow("messages string") << CHAT << QByteArray("{\"messages\":\"hi\"}") << "messages" << "array";
        QTest::newRow("message not object") << CHAT << QByteArray("{\"messages\":[3]}") << "messages[0]" << "object";
        QTest::newRow("role missing") << CHAT << QByteArray("{\"messages\":[{\"content\":\"x\"}]}") << "messages[0].role"
                                      << "missing";
        QTest::newRow("role unknown") << CHAT << QByteArray("{\"messages\":[{\"role\":\"wizard\",\"content\":\"x\"}]}")
                                      << "messages[0].role" << "wizard";
        QTest::newRow("content number") << CHAT << QByteArray("{\"messages\":[{\"role\":\"user\",\"content\":5}]}")
                                        << "messages[0].content" << "string";
        QTest::newRow("image part") << CHAT
                                    << QByteArray("{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\","
                                                  "\"image_url\":{\"url\":\"x\"}}]}]}")
                                    << "messages[0].content[0].type" << "not supported";
        QTest::newRow("max_tokens string") << CHAT << chat("\"max_tokens\":\"10\"") << "max_tokens" << "integer";
        QTest::newRow("max_tokens float") << CHAT << chat("\"max_tokens\":10.5") << "max_tokens" << "integer";
        QTest::newRow("max_tokens negative") << CHAT << chat("\"max_tokens\":-5") << "max_tokens" << "out of range";
        QTest::newRow("max_tokens zero") << CHAT << chat("\"max_tokens\":0") << "max_tokens" << "out of range";
        QTest::newRow("max_tokens huge") << CHAT << chat("\"max_tokens\":100000000000") << "max_tokens" << "out of range";
        QTest::newRow("max_tokens beyond int64") << CHAT << chat("\"max_tokens\":18446744073709551615") << "max_tokens"
                                                 << "out of range";
        QTest::newRow("max_completion_tokens huge") << CHAT << chat("\"max_completion_tokens\":1000000")
                                                    << "max_completion_tokens" << "out of range";
        QTest::newRow("temperature string") << CHAT << chat("\"temperature\":\"hot\"") << "temperature" << "number";
        QTest::newRow("temperature 3") << CHAT << chat("\"temperature\":3") << "temperature" << "out of range";
        QTest::newRow("temperature negative") << CHAT << chat("\"temperature\":-0.1") << "temperature" << "out of range";
        QTest::newRow("top_p 1.5") << CHAT << chat("\"top_p\":1.5") << "top_p" << "out of range";
        QTest::newRow("top_k float") << CHAT << chat("\"top_k\":2.5") << "top_k" << "integer";
        QTest::newRow("top_k negative") << CHAT << chat("\"top_k\":-1") << "top_k" << "out of range";
        QTest::newRow("min_p 2") << CHAT << chat("\"min_p\":2") << "min_p" << "out of range";
        QTest::newRow("presence_penalty 5") << CHAT << chat("\"presence_penalty\":5") << "presence_penalty" << "out of range";
        QTest::newRow("frequency_penalty bool") << CHAT << chat("\"frequency_penalty\":true") << "frequency_penalty"
                                                << "number";
        QTest::newRow("seed string") << CHAT << chat("\"seed\":\"42\"") << "seed" << "integer";
        QTest::newRow("stop number") << CHAT << chat("\"stop\":5") << "stop" << "string or an array";
        QTest::newRow("stop array of numbers") << CHAT << chat("\"stop\":[\"a\",5]") << "stop[1]" << "string";
        QTest::newRow("stream string") << CHAT << chat("\"stream\":\"yes\"") << "stream" << "boolean";
        QTest::newRow("stream_options array") << CHAT << chat("\"stream_options\":[]") << "stream_options" << "object";
        QTest::newRow("include_usage string") << CHAT << chat("\"stream_options\":{\"include_usage\":\"y\"}")
                                              << "stream_options.include_usage" << "boolean";
        QTest::newRow("n zero") << CHAT << chat("\"n\":0") << "n" << "out of range";
        QTest::newRow("n above parallel") << CHAT << chat("\"n\":5") << "n" << "1 to 4";
        QTest::newRow("model number") << CHAT << chat("\"model\":7") << "model" << "string";
        QTest::newRow("reasoning_effort unknown") << CHAT << chat("\"reasoning_effort\":\"max\"") << "reasoning_effort"
                                                  << "not one of";
        QTest::newRow("thinking string") << CHAT << chat("\"thinking\":\"yes\"") << "thinking" << "boolean";
        QTest::newRow("logprobs number (chat)") << CHAT << chat("\"logprobs\":2") << "logprobs" << "boolean";
        QTest::newRow("top_logprobs 21") << CHAT << chat("\"logprobs\":true,\"top_logprobs\":21") << "top_logprobs"
                                         << "out of range";
        QTest::newRow("top_logprobs alone") << CHAT << chat("\"top_logprobs\":3") << "top_logprobs" << "needs logprobs";
        QTest::newRow("logprobs 30 (completions)") << COMPLETIONS << QByteArray("{\"prompt\":\"a\",\"logprobs\":30}")
                                                   << "logprobs" << "out of range";
        QTest::newRow("response_format unknown") << CHAT << chat("\"response_format\":{\"type\":\"xml\"}")
                                                 << "response_format.type" << "not one of";
        QTest::newRow("json_schema without object") << CHAT << chat("\"response_format\":{\"type\":\"json_schema\"}")
                                                    << "response_format.json_schema" << "expected an object";
        QTest::newRow("json_schema schema string")
            << CHAT << chat("\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"schema\":\"x\"}}")
            << "response_format.json_schema.schema" << "schema object";
        QTest::newRow("tools object") << CHAT << chat("\"tools\":{}") << "tools" << "array";
        QTest::newRow("tool type") << CHAT << chat("\"tools\":[{\"type\":\"code\"}]") << "tools[0].type" << "function";
        QTest::newRow("tool no function") << CHAT << chat("\"tools\":[{\"type\":\"function\"}]") << "tools[0].function"
                                          << "object";
        QTest::newRow("tool bad name") << CHAT
                                       << chat("\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"a b\"}}]")
                                       << "tools[0].function.name" << "characters";
        QTest::newRow("tool long name") << CHAT
                                        << chat(("\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"" +
                                                 std::string(65, 'x') + "\"}}]").c_str())
                                        << "tools[0].function.name" << "64";
        QTest::newRow("tool parameters string")
            << CHAT << chat("\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":\"x\"}}]")
            << "tools[0].function.parameters" << "schema";
        QTest::newRow("tool twice")
            << CHAT << chat("\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}},"
                            "{\"type\":\"function\",\"function\":{\"name\":\"f\"}}]")
            << "tools[1].function.name" << "twice";
        {
            std::string many = "\"tools\":[";
            for (int i = 0; i < 3000; ++i)
                many += std::string(i ? "," : "") + "{\"type\":\"function\",\"function\":{\"name\":\"f" +
                        std::to_string(i) + "\"}}";
            QTest::newRow("thousands of tools") << CHAT << chat((many + "]").c_str()) << "tools" << "at most 256";
        }
        QTest::newRow("tool_choice unknown") << CHAT << chat("\"tool_choice\":\"always\"") << "tool_choice"
                                             << "not one of";
        QTest::newRow("tool_choice number") << CHAT << chat("\"tool_choice\":1") << "tool_choice" << "expected";
        QTest::newRow("tool_choice required without tools") << CHAT << chat("\"tool_choice\":\"required\"")
                                                            << "tool_choice" << "tools";
        QTest::newRow("tool_choice names another")
            << CHAT << chat("\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}],"
                            "\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"g\"}}")
            << "tool_choice" << "'g' is not one of the tools";
        QTest::newRow("response_format with a required call")
            << CHAT << chat("\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}],\"tool_choice\":\"required\","
                            "\"response_format\":{\"type\":\"json_object\"}")
            << "response_format" << "required tool call";
        QTest::newRow("parallel_tool_calls string") << CHAT << chat("\"parallel_tool_calls\":\"no\"")
                                                    << "parallel_tool_calls" << "boolean";
        QTest::newRow("prompt missing") << COMPLETIONS << QByteArray("{}") << "prompt" << "missing";
        QTest::newRow("prompt number") << COMPLETIONS << QByteArray("{\"prompt\":5}") << "prompt" << "string";
        QTest::newRow("prompt batch") << COMPLETIONS << QByteArray("{\"prompt\":[\"a\",\"b\"]}") << "prompt"
                                      << "one prompt";
        QTest::newRow("echo") << COMPLETIONS << QByteArray("{\"prompt\":\"a\",\"echo\":true}") << "echo" << "not supported";
    }
    void refused()
    {
        QFETCH(Endpoint, endpoint);
        QFETCH(QByteArray, body);
        QFETCH(QString, param);
        QFETCH(QString, needle);
        const auto r = parse(endpoint, body);
        QVERIFY2(std::holds_alternative<ApiError>(r), "accepted");
        const ApiError &e = std::get<ApiError>(r);
        QCOMPARE(e.status, 400);
        QCOMPARE(QString::fromStdString(e.type), QStringLiteral("invalid_request_error"));
        QCOMPARE(QString::fromStdString(e.param), param);
        QVERIFY2(QString::fromStdString(e.message).contains(needle), e.message.c_str());
        if (!param.isEmpty())
            QVERIFY2(QString::fromStdString(e.message).startsWith(param), e.message.c_str());
    }

    void toolFields()
    {
        const auto r = parse(CHAT, chat(R"("tools":[{"type":"function","function":{"name":"get_weather",
            "description":"d","parameters":{"type":"object","properties":{"city":{"type":"string"}}},"strict":true}},
            {"type":"function","function":{"name":"now"}}],"tool_choice":{"type":"function","function":{"name":"now"}},
            "parallel_tool_calls":false,"logprobs":true,"top_logprobs":3)"));
        QVERIFY2(std::holds_alternative<ApiRequest>(r), std::get_if<ApiError>(&r) ? std::get<ApiError>(r).message.c_str() : "");
        const ApiRequest &a = std::get<ApiRequest>(r);
        QCOMPARE(a.toolNames, (std::vector<std::string>{"get_weather", "now"}));
        QVERIFY(a.toolsJson.find("\"strict\":true") != std::string::npos);
        QCOMPARE(a.toolChoice, ApiRequest::ToolChoice::TOOL_CHOICE_NAMED);
        QCOMPARE(QString::fromStdString(a.toolChoiceName), QStringLiteral("now"));
        QVERIFY(!a.parallelToolCalls);
        QVERIFY(a.toolsActive());
        QVERIFY(a.logprobs);
        QCOMPARE(a.topLogprobs, 3);
        const auto schema = parse(CHAT, chat(R"("response_format":{"type":"json_schema","json_schema":{"name":"x",
            "schema":{"type":"object"},"strict":true}})"));
        QVERIFY(std::holds_alternative<ApiRequest>(schema));
        QCOMPARE(std::get<ApiRequest>(schema).responseFormat, ApiRequest::ResponseFormat::RESPONSE_FORMAT_JSON_SCHEMA);
        QCOMPARE(QString::fromStdString(std::get<ApiRequest>(schema).responseSchemaJson),
                 QStringLiteral("{\"type\":\"object\"}"));

        const auto none = parse(CHAT, chat(R"("tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"none",
            "response_format":{"type":"json_object"})"));
        QVERIFY(std::holds_alternative<ApiRequest>(none));
        QVERIFY(!std::get<ApiRequest>(none).toolsActive());
        QCOMPARE(std::get<ApiRequest>(none).responseFormat, ApiRequest::ResponseFormat::RESPONSE_FORMAT_JSON_OBJECT);

        const auto completions = parse(COMPLETIONS, QByteArray(R"({"prompt":"a","logprobs":5})"));
        QVERIFY(std::holds_alternative<ApiRequest>(completions));
        QVERIFY(std::get<ApiRequest>(completions).logprobs);
        QCOMPARE(std::get<ApiRequest>(completions).topLogprobs, 5);
    }

    // /v1/messages: Anthropic's body read as the chat request it is.
    void anthropicMessages()
    {
        const auto r = parse(Endpoint::ENDPOINT_MESSAGES, QByteArray(R"({"model":"m","max_tokens":64,
            "system":[{"type":"text","text":"Be brief."}],"stop_sequences":["END"],"temperature":0.5,
            "thinking":{"type":"enabled","budget_tokens":1024},
            "tools":[{"name":"get_weather","description":"d","input_schema":{"type":"object"}}],
            "tool_choice":{"type":"tool","name":"get_weather","disable_parallel_tool_use":true},
            "messages":[{"role":"user","content":"Weather?"},
              {"role":"assistant","content":[{"type":"thinking","thinking":"Look it up.","signature":"s"},
                {"type":"text","text":"Checking."},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Oslo"}}]},
              {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"3C"}]},
                {"type":"text","text":"Thanks"}]}]})"));
        QVERIFY2(std::holds_alternative<ApiRequest>(r), std::get_if<ApiError>(&r) ? std::get<ApiError>(r).message.c_str() : "");
        const ApiRequest &a = std::get<ApiRequest>(r);
        QCOMPARE(a.endpoint, Endpoint::ENDPOINT_MESSAGES);
        QCOMPARE(a.messages.size(), size_t(5));
        QCOMPARE(QString::fromStdString(a.messages[0].role), QStringLiteral("system"));
        QCOMPARE(QString::fromStdString(a.messages[0].content), QStringLiteral("Be brief."));
        QCOMPARE(QString::fromStdString(a.messages[2].role), QStringLiteral("assistant"));
        QCOMPARE(QString::fromStdString(a.messages[2].content), QStringLiteral("Checking."));
        QCOMPARE(QString::fromStdString(a.messages[2].reasoning), QStringLiteral("Look it up."));
        QVERIFY(a.messages[2].extraJson.find("\"arguments\":\"{\\\"city\\\":\\\"Oslo\\\"}\"") != std::string::npos);
        QCOMPARE(QString::fromStdString(a.messages[3].role), QStringLiteral("tool"));
        QCOMPARE(QString::fromStdString(a.messages[3].content), QStringLiteral("3C"));
        QVERIFY(a.messages[3].extraJson.find(R"("tool_call_id":"toolu_1")") != std::string::npos);
        QCOMPARE(QString::fromStdString(a.messages[4].content), QStringLiteral("Thanks"));
        QCOMPARE(a.maxTokens, 64);
        QCOMPARE(a.stop, (std::vector<std::string>{"END"}));
        QCOMPARE(a.enableThinking, std::optional<bool>(true));
        QCOMPARE(a.toolChoice, ApiRequest::ToolChoice::TOOL_CHOICE_NAMED);
        QVERIFY(!a.parallelToolCalls);
        QVERIFY(a.toolsJson.find(R"("parameters":{"type":"object"})") != std::string::npos);

        const auto image = parse(Endpoint::ENDPOINT_MESSAGES, QByteArray(
            R"({"messages":[{"role":"user","content":[{"type":"image","source":{}}]}]})"));
        QVERIFY(std::holds_alternative<ApiError>(image));
        QCOMPARE(QString::fromStdString(std::get<ApiError>(image).param), QStringLiteral("messages[0].content[0].type"));
        const auto serverTool = parse(Endpoint::ENDPOINT_MESSAGES, QByteArray(
            R"({"messages":[{"role":"user","content":"x"}],"tools":[{"type":"web_search_20250305","name":"web_search"}]})"));
        QVERIFY(std::holds_alternative<ApiError>(serverTool));
        QVERIFY(std::get<ApiError>(serverTool).message.find("server tool") != std::string::npos);
        const auto role = parse(Endpoint::ENDPOINT_MESSAGES, QByteArray(R"({"messages":[{"role":"system","content":"x"}]})"));
        QVERIFY(std::holds_alternative<ApiError>(role));
    }

    // /v1/responses: input items read as chat messages.
    void responsesInput()
    {
        const auto r = parse(Endpoint::ENDPOINT_RESPONSES, QByteArray(R"({"model":"m","instructions":"Be brief.",
            "max_output_tokens":50,"reasoning":{"effort":"high"},"parallel_tool_calls":false,
            "tools":[{"type":"function","name":"get_weather","parameters":{"type":"object"},"strict":true}],
            "tool_choice":{"type":"function","name":"get_weather"},
            "text":{"format":{"type":"json_schema","name":"r","schema":{"type":"object"}}},
            "input":[{"role":"user","content":[{"type":"input_text","text":"Weather?"}]},
              {"type":"reasoning","summary":[{"type":"summary_text","text":"Look it up."}]},
              {"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{}"},
              {"type":"function_call","call_id":"call_2","name":"get_weather","arguments":"{}"},
              {"type":"function_call_output","call_id":"call_1","output":"3C"},
              {"type":"message","role":"assistant","content":[{"type":"output_text","text":"Cold."}]}]})"));
        QVERIFY(std::holds_alternative<ApiError>(r));   // text.format with a named tool call: refused
        QCOMPARE(QString::fromStdString(std::get<ApiError>(r).param), QStringLiteral("response_format"));

        const auto ok = parse(Endpoint::ENDPOINT_RESPONSES, QByteArray(R"({"model":"m","instructions":"Be brief.",
            "max_output_tokens":50,"reasoning":{"effort":"high"},"parallel_tool_calls":false,
            "tools":[{"type":"function","name":"get_weather","parameters":{"type":"object"},"strict":true}],
            "tool_choice":{"type":"function","name":"get_weather"},
            "input":[{"role":"user","content":[{"type":"input_text","text":"Weather?"}]},
              {"type":"reasoning","summary":[{"type":"summary_text","text":"Look it up."}]},
              {"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{}"},
              {"type":"function_call","call_id":"call_2","name":"get_weather","arguments":"{}"},
              {"type":"function_call_output","call_id":"call_1","output":"3C"},
              {"type":"message","role":"assistant","content":[{"type":"output_text","text":"Cold."}]}]})"));
        QVERIFY2(std::holds_alternative<ApiRequest>(ok), std::get_if<ApiError>(&ok) ? std::get<ApiError>(ok).message.c_str() : "");
        const ApiRequest &a = std::get<ApiRequest>(ok);
        QCOMPARE(a.endpoint, Endpoint::ENDPOINT_RESPONSES);
        QCOMPARE(a.messages.size(), size_t(5));
        QCOMPARE(QString::fromStdString(a.messages[0].content), QStringLiteral("Be brief."));
        QCOMPARE(QString::fromStdString(a.messages[1].content), QStringLiteral("Weather?"));
        QCOMPARE(QString::fromStdString(a.messages[2].role), QStringLiteral("assistant"));
        QCOMPARE(QString::fromStdString(a.messages[2].reasoning), QStringLiteral("Look it up."));
        QVERIFY(a.messages[2].extraJson.find("call_2") != std::string::npos);   // both calls on one turn
        QCOMPARE(QString::fromStdString(a.messages[3].role), QStringLiteral("tool"));
        QCOMPARE(QString::fromStdString(a.messages[4].content), QStringLiteral("Cold."));
        QCOMPARE(a.maxTokens, 50);
        QCOMPARE(QString::fromStdString(a.reasoningEffort), QStringLiteral("high"));
        QCOMPARE(a.toolChoice, ApiRequest::ToolChoice::TOOL_CHOICE_NAMED);
        QVERIFY(!a.parallelToolCalls);

        const auto builtin = parse(Endpoint::ENDPOINT_RESPONSES, QByteArray(
            R"({"input":"x","tools":[{"type":"web_search"}]})"));
        QVERIFY(std::holds_alternative<ApiError>(builtin));
        QCOMPARE(QString::fromStdString(std::get<ApiError>(builtin).param), QStringLiteral("tools[0].type"));
        const auto stateful = parse(Endpoint::ENDPOINT_RESPONSES, QByteArray(R"({"input":"x","previous_response_id":"r"})"));
        QVERIFY(std::holds_alternative<ApiError>(stateful));
        QCOMPARE(QString::fromStdString(std::get<ApiError>(stateful).param), QStringLiteral("previous_response_id"));
        const auto image = parse(Endpoint::ENDPOINT_RESPONSES, QByteArray(
            R"({"input":[{"role":"user","content":[{"type":"input_image","image_url":"x"}]}]})"));
        QVERIFY(std::holds_alternative<ApiError>(image));
        const auto noInput = parse(Endpoint::ENDPOINT_RESPONSES, QByteArray(R"({"model":"m"})"));
        QVERIFY(std::holds_alternative<ApiError>(noInput));
        QCOMPARE(QString::fromStdString(std::get<ApiError>(noInput).param), QStringLiteral("input"));
    }

    void chatFields()
    {
        const auto r = parse(CHAT, QByteArray(
            R"({"model":"m","messages":[)"
            R"({"role":"system","content":"be brief"},)"
            R"({"role":"developer","content":"dev"},)"
            R"({"role":"user","content":[{"type":"text","text":"one"},{"type":"text","text":"two"}]},)"
            R"({"role":"assistant","content":null,"reasoning_content":"hmm","tool_calls":[{"id":"c1"}]},)"
            R"({"role":"tool","content":"42","tool_call_id":"c1"}],)"
            R"("max_tokens":7,"temperature":0,"top_p":0.5,"top_k":3,"min_p":0.1,"seed":1234,)"
            R"("presence_penalty":0.5,"frequency_penalty":-0.5,"stop":["END",""],"stream":true,)"
            R"("stream_options":{"include_usage":true},"n":2,"reasoning_effort":"high",)"
            R"("chat_template_kwargs":{"x":1},"unknown_field":{"deep":[1,2,3]},"user":"someone"})"));
        QVERIFY(std::holds_alternative<ApiRequest>(r));
        const ApiRequest &q = std::get<ApiRequest>(r);
        QCOMPARE(q.model, std::string("m"));
        QCOMPARE(q.messages.size(), size_t(5));
        QCOMPARE(q.messages[1].role, std::string("system"));
        QCOMPARE(q.messages[2].content, std::string("one\ntwo"));
        QCOMPARE(q.messages[3].content, std::string());
        QCOMPARE(q.messages[3].reasoning, std::string("hmm"));
        QCOMPARE(q.messages[3].extraJson, std::string(R"({"tool_calls":[{"id":"c1"}]})"));
        QCOMPARE(q.messages[4].extraJson, std::string(R"({"tool_call_id":"c1"})"));
        QCOMPARE(q.maxTokens, 7);
        QCOMPARE(q.sampling.temperature, 0.0f);
        QCOMPARE(q.sampling.topP, 0.5f);
        QCOMPARE(q.sampling.topK, 3);
        QCOMPARE(q.sampling.minP, 0.1f);
        QCOMPARE(q.sampling.seed, 1234u);
        QCOMPARE(q.sampling.presencePenalty, 0.5f);
        QCOMPARE(q.sampling.frequencyPenalty, -0.5f);
        QCOMPARE(q.stop, std::vector<std::string>{"END"});   // empty ones dropped
        QVERIFY(q.stream);
        QVERIFY(q.includeUsage);
        QCOMPARE(q.n, 2);
        QCOMPARE(q.reasoningEffort, std::string("high"));
        QCOMPARE(q.enableThinking, std::optional<bool>(true));
        QCOMPARE(q.templateKwargsJson, std::string(R"({"x":1})"));
    }

    void defaultsWhenAbsentOrNull()
    {
        const auto r = parse(CHAT, chat(R"("max_tokens":null,"temperature":null,"stop":null,"seed":null)"));
        QVERIFY(std::holds_alternative<ApiRequest>(r));
        const ApiRequest &q = std::get<ApiRequest>(r);
        const burrow::SamplingParams d;
        QCOMPARE(q.maxTokens, -1);
        QCOMPARE(q.sampling.temperature, d.temperature);
        QCOMPARE(q.sampling.topK, d.topK);
        QCOMPARE(q.sampling.seed, d.seed);
        QVERIFY(q.stop.empty());
        QVERIFY(!q.stream);
        QCOMPARE(q.n, 1);
        QVERIFY(!q.enableThinking.has_value());
    }

    void maxCompletionTokensWins()
    {
        for (const char *body : {R"("max_tokens":5,"max_completion_tokens":9)", R"("max_completion_tokens":9,"max_tokens":5)"}) {
            const auto r = parse(CHAT, chat(body));
            QVERIFY(std::holds_alternative<ApiRequest>(r));
            QCOMPARE(std::get<ApiRequest>(r).maxTokens, 9);
        }
    }

    void stopAsString()
    {
        const auto r = parse(COMPLETIONS, R"({"prompt":"Once","stop":"\n"})");
        QVERIFY(std::holds_alternative<ApiRequest>(r));
        QCOMPARE(std::get<ApiRequest>(r).stop, std::vector<std::string>{"\n"});
        QCOMPARE(std::get<ApiRequest>(r).prompt, std::string("Once"));
        const auto one = parse(COMPLETIONS, R"({"prompt":["Twice"]})");
        QVERIFY(std::holds_alternative<ApiRequest>(one));
        QCOMPARE(std::get<ApiRequest>(one).prompt, std::string("Twice"));
    }

    void seeds_data()
    {
        QTest::addColumn<QByteArray>("seed");
        QTest::addColumn<uint>("expected");
        QTest::newRow("-1 random") << QByteArray("-1") << 0xFFFFFFFFu;
        QTest::newRow("0") << QByteArray("0") << 0u;
        QTest::newRow("large folds") << QByteArray("4294967295") << 0u;
        QTest::newRow("64-bit") << QByteArray("18446744073709551615") << uint(18446744073709551615ull % 0xFFFFFFFFull);
        QTest::newRow("-2 folds") << QByteArray("-2") << uint(uint64_t(-2) % 0xFFFFFFFFull);
    }
    void seeds()
    {
        QFETCH(QByteArray, seed);
        QFETCH(uint, expected);
        const auto r = parse(CHAT, chat(("\"seed\":" + seed).constData()));
        QVERIFY(std::holds_alternative<ApiRequest>(r));
        QCOMPARE(std::get<ApiRequest>(r).sampling.seed, expected);
    }

    void reasoning_data()
    {
        QTest::addColumn<QByteArray>("fields");
        QTest::addColumn<int>("thinking");   // -1 unset, 0 off, 1 on
        QTest::addColumn<QString>("effort");
        QTest::newRow("none") << QByteArray("\"reasoning_effort\":\"none\"") << 0 << "low";
        QTest::newRow("minimal") << QByteArray("\"reasoning_effort\":\"minimal\"") << 1 << "low";
        QTest::newRow("medium") << QByteArray("\"reasoning_effort\":\"medium\"") << 1 << "medium";
        QTest::newRow("reasoning object") << QByteArray("\"reasoning\":{\"effort\":\"high\"}") << 1 << "high";
        QTest::newRow("thinking false") << QByteArray("\"thinking\":false") << 0 << "";
        QTest::newRow("thinking enabled") << QByteArray("\"thinking\":{\"type\":\"enabled\"}") << 1 << "";
        QTest::newRow("thinking disabled") << QByteArray("\"thinking\":{\"type\":\"disabled\"}") << 0 << "";
    }
    void reasoning()
    {
        QFETCH(QByteArray, fields);
        QFETCH(int, thinking);
        QFETCH(QString, effort);
        const auto r = parse(CHAT, chat(fields.constData()));
        QVERIFY(std::holds_alternative<ApiRequest>(r));
        const ApiRequest &q = std::get<ApiRequest>(r);
        QCOMPARE(q.enableThinking.has_value() ? int(*q.enableThinking) : -1, thinking);
        QCOMPARE(QString::fromStdString(q.reasoningEffort), effort);
    }

    void limits()
    {
        const ServerLimits limits;
        // 10,000 stop strings.
        QByteArray stops = "\"stop\":[";
        for (int i = 0; i < 10000; ++i)
            stops += (i ? ",\"s" : "\"s") + QByteArray::number(i) + "\"";
        stops += "]";
        auto r = parse(CHAT, chat(stops.constData()));
        QVERIFY(std::holds_alternative<ApiError>(r));
        QCOMPARE(std::get<ApiError>(r).param, std::string("stop"));
        QVERIFY(QString::fromStdString(std::get<ApiError>(r).message).contains("10000"));
        // Exactly the limit passes.
        QByteArray ok = "\"stop\":[";
        for (size_t i = 0; i < limits.maxStopStrings; ++i)
            ok += (i ? ",\"s" : "\"s") + QByteArray::number(qulonglong(i)) + "\"";
        ok += "]";
        QVERIFY(std::holds_alternative<ApiRequest>(parse(CHAT, chat(ok.constData()))));
        // A stop string too long.
        const QByteArray longStop = "\"stop\":\"" + QByteArray(int(limits.maxStopBytes) + 1, 'x') + "\"";
        r = parse(CHAT, chat(longStop.constData()));
        QVERIFY(std::holds_alternative<ApiError>(r));
        QCOMPARE(std::get<ApiError>(r).param, std::string("stop"));
        // Too many messages.
        QByteArray many = "{\"messages\":[";
        for (size_t i = 0; i <= limits.maxMessages; ++i)
            many += QByteArray(i ? "," : "") + "{\"role\":\"user\",\"content\":\"x\"}";
        many += "]}";
        r = parse(CHAT, many);
        QVERIFY(std::holds_alternative<ApiError>(r));
        QCOMPARE(std::get<ApiError>(r).param, std::string("messages"));
        // max_tokens at the limit passes, one more does not.
        QVERIFY(std::holds_alternative<ApiRequest>(
            parse(CHAT, chat(("\"max_tokens\":" + QByteArray::number(qlonglong(limits.maxTokens))).constData()))));
        QVERIFY(std::holds_alternative<ApiError>(
            parse(CHAT, chat(("\"max_tokens\":" + QByteArray::number(qlonglong(limits.maxTokens + 1))).constData()))));
    }

    void nestingDepth()
    {
        QCOMPARE(jsonNestingDepth("{}", 10), 1);
        // (escaped literals: moc mis-reads raw strings inside macro arguments)
        QCOMPARE(jsonNestingDepth("{\"a\":[{\"b\":[]}]}", 10), 4);
        QCOMPARE(jsonNestingDepth("{\"a\":\"[[[[[[[\"}", 3), 1);          // brackets in strings do not count
        QCOMPARE(jsonNestingDepth("{\"a\":\"\\\"[[[[[\"}", 3), 1);     // nor after an escaped quote
        QCOMPARE(jsonNestingDepth(std::string(1000, '['), 5), 6); // stops past the limit
    }
};

QTEST_MAIN(TestServerRequest)
#include "tst_server_request.moc"
