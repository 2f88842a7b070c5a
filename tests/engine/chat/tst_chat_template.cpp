// Chat templates end to end: every case of ../shared/templates/cases.json and
// ../shared/templates-2026/cases.json (with their template kwargs and the
// extra message fields: reasoning_content, thinking, ...) renders byte for
// byte (or raises the expected error), the built-in fallback
// formats render like the reference templates of the same family, fallback
// detection and stop strings on the models and vocabularies in ../shared and
// on files written here, and `burrow-cli template` as a process.
#include "burrow/engine.h"
#include "chat/chat_format.h"
#include "chat/chat_gguf.h"
#include "chat/chat_template.h"
#include "common/json.h"
#include "gguf/gguf_writer.h"
#include "cli_process.h"
#include "test_support.h"
#include "tiny_model.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <functional>
#include <map>

using namespace burrow;
using namespace burrow::chat;

namespace {

constexpr std::time_t kJul26 = 1721995200;   // 2024-07-26 12:00 UTC: "26 Jul 2024" in every time zone

QByteArray readAll(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

std::string toStd(const QByteArray &b) { return std::string(b.constData(), size_t(b.size())); }

std::string str(const json::JsonValue &o, const char *key);

// The folders of ../shared with a cases.json and the templates it names.
const char *const kCaseSets[] = {"templates", "templates-2026"};

// <set>/cases.json, parsed once with our reader (it keeps object order).
const json::JsonValue &cases(const QString &set = QStringLiteral("templates"))
{
    static std::map<QString, json::JsonValue> docs;
    auto it = docs.find(set);
    if (it == docs.end()) {
        auto r = json::parseJson(toStd(readAll(test::sharedPath(set + "/cases.json"))), toStd(set.toUtf8()) + "/cases.json");
        it = docs.emplace(set, r ? *r : json::JsonValue{}).first;
    }
    return it->second;
}

// Rows (set, index) for every case of every set present; `keep` filters.
void caseRows(const std::function<bool(const json::JsonValue &)> &keep = {})
{
    QTest::addColumn<QString>("set");
    QTest::addColumn<int>("index");
    for (const char *folder : kCaseSets) {
        const QString set = QString::fromLatin1(folder);
        const auto *list = cases(set).find("cases");
        if (!list)
            continue;
        for (size_t i = 0; i < list->array.size(); ++i) {
            const auto &c = list->array[i];
            if (keep && !keep(c))
                continue;
            std::string name = toStd(set.toUtf8()) + "/" + str(c, "template") + " / " + str(c, "conversation");
            if (const auto *kw = c.find("kwargs"); kw && kw->isObject())
                name += " " + json::toJsonString(*kw);
            QTest::newRow(qPrintable(QString::fromStdString(name) + QStringLiteral(" #%1").arg(i))) << set << int(i);
        }
    }
}

std::string str(const json::JsonValue &o, const char *key)
{
    const auto *v = o.find(key);
    return v && v->isString() ? v->string : std::string();
}

ChatTemplateInputs inputsFor(const json::JsonValue &c, const QString &set = QStringLiteral("templates"))
{
    ChatTemplateInputs in;
    in.addGenerationPrompt = c.find("add_generation_prompt") && c.find("add_generation_prompt")->boolean;
    in.specialTokens = {{"bos_token", str(c, "bos_token")}, {"eos_token", str(c, "eos_token")}};
    in.render.clock = [] { return kJul26; };
    // The 2026 fixtures were rendered with a stub: "26 Jul 2024" whatever the
    // format (gpt-oss asks for "%Y-%m-%d"). The first set's templates ask for
    // "%d %b %Y", so the real formatting is checked there.
    if (set == QStringLiteral("templates-2026"))
        in.render.fixedStrftime = "26 Jul 2024";
    if (const auto *kwargs = c.find("kwargs"))
        in.extraContext = *kwargs;   // enable_thinking, reasoning_effort
    return in;
}

json::JsonValue messages(std::initializer_list<std::pair<const char *, const char *>> list)
{
    json::JsonValue arr;
    arr.type = json::JsonType::JSON_TYPE_ARRAY;
    for (const auto &[role, content] : list) {
        json::JsonValue m, r, c;
        m.type = json::JsonType::JSON_TYPE_OBJECT;
        r.type = c.type = json::JsonType::JSON_TYPE_STRING;
        r.string = role;
        c.string = content;
        m.object.emplace_back("role", r);
        m.object.emplace_back("content", c);
        arr.array.push_back(m);
    }
    return arr;
}

VocabLookup vocabOf(QStringList tokens)
{
    return [tokens](std::string_view t) { return tokens.contains(QString::fromUtf8(t.data(), qsizetype(t.size()))); };
}

using test::ProcessResult;
using test::runCli;

// A fixture message as the API's ChatMessage: reasoning from
// reasoning_content or thinking, every other field (but role and content)
// as extraJson.
burrow::ChatMessage apiMessage(const json::JsonValue &m)
{
    burrow::ChatMessage out;
    json::JsonValue extra;
    extra.type = json::JsonType::JSON_TYPE_OBJECT;
    for (const auto &[k, v] : m.object) {
        if (k == "role" && v.isString())
            out.role = v.string;
        else if (k == "content" && v.isString())
            out.content = v.string;
        else if ((k == "reasoning_content" || k == "thinking") && v.isString() && out.reasoning.empty())
            out.reasoning = v.string;
        else
            extra.object.emplace_back(k, v);
    }
    if (!extra.object.empty())
        out.extraJson = json::toJsonString(extra);
    return out;
}

// A loadable tiny model (random weights, 16-token vocabulary) whose
// tokenizer.chat_template is `templateText`, written into `dir`.
std::shared_ptr<Model> tinyModelWithTemplate(const QTemporaryDir &dir, const QString &name, const std::string &templateText)
{
    test::TinySpec spec;
    spec.extraKeys = [templateText](gguf::GgufWriter &w) { w.addString("tokenizer.chat_template", templateText); };
    const auto bytes = test::buildTinyModel(spec);
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return nullptr;
    f.write(reinterpret_cast<const char *>(bytes.data()), qint64(bytes.size()));
    f.close();
    auto m = Model::load(path.toStdString());
    if (!m) {
        qWarning("%s", m.message().c_str());
        return nullptr;
    }
    return m.value();
}

} // namespace

class TestChatTemplate : public QObject {
    Q_OBJECT

private slots:
    void referenceCases_data();
    void referenceCases();
    void builtinMatchesReference_data();
    void builtinMatchesReference();
    void builtinHandwritten_data();
    void builtinHandwritten();
    void stopStrings_data();
    void stopStrings();
    void detectFallback_data();
    void detectFallback();
    void chooseFormat();
    void formatNames();
    void sharedModels_data();
    void sharedModels();
    void writtenModels();
    void messageValidation();
    void messageFields();
    void kwargsOptions();
    void reasoningFacts_data();
    void reasoningFacts();
    void apiRendersMessageFields_data();
    void apiRendersMessageFields();
    void apiHarmonyFormat();
    void truncatedTemplates();
    void cliRendersCases_data();
    void cliRendersCases();
    void cliErrors();
    void cliModel();
    void cliChat();

private:
    QTemporaryDir m_dir;
};

void TestChatTemplate::referenceCases_data()
{
    caseRows();
    if (!test::sharedAvailable())
        QTest::newRow("no-shared") << QString() << -1;
}

void TestChatTemplate::referenceCases()
{
    QFETCH(QString, set);
    QFETCH(int, index);
    if (index < 0)
        BURROW_REQUIRE_SHARED("templates/cases.json");
    const auto &c = cases(set).find("cases")->array[size_t(index)];
    const QString relative = set + "/" + QString::fromStdString(str(c, "template"));
    BURROW_REQUIRE_SHARED(relative);   // a case may name a template the folder lacks
    auto t = ChatTemplate::parse(toStd(readAll(test::sharedPath(relative))));
    QVERIFY2(t.isOk(), t.message().c_str());
    auto out = t->apply(*c.find("messages"), inputsFor(c, set));
    if (c.find("error")) {
        QVERIFY2(!out.isOk(), "expected an error");
        QVERIFY2(out.message().find(str(c, "error")) != std::string::npos, out.message().c_str());
        // The position of the failing expression is named.
        QVERIFY2(out.message().rfind("chat template:", 0) == 0, out.message().c_str());
    } else {
        QVERIFY2(out.isOk(), out.message().c_str());
        QCOMPARE(QString::fromStdString(*out), QString::fromStdString(str(c, "expected")));
    }
}

// A built-in fallback renders exactly like the published template of its
// family, on every reference conversation that template accepts.
void TestChatTemplate::builtinMatchesReference_data()
{
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("reference");
    QTest::newRow("chatml") << "chatml" << "chatml.jinja";
    QTest::newRow("llama2") << "llama2" << "llama-2-chat.jinja";
    QTest::newRow("zephyr") << "zephyr" << "zephyr.jinja";
    QTest::newRow("phi3") << "phi3" << "microsoft-Phi-3.5-mini-instruct.jinja";
    QTest::newRow("gemma") << "gemma" << "google-gemma-2-2b-it.jinja";
}

void TestChatTemplate::builtinMatchesReference()
{
    BURROW_REQUIRE_SHARED("templates/cases.json");
    QFETCH(QString, format);
    QFETCH(QString, reference);
    const auto kind = chatFormatFromName(format.toStdString());
    QVERIFY(kind);
    auto t = ChatTemplate::parse(builtinTemplateText(*kind));
    QVERIFY2(t.isOk(), t.message().c_str());
    int compared = 0;
    for (const auto &c : cases().find("cases")->array) {
        if (QString::fromStdString(str(c, "template")) != reference || c.find("error"))
            continue;
        auto out = t->apply(*c.find("messages"), inputsFor(c));
        QVERIFY2(out.isOk(), out.message().c_str());
        QCOMPARE(QString::fromStdString(*out), QString::fromStdString(str(c, "expected")));
        ++compared;
    }
    QVERIFY(compared >= 2);
}

// Formats without a reference template here, written from each family's markup.
void TestChatTemplate::builtinHandwritten_data()
{
    QTest::addColumn<QString>("format");
    QTest::addColumn<bool>("withSystem");
    QTest::addColumn<bool>("generationPrompt");
    QTest::addColumn<QString>("expected");
    QTest::newRow("llama3") << "llama3" << true << true
        << "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
           "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
           "Hello!<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nBye<|eot_id|>"
           "<|start_header_id|>assistant<|end_header_id|>\n\n";
    QTest::newRow("llama3 closed") << "llama3" << false << false
        << "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
           "<|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nBye<|eot_id|>";
    QTest::newRow("mistral") << "mistral" << true << true
        << "<s>[INST] Be brief.\n\nHi [/INST]Hello!</s>[INST] Bye [/INST]";
    QTest::newRow("gemma with system") << "gemma" << true << true
        << "<s><start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n<start_of_turn>model\nHello!<end_of_turn>\n"
           "<start_of_turn>user\nBye<end_of_turn>\n<start_of_turn>model\n";
    QTest::newRow("chatml") << "chatml" << true << false
        << "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n"
           "<|im_start|>user\nBye<|im_end|>\n";
}

void TestChatTemplate::builtinHandwritten()
{
    QFETCH(QString, format);
    QFETCH(bool, withSystem);
    QFETCH(bool, generationPrompt);
    QFETCH(QString, expected);
    const auto kind = chatFormatFromName(format.toStdString());
    QVERIFY(kind);
    auto t = ChatTemplate::parse(builtinTemplateText(*kind));
    QVERIFY2(t.isOk(), t.message().c_str());
    std::vector<chat::ChatMessage> conv;
    if (withSystem)
        conv.push_back({"system", "Be brief."});
    conv.push_back({"user", "Hi"});
    conv.push_back({"assistant", "Hello!"});
    conv.push_back({"user", "Bye"});
    ChatTemplateInputs in;
    in.addGenerationPrompt = generationPrompt;
    const bool llama3 = format == "llama3";
    in.specialTokens = {{"bos_token", llama3 ? "<|begin_of_text|>" : "<s>"}, {"eos_token", llama3 ? "<|eot_id|>" : "</s>"}};
    auto out = t->apply(conv, in);
    QVERIFY2(out.isOk(), out.message().c_str());
    QCOMPARE(QString::fromStdString(*out), expected);
}

void TestChatTemplate::stopStrings_data()
{
    QTest::addColumn<QString>("templateFile");
    QTest::addColumn<QString>("eos");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("chatml") << "chatml.jinja" << "<|im_end|>" << QStringList{"<|im_end|>"};
    QTest::newRow("qwen2.5") << "Qwen-Qwen2.5-7B-Instruct.jinja" << "<|endoftext|>" << QStringList{"<|im_end|>", "<|endoftext|>"};
    QTest::newRow("llama3.1") << "meta-llama-Llama-3.1-8B-Instruct.jinja" << "<|eot_id|>" << QStringList{"<|eot_id|>", "<|eom_id|>"};
    QTest::newRow("gemma2") << "google-gemma-2-2b-it.jinja" << "<eos>" << QStringList{"<end_of_turn>", "<eos>"};
    QTest::newRow("phi3.5") << "microsoft-Phi-3.5-mini-instruct.jinja" << "<|endoftext|>" << QStringList{"<|end|>", "<|endoftext|>"};
    QTest::newRow("command-r") << "CohereForAI-c4ai-command-r-plus-tool_use.jinja" << "<|END_OF_TURN_TOKEN|>" << QStringList{"<|END_OF_TURN_TOKEN|>"};
    QTest::newRow("deepseek-r1") << "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja" << "<｜end▁of▁sentence｜>"
                                 << QStringList{"<｜end▁of▁sentence｜>"};
    QTest::newRow("llama2") << "llama-2-chat.jinja" << "</s>" << QStringList{"</s>"};
}

void TestChatTemplate::stopStrings()
{
    BURROW_REQUIRE_SHARED("templates/cases.json");
    QFETCH(QString, templateFile);
    QFETCH(QString, eos);
    QFETCH(QStringList, expected);
    const std::string text = toStd(readAll(test::sharedPath("templates/" + templateFile)));
    QVERIFY(!text.empty());
    QStringList got;
    for (const auto &s : stopStringsFor(text, eos.toStdString()))
        got << QString::fromStdString(s);
    QCOMPARE(got, expected);
}

void TestChatTemplate::detectFallback_data()
{
    QTest::addColumn<QString>("architecture");
    QTest::addColumn<QStringList>("vocab");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<bool>("byVocabulary");
    QTest::newRow("chatml tokens on llama") << "llama" << QStringList{"<s>", "</s>", "<|im_start|>", "<|im_end|>"} << "chatml" << true;
    QTest::newRow("llama3 tokens") << "llama" << QStringList{"<|begin_of_text|>", "<|start_header_id|>", "<|eot_id|>"} << "llama3" << true;
    QTest::newRow("gemma tokens") << "gemma2" << QStringList{"<bos>", "<start_of_turn>", "<end_of_turn>"} << "gemma" << true;
    QTest::newRow("phi3 tokens") << "phi3" << QStringList{"<s>", "<|assistant|>", "<|end|>"} << "phi3" << true;
    QTest::newRow("mistral tokens") << "llama" << QStringList{"<s>", "</s>", "[INST]", "[/INST]"} << "mistral" << true;
    QTest::newRow("gemma by architecture") << "gemma2" << QStringList{"<s>", "</s>"} << "gemma" << false;
    QTest::newRow("gemma3 by architecture") << "gemma3" << QStringList{} << "gemma" << false;
    QTest::newRow("phi3 by architecture") << "phi3" << QStringList{"<s>"} << "phi3" << false;
    QTest::newRow("qwen2 by architecture") << "qwen2" << QStringList{"<s>", "</s>"} << "chatml" << false;
    QTest::newRow("llama 2 vocabulary") << "llama" << QStringList{"<unk>", "<s>", "</s>"} << "llama2" << false;
    QTest::newRow("unknown") << "falcon" << QStringList{"<|endoftext|>"} << "chatml" << false;
    QTest::newRow("no vocabulary") << "" << QStringList{} << "chatml" << false;
}

void TestChatTemplate::detectFallback()
{
    QFETCH(QString, architecture);
    QFETCH(QStringList, vocab);
    QFETCH(QString, expected);
    QFETCH(bool, byVocabulary);
    std::string why;
    bool fromVocab = !byVocabulary;
    const auto kind = detectFallbackFormat(architecture.toStdString(), vocabOf(vocab), &why, &fromVocab);
    QCOMPARE(QString(chatFormatName(kind)), expected);
    QVERIFY(!why.empty());
    QCOMPARE(fromVocab, byVocabulary);
}

void TestChatTemplate::chooseFormat()
{
    const auto vocab = vocabOf({"<|im_start|>", "<|im_end|>"});
    ChatFormatInputs in;
    in.architecture = "llama";
    in.vocabHas = vocab;
    in.eosText = "</s>";

    in.templateText = "{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}";
    auto own = chooseChatFormat(in);
    QVERIFY2(own.isOk(), own.message().c_str());
    QCOMPARE(own->kind, ChatFormatKind::CHAT_FORMAT_KIND_MODEL);
    QCOMPARE(QString::fromStdString(own->name), QStringLiteral("model"));
    auto rendered = own->chatTemplate.apply(std::vector<chat::ChatMessage>{{"user", "x"}}, {});
    QVERIFY(rendered.isOk());
    QCOMPARE(QString::fromStdString(*rendered), QStringLiteral("[user]x"));
    QCOMPARE(own->stopStrings, std::vector<std::string>{"</s>"});

    in.templateText = "{% for m in messages %}{{ m.content }";   // does not parse
    auto broken = chooseChatFormat(in);
    QVERIFY(broken.isOk());
    QCOMPARE(broken->kind, ChatFormatKind::CHAT_FORMAT_KIND_CHATML);
    QVERIFY2(broken->reason.find("does not parse") != std::string::npos, broken->reason.c_str());
    QVERIFY2(broken->reason.find("1:") != std::string::npos, broken->reason.c_str());   // the parse error's position
    QCOMPARE(broken->stopStrings, (std::vector<std::string>{"<|im_end|>", "</s>"}));

    in.templateText.clear();
    auto none = chooseChatFormat(in);
    QVERIFY(none.isOk());
    QCOMPARE(none->kind, ChatFormatKind::CHAT_FORMAT_KIND_CHATML);
    QVERIFY2(none->reason.find("no chat template") != std::string::npos, none->reason.c_str());

    in.templateText = "{{ messages[0].content }}";
    in.forced = ChatFormatKind::CHAT_FORMAT_KIND_LLAMA3;
    in.eotText = "<|eot_id|>";
    auto forced = chooseChatFormat(in);
    QVERIFY(forced.isOk());
    QCOMPARE(forced->kind, ChatFormatKind::CHAT_FORMAT_KIND_LLAMA3);
    QVERIFY2(forced->reason.find("chosen by the user") != std::string::npos, forced->reason.c_str());
    QCOMPARE(forced->stopStrings, (std::vector<std::string>{"<|eot_id|>", "</s>"}));

    in.forced = ChatFormatKind::CHAT_FORMAT_KIND_MODEL;
    in.templateText = "{% if %}";
    auto forcedBroken = chooseChatFormat(in);
    QVERIFY(!forcedBroken.isOk());
    QVERIFY2(forcedBroken.message().find("does not parse") != std::string::npos, forcedBroken.message().c_str());
}

void TestChatTemplate::formatNames()
{
    for (ChatFormatKind kind : builtinChatFormats()) {
        const auto back = chatFormatFromName(chatFormatName(kind));
        QVERIFY(back);
        QCOMPARE(*back, kind);
        QVERIFY(ChatTemplate::parse(builtinTemplateText(kind)).isOk());
    }
    QCOMPARE(builtinChatFormats().size(), size_t(7));
    QCOMPARE(chatFormatFromName("Llama-3"), std::optional<ChatFormatKind>(ChatFormatKind::CHAT_FORMAT_KIND_LLAMA3));
    QCOMPARE(chatFormatFromName("phi-3"), std::optional<ChatFormatKind>(ChatFormatKind::CHAT_FORMAT_KIND_PHI3));
    QVERIFY(!chatFormatFromName("vicuna"));
}

// What the GGUF files in ../shared carry: which have a template, and which
// fallback the others get.
void TestChatTemplate::sharedModels_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("stop");   // one stop string that must be present
    QTest::newRow("stories260K") << "models/stories260K.gguf" << "llama2" << "</s>";
    QTest::newRow("synthetic llama") << "models/synthetic/llama-Q4_K_M.gguf" << "llama2" << "</s>";
    QTest::newRow("synthetic qwen2") << "models/synthetic/qwen2-Q4_K_M.gguf" << "chatml" << "<|im_end|>";
    QTest::newRow("synthetic gemma2") << "models/synthetic/gemma2-Q4_K_M.gguf" << "gemma" << "<end_of_turn>";
    QTest::newRow("synthetic phi3") << "models/synthetic/phi3-Q4_K_M.gguf" << "model" << "<|end|>";
    QTest::newRow("bench llama") << "models/bench/llama-155M-Q4_K_M.gguf" << "llama2" << "</s>";
    QTest::newRow("vocab llama-bpe") << "tokenizer/ggml-vocab-llama-bpe.gguf" << "model" << "<|eot_id|>";
    QTest::newRow("vocab qwen2") << "tokenizer/ggml-vocab-qwen2.gguf" << "model" << "<|im_end|>";
    QTest::newRow("vocab phi-3") << "tokenizer/ggml-vocab-phi-3.gguf" << "model" << "<|end|>";
    QTest::newRow("vocab llama-spm") << "tokenizer/ggml-vocab-llama-spm.gguf" << "llama2" << "</s>";
    QTest::newRow("vocab gpt-2") << "tokenizer/ggml-vocab-gpt-2.gguf" << "chatml" << "<|endoftext|>";
    QTest::newRow("vocab falcon") << "tokenizer/ggml-vocab-falcon.gguf" << "chatml" << "<|im_end|>";
    QTest::newRow("vocab starcoder") << "tokenizer/ggml-vocab-starcoder.gguf" << "chatml" << "<|endoftext|>";
    QTest::newRow("vocab deepseek-llm") << "tokenizer/ggml-vocab-deepseek-llm.gguf" << "chatml" << "<｜end▁of▁sentence｜>";
}

