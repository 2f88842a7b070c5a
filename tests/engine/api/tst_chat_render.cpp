// Rendering a conversation for a loaded model with a chat format the caller
// chooses (burrow::RenderOptions::chatFormat): every built-in format forced on
// the synthetic models and stories260K in ../shared writes that format's
// published markup and ends turns with that format's stop texts; "auto" is the
// model's own choice; unknown names are refused with the list of valid ones.
// Also `burrow-cli chat --chat-format` and `burrow-cli template --chat-format`.
#include "burrow/engine.h"
#include "api/model_impl.h"
#include "cli_process.h"
#include "test_support.h"
#include "tiny_model.h"
#include "tokenizer/tokenizer.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <map>

using namespace burrow;

namespace {


// Loaded once per file for the whole run.
std::shared_ptr<Model> loadShared(const QString &relative)
{
    static std::map<QString, std::shared_ptr<Model>> cache;
    auto it = cache.find(relative);
    if (it != cache.end())
        return it->second;
    auto m = Model::load(test::sharedPath(relative).toStdString());
    if (!m) {
        qWarning("%s", m.message().c_str());
        return nullptr;
    }
    cache.emplace(relative, m.value());
    return m.value();
}

// The vocabulary's text of a token ("<s>", "<|endoftext|>"; tokenBytes() is
// empty for control tokens); "" for -1.
std::string tokenText(const Model &m, Token id)
{
    const auto *impl = dynamic_cast<const api::ModelImpl *>(&m);
    if (id < 0 || !impl || !impl->tokenizer())
        return {};
    return impl->tokenizer()->tokenText(id);
}

// Does the vocabulary add BOS to a prompt by itself?
bool addsBos(const Model &m)
{
    const auto tokens = m.tokenize("", true, false);
    return !tokens.empty() && tokens.front() == m.info().bosId;
}

using test::ProcessResult;
using test::runCli;

const QStringList kModels = {
    QStringLiteral("models/stories260K.gguf"),            // no template, Llama 2 vocabulary
    QStringLiteral("models/synthetic/phi3-Q4_K_M.gguf"),  // its own (Phi-3) template
    QStringLiteral("models/synthetic/qwen2-Q4_K_M.gguf"),
    QStringLiteral("models/synthetic/gemma2-Q4_K_M.gguf"),
};

const std::vector<ChatMessage> kConversation = {{"user", "Hi"}, {"assistant", "Hello"}, {"user", "Bye"}};

} // namespace

class TestChatRender : public QObject {
    Q_OBJECT

private slots:
    void formatNames()
    {
        // The formats issue #5 names, after "auto".
        QCOMPARE(chatFormatNames(), (std::vector<std::string>{"auto", "chatml", "llama2", "llama3", "gemma", "phi3",
                                                              "mistral", "zephyr"}));
    }

