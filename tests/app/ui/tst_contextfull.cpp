// A reply that fills the context, in a real window (issue #26, "Why" 5):
// the bench model (random weights: it never ends a reply by itself) is
// dropped on the window and loaded; in the chat's settings, opened with a
// click on Settings, the context size is typed (64) and "When the context
// is full" is set to Shift and back to Stop (its default) with clicks in
// its list; a prompt is typed and sent.
// The reply ends where the context does, under its text the window says
// the context was full, and the database has the reply complete with its
// context_full mark. (The reply used to end mid-word with nothing said,
// stored as complete.)
#include "apptestsupport.h"
#include "uiharness.h"

using namespace burrow::test;

class TestContextFull : public QObject {
    Q_OBJECT

    std::unique_ptr<AppWindow> m_app;   // closed after a failure's screenshot

    // The item named `name` in the window or its popups (the settings drawer).
    static QQuickItem *item(AppWindow &app, const QString &name)
    {
        return findItem(app.window->contentItem(), name);
    }

    // A visible item showing `text` (an entry of an open list), or null.
    static QQuickItem *shown(QQuickItem *root, const QString &text)
    {
        if (!root || !root->isVisible())
            return nullptr;
        if (root->property("text").toString() == text && root->width() > 0)
            return root;
        for (QQuickItem *child : root->childItems())
            if (QQuickItem *found = shown(child, text))
                return found;
        return nullptr;
    }

    // Opens the list of `box` with a click and clicks its entry `text`.
    static bool choose(AppWindow &app, QQuickItem *box, const QString &text)
    {
        if (!ui::click(ui::centreOf(box)))
            return false;
        QQuickItem *entry = nullptr;
        if (!QTest::qWaitFor([&] { return (entry = shown(app.window->contentItem(), text)) != nullptr; }, 5000))
            return false;
        QTest::qWait(300);   // the list has opened
        return ui::click(ui::centreOf(entry));
    }

private slots:
    void cleanup()
    {
        ui::keepScreenshotOnFailure();   // with the window still on the screen
        m_app.reset();
    }

    void theReplySaysTheContextIsFull()
    {
        const QString bench = QStringLiteral("models/bench/llama-155M-Q4_K_M.gguf");
        BURROW_REQUIRE_SHARED(bench);
        m_app = std::make_unique<AppWindow>();
        AppWindow &app = *m_app;
        QVERIFY(app.open());
        const QPoint middle = app.window->mapToGlobal(QPoint(app.window->width() / 2, app.window->height() / 2));
        QString error;
        QVERIFY2(ui::dragFile(sharedPath(bench), middle, &error), qPrintable(error));
        QVERIFY(ui::pressUntil(QStringLiteral("Return"), [&] { return app.chat->hasModel(); }, 30000));

        // The chat's settings: context 64, stop when full.
        QQuickItem *settingsButton = item(app, QStringLiteral("chatSettingsButton"));
        QVERIFY(settingsButton);
        QVERIFY(ui::click(ui::centreOf(settingsButton)));
        QQuickItem *size = nullptr;
        QTRY_VERIFY((size = item(app, QStringLiteral("field_contextSize"))) && size->isVisible());
        QTest::qWait(300);   // the drawer slides in
        QVERIFY(ui::click(ui::centreOf(size)));
        QVERIFY(ui::key(QStringLiteral("ctrl+a")));
        QVERIFY(ui::type(QStringLiteral("64")));
        QVERIFY(ui::key(QStringLiteral("Return")));
        QTRY_COMPARE(app.chat->settings()->contextSize(), 64);
        // The policy selector: Shift, then back to Stop.
        QQuickItem *policy = item(app, QStringLiteral("field_contextPolicy"));
        QVERIFY(policy);
        // It is further down the panel: the mouse wheel brings it into view.
        QVERIFY(ui::wheelIntoView(policy, size));
        QCOMPARE(app.chat->settings()->contextPolicy(), QStringLiteral("stop"));
        QVERIFY(choose(app, policy, QStringLiteral("Shift: forget the oldest messages and go on")));
        QTRY_COMPARE(app.chat->settings()->contextPolicy(), QStringLiteral("shift"));
        QVERIFY(choose(app, policy, QStringLiteral("Stop the reply")));
        QTRY_COMPARE(app.chat->settings()->contextPolicy(), QStringLiteral("stop"));
        QVERIFY(ui::key(QStringLiteral("Escape")));   // the drawer closes
        QTRY_VERIFY(!policy->isVisible());

        QQuickItem *composer = item(app, QStringLiteral("composerInput"));
        QVERIFY(composer);
        QVERIFY(ui::click(ui::centreOf(composer)));
        QVERIFY(ui::type(QStringLiteral("Once upon a time")));
        QVERIFY(ui::key(QStringLiteral("Return")));

        ui::StoreReader store(ConversationStore::defaultDatabasePath());
        const QString reply = QStringLiteral("SELECT state, context_full, generated_tokens, prompt_tokens FROM messages"
                                             " WHERE role = 'assistant'");
        QTRY_COMPARE_WITH_TIMEOUT(store.rows(reply).value(0).value(0).toString(), QStringLiteral("complete"), 60000);
        const QVariantList row = store.rows(reply).value(0);
        QCOMPARE(row.value(1).toInt(), 1);
        // It filled the context: prompt and reply are 64 positions (the last
        // token sampled had no room).
        QCOMPARE(row.value(2).toInt() + row.value(3).toInt(), 64 + 1);
        // Under the reply (and only there: the user's message has none).
        const QString said = QStringLiteral("The context is full: the reply ends here. A larger context, or \"Shift\" "
                                            "in this chat's settings, lets the next reply go on.");
        QQuickItem *mark = nullptr;
        QTRY_VERIFY((mark = shown(app.window->contentItem(), said)) != nullptr);
        QCOMPARE(mark->objectName(), QStringLiteral("contextFullMark"));
        QVERIFY(mark->mapToScene(QPointF(0, 0)).y() > 0 && mark->mapToScene(QPointF(0, 0)).y() < app.window->height());
    }
};

BURROW_UI_TEST_MAIN(TestContextFull)
#include "tst_contextfull.moc"
