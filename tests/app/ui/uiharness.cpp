// The UI test harness (uiharness.h): the display, input through xdotool, the
// XDND source, screenshots, the real binary and reading its database.
#include "uiharness.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QQuickItem>
#include <QQuickWindow>
#include <QRegularExpression>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QStandardPaths>
#include <QUuid>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <string>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace burrow::test::ui {

namespace {

XDisplay *g_current = nullptr;

// Starts `argv` in a child that dies with this process, its output thrown
// away, with DISPLAY set to `display` when given; keeps `keepFd` open in the
// child. Returns the child's pid, or -1.
pid_t spawn(const std::vector<std::string> &argv, const std::string &display, int keepFd = -1)
{
    const pid_t pid = fork();
    if (pid != 0)
        return pid;
    // Child: only async-signal-safe calls until exec.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    const int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) {
        dup2(devnull, STDIN_FILENO);
        dup2(devnull, STDOUT_FILENO);
        dup2(devnull, STDERR_FILENO);
    }
    if (!display.empty())
        setenv("DISPLAY", display.c_str(), 1);
    (void)keepFd;
    std::vector<char *> args;
    for (const std::string &a : argv)
        args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
}

void stopChild(int &pid)
{
    if (pid <= 0)
        return;
    ::kill(pid, SIGTERM);
    for (int i = 0; i < 100; ++i) {   // ≤ 2 s, then SIGKILL
        if (waitpid(pid, nullptr, WNOHANG) == pid) {
            pid = -1;
            return;
        }
        usleep(20000);
    }
    ::kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    pid = -1;
}

// Runs `argv` to its end (≤ 5 s) with DISPLAY = `display`; its exit status, or -1.
int runToEnd(const std::vector<std::string> &argv, const std::string &display)
{
    int pid = spawn(argv, display);
    if (pid < 0)
        return -1;
    for (int i = 0; i < 250; ++i) {
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        usleep(20000);
    }
    stopChild(pid);
    return -1;
}

// Runs a program to its end while the event loop turns; false on a start
// failure, a non-zero exit or `timeoutMs`.
bool runProgram(const QString &program, const QStringList &args, QByteArray *output, int timeoutMs,
                bool quiet = false)
{
    QElapsedTimer timer;
    timer.start();
    QProcess process;
    process.setProcessChannelMode(QProcess::SeparateChannels);
    process.start(program, args);
    if (!process.waitForStarted(5000)) {
        qWarning("ui: cannot start %s: %s", qPrintable(program), qPrintable(process.errorString()));
        return false;
    }
    if (!QTest::qWaitFor([&] { return process.state() == QProcess::NotRunning; }, timeoutMs)) {
        qWarning("ui: %s %s did not end within %d ms", qPrintable(program), qPrintable(args.join(u' ')), timeoutMs);
        process.kill();
        process.waitForFinished(2000);
        return false;
    }
    if (qEnvironmentVariableIsSet("BURROW_UI_TRACE"))
        qInfo("ui: %s %s: %lld ms", qPrintable(program), qPrintable(args.join(u' ')), timer.elapsed());
    if (output)
        *output = process.readAllStandardOutput();
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        if (!quiet)
            qWarning("ui: %s %s failed (%d): %s", qPrintable(program), qPrintable(args.join(u' ')), process.exitCode(),
                 process.readAllStandardError().constData());
        return false;
    }
    return true;
}

void pointArgs(QPoint p, QStringList *into)
{
    *into << QString::number(p.x()) << QString::number(p.y());
}

} // namespace

// ---- the display -----------------------------------------------------------

XDisplay::~XDisplay() { stop(); }

XDisplay *XDisplay::current() { return g_current; }
void XDisplay::setCurrent(XDisplay *display) { g_current = display; }

