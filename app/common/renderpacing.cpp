#include "renderpacing.h"

#include <memory>

#include <QGuiApplication>
#include <QOpenGLContext>
#include <QStyleHints>
#include <QOpenGLFunctions>
#include <QQuickWindow>

#include "common/logging.h"

namespace RenderPacing {

bool isSoftwareRenderer(QSGRendererInterface::GraphicsApi api, const QByteArray &glRenderer)
{
    if (api == QSGRendererInterface::Software)
        return true;
    if (api != QSGRendererInterface::OpenGL)
        return false;
    // Mesa names its CPU drivers "llvmpipe (LLVM 15.0.6, 256 bits)",
    // "softpipe" and "Software Rasterizer" (swrast).
    const QByteArray r = glRenderer.toLower();
    return r.contains("llvmpipe") || r.contains("softpipe") || r.contains("software rasterizer")
        || r.contains("swrast");
}

void setCursorSteady(bool steady)
{
    static int platformFlashMs = -1;   // -1: not held
    QStyleHints *hints = QGuiApplication::styleHints();
    if (steady && platformFlashMs < 0) {
        platformFlashMs = hints->cursorFlashTime();
        hints->setCursorFlashTime(0);
    } else if (!steady && platformFlashMs >= 0) {
        hints->setCursorFlashTime(platformFlashMs);
        platformFlashMs = -1;
    }
}

void watch(QQuickWindow *window, std::function<void(bool software)> onKnown)
{
    if (!window || !onKnown)
        return;
    auto callback = std::make_shared<std::function<void(bool)>>(std::move(onKnown));
    // sceneGraphInitialized is emitted on the render thread, with the GL
    // context current there; the answer goes back to the GUI thread.
    QObject::connect(window, &QQuickWindow::sceneGraphInitialized, window, [window, callback] {
        const QSGRendererInterface::GraphicsApi api = window->rendererInterface()->graphicsApi();
        QByteArray renderer;
        if (api == QSGRendererInterface::OpenGL) {
            if (QOpenGLContext *gl = QOpenGLContext::currentContext())
                renderer = QByteArray(reinterpret_cast<const char *>(gl->functions()->glGetString(GL_RENDERER)));
        }
        const bool software = isSoftwareRenderer(api, renderer);
        QMetaObject::invokeMethod(window, [callback, software, renderer] {
            qCInfo(lcApp) << "renderer" << (renderer.isEmpty() ? QByteArray("(not OpenGL)") : renderer)
                          << (software ? "draws on the CPU: reply text is shown 5 times a second"
                                       : "is a GPU");
            (*callback)(software);
        }, Qt::QueuedConnection);
    }, Qt::DirectConnection);
}

} // namespace RenderPacing