void TestChatTemplate::sharedModels()
{
    QFETCH(QString, file);
    QFETCH(QString, format);
    QFETCH(QString, stop);
    BURROW_REQUIRE_SHARED(file);
    auto facts = readChatFacts(test::sharedPath(file).toStdString());
    QVERIFY2(facts.isOk(), facts.message().c_str());
    QCOMPARE(facts->templateText.empty(), format != "model");
    auto choice = chooseChatFormat(facts->formatInputs());
    QVERIFY2(choice.isOk(), choice.message().c_str());
    QCOMPARE(QString::fromStdString(choice->name), format);
    QVERIFY(!choice->reason.empty());
    QVERIFY2(std::find(choice->stopStrings.begin(), choice->stopStrings.end(), stop.toStdString()) != choice->stopStrings.end(),
             qPrintable(stop));
    // The choice renders a conversation with the file's own special tokens.
    ChatTemplateInputs in;
    in.addGenerationPrompt = true;
    in.specialTokens = facts->specialTokens;
    auto out = choice->chatTemplate.apply(std::vector<chat::ChatMessage>{{"user", "Hello"}}, in);
    QVERIFY2(out.isOk(), out.message().c_str());
    QVERIFY(out->find("Hello") != std::string::npos);
    if (!facts->specialToken("bos_token").empty() && format == "llama2")
        QVERIFY(out->rfind(facts->specialToken("bos_token"), 0) == 0);
}

