// The Qwen3.5 chat template (the one Qwen3.5 / 3.6 GGUF files carry):
// - constructs: each Jinja construct that template is built from, in a case
//   of its own (macro results piped through filters, content-kind tests,
//   key tests on content parts, the backwards scan for the last user query,
//   `not(...)`, the <think> split chain, a conditional expression whose
//   branches are filter chains, a loop variable rebound in the body,
//   loop.previtem / nextitem at the edges, `is false` against 0, ...);
// - ownTemplate: a template of ours written with the same constructs and
//   the same rules (earlier reasoning dropped before the last user query and
//   kept after it, tool calls as <function=...><parameter=...>, tool
//   responses folded into one user turn, the generation prompt opening
//   <think> or an empty block when enable_thinking is false), rendered for
//   the conversations a chat app and the server send;
// - formatFacts / api: what the format tells the engine (think tags, reads
//   enable_thinking, stop strings, a prompt that leaves the reply inside
//   <think>), also through renderChat / buildChatPrompt on a model that
//   carries our template;
// - realTemplate: the real template, read from the file BURROW_QWEN35_TEMPLATE
//   names (skipped without it), for the same conversations.
// Every expected string is worked out by hand from the template text (and was
// checked once against Jinja2 3.1 with Hugging Face's settings and against the
// reference engine's own renderer, llama.cpp of August 2026).
#include "burrow/engine.h"
#include "chat/chat_format.h"
#include "chat/chat_template.h"
#include "chat/jinja_template.h"
#include "chat/reasoning_split.h"
#include "common/json.h"
#include "gguf/gguf_writer.h"
#include "tiny_model.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <optional>

using namespace burrow;
using namespace burrow::chat;

