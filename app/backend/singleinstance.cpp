#include "singleinstance.h"

#include <QCryptographicHash>
#include <QDeadlineTimer>
#include <QDir>
#include <QFileInfo>
#include <QLocalServer>
#include <QLocalSocket>
#include <QStandardPaths>
#include <QThread>
#include <QTimer>
#include <QUrl>

#include "common/logging.h"
#include "storage/conversationstore.h"

namespace {

// A connection that says nothing for this long is dropped.
constexpr int IdleMs = 5000;

QString socketName(const QString &lockPath)
{
    QString dir = QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation);
    if (dir.isEmpty())
        dir = QDir::tempPath();
    // A short name (a socket path has at most ~107 bytes) that is the same
    // for every launch on the same data folder.
    const QByteArray hash =
        QCryptographicHash::hash(QFileInfo(lockPath).absoluteFilePath().toUtf8(), QCryptographicHash::Sha1).toHex();
    return dir + QStringLiteral("/burrow-") + QString::fromLatin1(hash.left(16)) + QStringLiteral(".sock");
}

} // namespace

SingleInstance::SingleInstance(const QString &lockPath, QObject *parent)
    : QObject(parent), m_lockPath(lockPath), m_serverName(socketName(lockPath))
{
}

SingleInstance::~SingleInstance()
{
    if (m_server)
        m_server->close();   // removes the socket file before the lock goes
}

QString SingleInstance::defaultLockPath()
{
    return ConversationStore::defaultDatabasePath() + QStringLiteral(".lock");
}

SingleInstance::Role SingleInstance::start()
{
    QDir().mkpath(QFileInfo(m_lockPath).absolutePath());
    m_lock = std::make_unique<QLockFile>(m_lockPath);
    // Stale only when its process is gone, however long Burrow has run (the
    // default would call a lock older than 30 s stale).
    m_lock->setStaleLockTime(0);
    if (!m_lock->tryLock(0)) {
        if (m_lock->error() == QLockFile::LockFailedError)
            return Role::Second;
        // (For the terminal, before any translation is loaded.)
        m_error = QStringLiteral("cannot take the lock %1 (%2)")
                      .arg(m_lockPath, m_lock->error() == QLockFile::PermissionError ? QStringLiteral("no permission")
                                                                                     : QStringLiteral("unknown error"));
        return Role::Failed;
    }
    // The lock is ours: a socket file left by a Burrow that died is stale.
    QLocalServer::removeServer(m_serverName);
    m_server = new QLocalServer(this);
    m_server->setSocketOptions(QLocalServer::UserAccessOption);
    connect(m_server, &QLocalServer::newConnection, this, &SingleInstance::onConnection);
    if (!m_server->listen(m_serverName)) {
        // Burrow still runs alone (the lock keeps a second one from the
        // database); a second launch just cannot reach it.
        qCWarning(lcApp) << "single instance: cannot listen on" << m_serverName << m_server->errorString();
    }
    return Role::First;
}

void SingleInstance::onConnection()
{
    while (QLocalSocket *socket = m_server->nextPendingConnection()) {
        socket->setParent(this);
        socket->setReadBufferSize(MaxLineBytes * 2);
        connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
        connect(socket, &QLocalSocket::readyRead, this, [this, socket] { readFrom(socket); });
        QTimer::singleShot(IdleMs, socket, [socket] { socket->abort(); });
        readFrom(socket);
    }
}

void SingleInstance::readFrom(QLocalSocket *socket)
{
    QStringList files = socket->property("burrowFiles").toStringList();
    int lines = socket->property("burrowLines").toInt();
    while (socket->canReadLine()) {
        const QByteArray raw = socket->readLine(MaxLineBytes);
        if (!raw.endsWith('\n') || ++lines > MaxLines) {
            socket->abort();   // too long, or too many: not a Burrow launch
            return;
        }
        const QString line = QString::fromUtf8(raw.chopped(1));
        if (line.startsWith(QLatin1String("open\t"))) {
            const QUrl url = QUrl::fromEncoded(raw.mid(5).chopped(1), QUrl::StrictMode);
            if (!url.isLocalFile()) {
                socket->abort();
                return;
            }
            files << url.toLocalFile();
        } else if (line == QLatin1String("end")) {
            socket->write("ok\n");
            socket->flush();
            socket->disconnectFromServer();
            qCInfo(lcApp) << "a second launch handed over" << files;
            Q_EMIT argumentsReceived(files);
            return;
        } else if (line != QLatin1String("raise")) {
            socket->abort();
            return;
        }
    }
    if (socket->bytesAvailable() >= MaxLineBytes) {
        socket->abort();
        return;
    }
    socket->setProperty("burrowFiles", files);
    socket->setProperty("burrowLines", lines);
}

bool SingleInstance::handOver(const QStringList &files, int timeoutMs)
{
    const QDeadlineTimer deadline(timeoutMs);
    QLocalSocket socket;
    // The first may hold the lock and not listen yet (it is starting).
    for (;;) {
        socket.connectToServer(m_serverName);
        if (socket.waitForConnected(int(qMax<qint64>(1, deadline.remainingTime()))))
            break;
        if (deadline.hasExpired()) {
            m_error = QStringLiteral("Burrow is already running but does not answer (%1)").arg(socket.errorString());
            return false;
        }
        QThread::msleep(50);
    }
    QByteArray message;
    for (const QString &file : files)
        message += "open\t" + QUrl::fromLocalFile(file).toEncoded() + '\n';   // (a path may hold a newline)
    if (files.isEmpty())
        message += "raise\n";
    message += "end\n";
    socket.write(message);
    if (!socket.waitForBytesWritten(int(qMax<qint64>(1, deadline.remainingTime())))) {
        m_error = QStringLiteral("Burrow is already running but does not answer (%1)").arg(socket.errorString());
        return false;
    }
    while (!socket.canReadLine()) {
        if (!socket.waitForReadyRead(int(qMax<qint64>(1, deadline.remainingTime())))) {
            m_error = QStringLiteral("Burrow is already running but did not confirm (%1)").arg(socket.errorString());
            return false;
        }
    }
    return socket.readLine(16) == "ok\n";
}
