// ChatController and the chat window with a fake backend whose timing the
// test controls: coalesced streaming, stop mid-reply, switching models while
// a reply streams, regenerate, edit and resend, refused files.
#include <QAccessible>
#include <QGuiApplication>
#include <QStyleHints>
#include <QTemporaryDir>

#include "apptestsupport.h"
#include "fakebackend.h"
#include "backend/enginebridge.h"

Q_IMPORT_QML_PLUGIN(BurrowPlugin)

using namespace burrow::test;

// Declared after the window in a test: unblocks a gated reply before the
// window (and its engine thread) goes, also when a check failed early.
struct AbortOnExit {
    std::shared_ptr<FakeControl> control;
    ~AbortOnExit() { control->abort = true; }
};

class TestChatController : public QObject {
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

    bool load(AppWindow &app, const QString &name)
    {
        QSignalSpy finished(app.chat, &ChatController::loadFinished);
        app.chat->models()->openFile(file(name), false);
        return finished.wait(10000) && finished.first().first().toBool();
    }

    QString replyText(AppWindow &app) const
    {
        const int rows = app.chat->messages()->rowCount();
        return rows ? app.chat->messages()->message(rows - 1).text : QString();
    }

private Q_SLOTS:
    void init()
    {
        m_control = std::make_shared<FakeControl>();
        EngineBridge::setBackendFactory(fakeFactory(m_control));
    }

    void cleanup()
    {
        m_control->abort = true;   // unblocks a gated reply before the window goes
        EngineBridge::resetBackendFactory();
    }

    void streamsPiecesAndStopsMidReply()
    {
        AppWindow app;
        AbortOnExit guard{m_control};
        QVERIFY(app.open());
        QVERIFY(load(app, QStringLiteral("good.gguf")));
        QSignalSpy finished(app.chat, &ChatController::replyFinished);
        const int flashMs = QGuiApplication::styleHints()->cursorFlashTime();
        QVERIFY(app.chat->send(QStringLiteral("Tell me")));
        QVERIFY(app.chat->isGenerating());
        QCOMPARE(app.chat->messages()->message(1).state, Chat::State::Streaming);
        // While it streams the cursors do not blink (each blink is a frame).
        QCOMPARE(QGuiApplication::styleHints()->cursorFlashTime(), 0);

        m_control->release(2);
        QTRY_COMPARE(replyText(app), QStringLiteral("Once upon"));
        QVERIFY(app.chat->isGenerating());
        // The Stop button (the composer's button while generating).
        auto *button = app.find(QStringLiteral("composerButton"));
        QVERIFY(button);
        QCOMPARE(button->property("text").toString(), QStringLiteral("Stop"));
        clickItem(app.window, button);
        m_control->release(1);   // the engine computes one more piece, which is dropped
        QVERIFY(finished.wait(5000));
        QCOMPARE(replyText(app), QStringLiteral("Once upon"));
        QCOMPARE(app.chat->messages()->message(1).state, Chat::State::Stopped);
        QVERIFY(!app.chat->isGenerating());
        QTRY_COMPARE(button->property("text").toString(), QStringLiteral("Send"));
        QCOMPARE(QGuiApplication::styleHints()->cursorFlashTime(), flashMs);
    }

    void escapeStopsTheReply()
    {
        AppWindow app;
        AbortOnExit guard{m_control};
        QVERIFY(app.open());
        QVERIFY(load(app, QStringLiteral("good.gguf")));
        QSignalSpy finished(app.chat, &ChatController::replyFinished);
        QVERIFY(app.chat->send(QStringLiteral("Tell me")));
        m_control->release(1);
        QTRY_COMPARE(replyText(app), QStringLiteral("Once"));
        QTest::keyClick(app.window, Qt::Key_Escape);
        m_control->release(1);
        QVERIFY(finished.wait(5000));
        QCOMPARE(app.chat->messages()->message(1).state, Chat::State::Stopped);
        QCOMPARE(replyText(app), QStringLiteral("Once"));
    }