void TestChatTemplate::writtenModels()
{
    QVERIFY(m_dir.isValid());
    auto write = [&](const QString &name, const std::string &templateText, const std::vector<std::string> &tokens) {
        gguf::GgufWriter w;
        w.addString("general.architecture", "llama");
        if (!templateText.empty())
            w.addString("tokenizer.chat_template", templateText);
        w.addString("tokenizer.ggml.model", "gpt2");
        w.addStringArray("tokenizer.ggml.tokens", tokens);
        w.addU32("tokenizer.ggml.bos_token_id", 0);
        w.addU32("tokenizer.ggml.eos_token_id", 1);
        w.addU32("tokenizer.ggml.padding_token_id", 0xFFFFFFFFu);   // "none"
        const QString path = m_dir.filePath(name);
        const Status s = w.writeFile(path.toStdString());
        return s.isOk() ? path : QString();
    };
    const QString own = write("own.gguf", "{{ bos_token }}{% for m in messages %}<{{ m.role }}>{{ m.content }}{{ eos_token }}{% endfor %}",
                              {"<B>", "<E>", "<|im_start|>", "<|im_end|>"});
    QVERIFY(!own.isEmpty());
    auto facts = readChatFacts(own.toStdString());
    QVERIFY2(facts.isOk(), facts.message().c_str());
    QCOMPARE(QString::fromStdString(facts->specialToken("bos_token")), QStringLiteral("<B>"));
    QCOMPARE(QString::fromStdString(facts->specialToken("eos_token")), QStringLiteral("<E>"));
    QVERIFY(facts->specialToken("pad_token").empty());
    auto choice = chooseChatFormat(facts->formatInputs());
    QVERIFY(choice.isOk());
    QCOMPARE(choice->kind, ChatFormatKind::CHAT_FORMAT_KIND_MODEL);
    ChatTemplateInputs in;
    in.specialTokens = facts->specialTokens;
    auto out = choice->chatTemplate.apply(std::vector<chat::ChatMessage>{{"user", "hi"}}, in);
    QVERIFY(out.isOk());
    QCOMPARE(QString::fromStdString(*out), QStringLiteral("<B><user>hi<E>"));

    const QString broken = write("broken.gguf", "{% for m in messages %}", {"<B>", "<E>", "<|im_start|>", "<|im_end|>"});
    auto brokenFacts = readChatFacts(broken.toStdString());
    QVERIFY(brokenFacts.isOk());
    auto fallback = chooseChatFormat(brokenFacts->formatInputs());
    QVERIFY(fallback.isOk());
    QCOMPARE(fallback->kind, ChatFormatKind::CHAT_FORMAT_KIND_CHATML);
    QVERIFY2(fallback->reason.find("endfor") != std::string::npos, fallback->reason.c_str());
}

