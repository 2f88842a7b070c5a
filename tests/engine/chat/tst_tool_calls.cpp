// The tool-call parser (chat/tool_calls.h):
// - realTemplates: real chat templates (../shared/templates*) render a
//   conversation whose last assistant turn calls tools; the text after the
//   generation prompt is what the model would write. It goes through the
//   family's reasoning splitter and the parser whole, cut at every byte
//   boundary, and one byte at a time: the calls must be the ones rendered
//   (names, arguments as JSON values), the content the one rendered, and no
//   markup may reach the content.
// - formatFacts: replies written by hand from the formats' documented
//   markup (Qwen3.5 / Qwen3-Coder XML, Gemma 4, Mistral, DeepSeek V3.1,
//   Llama's <|python_tag|>), the same way.
// - syntaxFromTemplate: which syntax a template's text selects.
// - hostile: malformed calls and huge ones come back as content, bounded.
#include "chat/chat_template.h"
#include "chat/json_canon_stream.h"
#include "chat/jinja_template.h"
#include "chat/reasoning_split.h"
#include "chat/tool_calls.h"
#include "common/json.h"
#include "test_support.h"

#include <QFile>
#include <QTest>

#include <functional>
#include <string>
#include <vector>

using namespace burrow;
using namespace burrow::chat;

Q_DECLARE_METATYPE(burrow::ReasoningSyntax)
Q_DECLARE_METATYPE(burrow::chat::ToolCallSyntax)