namespace {

std::string toStd(const QString &s)
{
    return s.toStdString();
}

Result<std::string> renderSource(const QString &source, const QString &contextJson)
{
    auto t = jinja::Template::parse(toStd(source));
    if (!t)
        return t.status();
    jinja::Dict context;
    if (!contextJson.isEmpty()) {
        auto parsed = json::parseJson(toStd(contextJson), "context");
        if (!parsed)
            return parsed.status();
        const jinja::Value v = jsonToValue(*parsed);
        if (v.isDict())
            context = v.asDict();
    }
    return t->render(context, {});
}

// Our Qwen3.5-style template: the real one's structure and rules, shorter
// texts (no vision ids, a one-line tools header). A value marked |safe is
// written by a tag of its own, as the real template does: in Jinja2 a safe
// string escapes the plain strings added to it with `+` (Burrow and the
// reference engine do not; docs/chat-templates.md).
const char *const kOwnTemplate = R"J({%- macro text(content, is_system=false) %}
    {%- if content is string %}
        {{- content }}
    {%- elif content is iterable and content is not mapping %}
        {%- for item in content %}
            {%- if 'image' in item or item.type == 'image' %}
                {%- if is_system %}
                    {{- raise_exception('No images in a system message.') }}
                {%- endif %}
                {{- '<img>' }}
            {%- elif 'text' in item %}
                {{- item.text }}
            {%- endif %}
        {%- endfor %}
    {%- elif content is none or content is undefined %}
        {{- '' }}
    {%- else %}
        {{- raise_exception('Unexpected content type.') }}
    {%- endif %}
{%- endmacro %}
{%- if tools and tools is iterable and tools is not mapping %}
    {{- '<|im_start|>system\n<tools>' }}
    {%- for tool in tools %}
        {{- '\n' + tool | tojson }}
    {%- endfor %}
    {{- '\n</tools>' }}
    {%- if messages[0].role == 'system' %}
        {%- set content = text(messages[0].content, true)|trim %}
        {%- if content %}
            {{- '\n\n' + content }}
        {%- endif %}
    {%- endif %}
    {{- '<|im_end|>\n' }}
{%- elif messages[0].role == 'system' %}
    {{- '<|im_start|>system\n' + text(messages[0].content, true)|trim + '<|im_end|>\n' }}
{%- endif %}
{%- set ns = namespace(scanning=true, last_query=messages|length - 1) %}
{%- for message in messages[::-1] %}
    {%- set index = (messages|length - 1) - loop.index0 %}
    {%- if ns.scanning and message.role == 'user' %}
        {%- set content = text(message.content)|trim %}
        {%- if not(content.startswith('<tool_response>') and content.endswith('</tool_response>')) %}
            {%- set ns.scanning = false %}
            {%- set ns.last_query = index %}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if ns.scanning %}
    {{- raise_exception('No user query found in messages.') }}
{%- endif %}
{%- for message in messages %}
    {%- set content = text(message.content)|trim %}
    {%- if message.role == 'user' %}
        {{- '<|im_start|>user\n' + content + '<|im_end|>\n' }}
    {%- elif message.role == 'assistant' %}
        {%- set reasoning = '' %}
        {%- if message.reasoning_content is string %}
            {%- set reasoning = message.reasoning_content %}
        {%- elif '</think>' in content %}
            {%- set reasoning = content.split('</think>')[0].rstrip('\n').split('<think>')[-1].lstrip('\n') %}
            {%- set content = content.split('</think>')[-1].lstrip('\n') %}
        {%- endif %}
        {%- if loop.index0 > ns.last_query %}
            {{- '<|im_start|>assistant\n<think>\n' + reasoning|trim + '\n</think>\n\n' + content }}
        {%- else %}
            {{- '<|im_start|>assistant\n' + content }}
        {%- endif %}
        {%- for call in message.tool_calls if message.tool_calls is not mapping %}
            {%- if call.function is defined %}
                {%- set call = call.function %}
            {%- endif %}
            {{- ('\n\n' if loop.first and content|trim else '\n' if not loop.first else '') + '<tool_call>\n<function=' + call.name + '>\n' }}
            {%- for name, value in call.arguments|items %}
                {{- '<parameter=' + name + '>\n' }}
                {%- set value = value | tojson | safe if value is mapping or (value is sequence and value is not string) else value | string %}
                {{- value }}
                {{- '\n</parameter>\n' }}
            {%- endfor %}
            {{- '</function>\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == 'tool' %}
        {%- if loop.previtem and loop.previtem.role != 'tool' %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\n<tool_response>\n' + content + '\n</tool_response>' }}
        {%- if loop.last or loop.nextitem.role != 'tool' %}
            {{- '<|im_end|>\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
    {{- '<think>\n\n</think>\n\n' if enable_thinking is defined and enable_thinking is false else '<think>\n' }}
{%- endif %}
)J";

// One conversation: messages as a JSON list (every field but role, content
// and reasoning_content goes to ChatMessage::extraJson, as the server
// passes them), the kwargs, and the generation prompt switch.
struct Conversation {
    const char *name;
    const char *messages;
    const char *kwargs;
    bool generationPrompt;
};

const Conversation kConversations[] = {
    {"plain", R"([{"role": "user", "content": "Hello!"}])", "", true},
    {"system, thinking off",
     R"([{"role": "system", "content": " Be brief.\n"}, {"role": "user", "content": "Hi"}])",
     R"({"enable_thinking": false})", true},
    {"thinking on", R"([{"role": "user", "content": "Hi"}])", R"({"enable_thinking": true})", true},
    {"earlier reasoning dropped",
     R"([{"role": "user", "content": "2+2?"},
         {"role": "assistant", "content": "<think>\nAdd.\n</think>\n\n4"},
         {"role": "user", "content": "Times 3?"},
         {"role": "assistant", "content": "12", "reasoning_content": "4*3"},
         {"role": "user", "content": "Thanks"}])",
     "", true},
    {"last reasoning kept",
     R"([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "<think>\nGreet.\n</think>\n\nHello!"}])", "",
     false},
    {"tool response is no query",
     R"([{"role": "user", "content": "Q"}, {"role": "assistant", "content": "<think>a</think>b"},
         {"role": "user", "content": "<tool_response>\nr\n</tool_response>"}])",
     "", true},
    {"tool calls",
     R"([{"role": "system", "content": "S"}, {"role": "user", "content": "Weather?"},
         {"role": "assistant", "content": "<think>\nNeed data.\n</think>\n\nChecking.",
          "tool_calls": [{"type": "function", "function": {"name": "get_weather",
                          "arguments": {"city": "Paris", "days": 2, "units": ["C"]}}}]},
         {"role": "tool", "content": "21"}, {"role": "tool", "content": "sunny"}])",
     R"({"tools": [{"name": "get_weather"}]})", true},
    {"two calls, empty content",
     R"([{"role": "user", "content": "Two cities"},
         {"role": "assistant", "content": "", "reasoning_content": "Both.",
          "tool_calls": [{"function": {"name": "w", "arguments": {"city": "A"}}}, {"name": "w", "arguments": {"city": "B"}}]},
         {"role": "tool", "content": "1"}, {"role": "tool", "content": "2"}])",
     "", true},
    {"content parts",
     R"([{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "What is it?"}]}])", "", true},
};

