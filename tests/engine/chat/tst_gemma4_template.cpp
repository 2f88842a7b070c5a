// The Gemma 4 chat template (the one Gemma 4 GGUF files carry):
// - ownTemplate: a template of ours written with the constructs and rules of
//   the real one (a namespace carried through the loop, the system turn made
//   for <|think|> when thinking is on, earlier channel blocks stripped by a
//   split/join macro, tool calls as <|tool_call>call:NAME{...}<tool_call|>
//   with <|"|>-quoted strings and dictsort'ed arguments, the generation
//   prompt pre-filling an empty thought channel when thinking is off),
//   rendered for the conversations a chat app sends;
// - formatFacts / api: what the format tells the engine (Gemma 4's channel
//   syntax, reads enable_thinking, stops at <turn|>, a prompt that does not
//   leave the reply inside a channel), also through renderChat /
//   buildChatPrompt on a model that carries our template;
// - realTemplate: the real template, read from the file BURROW_GEMMA4_TEMPLATE
//   names (llama.cpp's models/templates/google-gemma-4-31B-it.jinja; skipped
//   without it), for the same conversations.
// Every expected string is worked out by hand from the template text.
#include "burrow/engine.h"
#include "chat/chat_format.h"
#include "chat/chat_template.h"
#include "chat/jinja_template.h"
#include "chat/reasoning_split.h"
#include "common/json.h"
#include "tiny_model.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace burrow;
using namespace burrow::chat;

namespace {

std::string toStd(const QString &s)
{
    return s.toStdString();
}

Result<std::string> renderSource(const std::string &source, const std::string &contextJson)
{
    auto t = jinja::Template::parse(source);
    if (!t)
        return t.status();
    jinja::Dict context;
    auto parsed = json::parseJson(contextJson, "context");
    if (!parsed)
        return parsed.status();
    const jinja::Value v = jsonToValue(*parsed);
    if (v.isDict())
        context = v.asDict();
    return t->render(context, {});
}

// Our Gemma-4-style template: the real one's rules for text turns, thinking
// and tool calls, without its tool declarations' schema writer and content
// parts.
// Our template, kept as a file (tests/app/ui/tst_thinking writes it into a
// model for the real window too).
std::string readOwnTemplate()
{
    QFile f(QStringLiteral(BURROW_SOURCE_DIR "/tests/engine/chat/gemma4-style.jinja"));
    return f.open(QIODevice::ReadOnly) ? f.readAll().toStdString() : std::string();
}
const std::string kOwnTemplate = readOwnTemplate();

// The conversations: JSON contexts for the template.
std::string conversation(const QString &name)
{
    const QString chat = QStringLiteral(
        R"({"role": "user", "content": " Hi there "},
           {"role": "assistant", "content": "<|channel>thought\nThey greet.<channel|>Hello!"},
           {"role": "user", "content": "What is 2+2?"})");
    QString json;
    if (name == QLatin1String("plain"))
        json = QStringLiteral(R"({"messages": [%1], "add_generation_prompt": true})").arg(chat);
    else if (name == QLatin1String("system"))
        json = QStringLiteral(R"({"messages": [{"role": "system", "content": "Be brief. "}, %1], "add_generation_prompt": true})").arg(chat);
    else if (name == QLatin1String("thinking"))
        json = QStringLiteral(R"({"messages": [%1], "add_generation_prompt": true, "enable_thinking": true})").arg(chat);
    else if (name == QLatin1String("thinking with system"))
        json = QStringLiteral(R"({"messages": [{"role": "system", "content": "Be brief."}, %1], "add_generation_prompt": true,
                                  "enable_thinking": true})").arg(chat);
    else if (name == QLatin1String("no generation prompt"))
        json = QStringLiteral(R"({"messages": [%1]})").arg(chat);
    return toStd(json).insert(1, R"("bos_token": "<bos>", )");
}

const char *const kChatTurns = "<|turn>user\nHi there<turn|>\n<|turn>model\nHello!<turn|>\n<|turn>user\nWhat is 2+2?<turn|>\n";

// Rows both templates render alike.
void addRowsBothTemplatesRender()
{
    const std::string turns = kChatTurns;
    QTest::newRow("plain: thinking off pre-fills an empty channel")
        << "plain" << QString::fromStdString("<bos>" + turns + "<|turn>model\n<|channel>thought\n<channel|>");
    QTest::newRow("system turn, trimmed")
        << "system"
        << QString::fromStdString("<bos><|turn>system\nBe brief.<turn|>\n" + turns + "<|turn>model\n<|channel>thought\n<channel|>");
    QTest::newRow("thinking on: <|think|> opens a system turn, no channel pre-filled")
        << "thinking" << QString::fromStdString("<bos><|turn>system\n<|think|>\n<turn|>\n" + turns + "<|turn>model\n");
    QTest::newRow("thinking on with a system message")
        << "thinking with system"
        << QString::fromStdString("<bos><|turn>system\n<|think|>\nBe brief.<turn|>\n" + turns + "<|turn>model\n");
    QTest::newRow("no generation prompt") << "no generation prompt" << QString::fromStdString("<bos>" + turns);
}

