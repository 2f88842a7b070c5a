// The main screens by keyboard alone, in the window on an X display, by real
// key presses: open a model by a path typed in the file dialog and load it
// with Enter on the model card; write (Tab leaves the composer, Shift+Enter
// keeps a line break), send; a new chat; find the first chat again (Ctrl+F,
// Down reaches the results, Enter opens); delete it and bring it back with
// Ctrl+Z; the chat's settings from the Chat menu's letter; the model library
// (Down reaches the first model, Enter opens it). Where the focus lands it is
// visible: a focused control draws its focus, the chat list frames its row.
// On main: Tab wrote a tab into the message and the focus never left it,
// Enter did not press Load, Down from a search reached no result, Ctrl+Z did
// nothing and menus ignored their letters.
#include "uiharness.h"
#include "apptestsupport.h"

#include <QDir>
#include <QSettings>
#include <QTemporaryDir>

Q_IMPORT_QML_PLUGIN(BurrowPlugin)

using namespace burrow::test;

namespace {

QString focusName(AppWindow &app)
{
    QQuickItem *item = app.window->activeFocusItem();
    return item ? item->objectName() + QLatin1Char('/') + QString::fromLatin1(item->metaObject()->className())
                : QStringLiteral("nothing");
}

// The item with the keyboard focus is `objectName` (≤ 5 s).
bool focusIs(AppWindow &app, const QString &objectName)
{
    return QTest::qWaitFor([&] {
        QQuickItem *item = app.window->activeFocusItem();
        return item && item->objectName() == objectName;
    }, 5000);
}

// The keyboard focus is in `objectName` or an item inside it (a list's row) (≤ 5 s).
bool focusWithin(AppWindow &app, const QString &objectName)
{
    return QTest::qWaitFor([&] {
        for (QQuickItem *item = app.window->activeFocusItem(); item; item = item->parentItem())
            if (item->objectName() == objectName)
                return true;
        return false;
    }, 5000);
}

// The shown model card (its dialog item), or null.
QQuickItem *shownCard(AppWindow &app)
{
    return ui::findShown(app.window->contentItem(), [](QQuickItem *i) {
        return i->objectName() == QLatin1String("cardName");
    });
}

} // namespace

class TestKeyboard : public QObject {
    Q_OBJECT
    QString m_model;

private slots:
    void initTestCase()
    {
        BURROW_REQUIRE_SHARED(QStringLiteral("models/stories260K.gguf"));
        m_model = sharedPath(QStringLiteral("models/stories260K.gguf"));
        // Short replies (the flow is the subject, not the story), and the
        // model in Burrow's own models folder, where the library finds it.
        QSettings().setValue(QStringLiteral("chat/defaults"), QStringLiteral("{\"maxTokens\":16}"));
        const QString models = ConversationStore::defaultDatabasePath().section(u'/', 0, -2) + QStringLiteral("/models");
        QVERIFY(QDir().mkpath(models));
        QFile::remove(models + QStringLiteral("/stories260K.gguf"));
        QVERIFY(QFile::link(m_model, models + QStringLiteral("/stories260K.gguf")));
    }
    void init() { failOnQmlErrors(); }
    void cleanup() { ui::keepScreenshotOnFailure(); }