void TestChatTemplate::messageValidation()
{
    const ChatTemplate empty;   // never parsed: an error, not a crash
    QVERIFY(!empty.apply(std::vector<chat::ChatMessage>{{"user", "x"}}, {}).isOk());

    auto t = ChatTemplate::parse("{{ messages | length }}");
    QVERIFY(t.isOk());
    auto notList = json::parseJson(R"({"role": "user"})");
    QVERIFY(notList.isOk());
    auto r = t->apply(*notList, {});
    QVERIFY(!r.isOk());
    QVERIFY2(r.message().find("array") != std::string::npos, r.message().c_str());
    auto noRole = json::parseJson(R"([{"role": "user", "content": "a"}, {"content": "b"}])");
    QVERIFY(noRole.isOk());
    r = t->apply(*noRole, {});
    QVERIFY(!r.isOk());
    QVERIFY2(r.message().find("messages[1]") != std::string::npos, r.message().c_str());
    // Extra fields and non-string content reach the template unchanged.
    auto extra = json::parseJson(R"([{"role": "tool", "content": {"b": 1, "a": [true, null]}, "name": "calc"}])");
    QVERIFY(extra.isOk());
    auto t2 = ChatTemplate::parse("{{ messages[0].name }}:{{ messages[0].content | tojson }}");
    QVERIFY(t2.isOk());
    r = t2->apply(*extra, {});
    QVERIFY2(r.isOk(), r.message().c_str());
    QCOMPARE(QString::fromStdString(*r), QStringLiteral("calc:{\"b\": 1, \"a\": [true, null]}"));
}

