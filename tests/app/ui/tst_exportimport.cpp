// Export and import through the real dialogs, by real input, in the window
// on an X display (the file chooser is Qt Quick's own there, as on a desktop
// without a platform file dialog). On Qt 6.4 every export failed: the save
// dialog's button said "Open", its name field was empty, the typed name came
// back as a URL without scheme and the banner said "Could not write :
// cannot move the archive to ". tst_exportpaths checks the answers of the
// other choosers.
#include "uiharness.h"
#include "apptestsupport.h"
#include "archive/archiveservice.h"

#include <QDate>
#include <QSettings>
#include <QTemporaryDir>

Q_IMPORT_QML_PLUGIN(BurrowPlugin)

using namespace burrow::test;

namespace {

// How long a step waits for the window to catch up: generous, since CI runs
// this beside the engine's tests on two cores (a 5 s default once ran out).
constexpr int kUiWaitMs = 20000;

const QString kHelper = QStringLiteral(BURROW_BINARY_DIR "/app/burrow-archive");

QQuickItem *root(AppWindow &app) { return app.window->contentItem(); }

// The save dialog's file name field while the dialog is shown, else null.
QQuickItem *shownFileNameField(AppWindow &app)
{
    return ui::findShown(root(app), [](QQuickItem *i) { return i->objectName() == QLatin1String("fileNameTextField"); });
}
// The same, once the dialog is shown (≤ kUiWaitMs).
QQuickItem *fileNameField(AppWindow &app)
{
    QQuickItem *field = nullptr;
    (void)QTest::qWaitFor([&] { return (field = shownFileNameField(app)) != nullptr; }, kUiWaitMs);
    return field;
}
// What the archive bar says (the outcome of the last job).
QString archiveBarText(AppWindow &app)
{
    QQuickItem *bar = app.find(QStringLiteral("archiveBar"));
    QQuickItem *label = bar ? ui::findShown(bar, [](QQuickItem *i) { return i->inherits("QQuickLabel"); }) : nullptr;
    return label ? label->property("text").toString() : QString();
}

qint64 chatWithMessages(ConversationStore *store, const QString &title)
{
    const qint64 id = store->createConversation(title);
    store->appendMessage(id, Chat::Role::User, QStringLiteral("How long do I cook %1?").arg(title));
    store->appendMessage(id, Chat::Role::Assistant, QStringLiteral("About twenty minutes."));
    return id;
}

// A chat "Soup" with an exchange, opened, and File → Export this
// conversation… pressed by keys: the save dialog's name field (null when the
// store, the chat or the dialog did not come).
QQuickItem *exportSoupByKeys(AppWindow &app)
{
    ConversationStore *store = app.chat->store();
    if (!QTest::qWaitFor([&] { return store->isReady(); }, 5000))
        return nullptr;
    const qint64 soup = chatWithMessages(store, QStringLiteral("Soup"));
    app.chat->openConversation(soup);
    if (!QTest::qWaitFor([&] { return qint64(app.chat->conversationId()) == soup; }, 5000))
        return nullptr;
    if (!ui::key(QStringLiteral("alt+f")) || !ui::key(QStringLiteral("x")))   // E&xport this conversation…
        return nullptr;
    return fileNameField(app);
}

} // namespace

