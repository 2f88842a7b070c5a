// Settings → Servers by real input, in the window on an X display (issue
// 33): a server (Burrow's own `burrow-cli serve`, started here on a tiny
// model, with an API key) is added through the dialog, its model shows in
// the model library marked remote and is opened from there, a chat with it
// streams and is stored with its provenance (the endpoint and the model id);
// after a restart the server, its key and the chat are there again, and the
// chat goes on with the same remote model.
#include "uiharness.h"
#include "apptestsupport.h"

#include "backend/remoteendpoints.h"
#include "models/modellibrary.h"
#include "models/remoteservers.h"
#include "serve_process.h"
#include "tiny_model.h"

#include <QSettings>
#include <QTemporaryDir>

Q_IMPORT_QML_PLUGIN(BurrowPlugin)

using namespace burrow::test;

namespace {

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

RemoteServers *serversOf(AppWindow &app)
{
    return app.window->property("servers").value<RemoteServers *>();
}

// The library row (its Open button) of the model at `locator`, once shown.
QQuickItem *libraryOpenButton(AppWindow &app, const QString &locator)
{
    QQuickItem *button = nullptr;
    (void)QTest::qWaitFor([&] {
        QQuickItem *row = ui::findShown(app.window->contentItem(), [&](QQuickItem *i) {
            return i->objectName().startsWith(QLatin1String("libraryRow")) && i->property("path").toString() == locator;
        });
        button = row ? ui::findShown(row, [](QQuickItem *i) { return i->objectName() == QLatin1String("libraryRowOpen"); })
                     : nullptr;
        return button != nullptr;
    }, 15000);
    return button;
}

// Types `text` in the composer and sends it.
bool send(AppWindow &app, const QString &text)
{
    return clickShown(app, QStringLiteral("composerInput")) && ui::type(text) && ui::key(QStringLiteral("Return"));
}

} // namespace

class TestServersWindow : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_model;