namespace {

struct Parsed {
    std::string content;
    std::vector<ToolCall> calls;
    // Streamed: the items as a line each, adjacent content and adjacent
    // argument pieces merged ("S name", "A args", "E name args", "C text");
    // the most pieces one call came in; what broke the item contract.
    std::vector<std::string> events;
    size_t mostPieces = 0;
    size_t pieces = 0;   // of the call being streamed
    size_t asItStands = 0;   // calls ended as they stand
    std::string broken;
};

void addEvent(Parsed &out, char kind, const std::string &text)
{
    if ((kind == 'C' || kind == 'A') && !out.events.empty() && out.events.back()[0] == kind)
        out.events.back() += text;
    else
        out.events.push_back(std::string(1, kind) + " " + text);
}

void collect(std::vector<ToolCallItem> items, Parsed &out)
{
    for (ToolCallItem &i : items) {
        if (i.isCall != (i.kind == ToolCallItemKind::TOOL_CALL_ITEM_CALL))
            out.broken += "isCall and kind disagree; ";
        switch (i.kind) {
        case ToolCallItemKind::TOOL_CALL_ITEM_CONTENT:
            out.content += i.content;
            addEvent(out, 'C', i.content);
            break;
        case ToolCallItemKind::TOOL_CALL_ITEM_CALL_START:
            if (!out.events.empty() && (out.events.back()[0] == 'S' || out.events.back()[0] == 'A'))
                out.broken += "a call started inside another; ";
            addEvent(out, 'S', i.call.name);
            out.pieces = 0;
            break;
        case ToolCallItemKind::TOOL_CALL_ITEM_CALL_ARGUMENTS: {
            if (out.events.empty() || (out.events.back()[0] != 'S' && out.events.back()[0] != 'A'))
                out.broken += "a piece outside a call; ";
            if (i.content.empty())
                out.broken += "an empty piece; ";
            addEvent(out, 'A', i.content);
            out.mostPieces = std::max(out.mostPieces, ++out.pieces);
            break;
        }
        case ToolCallItemKind::TOOL_CALL_ITEM_CALL:
            out.calls.push_back(std::move(i.call));
            out.asItStands += i.asItStands ? 1 : 0;
            addEvent(out, 'E', out.calls.back().name + " " + out.calls.back().arguments);
            break;
        }
    }
}

// Streamed: every call came as S, A..., E with the pieces making its arguments.
void checkStreamedCalls(Parsed &p)
{
    for (size_t e = 0; e < p.events.size(); ++e) {
        const std::string &line = p.events[e];
        if (line[0] != 'E')
            continue;
        const ToolCall &call = p.calls[size_t(std::count_if(p.events.begin(), p.events.begin() + long(e),
                                                            [](const std::string &l) { return l[0] == 'E'; }))];
        size_t s = e;
        while (s > 0 && p.events[s - 1][0] == 'A')
            --s;
        std::string pieces = s < e ? p.events[s].substr(2) : std::string();
        if (s == 0 || p.events[s - 1] != "S " + call.name)
            p.broken += "call " + call.name + " without its start; ";
        else if (pieces != call.arguments)
            p.broken += "pieces '" + pieces + "' are not the arguments '" + call.arguments + "'; ";
    }
}

// The reply, cut at `cuts`, through the splitter and the parser as the
// server wires them: answer parts to pushAnswer, tool-call parts to pushToolText.
Parsed run(ReasoningSyntax reasoning, ToolCallSyntax syntax, const std::string &reply, const std::vector<size_t> &cuts,
           bool stream = false, const json::JsonValue *tools = nullptr, bool inReasoning = false)
{
    ReasoningOptions o;
    o.syntax = reasoning;
    o.startsInReasoning = inReasoning;
    ReasoningSplitter splitter(o);
    ToolCallParser::Options options;
    options.streamArguments = stream;
    ToolCallParser parser(syntax, tools, options);
    Parsed out;
    const auto route = [&](const std::vector<ReplyPart> &parts) {
        for (const ReplyPart &p : parts) {
            if (p.kind == ReplyPartKind::REPLY_PART_KIND_ANSWER)
                collect(parser.pushAnswer(p.text), out);
            else if (p.kind == ReplyPartKind::REPLY_PART_KIND_TOOL_CALL)
                collect(parser.pushToolText(p.text), out);
        }
    };
    size_t from = 0;
    for (size_t cut : cuts) {
        route(splitter.push(std::string_view(reply).substr(from, cut - from)));
        from = cut;
    }
    route(splitter.push(std::string_view(reply).substr(from)));
    route(splitter.finish());
    collect(parser.finish(), out);
    if (stream)
        checkStreamedCalls(out);
    return out;
}

std::string canonicalJson(const std::string &text)
{
    auto v = json::parseJson(text, "test");
    return v ? json::toJsonString(*v) : "<invalid: " + text + ">";
}

std::string trimmed(const std::string &s)
{
    const size_t a = s.find_first_not_of(" \n\r\t");
    if (a == std::string::npos)
        return {};
    return s.substr(a, s.find_last_not_of(" \n\r\t") - a + 1);
}

// Every cut of `reply` gives `expected` (calls: [{"name", "arguments"}]),
// streamed or not; streamed, the same items (pieces merged) whatever the
// cut, and byte by byte a call comes in more than one piece.
void checkEveryCut(ReasoningSyntax reasoning, ToolCallSyntax syntax, const std::string &reply,
                   const std::string &expectedContent, const json::JsonValue &expectedCalls, bool stream,
                   bool inReasoning)
{
    std::vector<std::vector<size_t>> cutsList;
    cutsList.push_back({});
    for (size_t c = 0; c <= reply.size(); ++c)
        cutsList.push_back({c});
    std::vector<size_t> bytes;
    for (size_t c = 1; c < reply.size(); ++c)
        bytes.push_back(c);
    cutsList.push_back(bytes);
    const Parsed whole = run(reasoning, syntax, reply, {}, stream, nullptr, inReasoning);
    for (const auto &cuts : cutsList) {
        const Parsed p = run(reasoning, syntax, reply, cuts, stream, nullptr, inReasoning);
        const QByteArray where = QByteArray(stream ? "streamed, cuts " : "cuts ") + QByteArray::number(qulonglong(cuts.size())) +
                                 (cuts.empty() ? QByteArray() : " first " + QByteArray::number(qulonglong(cuts[0])));
        QVERIFY2(p.broken.empty(), (where + ": " + QByteArray::fromStdString(p.broken)).constData());
        QCOMPARE(p.asItStands, size_t(0));
        QVERIFY2(p.events == whole.events, (where + ": the items depend on the cut").constData());
        // (A row named "...-whole" has a body the streamer sends whole.)
        if (stream && cuts.size() > 1 && !expectedCalls.array.empty() &&
            !QByteArray(QTest::currentDataTag()).endsWith("-whole"))
            QVERIFY2(p.mostPieces > 1, (where + ": no call came in pieces").constData());
        QVERIFY2(trimmed(p.content) == expectedContent,
                 (where + ": content '" + QByteArray::fromStdString(p.content) + "'").constData());
        for (const char *markup : {"<tool_call>", "</tool_call>", "<|", "|>", "[TOOL_CALLS]", "[ARGS]", "[CALL_ID]", "｜", "<function="})
            QVERIFY2(p.content.find(markup) == std::string::npos,
                     (where + ": markup in content '" + QByteArray::fromStdString(p.content) + "'").constData());
        QVERIFY2(p.calls.size() == expectedCalls.array.size(),
                 (where + ": " + QByteArray::number(qulonglong(p.calls.size())) + " calls").constData());
        for (size_t i = 0; i < p.calls.size(); ++i) {
            const json::JsonValue &e = expectedCalls.array[i];
            QCOMPARE(QByteArray::fromStdString(p.calls[i].name), QByteArray::fromStdString(e.find("name")->string));
            QCOMPARE(QByteArray::fromStdString(canonicalJson(p.calls[i].arguments)),
                     QByteArray::fromStdString(json::toJsonString(*e.find("arguments"))));
        }
    }
}

void checkEveryCut(ReasoningSyntax reasoning, ToolCallSyntax syntax, const std::string &reply,
                   const std::string &expectedContent, const json::JsonValue &expectedCalls,
                   bool inReasoning = false)
{
    for (const bool stream : {false, true}) {
        checkEveryCut(reasoning, syntax, reply, expectedContent, expectedCalls, stream, inReasoning);
        if (QTest::currentTestFailed())
            return;
    }
}

json::JsonValue parse(const QByteArray &text)
{
    auto v = json::parseJson(text.toStdString(), "test");
    if (!v)
        qFatal("test JSON: %s", v.message().c_str());
    return *v;
}

Result<std::string> renderTemplate(const std::string &source, const json::JsonValue &context)
{
    auto t = jinja::Template::parse(source);
    if (!t)
        return t.status();
    const jinja::Value v = jsonToValue(context);
    return t->render(v.asDict(), {});
}

const char *const kTools = R"([{"type": "function", "function": {"name": "get_weather", "description": "Weather now",
  "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
  "required": ["city"]}}}, {"type": "function", "function": {"name": "get_time", "description": "Time now",
  "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}}}}])";

} // namespace

class TestToolCalls : public QObject {
    Q_OBJECT

private slots:
    void realTemplates_data();
    void realTemplates();
    void formatFacts_data();
    void formatFacts();
    void syntaxFromTemplate_data();
    void syntaxFromTemplate();
    void malformedIsContent_data();
    void malformedIsContent();
    void hugeCallIsBounded();
    void xmlValuesFollowTheSchema();
    void canonicalAsItComes_data();
    void canonicalAsItComes();
    void streamsBeforeTheCallEnds();
    void streamedMatchesWhole_data();
    void streamedMatchesWhole();
};

void TestToolCalls::realTemplates_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<ReasoningSyntax>("reasoning");
    QTest::addColumn<ToolCallSyntax>("syntax");
    QTest::addColumn<QByteArray>("turnEnd");     // where the assistant turn ends in the rendering
    QTest::addColumn<QByteArray>("content");     // the assistant message's content (null: none)
    QTest::addColumn<QByteArray>("calls");       // [{"name", "arguments"}]

    const QByteArray one = R"([{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}])";
    const QByteArray two = R"([{"name": "get_weather", "arguments": {"city": "Zürich \"old town\""}},
                               {"name": "get_time", "arguments": {"zone": "Europe/Paris"}}])";
    using R = ReasoningSyntax;
    using S = ToolCallSyntax;
    QTest::newRow("qwen3/one") << "templates-2026/Qwen-Qwen3.jinja" << R::REASONING_SYNTAX_THINK_TAGS
                               << S::TOOL_CALL_SYNTAX_TAGGED << QByteArray("<|im_end|>") << QByteArray() << one;
    QTest::newRow("qwen3/content-and-two") << "templates-2026/Qwen-Qwen3.jinja" << R::REASONING_SYNTAX_THINK_TAGS
                                           << S::TOOL_CALL_SYNTAX_TAGGED << QByteArray("<|im_end|>")
                                           << QByteArray("Let me look both up.") << two;
    QTest::newRow("qwen2.5/two") << "templates/Qwen-Qwen2.5-7B-Instruct.jinja" << R::REASONING_SYNTAX_NONE
                                 << S::TOOL_CALL_SYNTAX_TAGGED << QByteArray("<|im_end|>") << QByteArray("Checking.")
                                 << two;
    QTest::newRow("hermes2pro/two") << "templates/NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja"
                                    << R::REASONING_SYNTAX_NONE << S::TOOL_CALL_SYNTAX_TAGGED
                                    << QByteArray("<|im_end|>") << QByteArray() << two;
    for (const char *llama : {"templates/meta-llama-Llama-3.1-8B-Instruct.jinja",
                              "templates/meta-llama-Llama-3.2-3B-Instruct.jinja",
                              "templates/meta-llama-Llama-3.3-70B-Instruct.jinja"})
        QTest::newRow(llama) << llama << R::REASONING_SYNTAX_NONE << S::TOOL_CALL_SYNTAX_JSON
                             << QByteArray("<|eot_id|>") << QByteArray() << one;
    QTest::newRow("gpt-oss/one") << "templates-2026/openai-gpt-oss.jinja" << R::REASONING_SYNTAX_HARMONY
                                 << S::TOOL_CALL_SYNTAX_HARMONY << QByteArray("<|call|>") << QByteArray() << one;
    QTest::newRow("deepseek-v3/two") << "templates-2026/deepseek-v3.jinja" << R::REASONING_SYNTAX_NONE
                                     << S::TOOL_CALL_SYNTAX_DEEPSEEK_V3 << QByteArray("<｜end▁of▁sentence｜>")
                                     << QByteArray() << two;
    // Families whose templates are not in ../shared: read from the file an
    // environment variable names (llama.cpp's models/templates/Qwen3.5-4B,
    // Qwen3-Coder, mistralai-Mistral-Nemo-Instruct-2407,
    // Mistral-Small-3.2-24B-Instruct-2506), skipped without it. (Gemma 4's
    // renders a history turn unlike its generation prompt: formatFacts.)
    QTest::newRow("qwen3.5/two") << "env:BURROW_QWEN35_TEMPLATE" << R::REASONING_SYNTAX_THINK_TAGS
                                 << S::TOOL_CALL_SYNTAX_TAGGED << QByteArray("<|im_end|>") << QByteArray("Checking.") << two;
    QTest::newRow("qwen3-coder/two") << "env:BURROW_QWEN3_CODER_TEMPLATE" << R::REASONING_SYNTAX_NONE
                                     << S::TOOL_CALL_SYNTAX_TAGGED << QByteArray("<|im_end|>") << QByteArray() << two;
    QTest::newRow("mistral-nemo/two") << "env:BURROW_MISTRAL_NEMO_TEMPLATE" << R::REASONING_SYNTAX_NONE
                                      << S::TOOL_CALL_SYNTAX_MISTRAL << QByteArray("</s>") << QByteArray() << two;
    QTest::newRow("mistral-small-3.2/two") << "env:BURROW_MISTRAL_TEMPLATE" << R::REASONING_SYNTAX_NONE
                                           << S::TOOL_CALL_SYNTAX_MISTRAL << QByteArray("</s>") << QByteArray() << two;
}

