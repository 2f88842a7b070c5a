// The download dialog in the real window, as a user goes: the empty
// window's "Download a model…" opens it, a repository id lists the files of
// a hub on loopback (FakeHub, serving ../shared's stories260K.gguf), the
// file downloads and is checked, Open loads it through the model loader and
// the model answers a message. File → Download a model… reaches the same
// dialog. The real hub is never contacted.
#include <QDir>
#include <QSignalSpy>
#include <QTest>
#include <memory>

#include "apptestsupport.h"
#include "fakehub.h"
#include "models/downloadmanager.h"
#include "models/modelloader.h"
#include "storage/datafolder.h"

Q_IMPORT_QML_PLUGIN(BurrowPlugin)

using namespace burrow::test;

namespace {
const QString kStories = QStringLiteral("models/stories260K.gguf");

QQuickItem *waitForItem(AppWindow &app, const QString &name)
{
    QQuickItem *item = nullptr;
    QTest::qWaitFor([&] {
        item = findItem(app.window->contentItem(), name);
        return item && item->isVisible() && item->width() > 0;
    }, 10000);
    return item;
}
} // namespace

class TestDownloadWindow : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("BURROW_TOKEN_STORE", "file");
        QDir(DataFolder::path() + QStringLiteral("/models")).removeRecursively();
    }

    void downloadOpenAndChat()
    {
        BURROW_REQUIRE_SHARED(kStories);
        QFile model(sharedPath(kStories));
        QVERIFY(model.open(QIODevice::ReadOnly));
        FakeHub hub;
        QVERIFY(hub.isListening());
        hub.addFile(QStringLiteral("test/stories-GGUF"), QStringLiteral("stories260K.gguf"), model.readAll());
        qputenv("BURROW_HF_ENDPOINT", hub.endpoint().toEncoded());

        AppWindow app;
        QVERIFY(app.open());
        QQuickItem *download = waitForItem(app, QStringLiteral("emptyStateDownload"));
        QVERIFY(download);
        clickItem(app.window, download);
        auto *dialog = app.find<QObject>(QStringLiteral("downloadDialog"));
        QVERIFY(dialog);
        QVERIFY(QTest::qWaitFor([&] { return dialog->property("opened").toBool(); }, 5000));

        QQuickItem *field = waitForItem(app, QStringLiteral("downloadRepoField"));
        QVERIFY(field);
        QVERIFY(field->hasActiveFocus());
        for (const char c : QByteArray("test/stories-GGUF"))
            QTest::keyClick(app.window, c);
        QTest::keyClick(app.window, Qt::Key_Return);
        QQuickItem *file = waitForItem(app, QStringLiteral("downloadFile_0"));
        QVERIFY2(file, qPrintable(findItem(app.window->contentItem(), QStringLiteral("downloadListError"))->property("text").toString()));
        clickItem(app.window, file);
        QQuickItem *start = waitForItem(app, QStringLiteral("downloadStartButton"));
        QVERIFY(start && start->isEnabled());
        clickItem(app.window, start);

        QQuickItem *open = waitForItem(app, QStringLiteral("downloadOpen"));
        QVERIFY2(open, "the download did not finish");
        const QString path = DataFolder::path() + QStringLiteral("/models/stories260K.gguf");
        QVERIFY(QFileInfo::exists(path));
        QSignalSpy loaded(app.chat, &ChatController::loadFinished);
        clickItem(app.window, open);
        QVERIFY(loaded.wait(30000) || !loaded.isEmpty());
        QVERIFY(loaded.first().first().toBool());
        QVERIFY(!dialog->property("visible").toBool());
        QCOMPARE(app.chat->models()->model().path, path);

        // The model answers (greedily: the same reply on every machine).
        QVERIFY(app.chat->settings()->setValue(QStringLiteral("temperature"), 0.0));
        QSignalSpy finished(app.chat, &ChatController::replyFinished);
        QVERIFY(app.chat->send(QStringLiteral("Once upon a time")));
        QVERIFY(finished.wait(60000));
        QVERIFY(!app.chat->messages()->message(finished.first().first().toInt()).text.isEmpty());

        // File → Download a model… opens the same dialog, with the download listed.
        auto *menuItem = app.find<QObject>(QStringLiteral("downloadModelMenuItem"));
        QVERIFY(menuItem);
        auto *action = menuItem->property("action").value<QObject *>();
        QVERIFY(action);
        QVERIFY(QMetaObject::invokeMethod(action, "trigger"));
        QVERIFY(QTest::qWaitFor([&] { return dialog->property("opened").toBool(); }, 5000));
        QVERIFY(waitForItem(app, QStringLiteral("download_0")));
    }
};

QTEST_MAIN(TestDownloadWindow)
#include "tst_downloadwindow.moc"
