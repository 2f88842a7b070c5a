#pragma once

#include <functional>

#include <QByteArray>
#include <QSGRendererInterface>

class QQuickWindow;

// How often the view takes new reply text, from what draws the window.
//
// Each take repaints the window. With a GPU a frame costs the CPU well under
// a millisecond, and 30 takes a second look smooth. When the CPU draws the
// scene (Mesa's llvmpipe or softpipe on a machine or VM without a GPU, or
// Qt Quick's software backend) one frame of a chat costs 10-15 ms of CPU on
// two to three threads, taken from the engine's cores: at 60 frames a
// second the app generated at a quarter of `burrow-cli run`'s speed on the
// bench model (2 cores, docs/benchmarks.md, "The app"). There the view takes
// text five times a second, which keeps drawing to a few per cent of the CPU.
namespace RenderPacing {

inline constexpr int GpuFlushIntervalMs = 33;
inline constexpr int SoftwareFlushIntervalMs = 200;

// True when `api` (and for OpenGL, the GL_RENDERER string) means the CPU
// rasterises: the Software adaptation, or Mesa's llvmpipe / softpipe / swrast.
bool isSoftwareRenderer(QSGRendererInterface::GraphicsApi api, const QByteArray &glRenderer);

// What draws the window when nobody chose (QT_QUICK_BACKEND or
// QSG_RHI_BACKEND unset): with a GPU, Qt Quick's default (OpenGL); when
// OpenGL rasterises on the CPU (Mesa's llvmpipe: a VM, a remote desktop, a
// machine without a GPU driver) or cannot start at all, Qt Quick's software
// backend, which repaints only what changed: a streaming reply costs the CPU
// half of what a whole llvmpipe frame per take does (scripts/bench-app.sh:
// the app's non-engine threads 85 -> 45 ms per run of 512 tokens), and that
// CPU is the engine's. Pure, so it is tested without a display.
enum class Backend { Default, Software };
Backend chooseBackend(bool userChose, bool glStarts, const QByteArray &glRenderer);

// Applies chooseBackend() to this machine: starts an OpenGL context on an
// offscreen surface to read GL_RENDERER (tens of milliseconds, once), and
// sets QQuickWindow::setGraphicsApi(Software) when it says so. Call after
// QGuiApplication exists and before the first window. Does nothing on the
// offscreen and minimal platforms (tests). Returns what it chose.
Backend applyBackend();

inline int flushIntervalMs(bool softwareRendering)
{
    return softwareRendering ? SoftwareFlushIntervalMs : GpuFlushIntervalMs;
}

// While `steady` the text cursors do not blink (they stay drawn): each blink
// is a frame of the whole window, and while a reply streams the engine needs
// the CPU (two blinks a second were a third of the frames drawn on a
// CPU-drawn window, scripts/bench-app.sh). The first call with true keeps the
// platform's flash time; false brings it back. GUI thread.
void setCursorSteady(bool steady);

// Calls onKnown(software) once on the GUI thread when `window`'s scene graph
// is initialised (the renderer is only known then). Call before the window
// is first exposed, i.e. before the event loop runs.
void watch(QQuickWindow *window, std::function<void(bool software)> onKnown);

} // namespace RenderPacing
