#include "renderpacing.h"

#include <memory>

#include <QGuiApplication>
#include <QOpenGLContext>
#include <QStyleHints>
#include <QOffscreenSurface>
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

Backend chooseBackend(bool userChose, bool glStarts, const QByteArray &glRenderer)
{
    if (userChose)
        return Backend::Default;   // Qt reads the user's variables itself
    if (!glStarts)
        return Backend::Software;  // no OpenGL at all: the software backend still draws
    return isSoftwareRenderer(QSGRendererInterface::OpenGL, glRenderer) ? Backend::Software : Backend::Default;
}

Backend applyBackend()
{
    const QString platform = QGuiApplication::platformName();
    if (platform == QLatin1String("offscreen") || platform == QLatin1String("minimal"))
        return Backend::Default;
    const bool userChose = qEnvironmentVariableIsSet("QT_QUICK_BACKEND") || qEnvironmentVariableIsSet("QSG_RHI_BACKEND");
    QByteArray renderer;
    bool glStarts = false;
    if (!userChose) {
        QOffscreenSurface surface;
        surface.create();
        QOpenGLContext context;
        if (surface.isValid() && context.create() && context.makeCurrent(&surface)) {
            if (const GLubyte *name = context.functions()->glGetString(GL_RENDERER))
                renderer = QByteArray(reinterpret_cast<const char *>(name));
            glStarts = true;
            context.doneCurrent();
        }
    }
    const Backend backend = chooseBackend(userChose, glStarts, renderer);
    if (backend == Backend::Software) {
        QQuickWindow::setGraphicsApi(QSGRendererInterface::Software);
        qCInfo(lcApp) << "OpenGL" << (glStarts ? QByteArray("draws on the CPU (" + renderer + ")") : QByteArray("does not start"))
                      << "- the window is drawn by Qt Quick's software backend (set QSG_RHI_BACKEND=opengl to keep OpenGL)";
    }
    return backend;
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
