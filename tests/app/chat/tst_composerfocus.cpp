// Where typing goes: the composer has the keyboard focus at start, after a
// model loads, after switching or creating a chat and after a dialog closes,
// in the real window (offscreen, activated like a window manager does). The
// bug it guards: start `burrow MODEL.gguf`, type, press Enter — and nothing
// happened, because nothing had the focus.
#include <QTemporaryDir>

#include "apptestsupport.h"
#include "fakebackend.h"

Q_IMPORT_QML_PLUGIN(BurrowPlugin)

using namespace burrow::test;

class TestComposerFocus : public QObject {
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

    // The composer's input has the active focus (waits for the window to get there).
    static bool composerHasFocus(AppWindow &app)
    {
        auto *input = app.find(QStringLiteral("composerInput"));
        return input && QTest::qWaitFor([&] { return input->hasActiveFocus(); }, 3000);
    }
    static QString focusName(AppWindow &app)
    {
        QQuickItem *item = app.window->activeFocusItem();
        return item ? item->objectName() + QLatin1Char('/') + QString::fromLatin1(item->metaObject()->className())
                    : QStringLiteral("nothing");
    }
    // Takes the focus away from the composer (as a click elsewhere would).
    static void focusElsewhere(AppWindow &app)
    {
        auto *search = app.find(QStringLiteral("searchField"));
        QVERIFY(search);
        search->forceActiveFocus();
        QVERIFY(!app.find(QStringLiteral("composerInput"))->hasActiveFocus());
    }
    // The sidebar's row showing `conversationId` (its delegate), or null.
    static QQuickItem *rowFor(QQuickItem *list, qint64 conversationId)
    {
        QMetaObject::invokeMethod(list, "forceLayout");
        auto *content = list->property("contentItem").value<QQuickItem *>();
        if (!content)
            return nullptr;
        const QList<QQuickItem *> items = content->childItems();
        for (QQuickItem *item : items) {
            if (item->objectName().startsWith(QLatin1String("conversation_"))
                && item->property("conversationId").toLongLong() == conversationId)
                return item;
        }
        return nullptr;
    }
    bool load(AppWindow &app, const QString &name)
    {
        QSignalSpy finished(app.chat, &ChatController::loadFinished);
        app.chat->models()->openFile(file(name), false);
        return finished.wait(10000) && finished.first().first().toBool();
    }

private Q_SLOTS:
    void init()
    {
        failOnQmlErrors();
        m_control = std::make_shared<FakeControl>();
        m_control->gated = false;
        EngineBridge::setBackendFactory(fakeFactory(m_control));
    }
    void cleanup()
    {
        m_control->abort = true;
        EngineBridge::resetBackendFactory();
    }

    void atStart()
    {
        AppWindow app;
        QVERIFY(app.open());
        QVERIFY2(composerHasFocus(app), qPrintable(focusName(app)));
    }

    // The bug as a user meets it: the model comes from the command line (no
    // click anywhere), the user types a sentence and presses Enter.
    void typingAfterStartSends()
    {
        AppWindow app;
        QVERIFY(app.open());
        QSignalSpy loaded(app.chat, &ChatController::loadFinished);
        app.chat->models()->openPath(file(QStringLiteral("good.gguf")));
        QVERIFY(loaded.wait(10000));
        QSignalSpy finished(app.chat, &ChatController::replyFinished);
        for (char c : QByteArrayLiteral("Once upon a time"))
            QTest::keyClick(app.window, c);
        QTest::keyClick(app.window, Qt::Key_Return);
        QCOMPARE(app.chat->messages()->rowCount(), 2);
        QCOMPARE(app.chat->messages()->message(0).text, QStringLiteral("Once upon a time"));
        QVERIFY(!finished.isEmpty() || finished.wait(10000));
    }

    void afterAModelLoads()
    {
        AppWindow app;
        QVERIFY(app.open());
        focusElsewhere(app);
        QVERIFY(load(app, QStringLiteral("good.gguf")));
        QVERIFY2(composerHasFocus(app), qPrintable(focusName(app)));
    }