void TestToolCalls::realTemplates()
{
    QFETCH(QString, file);
    QFETCH(ReasoningSyntax, reasoning);
    QFETCH(ToolCallSyntax, syntax);
    QFETCH(QByteArray, turnEnd);
    QFETCH(QByteArray, content);
    QFETCH(QByteArray, calls);
    QString path;
    if (file.startsWith(QLatin1String("env:"))) {
        path = qEnvironmentVariable(file.mid(4).toUtf8().constData());
        if (path.isEmpty())
            QSKIP(qPrintable(file.mid(4) + QStringLiteral(" is not set (the path of the family's chat template)")));
    } else {
        BURROW_REQUIRE_SHARED(file);
        path = burrow::test::sharedPath(file);
    }
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const std::string source = f.readAll().toStdString();
    QCOMPARE(toolCallSyntaxForTemplate(source), syntax);

    const json::JsonValue expected = parse(calls);
    const bool asObject = toolCallArgumentsAsObject(syntax);
    // The assistant message as a client sends it back: OpenAI tool_calls
    // (arguments as objects where the family's templates read objects).
    std::string toolCalls = "[";
    for (size_t i = 0; i < expected.array.size(); ++i) {
        const json::JsonValue &c = expected.array[i];
        const std::string args = json::toJsonString(*c.find("arguments"));
        toolCalls += std::string(i ? "," : "") + R"({"id": "call0000)" + std::to_string(i) +
                     R"(", "type": "function", "function": {"name": )" + json::jsonString(c.find("name")->string) +
                     R"(, "arguments": )" + (asObject ? args : json::jsonString(args)) + "}}";
    }
    toolCalls += "]";
    const std::string user = R"({"role": "user", "content": "Weather and time in Paris?"})";
    // A turn without text: content none or "" as the family's templates want
    // it (what the server sends them).
    const std::string assistant = R"({"role": "assistant", "content": )" +
                                  (content.isNull() && toolCallContentIsNone(syntax)
                                       ? std::string("null")
                                       : json::jsonString(content.toStdString())) +
                                  R"(, "tool_calls": )" + toolCalls + "}";
    const auto context = [&](bool withReply) {
        return parse(QByteArray::fromStdString(R"({"messages": [)" + user + (withReply ? "," + assistant : "") +
                                               R"(], "tools": )" + kTools +
                                               R"(, "bos_token": "<s>", "eos_token": "</s>", "add_generation_prompt": )" +
                                               (withReply ? "false" : "true") + "}"));
    };
    auto prompt = renderTemplate(source, context(false));
    QVERIFY2(prompt, prompt.message().c_str());
    auto full = renderTemplate(source, context(true));
    QVERIFY2(full, full.message().c_str());
    QVERIFY2(full->compare(0, prompt->size(), *prompt) == 0, full->c_str());
    std::string reply = full->substr(prompt->size());
    const size_t end = reply.find(turnEnd.toStdString());
    if (end != std::string::npos)
        reply.resize(end);
    QVERIFY(!reply.empty());
    // A generation prompt that opens the reasoning (Qwen3.5's "<think>\n").
    const bool inReasoning = prompt->size() >= 8 && prompt->compare(prompt->size() - 8, 8, "<think>\n") == 0;
    checkEveryCut(reasoning, syntax, reply, content.toStdString(), expected, inReasoning);
}