// The message fields the API carries: reasoning as both reasoning_content and
// thinking, extra fields as written (they win), order kept; a bad extraJson
// is refused naming the message.
void TestChatTemplate::messageFields()
{
    std::vector<chat::ChatMessage> msgs = {
        {"user", "Hi", "", ""},
        {"assistant", "Hello", "I should greet.", R"({"tool_calls": [{"name": "f"}], "name": "bot"})"},
        {"assistant", "x", "r", R"({"thinking": "other", "content": null})"},
    };
    auto list = messagesToJson(msgs);
    QVERIFY2(list, list.message().c_str());
    QCOMPARE(QString::fromStdString(json::toJsonString(*list)),
             QStringLiteral(R"([{"role":"user","content":"Hi"},)"
                            R"({"role":"assistant","content":"Hello","reasoning_content":"I should greet.","thinking":"I should greet.","tool_calls":[{"name":"f"}],"name":"bot"},)"
                            R"({"role":"assistant","content":null,"reasoning_content":"r","thinking":"other"}])"));
    auto t = ChatTemplate::parse("{% for m in messages %}{{ m.role }}|{{ m.reasoning_content is defined }}|"
                                 "{{ m.thinking | default('-') }}|{{ m.tool_calls | default([]) | length }};{% endfor %}");
    QVERIFY(t);
    auto out = t->apply(msgs, {});
    QVERIFY2(out, out.message().c_str());
    QCOMPARE(QString::fromStdString(*out), QStringLiteral("user|False|-|0;assistant|True|I should greet.|1;assistant|True|other|0;"));

    msgs[1].extraJson = "[1, 2]";
    auto bad = messagesToJson(msgs);
    QVERIFY(!bad);
    QVERIFY2(bad.message().find("messages[1]") != std::string::npos && bad.message().find("object") != std::string::npos,
             bad.message().c_str());
    msgs[1].extraJson = "{\"a\": ";
    bad = messagesToJson(msgs);
    QVERIFY(!bad);
    QVERIFY2(bad.message().find("messages[1]") != std::string::npos, bad.message().c_str());
}

// Template kwargs: a JSON object, the typed shortcuts on top, the
// conversation's own variables refused; kwargs win over special tokens.
void TestChatTemplate::kwargsOptions()
{
    auto k = templateKwargs(R"({"enable_thinking": true, "tools": [], "reasoning_effort": "low"})", false, "high");
    QVERIFY2(k, k.message().c_str());
    QCOMPARE(QString::fromStdString(json::toJsonString(*k)),
             QStringLiteral(R"({"enable_thinking":false,"tools":[],"reasoning_effort":"high"})"));
    k = templateKwargs("", std::nullopt, "");
    QVERIFY(k);
    QVERIFY(k->isObject() && k->object.empty());
    k = templateKwargs("", true, "medium");
    QVERIFY(k);
    QCOMPARE(QString::fromStdString(json::toJsonString(*k)), QStringLiteral(R"({"enable_thinking":true,"reasoning_effort":"medium"})"));
    for (const char *bad : {"[1]", "3", "{\"a\":", R"({"messages": []})", R"({"add_generation_prompt": true})"}) {
        auto r = templateKwargs(bad);
        QVERIFY2(!r, bad);
        QVERIFY2(r.message().find("template kwargs") != std::string::npos, r.message().c_str());
    }
    auto t = ChatTemplate::parse("{{ bos_token }}{{ enable_thinking }}{{ add_generation_prompt }}");
    QVERIFY(t);
    ChatTemplateInputs in;
    in.specialTokens = {{"bos_token", "<s>"}};
    in.extraContext = *templateKwargs(R"({"bos_token": "<B>"})", false);
    auto out = t->apply(std::vector<chat::ChatMessage>{{"user", "x", "", ""}}, in);
    QVERIFY2(out, out.message().c_str());
    QCOMPARE(QString::fromStdString(*out), QStringLiteral("<B>FalseFalse"));
}