// Whether child `pid` has ended (reaped here); its status in `*how`.
static bool ended(int pid, QString *how)
{
    int status = 0;
    if (pid <= 0 || waitpid(pid, &status, WNOHANG) != pid)
        return false;
    *how = WIFEXITED(status) ? QStringLiteral("exit status %1").arg(WEXITSTATUS(status))
                             : QStringLiteral("signal %1").arg(WIFSIGNALED(status) ? WTERMSIG(status) : -1);
    return true;
}

bool XDisplay::start(QString *error)
{
    for (const char *program : {"Xvfb", "openbox", "xdotool", "import"}) {
        if (QStandardPaths::findExecutable(QString::fromLatin1(program)).isEmpty()) {
            *error = QStringLiteral("%1 is not installed (scripts/packages.txt lists it; scripts/setup.sh installs it)")
                         .arg(QString::fromLatin1(program));
            return false;
        }
    }
    // One CI run on two cores saw openbox not come up within 60 s on a
    // display of its own; a display that does not come up is given up and
    // a fresh one tried, and an openbox that ends is started again.
    QStringList attempts;
    for (int attempt = 0; attempt < 3; ++attempt) {
        QString why;
        if (startOnce(&why))
            return true;
        attempts << why;
        stop();
    }
    *error = attempts.join(QStringLiteral("; then "));
    return false;
}

