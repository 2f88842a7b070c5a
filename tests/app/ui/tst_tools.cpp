// MCP tools in a real window (issue 31, "MCP in the app"): the reference
// MCP server `@modelcontextprotocol/server-everything` (npm, installed by
// scripts/setup.sh into tests/mcp) is added through Settings → Tools
// by typing its command; its tools are listed. A scripted model (`burrow-cli
// synth --script`, a qwen3 shape with our ChatML template with tool-call
// markup, tests/engine/chat/chatml-tools.jinja) answers the first message
// with <tool_call>{"name":"echo","arguments":{"message":"hi"}}</tool_call>
// and, after a tool result, with "ok got it". The chat shows the call's card
// (name, arguments); Allow once runs it on the server; the card shows
// "Echo: hi", and the turn goes on by itself. The calls, the decision and
// the result are stored with the reply; after a restart the card and its
// result are there again, and the server too.
#include "apptestsupport.h"
#include "uiharness.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <functional>

using namespace burrow::test;

namespace {

const QString kCli = QStringLiteral(BURROW_BINARY_DIR "/engine/tools/burrow-cli");
const QString kTemplate = QStringLiteral(BURROW_SOURCE_DIR "/tests/engine/chat/chatml-tools.jinja");
const QString kServer = QStringLiteral(
    BURROW_SOURCE_DIR "/tests/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const QString kCall = QStringLiteral("{\"name\":\"echo\",\"arguments\":{\"message\":\"hi\"}}");

QQuickItem *shown(AppWindow &app, const QString &objectName)
{
    return ui::findShown(app.window->contentItem(), [&](QQuickItem *i) { return i->objectName() == objectName; });
}

bool clickShown(AppWindow &app, const QString &objectName)
{
    QQuickItem *item = nullptr;
    if (!QTest::qWaitFor([&] { return (item = shown(app, objectName)) != nullptr && item->width() > 0; }, 10000))
        return false;
    return ui::click(ui::centreOf(item));
}

// Clicks the shown item `objectName` until `done()` holds (at most 3
// clicks, each given 3 s): a card that moves while the reply's last
// numbers arrive may take a click meant for the place it just left.
bool clickUntil(AppWindow &app, const QString &objectName, const std::function<bool()> &done)
{
    for (int attempt = 0; attempt < 3; ++attempt) {
        QTest::qWait(100);   // the layout settles
        QQuickItem *item = shown(app, objectName);
        if (!item || !ui::click(ui::centreOf(item)))
            return false;
        if (QTest::qWaitFor(done, 3000))
            return true;
    }
    return false;
}

// The assistant messages as stored: state, content, tools.
QList<QVariantList> replies()
{
    ui::StoreReader store(ConversationStore::defaultDatabasePath());
    return store.rows(QStringLiteral("SELECT state, content, tools FROM messages WHERE role = 'assistant' ORDER BY id"));
}

} // namespace

class TestTools : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_model;

private slots:
    void initTestCase()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("node")).isEmpty() || !QFileInfo::exists(kServer))
            QSKIP("server-everything is not installed (scripts/setup.sh runs npm ci in tests/mcp)");
        QSettings().clear();   // no tool servers from an earlier run
        m_model = m_dir.filePath(QStringLiteral("calls-echo.gguf"));
        const QString script = QStringLiteral("\\n <tool_call> %1 </tool_call> <|im_end|> <|tool_results|> _ok _got _it </s>")
                                   .arg(kCall);
        QStringList args{QStringLiteral("synth"), QStringLiteral("--preset"), QStringLiteral("qwen3-tiny"),
                         QStringLiteral("--untied"), QStringLiteral("--vocab"), QStringLiteral("32000"), QStringLiteral("--ctx"), QStringLiteral("8192"),
                         QStringLiteral("--type"), QStringLiteral("Q8_0"), QStringLiteral("--chat-template"), kTemplate,
                         QStringLiteral("--name"), QStringLiteral("Calls echo"), QStringLiteral("--script"), script,
                         QStringLiteral("-q"), QStringLiteral("-o"), m_model};
        for (const char *token : {"<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<|tool_results|>"})
            args << QStringLiteral("--token") << QString::fromLatin1(token);
        args << QStringLiteral("--token") << kCall;
        QProcess synth;
        synth.start(kCli, args);
        QVERIFY(synth.waitForFinished(60000));
        QVERIFY2(synth.exitCode() == 0, synth.readAllStandardError().constData());
    }
    void init() { failOnQmlErrors(); }
    void cleanup() { ui::keepScreenshotOnFailure(); }

    void addServerCallApproveRestart()
    {
        {
            AppWindow app;
            ui::ScreenshotOnFailure screenshot;
            QVERIFY(app.open());
            QTRY_VERIFY(app.chat->store()->isReady());
            ToolServers *tools = app.chat->tools();
            QCOMPARE(tools->rowCount(), 0);
            QCOMPARE(tools->toolCount(), 0);   // no server: no tools

            // Settings → Tools…: the command, a name, Enter.
            auto *dialog = app.window->findChild<QObject *>(QStringLiteral("toolsDialog"));
            QVERIFY(dialog);
            QVERIFY(ui::key(QStringLiteral("alt+s t")));
            QTRY_VERIFY(dialog->property("opened").toBool());
            QVERIFY(clickShown(app, QStringLiteral("toolCommand")));
            QVERIFY(ui::type(QStringLiteral("node ") + kServer));
            QVERIFY(clickShown(app, QStringLiteral("toolName")));
            QVERIFY(ui::type(QStringLiteral("everything")));
            QVERIFY(ui::key(QStringLiteral("Return")));
            QTRY_COMPARE(tools->rowCount(), 1);
            // Its tools, listed on its row.
            QQuickItem *listed = nullptr;
            QTRY_VERIFY_WITH_TIMEOUT((listed = shown(app, QStringLiteral("toolServerTools"))) != nullptr, 20000);
            QVERIFY2(listed->property("text").toString().contains(QStringLiteral("echo — ")),
                     qPrintable(listed->property("text").toString()));
            QVERIFY(tools->toolCount() > 1);
            QVERIFY(ui::key(QStringLiteral("Escape")));
            QTRY_VERIFY(!dialog->property("visible").toBool());

            // The scripted model, dropped on the window.
            const QPoint middle = app.window->mapToGlobal(QPoint(app.window->width() / 2, app.window->height() / 2));
            QString error;
            QVERIFY2(ui::dragFile(m_model, middle, &error), qPrintable(error));
            QVERIFY(ui::pressUntil(QStringLiteral("Return"), [&] { return app.chat->hasModel(); }, 30000));
            QVERIFY(clickShown(app, QStringLiteral("composerInput")));
            QVERIFY(ui::type(QStringLiteral("Say hi through the echo tool")));
            QVERIFY(ui::key(QStringLiteral("Return")));

            // The call's card: its name and arguments, waiting for the user.
            QQuickItem *allow = nullptr;
            QTRY_VERIFY_WITH_TIMEOUT((allow = shown(app, QStringLiteral("toolAllowOnce"))) != nullptr, 30000);
            QCOMPARE(shown(app, QStringLiteral("toolCardName"))->property("text").toString(), QStringLiteral("Tool: echo"));
            QCOMPARE(shown(app, QStringLiteral("toolCardArguments"))->property("text").toString(),
                     QStringLiteral("{\"message\":\"hi\"}"));
            QVERIFY(shown(app, QStringLiteral("toolAllowAlways")));
            QVERIFY(shown(app, QStringLiteral("toolDeny")));
            QCOMPARE(replies().value(0).value(0).toString(), QStringLiteral("complete"));
            QCOMPARE(replies().value(0).value(1).toString(), QString());   // no markup in the text
            QCOMPARE(replies().size(), 1);   // nothing runs before the user allows it
            QTRY_VERIFY(!app.chat->isGenerating());
            QVERIFY(clickUntil(app, QStringLiteral("toolAllowOnce"),
                               [&] { return shown(app, QStringLiteral("toolAllowOnce")) == nullptr; }));

            // The result on the card, and the turn goes on by itself.
            QQuickItem *result = nullptr;
            QTRY_VERIFY_WITH_TIMEOUT((result = shown(app, QStringLiteral("toolCardResult"))) != nullptr, 30000);
            QTRY_COMPARE_WITH_TIMEOUT(result->property("text").toString(), QStringLiteral("Echo: hi"), 30000);
            QTRY_COMPARE_WITH_TIMEOUT(replies().size(), 2, 30000);
            QTRY_COMPARE_WITH_TIMEOUT(replies().value(1).value(0).toString(), QStringLiteral("complete"), 30000);
            QCOMPARE(replies().value(1).value(1).toString().trimmed(), QStringLiteral("ok got it"));
            QVERIFY(!shown(app, QStringLiteral("toolAllowOnce")));

            // Stored with the reply: the call, the decision, the result.
            const QJsonArray stored = QJsonDocument::fromJson(replies().value(0).value(2).toString().toUtf8()).array();
            QCOMPARE(stored.size(), 1);
            const QJsonObject call = stored.at(0).toObject();
            QCOMPARE(call.value(QLatin1String("name")).toString(), QStringLiteral("echo"));
            QCOMPARE(call.value(QLatin1String("arguments")).toString(), QStringLiteral("{\"message\":\"hi\"}"));
            QCOMPARE(call.value(QLatin1String("decision")).toString(), QStringLiteral("once"));
            QCOMPARE(call.value(QLatin1String("state")).toString(), QStringLiteral("done"));
            QCOMPARE(call.value(QLatin1String("result")).toString(), QStringLiteral("Echo: hi"));
        }

        // A restart: the server, the card and its result, the continuation.
        AppWindow again;
        ui::ScreenshotOnFailure screenshot;
        QVERIFY(again.open(true));
        QTRY_VERIFY(again.chat->store()->isReady());
        QCOMPARE(again.chat->tools()->rowCount(), 1);
        QTRY_COMPARE(again.chat->messages()->rowCount(), 3);
        QQuickItem *result = nullptr;
        QTRY_VERIFY((result = shown(again, QStringLiteral("toolCardResult"))) != nullptr);
        QCOMPARE(result->property("text").toString(), QStringLiteral("Echo: hi"));
        QCOMPARE(shown(again, QStringLiteral("toolCardName"))->property("text").toString(), QStringLiteral("Tool: echo"));
        QVERIFY(!shown(again, QStringLiteral("toolAllowOnce")));
        QCOMPARE(again.chat->messages()->message(2).text.trimmed(), QStringLiteral("ok got it"));
    }
};

BURROW_UI_TEST_MAIN(TestTools)
#include "tst_tools.moc"
