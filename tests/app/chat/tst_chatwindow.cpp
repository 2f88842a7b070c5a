// The chat window on the real QML and the real engine with stories260K:
// drop to load, a streamed greedy reply equal to the reference
// continuation, refused files, stopping, and switching models mid-reply.
#include <functional>

#include <QElapsedTimer>
#include <QJsonArray>
#include <QRegularExpression>
#include <QTemporaryDir>

#include "apptestsupport.h"

Q_IMPORT_QML_PLUGIN(BurrowPlugin)

using namespace burrow::test;

namespace {
const QString storiesModel = QStringLiteral("models/stories260K.gguf");
// Random weights: its replies run to their length limit (no end of text).
const QString benchModel = QStringLiteral("models/bench/llama-155M-Q4_K_M.gguf");
const QString otherModel = QStringLiteral("models/synthetic/llama-f32.gguf");
}

class TestChatWindow : public QObject {
    Q_OBJECT

private:
    // Drops `path` on the window, accepts the model card with its Load
    // button and waits for the load to end. Returns whether it loaded.
    bool dropAndLoad(AppWindow &app, const QString &path)
    {
        QSignalSpy finished(app.chat, &ChatController::loadFinished);
        dropFile(app.window, path);
        if (!QTest::qWaitFor([&] { return app.chat->models()->pendingCard().isValid() || !finished.isEmpty(); }, 10000))
            return false;
        if (!finished.isEmpty())
            return false;
        auto *load = app.find(QStringLiteral("cardLoad"));
        if (!load)
            return false;
        QTest::qWaitFor([&] { return load->isVisible() && load->width() > 0; }, 2000);
        clickItem(app.window, load);
        // The click may already have delivered the result.
        if (finished.isEmpty() && !finished.wait(30000))
            return false;
        return finished.first().first().toBool();
    }

    // Types `text` into the composer and presses Enter; returns the reply.
    QString sendAndWait(AppWindow &app, const QString &text)
    {
        auto *input = app.find(QStringLiteral("composerInput"));
        if (!input)
            return QStringLiteral("<no composer>");
        auto *dialog = app.find<QObject>(QStringLiteral("modelCardDialog"));
        QTest::qWaitFor([&] { return !dialog || !dialog->property("visible").toBool(); }, 5000);
        input->forceActiveFocus();
        input->setProperty("text", text);
        QSignalSpy finished(app.chat, &ChatController::replyFinished);
        const int rows = app.chat->messages()->rowCount();
        QTest::keyClick(app.window, Qt::Key_Return);
        if (app.chat->messages()->rowCount() != rows + 2)
            return QStringLiteral("<not sent: focus on %1>").arg(app.window->activeFocusItem()
                ? app.window->activeFocusItem()->objectName() + QLatin1Char('/') + QString::fromLatin1(app.window->activeFocusItem()->metaObject()->className())
                : QStringLiteral("nothing"));
        if (finished.isEmpty() && !finished.wait(60000))
            return QStringLiteral("<no reply>");
        const int row = finished.first().first().toInt();
        return app.chat->messages()->message(row).text;
    }

    // Greedy settings that reproduce the reference continuation.
    void useReferenceSettings(ChatController *chat, const QJsonObject &reference)
    {
        chat->settings()->setTemperature(0.0);
        chat->settings()->setMaxTokens(int(reference.value(QStringLiteral("greedy_tokens")).toArray().size()));
        chat->settings()->setContextSize(512);
    }

private Q_SLOTS:
    void init()
    {
        failOnQmlErrors();
        EngineBridge::resetBackendFactory();
    }

