// The chat window and the conversation store together: a sent message is
// stored before its reply starts, the reply is written while it streams and
// ends with its stats, a reply keeps going in its own chat while another is
// shown (its priority following the chat shown), per-chat settings are saved, an interrupted reply shows as such,
// and quitting and restarting with the same data folder brings it all back
// (real window, real engine, stories260K).
#include <QTemporaryDir>

#include "apptestsupport.h"
#include "fakebackend.h"

Q_IMPORT_QML_PLUGIN(BurrowPlugin)

using namespace burrow::test;

namespace {
struct AbortOnExit {
    std::shared_ptr<FakeControl> control;
    ~AbortOnExit() { control->abort = true; }
};
} // namespace

class TestPersistence : public QObject {
    Q_OBJECT

    std::shared_ptr<FakeControl> m_control;
    QTemporaryDir m_dir;

    QString file(const QString &name)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.exists() && f.open(QIODevice::WriteOnly))
            f.write("GGUF");
        return path;
    }

    static bool load(ChatController *chat, const QString &path)
    {
        QSignalSpy finished(chat, &ChatController::loadFinished);
        chat->models()->openFile(path, false);
        return (!finished.isEmpty() || finished.wait(60000)) && finished.first().first().toBool();
    }

    static QVector<MessageRecord> stored(ChatController *chat, qint64 conversation)
    {
        return chat->store()->messages(conversation);
    }

