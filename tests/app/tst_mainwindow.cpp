// The main window loads from the Burrow module and shows the empty state.
#include <QGuiApplication>
#include <QProcess>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QTest>
#include <QtQml/qqmlextensionplugin.h>

#include "appinfo.h"

Q_IMPORT_QML_PLUGIN(BurrowPlugin)

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void showsEmptyStateWithoutModel()
    {
        QQmlApplicationEngine engine;
        engine.load(AppInfo::mainQmlUrl());
        QCOMPARE(engine.rootObjects().size(), 1);
        auto *window = qobject_cast<QQuickWindow *>(engine.rootObjects().first());
        QVERIFY(window);
        QVERIFY(QTest::qWaitForWindowExposed(window));
        auto *title = window->findChild<QQuickItem *>(QStringLiteral("emptyStateTitle"));
        QVERIFY2(title, "the empty state's title is missing");
        QVERIFY(title->isVisible());
        QCOMPARE(title->property("text").toString(), QStringLiteral("Drop a .gguf model here, or open one"));
    }

    void versionFlagPrintsVersion()
    {
        QProcess app;
        app.start(QStringLiteral(BURROW_BINARY_DIR "/app/burrow"), {QStringLiteral("--version")});
        QVERIFY(app.waitForFinished(30000));
        QCOMPARE(app.exitCode(), 0);
        QCOMPARE(QString::fromUtf8(app.readAllStandardOutput()).trimmed(),
                 QStringLiteral("Burrow " BURROW_VERSION));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