    void dropLoadsModelAndStreamsReferenceContinuation()
    {
        BURROW_REQUIRE_SHARED(storiesModel);
        const QJsonObject reference = referenceGeneration(QStringLiteral("stories260K.0"));
        QVERIFY2(!reference.isEmpty(), "reference/generation/stories260K.0.json is missing or unreadable");
        AppWindow app;
        QVERIFY(app.open());

        const QString overlay = dropFile(app.window, sharedPath(storiesModel));
        QCOMPARE(overlay, QStringLiteral("Drop to open this model"));
        QVERIFY(QTest::qWaitFor([&] { return app.chat->models()->pendingCard().isValid(); }, 10000));
        const ModelCard card = app.chat->models()->pendingCard();
        QCOMPARE(card.architecture, QStringLiteral("llama"));
        QVERIFY(card.parameterCount > 0);
        QVERIFY(card.trainedContext > 0);
        QCOMPARE(card.fileSize, quint64(QFileInfo(sharedPath(storiesModel)).size()));
        QVERIFY(card.memoryBytesAt(512) > card.weightBytes);
        app.chat->models()->dismissPending();

        useReferenceSettings(app.chat, reference);
        QVERIFY(dropAndLoad(app, sharedPath(storiesModel)));
        QVERIFY(app.chat->hasModel());
        QCOMPARE(app.chat->models()->recentModels()->paths().value(0), QFileInfo(sharedPath(storiesModel)).absoluteFilePath());

        // Every update the view gets is a growing prefix of the final text.
        QStringList seen;
        connect(app.chat->messages(), &MessageModel::dataChanged, this, [&](const QModelIndex &i) {
            if (app.chat->messages()->message(i.row()).author == Chat::Role::Assistant)
                seen.append(app.chat->messages()->message(i.row()).text);
        });
        const QString prompt = reference.value(QStringLiteral("prompt")).toString();
        const QString reply = sendAndWait(app, prompt);
        QCOMPARE(reply, reference.value(QStringLiteral("greedy_text")).toString());
        for (const QString &partial : std::as_const(seen))
            QVERIFY2(reply.startsWith(partial), qPrintable(partial));
        QCOMPARE(app.chat->messages()->rowCount(), 2);
        QCOMPARE(app.chat->messages()->message(0).text, prompt);
        QCOMPARE(app.chat->messages()->message(1).state, Chat::State::Complete);
        QVERIFY(app.chat->reply()->contextUsed() > 0);
        QVERIFY(app.chat->reply()->contextUsed() <= app.chat->contextSize());
        // The status line's summary, as the user reads it (the separator is
        // one "·", not its UTF-8 bytes read as Latin-1).
        const QString stats = app.chat->reply()->lastReplyStats();
        QVERIFY2(QRegularExpression(QStringLiteral("^\\d+ tokens? at [\\d.,]+ tokens/s \u00b7 prompt: \\d+ new, \\d+ reused$"))
                     .match(stats).hasMatch(),
                 qPrintable(stats));
        auto *composer = app.find(QStringLiteral("composerInput"));
        QCOMPARE(composer->property("text").toString(), QString());

        // Regenerate at temperature 0 writes the same reply again.
        QSignalSpy finished(app.chat, &ChatController::replyFinished);
        QTest::keyClick(app.window, Qt::Key_R, Qt::ControlModifier | Qt::ShiftModifier);
        QVERIFY(!finished.isEmpty() || finished.wait(60000));
        QCOMPARE(app.chat->messages()->rowCount(), 2);
        QCOMPARE(app.chat->messages()->message(1).text, reference.value(QStringLiteral("greedy_text")).toString());
    }

    void refusedFilesKeepTheLoadedModel_data()
    {
        QTest::addColumn<QString>("fileName");
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<bool>("refusedWhileDragging");
        QTest::newRow("text file") << QStringLiteral("notes.txt") << QByteArray("just some notes\n") << true;
        QTest::newRow("not GGUF, .gguf name") << QStringLiteral("fake.gguf") << QByteArray("this is not a model") << false;
        QTest::newRow("corrupt GGUF") << QStringLiteral("truncated.gguf") << QByteArray() << false;
    }

    void refusedFilesKeepTheLoadedModel()
    {
        BURROW_REQUIRE_SHARED(storiesModel);
        QFETCH(QString, fileName);
        QFETCH(QByteArray, content);
        QFETCH(bool, refusedWhileDragging);
        const QJsonObject reference = referenceGeneration(QStringLiteral("stories260K.0"));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(fileName);
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            if (content.isEmpty()) {
                // The real model cut short inside its tensor data.
                QFile model(sharedPath(storiesModel));
                QVERIFY(model.open(QIODevice::ReadOnly));
                content = model.read(model.size() / 3);
            }
            file.write(content);
        }

