// Runs burrow-cli (the build tree's) as a process for the tests of its
// commands: arguments, optional standard input; the exit code (-1 when it
// crashed, did not start, or did not finish in time: it is then killed) and
// both outputs. The one process runner of the engine tests.
#pragma once

#include <QByteArray>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace burrow::test {

inline const QString &cliPath()
{
    static const QString path = QStringLiteral(BURROW_BINARY_DIR "/engine/tools/burrow-cli");
    return path;
}

struct ProcessResult {
    int exitCode = -1;
    QByteArray out, err;
};

// `environment`: the child's variables (empty: this process's).
inline ProcessResult runCli(const QStringList &args, const QByteArray &input = {}, int timeoutMs = 60000,
                            const QProcessEnvironment &environment = {})
{
    QProcess p;
    if (!environment.isEmpty())
        p.setProcessEnvironment(environment);
    p.start(cliPath(), args);
    ProcessResult r;
    if (!p.waitForStarted(10000))
        return r;
    p.write(input);
    p.closeWriteChannel();
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

} // namespace burrow::test
