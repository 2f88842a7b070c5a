// How often reply text reaches the view, from what draws the window
// (app/common/renderpacing.h): the interval chosen for a GPU or a CPU-drawn
// window, and a reply streamed faster than that reaching the view at most
// once per interval.
#include <QGuiApplication>
#include <QQuickItem>
#include <QStyleHints>
#include <QQuickWindow>
#include <QSignalSpy>
#include <QThread>
#include <QTest>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>

#include "chat/chatcontroller.h"
#include "chat/messagemodel.h"
#include "backend/enginebridge.h"
#include "fakebackend.h"
#include "common/renderpacing.h"

class TestRenderPacing : public QObject {
    Q_OBJECT
private slots:
    void softwareRenderer_data()
    {
        QTest::addColumn<int>("api");
        QTest::addColumn<QByteArray>("renderer");
        QTest::addColumn<bool>("software");
        // GL_RENDERER strings as Mesa and the GPU drivers report them.
        QTest::newRow("llvmpipe") << int(QSGRendererInterface::OpenGL)
                                  << QByteArray("llvmpipe (LLVM 15.0.6, 256 bits)") << true;
        QTest::newRow("softpipe") << int(QSGRendererInterface::OpenGL) << QByteArray("softpipe") << true;
        QTest::newRow("swrast") << int(QSGRendererInterface::OpenGL) << QByteArray("Software Rasterizer") << true;
        QTest::newRow("intel") << int(QSGRendererInterface::OpenGL)
                               << QByteArray("Mesa Intel(R) UHD Graphics 620 (KBL GT2)") << false;
        QTest::newRow("amd") << int(QSGRendererInterface::OpenGL)
                             << QByteArray("AMD Radeon RX 6600 (radeonsi, navi23, LLVM 15.0.6, DRM 3.49)") << false;
        QTest::newRow("nvidia") << int(QSGRendererInterface::OpenGL)
                                << QByteArray("NVIDIA GeForce RTX 3060/PCIe/SSE2") << false;
        QTest::newRow("unknown GL") << int(QSGRendererInterface::OpenGL) << QByteArray() << false;
        QTest::newRow("software backend") << int(QSGRendererInterface::Software) << QByteArray() << true;
        QTest::newRow("vulkan") << int(QSGRendererInterface::Vulkan) << QByteArray("llvmpipe") << false;
    }
    void softwareRenderer()
    {
        QFETCH(int, api);
        QFETCH(QByteArray, renderer);
        QFETCH(bool, software);
        QCOMPARE(RenderPacing::isSoftwareRenderer(QSGRendererInterface::GraphicsApi(api), renderer), software);
    }

    // Which backend draws the window: the user's variables win; OpenGL that
    // rasterises on the CPU, or none at all, means the software backend.
    void chooseBackend_data()
    {
        QTest::addColumn<bool>("userChose");
        QTest::addColumn<bool>("glStarts");
        QTest::addColumn<QByteArray>("renderer");
        QTest::addColumn<bool>("software");
        QTest::newRow("llvmpipe") << false << true << QByteArray("llvmpipe (LLVM 15.0.6, 256 bits)") << true;
        QTest::newRow("softpipe") << false << true << QByteArray("softpipe") << true;
        QTest::newRow("a GPU") << false << true << QByteArray("Mesa Intel(R) UHD Graphics 620 (KBL GT2)") << false;
        QTest::newRow("nvidia") << false << true << QByteArray("NVIDIA GeForce RTX 3060/PCIe/SSE2") << false;
        QTest::newRow("no OpenGL") << false << false << QByteArray() << true;
        QTest::newRow("the user chose, llvmpipe") << true << true << QByteArray("llvmpipe") << false;
        QTest::newRow("the user chose, no OpenGL") << true << false << QByteArray() << false;
    }
    void chooseBackend()
    {
        QFETCH(bool, userChose);
        QFETCH(bool, glStarts);
        QFETCH(QByteArray, renderer);
        QFETCH(bool, software);
        QCOMPARE(RenderPacing::chooseBackend(userChose, glStarts, renderer) == RenderPacing::Backend::Software, software);
    }

    // On the offscreen platform (tests) nothing is probed or changed.
    void applyBackendLeavesOffscreenAlone()
    {
        if (QGuiApplication::platformName() != QLatin1String("offscreen"))
            QSKIP("runs on the offscreen platform");
        const auto before = QQuickWindow::graphicsApi();
        QCOMPARE(RenderPacing::applyBackend(), RenderPacing::Backend::Default);
        QCOMPARE(QQuickWindow::graphicsApi(), before);
    }