    void mainScreensByKeyboard()
    {
        AppWindow app;
        ui::ScreenshotOnFailure screenshot;
        QVERIFY(app.open());
        ConversationStore *store = app.chat->store();
        QTRY_VERIFY(store->isReady());
        QVERIFY2(focusIs(app, QStringLiteral("composerInput")), qPrintable(focusName(app)));

        // Ctrl+O, Ctrl+L, a path, Enter: the model card, with the focus.
        QVERIFY(ui::key(QStringLiteral("ctrl+o")));
        QTest::qWait(500);
        QVERIFY(ui::key(QStringLiteral("ctrl+l")));
        QTest::qWait(200);
        QVERIFY(ui::type(m_model));
        QVERIFY(ui::key(QStringLiteral("Return")));
        QTRY_VERIFY_WITH_TIMEOUT(shownCard(app), 10000);
        QVERIFY(ui::key(QStringLiteral("Return")));   // Load
        QTRY_VERIFY_WITH_TIMEOUT(app.chat->models()->hasModel(), 20000);
        QTRY_VERIFY(!shownCard(app));
        QVERIFY2(focusIs(app, QStringLiteral("composerInput")), qPrintable(focusName(app)));

        // Write: Tab leaves the composer for Send (drawn focused), Shift+Tab
        // comes back; Shift+Enter keeps a line break; Enter sends.
        auto *input = app.find(QStringLiteral("composerInput"));
        QVERIFY(ui::type(QStringLiteral("Once upon a time")));
        QVERIFY(ui::key(QStringLiteral("Tab")));
        QVERIFY2(focusIs(app, QStringLiteral("composerButton")), qPrintable(focusName(app)));
        QVERIFY(app.window->activeFocusItem()->property("visualFocus").toBool());
        QCOMPARE(input->property("text").toString(), QStringLiteral("Once upon a time"));
        QVERIFY(ui::key(QStringLiteral("shift+Tab")));
        QVERIFY2(focusIs(app, QStringLiteral("composerInput")), qPrintable(focusName(app)));
        QVERIFY(ui::key(QStringLiteral("End shift+Return")));
        QVERIFY(ui::type(QStringLiteral("there was a cat named Zuzzlewick")));
        QVERIFY(ui::key(QStringLiteral("Return")));
        ui::StoreReader db(ConversationStore::defaultDatabasePath());
        QTRY_COMPARE_WITH_TIMEOUT(db.value(QStringLiteral("SELECT content FROM messages WHERE role = 'user'")).toString(),
                                  QStringLiteral("Once upon a time\nthere was a cat named Zuzzlewick"), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(db.value(QStringLiteral("SELECT state FROM messages WHERE role = 'assistant'")).toString(),
                                  QStringLiteral("complete"), 30000);
        // The message is shown as written: two lines (Markdown joined them into one).
        QQuickItem *shown = nullptr;
        QTRY_VERIFY((shown = ui::findShown(app.find(QStringLiteral("messageList")), [](QQuickItem *i) {
            return i->inherits("QQuickTextEdit") && i->property("text").toString().startsWith(QLatin1String("Once upon"));
        })));
        QCOMPARE(shown->property("lineCount").toInt(), 2);
        const qint64 first = qint64(app.chat->conversationId());

        // A new chat (Ctrl+N), and a message there.
        QVERIFY(ui::key(QStringLiteral("ctrl+n")));
        QTRY_VERIFY(qint64(app.chat->conversationId()) != first);
        QVERIFY2(focusIs(app, QStringLiteral("composerInput")), qPrintable(focusName(app)));
        QVERIFY(ui::type(QStringLiteral("Lily had a dog")));
        QVERIFY(ui::key(QStringLiteral("Return")));
        QTRY_COMPARE_WITH_TIMEOUT(db.value(QStringLiteral("SELECT count(*) FROM messages WHERE state = 'complete'")).toInt(),
                                  4, 30000);

        // Back to the first chat: Ctrl+F, a word of it, Down reaches the
        // result (framed), Enter opens it.
        QVERIFY(ui::key(QStringLiteral("ctrl+f")));
        QVERIFY2(focusIs(app, QStringLiteral("searchField")), qPrintable(focusName(app)));
        // (a made-up name: the model's random replies may hold any common word)
        QVERIFY(ui::type(QStringLiteral("Zuzzlewick")));
        auto *list = app.find(QStringLiteral("conversationList"));
        QTRY_COMPARE(list->property("count").toInt(), 1);
        QVERIFY(ui::key(QStringLiteral("Down")));
        QVERIFY2(focusWithin(app, QStringLiteral("conversationList")), qPrintable(focusName(app)));
        QCOMPARE(list->property("currentIndex").toInt(), 0);
        QTRY_VERIFY(ui::findShown(list, [](QQuickItem *i) { return i->objectName() == QLatin1String("focusFrame"); }));
        QVERIFY(ui::key(QStringLiteral("Return")));
        QTRY_COMPARE(qint64(app.chat->conversationId()), first);

        // Delete it from the list (Delete), bring it back (Ctrl+Z).
        // (Ctrl+F, Escape: the search is cleared and both chats are listed.)
        QVERIFY(ui::key(QStringLiteral("ctrl+f Escape")));
        QTRY_COMPARE(list->property("count").toInt(), 2);
        QVERIFY(ui::key(QStringLiteral("Down")));
        QVERIFY2(focusWithin(app, QStringLiteral("conversationList")), qPrintable(focusName(app)));
        const QString live = QStringLiteral("SELECT count(*) FROM conversations WHERE deleted_at IS NULL");
        const int before = db.value(live).toInt();
        QVERIFY(ui::key(QStringLiteral("Delete")));
        QTRY_COMPARE(db.value(live).toInt(), before - 1);
        QVERIFY(app.find(QStringLiteral("undoBar"))->isVisible());
        QVERIFY(ui::key(QStringLiteral("ctrl+z")));
        QTRY_COMPARE(db.value(live).toInt(), before);
        QTRY_VERIFY(!app.find(QStringLiteral("undoBar"))->isVisible());

        // The chat's settings from the Chat menu's letter (Chat s&ettings…);
        // Escape closes them and the composer has the keys again.
        QVERIFY(ui::key(QStringLiteral("alt+c")));
        QVERIFY(ui::key(QStringLiteral("e")));
        auto *drawer = app.window->findChild<QObject *>(QStringLiteral("chatSettingsDrawer"));
        QVERIFY(drawer);
        QTRY_VERIFY(drawer->property("opened").toBool());
        QVERIFY(ui::key(QStringLiteral("Escape")));
        QTRY_VERIFY(!drawer->property("visible").toBool());
        QVERIFY2(focusIs(app, QStringLiteral("composerInput")), qPrintable(focusName(app)));

        // The library (Ctrl+Shift+L): the search has the keys, Down marks
        // the first model, Enter opens it and the chat comes back.
        QSignalSpy loaded(app.chat, &ChatController::loadFinished);
        QVERIFY(ui::key(QStringLiteral("ctrl+shift+l")));
        QVERIFY2(focusIs(app, QStringLiteral("librarySearch")), qPrintable(focusName(app)));
        QVERIFY(ui::type(QStringLiteral("stories")));
        auto *libraryList = app.find(QStringLiteral("libraryList"));
        QTRY_VERIFY_WITH_TIMEOUT(libraryList->property("count").toInt() >= 1, 10000);
        QVERIFY(ui::key(QStringLiteral("Down")));
        QVERIFY2(focusWithin(app, QStringLiteral("libraryList")), qPrintable(focusName(app)));
        QCOMPARE(libraryList->property("currentIndex").toInt(), 0);
        QVERIFY(ui::key(QStringLiteral("Return")));
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 20000);
        QVERIFY(loaded.first().first().toBool());
        QTRY_VERIFY(!app.find(QStringLiteral("modelLibraryView"))->isVisible());
        QVERIFY2(focusIs(app, QStringLiteral("composerInput")), qPrintable(focusName(app)));
    }
};

BURROW_UI_TEST_MAIN(TestKeyboard)
#include "tst_keyboard.moc"
