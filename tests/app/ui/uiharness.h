// The harness for tests that use Burrow as a person does: a private X
// display (Xvfb with the openbox window manager), real input through the X
// server (xdotool's XTest key presses, clicks and pointer moves, and a file
// dragged from a real XDND source, ui/xdnd_source.cpp), the real `burrow`
// binary or the app library's real Main window on that display, waiting for
// a state a person could see (the window title, the SQLite file, the QML
// items of an in-process window), and a screenshot kept when a test fails.
//
// A test file:
//
//     #include "uiharness.h"
//     class TestSomething : public QObject {
//         Q_OBJECT
//     private slots:
//         void cleanup() { burrow::test::ui::keepScreenshotOnFailure(); }
//         void flow() { ... burrow::test::ui::key("ctrl+n"); ... }
//     };
//     BURROW_UI_TEST_MAIN(TestSomething)
//
// BURROW_UI_TEST_MAIN starts the display before the application, so the test
// process is itself a client of it (QT_QPA_PLATFORM=xcb): an in-process
// window (apptestsupport.h's AppWindow) gets the same X events as the real
// binary. Each test process has its own display (Xvfb -displayfd picks a free
// number), so CTest may run UI tests in parallel.
//
// Screenshots of failed tests: $BURROW_UI_SCREENSHOTS if set, else
// <build>/tests/app/ui/screenshots/<test>/<function>[_<tag>].png (the path is
// printed with the failure). docs/architecture.md, "Tests", says more.
#pragma once

#include <QByteArray>
#include <QGuiApplication>
#include <QPoint>
#include <QProcess>
#include <QRect>
#include <QSqlDatabase>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>
#include <QVariant>
#include <functional>
#include <memory>

class QQuickItem;

namespace burrow::test::ui {

// A private X display: Xvfb on a free display number, 1280×900×24, with
// openbox managing its windows. Started with plain fork/exec, so it can be
// started before the QGuiApplication that connects to it.
class XDisplay {
public:
    XDisplay() = default;
    ~XDisplay();
    XDisplay(const XDisplay &) = delete;
    XDisplay &operator=(const XDisplay &) = delete;

    // Starts Xvfb and openbox and waits until the window manager answers
    // (≤ 70 s a display, three displays at most). False with `error` set
    // when a program is missing or no display came up.
    bool start(QString *error);
    void stop();
    // ":N" (the value of DISPLAY for the clients).
    QString name() const { return m_name; }

    // The display of this test process (set by BURROW_UI_TEST_MAIN).
    static XDisplay *current();
    static void setCurrent(XDisplay *display);

private:
    int m_xvfb = -1;
    int m_openbox = -1;
    QString m_name;

    bool startOnce(QString *error);
};

// Real input through the X server. Each call runs xdotool and keeps the
// event loop turning meanwhile (an in-process window must answer the X
// events, an XDND drop in particular), and returns whether xdotool succeeded.

// Runs xdotool with `args`; its standard output in `output` if given.
bool xdotool(const QStringList &args, QByteArray *output = nullptr, int timeoutMs = 15000);
// Key chords as xdotool names them: "ctrl+n", "Return", "shift+Tab", "alt+f".
// Several chords are pressed one after the other.
bool key(const QString &chords);
// Presses `chords` once a second until `done()` holds (≤ `timeoutMs`), for a
// key whose target appears at a time the test cannot see (a dialog the
// real binary opens); pressing it before then must be harmless.
bool pressUntil(const QString &chords, const std::function<bool()> &done, int timeoutMs);
// Types `text` as key presses on the US keyboard of the display. ASCII only:
// a character without a key (é, 你) reaches a Qt window as nothing, since
// xdotool maps it to a spare key only for the moment of the press.
bool type(const QString &text);
// Moves the pointer to `global` (root coordinates) and clicks `button` (1 left, 3 right).
bool click(QPoint global, int button = 1);
bool moveTo(QPoint global);
// The centre of an item of an in-process window, in root coordinates (for click()).
QPoint centreOf(const QQuickItem *item);
// Turns the mouse wheel over `over` (a scrolling panel's item) until the
// centre of `target` lies inside its window (at most 30 notches), then lets
// the view settle; false if it never comes into view.
bool wheelIntoView(QQuickItem *target, QQuickItem *over);
// In an in-process window: the first shown item under `root` (popups and
// dialogs included when `root` is the window's contentItem) for which
// `match` holds, or null.
QQuickItem *findShown(QQuickItem *root, const std::function<bool(QQuickItem *)> &match);
// The shown button (any AbstractButton: Button, MenuItem, …) whose text,
// without its mnemonic "&", is `text`.
QQuickItem *findButton(QQuickItem *root, const QString &text);
// Drags the file `path` from a real XDND source window (ui/xdnd_source) to
// `global` and drops it there, with the left button as a person does. The
// source shows itself at the top left of the screen. True when the target
// accepted the drop.
bool dragFile(const QString &path, QPoint global, QString *error = nullptr);

// Writes a PNG of the whole screen to `path` (imagemagick's import).
bool screenshot(const QString &path);
// Where the screenshots of this test program go (created).
QString screenshotDir();
// Call from cleanup(): when the test function just failed, keeps a
// screenshot named after it and prints where.
void keepScreenshotOnFailure();
// The same from a destructor: declare one after an in-process window
// (AppWindow) in a test function, so the screen is taken before the window
// closes. (BurrowProcess does it by itself.)
struct ScreenshotOnFailure {
    ScreenshotOnFailure() = default;
    ScreenshotOnFailure(const ScreenshotOnFailure &) = delete;
    ScreenshotOnFailure &operator=(const ScreenshotOnFailure &) = delete;
    ~ScreenshotOnFailure() { keepScreenshotOnFailure(); }
};

// The real `burrow` binary on the display, with XDG folders of its own (a
// temporary home unless `home` is given), so nothing of the user's is read or
// written. Its output (the app's log) is kept for the failure message.
class BurrowProcess {
public:
    explicit BurrowProcess(const QString &home = QString());
    ~BurrowProcess();