    // Each built-in format forced on each model: the conversation in the
    // format's published markup ({BOS}/{EOS}: the model's token texts; a
    // leading BOS is left out when the vocabulary adds it), and the stop texts
    // are the format's end-of-turn marker (first) plus the EOS text.
    void forcedFormatRenders_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<QString>("marker");   // first stop string ("" for formats that end turns with EOS)
        const struct {
            const char *format;
            const char *expected;
            const char *marker;
        } formats[] = {
            {"chatml",
             "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello<|im_end|>\n<|im_start|>user\nBye<|im_end|>\n"
             "<|im_start|>assistant\n",
             "<|im_end|>"},
            {"llama2", "{BOS}[INST] Hi [/INST] Hello {EOS}{BOS}[INST] Bye [/INST]", ""},
            {"llama3",
             "{BOS}<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>"
             "\n\nHello<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nBye<|eot_id|>"
             "<|start_header_id|>assistant<|end_header_id|>\n\n",
             "<|eot_id|>"},
            {"gemma",
             "{BOS}<start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\nHello<end_of_turn>\n"
             "<start_of_turn>user\nBye<end_of_turn>\n<start_of_turn>model\n",
             "<end_of_turn>"},
            {"phi3", "<|user|>\nHi<|end|>\n<|assistant|>\nHello<|end|>\n<|user|>\nBye<|end|>\n<|assistant|>\n", "<|end|>"},
            {"mistral", "{BOS}[INST] Hi [/INST]Hello{EOS}[INST] Bye [/INST]", ""},
            {"zephyr", "<|user|>\nHi{EOS}\n<|assistant|>\nHello{EOS}\n<|user|>\nBye{EOS}\n<|assistant|>\n", ""},
        };
        for (const QString &model : kModels)
            for (const auto &f : formats)
                QTest::addRow("%s/%s", qPrintable(model.section(QLatin1Char('/'), -1)), f.format)
                    << model << QString::fromLatin1(f.format) << QString::fromUtf8(f.expected)
                    << QString::fromUtf8(f.marker);
    }

    void forcedFormatRenders()
    {
        QFETCH(QString, model);
        QFETCH(QString, format);
        QFETCH(QString, expected);
        QFETCH(QString, marker);
        BURROW_REQUIRE_SHARED(model);
        auto m = loadShared(model);
        QVERIFY(m);
        const ModelInfo &info = m->info();
        const std::string bos = tokenText(*m, info.bosId);
        const std::string eos = tokenText(*m, info.eosId);
        QVERIFY(!eos.empty());
        std::string want = expected.toStdString();
        if (want.rfind("{BOS}", 0) == 0 && addsBos(*m))
            want.erase(0, 5);
        for (auto [key, value] : {std::pair<std::string, std::string>{"{BOS}", bos}, {"{EOS}", eos}})
            for (size_t at = want.find(key); at != std::string::npos; at = want.find(key, at + value.size()))
                want.replace(at, key.size(), value);

        RenderOptions options;
        options.addGenerationPrompt = true;
        options.chatFormat = format.toStdString();
        ChatFormat used;
        auto text = renderChat(*m, kConversation, options, &used);
        QVERIFY2(text, text.message().c_str());
        QCOMPARE(QString::fromStdString(text.value()), QString::fromStdString(want));
        QCOMPARE(used.name, format.toStdString());
        QVERIFY2(used.reason.find("chosen by the user") != std::string::npos, used.reason.c_str());
        if (!marker.isEmpty()) {
            QVERIFY(!used.stopStrings.empty());
            QCOMPARE(QString::fromStdString(used.stopStrings.front()), marker);
        }
        if (!eos.empty())
            QVERIFY(std::find(used.stopStrings.begin(), used.stopStrings.end(), eos) != used.stopStrings.end());

        // The prompt tokenizes with exactly one BOS where the vocabulary adds one.
        if (addsBos(*m)) {
            const auto tokens = m->tokenize(text.value(), true, true);
            QVERIFY(tokens.size() > 2);
            QCOMPARE(tokens[0], info.bosId);
            QVERIFY(tokens[1] != info.bosId);
        }

        // chatFormatFor() names the same format without rendering; so does the
        // name in another spelling.
        auto described = chatFormatFor(*m, format.toUpper().toStdString());
        QVERIFY2(described, described.message().c_str());
        QCOMPARE(described->name, used.name);
        QCOMPARE(described->stopStrings, used.stopStrings);
    }

    // "auto" (and "") is exactly the model's own choice.
    void autoIsTheModelsChoice_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("autoFormat");
        for (const char *name : {"auto", "", "Auto"}) {
            QTest::addRow("stories/'%s'", name) << kModels[0] << QString::fromLatin1(name) << "llama2";
            QTest::addRow("phi3/'%s'", name) << kModels[1] << QString::fromLatin1(name) << "template";
        }
    }

    void autoIsTheModelsChoice()
    {
        QFETCH(QString, model);
        QFETCH(QString, name);
        QFETCH(QString, autoFormat);
        BURROW_REQUIRE_SHARED(model);
        auto m = loadShared(model);
        QVERIFY(m);
        ChatFormat plain, chosen;
        auto a = renderChat(*m, kConversation, true, &plain);
        RenderOptions options;
        options.addGenerationPrompt = true;
        options.chatFormat = name.toStdString();
        auto b = renderChat(*m, kConversation, options, &chosen);
        QVERIFY2(a, a.message().c_str());
        QVERIFY2(b, b.message().c_str());
        QCOMPARE(b.value(), a.value());
        QCOMPARE(chosen.name, autoFormat.toStdString());
        QCOMPARE(chosen.stopStrings, plain.stopStrings);
        auto described = chatFormatFor(*m, name.toStdString());
        QVERIFY2(described, described.message().c_str());
        QCOMPARE(described->name, autoFormat.toStdString());
        QVERIFY(!described->reason.empty());
    }

    // A model without a template: "auto" names the format its vocabulary's
    // chat tokens belong to, and says it came from the vocabulary; a
    // vocabulary without such tokens gives a guess by architecture, not
    // marked as from the vocabulary (an app may treat it as a base model).
    void fallbackFromVocabulary_data()
    {
        QTest::addColumn<QStringList>("controlTokens");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<bool>("fromVocabulary");
        QTest::newRow("ChatML tokens") << QStringList{"<|im_start|>", "<|im_end|>"} << "chatml" << true;
        QTest::newRow("Llama 3 tokens") << QStringList{"<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"} << "llama3" << true;
        QTest::newRow("[INST] tokens") << QStringList{"[INST]", "[/INST]"} << "mistral" << true;
        QTest::newRow("no chat tokens (llama architecture)") << QStringList{} << "llama2" << false;
    }

    void fallbackFromVocabulary()
    {
        QFETCH(QStringList, controlTokens);
        QFETCH(QString, expected);
        QFETCH(bool, fromVocabulary);
        test::TinySpec spec;
        for (const QString &t : controlTokens)
            spec.controlTokens.push_back(t.toStdString());
        const auto bytes = test::buildTinyModel(spec);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("tiny.gguf"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(reinterpret_cast<const char *>(bytes.data()), qint64(bytes.size()));
        f.close();
        auto m = Model::load(path.toStdString());
        QVERIFY2(m, m.message().c_str());
        QVERIFY(!m.value()->info().hasChatTemplate);
        auto described = chatFormatFor(*m.value(), "auto");
        QVERIFY2(described, described.message().c_str());
        QCOMPARE(QString::fromStdString(described->name), expected);
        QCOMPARE(described->fromVocabulary, fromVocabulary);
        ChatFormat used;
        auto rendered = renderChat(*m.value(), kConversation, true, &used);
        QVERIFY2(rendered, rendered.message().c_str());
        QCOMPARE(used.fromVocabulary, fromVocabulary);
        // A chosen format is the user's, never "from the vocabulary".
        auto chosen = chatFormatFor(*m.value(), "zephyr");
        QVERIFY(chosen);
        QVERIFY(!chosen->fromVocabulary);
    }

    // Aliases of the built-in names.
    void aliases_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("canonical");
        QTest::newRow("Llama-3") << "Llama-3" << "llama3";
        QTest::newRow("phi-3") << "phi-3" << "phi3";
        QTest::newRow("CHATML") << "CHATML" << "chatml";
        QTest::newRow("llama_2") << "llama_2" << "llama2";
    }

    void aliases()
    {
        QFETCH(QString, name);
        QFETCH(QString, canonical);
        BURROW_REQUIRE_SHARED(kModels[0]);
        auto m = loadShared(kModels[0]);
        QVERIFY(m);
        auto described = chatFormatFor(*m, name.toStdString());
        QVERIFY2(described, described.message().c_str());
        QCOMPARE(described->name, canonical.toStdString());
    }

    void unknownNameRefused_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("vicuna") << "vicuna";
        QTest::newRow("model") << "model";          // the chat layer's internal name, not a choice
        QTest::newRow("template") << "template";
        QTest::newRow("trailing space") << "chatml ";
        QTest::newRow("auto-detect") << "auto-detect";
    }

    void unknownNameRefused()
    {
        QFETCH(QString, name);
        BURROW_REQUIRE_SHARED(kModels[0]);
        auto m = loadShared(kModels[0]);
        QVERIFY(m);
        RenderOptions options;
        options.chatFormat = name.toStdString();
        ChatFormat used;
        used.name = "untouched";
        auto text = renderChat(*m, kConversation, options, &used);
        QVERIFY(!text);
        const std::string &message = text.message();
        QVERIFY2(message.find("unknown chat format '" + name.toStdString() + "'") != std::string::npos, message.c_str());
        for (const std::string &valid : chatFormatNames())
            QVERIFY2(message.find(valid) != std::string::npos, message.c_str());
        QCOMPARE(used.name, std::string("untouched"));
        QVERIFY(!chatFormatFor(*m, name.toStdString()));
    }

    // `burrow-cli chat --chat-format NAME` renders with that format and says so.
    void cliChatFormat_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("errContains");
        QTest::newRow("forced gemma") << QStringList{"--chat-format", "gemma"} << 0 << "chat format: gemma";
        QTest::newRow("forced chatml") << QStringList{"--chat-format", "ChatML"} << 0 << "chat format: chatml";
        QTest::newRow("auto") << QStringList{"--chat-format", "auto"} << 0 << "chat format: llama2";
        QTest::newRow("default") << QStringList{} << 0 << "chat format: llama2";
        QTest::newRow("unknown") << QStringList{"--chat-format", "vicuna"} << 2 << "unknown chat format 'vicuna'";
        QTest::newRow("no value") << QStringList{"--chat-format"} << 2 << "--chat-format";
    }

    void cliChatFormat()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, errContains);
        BURROW_REQUIRE_SHARED(kModels[0]);
        const ProcessResult r = runCli(QStringList{"chat", "-m", test::sharedPath(kModels[0]), "--temp", "0", "-n", "4",
                                                   "-t", "1"} + args,
                                       "Hello\n/exit\n");
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(r.err.contains(errContains.toUtf8()), r.err.constData());
        if (exitCode == 0)
            QCOMPARE(r.out.count('\n'), 1);   // one reply
    }

    // `burrow-cli template --chat-format` is `--format` under the chat's name.
    void cliTemplateChatFormat()
    {
        BURROW_REQUIRE_SHARED(kModels[0]);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString messages = dir.filePath(QStringLiteral("m.json"));
        QFile f(messages);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"([{"role": "user", "content": "Hi"}])");
        f.close();
        for (const char *option : {"--chat-format", "--format"}) {
            const ProcessResult r = runCli({"template", "-m", test::sharedPath(kModels[0]), "--messages", messages,
                                            QString::fromLatin1(option), "chatml"});
            QCOMPARE(r.exitCode, 0);
            QCOMPARE(r.out, QByteArray("<|im_start|>user\nHi<|im_end|>\n"));
        }
        const ProcessResult bad = runCli({"template", "-m", test::sharedPath(kModels[0]), "--messages", messages,
                                          "--chat-format", "vicuna"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("unknown"), bad.err.constData());
    }
};

QTEST_MAIN(TestChatRender)
#include "tst_chat_render.moc"
