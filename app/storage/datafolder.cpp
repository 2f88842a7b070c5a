#include "datafolder.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

#include "common/logging.h"

namespace {

QByteArray sha256(const QString &path, bool *ok)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        *ok = false;
        return {};
    }
    QCryptographicHash hash(QCryptographicHash::Sha256);
    *ok = hash.addData(&f);
    return hash.result();
}

bool isDatabaseFile(const QString &name)
{
    return name.startsWith(QLatin1String("burrow.db"));
}

// Copies `from` to `to` through a temporary name and checks the copy byte
// for byte (SHA-256 of both) before it takes its name.
bool copyVerified(const QString &from, const QString &to)
{
    const QString temporary = to + QStringLiteral(".moving");
    QFile::remove(temporary);
    if (!QFile::copy(from, temporary))
        return false;
    bool okFrom = true, okTo = true;
    const QByteArray a = sha256(from, &okFrom);
    const QByteArray b = sha256(temporary, &okTo);
    if (!okFrom || !okTo || a != b || !QFile::rename(temporary, to)) {
        QFile::remove(temporary);
        return false;
    }
    return true;
}

} // namespace

QString DataFolder::path()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + QStringLiteral("/Burrow");
}

QString DataFolder::oldPath()
{
    return path() + QStringLiteral("/Burrow");
}

QString DataFolder::moveOldData()
{
    const QString oldRoot = oldPath();
    if (!QFileInfo(oldRoot).isDir())
        return QString();
    const QString newRoot = path();
    const QDir old(oldRoot);
    QStringList kept;      // old files that stay (their new place was taken, or moving failed)
    QStringList moved;
    QDirIterator it(oldRoot, QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    QStringList files;
    while (it.hasNext())
        files << it.next();
    for (const QString &from : std::as_const(files)) {
        const QString relative = old.relativeFilePath(from);
        const QString to = newRoot + QLatin1Char('/') + relative;
        if (QFileInfo::exists(to)) {
            kept << relative;
            continue;
        }
        if (!QDir().mkpath(QFileInfo(to).absolutePath())) {
            kept << relative;
            continue;
        }
        bool done = false;
        if (isDatabaseFile(QFileInfo(from).fileName())) {
            done = copyVerified(from, to) && QFile::remove(from);
        } else {
            done = QFile::rename(from, to) || (copyVerified(from, to) && QFile::remove(from));
        }
        (done ? moved : kept) << relative;
    }
    // The old folders, where empty now.
    QDirIterator dirs(oldRoot, QDir::Dirs | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    QStringList folders;
    while (dirs.hasNext())
        folders << dirs.next();
    std::sort(folders.begin(), folders.end(), [](const QString &a, const QString &b) { return a.size() > b.size(); });
    for (const QString &folder : std::as_const(folders))
        QDir().rmdir(folder);
    QDir().rmdir(oldRoot);
    if (!moved.isEmpty())
        qCInfo(lcApp) << "moved" << moved.size() << "files from" << oldRoot << "to" << newRoot;
    if (kept.isEmpty())
        return QString();
    qCWarning(lcApp) << "left in" << oldRoot << ":" << kept;
    return tr("Burrow now keeps its data in %1. Some files of the old folder %2 were not moved (%3); "
              "nothing was deleted.")
        .arg(QDir::toNativeSeparators(newRoot), QDir::toNativeSeparators(oldRoot), kept.join(QStringLiteral(", ")));
}
