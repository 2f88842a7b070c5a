// Speculative decoding in a real window (issue 30): the chat's setting is
// chosen in its settings panel by real input (the list, then "Draft model…"
// and its file dialog, the path typed after Ctrl+L); a reply is sent and
// written with the draft model; its details (the tooltip over its stats)
// say how many tokens were drafted and accepted; after a restart the chat
// still drafts with that file. The model is ../shared's stories260K, and
// its draft model the same file (every draft it proposes greedily would be
// accepted; sampled, nearly every one).
#include "apptestsupport.h"
#include "uiharness.h"

using namespace burrow::test;

class TestSpeculative : public QObject {
    Q_OBJECT

    std::unique_ptr<AppWindow> m_app;   // closed after a failure's screenshot

    static QQuickItem *item(AppWindow &app, const QString &name) { return findItem(app.window->contentItem(), name); }

    // A shown item whose text satisfies `match` under `root`, or null.
    static QQuickItem *withText(QQuickItem *root, const std::function<bool(const QString &)> &match)
    {
        return ui::findShown(root, [&](QQuickItem *i) { return match(i->property("text").toString()); });
    }

    // Opens the list of `box` with a click and clicks its entry `text`.
    static bool choose(AppWindow &app, QQuickItem *box, const QString &text)
    {
        if (!ui::click(ui::centreOf(box)))
            return false;
        QQuickItem *entry = nullptr;
        if (!QTest::qWaitFor([&] { return (entry = withText(app.window->contentItem(), [&](const QString &t) {
                                               return t == text; })) != nullptr; }, 5000))
            return false;
        QTest::qWait(300);   // the list has opened
        return ui::click(ui::centreOf(entry));
    }

    // The panel open, `field` scrolled into view.
    static QQuickItem *openSettingsAt(AppWindow &app, const QString &field)
    {
        QQuickItem *settingsButton = item(app, QStringLiteral("chatSettingsButton"));
        if (!settingsButton || !ui::click(ui::centreOf(settingsButton)))
            return nullptr;
        QQuickItem *size = nullptr, *target = nullptr;
        if (!QTest::qWaitFor([&] { return (size = item(app, QStringLiteral("field_contextSize"))) && size->isVisible(); }, 5000))
            return nullptr;
        QTest::qWait(300);   // the drawer slides in
        target = item(app, field);
        return target && ui::wheelIntoView(target, size) ? target : nullptr;
    }

    static QVariantList lastReply()
    {
        ui::StoreReader store(ConversationStore::defaultDatabasePath());
        return store.rows(QStringLiteral("SELECT state, drafted_tokens, accepted_tokens, id, generated_tokens FROM messages"
                                         " WHERE role = 'assistant' ORDER BY id DESC LIMIT 1"))
            .value(0);
    }

private slots:
    void cleanup()
    {
        ui::keepScreenshotOnFailure();   // with the window still on the screen
        m_app.reset();
    }