bool XDisplay::startOnce(QString *error)
{
    // Xvfb chooses a free display number and writes it to the pipe.
    int fds[2];
    if (pipe(fds) != 0) {
        *error = QStringLiteral("pipe: %1").arg(QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    m_xvfb = spawn({"Xvfb", "-displayfd", std::to_string(fds[1]), "-screen", "0", "1280x900x24", "-nolisten", "tcp",
                    "-dpi", "96"},
                   std::string(), fds[1]);
    close(fds[1]);
    std::string number;
    QElapsedTimer timer;
    timer.start();
    // (Generous limits: CTest starts these beside the engine's heaviest tests
    // on two cores, where a 15 s limit for both ran out twice.)
    constexpr qint64 kXvfbMs = 30000, kOpenboxMs = 40000;
    while (timer.elapsed() < kXvfbMs) {
        pollfd p{fds[0], POLLIN, 0};
        if (poll(&p, 1, 100) <= 0)
            continue;
        char c = 0;
        const ssize_t n = read(fds[0], &c, 1);
        if (n <= 0 || c == '\n')
            break;
        number += c;
    }
    close(fds[0]);
    if (number.empty()) {
        QString how;
        if (ended(m_xvfb, &how)) {
            m_xvfb = -1;
            *error = QStringLiteral("Xvfb ended (%1) before it named a display").arg(how);
        } else {
            *error = QStringLiteral("Xvfb did not name a display within %1 s").arg(kXvfbMs / 1000);
        }
        return false;
    }
    m_name = QStringLiteral(":") + QString::fromStdString(number);
    const std::string display = m_name.toStdString();
    m_openbox = spawn({"openbox", "--sm-disable"}, display);
    int restarts = 0;
    QString last;
    // The window manager is up once it has set the root window's desktops.
    timer.restart();
    while (timer.elapsed() < kOpenboxMs) {
        if (runToEnd({"xdotool", "get_num_desktops"}, display) == 0)
            return true;
        QString how;
        if (ended(m_xvfb, &how)) {
            m_xvfb = -1;
            *error = QStringLiteral("Xvfb on %1 ended (%2)").arg(m_name, how);
            return false;
        }
        if (ended(m_openbox, &how)) {
            m_openbox = -1;
            last = how;
            if (++restarts > 3)
                break;
            m_openbox = spawn({"openbox", "--sm-disable"}, display);
        }
        usleep(50000);
    }
    if (restarts > 3)
        *error = QStringLiteral("openbox on %1 ended %2 times, last with %3").arg(m_name).arg(restarts).arg(last);
    else
        *error = QStringLiteral("openbox did not answer on %1 within %2 s (it ended %3 times)")
                     .arg(m_name).arg(kOpenboxMs / 1000).arg(restarts);
    return false;
}

void XDisplay::stop()
{
    stopChild(m_openbox);
    stopChild(m_xvfb);
}

int setUp(XDisplay &display)
{
    QString error;
    if (!display.start(&error)) {
        std::fprintf(stderr, "FAIL: no X display for the UI test: %s\n", qPrintable(error));
        return 1;
    }
    XDisplay::setCurrent(&display);
    qputenv("DISPLAY", display.name().toLocal8Bit());
    qputenv("QT_QPA_PLATFORM", "xcb");
    qunsetenv("WAYLAND_DISPLAY");
    if (qEnvironmentVariableIsEmpty("QT_QUICK_CONTROLS_STYLE"))
        qputenv("QT_QUICK_CONTROLS_STYLE", "Fusion");
    // Qt wants a private runtime folder (CTest names one per test).
    const QString runtime = qEnvironmentVariable("XDG_RUNTIME_DIR");
    if (!runtime.isEmpty()) {
        QDir().mkpath(runtime);
        QFile::setPermissions(runtime, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    }
    return 0;
}

// ---- input -----------------------------------------------------------------

bool xdotool(const QStringList &args, QByteArray *output, int timeoutMs)
{
    return runProgram(QStringLiteral("xdotool"), args, output, timeoutMs);
}

bool key(const QString &chords)
{
    QStringList args{QStringLiteral("key"), QStringLiteral("--delay"), QStringLiteral("40")};
    args += chords.split(u' ', Qt::SkipEmptyParts);
    const bool ok = xdotool(args);
    QTest::qWait(30);   // the last key's events reach the window
    return ok;
}

bool pressUntil(const QString &chords, const std::function<bool()> &done, int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < timeoutMs) {
        if (done())
            return true;
        key(chords);
        QTest::qWait(1000);
    }
    return done();
}

bool type(const QString &text)
{
    for (const QChar c : text) {
        if (c.unicode() >= 0x80) {
            qWarning("ui::type: \"%s\" is not ASCII (xdotool loses such characters to Qt's keymap)", qPrintable(text));
            return false;
        }
    }
    const bool ok = xdotool({QStringLiteral("type"), QStringLiteral("--delay"), QStringLiteral("15"), QStringLiteral("--"), text});
    QTest::qWait(30);
    return ok;
}

bool moveTo(QPoint global)
{
    QStringList args{QStringLiteral("mousemove"), QStringLiteral("--sync")};
    pointArgs(global, &args);
    return xdotool(args);
}

bool click(QPoint global, int button)
{
    QStringList args{QStringLiteral("mousemove"), QStringLiteral("--sync")};
    pointArgs(global, &args);
    args << QStringLiteral("click") << QString::number(button);
    const bool ok = xdotool(args);
    QTest::qWait(30);
    return ok;
}

bool wheelIntoView(QQuickItem *target, QQuickItem *over)
{
    const auto inView = [&] {
        const QPointF centre = target->mapToScene(QPointF(target->width() / 2, target->height() / 2));
        return target->window() && centre.y() > 0 && centre.y() < target->window()->height() - 10;
    };
    for (int i = 0; i < 30 && !inView(); ++i) {
        if (!moveTo(centreOf(over)) || !xdotool({QStringLiteral("click"), QStringLiteral("5")}))   // wheel down
            return false;
        QTest::qWait(50);
    }
    if (!inView())
        return false;
    QTest::qWait(500);   // the view settles after the wheel
    return true;
}

QPoint centreOf(const QQuickItem *item)
{
    return item->mapToGlobal(QPointF(item->width() / 2, item->height() / 2)).toPoint();
}

QQuickItem *findShown(QQuickItem *root, const std::function<bool(QQuickItem *)> &match)
{
    if (!root || !root->isVisible())
        return nullptr;
    if (match(root))
        return root;
    const QList<QQuickItem *> children = root->childItems();
    for (QQuickItem *child : children)
        if (QQuickItem *found = findShown(child, match))
            return found;
    return nullptr;
}

QQuickItem *findButton(QQuickItem *root, const QString &text)
{
    return findShown(root, [&](QQuickItem *item) {
        return item->inherits("QQuickAbstractButton") && item->property("text").toString().remove(u'&') == text;
    });
}

bool dragFile(const QString &path, QPoint global, QString *error)
{
    QString problem;
    QString *why = error ? error : &problem;
    // The source outlives this call: the target reads the dropped data from
    // it after the drop. It ends by itself (or with the test program).
    auto *sourceProcess = new QProcess(QCoreApplication::instance());
    QObject::connect(sourceProcess, &QProcess::finished, sourceProcess, &QObject::deleteLater);
    QProcess &source = *sourceProcess;
    source.setProcessChannelMode(QProcess::SeparateChannels);
    source.start(xdndSourceBinary(), {path});
    if (!source.waitForStarted(5000)) {
        *why = QStringLiteral("cannot start %1").arg(xdndSourceBinary());
        return false;
    }
    QByteArray out;
    if (!QTest::qWaitFor([&] { out += source.readAllStandardOutput(); return out.contains("ready\n"); }, 10000)) {
        *why = QStringLiteral("the drag source did not show its window");
        source.kill();
        source.waitForFinished(2000);
        return false;
    }
    // Where the window manager put the source: its centre.
    QByteArray found;
    if (!xdotool({QStringLiteral("search"), QStringLiteral("--onlyvisible"), QStringLiteral("--pid"),
                  QString::number(source.processId())},
                 &found)) {
        *why = QStringLiteral("the drag source's window is not on the display");
        source.kill();
        source.waitForFinished(2000);
        return false;
    }
    const QString window = QString::fromLatin1(found).split(u'\n', Qt::SkipEmptyParts).value(0);
    QByteArray shell;
    xdotool({QStringLiteral("getwindowgeometry"), QStringLiteral("--shell"), window}, &shell);
    auto field = [&](const char *name) {
        const QRegularExpression re(QStringLiteral("%1=(-?\\d+)").arg(QLatin1String(name)));
        return re.match(QString::fromLatin1(shell)).captured(1).toInt();
    };
    const QPoint start(field("X") + field("WIDTH") / 2, field("Y") + field("HEIGHT") / 2);

    // Press on the source (it starts the drag), move to the target in steps
    // (each motion is an XdndPosition the target answers), rest there, release.
    QStringList args{QStringLiteral("mousemove"), QStringLiteral("--sync")};
    pointArgs(start, &args);
    args << QStringLiteral("mousedown") << QStringLiteral("1") << QStringLiteral("sleep") << QStringLiteral("0.3");
    const int steps = 10;
    for (int i = 1; i <= steps; ++i) {
        const QPoint at = start + (global - start) * i / steps;
        args << QStringLiteral("mousemove");
        pointArgs(at, &args);
        args << QStringLiteral("sleep") << QStringLiteral("0.05");
    }
    args << QStringLiteral("mousemove");
    pointArgs(global + QPoint(1, 1), &args);
    args << QStringLiteral("sleep") << QStringLiteral("0.3") << QStringLiteral("mouseup") << QStringLiteral("1");
    const bool moved = xdotool(args);
    if (!QTest::qWaitFor([&] { out += source.readAllStandardOutput(); return out.contains("dropped "); }, 10000)) {
        *why = QStringLiteral("the drag did not end");
        source.kill();
        return false;
    }
    if (!moved) {
        *why = QStringLiteral("the target did not take the drop (%1)").arg(QString::fromLatin1(out).simplified());
        return false;
    }
    return !out.contains("dropped ignore");
}

// ---- screenshots -----------------------------------------------------------

bool screenshot(const QString &path)
{
    if (!XDisplay::current())
        return false;
    return runProgram(QStringLiteral("import"),
                      {QStringLiteral("-display"), XDisplay::current()->name(), QStringLiteral("-window"),
                       QStringLiteral("root"), path},
                      nullptr, 15000);
}

QString screenshotDir()
{
    QString dir = qEnvironmentVariable("BURROW_UI_SCREENSHOTS");
    if (dir.isEmpty())
        dir = QStringLiteral(BURROW_BINARY_DIR "/tests/app/ui/screenshots");
    dir += u'/' + QCoreApplication::applicationName();
    QDir().mkpath(dir);
    return dir;
}

void keepScreenshotOnFailure()
{
    static QString kept;   // one screenshot per failed function (the first)
    if (!QTest::currentTestFailed())
        return;
    QString name = QString::fromLatin1(QTest::currentTestFunction());
    if (const char *tag = QTest::currentDataTag())
        name += u'_' + QString::fromUtf8(tag);
    name.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]")), QStringLiteral("_"));
    const QString path = screenshotDir() + u'/' + name + QStringLiteral(".png");
    if (kept == path)
        return;
    kept = path;
    if (screenshot(path))
        qInfo("ui: the screen at the failure: %s", qPrintable(path));
    else
        qWarning("ui: could not take a screenshot to %s", qPrintable(path));
}

// ---- the real binary -------------------------------------------------------

QString burrowBinary() { return QStringLiteral(BURROW_APP_BINARY); }
QString xdndSourceBinary() { return QStringLiteral(BURROW_XDND_SOURCE); }

BurrowProcess::BurrowProcess(const QString &home)
{
    if (home.isEmpty()) {
        m_tmp = std::make_unique<QTemporaryDir>();
        m_home = m_tmp->path();
    } else {
        m_home = home;
    }
    m_process.setProcessChannelMode(QProcess::MergedChannels);
}

BurrowProcess::~BurrowProcess()
{
    // A failed test: the screen and the app's log while it still runs.
    if (QTest::currentTestFailed()) {
        keepScreenshotOnFailure();
        qInfo("ui: burrow's log:\n%s", log().right(4000).constData());
    }
    if (m_process.state() != QProcess::NotRunning) {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
}

bool BurrowProcess::start(const QStringList &args, const QStringList &env)
{
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    const QString runtime = m_home + QStringLiteral("/runtime");
    for (const QString &dir : {dataHome(), configHome(), m_home + QStringLiteral("/cache"), runtime})
        QDir().mkpath(dir);
    QFile::setPermissions(runtime, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    // Nothing of the user's: a home of its own (the model library looks
    // under it), English unless the test says otherwise.
    e.insert(QStringLiteral("HOME"), m_home);
    e.insert(QStringLiteral("XDG_DATA_HOME"), dataHome());
    e.insert(QStringLiteral("XDG_CONFIG_HOME"), configHome());
    e.insert(QStringLiteral("XDG_CACHE_HOME"), m_home + QStringLiteral("/cache"));
    e.insert(QStringLiteral("XDG_RUNTIME_DIR"), runtime);
    e.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("xcb"));
    e.insert(QStringLiteral("LC_ALL"), QStringLiteral("C.UTF-8"));
    e.insert(QStringLiteral("LANGUAGE"), QStringLiteral("en"));
    for (const QString &pair : env) {
        const qsizetype eq = pair.indexOf(u'=');
        if (eq > 0)
            e.insert(pair.left(eq), pair.mid(eq + 1));
    }
    m_process.setProcessEnvironment(e);
    m_process.start(burrowBinary(), args);
    return m_process.waitForStarted(10000);
}

QByteArray BurrowProcess::log()
{
    m_log += m_process.readAll();
    return m_log;
}

bool BurrowProcess::waitForWindow(int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < timeoutMs && m_process.state() == QProcess::Running) {
        QByteArray found;
        // (xdotool fails while there is no such window yet: not a problem.)
        if (runProgram(QStringLiteral("xdotool"),
                       {QStringLiteral("search"), QStringLiteral("--onlyvisible"), QStringLiteral("--pid"),
                        QString::number(m_process.processId())},
                       &found, 5000, true)) {
            m_window = QString::fromLatin1(found).split(u'\n', Qt::SkipEmptyParts).value(0);
            break;
        }
        QTest::qWait(100);
    }
    if (m_window.isEmpty())
        return false;
    // The window manager gives a new window the focus; ask for it if not.
    while (timer.elapsed() < timeoutMs) {
        QByteArray active;
        if (xdotool({QStringLiteral("getactivewindow")}, &active) && QString::fromLatin1(active).trimmed() == m_window)
            return true;
        xdotool({QStringLiteral("windowactivate"), m_window});
        QTest::qWait(100);
    }
    return false;
}

QString BurrowProcess::title() const
{
    QByteArray name;
    if (m_window.isEmpty() || !xdotool({QStringLiteral("getwindowname"), m_window}, &name))
        return {};
    return QString::fromUtf8(name).trimmed();
}

QRect BurrowProcess::geometry() const
{
    QByteArray shell;
    if (m_window.isEmpty() || !xdotool({QStringLiteral("getwindowgeometry"), QStringLiteral("--shell"), m_window}, &shell))
        return {};
    auto field = [&](const char *name) {
        const QRegularExpression re(QStringLiteral("%1=(-?\\d+)").arg(QLatin1String(name)));
        return re.match(QString::fromLatin1(shell)).captured(1).toInt();
    };
    return QRect(field("X"), field("Y"), field("WIDTH"), field("HEIGHT"));
}

bool BurrowProcess::close(int timeoutMs)
{
    if (m_process.state() == QProcess::NotRunning)
        return true;
    // File → Quit's shortcut, to the window.
    xdotool({QStringLiteral("windowactivate"), QStringLiteral("--sync"), m_window, QStringLiteral("key"),
             QStringLiteral("ctrl+q")});
    if (QTest::qWaitFor([&] { return m_process.state() == QProcess::NotRunning; }, timeoutMs))
        return m_process.exitStatus() == QProcess::NormalExit;
    kill();
    return false;
}

void BurrowProcess::kill()
{
    m_process.kill();
    m_process.waitForFinished(5000);
}

// ---- the database ----------------------------------------------------------

StoreReader::StoreReader(const QString &databasePath)
    : m_path(databasePath),
      m_connection(QStringLiteral("ui-reader-") + QUuid::createUuid().toString(QUuid::WithoutBraces))
{
}

StoreReader::~StoreReader()
{
    if (QSqlDatabase::contains(m_connection)) {
        {
            QSqlDatabase db = QSqlDatabase::database(m_connection, false);
            db.close();
        }
        QSqlDatabase::removeDatabase(m_connection);
    }
}

bool StoreReader::ensureOpen()
{
    if (QSqlDatabase::contains(m_connection))
        return QSqlDatabase::database(m_connection, false).isOpen();
    if (!QFileInfo::exists(m_path))
        return false;
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connection);
    db.setDatabaseName(m_path);
    db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=2000"));
    if (!db.open()) {
        qWarning("ui: cannot read %s: %s", qPrintable(m_path), qPrintable(db.lastError().text()));
        return false;
    }
    return true;
}

QList<QVariantList> StoreReader::rows(const QString &sql, const QVariantList &args)
{
    QList<QVariantList> result;
    if (!ensureOpen())
        return result;
    QSqlQuery query(QSqlDatabase::database(m_connection, false));
    query.setForwardOnly(true);
    if (!query.prepare(sql)) {
        qWarning("ui: %s: %s", qPrintable(sql), qPrintable(query.lastError().text()));
        return result;
    }
    for (const QVariant &arg : args)
        query.addBindValue(arg);
    if (!query.exec())
        return result;   // e.g. the schema is not made yet
    while (query.next()) {
        QVariantList row;
        for (int i = 0; i < query.record().count(); ++i)
            row << query.value(i);
        result << row;
    }
    return result;
}

QVariant StoreReader::value(const QString &sql, const QVariantList &args)
{
    const QList<QVariantList> all = rows(sql, args);
    return all.isEmpty() || all.first().isEmpty() ? QVariant() : all.first().first();
}

} // namespace burrow::test::ui