private slots:
    void initTestCase()
    {
        qputenv("BURROW_TOKEN_STORE", "file");   // the key in a 0600 file, not this machine's keychain
        QSettings().clear();                      // no servers from an earlier run
        TinySpec spec;
        spec.nCtx = 512;
        m_model = m_dir.filePath(QStringLiteral("tiny.gguf"));
        QVERIFY(writeTinyModel(spec, m_model.toStdString()));
    }
    void init() { failOnQmlErrors(); }
    void cleanup() { ui::keepScreenshotOnFailure(); }

    void addServerChatRestartAndGoOn()
    {
        ServeProcess serve(m_model, {QStringLiteral("--api-key"), QStringLiteral("sesame")});
        QVERIFY2(serve.ok(), qPrintable(serve.error()));
        const QString url = serve.url() + QStringLiteral("/v1");
        const QString locator = RemoteModelRef{QUrl(url), QStringLiteral("tiny")}.locator();
        {
            AppWindow app;
            ui::ScreenshotOnFailure screenshot;
            QVERIFY(app.open());
            QTRY_VERIFY(app.chat->store()->isReady());
            RemoteServers *servers = serversOf(app);
            QVERIFY(servers);
            QCOMPARE(servers->rowCount(), 0);

            // Settings → Servers…: the address, the key, Enter.
            auto *dialog = app.window->findChild<QObject *>(QStringLiteral("serversDialog"));
            QVERIFY(dialog);
            QVERIFY(ui::key(QStringLiteral("alt+s v")));
            QTRY_VERIFY(dialog->property("opened").toBool());
            // Plain http to another computer is warned about first (nothing added).
            QVERIFY(clickShown(app, QStringLiteral("serverUrl")));
            QVERIFY(ui::type(QStringLiteral("http://192.0.2.7:8000/v1")));   // TEST-NET-1: never routed
            QVERIFY(ui::key(QStringLiteral("Return")));
            QQuickItem *problem = nullptr;
            QTRY_VERIFY((problem = shown(app, QStringLiteral("serversProblem"))));
            QVERIFY2(problem->property("text").toString().contains(QLatin1String("plain http")),
                     qPrintable(problem->property("text").toString()));
            QCOMPARE(shown(app, QStringLiteral("serverAdd"))->property("text").toString(), QStringLiteral("Add anyway"));
            QCOMPARE(servers->rowCount(), 0);
            QVERIFY(clickShown(app, QStringLiteral("serverUrl")));
            QVERIFY(ui::key(QStringLiteral("ctrl+a")));
            QVERIFY(ui::type(url));
            QVERIFY(clickShown(app, QStringLiteral("serverName")));
            QVERIFY(ui::type(QStringLiteral("Loopback Burrow")));
            QVERIFY(clickShown(app, QStringLiteral("serverKey")));
            QVERIFY(ui::type(QStringLiteral("sesame")));
            QVERIFY(ui::key(QStringLiteral("Return")));
            QTRY_COMPARE(servers->rowCount(), 1);
            // Its models, listed with the key.
            QTRY_COMPARE_WITH_TIMEOUT(servers->data(servers->index(0), RemoteServers::ModelsRole).toStringList(),
                                      QStringList{QStringLiteral("tiny")}, 15000);
            QQuickItem *row = nullptr;
            QTRY_VERIFY((row = shown(app, QStringLiteral("serverRow0"))));
            QCOMPARE(row->property("name").toString(), QStringLiteral("Loopback Burrow"));
            QVERIFY(ui::key(QStringLiteral("Escape")));
            QTRY_VERIFY(!dialog->property("visible").toBool());

            // The library lists it, marked remote with the server's name; Open.
            QVERIFY(ui::key(QStringLiteral("ctrl+shift+l")));
            QQuickItem *open = libraryOpenButton(app, locator);
            QVERIFY(open);
            QQuickItem *libraryRow = open->parentItem()->parentItem();
            QVERIFY(libraryRow->property("remote").toBool());
            QCOMPARE(libraryRow->property("sourceName").toString(), QStringLiteral("Loopback Burrow (remote)"));
            QVERIFY(ui::click(ui::centreOf(open)));
            QTRY_VERIFY_WITH_TIMEOUT(app.chat->hasModel(), 15000);
            QCOMPARE(app.chat->models()->model().path, locator);
            // The status line names the server.
            QTRY_COMPARE(app.find<QObject>(QStringLiteral("statusModel"))->property("text").toString(),
                         QStringLiteral("tiny on Loopback Burrow (remote)"));

            // The random model ends a reply with its end token now and then
            // (2 runs in 10 left this reply empty): the chat draws with a
            // fixed seed, which the request carries to the server, so the
            // reply is the same every run.
            app.chat->settings()->setRandomSeed(false);
            app.chat->settings()->setSeed(7);
            QVERIFY(send(app, QStringLiteral("a b a b")));
            ui::StoreReader store(ConversationStore::defaultDatabasePath());
            const QString reply = QStringLiteral("SELECT state, content, model, generated_tokens FROM messages"
                                                 " WHERE role = 'assistant' ORDER BY id");
            QTRY_COMPARE_WITH_TIMEOUT(store.rows(reply).value(0).value(0).toString(), QStringLiteral("complete"), 30000);
            QVERIFY(!store.rows(reply).value(0).value(1).toString().isEmpty());
            QCOMPARE(store.rows(reply).value(0).value(2).toString(), QStringLiteral("tiny"));
            QVERIFY(store.rows(reply).value(0).value(3).toInt() > 0);
            // The chat's provenance: the endpoint and the model id.
            QCOMPARE(store.value(QStringLiteral("SELECT model_path FROM conversations")).toString(), locator);
        }

        // A restart: the server, its key and the chat are there again.
        AppWindow again;
        ui::ScreenshotOnFailure screenshot;
        QVERIFY(again.open(true));
        QTRY_VERIFY(again.chat->store()->isReady());
        RemoteServers *servers = serversOf(again);
        QCOMPARE(servers->rowCount(), 1);
        QCOMPARE(servers->data(servers->index(0), RemoteServers::UrlRole).toString(), url);
        QVERIFY(servers->data(servers->index(0), RemoteServers::HasKeyRole).toBool());
        QTRY_COMPARE(again.chat->messages()->rowCount(), 2);
        // The chat's model is offered again; loaded, the chat goes on (with the kept key).
        QVERIFY(clickShown(again, QStringLiteral("loadChatModel")));
        QTRY_VERIFY_WITH_TIMEOUT(again.chat->hasModel(), 15000);
        QCOMPARE(again.chat->models()->model().path, locator);
        QVERIFY(send(again, QStringLiteral("b a")));
        ui::StoreReader store(ConversationStore::defaultDatabasePath());
        const QString second = QStringLiteral("SELECT state, error FROM messages WHERE role = 'assistant' ORDER BY id");
        QTRY_COMPARE_WITH_TIMEOUT(store.rows(second).size(), 2, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(store.rows(second).value(1).value(0).toString() != QLatin1String("streaming"), 30000);
        QVERIFY2(store.rows(second).value(1).value(0).toString() == QLatin1String("complete"),
                 qPrintable(store.rows(second).value(1).value(1).toString()));
    }
};

BURROW_UI_TEST_MAIN(TestServersWindow)
#include "tst_serverswindow.moc"
