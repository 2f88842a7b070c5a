#include "archiveservice.h"

#include "storage/datafolder.h"

#include "conversationbundle.h"
#include "storage/conversationstore.h"
#include "common/logging.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QStorageInfo>

namespace {

QString defaultHelperPath()
{
    const QString env = qEnvironmentVariable("BURROW_ARCHIVE_HELPER");
    if (!env.isEmpty())
        return env;
    const QString beside = QCoreApplication::applicationDirPath() + QStringLiteral("/burrow-archive");
    if (QFileInfo(beside).isExecutable())
        return beside;
    const QString onPath = QStandardPaths::findExecutable(QStringLiteral("burrow-archive"));
    return onPath.isEmpty() ? beside : onPath;
}

// Free space kept on the disk after unpacking a model.
constexpr qint64 kDiskReserve = qint64(512) << 20;

} // namespace

ArchiveService::ArchiveService(QObject *parent)
    : QObject(parent)
    , m_helperPath(defaultHelperPath())
    , m_modelsFolder(DataFolder::path() + QStringLiteral("/models"))
{
}

ArchiveService::~ArchiveService()
{
    if (m_process) {
        m_process->disconnect(this);
        m_process->terminate();
        if (!m_process->waitForFinished(3000))
            m_process->kill();
    }
}

void ArchiveService::setStore(ConversationStore *store)
{
    if (m_store == store)
        return;
    m_store = store;
    emit storeChanged();
}

void ArchiveService::setHelperPath(const QString &path)
{
    if (m_helperPath == path)
        return;
    m_helperPath = path;
    emit helperPathChanged();
}

void ArchiveService::setModelsFolder(const QString &path)
{
    if (m_modelsFolder == path)
        return;
    m_modelsFolder = path;
    emit modelsFolderChanged();
}

bool ArchiveService::isArchiveName(const QString &path)
{
    const QString name = QFileInfo(path).fileName().toLower();
    for (const char *suffix : {".zip", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.zst", ".tzst",
                               ".gguf.gz", ".gguf.xz", ".gguf.zst"}) {
        if (name.endsWith(QLatin1String(suffix)))
            return true;
    }
    return false;
}

bool ArchiveService::isArchiveFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return isArchiveName(path);
    const QByteArray head = file.read(8);
    for (const QByteArray &magic : {QByteArray("PK\x03\x04", 4), QByteArray("PK\x05\x06", 4),   // zip (empty: end record)
                                    QByteArray("\x1f\x8b", 2),                                     // gzip
                                    QByteArray("\xfd" "7zXZ\x00", 6),                               // xz
                                    QByteArray("\x28\xb5\x2f\xfd", 4)}) {                          // zstd frame
        if (head.startsWith(magic))
            return true;
    }
    return false;
}

void ArchiveService::setProgress(double value)
{
    if (qFuzzyCompare(m_progress + 2, value + 2))
        return;
    m_progress = value;
    emit progressChanged();
}

bool ArchiveService::start(Job job, const QString &activity, const QStringList &args)
{
    if (!QFileInfo(m_helperPath).isExecutable()) {
        m_work.reset();
        emit finished(false, tr("Burrow's archive helper (burrow-archive) is missing, so archives cannot be "
                                "opened or written. Reinstalling Burrow puts it back."));
        return false;
    }
    m_job = job;
    m_activity = activity;
    m_cancelled = false;
    m_buffer.clear();
    m_result = {};
    m_process = new QProcess(this);
    m_process->setProcessChannelMode(QProcess::SeparateChannels);
    connect(m_process, &QProcess::readyReadStandardOutput, this, &ArchiveService::onOutput);
    connect(m_process, &QProcess::finished, this, &ArchiveService::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, &ArchiveService::onError);
    setProgress(-1);
    emit busyChanged();
    qCInfo(lcApp) << "burrow-archive" << args;
    m_process->start(m_helperPath, args);
    return true;
}

bool ArchiveService::exportConversations(const QVariantList &ids, const QString &outFile)
{
    if (isBusy()) {
        emit finished(false, tr("Another archive job is still running."));
        return false;
    }
    if (!m_store || !m_store->isReady()) {
        emit finished(false, tr("The conversation database is not open."));
        return false;
    }
    if (outFile.isEmpty()) {
        emit finished(false, tr("Could not export: no file was chosen."));
        return false;
    }
    QList<qint64> list;
    for (const QVariant &v : ids)
        list.append(v.toLongLong());
    m_work = std::make_unique<QTemporaryDir>();
    QString error;
    const QString folder = m_work->filePath(QStringLiteral("bundle"));
    if (!m_work->isValid() || !ConversationBundle::writeFolder(*m_store, list, folder, &error)) {
        m_work.reset();
        emit finished(false, tr("Could not export: %1").arg(error));
        return false;
    }
    m_target = outFile;
    const QString activity = list.isEmpty() ? tr("Exporting all conversations…")
                                            : tr("Exporting %n conversation(s)…", nullptr, int(list.size()));
    return start(ExportJob, activity, {QStringLiteral("create"), QStringLiteral("--format"), QStringLiteral("zip"), outFile, folder});
}

