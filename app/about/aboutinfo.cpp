#include "aboutinfo.h"

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QtGlobal>

#if __has_include(<pcre2.h>)
#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8
#endif
#include <pcre2.h>
#endif

AboutInfo::AboutInfo(QObject *parent)
    : QObject(parent)
{
}

QString AboutInfo::version()
{
    return QStringLiteral(BURROW_VERSION);
}

QString AboutInfo::qtVersion()
{
    return QString::fromLatin1(qVersion());
}

QString AboutInfo::qtBuildVersion()
{
    return QStringLiteral(QT_VERSION_STR);
}

QString AboutInfo::sqliteVersion()
{
    // Asked once; the connection exists only for this query.
    static const QString version = [] {
        const QString connection = QStringLiteral("burrow-about-sqlite-version");
        QString result;
        if (!QSqlDatabase::isDriverAvailable(QStringLiteral("QSQLITE")))
            return result;
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connection);
            db.setDatabaseName(QStringLiteral(":memory:"));
            if (db.open()) {
                QSqlQuery query(db);
                if (query.exec(QStringLiteral("select sqlite_version()")) && query.next())
                    result = query.value(0).toString();
            }
            db.close();
        } // `db` must be gone before the connection is removed.
        QSqlDatabase::removeDatabase(connection);
        return result;
    }();
    return version;
}

QString AboutInfo::pcre2Version()
{
#if defined(PCRE2_MAJOR) && defined(PCRE2_MINOR)
    return QStringLiteral("%1.%2").arg(PCRE2_MAJOR).arg(PCRE2_MINOR);
#else
    return QString();
#endif
}
