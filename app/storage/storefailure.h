// Why a database operation failed, in the terms the user must be told and
// that decide what Burrow may do with the file. Only Damaged (SQLite's
// CORRUPT or NOTADB, a failed integrity check, a file that is not a Burrow
// database) lets Burrow set the file aside; every other failure leaves it
// exactly as it is.
#pragma once

#include <QCoreApplication>
#include <QSqlError>
#include <QString>

enum class StoreFailure {
    None,
    Damaged,      // the file is corrupt or not a database
    Locked,       // another program holds it (SQLITE_BUSY / SQLITE_LOCKED)
    DiskFull,     // no room to write (SQLITE_FULL)
    ReadOnly,     // the file or its folder cannot be written (SQLITE_READONLY, SQLITE_PERM)
    CannotOpen,   // the file or its folder cannot be opened or created (SQLITE_CANTOPEN)
    Other,        // anything else (an I/O error, out of memory, ...)
};

class StoreFailures {
    Q_DECLARE_TR_FUNCTIONS(ConversationStore)

public:
    // The kind of a Qt SQL error of the SQLite driver (its native code is
    // SQLite's extended result code).
    static StoreFailure of(const QSqlError &error);
    // A short clause for a sentence: "the disk is full", "another program is using it", ...
    static QString describe(StoreFailure failure, const QSqlError &error);
    // The same without SQLite's words, for a message on a reply.
    static QString brief(StoreFailure failure);
};
