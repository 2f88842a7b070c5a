#include "storefailure.h"

namespace {

// SQLite's primary result codes (sqlite3.h); the extended code's low byte.
enum : int {
    SqlitePerm = 3,
    SqliteBusy = 5,
    SqliteLocked = 6,
    SqliteReadOnly = 8,
    SqliteCorrupt = 11,
    SqliteFull = 13,
    SqliteCantOpen = 14,
    SqliteNotADb = 26,
};

} // namespace

StoreFailure StoreFailures::of(const QSqlError &error)
{
    if (!error.isValid() || error.type() == QSqlError::NoError)
        return StoreFailure::None;
    bool ok = false;
    const int code = error.nativeErrorCode().toInt(&ok);
    if (!ok)
        return StoreFailure::Other;
    switch (code & 0xFF) {
    case SqliteCorrupt:
    case SqliteNotADb: return StoreFailure::Damaged;
    case SqliteBusy:
    case SqliteLocked: return StoreFailure::Locked;
    case SqliteFull: return StoreFailure::DiskFull;
    case SqliteReadOnly:
    case SqlitePerm: return StoreFailure::ReadOnly;
    case SqliteCantOpen: return StoreFailure::CannotOpen;
    default: return StoreFailure::Other;
    }
}

QString StoreFailures::describe(StoreFailure failure, const QSqlError &error)
{
    const QString words = error.databaseText().isEmpty() ? error.text() : error.databaseText();
    switch (failure) {
    case StoreFailure::None: return QString();
    case StoreFailure::Damaged: return tr("the file is damaged (%1)").arg(words);
    case StoreFailure::Locked: return tr("another program is using the file (%1)").arg(words);
    case StoreFailure::DiskFull: return tr("the disk is full (%1)").arg(words);
    case StoreFailure::ReadOnly: return tr("the file or its folder cannot be written to (%1)").arg(words);
    case StoreFailure::CannotOpen: return tr("the file or its folder cannot be opened (%1)").arg(words);
    case StoreFailure::Other: return words;
    }
    return words;
}

QString StoreFailures::brief(StoreFailure failure)
{
    switch (failure) {
    case StoreFailure::Damaged: return tr("the conversation database is damaged");
    case StoreFailure::Locked: return tr("another program is using the conversation database");
    case StoreFailure::DiskFull: return tr("the disk is full");
    case StoreFailure::ReadOnly: return tr("the conversation database cannot be written to");
    case StoreFailure::CannotOpen: return tr("the conversation database cannot be opened");
    case StoreFailure::None:
    case StoreFailure::Other: break;
    }
    return tr("the conversation database refused it");
}
