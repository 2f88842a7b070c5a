#include "exportpaths.h"

#include <QDate>
#include <QDir>
#include <QFileInfo>
#include <QQmlEngine>
#include <QSettings>
#include <QStandardPaths>

namespace {
const QString kFolderKey = QStringLiteral("archive/folder");
const QString kSuffix = QStringLiteral(".zip");
constexpr int kMaxTitle = 80;
}

ExportPaths *ExportPaths::create(QQmlEngine *, QJSEngine *)
{
    return new ExportPaths;   // the engine owns it
}

QString ExportPaths::savePath(const QUrl &chosen, const QUrl &folder)
{
    if (chosen.isEmpty())
        return QString();
    QString path;
    if (chosen.isLocalFile()) {
        path = chosen.toLocalFile();
    } else if (chosen.scheme().isEmpty()) {
        // (From the root folder the dialog's "//name" reads as a host name.)
        path = chosen.host().isEmpty() ? chosen.path() : u'/' + chosen.host() + chosen.path();
        // A whole path typed into the name field, glued to the folder.
        const qsizetype typed = path.lastIndexOf(QLatin1String("//"));
        if (typed >= 0)
            path = path.mid(typed + 1);
        const qsizetype home = path.lastIndexOf(QLatin1String("/~/"));
        if (home >= 0)
            path = QDir::homePath() + path.mid(home + 2);
        else if (path.startsWith(QLatin1String("~/")))
            path = QDir::homePath() + path.mid(1);
        if (QDir::isRelativePath(path)) {
            const QString base = folder.isLocalFile() ? folder.toLocalFile() : folder.path();
            if (base.isEmpty())
                return QString();
            path = QDir(base).filePath(path);
        }
    } else {
        return QString();   // not a file on this computer
    }
    if (path.isEmpty() || path.endsWith(u'/'))
        return QString();   // a folder
    path = QDir::cleanPath(path);
    const QFileInfo info(path);
    if (info.fileName().isEmpty() || info.isDir())
        return QString();
    if (!info.fileName().endsWith(kSuffix, Qt::CaseInsensitive))
        path += kSuffix;
    return path;
}

QString ExportPaths::defaultName(int count, const QString &title)
{
    QString name = title.simplified();
    if (count != 1 || name.isEmpty())
        return tr("Burrow conversations %1").arg(QDate::currentDate().toString(Qt::ISODate)) + kSuffix;
    // Characters Windows, macOS or Linux file systems refuse, and control characters.
    for (QChar &c : name) {
        if (c.unicode() < 0x20 || QStringLiteral("/\\:*?\"<>|").contains(c))
            c = u'-';
    }
    if (name.size() > kMaxTitle)
        name = name.left(kMaxTitle).trimmed();
    while (name.startsWith(u'.'))   // not a hidden file
        name.remove(0, 1);
    return (name.isEmpty() ? tr("Conversation") : name) + kSuffix;
}

QUrl ExportPaths::folder()
{
    const QString saved = QSettings().value(kFolderKey).toString();
    if (!saved.isEmpty() && QFileInfo(saved).isDir())
        return QUrl::fromLocalFile(saved);
    const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    if (!documents.isEmpty() && QFileInfo(documents).isDir())
        return QUrl::fromLocalFile(documents);
    return QUrl::fromLocalFile(QDir::homePath());
}

QUrl ExportPaths::fileInFolder(const QString &name)
{
    return QUrl::fromLocalFile(QDir(folder().toLocalFile()).filePath(name));
}

void ExportPaths::remember(const QString &path)
{
    const QString dir = QFileInfo(path).absolutePath();
    if (!path.isEmpty() && QFileInfo(dir).isDir())
        QSettings().setValue(kFolderKey, dir);
}