class TestExportImport : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    static bool waitForJob(QSignalSpy &finished, QString *message)
    {
        // (The job may have ended while the click was still being delivered.)
        if (finished.isEmpty() && !finished.wait(60000))
            return false;
        *message = finished.first().at(1).toString();
        return finished.first().at(0).toBool();
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo(kHelper).isExecutable(), "burrow-archive was not built");
        qputenv("BURROW_ARCHIVE_HELPER", kHelper.toUtf8());
        QVERIFY(m_dir.isValid());
    }
    void init()
    {
        failOnQmlErrors();
        // The dialogs open where the last export went: here.
        QSettings().setValue(QStringLiteral("archive/folder"), m_dir.path());
    }
    void cleanup() { ui::keepScreenshotOnFailure(); }

    // File → Export this conversation…: the name offered, a Save button,
    // another name typed over it, Save clicked: that file is written.
    void exportThisConversationUnderATypedName()
    {
        AppWindow app;
        ui::ScreenshotOnFailure screenshot;
        QVERIFY(app.open());
        QQuickItem *field = exportSoupByKeys(app);
        QVERIFY2(field, "the save dialog did not open");
        QCOMPARE(field->property("text").toString(), QStringLiteral("Soup.zip"));
        QQuickItem *save = ui::findButton(root(app), QStringLiteral("Save"));
        QVERIFY2(save, "the save dialog has no Save button");
        QVERIFY(!ui::findButton(root(app), QStringLiteral("Open")));
        QVERIFY(save->isEnabled());

        QVERIFY(ui::click(ui::centreOf(field)));
        QVERIFY(ui::key(QStringLiteral("ctrl+a")));
        QVERIFY(ui::type(QStringLiteral("soup for later")));
        QSignalSpy finished(app.chat->archives(), &ArchiveService::finished);
        QVERIFY(ui::click(ui::centreOf(save)));
        QString message;
        QVERIFY2(waitForJob(finished, &message), qPrintable(message));
        const QString written = m_dir.filePath(QStringLiteral("soup for later.zip"));
        QVERIFY2(QFileInfo(written).size() > 0, qPrintable(message));
        QCOMPARE(message, QStringLiteral("Exported to %1.").arg(written));
        QTRY_COMPARE_WITH_TIMEOUT(archiveBarText(app), message, kUiWaitMs);
    }

    // The save dialog as a person uses it without the mouse: the name field
    // has the focus with the name (not ".zip") selected, typing replaces the
    // name and Enter saves under it.
    void exportByTypingANameAndEnter()
    {
        AppWindow app;
        ui::ScreenshotOnFailure screenshot;
        QVERIFY(app.open());
        QQuickItem *field = exportSoupByKeys(app);
        QVERIFY2(field, "the save dialog did not open");
        QTRY_VERIFY_WITH_TIMEOUT(field->hasActiveFocus(), kUiWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(field->property("selectedText").toString(), QStringLiteral("Soup"), kUiWaitMs);
        QVERIFY(ui::type(QStringLiteral("soup by keys")));
        QCOMPARE(field->property("text").toString(), QStringLiteral("soup by keys.zip"));
        QSignalSpy finished(app.chat->archives(), &ArchiveService::finished);
        QVERIFY(ui::key(QStringLiteral("Return")));
        QString message;
        QVERIFY2(waitForJob(finished, &message), qPrintable(message));
        const QString written = m_dir.filePath(QStringLiteral("soup by keys.zip"));
        QVERIFY2(QFileInfo(written).size() > 0, qPrintable(message));
        QTRY_VERIFY_WITH_TIMEOUT(!shownFileNameField(app), kUiWaitMs);
    }

    // File → Export all conversations… after an earlier export: a fresh name
    // (not the earlier one glued on), and a whole path typed after Ctrl+L.
    void exportAllToATypedPath()
    {
        AppWindow app;
        ui::ScreenshotOnFailure screenshot;
        QVERIFY(app.open());
        ConversationStore *store = app.chat->store();
        QTRY_VERIFY_WITH_TIMEOUT(store->isReady(), kUiWaitMs);
        chatWithMessages(store, QStringLiteral("Soup"));
        chatWithMessages(store, QStringLiteral("Trip"));
        QTemporaryDir elsewhere;

        for (int round = 0; round < 2; ++round) {
            QVERIFY(ui::key(QStringLiteral("alt+f")));
            QVERIFY(ui::key(QStringLiteral("e")));   // &Export all conversations…
            QQuickItem *field = fileNameField(app);
            QVERIFY2(field, "the save dialog did not open");
            QCOMPARE(field->property("text").toString(),
                     QStringLiteral("Burrow conversations %1.zip").arg(QDate::currentDate().toString(Qt::ISODate)));
            QVERIFY(ui::key(QStringLiteral("ctrl+l")));
            const QString typed = elsewhere.filePath(QStringLiteral("all %1").arg(round));
            QVERIFY(ui::type(typed));
            QSignalSpy finished(app.chat->archives(), &ArchiveService::finished);
            QVERIFY(ui::key(QStringLiteral("Return")));
            QString message;
            QVERIFY2(waitForJob(finished, &message), qPrintable(message));
            QVERIFY2(QFileInfo(typed + QStringLiteral(".zip")).size() > 0, qPrintable(message));
            QTRY_VERIFY_WITH_TIMEOUT(!shownFileNameField(app), kUiWaitMs);
        }
    }

    // File → Import conversations…: the dialog opens in the folder of the
    // last export, the bundle is picked in its list and opened.
    void importThroughTheDialog()
    {
        AppWindow app;
        ui::ScreenshotOnFailure screenshot;
        QVERIFY(app.open());
        ConversationStore *store = app.chat->store();
        QTRY_VERIFY_WITH_TIMEOUT(store->isReady(), kUiWaitMs);
        const qint64 trip = chatWithMessages(store, QStringLiteral("Trip"));
        const QString bundle = m_dir.filePath(QStringLiteral("trip.zip"));
        QFile::remove(bundle);
        {
            QSignalSpy finished(app.chat->archives(), &ArchiveService::finished);
            QVERIFY(app.chat->archives()->exportConversations({trip}, bundle));
            QString message;
            QVERIFY2(waitForJob(finished, &message), qPrintable(message));
        }
        QVERIFY(store->remove(trip) && store->purge(trip));
        ui::StoreReader db(ConversationStore::defaultDatabasePath());
        const QString tripCount = QStringLiteral("SELECT count(*) FROM conversations WHERE title = 'Trip' AND deleted_at IS NULL");
        QTRY_COMPARE_WITH_TIMEOUT(db.value(tripCount).toInt(), 0, kUiWaitMs);

        QVERIFY(ui::key(QStringLiteral("alt+f")));
        QVERIFY(ui::key(QStringLiteral("i")));   // &Import conversations…
        QQuickItem *row = nullptr;
        QVERIFY2(QTest::qWaitFor([&] { return (row = ui::findShown(root(app), [](QQuickItem *i) {
                                               return i->objectName().startsWith(QLatin1String("fileDialogDelegate"))
                                                   && i->property("fileName").toString() == QLatin1String("trip.zip");
                                           })) != nullptr; }, 10000),
                 "the import dialog does not list trip.zip in the folder of the last export");
        QVERIFY(ui::click(ui::centreOf(row)));
        QQuickItem *open = ui::findButton(root(app), QStringLiteral("Open"));
        QVERIFY(open);
        QTRY_VERIFY_WITH_TIMEOUT(open->isEnabled(), kUiWaitMs);
        QSignalSpy finished(app.chat->archives(), &ArchiveService::finished);
        QVERIFY(ui::click(ui::centreOf(open)));
        QString message;
        QVERIFY2(waitForJob(finished, &message), qPrintable(message));
        QVERIFY2(message.startsWith(QStringLiteral("Imported 1 conversation")), qPrintable(message));
        QTRY_COMPARE_WITH_TIMEOUT(db.value(tripCount).toInt(), 1, kUiWaitMs);
    }
};

BURROW_UI_TEST_MAIN(TestExportImport)
#include "tst_exportimport.moc"