    // The view takes a streaming reply's text at most once per interval,
    // however fast the engine writes (the interval is the whole point: at
    // one repaint per token a CPU-drawn window took the engine's cores), and
    // the last text arrives when the reply ends. 60 tokens, one every ~10 ms.
    void viewTakesTextAtMostOncePerInterval_data()
    {
        QTest::addColumn<bool>("software");
        QTest::newRow("drawn by a GPU") << false;
        QTest::newRow("drawn by the CPU") << true;
    }
    void viewTakesTextAtMostOncePerInterval()
    {
        QFETCH(bool, software);
        auto control = std::make_shared<FakeControl>();
        control->pieces.clear();
        for (int i = 0; i < 60; ++i)
            control->pieces << QStringLiteral(" w%1").arg(i);
        EngineBridge::setBackendFactory(fakeFactory(control));
        QTemporaryDir dir;
        const QString model = dir.filePath(QStringLiteral("good.gguf"));
        QFile file(model);
        QVERIFY(file.open(QIODevice::WriteOnly) && file.write("GGUF") == 4);
        file.close();
        {
            ChatController chat;
            const int interval = RenderPacing::flushIntervalMs(software);
            QCOMPARE(interval, software ? RenderPacing::SoftwareFlushIntervalMs : RenderPacing::GpuFlushIntervalMs);
            chat.setViewFlushInterval(interval);
            QSignalSpy loaded(&chat, &ChatController::loadFinished);
            chat.models()->openFile(model, false);
            QVERIFY(loaded.wait(10000));
            QVERIFY(loaded.first().first().toBool());

            int takes = 0;
            connect(chat.messages(), &MessageModel::dataChanged, this,
                    [&](const QModelIndex &, const QModelIndex &, const QList<int> &roles) {
                        if (roles.contains(MessageModel::TextRole))
                            ++takes;
                    });
            QSignalSpy finished(&chat, &ChatController::replyFinished);
            QVERIFY(chat.send(QStringLiteral("hi")));
            QElapsedTimer streaming;
            streaming.start();
            for (int i = 0; i < control->pieces.size(); ++i) {
                control->release();
                QTest::qWait(10);
            }
            QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 10000);
            const qint64 elapsed = streaming.elapsed();
            const int row = finished.first().first().toInt();
            QCOMPARE(chat.messages()->message(row).text, control->pieces.join(QString()));
            // One take per interval that passed, one at the start and the last.
            const int bound = int(elapsed / interval) + 2;
            QVERIFY2(takes >= 1 && takes <= bound,
                     qPrintable(QStringLiteral("%1 takes in %2 ms at %3 ms (at most %4)")
                                    .arg(takes).arg(elapsed).arg(interval).arg(bound)));
            QVERIFY(takes < control->pieces.size());
            control->abort = true;
        }
        EngineBridge::resetBackendFactory();
    }

    // A real window: the answer arrives once, on the GUI thread, after the
    // scene graph starts; it matches the window's graphics API.
    void watchReportsTheWindowsRenderer()
    {
        QQuickWindow window;
        window.resize(200, 100);
        int calls = 0;
        bool software = false;
        QThread *thread = nullptr;
        RenderPacing::watch(&window, [&](bool sw) {
            ++calls;
            software = sw;
            thread = QThread::currentThread();
        });
        window.show();
        QTRY_COMPARE_WITH_TIMEOUT(calls, 1, 10000);
        QCOMPARE(thread, QThread::currentThread());
        if (window.rendererInterface()->graphicsApi() == QSGRendererInterface::Software)
            QVERIFY(software);
    }

    void cursorSteadyHoldsAndRestoresTheFlashTime()
    {
        QStyleHints *hints = QGuiApplication::styleHints();
        hints->setCursorFlashTime(1200);
        RenderPacing::setCursorSteady(true);
        QCOMPARE(hints->cursorFlashTime(), 0);
        RenderPacing::setCursorSteady(true);   // a second hold keeps the platform's time
        QCOMPARE(hints->cursorFlashTime(), 0);
        RenderPacing::setCursorSteady(false);
        QCOMPARE(hints->cursorFlashTime(), 1200);
        RenderPacing::setCursorSteady(false);   // nothing held: unchanged
        QCOMPARE(hints->cursorFlashTime(), 1200);
    }

    void controllerPassesTheInterval()
    {
        ChatController chat;
        chat.setViewFlushInterval(RenderPacing::SoftwareFlushIntervalMs);
        QCOMPARE(chat.viewFlushInterval(), RenderPacing::SoftwareFlushIntervalMs);
        chat.setViewFlushInterval(0);
        QCOMPARE(chat.viewFlushInterval(), 1);   // at least 1 ms
    }
};

QTEST_MAIN(TestRenderPacing)
#include "tst_renderpacing.moc"