    // Starts `burrow args…` with extra environment `env` ("NAME=value").
    bool start(const QStringList &args = {}, const QStringList &env = {});
    // Waits until the process shows a window and the window manager gave
    // it the focus; remembers its X window id.
    bool waitForWindow(int timeoutMs = 20000);
    // The window's title as the window manager shows it.
    QString title() const;
    // The window's frame-less geometry on the screen.
    QRect geometry() const;
    // Asks the window to close (as the title bar's close button does) and
    // waits for the process to end; kills it after `timeoutMs`.
    bool close(int timeoutMs = 10000);
    // Ends the process at once (SIGKILL, as a crash).
    void kill();

    QProcess &process() { return m_process; }
    QString windowId() const { return m_window; }
    QString home() const { return m_home; }
    QString dataHome() const { return m_home + QStringLiteral("/data"); }
    QString configHome() const { return m_home + QStringLiteral("/config"); }
    // burrow.db in this instance's data folder (app/storage/datafolder.h).
    QString databasePath() const { return dataHome() + QStringLiteral("/Burrow/burrow.db"); }
    // Everything the process has printed so far.
    QByteArray log();

private:
    std::unique_ptr<QTemporaryDir> m_tmp;
    QString m_home;
    QProcess m_process;
    QString m_window;
    QByteArray m_log;
};

// Reads the app's real SQLite file while the app writes it (WAL), as a
// second process would; one connection per reader.
class StoreReader {
public:
    explicit StoreReader(const QString &databasePath);
    ~StoreReader();
    // The first column of the first row of `sql` (with `?` bound to `args`),
    // or an invalid QVariant when the file or the row is not there yet.
    QVariant value(const QString &sql, const QVariantList &args = {});
    // Every row of `sql` (each a list of its columns).
    QList<QVariantList> rows(const QString &sql, const QVariantList &args = {});

private:
    bool ensureOpen();
    QString m_path;
    QString m_connection;
};

// The binaries the harness runs (paths from the build).
QString burrowBinary();
QString xdndSourceBinary();

// Prepares the process before the application exists: starts the display
// and points Qt at it. Returns 0, or a non-zero exit status after printing why.
int setUp(XDisplay &display);

} // namespace burrow::test::ui

// main() for a UI test: a display of its own, then the application on it,
// then the test class, as QTEST_MAIN would.
#define BURROW_UI_TEST_MAIN(TestObject)                                 \
    int main(int argc, char *argv[])                                    \
    {                                                                   \
        burrow::test::ui::XDisplay display;                             \
        if (const int status = burrow::test::ui::setUp(display))        \
            return status;                                              \
        QGuiApplication app(argc, argv);                                \
        app.setAttribute(Qt::AA_Use96Dpi, true);                        \
        TestObject tc;                                                  \
        QTEST_SET_MAIN_SOURCE_PATH                                      \
        return QTest::qExec(&tc, argc, argv);                           \
    }