void TestChatTemplate::reasoningFacts_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("syntax");
    QTest::addColumn<bool>("enableThinking");
    QTest::addColumn<bool>("reasoningEffort");
    const int NONE = int(ReasoningSyntax::REASONING_SYNTAX_NONE);
    const int THINK = int(ReasoningSyntax::REASONING_SYNTAX_THINK_TAGS);
    const int HARMONY = int(ReasoningSyntax::REASONING_SYNTAX_HARMONY);
    QTest::newRow("qwen3") << "templates-2026/Qwen-Qwen3.jinja" << THINK << true << false;
    QTest::newRow("gpt-oss") << "templates-2026/openai-gpt-oss.jinja" << HARMONY << false << true;
    QTest::newRow("gemma3") << "templates-2026/google-gemma-3.jinja" << NONE << false << false;
    QTest::newRow("deepseek-v3") << "templates-2026/deepseek-v3.jinja" << NONE << false << false;
    QTest::newRow("llama3") << "templates-2026/meta-llama-3-8b-instruct.jinja" << NONE << false << false;
    QTest::newRow("r1-distill-qwen") << "templates/deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja" << THINK << false << false;
    QTest::newRow("qwen2.5") << "templates/Qwen-Qwen2.5-7B-Instruct.jinja" << NONE << false << false;
}

// What a format tells the app about reasoning: the syntax from the template
// text, and whether it reads enable_thinking / reasoning_effort (from the
// parsed tree); built-in fallbacks say none. Harmony's stop strings never
// hold <|end|> (it only ends a channel).
void TestChatTemplate::reasoningFacts()
{
    QFETCH(QString, file);
    QFETCH(int, syntax);
    QFETCH(bool, enableThinking);
    QFETCH(bool, reasoningEffort);
    BURROW_REQUIRE_SHARED(file);
    ChatFormatInputs in;
    in.templateText = toStd(readAll(test::sharedPath(file)));
    in.eosText = "<|return|>";
    auto choice = chooseChatFormat(in);
    QVERIFY2(choice, choice.message().c_str());
    QCOMPARE(choice->kind, ChatFormatKind::CHAT_FORMAT_KIND_MODEL);
    QCOMPARE(int(choice->reasoning), syntax);
    QCOMPARE(choice->readsEnableThinking, enableThinking);
    QCOMPARE(choice->readsReasoningEffort, reasoningEffort);
    QCOMPARE(int(reasoningSyntaxOf(in.templateText)), syntax);
    const auto &stops = choice->stopStrings;
    if (syntax == int(ReasoningSyntax::REASONING_SYNTAX_HARMONY)) {
        QVERIFY(std::find(stops.begin(), stops.end(), "<|end|>") == stops.end());
        QVERIFY(std::find(stops.begin(), stops.end(), "<|return|>") != stops.end());
        QVERIFY(std::find(stops.begin(), stops.end(), "<|call|>") != stops.end());
    }
    // A built-in format forced on the same inputs knows nothing of reasoning.
    in.forced = ChatFormatKind::CHAT_FORMAT_KIND_CHATML;
    auto builtin = chooseChatFormat(in);
    QVERIFY(builtin);
    QCOMPARE(builtin->reasoning, ReasoningSyntax::REASONING_SYNTAX_NONE);
    QVERIFY(!builtin->readsEnableThinking && !builtin->readsReasoningEffort);
}

void TestChatTemplate::apiRendersMessageFields_data()
{
    QTest::addColumn<int>("index");
    QTest::addColumn<bool>("typed");   // enable_thinking through RenderOptions::enableThinking, else kwargsJson
    if (!test::sharedAvailable() || !cases("templates-2026").find("cases"))
        return;
    const auto &list = cases("templates-2026").find("cases")->array;
    for (size_t i = 0; i < list.size(); ++i) {
        if (str(list[i], "template") != "Qwen-Qwen3.jinja")
            continue;   // the others write the date or the fixture's bos/eos texts
        const QString name = QString::fromStdString(str(list[i], "conversation")) + QStringLiteral(" #%1").arg(i);
        QTest::newRow(qPrintable(name + " kwargsJson")) << int(i) << false;
        QTest::newRow(qPrintable(name + " typed")) << int(i) << true;
    }
}

// burrow::renderChat on a model carrying the Qwen3 template: the message
// fields (reasoning, extraJson) and the kwargs reach the template, and the
// render is the fixture's, byte for byte.
void TestChatTemplate::apiRendersMessageFields()
{
    BURROW_REQUIRE_SHARED("templates-2026/Qwen-Qwen3.jinja");
    QFETCH(int, index);
    QFETCH(bool, typed);
    const auto &c = cases("templates-2026").find("cases")->array[size_t(index)];
    auto model = tinyModelWithTemplate(m_dir, QStringLiteral("qwen3-template.gguf"),
                                       toStd(readAll(test::sharedPath("templates-2026/Qwen-Qwen3.jinja"))));
    QVERIFY(model);
    std::vector<burrow::ChatMessage> msgs;
    for (const auto &m : c.find("messages")->array)
        msgs.push_back(apiMessage(m));
    RenderOptions options;
    options.addGenerationPrompt = c.find("add_generation_prompt")->boolean;
    if (const auto *kwargs = c.find("kwargs")) {
        if (typed) {
            if (const auto *e = kwargs->find("enable_thinking"))
                options.enableThinking = e->boolean;
        } else {
            options.kwargsJson = json::toJsonString(*kwargs);
        }
    }
    ChatFormat used;
    auto out = renderChat(*model, msgs, options, &used);
    QVERIFY2(out, out.message().c_str());
    QCOMPARE(QString::fromStdString(*out), QString::fromStdString(str(c, "expected")));
    QCOMPARE(used.reasoning, ReasoningSyntax::REASONING_SYNTAX_THINK_TAGS);
    QVERIFY(used.readsEnableThinking);
    QVERIFY(!used.readsReasoningEffort);
    auto described = chatFormatFor(*model, "auto");
    QVERIFY(described);
    QCOMPARE(described->reasoning, ReasoningSyntax::REASONING_SYNTAX_THINK_TAGS);
    // A bad kwargs text is refused, not ignored.
    options.kwargsJson = "[true]";
    QVERIFY(!renderChat(*model, msgs, options));
}

