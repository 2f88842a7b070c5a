// The three things burrow-archive does. Each returns the process exit code
// after printing its JSON result line (see jsonlines.h).
#pragma once

#include "entrypolicy.h"

#include <QString>

namespace ArchiveJob {

// Packs the contents of srcDir into out (written to out + ".part", renamed at
// the end). format: zip | tar.gz | tar.xz | tar.zst.
int create(const QString &format, const QString &out, const QString &srcDir);

// Extracts archive into destDir. Everything is written into a staging folder
// inside destDir and moved into place only when the whole archive passed; on
// any refusal or failure the staging folder is removed and destDir is as before.
int extract(const QString &archive, const QString &destDir, const ExtractLimits &limits);

// Lists the entries (JSON lines "entry"), then the result line.
int list(const QString &archive);

// Set from a signal handler: the running job stops and cleans up.
void requestCancel();

} // namespace ArchiveJob
