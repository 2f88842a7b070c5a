// How often reply text reaches the view, from what draws the window
// (app/common/renderpacing.h), and that the chat controller passes the
// interval to the engine bridge.
#include <QGuiApplication>
#include <QQuickItem>
#include <QStyleHints>
#include <QQuickWindow>
#include <QSignalSpy>
#include <QThread>
#include <QTest>

#include "chat/chatcontroller.h"
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

    void intervals()
    {
        QCOMPARE(RenderPacing::flushIntervalMs(false), RenderPacing::GpuFlushIntervalMs);
        QCOMPARE(RenderPacing::flushIntervalMs(true), RenderPacing::SoftwareFlushIntervalMs);
        QVERIFY(RenderPacing::GpuFlushIntervalMs <= 40);   // smooth with a GPU
        QVERIFY(RenderPacing::SoftwareFlushIntervalMs > RenderPacing::GpuFlushIntervalMs);
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