// The gpt-oss template through the API: reasoning_effort and thinking reach
// it; the format is harmony and its stop strings spare <|end|>.
void TestChatTemplate::apiHarmonyFormat()
{
    BURROW_REQUIRE_SHARED("templates-2026/openai-gpt-oss.jinja");
    auto model = tinyModelWithTemplate(m_dir, QStringLiteral("gpt-oss-template.gguf"),
                                       toStd(readAll(test::sharedPath("templates-2026/openai-gpt-oss.jinja"))));
    QVERIFY(model);
    auto format = chatFormatFor(*model, "auto");
    QVERIFY2(format, format.message().c_str());
    QCOMPARE(format->reasoning, ReasoningSyntax::REASONING_SYNTAX_HARMONY);
    QVERIFY(format->readsReasoningEffort);
    QVERIFY(!format->readsEnableThinking);
    QVERIFY(std::find(format->stopStrings.begin(), format->stopStrings.end(), "<|end|>") == format->stopStrings.end());
    RenderOptions options;
    options.addGenerationPrompt = true;
    options.reasoningEffort = "high";
    const std::vector<burrow::ChatMessage> msgs = {
        {"user", "What is 2+2?", "", ""},
        {"assistant", "4.", "Simple sum.", ""},
        {"user", "Thanks", "", ""},
    };
    auto out = renderChat(*model, msgs, options);
    QVERIFY2(out, out.message().c_str());
    QVERIFY2(out->find("Reasoning: high") != std::string::npos, out->c_str());
    // The last turn is a user's: the earlier final is kept, its analysis dropped.
    QVERIFY2(out->find("<|channel|>final<|message|>4.<|end|>") != std::string::npos, out->c_str());
    QVERIFY2(out->find("Simple sum.") == std::string::npos, out->c_str());
    const std::string prompt = "<|start|>assistant";
    QVERIFY2(out->size() >= prompt.size() && out->compare(out->size() - prompt.size(), prompt.size(), prompt) == 0,
             out->c_str());
}

// Every prefix (in steps) of every reference template either fails with a
// positioned message or renders; nothing crashes or hangs (also under ASan).
void TestChatTemplate::truncatedTemplates()
{
    BURROW_REQUIRE_SHARED("templates/cases.json");
    const auto conv = messages({{"system", "S"}, {"user", "U"}, {"assistant", "A"}, {"user", "V"}});
    ChatTemplateInputs in;
    in.addGenerationPrompt = true;
    in.specialTokens = {{"bos_token", "<s>"}, {"eos_token", "</s>"}};
    in.render.limits.maxSteps = 200'000;
    int parsed = 0, refused = 0;
    const QStringList files = QDir(test::sharedPath("templates")).entryList({"*.jinja"}, QDir::Files, QDir::Name);
    QVERIFY(files.size() >= 10);
    for (const QString &file : files) {
        const std::string text = toStd(readAll(test::sharedPath("templates/" + file)));
        for (size_t cut = 0; cut < text.size(); cut += 11) {
            auto t = ChatTemplate::parse(text.substr(0, cut));
            if (!t) {
                ++refused;
                QVERIFY2(t.message().rfind("chat template:", 0) == 0, t.message().c_str());
                continue;
            }
            ++parsed;
            auto out = t->apply(conv, in);
            if (!out)
                QVERIFY2(out.message().rfind("chat template:", 0) == 0, out.message().c_str());
        }
    }
    QVERIFY(parsed > 0 && refused > 0);
}

void TestChatTemplate::cliRendersCases_data()
{
    // A sample: every template with two conversations, and every case with
    // kwargs or reasoning fields (the 2026 set).
    caseRows([](const json::JsonValue &c) {
        const std::string conv = str(c, "conversation");
        return conv == "unicode" || conv == "closed_history" || c.find("kwargs");
    });
    if (!test::sharedAvailable())
        QTest::newRow("no-shared") << QString() << -1;
}

// The CLI as a process: the messages file keeps every field a message carries
// (reasoning_content, thinking), --kwargs passes the template variables.
void TestChatTemplate::cliRendersCases()
{
    QFETCH(QString, set);
    QFETCH(int, index);
    if (index < 0)
        BURROW_REQUIRE_SHARED("templates/cases.json");
    const auto &c = cases(set).find("cases")->array[size_t(index)];
    const QString relative = set + "/" + QString::fromStdString(str(c, "template"));
    BURROW_REQUIRE_SHARED(relative);
    const QString messagesFile = m_dir.filePath(QStringLiteral("messages-%1-%2.json").arg(set).arg(index));
    {
        QFile f(messagesFile);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(json::toJsonString(*c.find("messages"))));
    }
    QStringList args{"template", "--template", test::sharedPath(relative),
                     "--messages", messagesFile, "--bos", QString::fromStdString(str(c, "bos_token")),
                     "--eos", QString::fromStdString(str(c, "eos_token")), "--now", QString::number(kJul26)};
    if (c.find("add_generation_prompt")->boolean)
        args << "--add-generation-prompt";
    if (const auto *kwargs = c.find("kwargs"))
        args << "--kwargs" << QString::fromStdString(json::toJsonString(*kwargs));
    if (set == QStringLiteral("templates-2026"))
        args << "--strftime-now" << QStringLiteral("26 Jul 2024");
    const ProcessResult r = runCli(args);
    if (c.find("error")) {
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.contains(QByteArray::fromStdString(str(c, "error"))), r.err.constData());
    } else {
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, QByteArray::fromStdString(str(c, "expected")));   // exactly, no newline added
        QVERIFY(r.err.isEmpty());
    }
}

