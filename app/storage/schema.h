// The conversation database's schema and its care: the migrations (one
// step per version), the check on open that tells a damaged or foreign file
// from a Burrow database, moving a bad file aside, and the backup written
// before an upgrade. ConversationStore calls these while it opens; nothing
// here keeps state.
#pragma once

#include <QCoreApplication>
#include <QSqlDatabase>
#include <QString>
#include <QStringList>

#include "storefailure.h"

class StoreSchema {
    Q_DECLARE_TR_FUNCTIONS(ConversationStore)

public:
    // The schema version this build writes (PRAGMA user_version). Older ones are migrated.
    static constexpr int Version = 7;

    // The SQL of each step: steps()[N - 1] turns version N-1 into N.
    static const QList<QStringList> &steps();

    // Why the database open on `db` cannot be used as a Burrow database ("" when
    // it can). Sets *version to its schema version, *newer when a later Burrow
    // wrote it, and *failure to why: Damaged only when the file itself is bad
    // (SQLite finds it corrupt or not a database, the integrity check fails,
    // it is another program's database); a file that cannot be read now
    // (locked, unreadable) is not damaged and must be left alone.
    static QString inspect(const QSqlDatabase &db, int *version, bool *newer, StoreFailure *failure);

    // Renames `path` and its -wal/-shm companions to `<path>.corrupt-<timestamp>`;
    // returns the new name ("" when the rename failed; nothing is deleted).
    static QString moveAside(const QString &path);

    // Brings `db` from version `from` to Version, one transaction per step,
    // after writing a copy `<path>.bak-v<from>` (VACUUM INTO, consistent) of a
    // database that has a version. On failure returns false with *what (a
    // sentence for the user) and *detail (SQLite's words); the step that
    // failed is rolled back; *failure says why (a full disk, ...).
    static bool migrate(const QSqlDatabase &db, int from, const QString &path, bool inMemory, QString *backupPath,
                        QString *what, QString *detail, StoreFailure *failure);
};
