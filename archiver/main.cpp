// burrow-archive: creates, lists and safely extracts archives for Burrow.
//
//   burrow-archive create --format zip|tar.gz|tar.xz|tar.zst OUT SRC_DIR
//   burrow-archive extract ARCHIVE DEST_DIR [--max-bytes N] [--max-entries N] [--max-ratio R]
//   burrow-archive list ARCHIVE
//
// Output: JSON lines on stdout (progress, then one result line with "ok").
// Exit code: 0 on success, 1 when it refuses or fails, 2 on a usage error.
#include "archivejob.h"
#include "jsonlines.h"

#include <QCoreApplication>
#include <QStringList>

#include <csignal>
#include <cstdio>

namespace {

void onSignal(int)
{
    ArchiveJob::requestCancel();
}

int usage(const QString &why)
{
    std::fprintf(stderr,
                 "burrow-archive: %s\n"
                 "usage: burrow-archive create --format zip|tar.gz|tar.xz|tar.zst OUT SRC_DIR\n"
                 "       burrow-archive extract ARCHIVE DEST_DIR [--max-bytes N] [--max-entries N] [--max-ratio R]\n"
                 "       burrow-archive list ARCHIVE\n",
                 qPrintable(why));
    JsonLines::result(false, why);
    return 2;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    std::signal(SIGTERM, onSignal);
    std::signal(SIGINT, onSignal);
    QStringList args = app.arguments().mid(1);
    if (args.isEmpty())
        return usage(QStringLiteral("no command"));
    const QString command = args.takeFirst();
    if (command == QLatin1String("--version")) {
        std::printf("burrow-archive %s\n", BURROW_VERSION);
        return 0;
    }
    if (command == QLatin1String("create")) {
        QString format;
        QStringList positional;
        for (int i = 0; i < args.size(); ++i) {
            if (args[i] == QLatin1String("--format") && i + 1 < args.size())
                format = args[++i];
            else
                positional.append(args[i]);
        }
        if (format.isEmpty() || positional.size() != 2)
            return usage(QStringLiteral("create needs --format, OUT and SRC_DIR"));
        return ArchiveJob::create(format, positional[0], positional[1]);
    }
    if (command == QLatin1String("extract")) {
        ExtractLimits limits;
        QStringList positional;
        for (int i = 0; i < args.size(); ++i) {
            const QString &a = args[i];
            if ((a == QLatin1String("--max-bytes") || a == QLatin1String("--max-entries") || a == QLatin1String("--max-ratio"))
                && i + 1 < args.size()) {
                bool ok = false;
                const QString value = args[++i];
                if (a == QLatin1String("--max-ratio")) {
                    limits.maxRatio = value.toDouble(&ok);
                    ok = ok && limits.maxRatio >= 1.0;
                } else {
                    const qint64 n = value.toLongLong(&ok);
                    ok = ok && n > 0;
                    (a == QLatin1String("--max-bytes") ? limits.maxBytes : limits.maxEntries) = n;
                }
                if (!ok)
                    return usage(QStringLiteral("%1 needs a positive number, not \"%2\"").arg(a, value));
            } else if (a.startsWith(QLatin1String("--"))) {
                return usage(QStringLiteral("unknown option %1").arg(a));
            } else {
                positional.append(a);
            }
        }
        if (positional.size() != 2)
            return usage(QStringLiteral("extract needs ARCHIVE and DEST_DIR"));
        return ArchiveJob::extract(positional[0], positional[1], limits);
    }
    if (command == QLatin1String("list")) {
        if (args.size() != 1)
            return usage(QStringLiteral("list needs ARCHIVE"));
        return ArchiveJob::list(args[0]);
    }
    return usage(QStringLiteral("unknown command \"%1\"").arg(command));
}