    void fastPiecesAreCoalesced()
    {
        m_control->gated = false;
        m_control->pieces.clear();
        for (int i = 0; i < 2000; ++i)
            m_control->pieces.append(QStringLiteral("x"));
        AppWindow app;
        AbortOnExit guard{m_control};
        QVERIFY(app.open());
        QVERIFY(load(app, QStringLiteral("good.gguf")));
        int updates = 0;
        connect(app.chat->messages(), &MessageModel::dataChanged, this,
                [&](const QModelIndex &, const QModelIndex &, const QList<int> &roles) {
                    if (roles.contains(MessageModel::TextRole))
                        ++updates;
                });
        QSignalSpy finished(app.chat, &ChatController::replyFinished);
        QVERIFY(app.chat->send(QStringLiteral("Go")));
        QVERIFY(finished.wait(10000));
        QCOMPARE(replyText(app), QString(2000, QLatin1Char('x')));
        // 2000 pieces reach the view in far fewer updates.
        QVERIFY2(updates < 2000, qPrintable(QString::number(updates)));
        QCOMPARE(app.chat->messages()->message(1).state, Chat::State::Complete);
    }

    void switchingModelsStopsTheReplyFirst()
    {
        AppWindow app;
        AbortOnExit guard{m_control};
        QVERIFY(app.open());
        QVERIFY(load(app, QStringLiteral("good-a.gguf")));
        QSignalSpy replies(app.chat, &ChatController::replyFinished);
        QVERIFY(app.chat->send(QStringLiteral("Tell me")));
        m_control->release(1);
        QTRY_COMPARE(replyText(app), QStringLiteral("Once"));

        QSignalSpy loaded(app.chat, &ChatController::loadFinished);
        dropFile(app.window, file(QStringLiteral("good-b.gguf")));
        QTRY_VERIFY(app.chat->models()->pendingCard().isValid());
        QCOMPARE(app.chat->models()->pendingCard().name, QStringLiteral("good-b"));
        app.chat->models()->loadPending();
        QVERIFY(app.chat->models()->isLoading());
        m_control->release(1);
        QVERIFY(loaded.wait(5000));
        QCOMPARE(replies.size(), 1);
        QCOMPARE(app.chat->messages()->message(1).state, Chat::State::Stopped);
        QCOMPARE(replyText(app), QStringLiteral("Once"));
        QCOMPARE(app.chat->models()->model().name, QStringLiteral("good-b"));
        QCOMPARE(m_control->loads.load(), 2);
    }

    void refusedLoadKeepsModel()
    {
        AppWindow app;
        AbortOnExit guard{m_control};
        QVERIFY(app.open());
        QVERIFY(load(app, QStringLiteral("good.gguf")));
        QSignalSpy finished(app.chat, &ChatController::loadFinished);
        app.chat->models()->openFile(file(QStringLiteral("refused.gguf")), false);
        QVERIFY(finished.wait(5000));
        QCOMPARE(finished.first().first().toBool(), false);
        QVERIFY(app.chat->banner().contains(QStringLiteral("fake refusal")));
        QVERIFY(app.chat->banner().contains(QStringLiteral("good")));  // "... good stays loaded."
        QCOMPARE(app.chat->models()->model().name, QStringLiteral("good"));

        finished.clear();
        app.chat->models()->openFile(file(QStringLiteral("corrupt.gguf")), false);
        QVERIFY(finished.wait(5000));
        QVERIFY(app.chat->banner().contains(QStringLiteral("fake header error")));
        QCOMPARE(m_control->loads.load(), 2);   // a file refused by its header is never loaded

        app.chat->dismissBanner();
        QCOMPARE(app.chat->banner(), QString());
        app.chat->models()->openUrls({QUrl(QStringLiteral("https://example.com/model.gguf"))});
        QVERIFY(!app.chat->banner().isEmpty());
    }

    void refusalReasons_data()
    {
        QTest::addColumn<QList<QUrl>>("urls");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("gguf") << QList<QUrl>{QUrl::fromLocalFile(QStringLiteral("/tmp/a.gguf"))} << true;
        QTest::newRow("GGUF upper case") << QList<QUrl>{QUrl::fromLocalFile(QStringLiteral("/tmp/a.GGUF"))} << true;
        QTest::newRow("text") << QList<QUrl>{QUrl::fromLocalFile(QStringLiteral("/tmp/a.txt"))} << false;
        QTest::newRow("two files") << QList<QUrl>{QUrl::fromLocalFile(QStringLiteral("/tmp/a.gguf")),
                                                  QUrl::fromLocalFile(QStringLiteral("/tmp/b.gguf"))} << false;
        QTest::newRow("remote") << QList<QUrl>{QUrl(QStringLiteral("https://example.com/a.gguf"))} << false;
        QTest::newRow("nothing") << QList<QUrl>{} << false;
    }