bool ArchiveService::importConversations(const QString &bundle)
{
    if (isBusy()) {
        emit finished(false, tr("Another archive job is still running."));
        return false;
    }
    if (bundle.isEmpty()) {
        emit finished(false, tr("Could not import: no file was chosen."));
        return false;
    }
    if (!m_store || !m_store->isReady()) {
        emit finished(false, tr("The conversation database is not open."));
        return false;
    }
    m_work = std::make_unique<QTemporaryDir>();
    if (!m_work->isValid()) {
        m_work.reset();
        emit finished(false, tr("Could not import: no space for temporary files."));
        return false;
    }
    m_target = bundle;
    // A bundle is text: 1 GiB and 100000 entries are far beyond any real one.
    return start(ImportJob, tr("Importing conversations…"),
                 {QStringLiteral("extract"), bundle, m_work->filePath(QStringLiteral("bundle")),
                  QStringLiteral("--max-bytes"), QString::number(qint64(1) << 30), QStringLiteral("--max-entries"),
                  QStringLiteral("100000")});
}

bool ArchiveService::importModel(const QString &archive)
{
    if (isBusy()) {
        emit finished(false, tr("Another archive job is still running."));
        return false;
    }
    const QFileInfo info(archive);
    if (!info.isFile()) {
        emit finished(false, tr("%1 does not exist.").arg(archive));
        return false;
    }
    if (!QDir().mkpath(m_modelsFolder)) {
        emit finished(false, tr("Cannot create the models folder %1.").arg(m_modelsFolder));
        return false;
    }
    // Unpack into a fresh folder inside the models folder (same disk, so the
    // final move is a rename), limited to the free space minus a reserve.
    const qint64 available = QStorageInfo(m_modelsFolder).bytesAvailable();
    if (available >= 0 && available - kDiskReserve < info.size()) {
        emit finished(false, tr("Not enough free disk space to unpack %1: it needs at least %2 MB, %3 MB are free.")
                                 .arg(info.fileName()).arg(info.size() >> 20).arg(std::max<qint64>(0, available) >> 20));
        return false;
    }
    m_work = std::make_unique<QTemporaryDir>(m_modelsFolder + QStringLiteral("/.unpacking-XXXXXX"));
    if (!m_work->isValid()) {
        m_work.reset();
        emit finished(false, tr("Cannot write into the models folder %1.").arg(m_modelsFolder));
        return false;
    }
    m_target = archive;
    m_archiveSize = info.size();
    const qint64 maxBytes = available > kDiskReserve ? available - kDiskReserve : qint64(1) << 40;
    return start(ModelJob, tr("Unpacking %1…").arg(info.fileName()),
                 {QStringLiteral("extract"), archive, m_work->filePath(QStringLiteral("out")),
                  QStringLiteral("--max-bytes"), QString::number(maxBytes), QStringLiteral("--max-entries"),
                  QStringLiteral("1000")});
}

void ArchiveService::cancel()
{
    if (!m_process)
        return;
    m_cancelled = true;
    m_process->terminate();   // the helper cleans up on SIGTERM
}

void ArchiveService::onOutput()
{
    m_buffer += m_process->readAllStandardOutput();
    int newline;
    while ((newline = m_buffer.indexOf('\n')) >= 0) {
        const QByteArray line = m_buffer.left(newline);
        m_buffer.remove(0, newline + 1);
        const QJsonObject object = QJsonDocument::fromJson(line).object();
        if (object.isEmpty())
            continue;
        if (object.value(QStringLiteral("event")).toString() == QLatin1String("progress")) {
            const double bytes = object.value(QStringLiteral("bytes")).toDouble();
            double total = object.value(QStringLiteral("total")).toDouble();
            if (total <= 0 && m_job == ModelJob)
                total = 0;   // unknown for compressed streams
            setProgress(total > 0 ? std::min(1.0, bytes / total) : -1);
        } else if (object.contains(QStringLiteral("ok"))) {
            m_result = object;
        }
    }
}

void ArchiveService::onError(QProcess::ProcessError error)
{
    if (error == QProcess::FailedToStart)
        finish(false, tr("Burrow's archive helper (burrow-archive) could not be started: %1. Reinstalling Burrow puts it back.")
                          .arg(m_process->errorString()));
}

