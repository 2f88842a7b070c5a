// Burrow's data folder: $XDG_DATA_HOME/Burrow (~/.local/share/Burrow on
// Linux), holding burrow.db (with its -wal/-shm files and backups) and the
// models folder. Burrow 0.1 used the organisation and the application name
// both (…/Burrow/Burrow); moveOldData() brings that folder's files here once.
#pragma once

#include <QCoreApplication>
#include <QString>

class DataFolder {
    Q_DECLARE_TR_FUNCTIONS(DataFolder)

public:
    // The folder (not created here).
    static QString path();
    // Where Burrow 0.1 kept its data (inside path()).
    static QString oldPath();

    // Moves every file of oldPath() to the same place under path(), once.
    // Never loses a file: databases (burrow.db*, its backups and moved-aside
    // copies) are copied, the copy is read back and compared byte for byte,
    // and only then is the old file removed; other files (models) are
    // renamed, which is atomic on one file system (else copied the same way).
    // A file that already exists in the new place is left alone, and so is
    // its old copy. Returns "" when all went well (or there was nothing to
    // move), else a sentence for the user naming what stayed where.
    static QString moveOldData();
};
