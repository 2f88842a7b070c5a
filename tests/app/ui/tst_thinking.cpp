// A thinking model's reply in a real window (issue 28: the Gemma 4 E-shape
// with the Gemma 4 template shows its thinking apart and stops cleanly).
// `burrow-cli synth --script` writes a gemma4-tiny file (per-layer inputs,
// shared KV layers) whose weights follow a script: after the generation
// prompt's line break it opens a thought channel, thinks "hmm let me see if
// it can fly", closes the channel, answers "ok so we do" and ends its turn;
// it carries our Gemma 4-style template (tests/engine/chat/gemma4-style.jinja:
// <|think|> in a system turn when thinking is on, an empty thought channel
// pre-filled when it is off).
// The file is dropped on the window; a question is typed and sent. The
// reply's thinking is folded under "Thought for …", a click shows it, the
// answer stands apart, the stored message has both and is complete. Then the
// chat's Thinking switch is clicked off and the reply regenerated: the
// template pre-fills the empty channel and the answer comes with no thinking.
#include "apptestsupport.h"
#include "uiharness.h"

#include <QProcess>
#include <QTemporaryDir>

using namespace burrow::test;

namespace {

const QString kCli = QStringLiteral(BURROW_BINARY_DIR "/engine/tools/burrow-cli");
const QString kTemplate = QStringLiteral(BURROW_SOURCE_DIR "/tests/engine/chat/gemma4-style.jinja");
const QString kScript =
    QStringLiteral("\\n <|channel> _hmm _let _me _see _if _it _can _fly <channel|> _ok _so _we _do <turn|>");

} // namespace

class TestThinking : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<AppWindow> m_app;   // closed after a failure's screenshot

    static QQuickItem *item(AppWindow &app, const QString &name) { return findItem(app.window->contentItem(), name); }

    // The first shown item named `name` (a hidden delegate may carry the name too), or null.
    static QQuickItem *shown(QQuickItem *root, const QString &name)
    {
        if (!root || !root->isVisible())
            return nullptr;
        if (root->objectName() == name && root->width() > 0)
            return root;
        for (QQuickItem *child : root->childItems())
            if (QQuickItem *found = shown(child, name))
                return found;
        return nullptr;
    }

    // The last assistant message as stored: state, content, reasoning.
    static QVariantList lastReply()
    {
        ui::StoreReader store(ConversationStore::defaultDatabasePath());
        return store.rows(QStringLiteral("SELECT state, content, reasoning FROM messages WHERE role = 'assistant'"
                                         " ORDER BY id DESC LIMIT 1"))
            .value(0);
    }

private slots:
    void cleanup()
    {
        ui::keepScreenshotOnFailure();   // with the window still on the screen
        m_app.reset();
    }

    void thinkingShownApartAndSwitchedOff()
    {
        QVERIFY(m_dir.isValid());
        const QString model = m_dir.filePath(QStringLiteral("gemma4-thinks.gguf"));
        QProcess synth;
        synth.start(kCli, {QStringLiteral("synth"), QStringLiteral("--preset"), QStringLiteral("gemma4-tiny"),
                           QStringLiteral("--untied"), QStringLiteral("--vocab"), QStringLiteral("32000"),
                           QStringLiteral("--type"), QStringLiteral("Q8_0"), QStringLiteral("--chat-template"), kTemplate,
                           QStringLiteral("--name"), QStringLiteral("Gemma 4 thinks"), QStringLiteral("--script"), kScript,
                           QStringLiteral("-q"), QStringLiteral("-o"), model});
        QVERIFY(synth.waitForFinished(60000));
        QVERIFY2(synth.exitCode() == 0, synth.readAllStandardError().constData());

        m_app = std::make_unique<AppWindow>();
        AppWindow &app = *m_app;
        QVERIFY(app.open());
        const QPoint middle = app.window->mapToGlobal(QPoint(app.window->width() / 2, app.window->height() / 2));
        QString error;
        QVERIFY2(ui::dragFile(model, middle, &error), qPrintable(error));
        QVERIFY(ui::pressUntil(QStringLiteral("Return"), [&] { return app.chat->hasModel(); }, 30000));

        QQuickItem *composer = item(app, QStringLiteral("composerInput"));
        QVERIFY(composer);
        QVERIFY(ui::click(ui::centreOf(composer)));
        QVERIFY(ui::type(QStringLiteral("Can pigs fly?")));
        QVERIFY(ui::key(QStringLiteral("Return")));

        // Stored complete, the thinking apart from the answer.
        QTRY_COMPARE_WITH_TIMEOUT(lastReply().value(0).toString(), QStringLiteral("complete"), 30000);
        QCOMPARE(lastReply().value(1).toString().trimmed(), QStringLiteral("ok so we do"));
        QCOMPARE(lastReply().value(2).toString().trimmed(), QStringLiteral("hmm let me see if it can fly"));

        // On screen: folded under "Thought for …"; a click shows the thinking.
        QQuickItem *toggle = nullptr;
        QTRY_VERIFY((toggle = shown(app.window->contentItem(), QStringLiteral("reasoningToggle"))) != nullptr);
        QQuickItem *header = item(app, QStringLiteral("reasoningHeader"));
        QVERIFY(header);
        QVERIFY2(header->property("text").toString().startsWith(QStringLiteral("Thought for")),
                 qPrintable(header->property("text").toString()));
        QQuickItem *thought = item(app, QStringLiteral("reasoningText"));
        QVERIFY(thought);
        QVERIFY(!thought->isVisible());
        QVERIFY(ui::click(ui::centreOf(header)));
        QTRY_VERIFY(thought->isVisible());
        QCOMPARE(thought->property("text").toString().trimmed(), QStringLiteral("hmm let me see if it can fly"));

        // Thinking off in the chat's settings, by a click on its switch.
        QVERIFY(app.chat->settings()->thinking());
        QQuickItem *settingsButton = item(app, QStringLiteral("chatSettingsButton"));
        QVERIFY(settingsButton);
        QVERIFY(ui::click(ui::centreOf(settingsButton)));
        QQuickItem *thinking = nullptr;
        QTRY_VERIFY((thinking = item(app, QStringLiteral("field_thinking"))) && thinking->isVisible());
        QQuickItem *size = item(app, QStringLiteral("field_contextSize"));
        QVERIFY(size);
        QTest::qWait(300);   // the drawer slides in
        QVERIFY(ui::wheelIntoView(thinking, size));
        QVERIFY(ui::click(ui::centreOf(thinking)));
        QTRY_VERIFY(!app.chat->settings()->thinking());
        QVERIFY(ui::key(QStringLiteral("Escape")));   // the drawer closes
        QTRY_VERIFY(!thinking->isVisible());

        // Regenerate: the answer alone.
        QQuickItem *regenerate = nullptr;
        QTRY_VERIFY((regenerate = shown(app.window->contentItem(), QStringLiteral("regenerateButton"))) != nullptr);
        QVERIFY(ui::click(ui::centreOf(regenerate)));
        QTRY_COMPARE_WITH_TIMEOUT(lastReply().value(2).toString(), QString(), 30000);
        QTRY_COMPARE_WITH_TIMEOUT(lastReply().value(0).toString(), QStringLiteral("complete"), 30000);
        QCOMPARE(lastReply().value(1).toString().trimmed(), QStringLiteral("ok so we do"));
        QTRY_VERIFY(!shown(app.window->contentItem(), QStringLiteral("reasoningToggle")));
    }
};

BURROW_UI_TEST_MAIN(TestThinking)
#include "tst_thinking.moc"