std::vector<chat::ChatMessage> messagesOf(const char *jsonText)
{
    std::vector<chat::ChatMessage> out;
    auto parsed = json::parseJson(jsonText, "messages");
    if (!parsed || !parsed->isArray())
        return out;
    for (const json::JsonValue &m : parsed->array) {
        chat::ChatMessage msg;
        json::JsonValue extra;
        extra.type = json::JsonType::JSON_TYPE_OBJECT;
        for (const auto &[key, value] : m.object) {
            if (key == "role" && value.isString())
                msg.role = value.string;
            else if (key == "content" && value.isString())
                msg.content = value.string;
            else if (key == "reasoning_content" && value.isString())
                msg.reasoning = value.string;
            else
                extra.object.emplace_back(key, value);
        }
        if (!extra.object.empty())
            msg.extraJson = json::toJsonString(extra);
        out.push_back(std::move(msg));
    }
    return out;
}

Result<std::string> applyTemplate(const ChatTemplate &t, const Conversation &c)
{
    ChatTemplateInputs in;
    in.addGenerationPrompt = c.generationPrompt;
    in.specialTokens = {{"eos_token", "<|im_end|>"}};
    auto kwargs = templateKwargs(c.kwargs);
    if (!kwargs)
        return kwargs.status();
    in.extraContext = std::move(*kwargs);
    return t.apply(messagesOf(c.messages), in);
}

const Conversation *findConversation(const QString &name)
{
    for (const Conversation &c : kConversations)
        if (name == QLatin1String(c.name))
            return &c;
    return nullptr;
}

// `expected` is exact, or "HEAD[...]TAIL": the output starts with HEAD and
// ends with TAIL (a long fixed text of the template stands between).
bool matches(const std::string &out, const std::string &expected)
{
    const size_t cut = expected.find("[...]");
    if (cut == std::string::npos)
        return out == expected;
    const std::string head = expected.substr(0, cut), tail = expected.substr(cut + 5);
    return out.size() >= head.size() + tail.size() && out.compare(0, head.size(), head) == 0 &&
           out.compare(out.size() - tail.size(), tail.size(), tail) == 0;
}

std::shared_ptr<Model> modelWithTemplate(const QTemporaryDir &dir, const std::string &templateText)
{
    test::TinySpec spec;
    spec.extraKeys = [templateText](gguf::GgufWriter &w) { w.addString("tokenizer.chat_template", templateText); };
    const std::string path = toStd(dir.filePath(QStringLiteral("qwen35-template.gguf")));
    if (!test::writeTinyModel(spec, path))
        return nullptr;
    auto m = Model::load(path);
    if (!m) {
        qWarning("%s", m.message().c_str());
        return nullptr;
    }
    return m.value();
}

} // namespace

class TestQwen35Template : public QObject {
    Q_OBJECT

private slots:
    void constructs_data();
    void constructs();
    void ownTemplate_data();
    void ownTemplate();
    void ownTemplateErrors();
    void formatFacts();
    void api();
    void realTemplate_data();
    void realTemplate();
    void realTemplateErrors();

private:
    QTemporaryDir m_dir;
};