void TestToolCalls::formatFacts_data()
{
    QTest::addColumn<ReasoningSyntax>("reasoning");
    QTest::addColumn<ToolCallSyntax>("syntax");
    QTest::addColumn<QByteArray>("reply");
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QByteArray>("calls");
    using R = ReasoningSyntax;
    using S = ToolCallSyntax;
    QTest::newRow("qwen3.5-xml") << R::REASONING_SYNTAX_THINK_TAGS << S::TOOL_CALL_SYNTAX_TAGGED
                                 << QByteArray("<think>\nWeather.\n</think>\n\nI will check.\n\n<tool_call>\n<function=get_weather>\n"
                                               "<parameter=city>\nNew York\n</parameter>\n<parameter=days>\n2\n</parameter>\n"
                                               "</function>\n</tool_call>\n<tool_call>\n<function=get_time>\n</function>\n</tool_call>")
                                 << QByteArray("I will check.")
                                 << QByteArray(R"([{"name": "get_weather", "arguments": {"city": "New York", "days": 2}},
                                                  {"name": "get_time", "arguments": {}}])");
    QTest::newRow("gemma4") << R::REASONING_SYNTAX_GEMMA4_CHANNEL << S::TOOL_CALL_SYNTAX_GEMMA4
                            << QByteArray("<|channel>thought\nNeed it.<channel|>On it.<|tool_call>call:get_weather{city:<|\"|>Paris, "
                                          "\"FR\"<|\"|>,days:3,opts:{metric:true,tags:[<|\"|>a<|\"|>,2]}}<tool_call|>"
                                          "<|tool_call>call:get_time{}<tool_call|>")
                            << QByteArray("On it.")
                            << QByteArray(R"([{"name": "get_weather", "arguments": {"city": "Paris, \"FR\"", "days": 3,
                                               "opts": {"metric": true, "tags": ["a", 2]}}},
                                              {"name": "get_time", "arguments": {}}])");
    QTest::newRow("mistral-array") << R::REASONING_SYNTAX_NONE << S::TOOL_CALL_SYNTAX_MISTRAL
                                   << QByteArray(R"([TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "abcdefghi"}])")
                                   << QByteArray() << QByteArray(R"([{"name": "get_weather", "arguments": {"city": "Paris"}}])");
    QTest::newRow("mistral-args") << R::REASONING_SYNTAX_NONE << S::TOOL_CALL_SYNTAX_MISTRAL
                                  << QByteArray(R"(Sure.[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_time[ARGS]{})")
                                  << QByteArray("Sure.")
                                  << QByteArray(R"([{"name": "get_weather", "arguments": {"city": "Paris"}},
                                                   {"name": "get_time", "arguments": {}}])");
    QTest::newRow("mistral-call-id") << R::REASONING_SYNTAX_NONE << S::TOOL_CALL_SYNTAX_MISTRAL
                                     << QByteArray("[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{\"city\": \"Paris\"}"
                                                   "[TOOL_CALLS]get_time[CALL_ID]f5g6h7i8j[ARGS]{}")
                                     << QByteArray() << QByteArray("[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}},"
                                                                   " {\"name\": \"get_time\", \"arguments\": {}}]");
    QTest::newRow("deepseek-v3.1") << R::REASONING_SYNTAX_NONE << S::TOOL_CALL_SYNTAX_DEEPSEEK_V3
                                   << QByteArray("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}"
                                                 "<｜tool▁call▁end｜><｜tool▁calls▁end｜>")
                                   << QByteArray() << QByteArray(R"([{"name": "get_weather", "arguments": {"city": "Paris"}}])");
    QTest::newRow("llama-python-tag") << R::REASONING_SYNTAX_NONE << S::TOOL_CALL_SYNTAX_JSON
                                      << QByteArray(R"(<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}})")
                                      << QByteArray() << QByteArray(R"([{"name": "get_weather", "arguments": {"city": "Paris"}}])");
    QTest::newRow("json-plain-answer") << R::REASONING_SYNTAX_NONE << S::TOOL_CALL_SYNTAX_JSON
                                       << QByteArray("It is sunny {really}.") << QByteArray("It is sunny {really}.")
                                       << QByteArray("[]");
    QTest::newRow("harmony-analysis-then-call")
        << R::REASONING_SYNTAX_HARMONY << S::TOOL_CALL_SYNTAX_HARMONY
        << QByteArray("<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant<|channel|>commentary "
                      "to=functions.get_weather <|constrain|>json<|message|>{\"city\":\"Paris\"}")
        << QByteArray() << QByteArray(R"([{"name": "get_weather", "arguments": {"city": "Paris"}}])");
    // Streamed, these are canonicalized as they come (numbers and escapes
    // as json.cpp writes them, white space dropped).
    QTest::newRow("tagged-canonical-forms")
        << R::REASONING_SYNTAX_NONE << S::TOOL_CALL_SYNTAX_TAGGED
        << QByteArray("<tool_call>\n{ \"name\" : \"f\\u0031\" ,\n \"arguments\" : { \"n\" : 1.50 , \"e\": -2E2, \"z\": -0,"
                      " \"s\": \"a\\/b\\u00e9\\ud83d\\ude00\\n\\u0001\", \"t\" : true, \"u\":null,"
                      " \"arr\" : [ 1 , [ ] , { \"x\" : { } } ] } , \"id\": 7 }\n</tool_call>")
        << QByteArray() << QByteArray("[{\"name\": \"f1\", \"arguments\": {\"n\": 1.5, \"e\": -200, \"z\": 0, "
                                      "\"s\": \"a/b\\u00e9\\ud83d\\ude00\\n\\u0001\", \"t\": true, \"u\": null, "
                                      "\"arr\": [1, [], {\"x\": {}}]}}]");
    QTest::newRow("json-array-two") << R::REASONING_SYNTAX_NONE << S::TOOL_CALL_SYNTAX_JSON
                                    << QByteArray("<|python_tag|>[{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}, \"x\": [1]},"
                                                  " {\"name\": \"get_time\", \"arguments\": {}}]")
                                    << QByteArray() << QByteArray("[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}},"
                                                                  " {\"name\": \"get_time\", \"arguments\": {}}]");
    QTest::newRow("tagged-arguments-as-string-whole") << R::REASONING_SYNTAX_NONE << S::TOOL_CALL_SYNTAX_TAGGED
                                                << QByteArray("<tool_call>{\"name\": \"f\", \"arguments\": \"{\\\"a\\\": 1}\"}</tool_call>")
                                                << QByteArray() << QByteArray("[{\"name\": \"f\", \"arguments\": {\"a\": 1}}]");
    QTest::newRow("deepseek-v3-fenced") << R::REASONING_SYNTAX_NONE << S::TOOL_CALL_SYNTAX_DEEPSEEK_V3
                                        << QByteArray("Sure.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
                                                      "{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>"
                                                      "get_time\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>")
                                        << QByteArray("Sure.") << QByteArray("[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}},"
                                                                             " {\"name\": \"get_time\", \"arguments\": {}}]");
    QTest::newRow("tagged-lookalikes") << R::REASONING_SYNTAX_NONE << S::TOOL_CALL_SYNTAX_TAGGED
                                       << QByteArray("a <tool_cal b <tool_call") << QByteArray("a <tool_cal b <tool_call")
                                       << QByteArray("[]");
}

