// The main window loads from the Burrow module and shows the empty state.
#include <QGuiApplication>
#include <QProcess>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QTest>
#include <QtQml/qqmlextensionplugin.h>

#include "test_support.h"
#include "common/appinfo.h"

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

    // `burrow MODEL.gguf` loads the model at start (the app logs each load).
    void commandLineModelIsLoaded()
    {
        BURROW_REQUIRE_SHARED(QStringLiteral("models/stories260K.gguf"));
        QProcess app;
        app.setProcessChannelMode(QProcess::MergedChannels);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        app.setProcessEnvironment(env);
        app.start(QStringLiteral(BURROW_BINARY_DIR "/app/burrow"),
                  {burrow::test::sharedPath(QStringLiteral("models/stories260K.gguf"))});
        QVERIFY(app.waitForStarted(10000));
        QByteArray output;
        QTRY_VERIFY_WITH_TIMEOUT((output += app.readAll()).contains("burrow.app: loaded"), 30000);
        QVERIFY(output.contains("stories260K.gguf"));
        app.terminate();
        QVERIFY(app.waitForFinished(10000));
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