void TestQwen35Template::constructs_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("context");
    QTest::addColumn<QString>("expected");

    // A macro with a default argument, its result piped through a filter:
    // r('  a ', true) is "  a ", trimmed "a"; r(' b', false, true) is " b!".
    QTest::newRow("macro result filtered")
        << "{%- macro r(c, count, sys=false) %}{{- c }}{% if sys %}!{% endif %}{%- endmacro %}"
           "[{{ r('  a ', true)|trim }}][{{ r(' b', false, true)|trim }}]"
        << "" << "[a][b!]";
    // `+` binds looser than the filter: only the macro's result is trimmed.
    QTest::newRow("filtered call in a sum")
        << "{%- macro r(c) %}{{- c }}{%- endmacro %}{{ '<' + r(' x ')|trim + '>' }}" << "" << "<x>";
    // The kinds of content: a string; a list (iterable, not a mapping); a
    // dict is iterable but a mapping; none; a number is none of these; an
    // undefined value iterates as empty, so it is iterable (the template's
    // `is undefined` branch is never reached: both give '').
    QTest::newRow("content kinds")
        << "{% for c in xs + [m.missing] %}{% if c is string %}s{% elif c is iterable and c is not mapping %}l"
           "{% elif c is none or c is undefined %}n{% else %}o{% endif %}{% endfor %}"
        << R"({"xs": ["a", [1], {"k": 1}, null, 5], "m": {}})" << "slonol";
    // Key tests on content parts; a part without "type" has an undefined
    // .type, which equals nothing.
    QTest::newRow("content parts")
        << "{% for item in items %}{% if 'image' in item or item.type == 'image' %}I{% elif 'text' in item %}{{ item.text }}"
           "{% else %}?{% endif %}{% endfor %}"
        << R"({"items": [{"type": "image"}, {"image": "a.png"}, {"text": "t"}, {"type": "text", "text": "u"}, {"type": "audio"}]})"
        << "IItu?";
    // The backwards scan: the last user query is the newest message starting
    // with "u"; messages[::-1] with (length - 1) - loop.index0 as its index.
    QTest::newRow("backwards scan")
        << "{% set ns = namespace(scanning=true, last=xs|length - 1) %}{% for x in xs[::-1] %}"
           "{% set i = (xs|length - 1) - loop.index0 %}{% if ns.scanning and x.startswith('u') %}"
           "{% set ns.scanning = false %}{% set ns.last = i %}{% endif %}{% endfor %}{{ ns.last }}{{ ns.scanning }}"
        << R"({"xs": ["u1", "a", "u2", "t"]})" << "2False";
    // `not(` without a space is the operator applied to a parenthesized
    // expression: startswith is true, endswith false, so not(False).
    QTest::newRow("not without a space")
        << "{{ not('<r>x'.startswith('<r>') and 'x'.endswith('</r>')) }}{{ not(true) }}" << "" << "TrueFalse";
    // The <think> split chain: "<think>\nR\n\n</think>\n\nA" -> before
    // "</think>": "<think>\nR\n\n", right-stripped of "\n": "<think>\nR",
    // after the last "<think>": "\nR", left-stripped: "R"; the answer: after
    // the last "</think>", left-stripped: "A". Without an opening tag the
    // reasoning is all before "</think>"; with two "</think>" the reasoning is
    // before the first, the answer after the last.
    const QString chain = "{% for c in cs %}{{ c.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') }}|"
                          "{{ c.split('</think>')[-1].lstrip('\\n') }};{% endfor %}";
    QTest::newRow("think split") << chain << R"({"cs": ["<think>\nR\n\n</think>\n\nA", "R</think>A", "a</think>b</think>\nc"]})"
                                 << "R|A;R|A;a|c;";
    // A conditional expression whose branches are filter chains (filters
    // bind tighter than if/else): mappings and non-string sequences as JSON
    // (non-ASCII kept), the rest through |string (Python's spelling);
    // `set` rebinds the loop variable inside the body.
    QTest::newRow("conditional filter chains")
        << "{% for v in vs %}{% set v = v | tojson | safe if v is mapping or (v is sequence and v is not string) else v | string %}"
           "[{{ v }}]{% endfor %}"
        << R"({"vs": [{"a": 1}, [1, "é"], "s", 2, true, null, 1.5]})" << "[{\"a\": 1}][[1, \"é\"]][s][2][True][None][1.5]";
    // A tool call given as {"function": {...}} or flat: the loop variable is
    // rebound to its function when there is one.
    QTest::newRow("loop variable rebound")
        << "{% for t in calls %}{% if t.function is defined %}{% set t = t.function %}{% endif %}{{ t.name }};{% endfor %}"
        << R"({"calls": [{"function": {"name": "a"}}, {"name": "b"}]})" << "a;b;";
    // Arguments by |items, unpacked in the loop head, in their order.
    QTest::newRow("arguments items") << "{% for k, v in d|items %}<{{ k }}={{ v }}>{% endfor %}"
                                     << R"({"d": {"city": "Paris", "days": 2}})" << "<city=Paris><days=2>";
    // loop.previtem is undefined (false) on the first item; loop.nextitem is
    // only read when the item is not the last.
    //   tool (first, next is assistant): "tool(close)"
    //   assistant (next is tool): "assistant"
    //   tool (previous is assistant, next is tool): "(open)tool"
    //   tool (last): "tool(end)"
    QTest::newRow("previtem nextitem")
        << "{% for m in ms %}{% if loop.previtem and loop.previtem.role != 'tool' %}(open){% endif %}{{ m.role }}"
           "{% if not loop.last and loop.nextitem.role != 'tool' %}(close){% elif loop.last %}(end){% endif %} {% endfor %}"
        << R"({"ms": [{"role": "tool"}, {"role": "assistant"}, {"role": "tool"}, {"role": "tool"}]})"
        << "tool(close) assistant (open)tool tool(end) ";
    // enable_thinking is false only for false itself: not for 0, true or
    // when it is not given.
    QTest::newRow("is false")
        << "{% for k in ['a', 'b', 'c', 'd'] %}{{ 'off' if m[k] is defined and m[k] is false else 'on' }} {% endfor %}"
        << R"({"m": {"a": false, "b": 0, "c": true}})" << "off on on on ";
    // A namespace counter and `~` (numbers converted).
    QTest::newRow("namespace counter")
        << "{% set n = namespace(value=0) %}{% for i in [1, 2] %}{% set n.value = n.value + 1 %}{{ 'Picture ' ~ n.value ~ ': ' }}"
           "{% endfor %}"
        << "" << "Picture 1: Picture 2: ";
    // Tools: a non-empty list that is not a mapping; each as JSON, with its
    // keys in order and non-ASCII text kept; '\n' + tool | tojson is
    // '\n' + (tool | tojson).
    QTest::newRow("tools test")
        << "{% for t in [[], [1], {'a': 1}, none, m.missing] %}{{ 'T' if t and t is iterable and t is not mapping else 'F' }}{% endfor %}"
        << R"({"m": {}})" << "FTFFF";
    QTest::newRow("tool as json") << "{{ '\\n' + tool | tojson }}" << R"({"tool": {"name": "météo", "p": {"b": 1, "a": [true, null]}}})"
                                  << "\n{\"name\": \"météo\", \"p\": {\"b\": 1, \"a\": [true, null]}}";
    // A filtered for loop over an undefined list iterates nothing.
    QTest::newRow("filtered loop over undefined") << "[{% for c in m.tool_calls if m.tool_calls is not mapping %}x{% endfor %}]"
                                                  << R"({"m": {}})" << "[]";
    // Nested conditional expressions: first and content, first without
    // content, not first.
    QTest::newRow("nested conditional")
        << "{% for c in ['x', ''] %}{% for i in [1, 2] %}[{{ ('A' if loop.first and c|trim else 'B' if not loop.first else '') }}]"
           "{% endfor %}{% endfor %}"
        << "" << "[A][B][][B]";
}