        AppWindow app;
        QVERIFY(app.open());
        useReferenceSettings(app.chat, reference);
        QVERIFY(dropAndLoad(app, sharedPath(storiesModel)));
        const ModelCard loaded = app.chat->models()->model();

        QSignalSpy banner(app.chat, &ChatController::bannerChanged);
        const QString overlay = dropFile(app.window, path);
        QCOMPARE(overlay != QStringLiteral("Drop to open this model"), refusedWhileDragging);
        QVERIFY(QTest::qWaitFor([&] { return !app.chat->banner().isEmpty(); }, 30000));
        QVERIFY(QTest::qWaitFor([&] { return !app.chat->models()->isInspecting() && !app.chat->models()->isLoading(); }, 30000));
        QVERIFY2(app.chat->banner().contains(fileName), qPrintable(app.chat->banner()));
        auto *bannerItem = app.find(QStringLiteral("banner"));
        QVERIFY(bannerItem && bannerItem->isVisible());
        QCOMPARE(app.find(QStringLiteral("bannerText"))->property("text").toString(), app.chat->banner());
        QVERIFY(!app.chat->models()->pendingCard().isValid());
        QCOMPARE(app.chat->models()->model().path, loaded.path);

        // The loaded model still answers.
        QCOMPARE(sendAndWait(app, reference.value(QStringLiteral("prompt")).toString()),
                 reference.value(QStringLiteral("greedy_text")).toString());
    }

    void oldestTurnsLeaveTheContextFirst()
    {
        BURROW_REQUIRE_SHARED(storiesModel);
        AppWindow app;
        QVERIFY(app.open());
        app.chat->settings()->setContextSize(64);
        app.chat->settings()->setTemperature(0.0);
        app.chat->settings()->setMaxTokens(8);
        QVERIFY(dropAndLoad(app, sharedPath(storiesModel)));
        QCOMPARE(app.chat->contextSize(), 64);
        const QString line = QStringLiteral("Once upon a time there was a little dog named Max who liked to run.");
        for (int turn = 0; turn < 4; ++turn)
            QVERIFY(!sendAndWait(app, line).startsWith(QLatin1Char('<')));
        MessageModel *messages = app.chat->messages();
        QCOMPARE(messages->rowCount(), 8);
        // The prompt kept the newest exchanges only; the view marks where they start.
        const int start = messages->memoryStart();
        QVERIFY2(start > 0, qPrintable(QString::number(start)));
        QCOMPARE(messages->message(start).author, Chat::Role::User);
        QVERIFY(messages->data(messages->index(start), MessageModel::MemoryStartsHereRole).toBool());
        QVERIFY(!messages->data(messages->index(0), MessageModel::InContextRole).toBool());
        QVERIFY(messages->data(messages->index(7), MessageModel::InContextRole).toBool());
        QVERIFY(app.chat->reply()->contextUsed() <= 64);
        for (int row = 1; row < 8; row += 2)
            QCOMPARE(messages->message(row).state, Chat::State::Complete);
    }

    // A reply that fills the context (the scheduler does not shift it: the
    // reply ends where the context does) never shows the meter past the
    // context size while it streams or after.
    void aReplyLongerThanTheContextKeepsTheMeterInside()
    {
        BURROW_REQUIRE_SHARED(benchModel);
        AppWindow app;
        QVERIFY(app.open());
        app.chat->settings()->setContextSize(64);
        app.chat->settings()->setTemperature(0.0);
        app.chat->settings()->setMaxTokens(120);
        QVERIFY(dropAndLoad(app, sharedPath(benchModel)));
        QCOMPARE(app.chat->contextSize(), 64);
        int most = 0;
        connect(app.chat->reply(), &ReplyStream::statsChanged, this,
                [&] { most = qMax(most, app.chat->reply()->contextUsed()); });
        QVERIFY(!sendAndWait(app, QStringLiteral("Once upon a time")).startsWith(QLatin1Char('<')));
        const MessageModel::Message reply = app.chat->messages()->message(1);
        QVERIFY2(reply.tokens + app.chat->reply()->promptTokens() >= 64,
                 qPrintable(QStringLiteral("only %1 tokens: the context never filled").arg(reply.tokens)));
        QVERIFY2(most <= 64, qPrintable(QString::number(most)));
        QVERIFY(app.chat->reply()->contextUsed() <= 64);
        // Opened again from the store (another chat first): still inside.
        const double full = app.chat->conversationId();
        QVERIFY(app.chat->newConversation() > 0);
        QVERIFY(app.chat->openConversation(full));
        QVERIFY2(app.chat->reply()->contextUsed() > 0 && app.chat->reply()->contextUsed() <= 64,
                 qPrintable(QString::number(app.chat->reply()->contextUsed())));
    }

    void templateModelAnswersThroughItsChatTemplate()
    {
        const QString phi3 = QStringLiteral("models/synthetic/phi3-Q4_K_M.gguf");
        BURROW_REQUIRE_SHARED(phi3);
        AppWindow app;
        QVERIFY(app.open());
        app.chat->settings()->setContextSize(512);
        app.chat->settings()->setTemperature(0.0);
        app.chat->settings()->setMaxTokens(4);
        app.chat->settings()->setSystemPrompt(QStringLiteral("You are brief."));
        QVERIFY(dropAndLoad(app, sharedPath(phi3)));
        QVERIFY(app.chat->models()->model().hasChatTemplate);
        const QString reply = sendAndWait(app, QStringLiteral("Hello"));
        QVERIFY2(!reply.startsWith(QLatin1Char('<')), qPrintable(reply));
        const auto &message = app.chat->messages()->message(1);
        QVERIFY2(message.state == Chat::State::Complete, qPrintable(message.error));
        // The prompt holds the template's turn markers (<|user|> ... <|assistant|>), more
        // than the 2 tokens of plain text (BOS, "Hello"); the KV cache holds the prompt
        // and all but the last generated token.
        const int promptTokens = app.chat->reply()->contextUsed() - (message.tokens - 1);
        QVERIFY2(promptTokens > 2, qPrintable(QString::number(promptTokens)));
    }

    void stopBeforeTheFirstToken()
    {
        BURROW_REQUIRE_SHARED(storiesModel);
        AppWindow app;
        QVERIFY(app.open());
        app.chat->settings()->setContextSize(512);
        app.chat->settings()->setMaxTokens(2000);
        QVERIFY(dropAndLoad(app, sharedPath(storiesModel)));
        QSignalSpy finished(app.chat, &ChatController::replyFinished);
        QVERIFY(app.chat->send(QStringLiteral("Once upon a time")));
        QVERIFY(app.chat->isGenerating());
        // Esc reaches the window shortcut: the reply stops at its first token at the latest.
        QTest::keyClick(app.window, Qt::Key_Escape);
        QVERIFY(!finished.isEmpty() || finished.wait(30000));
        QCOMPARE(app.chat->messages()->message(1).state, Chat::State::Stopped);
        QVERIFY(!app.chat->isGenerating());
        auto *state = app.find(QStringLiteral("messageList"));
        QVERIFY(state);
    }

    // Stop while a long prompt is read (~2,000 tokens on the bench model):
    // the reply ends before the prompt is done, with nothing generated, the
    // KV cache holds only what was computed, and the next request is not
    // cancelled by it (each request has its own cancel token).
    void stopDuringALongPrompt()
    {
        const QString bench = QStringLiteral("models/bench/llama-155M-Q4_K_M.gguf");
        BURROW_REQUIRE_SHARED(bench);
        AppWindow app;
        QVERIFY(app.open());
        app.chat->settings()->setContextSize(2048);   // the bench model's training context
        app.chat->settings()->setTemperature(0.0);
        app.chat->settings()->setMaxTokens(4);
        QVERIFY(dropAndLoad(app, sharedPath(bench)));
        QString prompt;
        for (int i = 0; i < 140; ++i)
            prompt += QStringLiteral("The little fox ran across the field %1. ").arg(i);
        QSignalSpy finished(app.chat, &ChatController::replyFinished);
        QVERIFY(app.chat->send(prompt));
        // The engine reports the prompt's first chunk: it is reading.
        QTRY_VERIFY_WITH_TIMEOUT(app.chat->reply()->promptProgress() >= 0 || !finished.isEmpty(), 60000);
        QVERIFY2(finished.isEmpty(), qPrintable(QStringLiteral("the reply ended before Stop could be pressed: ")
                                                + app.chat->banner() + QLatin1Char('|') + app.chat->messages()->message(1).error
                                                + QLatin1Char('|') + QString::number(int(app.chat->messages()->message(1).state))
                                                + QLatin1Char('|') + QString::number(app.chat->reply()->promptTokens())));
        const int promptTokens = app.chat->reply()->promptTokens();
        QVERIFY2(promptTokens > 1500, qPrintable(QString::number(promptTokens)));
        QElapsedTimer sinceStop;
        sinceStop.start();
        QTest::keyClick(app.window, Qt::Key_Escape);   // the window's Stop action
        QVERIFY(!finished.isEmpty() || finished.wait(60000));
        // Reported, not asserted (speed claims belong to benchmarks).
        qInfo("Stop to the reply's end: %lld ms (prompt of %d tokens)", qint64(sinceStop.elapsed()), promptTokens);
        const MessageModel::Message reply = app.chat->messages()->message(1);
        QCOMPARE(reply.state, Chat::State::Stopped);
        QCOMPARE(reply.text, QString());
        QCOMPARE(reply.tokens, 0);
        QVERIFY2(app.chat->reply()->contextUsed() < promptTokens,
                 qPrintable(QStringLiteral("%1 of %2").arg(app.chat->reply()->contextUsed()).arg(promptTokens)));

        // The next request runs to its end.
        app.chat->clearConversation();
        const QString next = sendAndWait(app, QStringLiteral("Once upon a time"));
        QVERIFY2(!next.isEmpty() && !next.startsWith(QLatin1Char('<')), qPrintable(next));
        QCOMPARE(app.chat->messages()->message(1).state, Chat::State::Complete);
    }

    // Two chats write at once (the engine's scheduler): a reply keeps
    // streaming into its chat while another is shown and sent in; the
    // sidebar marks both while they run; each reply lands in its own
    // conversation in the store.
    void twoChatsStreamAtOnce()
    {
        const QString bench = QStringLiteral("models/bench/llama-155M-Q4_K_M.gguf");
        BURROW_REQUIRE_SHARED(bench);
        AppWindow app;
        QVERIFY(app.open());
        app.chat->settings()->setContextSize(1024);
        app.chat->settings()->setTemperature(0.0);
        app.chat->settings()->setMaxTokens(48);
        QVERIFY(dropAndLoad(app, sharedPath(bench)));
        // Prompts of some hundred tokens: each reply spends a while on its
        // prompt, so the two overlap however fast the machine is.
        auto longPrompt = [](const QString &animal) {
            QString text;
            for (int i = 0; i < 40; ++i)
                text += QStringLiteral("The %1 walked to the river %2. ").arg(animal).arg(i);
            return text + QStringLiteral("Then the %1 said").arg(animal);
        };
        QSignalSpy finished(app.chat, &ChatController::replyFinished);
        const qint64 first = qint64(app.chat->conversationId());
        QVERIFY(app.chat->send(longPrompt(QStringLiteral("fox"))));
        const qint64 second = qint64(app.chat->newConversation());
        QVERIFY(second > 0 && second != first);
        app.chat->settings()->setContextSize(1024);
        app.chat->settings()->setTemperature(0.0);
        app.chat->settings()->setMaxTokens(48);
        QVERIFY2(app.chat->canSend(), "the shown chat can send while another chat writes");
        QVERIFY(app.chat->send(longPrompt(QStringLiteral("bear"))));
        QVERIFY(finished.isEmpty());
        QCOMPARE(app.chat->generatingIds().size(), 2);
        // The sidebar marks both chats (its rows are made at its next polish).
        // (Delegates are the list's visual children, not its QObject children.)
        std::function<int(QQuickItem *)> marked = [&](QQuickItem *item) {
            int n = item->objectName() == QLatin1String("generatingIndicator") && item->isVisible() ? 1 : 0;
            for (QQuickItem *child : item->childItems())
                n += marked(child);
            return n;
        };
        auto markedRows = [&] { return marked(app.window->contentItem()); };
        QTRY_VERIFY_WITH_TIMEOUT(markedRows() == 2 || !finished.isEmpty(), 5000);
        QVERIFY2(finished.isEmpty(), qPrintable(QStringLiteral("a reply ended before the sidebar showed both writing: %1 marked, %2")
                                                    .arg(markedRows()).arg(app.chat->messages()->message(1).error)));
        QCOMPARE(markedRows(), 2);

        QTRY_VERIFY_WITH_TIMEOUT(finished.size() == 2, 120000);
        QVERIFY(app.chat->generatingIds().isEmpty());
        QTRY_COMPARE(markedRows(), 0);
        QString replies[2];
        int i = 0;
        for (qint64 id : {first, second}) {
            const QVector<MessageRecord> rows = app.chat->store()->messages(id);
            QCOMPARE(rows.size(), 2);
            QCOMPARE(rows.at(0).role, Chat::Role::User);
            QCOMPARE(rows.at(1).role, Chat::Role::Assistant);
            QCOMPARE(rows.at(1).state, Chat::State::Complete);
            QVERIFY2(!rows.at(1).content.trimmed().isEmpty(), qPrintable(QString::number(id)));
            QVERIFY(rows.at(1).generatedTokens > 0);
            // What the chat shows is what the store has.
            QVERIFY(app.chat->openConversation(double(id)));
            QCOMPARE(app.chat->messages()->rowCount(), 2);
            QCOMPARE(app.chat->messages()->message(1).text, rows.at(1).content);
            replies[i++] = rows.at(1).content;
        }
        QVERIFY2(replies[0] != replies[1], qPrintable(replies[0]));
        QVERIFY2(replies[1].contains(QStringLiteral("bear")) || !replies[0].contains(QStringLiteral("bear")),
                 qPrintable(replies[0] + QStringLiteral(" | ") + replies[1]));
    }

    void switchModelsWhileAReplyStreams()
    {
        BURROW_REQUIRE_SHARED(storiesModel);
        BURROW_REQUIRE_SHARED(otherModel);
        const QJsonObject reference = referenceGeneration(QStringLiteral("stories260K.0"));
        AppWindow app;
        QVERIFY(app.open());
        app.chat->settings()->setContextSize(512);
        QVERIFY(dropAndLoad(app, sharedPath(otherModel)));
        QCOMPARE(app.chat->models()->model().name.isEmpty(), false);

        // A long reply (no length limit), then the other model is dropped.
        app.chat->settings()->setTemperature(0.8);
        app.chat->settings()->setMaxTokens(2000);
        QSignalSpy replies(app.chat, &ChatController::replyFinished);
        QVERIFY(app.chat->send(QStringLiteral("Once upon a time")));
        QVERIFY(dropAndLoad(app, sharedPath(storiesModel)));
        QCOMPARE(replies.size(), 1);   // the reply ended before the new model was in place
        const auto &reply = app.chat->messages()->message(1);
        QVERIFY2(reply.state == Chat::State::Stopped || reply.state == Chat::State::Complete,
                 qPrintable(QString::number(int(reply.state))));
        QCOMPARE(app.chat->models()->model().path, QFileInfo(sharedPath(storiesModel)).absoluteFilePath());

        // The new model answers as the reference says.
        app.chat->clearConversation();
        useReferenceSettings(app.chat, reference);
        QCOMPARE(sendAndWait(app, reference.value(QStringLiteral("prompt")).toString()),
                 reference.value(QStringLiteral("greedy_text")).toString());
    }
};

QTEST_MAIN(TestChatWindow)
#include "tst_chatwindow.moc"
