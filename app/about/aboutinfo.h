// What the About dialog shows: Burrow's version and licence and the versions
// of the libraries it is built on, read at run time where the library can say.
#pragma once

#include <QObject>
#include <QString>
#include <QtQml/qqmlregistration.h>

/**
 * @brief Facts for the About dialog; a QML singleton (`AboutInfo`).
 *
 * All values are constant for the process. The SQLite version is asked from
 * the SQLite that Qt SQL's QSQLITE driver uses (one query on a private
 * in-memory connection, the first time it is read).
 */
class AboutInfo : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON
    /// Burrow's version, e.g. "0.1.0".
    Q_PROPERTY(QString version READ version CONSTANT)
    /// SPDX identifier of Burrow's licence.
    Q_PROPERTY(QString license READ license CONSTANT)
    /// The Qt the app runs on (qVersion()), e.g. "6.4.2".
    Q_PROPERTY(QString qtVersion READ qtVersion CONSTANT)
    /// The Qt the app was built against (QT_VERSION_STR).
    Q_PROPERTY(QString qtBuildVersion READ qtBuildVersion CONSTANT)
    /// SQLite as reported by `select sqlite_version()`; "" when the driver is missing.
    Q_PROPERTY(QString sqliteVersion READ sqliteVersion CONSTANT)
    /// PCRE2 (the tokenizer's Unicode categories), from the headers it was built with; "" if unknown.
    Q_PROPERTY(QString pcre2Version READ pcre2Version CONSTANT)

public:
    explicit AboutInfo(QObject *parent = nullptr);

    static QString version();
    static QString license() { return QStringLiteral("GPL-3.0-or-later"); }
    static QString qtVersion();
    static QString qtBuildVersion();
    static QString sqliteVersion();
    static QString pcre2Version();
};