void TestToolCalls::formatFacts()
{
    QFETCH(ReasoningSyntax, reasoning);
    QFETCH(ToolCallSyntax, syntax);
    QFETCH(QByteArray, reply);
    QFETCH(QByteArray, content);
    QFETCH(QByteArray, calls);
    checkEveryCut(reasoning, syntax, reply.toStdString(), content.toStdString(), parse(calls));
}

void TestToolCalls::syntaxFromTemplate_data()
{
    QTest::addColumn<QByteArray>("source");
    QTest::addColumn<ToolCallSyntax>("syntax");
    using S = ToolCallSyntax;
    QTest::newRow("harmony") << QByteArray("{{'<|start|>assistant<|channel|>final'}}") << S::TOOL_CALL_SYNTAX_HARMONY;
    QTest::newRow("gemma4") << QByteArray("{{- '<|tool_call>call:' + name }}") << S::TOOL_CALL_SYNTAX_GEMMA4;
    QTest::newRow("qwen") << QByteArray("<tool_call>\\n{\"name\"") << S::TOOL_CALL_SYNTAX_TAGGED;
    QTest::newRow("qwen-coder") << QByteArray("<tool_call>\\n<function=") << S::TOOL_CALL_SYNTAX_TAGGED;
    QTest::newRow("mistral") << QByteArray("[TOOL_CALLS]") << S::TOOL_CALL_SYNTAX_MISTRAL;
    QTest::newRow("deepseek") << QByteArray("<｜tool▁calls▁begin｜>") << S::TOOL_CALL_SYNTAX_DEEPSEEK_V3;
    QTest::newRow("plain") << QByteArray("{{ messages }}") << S::TOOL_CALL_SYNTAX_JSON;
}

void TestToolCalls::syntaxFromTemplate()
{
    QFETCH(QByteArray, source);
    QFETCH(ToolCallSyntax, syntax);
    QCOMPARE(toolCallSyntaxForTemplate(source.toStdString()), syntax);
}

void TestToolCalls::malformedIsContent_data()
{
    QTest::addColumn<ToolCallSyntax>("syntax");
    QTest::addColumn<QByteArray>("reply");
    QTest::addColumn<QByteArray>("streamed");   // streamed: the call ended as it stands ("NAME ARGS"; empty: none)
    using S = ToolCallSyntax;
    QTest::newRow("tagged-bad-json") << S::TOOL_CALL_SYNTAX_TAGGED << QByteArray("x <tool_call>{\"name\": oops}</tool_call> y")
                                     << QByteArray();
    QTest::newRow("tagged-no-name") << S::TOOL_CALL_SYNTAX_TAGGED << QByteArray("<tool_call>{\"arguments\": {}}</tool_call>")
                                    << QByteArray();
    QTest::newRow("tagged-args-not-object") << S::TOOL_CALL_SYNTAX_TAGGED
                                            << QByteArray("<tool_call>{\"name\": \"f\", \"arguments\": [1]}</tool_call>")
                                            << QByteArray();
    QTest::newRow("tagged-unterminated") << S::TOOL_CALL_SYNTAX_TAGGED << QByteArray("<tool_call>{\"name\": \"f\", \"argu")
                                         << QByteArray();
    QTest::newRow("tagged-bad-args") << S::TOOL_CALL_SYNTAX_TAGGED
                                     << QByteArray("a <tool_call>{\"name\": \"f\", \"arguments\": {\"n\": 12, \"s\": \"x\", oops}}</tool_call> b")
                                     << QByteArray("f {\"n\":12,\"s\":\"x\",");
    QTest::newRow("tagged-cut-off") << S::TOOL_CALL_SYNTAX_TAGGED
                                    << QByteArray("<tool_call>{\"name\": \"f\", \"arguments\": {\"s\": \"abc")
                                    << QByteArray("f {\"s\":\"abc");
    QTest::newRow("xml-cut-off") << S::TOOL_CALL_SYNTAX_TAGGED
                                 << QByteArray("<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n<parameter=b>\nx")
                                 << QByteArray("f {\"a\":1");
    QTest::newRow("json-broken") << S::TOOL_CALL_SYNTAX_JSON << QByteArray("{\"name\": \"f\", \"parameters\": {")
                                 << QByteArray("f {");
    QTest::newRow("json-then-text") << S::TOOL_CALL_SYNTAX_JSON
                                    << QByteArray("{\"name\": \"f\", \"parameters\": {\"a\": true}} and more")
                                    << QByteArray("f {\"a\":true}");
    QTest::newRow("mistral-broken") << S::TOOL_CALL_SYNTAX_MISTRAL << QByteArray("[TOOL_CALLS][{\"name\": 1}]")
                                    << QByteArray();
    QTest::newRow("deepseek-broken") << S::TOOL_CALL_SYNTAX_DEEPSEEK_V3 << QByteArray("<｜tool▁calls▁begin｜>junk")
                                     << QByteArray();
    // Valid JSON, but the pieces sent are not the parse's arguments (a
    // repeated key keeps its last value there).
    QTest::newRow("tagged-repeated-key") << S::TOOL_CALL_SYNTAX_TAGGED
                                         << QByteArray("<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1, \"a\": 2}}</tool_call>")
                                         << QByteArray("f {\"a\":1,\"a\":2}");
}