    void draftModelChosenUsedAndKept()
    {
        const QString stories = QStringLiteral("models/stories260K.gguf");
        BURROW_REQUIRE_SHARED(stories);
        const QString model = sharedPath(stories);
        m_app = std::make_unique<AppWindow>();
        {
            AppWindow &app = *m_app;
            QVERIFY(app.open());
            const QPoint middle = app.window->mapToGlobal(QPoint(app.window->width() / 2, app.window->height() / 2));
            QString error;
            QVERIFY2(ui::dragFile(model, middle, &error), qPrintable(error));
            QVERIFY(ui::pressUntil(QStringLiteral("Return"), [&] { return app.chat->hasModel(); }, 30000));
            QCOMPARE(app.chat->settings()->speculative(), QStringLiteral("auto"));

            // Settings → Speculative decoding → Draft model…, the file typed.
            QQuickItem *spec = openSettingsAt(app, QStringLiteral("field_speculative"));
            QVERIFY2(spec, "the speculative decoding setting is not in the panel");
            QVERIFY(choose(app, spec, QStringLiteral("Draft model…")));
            QVERIFY2(QTest::qWaitFor([&] { return ui::findButton(app.window->contentItem(), QStringLiteral("Open")) != nullptr; },
                                     10000),
                     "the draft model's file dialog did not open");
            QTest::qWait(300);
            QVERIFY(ui::key(QStringLiteral("ctrl+l")));
            QVERIFY(ui::type(model));
            QVERIFY(ui::key(QStringLiteral("Return")));
            QTRY_COMPARE(app.chat->settings()->speculative(), QStringLiteral("draft"));
            QCOMPARE(app.chat->settings()->draftModel(), model);
            QQuickItem *hint = item(app, QStringLiteral("hint_speculative"));
            QVERIFY(hint);
            QTRY_VERIFY2(hint->property("text").toString().contains(QStringLiteral("stories260K.gguf")),
                         qPrintable(hint->property("text").toString()));
            QVERIFY(ui::key(QStringLiteral("Escape")));   // the drawer closes
            QTRY_VERIFY(!spec->isVisible());

            // (Setup, not the flow: a short reply keeps its details row on the screen.)
            QVERIFY(app.chat->settings()->setValue(QStringLiteral("maxTokens"), 64));
            QQuickItem *composer = item(app, QStringLiteral("composerInput"));
            QVERIFY(composer);
            QVERIFY(ui::click(ui::centreOf(composer)));
            QVERIFY(ui::type(QStringLiteral("Once upon a time")));
            QVERIFY(ui::key(QStringLiteral("Return")));
            QTRY_COMPARE_WITH_TIMEOUT(lastReply().value(0).toString(), QStringLiteral("complete"), 60000);
            const QVariantList reply = lastReply();
            QVERIFY2(reply.value(1).toInt() > 0, "the reply was written without drafts");
            QVERIFY(reply.value(2).toInt() > 0 && reply.value(2).toInt() <= reply.value(1).toInt());

            // The reply's details, by hovering its stats.
            QQuickItem *stats = nullptr;
            QTRY_VERIFY((stats = ui::findShown(app.window->contentItem(), [](QQuickItem *i) {
                             return i->objectName() == QLatin1String("messageStats")
                                 && i->property("text").toString().contains(QLatin1String("tokens/s"));
                         })) != nullptr);
            QVERIFY(ui::moveTo(ui::centreOf(stats)));
            // (stories260K drafted by itself: every draft is accepted, so
            // each pass of the model wrote generated / (generated - accepted) tokens.)
            const int generated = reply.value(4).toInt();
            QVERIFY(generated > reply.value(2).toInt());
            const QString expected = QStringLiteral("Drafted: %1 tokens, %2 accepted (%3 %) · %4 tokens per pass of the model")
                                         .arg(reply.value(1).toInt())
                                         .arg(reply.value(2).toInt())
                                         .arg(QLocale().toString(100.0 * reply.value(2).toInt() / reply.value(1).toInt(), 'f', 0))
                                         .arg(QLocale().toString(double(generated) / (generated - reply.value(2).toInt()), 'f', 2));
            QVERIFY2(QTest::qWaitFor([&] { return withText(app.window->contentItem(), [&](const QString &t) {
                                                return t.contains(expected); }); }, 10000),
                     qPrintable(QStringLiteral("no reply details saying \"%1\"").arg(expected)));
        }

        // Restart: the chat comes back drafting with the same file.
        m_app.reset();
        m_app = std::make_unique<AppWindow>();
        AppWindow &app = *m_app;
        QVERIFY(app.open(/*keepData*/ true));
        QTRY_COMPARE(app.chat->settings()->speculative(), QStringLiteral("draft"));
        QCOMPARE(app.chat->settings()->draftModel(), model);
        QQuickItem *spec = openSettingsAt(app, QStringLiteral("field_speculative"));
        QVERIFY(spec);
        QTRY_COMPARE(spec->property("displayText").toString(), QStringLiteral("Draft model…"));
    }
};

BURROW_UI_TEST_MAIN(TestSpeculative)
#include "tst_speculative.moc"
