// The per-chat "Chat format" setting end to end: the engine backend renders
// the prompt with the chosen format (stories260K has no template, so
// "auto" gives it plain text and a chosen format gives that format's
// published markup), says which format "auto" uses for a loaded model, and
// refuses an unknown name; the controller sends the chat's format with each
// request, records it with the reply and tells the settings what "auto" picks.
#include <QTemporaryDir>

#include "apptestsupport.h"
#include "settings/chatsettings.h"
#include "archive/conversationbundle.h"
#include "backend/enginebackend.h"
#include "backend/enginebridge.h"
#include "fakebackend.h"

#include "burrow/engine.h"
#include "tiny_model.h"

#include <QFile>

#include <future>

Q_IMPORT_QML_PLUGIN(BurrowPlugin)

using namespace burrow::test;

namespace {

const QString kStories = QStringLiteral("models/stories260K.gguf");
const QString kPhi3 = QStringLiteral("models/synthetic/phi3-Q4_K_M.gguf");

// The backend's reply to `request`, waited for (the scheduler runs it on its thread).
GenerationOutcome generateAndWait(ChatBackend &backend, const ChatRequest &request,
                                  const std::function<void(const PromptPlan &)> &onPlan)
{
    std::promise<GenerationOutcome> done;
    auto result = done.get_future();
    ChatBackend::ReplySinks sinks;
    sinks.onText = [](const QString &, int, bool) { return true; };
    sinks.onPromptProgress = [](int, int) {};
    sinks.onPlan = onPlan;
    sinks.onDone = [&done](const GenerationOutcome &outcome) { done.set_value(outcome); };
    backend.generate(request, std::move(sinks));
    return result.get();
}

struct AbortOnExit {
    std::shared_ptr<FakeControl> control;
    ~AbortOnExit() { control->abort = true; }
};

} // namespace

class TestChatFormat : public QObject {
    Q_OBJECT

    std::shared_ptr<FakeControl> m_control;
    QTemporaryDir m_dir;

    ChatRequest request(const QString &chatFormat) const
    {
        ChatRequest r;
        r.id = 1;
        r.messages = {{"user", "Hi", {}, {}}};
        r.rows = {0};
        r.settings.systemPrompt = "Be brief.";
        r.settings.sampling.temperature = 0;
        r.settings.maxTokens = 2;
        r.settings.contextSize = 256;
        r.settings.chatFormat = chatFormat.toStdString();
        r.cancel = std::make_shared<burrow::CancelToken>();
        return r;
    }

private Q_SLOTS:
    void init()
    {
        m_control = std::make_shared<FakeControl>();
        m_control->gated = false;
    }

    void cleanup() { EngineBridge::resetBackendFactory(); }

