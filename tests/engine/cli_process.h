// Runs burrow-cli (the build tree's) as a process for the tests of its
// commands: arguments, optional standard input; the exit code (-1 when it
// crashed or did not finish in 60 s) and both outputs.
#pragma once

#include <QByteArray>
#include <QProcess>
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

inline ProcessResult runCli(const QStringList &args, const QByteArray &input = {})
{
    QProcess p;
    p.start(cliPath(), args);
    if (p.waitForStarted(60000)) {
        p.write(input);
        p.closeWriteChannel();
    }
    ProcessResult r;
    if (!p.waitForFinished(60000))
        return r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

} // namespace burrow::test