std::shared_ptr<Model> modelWithTemplate(const QTemporaryDir &dir, const std::string &templateText)
{
    test::TinySpec spec;
    spec.extraKeys = [templateText](gguf::GgufWriter &w) { w.addString("tokenizer.chat_template", templateText); };
    const std::string path = toStd(dir.filePath(QStringLiteral("gemma4-template.gguf")));
    if (!test::writeTinyModel(spec, path))
        return nullptr;
    auto m = Model::load(path);
    if (!m) {
        qWarning("%s", m.message().c_str());
        return nullptr;
    }
    return m.value();
}

QString realTemplatePath()
{
    return qEnvironmentVariable("BURROW_GEMMA4_TEMPLATE");
}

} // namespace

class TestGemma4Template : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY2(!kOwnTemplate.empty(), "tests/engine/chat/gemma4-style.jinja is missing"); }
    void ownTemplate_data();
    void ownTemplate();
    void ownToolCalls();
    void formatFacts();
    void api();
    void realTemplate_data();
    void realTemplate();
    void realTemplateTools();

private:
    QTemporaryDir m_dir;
};

void TestGemma4Template::ownTemplate_data()
{
    QTest::addColumn<QString>("conversation");
    QTest::addColumn<QString>("expected");
    addRowsBothTemplatesRender();
}

void TestGemma4Template::ownTemplate()
{
    QFETCH(QString, conversation);
    QFETCH(QString, expected);
    auto out = renderSource(kOwnTemplate, ::conversation(conversation));
    QVERIFY2(out, out.message().c_str());
    QCOMPARE(QString::fromStdString(*out), expected);
}

// A tool call (arguments in key order, strings quoted with <|"|>, numbers
// and booleans as they are) and its result; no generation prompt after
// either: the model's turn goes on after the result.
void TestGemma4Template::ownToolCalls()
{
    const std::string context = R"({"bos_token": "<bos>", "add_generation_prompt": true, "messages": [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_weather",
            "arguments": {"units": "C", "city": "Paris", "days": 2, "hourly": false}}}]},
        {"role": "tool", "name": "get_weather", "content": "sunny"}]})";
    auto out = renderSource(kOwnTemplate, context);
    QVERIFY2(out, out.message().c_str());
    QCOMPARE(QString::fromStdString(*out),
             QStringLiteral("<bos><|turn>user\nWeather in Paris?<turn|>\n<|turn>model\n<|tool_call>call:get_weather{city:<|\"|>Paris"
                            "<|\"|>,days:2,hourly:false,units:<|\"|>C<|\"|>}<tool_call|><|tool_response>response:get_weather"
                            "{value:<|\"|>sunny<|\"|>}<tool_response|>"));
}

// What the format tells the engine: Gemma 4's channels, enable_thinking,
// <turn|> ends a reply.
void TestGemma4Template::formatFacts()
{
    QCOMPARE(reasoningSyntaxOf(kOwnTemplate), ReasoningSyntax::REASONING_SYNTAX_GEMMA4_CHANNEL);
    ChatFormatInputs in;
    in.architecture = "gemma4";
    in.templateText = kOwnTemplate;
    in.eosText = "<eos>";
    auto choice = chooseChatFormat(in);
    QVERIFY2(choice, choice.message().c_str());
    QCOMPARE(choice->kind, ChatFormatKind::CHAT_FORMAT_KIND_MODEL);
    QCOMPARE(choice->reasoning, ReasoningSyntax::REASONING_SYNTAX_GEMMA4_CHANNEL);
    QVERIFY(choice->readsEnableThinking);
    QVERIFY(!choice->readsReasoningEffort);
    QCOMPARE(choice->stopStrings, (std::vector<std::string>{"<turn|>", "<eos>"}));
    QVERIFY(!promptEndsInReasoning(ReasoningSyntax::REASONING_SYNTAX_GEMMA4_CHANNEL, "<|turn>model\n"));
    QVERIFY(!promptEndsInReasoning(ReasoningSyntax::REASONING_SYNTAX_GEMMA4_CHANNEL,
                                   "<|turn>model\n<|channel>thought\n<channel|>"));
}