void TestQwen35Template::constructs()
{
    QFETCH(QString, source);
    QFETCH(QString, context);
    QFETCH(QString, expected);
    auto out = renderSource(source, context);
    QVERIFY2(out, out.message().c_str());
    QCOMPARE(QString::fromStdString(*out), expected);
}

// The conversations our template and Qwen3.5's render alike (ownTemplate and
// realTemplate both check them).
static void addRowsBothTemplatesRender()
{
    // A user turn, then the generation prompt opens <think> (enable_thinking
    // not given is not false).
    QTest::newRow("plain") << "plain" << "<|im_start|>user\nHello!<|im_end|>\n<|im_start|>assistant\n<think>\n";
    // The system text trimmed; enable_thinking false: an empty think block.
    QTest::newRow("system, thinking off")
        << "system, thinking off"
        << "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n";
    QTest::newRow("thinking on") << "thinking on" << "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n";
    // The last query is message 4 ("Thanks"): both assistant turns come
    // before it and lose their reasoning (from the content's <think> block
    // and from reasoning_content).
    QTest::newRow("earlier reasoning dropped")
        << "earlier reasoning dropped"
        << "<|im_start|>user\n2+2?<|im_end|>\n<|im_start|>assistant\n4<|im_end|>\n<|im_start|>user\nTimes 3?<|im_end|>\n"
           "<|im_start|>assistant\n12<|im_end|>\n<|im_start|>user\nThanks<|im_end|>\n<|im_start|>assistant\n<think>\n";
    // An assistant turn after the last query keeps its reasoning, rewritten
    // as "<think>\n" + reasoning + "\n</think>\n\n".
    QTest::newRow("last reasoning kept") << "last reasoning kept"
                                         << "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\nGreet.\n</think>\n\nHello!"
                                            "<|im_end|>\n";
    // A user turn that is a tool response is no query: the last query is
    // message 0, so the assistant turn after it keeps "a" (the block had no
    // newlines; the template adds them).
    QTest::newRow("tool response is no query")
        << "tool response is no query"
        << "<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n<think>\na\n</think>\n\nb<|im_end|>\n"
           "<|im_start|>user\n<tool_response>\nr\n</tool_response><|im_end|>\n<|im_start|>assistant\n<think>\n";
    // Empty content: the first call follows the think block directly, the
    // second after "\n"; reasoning from reasoning_content; the flat call
    // form works as the nested one.
    QTest::newRow("two calls, empty content")
        << "two calls, empty content"
        << "<|im_start|>user\nTwo cities<|im_end|>\n<|im_start|>assistant\n<think>\nBoth.\n</think>\n\n<tool_call>\n<function=w>\n"
           "<parameter=city>\nA\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=w>\n<parameter=city>\nB\n"
           "</parameter>\n</function>\n</tool_call><|im_end|>\n<|im_start|>user\n<tool_response>\n1\n</tool_response>\n"
           "<tool_response>\n2\n</tool_response><|im_end|>\n<|im_start|>assistant\n<think>\n";
}