void ArchiveService::onFinished(int exitCode, QProcess::ExitStatus status)
{
    if (!m_process)
        return;
    onOutput();
    if (m_cancelled) {
        finish(false, tr("Cancelled. Nothing was changed."));
        return;
    }
    if (status == QProcess::CrashExit) {
        finish(false, tr("The archive helper stopped unexpectedly while reading %1; the archive may be damaged. "
                         "Nothing was changed.").arg(QFileInfo(m_target).fileName()));
        return;
    }
    if (m_result.isEmpty()) {
        finish(false, tr("The archive helper ended without an answer (exit code %1). Nothing was changed.").arg(exitCode));
        return;
    }
    handleResult(m_result);
}

void ArchiveService::handleResult(const QJsonObject &result)
{
    const bool ok = result.value(QStringLiteral("ok")).toBool();
    const QString helperMessage = result.value(QStringLiteral("message")).toString();
    const QString name = QFileInfo(m_target).fileName();
    if (!ok) {
        switch (m_job) {
        case ExportJob: finish(false, tr("Could not write %1: %2").arg(name, helperMessage)); break;
        case ImportJob: finish(false, tr("%1 was not imported: %2").arg(name, helperMessage)); break;
        case ModelJob: finish(false, tr("%1 was not unpacked: %2").arg(name, helperMessage)); break;
        case NoJob: break;
        }
        return;
    }
    if (m_job == ExportJob) {
        finish(true, tr("Exported to %1.").arg(m_target));
        return;
    }
    if (m_job == ImportJob) {
        if (!m_store) {
            finish(false, tr("The conversation database is not open."));
            return;
        }
        const ConversationBundle::ImportResult imported =
            ConversationBundle::importFolder(*m_store, m_work->filePath(QStringLiteral("bundle")));
        if (!imported.ok) {
            finish(false, tr("%1 was not imported: %2").arg(name, imported.error));
            return;
        }
        QString message = tr("Imported %n conversation(s).", nullptr, imported.added);
        if (imported.skipped > 0)
            message += QLatin1Char(' ') + tr("%n were already here and were skipped.", nullptr, imported.skipped);
        finish(true, message);
        return;
    }
    // ModelJob: find the .gguf (the first, in name order) and move it into place.
    const QString out = m_work->filePath(QStringLiteral("out"));
    QStringList ggufs;
    QDirIterator it(out, {QStringLiteral("*.gguf"), QStringLiteral("*.GGUF")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        ggufs.append(it.next());
    ggufs.sort();
    if (ggufs.isEmpty()) {
        // A single compressed file under another name ("download.bin"):
        // the helper names it after the archive; a GGUF header tells the model.
        QDirIterator all(out, QDir::Files, QDirIterator::Subdirectories);
        while (all.hasNext()) {
            QFile file(all.next());
            if (file.open(QIODevice::ReadOnly) && file.read(4) == "GGUF")
                ggufs.append(file.fileName());
        }
        ggufs.sort();
    }
    if (ggufs.isEmpty()) {
        finish(false, tr("%1 holds no .gguf model file.").arg(name));
        return;
    }
    const QString source = ggufs.first();
    QString fileName = QFileInfo(source).fileName();
    if (!fileName.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive)) {
        // "download.bin.unpacked" (the helper's name for a lone stream) -> "download.gguf".
        if (fileName.endsWith(QLatin1String(".unpacked")))
            fileName.chop(int(qstrlen(".unpacked")));
        if (!QFileInfo(fileName).suffix().isEmpty())
            fileName = QFileInfo(fileName).completeBaseName();
        fileName += QLatin1String(".gguf");
    }
    QString target = QDir(m_modelsFolder).filePath(fileName);
    if (QFileInfo::exists(target)) {
        if (QFileInfo(target).size() == QFileInfo(source).size()) {
            // Same model unpacked before: use the one that is there.
            const QString ready = target;
            finish(true, tr("%1 is already in the models folder.").arg(QFileInfo(ready).fileName()));
            emit modelReady(ready);
            return;
        }
        const QString base = QFileInfo(fileName).completeBaseName();
        for (int n = 2;; ++n) {
            target = QDir(m_modelsFolder).filePath(QStringLiteral("%1 (%2).gguf").arg(base).arg(n));
            if (!QFileInfo::exists(target))
                break;
        }
    }
    if (!QFile::rename(source, target)) {
        finish(false, tr("Could not move the model into %1.").arg(m_modelsFolder));
        return;
    }
    finish(true, tr("Unpacked %1.").arg(QFileInfo(target).fileName()));
    emit modelReady(target);
}

void ArchiveService::finish(bool ok, const QString &message)
{
    if (m_process) {
        m_process->disconnect(this);
        m_process->deleteLater();
        m_process = nullptr;
    }
    m_work.reset();   // removes temporary and staging folders
    m_job = NoJob;
    m_activity.clear();
    setProgress(-1);
    emit busyChanged();
    qCInfo(lcApp) << "archive job finished:" << ok << message;
    emit finished(ok, message);
}