    // The prompt the backend builds for [system "Be brief.", user "Hi"]: its
    // token count equals the count of the format's published markup (or of
    // the plain text for "auto"), tokenized as the backend does.
    void backendRendersWithTheChosenFormat_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("expectedFormat");   // PromptPlan::chatFormat
        QTest::addColumn<QString>("expectedText");     // without the BOS the vocabulary adds
        QTest::addColumn<bool>("usesTemplate");
        QTest::newRow("auto: plain text") << "auto" << "plain" << "Be brief.\nHi" << false;
        QTest::newRow("chatml") << "chatml" << "chatml"
                                << "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
                                   "<|im_start|>assistant\n"
                                << true;
        QTest::newRow("llama2") << "llama2" << "llama2" << "[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nHi [/INST]" << true;
        QTest::newRow("llama3") << "llama3" << "llama3"
                                << "<|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
                                   "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
                                   "<|start_header_id|>assistant<|end_header_id|>\n\n"
                                << true;
        QTest::newRow("gemma") << "gemma" << "gemma"
                               << "<start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n<start_of_turn>model\n" << true;
        QTest::newRow("zephyr") << "zephyr" << "zephyr" << "<|system|>\nBe brief.</s>\n<|user|>\nHi</s>\n<|assistant|>\n"
                                << true;
        QTest::newRow("any case") << "Phi3" << "phi3" << "<|system|>\nBe brief.<|end|>\n<|user|>\nHi<|end|>\n<|assistant|>\n"
                                  << true;
    }

    void backendRendersWithTheChosenFormat()
    {
        QFETCH(QString, format);
        QFETCH(QString, expectedFormat);
        QFETCH(QString, expectedText);
        QFETCH(bool, usesTemplate);
        BURROW_REQUIRE_SHARED(kStories);
        const QString path = sharedPath(kStories);
        auto model = burrow::Model::load(path.toStdString());
        QVERIFY2(model, model.message().c_str());
        const bool plain = !usesTemplate;
        const size_t expectedTokens =
            model.value()->tokenize(expectedText.toStdString(), true, /*parseSpecial=*/!plain).size();

        EngineBackend backend;
        QString error;
        QVERIFY2(backend.load(path, 256, {}, &error), qPrintable(error));
        QVERIFY(!backend.loadedModel().hasChatTemplate);
        QCOMPARE(backend.loadedModel().chatFormat, QStringLiteral("plain"));   // no template, no chat tokens: plain text
        PromptPlan plan;
        bool planned = false;
        const GenerationOutcome outcome = generateAndWait(backend, request(format), [&](const PromptPlan &p) {
                plan = p;
                planned = true;
            });
        QVERIFY2(outcome.stop != GenerationOutcome::Stop::Error, qPrintable(outcome.error));
        QVERIFY(planned);
        QCOMPARE(plan.chatFormat != QLatin1String("plain"), usesTemplate);
        QCOMPARE(plan.chatFormat, expectedFormat);
        QCOMPARE(plan.promptTokens, int(expectedTokens));
        QVERIFY(outcome.generatedTokens >= 1 && outcome.generatedTokens <= 2);
    }

    void backendRefusesAnUnknownFormat()
    {
        BURROW_REQUIRE_SHARED(kStories);
        EngineBackend backend;
        QString error;
        QVERIFY2(backend.load(sharedPath(kStories), 256, {}, &error), qPrintable(error));
        bool planned = false;
        const GenerationOutcome outcome = generateAndWait(backend, request(QStringLiteral("vicuna")), [&](const PromptPlan &) { planned = true; });
        QCOMPARE(outcome.stop, GenerationOutcome::Stop::Error);
        QVERIFY2(outcome.error.contains(QStringLiteral("unknown chat format 'vicuna'")), qPrintable(outcome.error));
        QVERIFY2(outcome.error.contains(QStringLiteral("chatml")), qPrintable(outcome.error));
        QVERIFY(!planned);
    }

    // A model with its own template: "auto" names it, a chosen format replaces it.
    void backendWithATemplateModel()
    {
        BURROW_REQUIRE_SHARED(kPhi3);
        EngineBackend backend;
        QString error;
        QVERIFY2(backend.load(sharedPath(kPhi3), 256, {}, &error), qPrintable(error));
        QVERIFY(backend.loadedModel().hasChatTemplate);
        QCOMPARE(backend.loadedModel().chatFormat, QStringLiteral("template"));
        for (const auto &[format, used] : {std::pair<QString, QString>{QStringLiteral("auto"), QStringLiteral("template")},
                                           {QStringLiteral("chatml"), QStringLiteral("chatml")}}) {
            PromptPlan plan;
            const GenerationOutcome outcome = generateAndWait(backend, request(format), [&](const PromptPlan &p) { plan = p; });
            QVERIFY2(outcome.stop != GenerationOutcome::Stop::Error, qPrintable(outcome.error));
            QVERIFY(plan.chatFormat != QLatin1String("plain"));
            QCOMPARE(plan.chatFormat, used);
        }
    }

    // A model without a template but with ChatML tokens in its vocabulary (an
    // instruct model converted without its template): "auto" renders ChatML
    // and the card says so; the same model without those tokens is a base
    // model and "auto" stays plain text.
    void backendAutomaticFromVocabulary_data()
    {
        QTest::addColumn<bool>("chatTokens");
        QTest::newRow("ChatML tokens") << true;
        QTest::newRow("no chat tokens") << false;
    }

    void backendAutomaticFromVocabulary()
    {
        QFETCH(bool, chatTokens);
        burrow::test::TinySpec spec;
        spec.nCtx = 256;
        if (chatTokens)
            spec.controlTokens = {"<|im_start|>", "<|im_end|>"};
        const auto bytes = burrow::test::buildTinyModel(spec);
        const QString path = m_dir.filePath(chatTokens ? QStringLiteral("chatml.gguf") : QStringLiteral("base.gguf"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(reinterpret_cast<const char *>(bytes.data()), qint64(bytes.size()));
        f.close();

        EngineBackend backend;
        QString error;
        QVERIFY2(backend.load(path, 256, {}, &error), qPrintable(error));
        QVERIFY(!backend.loadedModel().hasChatTemplate);
        QCOMPARE(backend.loadedModel().chatFormat, chatTokens ? QStringLiteral("chatml") : QStringLiteral("plain"));
        PromptPlan plan;
        const GenerationOutcome outcome = generateAndWait(backend, request(QStringLiteral("auto")), [&](const PromptPlan &p) { plan = p; });
        QVERIFY2(outcome.stop != GenerationOutcome::Stop::Error, qPrintable(outcome.error));
        QCOMPARE(plan.chatFormat != QLatin1String("plain"), chatTokens);
        QCOMPARE(plan.chatFormat, chatTokens ? QStringLiteral("chatml") : QStringLiteral("plain"));
    }

    // One answer to "which format, and why": the model card (before the load,
    // from the header, and after it), the composer's hint and the settings
    // panel's hint all say what the engine decides, for a model with a
    // template, one with only chat tokens, and a base model.
    void hintAndCardFollowTheEngine_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::newRow("template") << QStringLiteral("template");
        QTest::newRow("chat tokens") << QStringLiteral("chat tokens");
        QTest::newRow("base model") << QStringLiteral("base");
    }

    void hintAndCardFollowTheEngine()
    {
        QFETCH(QString, kind);
        QString path;
        if (kind == QLatin1String("template")) {
            BURROW_REQUIRE_SHARED(kPhi3);
            path = sharedPath(kPhi3);
        } else {
            burrow::test::TinySpec spec;
            spec.nCtx = 256;
            if (kind == QLatin1String("chat tokens"))
                spec.controlTokens = {"<|im_start|>", "<|im_end|>"};
            const auto bytes = burrow::test::buildTinyModel(spec);
            path = m_dir.filePath(kind == QLatin1String("base") ? QStringLiteral("base.gguf") : QStringLiteral("chatml.gguf"));
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(reinterpret_cast<const char *>(bytes.data()), qint64(bytes.size()));
        }
        // The engine's decision, asked directly.
        auto model = burrow::Model::load(path.toStdString());
        QVERIFY2(model, model.message().c_str());
        auto decided = burrow::chatFormatFor(*model.value(), "auto", true);
        QVERIFY2(decided, decided.message().c_str());
        const QString expected = decided->plainText ? QStringLiteral("plain") : QString::fromStdString(decided->name);
        QCOMPARE(expected, kind == QLatin1String("template") ? QStringLiteral("template")
                           : kind == QLatin1String("base")   ? QStringLiteral("plain")
                                                             : QStringLiteral("chatml"));

        AppWindow app;
        QVERIFY(app.open());
        app.chat->settings()->setContextSize(256);
        // The card before the load: the header's decision.
        app.chat->models()->openUrls({QUrl::fromLocalFile(path)});
        QTRY_VERIFY(app.chat->models()->pendingCard().isValid());
        const ModelCard pending = app.chat->models()->pendingCard();
        QCOMPARE(pending.chatFormat, expected);
        QCOMPARE(pending.chatFormatFromVocabulary, decided->fromVocabulary);
        auto *cardText = app.find(QStringLiteral("cardChatFormat"));
        QVERIFY(cardText);
        QTRY_COMPARE(cardText->property("text").toString(), pending.chatFormatText());

        QSignalSpy loaded(app.chat, &ChatController::loadFinished);
        app.chat->models()->loadPending();
        QVERIFY(loaded.wait(30000));
        QVERIFY2(loaded.first().first().toBool(), qPrintable(app.chat->banner()));
        const ModelCard card = app.chat->models()->model();
        QCOMPARE(card.chatFormat, expected);
        QCOMPARE(card.chatFormatText(), pending.chatFormatText());
        QCOMPARE(card.continuesText(), bool(decided->plainText));
        // The composer says the model continues text exactly for plain text.
        auto *input = app.find(QStringLiteral("composerInput"));
        QVERIFY(input);
        QCOMPARE(input->property("placeholderText").toString().contains(QStringLiteral("continues it")),
                 bool(decided->plainText));
        // The settings panel names the same format.
        auto *drawer = app.find<QObject>(QStringLiteral("chatSettingsDrawer"));
        QVERIFY(drawer);
        auto *hint = drawer->findChild<QQuickItem *>(QStringLiteral("hint_chatFormat"));
        QVERIFY(hint);
        QVERIFY2(hint->property("text").toString().contains(card.chatFormatText()),
                 qPrintable(hint->property("text").toString()));
        // And the request uses it.
        QSignalSpy finished(app.chat, &ChatController::replyFinished);
        app.chat->settings()->setMaxTokens(2);
        QVERIFY(app.chat->send(QStringLiteral("Hi")));
        QVERIFY(finished.wait(30000));
        QCOMPARE(app.chat->messages()->message(1).state, Chat::State::Complete);
    }

    // Thinking (enable_thinking) and Reasoning effort (reasoning_effort)
    // appear in the chat's settings only for a model whose template reads
    // them, as the engine's format decision says: on the card before the
    // load, after it, and in the settings panel.
    void reasoningSettingsOnlyForTemplatesThatReadThem_data()
    {
        QTest::addColumn<QString>("templateFile");   // in ../shared; "" for no template
        QTest::addColumn<bool>("thinking");
        QTest::addColumn<bool>("effort");
        QTest::newRow("Qwen3") << QStringLiteral("templates-2026/Qwen-Qwen3.jinja") << true << false;
        QTest::newRow("gpt-oss") << QStringLiteral("templates-2026/openai-gpt-oss.jinja") << false << true;
        QTest::newRow("Gemma 3") << QStringLiteral("templates-2026/google-gemma-3.jinja") << false << false;
        QTest::newRow("no template") << QString() << false << false;
    }

    void reasoningSettingsOnlyForTemplatesThatReadThem()
    {
        QFETCH(QString, templateFile);
        QFETCH(bool, thinking);
        QFETCH(bool, effort);
        std::string chatTemplate;
        if (!templateFile.isEmpty()) {
            BURROW_REQUIRE_SHARED(templateFile);
            QFile f(sharedPath(templateFile));
            QVERIFY(f.open(QIODevice::ReadOnly));
            chatTemplate = f.readAll().toStdString();
        }
        burrow::test::TinySpec spec;
        spec.nCtx = 256;
        if (!chatTemplate.empty())
            spec.extraKeys = [&](burrow::gguf::GgufWriter &w) { w.addString("tokenizer.chat_template", chatTemplate); };
        const auto bytes = burrow::test::buildTinyModel(spec);
        const QString path = m_dir.filePath(QStringLiteral("%1.gguf").arg(QString::fromLatin1(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('_'))));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(reinterpret_cast<const char *>(bytes.data()), qint64(bytes.size()));
        }

        AppWindow app;
        QVERIFY(app.open());
        app.chat->models()->openUrls({QUrl::fromLocalFile(path)});
        QTRY_VERIFY(app.chat->models()->pendingCard().isValid());
        QCOMPARE(app.chat->models()->pendingCard().readsEnableThinking, thinking);
        QCOMPARE(app.chat->models()->pendingCard().readsReasoningEffort, effort);
        QSignalSpy loaded(app.chat, &ChatController::loadFinished);
        app.chat->models()->loadPending();
        QVERIFY(loaded.wait(30000));
        QVERIFY2(loaded.first().first().toBool(), qPrintable(app.chat->banner()));
        QCOMPARE(app.chat->models()->model().readsEnableThinking, thinking);
        QCOMPARE(app.chat->models()->model().readsReasoningEffort, effort);

        auto *drawer = app.find<QObject>(QStringLiteral("chatSettingsDrawer"));
        QVERIFY(drawer);
        QVERIFY(QMetaObject::invokeMethod(drawer, "open"));
        QTRY_VERIFY(drawer->property("opened").toBool());
        auto *thinkingRow = drawer->findChild<QQuickItem *>(QStringLiteral("row_thinking"));
        auto *effortRow = drawer->findChild<QQuickItem *>(QStringLiteral("row_reasoningEffort"));
        auto *formatRow = drawer->findChild<QQuickItem *>(QStringLiteral("field_chatFormat"));
        QVERIFY(thinkingRow && effortRow && formatRow);
        QVERIFY(formatRow->isVisible());   // the panel is shown
        QCOMPARE(thinkingRow->isVisible(), thinking);
        QCOMPARE(effortRow->isVisible(), effort);

        // What the rows set reaches the request.
        if (thinking) {
            auto *toggle = drawer->findChild<QQuickItem *>(QStringLiteral("field_thinking"));
            QVERIFY(toggle);
            QVERIFY(toggle->property("checked").toBool());
            app.chat->settings()->setThinking(false);
            QVERIFY(!toggle->property("checked").toBool());
            QCOMPARE(app.chat->settings()->toEngine().enableThinking, false);
        }
        if (effort) {
            auto *box = drawer->findChild<QQuickItem *>(QStringLiteral("field_reasoningEffort"));
            QVERIFY(box);
            QCOMPARE(box->property("currentValue").toString(), QStringLiteral("medium"));
            QVERIFY(app.chat->settings()->setValue(QStringLiteral("reasoningEffort"), QStringLiteral("high")));
            QTRY_COMPARE(box->property("currentValue").toString(), QStringLiteral("high"));
            QCOMPARE(app.chat->settings()->toEngine().reasoningEffort, std::string("high"));
        }
    }

    // The controller: the chat's format goes with each request and is
    // recorded with the reply; what "auto" uses for the loaded model reaches
    // the settings (the fake model has no template: plain text).
    void controllerSendsTheChatsFormat()
    {
        EngineBridge::setBackendFactory(fakeFactory(m_control));
        AppWindow app;
        AbortOnExit guard{m_control};
        QVERIFY(app.open());
        ChatSettings *settings = app.chat->settings();
        QVERIFY(!app.chat->models()->hasModel());   // no model yet: the engine has not said
        const QString model = m_dir.filePath(QStringLiteral("good.gguf"));
        {
            QFile f(model);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("GGUF");
        }
        QSignalSpy loaded(app.chat, &ChatController::loadFinished);
        app.chat->models()->openFile(model, false);
        QVERIFY(loaded.wait(10000));
        QCOMPARE(app.chat->models()->model().chatFormat, QStringLiteral("plain"));

        QSignalSpy finished(app.chat, &ChatController::replyFinished);
        QVERIFY(app.chat->send(QStringLiteral("first")));
        QVERIFY(finished.wait(5000));
        QCOMPARE(m_control->requests.last().settings.chatFormat, std::string("auto"));
        const qint64 firstReply = app.chat->messages()->message(1).id;
        QVERIFY(!app.chat->replyDetails(double(firstReply)).contains(QStringLiteral("chat format")));

        // Chat formats are always built in: a missing one is a failure, not a skip.
        QVERIFY2(ChatSettings::chatFormats().contains(QLatin1String("gemma")), qPrintable(ChatSettings::chatFormats().join(u' ')));
        QVERIFY(settings->setValue(QStringLiteral("chatFormat"), QStringLiteral("gemma")));
        QVERIFY(app.chat->send(QStringLiteral("second")));
        QVERIFY(finished.wait(5000));
        QCOMPARE(m_control->requests.last().settings.chatFormat, std::string("gemma"));
        const qint64 secondReply = app.chat->messages()->message(3).id;
        QVERIFY2(app.chat->replyDetails(double(secondReply)).contains(QStringLiteral("chat format gemma")),
                 qPrintable(app.chat->replyDetails(double(secondReply))));

        // Stored with the chat: a new chat starts from the defaults ("auto"),
        // going back to this one brings "gemma" back.
        const double chatId = app.chat->conversationId();
        QVERIFY(app.chat->newConversation() > 0);
        QCOMPARE(settings->chatFormat(), QStringLiteral("auto"));
        QVERIFY(app.chat->openConversation(chatId));
        QCOMPARE(settings->chatFormat(), QStringLiteral("gemma"));
        QCOMPARE(app.chat->store()->settings(qint64(chatId)).value(QStringLiteral("chatFormat")).toString(),
                 QStringLiteral("gemma"));
    }

    // Export and import carry the chat's format (the bundle keeps the whole
    // settings object), and the imported chat's settings read it back.
    void exportImportCarriesTheFormat()
    {
        QVERIFY2(ChatSettings::chatFormats().contains(QLatin1String("llama3")), qPrintable(ChatSettings::chatFormats().join(u' ')));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        ChatSettings settings;
        QVERIFY(settings.setValue(QStringLiteral("chatFormat"), QStringLiteral("llama3")));
        ConversationStore from;
        from.setDatabasePath(dir.filePath(QStringLiteral("a.db")));
        QVERIFY(from.open());
        const qint64 id = from.createConversation(QStringLiteral("formatted"), QStringLiteral("/m/x.gguf"), 1, settings.toJson());
        QVERIFY(id > 0);
        QVERIFY(from.appendMessage(id, Chat::Role::User, QStringLiteral("Hi")) > 0);
        QString error;
        const QString bundle = dir.filePath(QStringLiteral("bundle"));
        QVERIFY(QDir().mkpath(bundle));
        QVERIFY2(ConversationBundle::writeFolder(from, {id}, bundle, &error), qPrintable(error));

        ConversationStore to;
        to.setDatabasePath(dir.filePath(QStringLiteral("b.db")));
        QVERIFY(to.open());
        const ConversationBundle::ImportResult result = ConversationBundle::importFolder(to, bundle);
        QVERIFY2(result.ok, qPrintable(result.error));
        QCOMPARE(result.added, 1);
        const auto imported = to.conversations();
        QCOMPARE(imported.size(), 1);
        ChatSettings back;
        QVERIFY(back.fromJson(to.settings(imported.first().id)));
        QCOMPARE(back.chatFormat(), QStringLiteral("llama3"));
    }
};

QTEST_MAIN(TestChatFormat)
#include "tst_chatformat.moc"