void TestQwen35Template::ownTemplate_data()
{
    QTest::addColumn<QString>("conversation");
    QTest::addColumn<QString>("expected");
    addRowsBothTemplatesRender();
    // Tools first with the system text after them; the assistant turn after
    // the query keeps its reasoning; content then "\n\n" then the call; each
    // argument as a parameter (the list as JSON); the two tool responses in
    // one user turn.
    QTest::newRow("tool calls")
        << "tool calls"
        << "<|im_start|>system\n<tools>\n{\"name\": \"get_weather\"}\n</tools>\n\nS<|im_end|>\n<|im_start|>user\nWeather?<|im_end|>\n"
           "<|im_start|>assistant\n<think>\nNeed data.\n</think>\n\nChecking.\n\n<tool_call>\n<function=get_weather>\n"
           "<parameter=city>\nParis\n</parameter>\n<parameter=days>\n2\n</parameter>\n<parameter=units>\n[\"C\"]\n</parameter>\n"
           "</function>\n</tool_call><|im_end|>\n<|im_start|>user\n<tool_response>\n21\n</tool_response>\n<tool_response>\nsunny\n"
           "</tool_response><|im_end|>\n<|im_start|>assistant\n<think>\n";
    // Content as parts (ChatMessage::extraJson's "content" wins over the
    // empty string).
    QTest::newRow("content parts") << "content parts"
                                   << "<|im_start|>user\n<img>What is it?<|im_end|>\n<|im_start|>assistant\n<think>\n";
}

void TestQwen35Template::ownTemplate()
{
    QFETCH(QString, conversation);
    QFETCH(QString, expected);
    const Conversation *c = findConversation(conversation);
    QVERIFY(c);
    auto t = ChatTemplate::parse(kOwnTemplate, "qwen35-like");
    QVERIFY2(t, t.message().c_str());
    auto out = applyTemplate(*t, *c);
    QVERIFY2(out, out.message().c_str());
    QCOMPARE(QString::fromStdString(*out), expected);
}

// raise_exception() in the template comes back as the error, with its place.
void TestQwen35Template::ownTemplateErrors()
{
    auto t = ChatTemplate::parse(kOwnTemplate, "qwen35-like");
    QVERIFY2(t, t.message().c_str());
    const Conversation noQuery{"no query", R"([{"role": "system", "content": "x"}])", "", true};
    auto out = applyTemplate(*t, noQuery);
    QVERIFY(!out);
    QVERIFY2(out.message().find("qwen35-like:") == 0 && out.message().find("No user query found in messages.") != std::string::npos,
             out.message().c_str());
    const Conversation systemImage{"system image",
                                   R"([{"role": "system", "content": [{"type": "image"}]}, {"role": "user", "content": "x"}])", "",
                                   true};
    out = applyTemplate(*t, systemImage);
    QVERIFY(!out);
    QVERIFY2(out.message().find("No images in a system message.") != std::string::npos, out.message().c_str());
    const Conversation badContent{"bad content", R"([{"role": "user", "content": 5}])", "", true};
    out = applyTemplate(*t, badContent);
    QVERIFY(!out);
    QVERIFY2(out.message().find("Unexpected content type.") != std::string::npos, out.message().c_str());
}