// A call that does not parse is given back as written: nothing lost, no
// call. Streamed, a call already started ends as it stands (the pieces sent)
// and the content is the same.
void TestToolCalls::malformedIsContent()
{
    QFETCH(ToolCallSyntax, syntax);
    QFETCH(QByteArray, reply);
    QFETCH(QByteArray, streamed);
    std::vector<size_t> bytes;
    for (size_t c = 1; c < size_t(reply.size()); ++c)
        bytes.push_back(c);
    for (size_t cut = 0; cut <= size_t(reply.size()) + 1; ++cut) {
        const std::vector<size_t> cuts = cut > size_t(reply.size()) ? bytes : std::vector<size_t>{cut};
        if (!QByteArray(QTest::currentDataTag()).endsWith("repeated-key")) {
            const Parsed p = run(ReasoningSyntax::REASONING_SYNTAX_NONE, syntax, reply.toStdString(), cuts);
            QCOMPARE(QByteArray::fromStdString(p.content), reply);
            QCOMPARE(p.calls.size(), size_t(0));
        }
        const Parsed s = run(ReasoningSyntax::REASONING_SYNTAX_NONE, syntax, reply.toStdString(), cuts, true);
        QCOMPARE(QByteArray::fromStdString(s.content), reply);
        QVERIFY2(s.broken.empty(), s.broken.c_str());
        QCOMPARE(s.calls.size(), size_t(streamed.isEmpty() ? 0 : 1));
        QCOMPARE(s.asItStands, s.calls.size());
        if (!streamed.isEmpty())
            QCOMPARE(QByteArray::fromStdString(s.calls[0].name + " " + s.calls[0].arguments), streamed);
    }
}

void TestToolCalls::hugeCallIsBounded()
{
    for (const bool stream : {false, true}) {
        ToolCallParser::Options options;
        options.maxCallBytes = 64 * 1024;
        options.streamArguments = stream;
        ToolCallParser parser(ToolCallSyntax::TOOL_CALL_SYNTAX_TAGGED, nullptr, options);
        Parsed out;
        const std::string head = "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"", tail = "\"}}</tool_call>";
        collect(parser.pushAnswer(head), out);
        const std::string chunk(4096, 'x');
        for (int i = 0; i < 512; ++i)   // 2 MiB
            collect(parser.pushAnswer(chunk), out);
        // Past the bound, the held call came back as content and the rest flows.
        QVERIFY(out.content.size() > 2000000);
        collect(parser.pushAnswer(tail), out);
        collect(parser.finish(), out);
        QCOMPARE(out.content.size(), head.size() + 512 * chunk.size() + tail.size());
        QVERIFY(out.broken.empty());
        if (!stream) {
            QCOMPARE(out.calls.size(), size_t(0));
            continue;
        }
        // Streamed: the call ended as it stands, its pieces the bound's worth.
        QCOMPARE(out.calls.size(), size_t(1));
        QCOMPARE(out.asItStands, size_t(1));
        const std::string &args = out.calls[0].arguments;
        QVERIFY(args.size() > 60 * 1024 && args.size() < 80 * 1024);
        QCOMPARE(QByteArray::fromStdString(args.substr(0, 7)), QByteArray("{\"a\":\"x"));
        QVERIFY(args.find_first_not_of('x', 6) == std::string::npos);
    }
}

// XML parameter values: a string parameter stays a string even when it
// reads as a number; others are JSON when they parse.
void TestToolCalls::xmlValuesFollowTheSchema()
{
    const json::JsonValue tools = parse(R"([{"type": "function", "function": {"name": "f", "parameters": {"type": "object",
        "properties": {"code": {"type": "string"}, "n": {"type": "integer"}, "free": {}}}}}])");
    ToolCallParser parser(ToolCallSyntax::TOOL_CALL_SYNTAX_TAGGED, &tools);
    Parsed out;
    collect(parser.pushAnswer("<tool_call>\n<function=f>\n<parameter=code>\n007\n</parameter>\n<parameter=n>\n7\n"
                              "</parameter>\n<parameter=free>\nnot json\n</parameter>\n</function>\n</tool_call>"),
            out);
    collect(parser.finish(), out);
    QCOMPARE(out.calls.size(), size_t(1));
    QCOMPARE(QByteArray::fromStdString(out.calls[0].arguments), QByteArray(R"({"code":"007","n":7,"free":"not json"})"));
}

// JsonCanonStream at every cut writes what parse-then-write writes.
void TestToolCalls::canonicalAsItComes_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::newRow("object") << QByteArray("{ \"a\" : [ 1 , 2.50 , -0.0e0 , 1E+2 , true , false , null ] , \"b\" : { } }");
    QTest::newRow("escapes") << QByteArray("{\"k\\\"\": \"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0000\\u001f\\u0041\\uD83D\\uDE00 é\"}");
    QTest::newRow("big-numbers") << QByteArray("{\"i\": 9223372036854775807, \"j\": 9223372036854775808, \"d\": 0.1}");
    QTest::newRow("deep") << QByteArray("{\"a\": [[[[{\"b\": [[]]}]]]]}");
}