private Q_SLOTS:
    void init()
    {
        m_control = std::make_shared<FakeControl>();
        EngineBridge::setBackendFactory(fakeFactory(m_control));
    }

    void cleanup()
    {
        m_control->abort = true;
        EngineBridge::resetBackendFactory();
    }

    void replyIsStoredWhileStreamingAndEndsWithStats()
    {
        AppWindow app;
        AbortOnExit guard{m_control};
        QVERIFY(app.open());
        ChatController *chat = app.chat;
        QVERIFY(chat->store()->isReady());
        const qint64 first = qint64(chat->conversationId());
        QVERIFY(first > 0);
        QVERIFY(load(chat, file(QStringLiteral("good.gguf"))));
        QVERIFY(chat->settings()->setValue(QStringLiteral("temperature"), 0.25));
        QCOMPARE(chat->store()->settings(first).value(QStringLiteral("temperature")).toDouble(), 0.25);

        QSignalSpy finished(chat, &ChatController::replyFinished);
        QVERIFY(chat->send(QStringLiteral("Tell me a story")));
        // The user's message is stored before any token arrives; the reply is streaming.
        QVector<MessageRecord> rows = stored(chat, first);
        QCOMPARE(rows.size(), 2);
        QCOMPARE(rows.at(0).role, Chat::Role::User);
        QCOMPARE(rows.at(0).content, QStringLiteral("Tell me a story"));
        QCOMPARE(rows.at(1).state, Chat::State::Streaming);
        QCOMPARE(rows.at(1).model, QStringLiteral("good.gguf"));
        QCOMPARE(rows.at(1).settings.value(QStringLiteral("temperature")).toDouble(), 0.25);
        QCOMPARE(chat->store()->conversation(first).title, QStringLiteral("Tell me a story"));
        QCOMPARE(chat->store()->conversation(first).modelPath, QFileInfo(file(QStringLiteral("good.gguf"))).absoluteFilePath());

        // Two pieces: the store has them within a second or so, while the reply still runs.
        m_control->release(2);
        QTRY_COMPARE_WITH_TIMEOUT(stored(chat, first).at(1).content, QStringLiteral("Once upon"), 5000);
        QVERIFY(chat->isGenerating());
        QCOMPARE(stored(chat, first).at(1).state, Chat::State::Streaming);

        // Another chat is shown meanwhile: the reply keeps going in its own
        // chat, and the other chat can send at once (the engine generates
        // both; this fake one after the other).
        const qint64 second = qint64(chat->newConversation());
        QVERIFY(second > 0 && second != first);
        QCOMPARE(qint64(chat->conversationId()), second);
        QVERIFY(!chat->reply()->isActive());   // the shown chat's reply
        QVERIFY(!chat->isGenerating());
        QCOMPARE(chat->generatingIds(), QVariantList{double(first)});
        QCOMPARE(chat->messages()->rowCount(), 0);
        QVERIFY(chat->send(QStringLiteral("Me too")));
        QVERIFY(chat->isGenerating());
        QCOMPARE(chat->generatingIds().size(), 2);
        QCOMPARE(stored(chat, second).size(), 2);
        m_control->release(3);
        QVERIFY(!finished.isEmpty() || finished.wait(10000));
        QCOMPARE(chat->generatingIds(), QVariantList{double(second)});
        QCOMPARE(chat->messages()->rowCount(), 2);   // the shown chat: its own message and reply only
        QCOMPARE(chat->messages()->message(1).text, QString());
        m_control->release(5);
        QVERIFY(finished.size() >= 2 || finished.wait(10000));
        QCOMPARE(chat->messages()->message(1).text, QStringLiteral("Once upon a time."));
        QCOMPARE(stored(chat, second).at(1).content, QStringLiteral("Once upon a time."));
        QVERIFY(chat->generatingIds().isEmpty());
        // An empty chat is reused by New chat, a deleted one is not.
        const qint64 empty = qint64(chat->newConversation());
        QVERIFY(empty > 0 && empty != second);
        QCOMPARE(qint64(chat->newConversation()), empty);
        QVERIFY(chat->store()->remove(empty));
        const qint64 third = qint64(chat->newConversation());
        QVERIFY(third > 0 && third != empty);

        rows = stored(chat, first);
        QCOMPARE(rows.size(), 2);
        QCOMPARE(rows.at(1).content, QStringLiteral("Once upon a time."));
        QCOMPARE(rows.at(1).state, Chat::State::Complete);
        QCOMPARE(rows.at(1).generatedTokens, 5);
        QVERIFY(rows.at(1).promptTokens > 0);
        QVERIFY(rows.at(1).tokensPerSecond > 0);
        QVERIFY(chat->replyDetails(double(rows.at(1).id)).contains(QStringLiteral("good.gguf")));

        // Back in the first chat: both messages, the reply complete with its stats.
        QVERIFY(chat->openConversation(double(first)));
        QCOMPARE(chat->messages()->rowCount(), 2);
        QCOMPARE(chat->messages()->message(1).text, QStringLiteral("Once upon a time."));
        QCOMPARE(chat->messages()->message(1).state, Chat::State::Complete);
        QCOMPARE(chat->messages()->message(1).tokens, 5);
        QCOMPARE(chat->settings()->temperature(), 0.25);

        // Regenerate replaces the stored reply; edit and resend replaces the rest.
        m_control->gated = false;
        finished.clear();
        QVERIFY(chat->regenerate());
        QVERIFY(!finished.isEmpty() || finished.wait(10000));
        QCOMPARE(stored(chat, first).size(), 2);
        finished.clear();
        QVERIFY(chat->editAndResend(0, QStringLiteral("Another story")));
        QVERIFY(!finished.isEmpty() || finished.wait(10000));
        rows = stored(chat, first);
        QCOMPARE(rows.size(), 2);
        QCOMPARE(rows.at(0).content, QStringLiteral("Another story"));
        QCOMPARE(rows.at(1).state, Chat::State::Complete);
    }

    // A reply's reasoning streams apart from its answer, is stored with the
    // message (with its duration), comes back after a restart into the
    // collapsed block, survives showing another chat meanwhile, and goes with
    // the message in the next request (ChatMessage::reasoning; the template
    // decides whether the model sees it).
    void reasoningIsStoredAndRestored()
    {
        m_control->reasoningPieces = {QStringLiteral("The user wants"), QStringLiteral(" a story.")};
        qint64 conversation = -1;
        {
            AppWindow app;
            AbortOnExit guard{m_control};
            QVERIFY(app.open());
            ChatController *chat = app.chat;
            conversation = qint64(chat->conversationId());
            QVERIFY(load(chat, file(QStringLiteral("good.gguf"))));
            QSignalSpy finished(chat, &ChatController::replyFinished);
            QVERIFY(chat->send(QStringLiteral("Tell me a story")));
            // The reasoning is shown while the answer has not begun; the
            // collapsed block says the model is thinking.
            QTRY_COMPARE(chat->messages()->message(1).reasoning, QStringLiteral("The user wants a story."));
            QCOMPARE(chat->messages()->message(1).text, QString());
            QQuickItem *header = nullptr;
            QTRY_VERIFY((header = findItem(app.window->contentItem(), QStringLiteral("reasoningHeader"))));
            QTRY_COMPARE(header->property("text").toString(), QStringLiteral("Thinking…"));
            // Another chat meanwhile: the reasoning stays with its reply.
            const qint64 other = qint64(chat->newConversation());
            QVERIFY(other > 0 && other != conversation);
            m_control->release(5);
            QVERIFY(!finished.isEmpty() || finished.wait(10000));
            const MessageRecord reply = stored(chat, conversation).at(1);
            QCOMPARE(reply.content, QStringLiteral("Once upon a time."));
            QCOMPARE(reply.reasoning, QStringLiteral("The user wants a story."));
            QCOMPARE(reply.reasoningMs, 1500.0);
            QCOMPARE(reply.generatedTokens, 7);   // reasoning tokens count as generated
        }
        // After a restart: the row and the collapsed block.
        m_control->reasoningPieces.clear();
        AppWindow app;
        AbortOnExit guard{m_control};
        QVERIFY(app.open(true));
        ChatController *chat = app.chat;
        QVERIFY(chat->openConversation(double(conversation)));
        QCOMPARE(chat->messages()->message(1).reasoning, QStringLiteral("The user wants a story."));
        QCOMPARE(chat->messages()->message(1).reasoningMs, 1500.0);
        QCOMPARE(chat->messages()->message(1).text, QStringLiteral("Once upon a time."));
        QQuickItem *block = nullptr;
        QTRY_VERIFY((block = findItem(app.window->contentItem(), QStringLiteral("reasoningBlock"))) && block->isVisible());
        auto *header = findItem(app.window->contentItem(), QStringLiteral("reasoningHeader"));
        QVERIFY(header);
        QCOMPARE(header->property("text").toString(), QStringLiteral("Thought for 1.5 s"));
        QCOMPARE(findItem(app.window->contentItem(), QStringLiteral("reasoningText"))->property("text").toString(), QString());   // collapsed
        // Expanded by a click, it shows the reasoning.
        auto *toggle = findItem(app.window->contentItem(), QStringLiteral("reasoningToggle"));
        QVERIFY(toggle);
        clickItem(app.window, toggle);
        QTRY_COMPARE(findItem(app.window->contentItem(), QStringLiteral("reasoningText"))->property("text").toString(),
                     QStringLiteral("The user wants a story."));
        // BURROW_TEST_SCREENSHOTS=DIR keeps a picture of the window (to look at, not compared).
        if (const QString dir = qEnvironmentVariable("BURROW_TEST_SCREENSHOTS"); !dir.isEmpty())
            app.window->grabWindow().save(dir + QStringLiteral("/reasoning-expanded.png"));

        // The next turn sends the earlier reasoning with its message.
        QVERIFY(load(chat, file(QStringLiteral("good.gguf"))));
        QSignalSpy finished(chat, &ChatController::replyFinished);
        const int before = m_control->generateCalls;
        QVERIFY(chat->send(QStringLiteral("Another one")));
        m_control->release(5);
        QVERIFY(!finished.isEmpty() || finished.wait(10000));
        QCOMPARE(int(m_control->generateCalls), before + 1);
        const ChatRequest request = m_control->requests.last();
        QCOMPARE(request.messages.size(), size_t(3));
        QCOMPARE(request.messages.at(1).role, std::string("assistant"));
        QCOMPARE(request.messages.at(1).reasoning, std::string("The user wants a story."));
        QCOMPARE(request.messages.at(1).content, std::string("Once upon a time."));
    }

    void switchingBackShowsTheStreamingReply()
    {
        AppWindow app;
        AbortOnExit guard{m_control};
        QVERIFY(app.open());
        ChatController *chat = app.chat;
        QVERIFY(load(chat, file(QStringLiteral("good.gguf"))));
        const qint64 first = qint64(chat->conversationId());
        QSignalSpy finished(chat, &ChatController::replyFinished);
        QVERIFY(chat->send(QStringLiteral("Hi")));
        m_control->release(1);
        QTRY_COMPARE(chat->messages()->message(1).text, QStringLiteral("Once"));
        // The reply's priority follows the chat shown (the engine's
        // scheduler serves the chat watched first; tst_scheduler priorities).
        QCOMPARE(m_control->requests.size(), 1);
        const std::shared_ptr<ReplyPriorityCell> priority = m_control->requests.first().priorityCell;
        QVERIFY(priority);
        QCOMPARE(priority->get(), ReplyPriority::ShownChat);
        QVERIFY(chat->newConversation() > 0);
        QCOMPARE(priority->get(), ReplyPriority::BackgroundChat);
        m_control->release(1);
        QVERIFY(chat->openConversation(double(first)));
        QCOMPARE(priority->get(), ReplyPriority::ShownChat);
        // The text received while the chat was not shown is there, and streaming goes on.
        QTRY_COMPARE(chat->messages()->message(1).text, QStringLiteral("Once upon"));
        QCOMPARE(chat->messages()->message(1).state, Chat::State::Streaming);
        m_control->release(3);
        QVERIFY(!finished.isEmpty() || finished.wait(10000));
        QCOMPARE(chat->messages()->message(1).text, QStringLiteral("Once upon a time."));
        QCOMPARE(chat->messages()->message(1).state, Chat::State::Complete);
    }

    void interruptedReplyShowsAsInterrupted()
    {
        qint64 conversation = -1;
        {
            // A reply that was streaming when Burrow ended (never finished).
            ConversationStore store;
            QFile::remove(ConversationStore::defaultDatabasePath());
            QVERIFY(store.open());
            conversation = store.createConversation(QStringLiteral("Crash"));
            QVERIFY(store.appendMessage(conversation, Chat::Role::User, QStringLiteral("Go")) > 0);
            const qint64 reply = store.beginReply(conversation, QStringLiteral("m.gguf"), QJsonObject());
            QVERIFY(store.updateReply(reply, QStringLiteral("Half a")));
        }
        AppWindow app;
        QVERIFY(app.open(true));
        QCOMPARE(qint64(app.chat->conversationId()), conversation);
        QCOMPARE(app.chat->messages()->rowCount(), 2);
        QCOMPARE(app.chat->messages()->message(1).text, QStringLiteral("Half a"));
        QCOMPARE(app.chat->messages()->message(1).state, Chat::State::Interrupted);
        // The view marks it.
        auto *list = app.find<QQuickItem>(QStringLiteral("messageList"));
        QVERIFY(list);
        const auto stateLabel = [&]() -> QQuickItem * {
            QQuickItem *row = nullptr;
            QMetaObject::invokeMethod(list, "itemAtIndex", Q_RETURN_ARG(QQuickItem *, row), Q_ARG(int, 1));
            return row ? row->findChild<QQuickItem *>(QStringLiteral("messageState")) : nullptr;
        };
        QTRY_VERIFY(stateLabel() != nullptr);
        QCOMPARE(stateLabel()->property("text").toString(), QStringLiteral("interrupted"));
        QVERIFY(stateLabel()->isVisible());
    }

    // A damaged database is moved aside at start and the banner says so.
    void damagedDatabaseIsReportedInTheBanner()
    {
        const QString db = ConversationStore::defaultDatabasePath();
        QDir().mkpath(QFileInfo(db).absolutePath());
        for (const QString &suffix : {QString(), QStringLiteral("-wal"), QStringLiteral("-shm")})
            QFile::remove(db + suffix);
        {
            QFile file(db);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(QByteArray(8192, 'x'));
        }
        AppWindow app;
        QVERIFY(app.open(true));
        QVERIFY(app.chat->store()->isReady());
        QVERIFY(!app.chat->store()->movedAsidePath().isEmpty());
        QVERIFY(QFileInfo::exists(app.chat->store()->movedAsidePath()));
        QCOMPARE(app.chat->banner(), app.chat->store()->problem());
        auto *banner = app.find<QQuickItem>(QStringLiteral("banner"));
        QVERIFY(banner);
        QTRY_VERIFY(banner->isVisible());
        QVERIFY(app.chat->conversationId() > 0);   // a new, empty chat to write in
    }

    // Quit and restart with the same data folder: the chat, its messages and
    // its settings are back, and the chat offers to load its model again.
    void quitAndRestartWithTheSameDataFolder()
    {
        const QString model = QStringLiteral("models/stories260K.gguf");
        BURROW_REQUIRE_SHARED(model);
        EngineBridge::resetBackendFactory();
        qint64 conversation = -1;
        QString prompt = QStringLiteral("Once upon a time");
        QString reply;
        {
            auto app = std::make_unique<AppWindow>();
            QVERIFY(app->open());
            ChatController *chat = app->chat;
            chat->settings()->setContextSize(512);
            chat->settings()->setTemperature(0.0);
            chat->settings()->setMaxTokens(8);
            QVERIFY(load(chat, sharedPath(model)));
            conversation = qint64(chat->conversationId());
            QSignalSpy finished(chat, &ChatController::replyFinished);
            QVERIFY(chat->send(prompt));
            QVERIFY(!finished.isEmpty() || finished.wait(60000));
            reply = chat->messages()->message(1).text;
            QVERIFY(!reply.isEmpty());
            chat->settings()->setSystemPrompt(QStringLiteral("Tell short stories."));
            chat->settings()->setTopK(7);
        }
        auto app = std::make_unique<AppWindow>();
        QVERIFY(app->open(true));
        ChatController *chat = app->chat;
        QCOMPARE(qint64(chat->conversationId()), conversation);
        QCOMPARE(chat->messages()->rowCount(), 2);
        QCOMPARE(chat->messages()->message(0).text, prompt);
        QCOMPARE(chat->messages()->message(1).text, reply);
        QCOMPARE(chat->messages()->message(1).state, Chat::State::Complete);
        QVERIFY(chat->messages()->message(1).tokens > 0);
        QCOMPARE(chat->settings()->temperature(), 0.0);
        QCOMPARE(chat->settings()->maxTokens(), 8);
        QCOMPARE(chat->settings()->contextSize(), 512);
        QCOMPARE(chat->settings()->topK(), 7);
        QCOMPARE(chat->settings()->systemPrompt(), QStringLiteral("Tell short stories."));
        QCOMPARE(chat->conversation()->title(), prompt);
        // The sidebar lists it; the chat offers its model (none is loaded now).
        auto *list = app->find<QQuickItem>(QStringLiteral("conversationList"));
        QVERIFY(list);
        QTRY_COMPARE(list->property("count").toInt(), 1);
        QCOMPARE(chat->conversation()->otherModelPath(), QFileInfo(sharedPath(model)).absoluteFilePath());
        auto *prompter = app->find<QQuickItem>(QStringLiteral("modelPrompt"));
        QVERIFY(prompter);
        QTRY_VERIFY(prompter->isVisible());
        // The header's Settings button opens the chat's settings panel, showing its values.
        auto *settingsButton = app->find<QQuickItem>(QStringLiteral("chatSettingsButton"));
        QVERIFY(settingsButton);
        clickItem(app->window, settingsButton);
        auto *drawer = app->find<QObject>(QStringLiteral("chatSettingsDrawer"));
        QVERIFY(drawer);
        QTRY_VERIFY(drawer->property("opened").toBool());
        if (qEnvironmentVariableIsSet("BURROW_GRAB"))
            app->window->grabWindow().save(qEnvironmentVariable("BURROW_GRAB"));
        QMetaObject::invokeMethod(drawer, "close");
        QTRY_VERIFY(!drawer->property("visible").toBool());
        // Loading it from the offer: the same model answers the same again at temperature 0.
        QSignalSpy loaded(chat, &ChatController::loadFinished);
        chat->loadConversationModel();
        QVERIFY(!loaded.isEmpty() || loaded.wait(60000));
        QVERIFY(chat->hasModel());
        QCOMPARE(chat->conversation()->otherModelPath(), QString());
        QSignalSpy finished(chat, &ChatController::replyFinished);
        QVERIFY(chat->regenerate());
        QVERIFY(!finished.isEmpty() || finished.wait(60000));
        QCOMPARE(chat->store()->messages(conversation).size(), 2);
    }
};

QTEST_MAIN(TestPersistence)
#include "tst_persistence.moc"