// Through the public API on a model carrying our template: renderChat with
// RenderOptions::enableThinking, buildChatPrompt's reasoning options.
void TestGemma4Template::api()
{
    QVERIFY(m_dir.isValid());
    auto model = modelWithTemplate(m_dir, kOwnTemplate);
    QVERIFY(model);
    const std::vector<burrow::ChatMessage> msgs = {{"user", "Hi", "", ""}};
    RenderOptions options;
    options.addGenerationPrompt = true;
    ChatFormat used;
    auto off = renderChat(*model, msgs, options, &used);
    QVERIFY2(off, off.message().c_str());
    QCOMPARE(QString::fromStdString(*off), QStringLiteral("<|turn>user\nHi<turn|>\n<|turn>model\n<|channel>thought\n<channel|>"));
    QCOMPARE(used.reasoning, ReasoningSyntax::REASONING_SYNTAX_GEMMA4_CHANNEL);
    QVERIFY(used.readsEnableThinking);
    options.enableThinking = true;
    auto on = renderChat(*model, msgs, options);
    QVERIFY2(on, on.message().c_str());
    QCOMPARE(QString::fromStdString(*on), QStringLiteral("<|turn>system\n<|think|>\n<turn|>\n<|turn>user\nHi<turn|>\n<|turn>model\n"));

    PromptOptions prompt;
    prompt.render.enableThinking = true;
    auto thinking = buildChatPrompt(*model, msgs, prompt);
    QVERIFY2(thinking, thinking.message().c_str());
    QCOMPARE(thinking->format.reasoning, ReasoningSyntax::REASONING_SYNTAX_GEMMA4_CHANNEL);
    QCOMPARE(thinking->reasoning.syntax, ReasoningSyntax::REASONING_SYNTAX_GEMMA4_CHANNEL);
    QVERIFY(!thinking->reasoning.startsInReasoning);
    QVERIFY(std::find(thinking->format.stopStrings.begin(), thinking->format.stopStrings.end(), "<turn|>") !=
            thinking->format.stopStrings.end());
}

void TestGemma4Template::realTemplate_data()
{
    QTest::addColumn<QString>("conversation");
    QTest::addColumn<QString>("expected");
    addRowsBothTemplatesRender();
}

// The real template, when BURROW_GEMMA4_TEMPLATE names a copy of it (a Gemma
// 4 GGUF's tokenizer.chat_template, or llama.cpp's
// models/templates/google-gemma-4-31B-it.jinja).
void TestGemma4Template::realTemplate()
{
    const QString path = realTemplatePath();
    if (path.isEmpty())
        QSKIP("BURROW_GEMMA4_TEMPLATE is not set (the path of the Gemma 4 chat template)");
    QFETCH(QString, conversation);
    QFETCH(QString, expected);
    QFile f(path);
    QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(path));
    const std::string source = f.readAll().toStdString();
    auto out = renderSource(source, ::conversation(conversation));
    QVERIFY2(out, out.message().c_str());
    QCOMPARE(QString::fromStdString(*out), expected);
    QCOMPARE(reasoningSyntaxOf(source), ReasoningSyntax::REASONING_SYNTAX_GEMMA4_CHANNEL);
}

// The real template's tools: declarations in the system turn, a call (OpenAI
// form: an id, the result as a role "tool" message found by that id), the
// result folded into the model's turn, which then goes on.
void TestGemma4Template::realTemplateTools()
{
    const QString path = realTemplatePath();
    if (path.isEmpty())
        QSKIP("BURROW_GEMMA4_TEMPLATE is not set (the path of the Gemma 4 chat template)");
    QFile f(path);
    QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(path));
    const std::string context = R"({"bos_token": "<bos>", "add_generation_prompt": true,
        "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather of a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"},
                "days": {"type": "integer"}}, "required": ["city"]}}}],
        "messages": [{"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
                "function": {"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
            {"role": "assistant", "content": "It is sunny."}, {"role": "user", "content": "Thanks"}]})";
    auto out = renderSource(f.readAll().toStdString(), context);
    QVERIFY2(out, out.message().c_str());
    QCOMPARE(QString::fromStdString(*out),
             QStringLiteral("<bos><|turn>system\n<|tool>declaration:get_weather{description:<|\"|>Weather of a city<|\"|>,"
                            "parameters:{properties:{city:{description:<|\"|>City name<|\"|>,type:<|\"|>STRING<|\"|>},"
                            "days:{type:<|\"|>INTEGER<|\"|>}},required:[<|\"|>city<|\"|>],type:<|\"|>OBJECT<|\"|>}}<tool|>"
                            "<turn|>\n<|turn>user\nWeather in Paris?<turn|>\n<|turn>model\n<|tool_call>call:get_weather"
                            "{city:<|\"|>Paris<|\"|>,days:2}<tool_call|><|tool_response>response:get_weather{value:<|\"|>sunny"
                            "<|\"|>}<tool_response|>It is sunny.<turn|>\n<|turn>user\nThanks<turn|>\n<|turn>model\n"
                            "<|channel>thought\n<channel|>"));
}

QTEST_MAIN(TestGemma4Template)
#include "tst_gemma4_template.moc"