    void refusalReasons()
    {
        QFETCH(QList<QUrl>, urls);
        QFETCH(bool, accepted);
        ChatController chat;
        QCOMPARE(chat.models()->refusalFor(urls).isEmpty(), accepted);
    }

    void regenerateAndEditReplaceLaterMessages()
    {
        m_control->gated = false;
        AppWindow app;
        AbortOnExit guard{m_control};
        QVERIFY(app.open());
        QVERIFY(load(app, QStringLiteral("good.gguf")));
        QSignalSpy finished(app.chat, &ChatController::replyFinished);
        QVERIFY(app.chat->send(QStringLiteral("First")));
        QVERIFY(finished.wait(5000));
        QVERIFY(app.chat->send(QStringLiteral("Second")));
        QVERIFY(finished.wait(5000));
        QCOMPARE(app.chat->messages()->rowCount(), 4);

        // The request carried the whole conversation, oldest first.
        const ChatRequest last = m_control->requests.last();
        QCOMPARE(last.messages.size(), size_t(3));
        QCOMPARE(last.messages.at(0).content, std::string("First"));
        QCOMPARE(last.messages.at(1).role, std::string("assistant"));
        QCOMPARE(last.messages.at(2).content, std::string("Second"));
        QCOMPARE(last.rows.at(2), 2);

        QVERIFY(app.chat->canRegenerate());
        QVERIFY(app.chat->regenerate());
        QVERIFY(finished.wait(5000));
        QCOMPARE(app.chat->messages()->rowCount(), 4);
        QCOMPARE(m_control->requests.last().messages.size(), size_t(3));

        QVERIFY(app.chat->editDiscardsReplies(0));
        QVERIFY(!app.chat->editDiscardsReplies(3));
        QVERIFY(app.chat->editAndResend(0, QStringLiteral("Edited")));
        QVERIFY(finished.wait(5000));
        QCOMPARE(app.chat->messages()->rowCount(), 2);
        QCOMPARE(app.chat->messages()->message(0).text, QStringLiteral("Edited"));
        QCOMPARE(m_control->requests.last().messages.size(), size_t(1));
        QVERIFY(!app.chat->editAndResend(1, QStringLiteral("not a user message")));

        app.chat->settings()->setSystemPrompt(QStringLiteral("Be brief."));
        QVERIFY(app.chat->send(QStringLiteral("Third")));
        QVERIFY(finished.wait(5000));
        QCOMPARE(m_control->requests.last().settings.systemPrompt, std::string("Be brief."));

        app.chat->clearConversation();
        QCOMPARE(app.chat->messages()->rowCount(), 0);
    }

    void everyControlHasAnAccessibleName()
    {
        m_control->gated = false;
        AppWindow app;
        AbortOnExit guard{m_control};
        QVERIFY(app.open());
        QVERIFY(load(app, QStringLiteral("good.gguf")));
        QSignalSpy finished(app.chat, &ChatController::replyFinished);
        QVERIFY(app.chat->send(QStringLiteral("Show me `code`:\n```sh\nls\n```")));
        QVERIFY(finished.wait(5000));
        QTest::qWait(50);

        int controls = 0;
        QStringList unnamed;
        QList<QQuickItem *> items;
        std::function<void(QQuickItem *)> collect = [&](QQuickItem *parent) {
            for (QQuickItem *child : parent->childItems()) {
                items.append(child);
                collect(child);
            }
        };
        collect(app.window->contentItem());
        for (QQuickItem *item : std::as_const(items)) {
            if (!item->isVisible())
                continue;
            const bool isControl = item->inherits("QQuickAbstractButton") || item->inherits("QQuickTextArea")
                || item->inherits("QQuickProgressBar") || item->inherits("QQuickSpinBox");
            if (!isControl)
                continue;
            ++controls;
            QAccessibleInterface *iface = QAccessible::queryAccessibleInterface(item);
            if (!iface || iface->text(QAccessible::Name).trimmed().isEmpty())
                unnamed.append(QString::fromLatin1(item->metaObject()->className()) + QLatin1Char('/')
                               + item->property("text").toString());
        }
        QVERIFY(controls >= 5);
        QVERIFY2(unnamed.isEmpty(), qPrintable(unnamed.join(QStringLiteral(", "))));
    }