void TestToolCalls::canonicalAsItComes()
{
    QFETCH(QByteArray, text);
    const std::string t = text.toStdString() + " tail";
    auto parsed = json::parseJson(text.toStdString(), "test");
    QVERIFY(parsed);
    const std::string expected = json::toJsonString(*parsed);
    for (size_t cut = 0; cut <= t.size(); ++cut) {
        JsonCanonStream canon;
        std::string out;
        size_t read = canon.feed(std::string_view(t).substr(0, cut), out);
        if (!canon.done())
            read += canon.feed(std::string_view(t).substr(cut), out);
        QVERIFY(canon.done() && !canon.failed());
        QCOMPARE(read, size_t(text.size()));
        QCOMPARE(QByteArray::fromStdString(out), QByteArray::fromStdString(expected));
    }
    // One byte at a time, each piece is a prefix of the end.
    JsonCanonStream canon;
    std::string out;
    for (const char c : t) {
        canon.feed(std::string_view(&c, 1), out);
        QVERIFY(expected.compare(0, out.size(), out) == 0);
    }
    QCOMPARE(QByteArray::fromStdString(out), QByteArray::fromStdString(expected));
    // Broken JSON stops the stream, nothing written past the break.
    for (const char *bad : {"{\"a\": tru}", "{\"a\" 1}", "{\"a\": \"\\x\"}", "{\"a\": \"\\ud800x\"}", "[1,]", "{\"a\":01}"}) {
        JsonCanonStream b;
        std::string written;
        b.feed(bad, written);
        QVERIFY2(b.failed(), bad);
    }
}

// The start and the first pieces come before the call is complete: the
// point of streaming (what a client sees while the model writes).
void TestToolCalls::streamsBeforeTheCallEnds()
{
    ToolCallParser::Options options;
    options.streamArguments = true;
    ToolCallParser parser(ToolCallSyntax::TOOL_CALL_SYNTAX_TAGGED, nullptr, options);
    Parsed out;
    collect(parser.pushAnswer("Hi <tool_call>\n{\"name\": \"get_weather\", \"arg"), out);
    QCOMPARE(out.events, (std::vector<std::string>{"C Hi"}));
    collect(parser.pushAnswer("uments\": {\"city\": \"Par"), out);
    QCOMPARE(out.events, (std::vector<std::string>{"C Hi", "S get_weather", "A {\"city\":\"Par"}));
    collect(parser.pushAnswer("is\", \"days\": 12"), out);
    QCOMPARE(out.events.back(), std::string("A {\"city\":\"Paris\",\"days\":"));   // 12 may go on: 123
    collect(parser.pushAnswer("}}\n</tool_call>"), out);
    QCOMPARE(out.events.back(), std::string("E get_weather {\"city\":\"Paris\",\"days\":12}"));
    collect(parser.finish(), out);
    checkStreamedCalls(out);
    QVERIFY2(out.broken.empty(), out.broken.c_str());
    QCOMPARE(out.calls.size(), size_t(1));

    // XML: a parameter at a time.
    ToolCallParser xml(ToolCallSyntax::TOOL_CALL_SYNTAX_TAGGED, nullptr, options);
    Parsed x;
    collect(xml.pushAnswer("<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n<parameter=b>\nlong te"), x);
    QCOMPARE(x.events, (std::vector<std::string>{"S f", "A {\"a\":1"}));
    collect(xml.pushAnswer("xt\n</parameter>\n</function>\n</tool_call>"), x);
    collect(xml.finish(), x);
    QCOMPARE(x.events, (std::vector<std::string>{"S f", "A {\"a\":1,\"b\":\"long text\"}", "E f {\"a\":1,\"b\":\"long text\"}"}));
}

// Replies made of a family's calls around random arguments (JSON with
// random spacing, escapes, numbers, nesting), some mutated (cut short, a
// junk fragment put in), from a fixed-seed generator so a failure repeats:
// streamed at random cuts, the items do not depend on the cut, every call's
// pieces make its arguments, and when no call ended as it stands the calls
// and content are the unstreamed parse's.
void TestToolCalls::streamedMatchesWhole_data()
{
    QTest::addColumn<ToolCallSyntax>("syntax");
    QTest::addColumn<ReasoningSyntax>("reasoning");
    QTest::addColumn<QStringList>("shapes");   // a call, @A@ its arguments
    using S = ToolCallSyntax;
    const ReasoningSyntax none = ReasoningSyntax::REASONING_SYNTAX_NONE;
    QTest::newRow("tagged") << S::TOOL_CALL_SYNTAX_TAGGED << none
                            << QStringList{"<tool_call>\n{\"name\": \"f\", \"arguments\": @A@}\n</tool_call>",
                                           "<tool_call>{\"name\":\"g\",\"parameters\":@A@, \"id\": [1]}</tool_call>\n",
                                           "<tool_call>\n<function=h>\n<parameter=a>\n@A@\n</parameter>\n</function>\n</tool_call>"};
    QTest::newRow("json") << S::TOOL_CALL_SYNTAX_JSON << none
                          << QStringList{"{\"name\": \"f\", \"parameters\": @A@}",
                                         "<|python_tag|>[{\"name\": \"f\", \"arguments\": @A@}, {\"name\": \"g\", \"arguments\": @A@}]"};
    QTest::newRow("mistral") << S::TOOL_CALL_SYNTAX_MISTRAL << none
                             << QStringList{"[TOOL_CALLS]f[ARGS]@A@", "[TOOL_CALLS]f[CALL_ID]abcdefghi[ARGS]@A@[TOOL_CALLS]g[ARGS]@A@",
                                            "[TOOL_CALLS][{\"name\": \"f\", \"arguments\": @A@, \"id\": \"x\"}, {\"name\": \"g\", \"arguments\": @A@}]"};
    QTest::newRow("deepseek") << S::TOOL_CALL_SYNTAX_DEEPSEEK_V3 << none
                              << QStringList{"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n@A@\n```"
                                             "<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>g<｜tool▁sep｜>@A@<｜tool▁call▁end｜><｜tool▁calls▁end｜>"};
    QTest::newRow("harmony") << S::TOOL_CALL_SYNTAX_HARMONY << ReasoningSyntax::REASONING_SYNTAX_HARMONY
                             << QStringList{"<|channel|>analysis<|message|>Hm.<|end|><|start|>assistant<|channel|>commentary "
                                            "to=functions.f <|constrain|>json<|message|>@A@",
                                            "<|channel|>commentary to=functions.g<|message|>@A@"};
    // (Gemma 4: the arguments in its own syntax, strings and keys between
    // <|"|>, no spaces.)
    QTest::newRow("gemma4") << S::TOOL_CALL_SYNTAX_GEMMA4 << ReasoningSyntax::REASONING_SYNTAX_GEMMA4_CHANNEL
                            << QStringList{"<|tool_call>call:f@A@<tool_call|>", "On it.<|tool_call>call:f@A@<tool_call|><|tool_call>call:g@A@<tool_call|>"};
}