// The format facts: the model's own template, reasoning in <think> tags, it
// reads enable_thinking (not reasoning_effort), it stops at <|im_end|>; a
// generation prompt ending in "<think>\n" leaves the reply inside the block,
// the empty block of enable_thinking false does not.
void TestQwen35Template::formatFacts()
{
    ChatFormatInputs in;
    in.templateText = kOwnTemplate;
    in.eosText = "<|im_end|>";
    in.eotText = "<|endoftext|>";
    auto choice = chooseChatFormat(in);
    QVERIFY2(choice, choice.message().c_str());
    QCOMPARE(choice->kind, ChatFormatKind::CHAT_FORMAT_KIND_MODEL);
    QCOMPARE(choice->reasoning, ReasoningSyntax::REASONING_SYNTAX_THINK_TAGS);
    QVERIFY(choice->readsEnableThinking);
    QVERIFY(!choice->readsReasoningEffort);
    QCOMPARE(choice->stopStrings, (std::vector<std::string>{"<|im_end|>", "<|endoftext|>"}));

    auto on = applyTemplate(choice->chatTemplate, *findConversation(QStringLiteral("plain")));
    QVERIFY2(on, on.message().c_str());
    QVERIFY(promptEndsInReasoning(choice->reasoning, *on));
    auto off = applyTemplate(choice->chatTemplate, *findConversation(QStringLiteral("system, thinking off")));
    QVERIFY2(off, off.message().c_str());
    QVERIFY(!promptEndsInReasoning(choice->reasoning, *off));

    // A reply to the thinking prompt: reasoning up to </think>, then the answer.
    ReasoningSplitter splitter(reasoningOptionsFor(choice->reasoning, *on));
    std::string reasoning, answer;
    for (const auto &parts : {splitter.push("Let me think.\n</think>\n\nHi there"), splitter.finish()})
        for (const ReplyPart &p : parts)
            (p.kind == ReplyPartKind::REPLY_PART_KIND_REASONING ? reasoning : answer) += p.text;
    QCOMPARE(QString::fromStdString(reasoning), QStringLiteral("Let me think."));
    QCOMPARE(QString::fromStdString(answer), QStringLiteral("Hi there"));
}

// Through the public API on a model carrying our template: renderChat with
// RenderOptions::enableThinking, and buildChatPrompt's reasoning options.
void TestQwen35Template::api()
{
    QVERIFY(m_dir.isValid());
    auto model = modelWithTemplate(m_dir, kOwnTemplate);
    QVERIFY(model);
    const std::vector<burrow::ChatMessage> msgs = {{"user", "Hi", "", ""}};
    RenderOptions options;
    options.addGenerationPrompt = true;
    ChatFormat used;
    auto on = renderChat(*model, msgs, options, &used);
    QVERIFY2(on, on.message().c_str());
    QCOMPARE(QString::fromStdString(*on), QStringLiteral("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n"));
    QCOMPARE(used.reasoning, ReasoningSyntax::REASONING_SYNTAX_THINK_TAGS);
    QVERIFY(used.readsEnableThinking);
    options.enableThinking = false;
    auto off = renderChat(*model, msgs, options);
    QVERIFY2(off, off.message().c_str());
    QCOMPARE(QString::fromStdString(*off),
             QStringLiteral("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"));

    PromptOptions prompt;
    auto thinking = buildChatPrompt(*model, msgs, prompt);
    QVERIFY2(thinking, thinking.message().c_str());
    QVERIFY(thinking->reasoning.startsInReasoning);
    QCOMPARE(thinking->format.reasoning, ReasoningSyntax::REASONING_SYNTAX_THINK_TAGS);
    prompt.render.enableThinking = false;
    auto plain = buildChatPrompt(*model, msgs, prompt);
    QVERIFY2(plain, plain.message().c_str());
    QVERIFY(!plain->reasoning.startsInReasoning);
}

void TestQwen35Template::realTemplate_data()
{
    QTest::addColumn<QString>("conversation");
    QTest::addColumn<QString>("expected");
    // Read from Qwen3.5-4B's template (as shipped in its GGUF files). Where
    // it differs from ours: content parts become
    // <|vision_start|><|image_pad|><|vision_end|> (no "Picture N: " without
    // add_vision_id), and the tools header is "# Tools" with a long fixed
    // instruction text (elided here as [...]) before "</IMPORTANT>".
    addRowsBothTemplatesRender();
    QTest::newRow("tool calls")
        << "tool calls"
        << "<|im_start|>system\n# Tools\n\nYou have access to the following functions:\n\n<tools>\n{\"name\": \"get_weather\"}\n"
           "</tools>\n\nIf you choose to call a function ONLY reply in the following format with NO suffix:\n\n[...]"
           "</IMPORTANT>\n\nS<|im_end|>\n<|im_start|>user\nWeather?<|im_end|>\n"
           "<|im_start|>assistant\n<think>\nNeed data.\n</think>\n\nChecking.\n\n<tool_call>\n<function=get_weather>\n"
           "<parameter=city>\nParis\n</parameter>\n<parameter=days>\n2\n</parameter>\n<parameter=units>\n[\"C\"]\n</parameter>\n"
           "</function>\n</tool_call><|im_end|>\n<|im_start|>user\n<tool_response>\n21\n</tool_response>\n<tool_response>\nsunny\n"
           "</tool_response><|im_end|>\n<|im_start|>assistant\n<think>\n";
    QTest::newRow("content parts")
        << "content parts"
        << "<|im_start|>user\n<|vision_start|><|image_pad|><|vision_end|>What is it?<|im_end|>\n<|im_start|>assistant\n<think>\n";
}

