// The first run, as a person does it, in a real window: start `burrow`, drag
// a model file from a file manager onto the window, press Enter on the model
// card, type a message, press Enter. Checked where a person (or a crash) would
// see it: the window title names the model, the message and its reply are in
// the conversation database, the reply complete.
#include "uiharness.h"
#include "test_support.h"

using namespace burrow::test;

class TestFirstRun : public QObject {
    Q_OBJECT
private slots:
    void cleanup() { ui::keepScreenshotOnFailure(); }

    void dropModelAndChat()
    {
        BURROW_REQUIRE_SHARED(QStringLiteral("models/stories260K.gguf"));
        ui::BurrowProcess app;
        QVERIFY(app.start());
        QVERIFY2(app.waitForWindow(), app.log().constData());
        QCOMPARE(app.title(), QStringLiteral("Burrow"));

        // A file dragged from another program, dropped on the middle of the window.
        QString error;
        QVERIFY2(ui::dragFile(sharedPath(QStringLiteral("models/stories260K.gguf")), app.geometry().center(), &error),
                 qPrintable(error));
        // The model card opens with the focus once the header is read; Enter
        // presses Load. (Enter before the card is there goes to the empty
        // composer and does nothing, so it is pressed until the model loads.)
        const QString loaded = QStringLiteral("llama — Burrow");   // the file's general.name
        QVERIFY2(ui::pressUntil(QStringLiteral("Return"), [&] { return app.title() == loaded; }, 20000),
                 qPrintable(QStringLiteral("title \"%1\"; the app's log:\n%2").arg(app.title(), QString::fromLocal8Bit(app.log()))));

        // Typing goes to the composer; Enter sends.
        QVERIFY(ui::type(QStringLiteral("Once upon a time")));
        QVERIFY(ui::key(QStringLiteral("Return")));
        ui::StoreReader store(app.databasePath());
        const auto stored = [&](const char *sql, const QString &want, int timeoutMs) {
            return QTest::qWaitFor([&] { return store.value(QString::fromLatin1(sql)).toString() == want; }, timeoutMs);
        };
        QVERIFY2(stored("SELECT content FROM messages WHERE role = 'user'", QStringLiteral("Once upon a time"), 10000),
                 app.log().constData());
        QVERIFY2(stored("SELECT state FROM messages WHERE role = 'assistant'", QStringLiteral("complete"), 30000),
                 app.log().constData());
        QVERIFY(!store.value(QStringLiteral("SELECT content FROM messages WHERE role = 'assistant'")).toString().isEmpty());
        QVERIFY2(app.close(), app.log().constData());
    }
};

BURROW_UI_TEST_MAIN(TestFirstRun)
#include "tst_firstrun.moc"