    void afterTheModelCardCloses_data()
    {
        QTest::addColumn<QString>("button");
        QTest::newRow("Load") << QStringLiteral("cardLoad");
        QTest::newRow("Escape") << QString();
    }
    void afterTheModelCardCloses()
    {
        QFETCH(QString, button);
        AppWindow app;
        QVERIFY(app.open());
        app.chat->models()->openUrls({QUrl::fromLocalFile(file(QStringLiteral("good.gguf")))});
        auto *dialog = app.find<QObject>(QStringLiteral("modelCardDialog"));
        QVERIFY(dialog);
        QTRY_VERIFY(dialog->property("opened").toBool());
        if (button.isEmpty()) {
            QTest::keyClick(app.window, Qt::Key_Escape);
        } else {
            auto *load = app.find(button);
            QVERIFY(load);
            QTRY_VERIFY(load->isVisible() && load->width() > 0);
            clickItem(app.window, load);
        }
        QTRY_VERIFY(!dialog->property("visible").toBool());
        QVERIFY2(composerHasFocus(app), qPrintable(focusName(app)));
    }

    void afterSwitchingChats()
    {
        AppWindow app;
        QVERIFY(app.open());
        QVERIFY(load(app, QStringLiteral("good.gguf")));
        QSignalSpy finished(app.chat, &ChatController::replyFinished);
        QVERIFY(app.chat->send(QStringLiteral("first chat")));
        QVERIFY(finished.wait(5000));
        const double first = app.chat->conversationId();
        QVERIFY(app.chat->newConversation() > 0);
        QVERIFY(app.chat->send(QStringLiteral("second chat")));
        QVERIFY(finished.wait(5000));
        QVERIFY(app.chat->conversationId() != first);
        // A click on the first chat in the sidebar (the list takes the focus first).
        auto *list = app.find(QStringLiteral("conversationList"));
        QVERIFY(list);
        QQuickItem *row = nullptr;
        QTRY_VERIFY((row = rowFor(list, qint64(first))) && row->isVisible() && row->height() > 0);
        // The left part of the row: the title, not the actions button.
        QTest::mouseClick(app.window, Qt::LeftButton, Qt::NoModifier, row->mapToScene(QPointF(20, row->height() / 2)).toPoint());
        QTRY_COMPARE(app.chat->conversationId(), first);
        QVERIFY2(composerHasFocus(app), qPrintable(focusName(app)));
    }

    void afterCreatingAChat_data()
    {
        QTest::addColumn<bool>("shortcut");
        QTest::newRow("New chat button") << false;
        QTest::newRow("Ctrl+N") << true;
    }
    void afterCreatingAChat()
    {
        QFETCH(bool, shortcut);
        AppWindow app;
        QVERIFY(app.open());
        QVERIFY(load(app, QStringLiteral("good.gguf")));
        QSignalSpy finished(app.chat, &ChatController::replyFinished);
        QVERIFY(app.chat->send(QStringLiteral("a chat")));
        QVERIFY(finished.wait(5000));
        const double before = app.chat->conversationId();
        focusElsewhere(app);
        if (shortcut) {
            QTest::keyClick(app.window, Qt::Key_N, Qt::ControlModifier);
        } else {
            auto *button = app.find(QStringLiteral("newChatButton"));
            QVERIFY(button);
            clickItem(app.window, button);
        }
        QTRY_VERIFY(app.chat->conversationId() != before);
        QCOMPARE(app.chat->messages()->rowCount(), 0);
        QVERIFY2(composerHasFocus(app), qPrintable(focusName(app)));
    }

    void afterADialogCloses_data()
    {
        QTest::addColumn<QString>("dialog");
        QTest::addColumn<QString>("open");   // what opens it: a button in the window or a method
        QTest::newRow("chat settings") << QStringLiteral("chatSettingsDrawer") << QStringLiteral("chatSettingsButton");
        QTest::newRow("settings for new chats") << QStringLiteral("defaultSettingsDialog") << QString();
        QTest::newRow("about") << QStringLiteral("aboutDialog") << QString();
    }
    void afterADialogCloses()
    {
        QFETCH(QString, dialog);
        QFETCH(QString, open);
        AppWindow app;
        QVERIFY(app.open());
        auto *popup = app.find<QObject>(dialog);
        QVERIFY(popup);
        if (!open.isEmpty()) {
            auto *button = app.find(open);
            QVERIFY(button);
            clickItem(app.window, button);
        } else {
            QVERIFY(QMetaObject::invokeMethod(popup, "open"));
        }
        QTRY_VERIFY(popup->property("opened").toBool());
        // Typing in the dialog moves the focus into it; Esc closes it.
        if (auto *field = popup->findChild<QQuickItem *>(QStringLiteral("field_temperature")))
            field->forceActiveFocus();
        QTest::keyClick(app.window, Qt::Key_Escape);
        QTRY_VERIFY(!popup->property("visible").toBool());
        QVERIFY2(composerHasFocus(app), qPrintable(focusName(app)));
    }
};

QTEST_MAIN(TestComposerFocus)
#include "tst_composerfocus.moc"
