// What the export dialog's answer becomes, for every form a file chooser
// gives it: the platform's dialogs answer a file: URL, Qt 6.4's own Qt Quick
// dialog a URL without scheme glued from its folder and the typed name (the
// bug: "Could not write : cannot move the archive to " on every export).
// Also the name offered and the folder the dialogs open in.
#include <QDate>
#include <QDir>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include "archive/exportpaths.h"

class TestExportPaths : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("BurrowTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_exportpaths"));
        QSettings().clear();
    }

    void savePath_data()
    {
        QTest::addColumn<QUrl>("chosen");
        QTest::addColumn<QUrl>("folder");
        QTest::addColumn<QString>("expected");
        const QUrl folder = QUrl::fromLocalFile(QStringLiteral("/data/exports"));
        const QString home = QDir::homePath();
        // What GTK, KDE or the portal answer.
        QTest::newRow("file URL") << QUrl::fromLocalFile(QStringLiteral("/data/a/chats.zip")) << folder
                                  << QStringLiteral("/data/a/chats.zip");
        QTest::newRow("file URL without suffix") << QUrl::fromLocalFile(QStringLiteral("/data/a/chats")) << folder
                                                 << QStringLiteral("/data/a/chats.zip");
        QTest::newRow("upper-case suffix kept") << QUrl::fromLocalFile(QStringLiteral("/data/a/Chats.ZIP")) << folder
                                                << QStringLiteral("/data/a/Chats.ZIP");
        QTest::newRow("other suffix gets .zip") << QUrl::fromLocalFile(QStringLiteral("/data/a/notes.v2")) << folder
                                                << QStringLiteral("/data/a/notes.v2.zip");
        QTest::newRow("spaces and CJK") << QUrl::fromLocalFile(QStringLiteral("/data/a/我的 chats")) << folder
                                        << QStringLiteral("/data/a/我的 chats.zip");
        // What Qt 6.4's Qt Quick dialog answers: its folder's path + "/" + the typed name, no scheme.
        QTest::newRow("Qt Quick: typed name") << QUrl(QStringLiteral("/data/exports/my chats")) << folder
                                              << QStringLiteral("/data/exports/my chats.zip");
        QTest::newRow("Qt Quick: typed name.zip") << QUrl(QStringLiteral("/data/exports/x.zip")) << folder
                                                  << QStringLiteral("/data/exports/x.zip");
        QTest::newRow("Qt Quick: whole path typed") << QUrl(QStringLiteral("/data/exports//tmp/elsewhere/y")) << folder
                                                    << QStringLiteral("/tmp/elsewhere/y.zip");
        QTest::newRow("Qt Quick: from the root folder") << QUrl(QStringLiteral("//y.zip")) << folder
                                                        << QStringLiteral("/y.zip");
        QTest::newRow("Qt Quick: home typed") << QUrl(QStringLiteral("/data/exports/~/z")) << folder
                                              << home + QStringLiteral("/z.zip");
        // A bare name (a chooser that answers relative to its folder).
        QTest::newRow("bare name") << QUrl(QStringLiteral("chats")) << folder << QStringLiteral("/data/exports/chats.zip");
        QTest::newRow("~/ name") << QUrl(QStringLiteral("~/chats")) << folder << home + QStringLiteral("/chats.zip");
        // Nothing usable.
        QTest::newRow("empty") << QUrl() << folder << QString();
        QTest::newRow("a folder") << QUrl::fromLocalFile(QStringLiteral("/data/exports/")) << folder << QString();
        QTest::newRow("the root") << QUrl::fromLocalFile(QStringLiteral("/")) << folder << QString();
        QTest::newRow("not a local file") << QUrl(QStringLiteral("https://example.com/x.zip")) << folder << QString();
        QTest::newRow("bare name, no folder") << QUrl(QStringLiteral("chats")) << QUrl() << QString();
    }
    void savePath()
    {
        QFETCH(QUrl, chosen);
        QFETCH(QUrl, folder);
        QFETCH(QString, expected);
        QCOMPARE(ExportPaths::savePath(chosen, folder), expected);
    }

    void savePathNeverAnExistingFolder()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("sub")));
        QCOMPARE(ExportPaths::savePath(QUrl::fromLocalFile(dir.filePath(QStringLiteral("sub"))), QUrl()), QString());
    }

    void defaultName_data()
    {
        QTest::addColumn<int>("count");
        QTest::addColumn<QString>("title");
        QTest::addColumn<QString>("expected");
        const QString all = QStringLiteral("Burrow conversations %1.zip").arg(QDate::currentDate().toString(Qt::ISODate));
        QTest::newRow("one") << 1 << QStringLiteral("Soup recipes") << QStringLiteral("Soup recipes.zip");
        QTest::newRow("one, refused characters") << 1 << QStringLiteral("a/b\\c:d*e?f\"g<h>i|j")
                                                 << QStringLiteral("a-b-c-d-e-f-g-h-i-j.zip");
        QTest::newRow("one, line break") << 1 << QStringLiteral("two\nlines") << QStringLiteral("two lines.zip");
        QTest::newRow("one, hidden") << 1 << QStringLiteral("..profile") << QStringLiteral("profile.zip");
        QTest::newRow("one, long") << 1 << QString(200, u'x') << QString(80, u'x') + QStringLiteral(".zip");
        QTest::newRow("one, untitled") << 1 << QString() << all;
        QTest::newRow("several") << 3 << QStringLiteral("Soup") << all;
        QTest::newRow("all") << 0 << QString() << all;
    }
    void defaultName()
    {
        QFETCH(int, count);
        QFETCH(QString, title);
        QFETCH(QString, expected);
        QCOMPARE(ExportPaths::defaultName(count, title), expected);
    }

    // The dialogs open where the last export or import was.
    void folderIsRemembered()
    {
        QTemporaryDir dir;
        const QUrl before = ExportPaths::folder();
        QVERIFY(before.isLocalFile());
        QVERIFY(QFileInfo(before.toLocalFile()).isDir());
        ExportPaths::remember(dir.filePath(QStringLiteral("chats.zip")));
        QCOMPARE(ExportPaths::folder(), QUrl::fromLocalFile(dir.path()));
        QCOMPARE(ExportPaths::fileInFolder(QStringLiteral("a b.zip")),
                 QUrl::fromLocalFile(dir.filePath(QStringLiteral("a b.zip"))));
        // A folder since removed: back to Documents or home.
        const QString gone = dir.path();
        dir.remove();
        QVERIFY(ExportPaths::folder() != QUrl::fromLocalFile(gone));
        QVERIFY(QFileInfo(ExportPaths::folder().toLocalFile()).isDir());
        QSettings().clear();
    }
};

QTEST_MAIN(TestExportPaths)
#include "tst_exportpaths.moc"
