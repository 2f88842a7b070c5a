// Help → About Burrow: version, licence and the libraries, with the versions
// the running app reports.
#include <QFile>
#include <QQmlComponent>
#include <QQmlEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QRegularExpression>
#include <QTest>
#include <QtQml/qqmlextensionplugin.h>

#include "about/aboutinfo.h"
#include "apptestsupport.h"

Q_IMPORT_QML_PLUGIN(BurrowPlugin)

namespace {

// Every visible text under `item`.
QStringList texts(QQuickItem *item)
{
    QStringList found;
    if (!item || !item->isVisible())
        return found;
    const QString text = item->property("text").toString();
    if (!text.isEmpty())
        found << text;
    for (QQuickItem *child : item->childItems())
        found << texts(child);
    return found;
}

} // namespace

class TestAboutDialog : public QObject {
    Q_OBJECT
private slots:
    void aboutInfo()
    {
        QCOMPARE(AboutInfo::version(), QStringLiteral(BURROW_VERSION));
        QCOMPARE(AboutInfo::qtVersion(), QString::fromLatin1(qVersion()));
        QVERIFY(AboutInfo::qtVersion().startsWith(QLatin1String("6.")));
        // The SQLite behind Qt SQL answers `select sqlite_version()`.
        QVERIFY2(QRegularExpression(QStringLiteral("^3\\.\\d+\\.\\d+")).match(AboutInfo::sqliteVersion()).hasMatch(),
                 qPrintable(AboutInfo::sqliteVersion()));
        QVERIFY2(QRegularExpression(QStringLiteral("^10\\.\\d+$")).match(AboutInfo::pcre2Version()).hasMatch(),
                 qPrintable(AboutInfo::pcre2Version()));
    }

    // The licence named in the dialog is the one in LICENSE.
    void licenseMatchesTheLicenseFile()
    {
        QFile file(QStringLiteral(BURROW_SOURCE_DIR "/LICENSE"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.read(400));
        QVERIFY(text.contains(QLatin1String("GNU GENERAL PUBLIC LICENSE")));
        QVERIFY(text.contains(QLatin1String("Version 3")));
        QCOMPARE(AboutInfo::license(), QStringLiteral("GPL-3.0-or-later"));
    }

    void dialogShowsVersionsAndLibraries()
    {
        QQmlEngine engine;
        QQmlComponent component(&engine);
        component.setData("import QtQuick\nimport QtQuick.Controls\nimport Burrow\n"
                          "ApplicationWindow { width: 640; height: 560; visible: true\n"
                          "  property alias about: about\n"
                          "  AboutDialog { id: about } }",
                          QUrl(QStringLiteral("qrc:/Burrow/tst_aboutdialog.qml")));
        std::unique_ptr<QObject> root(component.create());
        QVERIFY2(root, qPrintable(component.errorString()));
        auto *window = qobject_cast<QQuickWindow *>(root.get());
        QVERIFY(window);
        QVERIFY(QTest::qWaitForWindowExposed(window));
        QObject *dialog = root->property("about").value<QObject *>();
        QVERIFY(dialog);
        QVERIFY(QMetaObject::invokeMethod(dialog, "open"));
        QTRY_VERIFY(dialog->property("opened").toBool());

        const QStringList shown = texts(dialog->property("contentItem").value<QQuickItem *>());
        const QString all = shown.join(u'\n');
        QVERIFY2(shown.contains(QStringLiteral("Burrow " BURROW_VERSION)), qPrintable(all));
        QVERIFY2(all.contains(QLatin1String("GNU General Public License")), qPrintable(all));
        QVERIFY2(all.contains(QLatin1String("GPL-3.0-or-later")), qPrintable(all));
        QVERIFY2(shown.contains(QStringLiteral("Qt ") + QString::fromLatin1(qVersion())), qPrintable(all));
        QVERIFY2(shown.contains(QStringLiteral("SQLite ") + AboutInfo::sqliteVersion()), qPrintable(all));
        QVERIFY2(shown.contains(QStringLiteral("PCRE2 ") + AboutInfo::pcre2Version()), qPrintable(all));
        QVERIFY2(shown.contains(QStringLiteral("KArchive")), qPrintable(all));
        QVERIFY2(all.contains(QLatin1String("burrow-archive")), qPrintable(all));
        QVERIFY2(all.contains(QLatin1String("inference engine is Burrow's own")), qPrintable(all));
    }

    // The main window offers it under Help.
    void mainWindowHasAboutDialog()
    {
        burrow::test::AppWindow app;
        QVERIFY(app.open());
        QObject *dialog = app.window->findChild<QObject *>(QStringLiteral("aboutDialog"));
        QVERIFY2(dialog, "Main.qml has no AboutDialog");
        QVERIFY(QMetaObject::invokeMethod(dialog, "open"));
        QTRY_VERIFY(dialog->property("opened").toBool());
    }
};

QTEST_MAIN(TestAboutDialog)
#include "tst_aboutdialog.moc"