    void ctrlLFocusesTheComposer()
    {
        AppWindow app;
        AbortOnExit guard{m_control};
        QVERIFY(app.open());
        auto *input = app.find(QStringLiteral("composerInput"));
        auto *button = app.find(QStringLiteral("emptyStateOpen"));
        QVERIFY(input && button);
        button->forceActiveFocus();
        QVERIFY(!input->hasActiveFocus());
        QTest::keyClick(app.window, Qt::Key_L, Qt::ControlModifier);
        QTRY_VERIFY(input->hasActiveFocus());
    }

    void viewFollowsTheEndUnlessScrolledUp()
    {
        m_control->gated = false;
        m_control->pieces = QStringList(40, QStringLiteral("A line of a long story.\n\n"));
        AppWindow app;
        AbortOnExit guard{m_control};
        QVERIFY(app.open());
        QVERIFY(load(app, QStringLiteral("good.gguf")));
        auto *view = app.find(QStringLiteral("chatView"));
        auto *list = app.find(QStringLiteral("messageList"));
        QVERIFY(view && list);
        QSignalSpy finished(app.chat, &ChatController::replyFinished);
        for (int i = 0; i < 3; ++i) {
            QVERIFY(app.chat->send(QStringLiteral("Go on")));
            QVERIFY(finished.wait(5000));
        }
        QTRY_VERIFY2(list->property("atYEnd").toBool(),
                     qPrintable(QStringLiteral("following %1 contentY %2 originY %3 height %4 contentHeight %5")
                                    .arg(view->property("following").toBool())
                                    .arg(list->property("contentY").toReal())
                                    .arg(list->property("originY").toReal())
                                    .arg(list->height())
                                    .arg(list->property("contentHeight").toReal())));
        QVERIFY(view->property("following").toBool());
        QTest::qWait(200);   // let the delegates settle

        // The user scrolls up with the wheel: the view stays there while a reply streams.
        const QPointF centre = list->mapToScene(QPointF(list->width() / 2, list->height() / 2));
        for (int i = 0; i < 10; ++i) {
            QWheelEvent wheel(centre, app.window->mapToGlobal(centre), QPoint(), QPoint(0, 240), Qt::NoButton,
                              Qt::NoModifier, Qt::NoScrollPhase, false);
            QCoreApplication::sendEvent(app.window, &wheel);
        }
        QTRY_VERIFY2(!view->property("following").toBool(),
                     qPrintable(QStringLiteral("contentY %1 height %2 contentHeight %3")
                                    .arg(list->property("contentY").toReal())
                                    .arg(list->height())
                                    .arg(list->property("contentHeight").toReal())));
        QTRY_VERIFY(!list->property("moving").toBool());
        QTest::qWait(100);
        const qreal scrolledTo = list->property("contentY").toReal();
        QVERIFY(app.chat->send(QStringLiteral("More")));
        QVERIFY(finished.wait(5000));
        QTest::qWait(50);
        QVERIFY2(qAbs(list->property("contentY").toReal() - scrolledTo) < 1.0,
                 qPrintable(QStringLiteral("%1 vs %2").arg(list->property("contentY").toReal()).arg(scrolledTo)));
        QVERIFY(!list->property("atYEnd").toBool());

        // "Jump to latest" brings it back and it follows again.
        auto *jump = app.find(QStringLiteral("jumpToLatest"));
        QVERIFY(jump && jump->isVisible());
        clickItem(app.window, jump);
        QTRY_VERIFY(list->property("atYEnd").toBool());
        QVERIFY(view->property("following").toBool());
    }

    void composerWithoutModelSaysHowToGetOne()
    {
        AppWindow app;
        AbortOnExit guard{m_control};
        QVERIFY(app.open());
        auto *input = app.find(QStringLiteral("composerInput"));
        QVERIFY(input);
        QVERIFY(input->property("placeholderText").toString().contains(QStringLiteral(".gguf")));
        QVERIFY(!app.chat->send(QStringLiteral("hello")));
        QCOMPARE(app.chat->messages()->rowCount(), 0);
    }
};

QTEST_MAIN(TestChatController)
#include "tst_chatcontroller.moc"