void TestToolCalls::streamedMatchesWhole()
{
    QFETCH(ToolCallSyntax, syntax);
    QFETCH(ReasoningSyntax, reasoning);
    QFETCH(QStringList, shapes);
    uint32_t state = 12345;
    const auto next = [&state](uint32_t n) {
        state = state * 1664525u + 1013904223u;
        return (state >> 8) % n;
    };
    const bool gemma = syntax == ToolCallSyntax::TOOL_CALL_SYNTAX_GEMMA4;
    const std::vector<std::string> blanks = gemma ? std::vector<std::string>{""}
                                                  : std::vector<std::string>{"", "", " ", "\n", " \t"};
    std::vector<std::string> scalars{"12", "-0.50", "1E3", "true", "null", "false", "\"a b\"", "0", "-7", "\"é\""};
    if (!gemma)
        scalars.insert(scalars.end(), {"\"x\\\"y\"", "\"\\u00e9\\ud83d\\ude00\\/\""});
    const std::vector<std::string> junk{"}", "{", "\"", ",", "junk", "\\", "</tool_call>", "[ARGS]", "<｜tool▁call▁end｜>", ":"};
    std::function<std::string(int)> value = [&](int depth) -> std::string {
        const uint32_t kind = depth >= 2 ? 0 : next(4);
        const std::string b = blanks[next(uint32_t(blanks.size()))];
        if (kind == 0 || kind == 1)
            return b + scalars[next(uint32_t(scalars.size()))] + b;
        std::string out = kind == 2 ? "[" : "{";
        const uint32_t n = next(4);
        for (uint32_t i = 0; i < n; ++i)
            out += (i ? "," : "") + b + (kind == 3 ? "\"k" + std::to_string(i) + "\"" + b + ":" : std::string()) + value(depth + 1);
        return out + b + (kind == 2 ? "]" : "}");
    };
    int streamedCalls = 0, cutShort = 0;
    for (int round = 0; round < 300; ++round) {
        // (A JSON-syntax call is the whole reply: no text before it.)
        std::string reply = next(3) == 0 && syntax == ToolCallSyntax::TOOL_CALL_SYNTAX_TAGGED ? "Sure. " : "";
        std::string shape = shapes[int(next(uint32_t(shapes.size())))].toStdString();
        for (size_t at = shape.find("@A@"); at != std::string::npos; at = shape.find("@A@", at)) {
            std::string args = "{";
            const uint32_t n = next(4);
            for (uint32_t i = 0; i < n; ++i)
                args += (i ? "," : "") + blanks[next(uint32_t(blanks.size()))] + "\"p" + std::to_string(i) + (gemma ? "\":" : "\": ") + value(0);
            args += "}";
            for (size_t q = gemma ? args.find('"') : std::string::npos; q != std::string::npos; q = args.find('"', q + 5))
                args.replace(q, 1, "<|\"|>");
            shape.replace(at, 3, args);
            at += args.size();
        }
        reply += shape;
        bool mutated = true;
        if (next(4) == 0)
            reply.resize(next(uint32_t(reply.size())));   // cut short
        else if (next(4) == 0)
            reply.insert(next(uint32_t(reply.size())), junk[next(uint32_t(junk.size()))]);
        else
            mutated = false;
        std::vector<size_t> cuts;
        for (size_t c = 1; c < reply.size(); ++c)
            if (next(3) == 0)
                cuts.push_back(c);
        const Parsed plain = run(reasoning, syntax, reply, {});
        const Parsed whole = run(reasoning, syntax, reply, {}, true);
        const Parsed cut = run(reasoning, syntax, reply, cuts, true);
        const QByteArray where = "reply '" + QByteArray::fromStdString(reply) + "'";
        QVERIFY2(cut.broken.empty() && whole.broken.empty(), (where + ": " + QByteArray::fromStdString(cut.broken)).constData());
        QVERIFY2(cut.events == whole.events, (where + ": the items depend on the cut").constData());
        // Well-formed calls (no key twice here) always stream to the end.
        QVERIFY2(mutated || (cut.asItStands == 0 && !cut.calls.empty()), where.constData());
        streamedCalls += cut.mostPieces > 1 && cut.asItStands == 0 ? 1 : 0;
        cutShort += cut.asItStands > 0 ? 1 : 0;
        if (cut.asItStands > 0)
            continue;
        QVERIFY2(cut.content == plain.content, where.constData());
        QVERIFY2(cut.calls.size() == plain.calls.size(), where.constData());
        for (size_t i = 0; i < cut.calls.size(); ++i) {
            QCOMPARE(cut.calls[i].name, plain.calls[i].name);
            QCOMPARE(cut.calls[i].arguments, plain.calls[i].arguments);
        }
    }
    // The replies make calls that stream, and calls that end as they stand.
    qInfo("%d replies with a call streamed in pieces, %d with a call ended as it stands", streamedCalls, cutShort);
    QVERIFY(streamedCalls >= 50);
    QVERIFY(cutShort >= 10);
}

QTEST_MAIN(TestToolCalls)
#include "tst_tool_calls.moc"
