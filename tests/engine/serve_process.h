// `burrow-cli serve` as a process for the server's end-to-end tests: started
// on a free port (--port 0; the port is read from its first stdout line,
// "listening on http://127.0.0.1:PORT"), stopped with SIGTERM when the
// object goes (killed if it does not stop within 10 s). The tests around it
// (tst_serve_sdk, tst_serve_tool, tst_serve_load) start and stop it
// themselves; nothing is left running.
#pragma once

#include "cli_process.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <memory>
#include <signal.h>

namespace burrow::test {

class ServeProcess {
public:
    // Starts `burrow-cli serve -m model --port 0 extra...`; ok() tells
    // whether it is listening (error() says why not).
    ServeProcess(const QString &model, const QStringList &extra = {}, int startTimeoutMs = 60000)
    {
        QStringList args{QStringLiteral("serve"), QStringLiteral("-m"), model, QStringLiteral("--port"),
                         QStringLiteral("0"), QStringLiteral("--quiet")};
        args += extra;
        m_process.setProgram(cliPath());
        m_process.setArguments(args);
        m_process.start();
        if (!m_process.waitForStarted(10000)) {
            m_error = QStringLiteral("burrow-cli did not start");
            return;
        }
        QElapsedTimer t;
        t.start();
        QByteArray out;
        while (!out.contains('\n') && t.elapsed() < startTimeoutMs && m_process.state() == QProcess::Running) {
            m_process.waitForReadyRead(200);
            out += m_process.readAllStandardOutput();
        }
        const int at = out.indexOf("listening on http://");
        if (at < 0) {
            m_error = QStringLiteral("no 'listening on' line: %1 %2")
                          .arg(QString::fromUtf8(out), QString::fromUtf8(m_process.readAllStandardError()));
            return;
        }
        m_url = QString::fromUtf8(out.mid(at + 13).trimmed());
        m_port = m_url.section(':', -1).toInt();
        m_ok = m_port > 0;
    }

    ~ServeProcess() { stop(); }

    // SIGTERM, then the exit code (-1 when it had to be killed or crashed).
    int stop()
    {
        if (m_process.state() == QProcess::NotRunning)
            return m_exit;
        ::kill(static_cast<pid_t>(m_process.processId()), SIGTERM);
        if (!m_process.waitForFinished(30000)) {
            qWarning("burrow-cli serve did not stop within 30 s of SIGTERM; killed");
            m_process.kill();
            m_process.waitForFinished(5000);
            return m_exit = -1;
        }
        if (m_process.exitStatus() != QProcess::NormalExit || m_process.exitCode() != 0)
            qWarning("burrow-cli serve ended with status %d: %s", m_process.exitCode(),
                     m_process.readAllStandardError().right(4000).constData());
        return m_exit = m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1;
    }

    bool ok() const { return m_ok; }
    bool running() const { return m_process.state() == QProcess::Running; }
    const QString &error() const { return m_error; }
    const QString &url() const { return m_url; }   // "http://127.0.0.1:PORT"
    int port() const { return m_port; }
    // The server's resident memory now (VmRSS, Linux), in bytes; -1 when unknown.
    qint64 residentBytes() const
    {
        QFile status(QStringLiteral("/proc/%1/status").arg(m_process.processId()));
        if (!status.open(QIODevice::ReadOnly))
            return -1;
        for (const QByteArray &line : status.readAll().split('\n'))
            if (line.startsWith("VmRSS:"))
                return line.mid(6).trimmed().split(' ').value(0).toLongLong() * 1024;
        return -1;
    }
    QByteArray stderrText() { return m_process.readAllStandardError(); }

private:
    QProcess m_process;
    bool m_ok = false;
    QString m_error, m_url;
    int m_port = 0;
    int m_exit = -1;
};

} // namespace burrow::test