// The real template, when BURROW_QWEN35_TEMPLATE names a copy of it (a
// Qwen3.5 GGUF's tokenizer.chat_template, or llama.cpp's
// models/templates/Qwen3.5-4B.jinja).
void TestQwen35Template::realTemplate()
{
    const QString path = qEnvironmentVariable("BURROW_QWEN35_TEMPLATE");
    if (path.isEmpty())
        QSKIP("BURROW_QWEN35_TEMPLATE is not set (the path of the Qwen3.5 chat template)");
    QFile f(path);
    QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(QStringLiteral("cannot read %1").arg(path)));
    const QByteArray text = f.readAll();
    QFETCH(QString, conversation);
    QFETCH(QString, expected);

    ChatFormatInputs in;
    in.templateText = std::string(text.constData(), size_t(text.size()));
    in.eosText = "<|im_end|>";
    auto choice = chooseChatFormat(in);
    QVERIFY2(choice, choice.message().c_str());
    QCOMPARE(choice->kind, ChatFormatKind::CHAT_FORMAT_KIND_MODEL);
    QCOMPARE(choice->reasoning, ReasoningSyntax::REASONING_SYNTAX_THINK_TAGS);
    QVERIFY(choice->readsEnableThinking);
    QVERIFY(!choice->readsReasoningEffort);
    QCOMPARE(choice->stopStrings, std::vector<std::string>{"<|im_end|>"});

    const Conversation *c = findConversation(conversation);
    QVERIFY(c);
    auto out = applyTemplate(choice->chatTemplate, *c);
    QVERIFY2(out, out.message().c_str());
    QVERIFY2(matches(*out, toStd(expected)), out->c_str());
    if (c->generationPrompt)
        QCOMPARE(promptEndsInReasoning(choice->reasoning, *out), QString::fromLatin1(c->kwargs) != R"({"enable_thinking": false})");
}

// The real template's raise_exception() cases, when BURROW_QWEN35_TEMPLATE is set.
void TestQwen35Template::realTemplateErrors()
{
    const QString path = qEnvironmentVariable("BURROW_QWEN35_TEMPLATE");
    if (path.isEmpty())
        QSKIP("BURROW_QWEN35_TEMPLATE is not set (the path of the Qwen3.5 chat template)");
    QFile f(path);
    QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(QStringLiteral("cannot read %1").arg(path)));
    const QByteArray text = f.readAll();
    auto t = ChatTemplate::parse(std::string(text.constData(), size_t(text.size())), "qwen3.5");
    QVERIFY2(t, t.message().c_str());
    const struct {
        Conversation conversation;
        const char *error;
    } cases[] = {
        {{"system only", R"([{"role": "system", "content": "x"}])", "", true}, "No user query found in messages."},
        {{"system later", R"([{"role": "user", "content": "x"}, {"role": "system", "content": "y"}])", "", true},
         "System message must be at the beginning."},
        {{"system image", R"([{"role": "system", "content": [{"type": "image"}]}, {"role": "user", "content": "x"}])", "", true},
         "System message cannot contain images."},
        {{"unknown part", R"([{"role": "user", "content": [{"type": "audio"}]}])", "", true}, "Unexpected item type in content."},
        {{"unknown role", R"([{"role": "user", "content": "x"}, {"role": "narrator", "content": "y"}])", "", true},
         "Unexpected message role."},
        // Arguments as a JSON string (as OpenAI clients send them) are not a
        // mapping: |items refuses them, in Jinja2 as here.
        {{"string arguments",
          R"([{"role": "user", "content": "x"}, {"role": "assistant", "content": "",
              "tool_calls": [{"function": {"name": "f", "arguments": "{\"a\": 1}"}}]}])",
          "", false},
         "Can only get item pairs from a mapping."},
    };
    for (const auto &c : cases) {
        auto out = applyTemplate(*t, c.conversation);
        QVERIFY2(!out, c.conversation.name);
        QVERIFY2(out.message().find("qwen3.5:") == 0 && out.message().find(c.error) != std::string::npos,
                 out.message().c_str());
    }
}

QTEST_GUILESS_MAIN(TestQwen35Template)
#include "tst_qwen35_template.moc"
