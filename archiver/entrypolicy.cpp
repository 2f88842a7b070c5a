#include "entrypolicy.h"

QString entryNameProblem(const QString &name)
{
    if (name.isEmpty())
        return QStringLiteral("an entry has an empty name");
    if (name.size() > 4096)
        return QStringLiteral("an entry name is longer than 4096 characters");
    for (const QChar c : name) {
        if (c.unicode() < 0x20 || c.unicode() == 0x7f)
            return QStringLiteral("entry \"%1\" has a control character in its name").arg(name);
    }
    if (name.startsWith(QLatin1Char('/')))
        return QStringLiteral("entry \"%1\" has an absolute path").arg(name);
    if (name.size() >= 2 && name[1] == QLatin1Char(':') && name[0].isLetter())
        return QStringLiteral("entry \"%1\" starts with a drive letter").arg(name);
    if (name.contains(QLatin1Char('\\')))
        return QStringLiteral("entry \"%1\" contains a backslash").arg(name);
    const QStringList parts = name.split(QLatin1Char('/'));
    for (const QString &part : parts) {
        if (part == QLatin1String(".."))
            return QStringLiteral("entry \"%1\" points outside the destination (\"..\")").arg(name);
        if (part.toUtf8().size() > 255)
            return QStringLiteral("entry \"%1\" has a path component longer than 255 bytes").arg(name);
    }
    if (entryComponents(name).isEmpty())
        return QStringLiteral("entry \"%1\" names no file").arg(name);
    return {};
}

QStringList entryComponents(const QString &name)
{
    QStringList out;
    for (const QString &part : name.split(QLatin1Char('/'))) {
        if (!part.isEmpty() && part != QLatin1String("."))
            out.append(part);
    }
    return out;
}