void TestChatTemplate::cliErrors()
{
    const QString messagesFile = m_dir.filePath("cli-errors.json");
    {
        QFile f(messagesFile);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"([{"role": "user", "content": "Hi"}])");
    }
    auto writeTemplate = [&](const QString &name, const QByteArray &text) {
        QFile f(m_dir.filePath(name));
        f.open(QIODevice::WriteOnly);
        f.write(text);
        return m_dir.filePath(name);
    };
    // Template errors: exit 1, position on stderr.
    ProcessResult r = runCli({"template", "--template", writeTemplate("raise.jinja", "ok\n{{ raise_exception('nope') }}"),
                              "--messages", messagesFile});
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.out.isEmpty());
    QVERIFY2(r.err.contains("raise.jinja:2:4: nope"), r.err.constData());
    r = runCli({"template", "--template", writeTemplate("syntax.jinja", "{% if x %}never closed"), "--messages", messagesFile});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("syntax.jinja:1:23: unexpected end of template, expected 'elif' or 'else' or 'endif'"), r.err.constData());
    // A built-in format, bos/eos from the command line.
    r = runCli({"template", "--format", "llama2", "--messages", messagesFile, "--bos", "<s>", "--eos", "</s>"});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out, QByteArray("<s>[INST] Hi [/INST]"));
    // Usage errors: exit 2.
    QCOMPARE(runCli({"template", "--messages", messagesFile}).exitCode, 2);
    QCOMPARE(runCli({"template", "--format", "vicuna", "--messages", messagesFile}).exitCode, 2);
    QCOMPARE(runCli({"template", "--format", "chatml"}).exitCode, 2);
    QCOMPARE(runCli({"template", "--format", "chatml", "--messages", messagesFile, "--bogus"}).exitCode, 2);
    // Bad input files: exit 1.
    r = runCli({"template", "--format", "chatml", "--messages", writeTemplate("bad.json", "[{\"role\": ")});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("bad.json:1:11:"), r.err.constData());
    QCOMPARE(runCli({"template", "--format", "chatml", "--messages", m_dir.filePath("missing.json")}).exitCode, 1);
    QCOMPARE(runCli({"template", "-m", m_dir.filePath("missing.gguf"), "--messages", messagesFile}).exitCode, 1);
    QCOMPARE(runCli({"template", "--help"}).exitCode, 0);
    // --kwargs: a JSON object; its variables reach the template.
    r = runCli({"template", "--format", "chatml", "--messages", messagesFile, "--kwargs", "[1]"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("--kwargs: template kwargs: expected a JSON object"), r.err.constData());
    QCOMPARE(runCli({"template", "--format", "chatml", "--messages", messagesFile, "--kwargs"}).exitCode, 2);
    r = runCli({"template", "--template", writeTemplate("kw.jinja", "{{ enable_thinking }}/{{ reasoning_effort }}/{{ strftime_now('%Y') }}"),
                "--messages", messagesFile, "--kwargs", R"({"enable_thinking": false, "reasoning_effort": "low"})",
                "--strftime-now", "today", "--show-format"});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out, QByteArray("False/low/today"));
    QVERIFY2(r.err.contains("reasoning: none; reads: enable_thinking, reasoning_effort"), r.err.constData());
}

void TestChatTemplate::cliModel()
{
    BURROW_REQUIRE_SHARED("tokenizer/ggml-vocab-llama-bpe.gguf");
    const QString messagesFile = m_dir.filePath("cli-model.json");
    {
        QFile f(messagesFile);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"([{"role": "user", "content": "Hi"}])");
    }
    // The vocabulary file's own (Llama 3) template with its special tokens.
    ProcessResult r = runCli({"template", "-m", test::sharedPath("tokenizer/ggml-vocab-llama-bpe.gguf"), "--messages",
                              messagesFile, "--add-generation-prompt"});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out, QByteArray("<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
                               "<|start_header_id|>assistant<|end_header_id|>\n\n"));
    QVERIFY(r.err.isEmpty());
    // A model without a template: the fallback is named on stderr, stdout stays exact.
    r = runCli({"template", "-m", test::sharedPath("tokenizer/ggml-vocab-llama-spm.gguf"), "--messages", messagesFile});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out, QByteArray("<s>[INST] Hi [/INST]"));
    QVERIFY2(r.err.contains("llama2"), r.err.constData());
    // --format overrides the model's template; --eos overrides its token.
    r = runCli({"template", "-m", test::sharedPath("tokenizer/ggml-vocab-llama-bpe.gguf"), "--messages", messagesFile,
                "--format", "chatml", "--show-format"});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out, QByteArray("<|im_start|>user\nHi<|im_end|>\n"));
    QVERIFY2(r.err.contains("format: chatml"), r.err.constData());
    QVERIFY2(r.err.contains("reasoning: none"), r.err.constData());
    // A 2026 vocabulary file with its template: what --show-format says about reasoning.
    BURROW_REQUIRE_SHARED("tokenizer-2026/ggml-vocab-qwen3.gguf");
    r = runCli({"template", "-m", test::sharedPath("tokenizer-2026/ggml-vocab-qwen3.gguf"), "--messages", messagesFile,
                "--add-generation-prompt", "--kwargs", R"({"enable_thinking": false})", "--show-format"});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out, QByteArray("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"));
    QVERIFY2(r.err.contains("reasoning: think-tags; reads: enable_thinking"), r.err.constData());
    r = runCli({"template", "-m", test::sharedPath("tokenizer-2026/ggml-vocab-gpt-oss.gguf"), "--messages", messagesFile,
                "--add-generation-prompt", "--show-format"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.contains("reasoning: harmony; reads: reasoning_effort"), r.err.constData());
    QVERIFY2(!r.err.contains("\"<|end|>\""), r.err.constData());   // not a stop string
}

// `burrow-cli chat`: the conversation is re-rendered each turn and the KV
// cache is reused for what the model has already seen; /reset forgets it.
void TestChatTemplate::cliChat()
{
    BURROW_REQUIRE_SHARED("models/stories260K.gguf");
    const ProcessResult r = runCli({"chat", "-m", test::sharedPath("models/stories260K.gguf"), "--temp", "0", "-n", "8",
                                    "--system", "Be nice.", "-t", "1"},
                                   "Hello\n\nTell me more\n/reset\nOnce upon\\\na time\n/exit\nnot read\n");
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.contains("chat format: llama2"), r.err.constData());
    QRegularExpression turn(QStringLiteral("\\[prompt (\\d+) tokens, (\\d+) reused from the cache; reply (\\d+) tokens"));
    QList<QRegularExpressionMatch> turns;
    for (auto it = turn.globalMatch(QString::fromUtf8(r.err)); it.hasNext();)
        turns << it.next();
    QCOMPARE(turns.size(), 3);   // the empty line and the commands are not turns
    QCOMPARE(turns[0].captured(2).toInt(), 0);
    QVERIFY2(turns[1].captured(2).toInt() > 0, r.err.constData());   // the second turn reuses the first
    QCOMPARE(turns[2].captured(2).toInt(), 0);                      // after /reset nothing is reused
    for (const auto &m : turns)
        QVERIFY(m.captured(3).toInt() >= 1 && m.captured(3).toInt() <= 8);
    QCOMPARE(r.out.count('\n'), 3);   // one line per reply
    QVERIFY(r.err.contains("(conversation forgotten)"));
    // Usage errors.
    QCOMPARE(runCli({"chat"}).exitCode, 2);
    QCOMPARE(runCli({"chat", "-m", "x.gguf", "--temp", "hot"}).exitCode, 2);
    QCOMPARE(runCli({"chat", "-m", m_dir.filePath("missing.gguf")}).exitCode, 1);
}

QTEST_MAIN(TestChatTemplate)
#include "tst_chat_template.moc"
