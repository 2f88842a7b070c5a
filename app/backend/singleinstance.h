// SingleInstance: one Burrow per user (per data folder). The first launch
// takes a lock file beside the conversation database (QLockFile) and listens
// on a local socket named after it (QLocalServer); only that process opens
// the database, so only it sweeps "interrupted" replies at start. A second
// launch finds the lock taken, connects to the socket, hands over its
// arguments (the files to open) and exits; the first raises its window and
// opens them (argumentsReceived). A lock left by a process that died is
// taken over (QLockFile removes a stale lock whose process is gone).
//
// Protocol (one connection per hand-over, UTF-8 lines): the second launch
// writes "open\t<file:// URL>" per file, or "raise" when it has none, then
// "end"; the first answers "ok" once it has taken them. Lines are bounded
// (MaxLineBytes, MaxLines): a stranger on the socket cannot make the first
// allocate without limit.
#pragma once

#include <memory>

#include <QLockFile>
#include <QObject>
#include <QStringList>

class QLocalServer;
class QLocalSocket;

class SingleInstance : public QObject {
    Q_OBJECT

public:
    // `lockPath`: the lock file (e.g. <data folder>/burrow.db.lock); the
    // socket's name is derived from it, so tests with their own data folder
    // get their own instance.
    explicit SingleInstance(const QString &lockPath, QObject *parent = nullptr);
    ~SingleInstance() override;

    static constexpr int MaxLineBytes = 8192;
    static constexpr int MaxLines = 64;

    // The default lock beside the default database.
    static QString defaultLockPath();

    enum class Role {
        First,      // this process holds the lock and listens: it is Burrow
        Second,     // another process holds it: hand over and exit
        Failed,     // the lock cannot be taken nor its owner found (error())
    };
    // Takes the lock (or finds its owner) and, for the first, starts
    // listening. Cost: a file lock and a socket; no waiting.
    Role start();
    QString error() const { return m_error; }

    // The second launch: hands `files` (absolute paths; none: just raise the
    // window) to the first and waits for its "ok", at most `timeoutMs` (the
    // first may be starting: connecting is retried within that time).
    // False with error() when it could not.
    bool handOver(const QStringList &files, int timeoutMs = 3000);

    // The socket's full name (a path in the runtime folder).
    QString serverName() const { return m_serverName; }

Q_SIGNALS:
    // The first: another launch asked to open `files` (may be empty: just
    // show the window).
    void argumentsReceived(const QStringList &files);

private:
    void onConnection();
    void readFrom(QLocalSocket *socket);

    QString m_lockPath;
    QString m_serverName;
    std::unique_ptr<QLockFile> m_lock;
    QLocalServer *m_server = nullptr;
    QString m_error;
};
