#include "downloadworker.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPointer>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStorageInfo>
#include <QTimer>
#include <memory>

#include "common/logging.h"
#include "hubprotocol.h"
#include "backend/modelcard.h"

namespace {

constexpr int ProgressIntervalMs = 100;
constexpr qint64 MaxFileSize = 1LL << 50;
const char *const SidecarFormat = "burrow-download";

QString sizeText(qint64 bytes)
{
    return ModelCard::formatBytes(quint64(qMax<qint64>(bytes, 0)));
}

// "bytes 100-199/1000" -> first 100, last 199, total 1000 (total -1 for "*").
bool parseContentRange(const QByteArray &value, qint64 *first, qint64 *last, qint64 *total)
{
    static const QRegularExpression re(QStringLiteral(R"(^\s*bytes\s+(\d{1,18})-(\d{1,18})/(\d{1,18}|\*)\s*$)"));
    const QRegularExpressionMatch m = re.match(QString::fromLatin1(value));
    if (!m.hasMatch())
        return false;
    *first = m.captured(1).toLongLong();
    *last = m.captured(2).toLongLong();
    *total = m.captured(3) == u"*" ? -1 : m.captured(3).toLongLong();
    return *first <= *last;
}

// The git blob id of a file: SHA-1 of "blob <size>\0" and the content.
QString gitBlobId(const QString &path, qint64 size)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return QString();
    QCryptographicHash hash(QCryptographicHash::Sha1);
    hash.addData("blob " + QByteArray::number(size) + '\0');
    if (!hash.addData(&file))
        return QString();
    return QString::fromLatin1(hash.result().toHex());
}

} // namespace

QJsonObject DownloadSpec::toJson() const
{
    QJsonObject json;
    json.insert(QStringLiteral("format"), QLatin1String(SidecarFormat));
    json.insert(QStringLiteral("version"), 1);
    json.insert(QStringLiteral("url"), url);
    json.insert(QStringLiteral("repo"), repo);
    json.insert(QStringLiteral("revision"), revision);
    json.insert(QStringLiteral("path"), path);
    json.insert(QStringLiteral("file"), fileName);
    json.insert(QStringLiteral("size"), double(size));
    json.insert(QStringLiteral("sha256"), checksum.size() == 64 ? checksum : QString());
    json.insert(QStringLiteral("blobId"), checksum.size() == 40 ? checksum : QString());
    json.insert(QStringLiteral("etag"), QString::fromLatin1(validator));
    json.insert(QStringLiteral("commit"), commit);
    return json;
}

bool DownloadSpec::fromJson(const QJsonObject &json, DownloadSpec *spec, QString *why)
{
    if (json.value(QLatin1String("format")).toString() != QLatin1String(SidecarFormat)
        || json.value(QLatin1String("version")).toInt() != 1) {
        *why = QStringLiteral("not a Burrow download (format/version)");
        return false;
    }
    DownloadSpec s;
    s.url = json.value(QLatin1String("url")).toString().left(4096);
    s.repo = json.value(QLatin1String("repo")).toString();
    s.revision = json.value(QLatin1String("revision")).toString();
    s.path = json.value(QLatin1String("path")).toString();
    s.fileName = json.value(QLatin1String("file")).toString();
    const double size = json.value(QLatin1String("size")).toDouble(-1);
    s.size = size >= 0 && size <= double(MaxFileSize) ? qint64(size) : -1;
    const QString sha256 = json.value(QLatin1String("sha256")).toString();
    const QString blobId = json.value(QLatin1String("blobId")).toString();
    s.checksum = HubProtocol::isHex(sha256, 64) ? sha256.toLower() : HubProtocol::isHex(blobId, 40) ? blobId.toLower() : QString();
    const QString etag = json.value(QLatin1String("etag")).toString();
    // An ETag goes back into a request header: printable ASCII only.
    static const QRegularExpression printable(QStringLiteral("^[\\x21-\\x7e]{0,200}$"));
    s.validator = printable.match(etag).hasMatch() ? etag.toLatin1() : QByteArray();
    const QString commit = json.value(QLatin1String("commit")).toString();
    s.commit = HubProtocol::isHex(commit, 40) ? commit : QString();
    if (!HubProtocol::isValidRepoId(s.repo) || !HubProtocol::isValidRevision(s.revision)
        || !HubProtocol::isValidRepoPath(s.path) || s.fileName.isEmpty()
        || HubProtocol::localFileName(s.fileName) != s.fileName) {
        *why = QStringLiteral("repository, revision, path or file name not valid");
        return false;
    }
    *spec = s;
    return true;
}

struct DownloadWorker::Transfer {
    int id = 0;
    quint64 serial = 0;
    DownloadSpec spec;
    QString token;
    QUrl endpoint;
    QFile part;
    QCryptographicHash sha{QCryptographicHash::Sha256};
    qint64 have = 0;                 // bytes in the part, all of them hashed
    QPointer<QNetworkReply> reply;
    int hops = 0;
    bool receiving = false;          // the current reply's body is the file's bytes
    int failuresInARow = 0;
    qint64 haveAtAttempt = 0;
    bool restartedAfter416 = false;
    std::unique_ptr<QFile> hashing;  // the part, read back for the hash on a resume
    qint64 hashed = 0;
    QElapsedTimer sinceProgress;
    bool progressPending = false;    // a report is due at the end of the interval
};

DownloadWorker::DownloadWorker(const QString &folder, QObject *parent) : QObject(parent), m_folder(folder)
{
    qRegisterMetaType<DownloadSpec>();
}

DownloadWorker::~DownloadWorker()
{
    shutdown();
}

QString DownloadWorker::partPath(const QString &folder, const QString &fileName)
{
    return QDir(folder).filePath(fileName + QStringLiteral(".part"));
}

QString DownloadWorker::sidecarPath(const QString &folder, const QString &fileName)
{
    return QDir(folder).filePath(fileName + QStringLiteral(".part.json"));
}

DownloadWorker::Transfer *DownloadWorker::find(int id, quint64 serial) const
{
    Transfer *t = m_transfers.value(id, nullptr);
    if (t && serial != 0 && t->serial != serial)
        return nullptr;
    return t;
}

void DownloadWorker::scan()
{
    const QDir dir(m_folder);
    const QStringList sidecars = dir.entryList({QStringLiteral("*.part.json")}, QDir::Files | QDir::Hidden, QDir::Name);
    for (const QString &name : sidecars) {
        QFile file(dir.filePath(name));
        if (!file.open(QIODevice::ReadOnly) || file.size() > MaxSidecarBytes)
            continue;
        const QJsonDocument doc = QJsonDocument::fromJson(file.readAll());
        DownloadSpec spec;
        QString why;
        if (!DownloadSpec::fromJson(doc.object(), &spec, &why) || name != spec.fileName + QStringLiteral(".part.json")) {
            qCWarning(lcApp) << "ignoring download sidecar" << file.fileName() << ":" << why;
            continue;
        }
        const QFileInfo part(partPath(m_folder, spec.fileName));
        Q_EMIT restored(spec, part.isFile() ? part.size() : 0);
    }
}

void DownloadWorker::start(int id, const DownloadSpec &spec, const QString &token, const QUrl &endpoint)
{
    if (m_transfers.contains(id))
        return;
    if (!m_network) {
        m_network = new QNetworkAccessManager(this);
        m_network->setAutoDeleteReplies(false);
    }
    auto *t = new Transfer;
    t->id = id;
    t->serial = ++m_serial;
    t->spec = spec;
    t->token = token;
    t->endpoint = endpoint;
    m_transfers.insert(id, t);
    prepare(t);
}

void DownloadWorker::prepare(Transfer *t)
{
    const DownloadSpec &s = t->spec;
    if (HubProtocol::localFileName(s.fileName) != s.fileName || s.fileName.isEmpty() || !HubProtocol::isValidRepoId(s.repo)
        || !HubProtocol::isValidRevision(s.revision) || !HubProtocol::isValidRepoPath(s.path)) {
        fail(t, tr("This download names no valid file on the hub."), false);
        return;
    }
    if (!QDir().mkpath(m_folder)) {
        fail(t, tr("Cannot create the models folder %1.").arg(QDir::toNativeSeparators(m_folder)));
        return;
    }
    const QString path = partPath(m_folder, s.fileName);
    if (QFileInfo(path).isSymLink()) {
        fail(t, tr("%1 is a link, not a file Burrow wrote; remove it and try again.").arg(QDir::toNativeSeparators(path)));
        return;
    }
    t->spec.url = HubProtocol::resolveUrl(t->endpoint, s.repo, s.revision, s.path).toString();
    if (!saveSidecar(t))
        return;
    t->part.setFileName(path);
    if (!t->part.open(QIODevice::ReadWrite | QIODevice::Unbuffered)) {
        fail(t, tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), t->part.errorString()));
        return;
    }
    t->have = t->part.size();
    if (t->spec.size >= 0 && t->have > t->spec.size)
        restartFromZero(t);
    t->part.seek(t->have);
    if (t->have == 0) {
        t->hashed = 0;
        QTimer::singleShot(0, this, [this, id = t->id, serial = t->serial] { hashStep(id, serial); });
        return;
    }
    // Resuming: the hash of what is there first, in steps.
    Q_EMIT phaseChanged(t->id, Checking);
    Q_EMIT progress(t->id, t->have, t->spec.size);
    t->hashing = std::make_unique<QFile>(path);
    if (!t->hashing->open(QIODevice::ReadOnly)) {
        t->hashing.reset();
        restartFromZero(t);
    }
    t->hashed = 0;
    QTimer::singleShot(0, this, [this, id = t->id, serial = t->serial] { hashStep(id, serial); });
}

void DownloadWorker::hashStep(int id, quint64 serial)
{
    Transfer *t = find(id, serial);
    if (!t)
        return;
    if (t->hashing && t->hashed < t->have) {
        const QByteArray chunk = t->hashing->read(qMin(HashStepBytes, t->have - t->hashed));
        if (chunk.isEmpty()) {
            // The part is shorter than it said: keep what was hashed.
            qCWarning(lcApp) << "could not read back" << t->part.fileName() << "after" << t->hashed << "bytes";
            t->have = t->hashed;
            t->part.resize(t->have);
            t->part.seek(t->have);
        } else {
            t->sha.addData(chunk);
            t->hashed += chunk.size();
            QTimer::singleShot(0, this, [this, id, serial] { hashStep(id, serial); });
            return;
        }
    }
    t->hashing.reset();
    if (t->spec.size >= 0 && t->have == t->spec.size && !t->spec.checksum.isEmpty()) {
        verify(t);   // all there already (stopped between the last byte and the rename)
        return;
    }
    if (!checkSpace(t))
        return;
    t->hops = 0;
    t->haveAtAttempt = t->have;
    request(t, HubProtocol::resolveUrl(t->endpoint, t->spec.repo, t->spec.revision, t->spec.path));
}

bool DownloadWorker::checkSpace(Transfer *t)
{
    if (t->spec.size < 0)
        return true;
    const qint64 needed = t->spec.size - t->have;
    const qint64 available = QStorageInfo(m_folder).bytesAvailable();
    if (available >= 0 && needed > available) {
        fail(t, tr("Not enough free space in %1: %2 needs %3 more, and %4 is free.")
                    .arg(QDir::toNativeSeparators(m_folder), t->spec.fileName, sizeText(needed), sizeText(available)));
        return false;
    }
    return true;
}

void DownloadWorker::request(Transfer *t, const QUrl &url)
{
    QNetworkRequest request(url);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    request.setTransferTimeout(TransferTimeoutMs);
    request.setRawHeader("User-Agent", "Burrow/" BURROW_VERSION);
    request.setRawHeader("Accept-Encoding", "identity");
    if (!t->token.isEmpty() && HubProtocol::sameOrigin(url, t->endpoint))
        request.setRawHeader("Authorization", "Bearer " + t->token.toUtf8());
    if (t->have > 0) {
        request.setRawHeader("Range", "bytes=" + QByteArray::number(t->have) + '-');
        // If-Range takes a strong validator only.
        if (!t->spec.validator.isEmpty() && !t->spec.validator.startsWith("W/"))
            request.setRawHeader("If-Range", t->spec.validator);
    }
    t->receiving = false;
    QNetworkReply *reply = m_network->get(request);
    reply->setReadBufferSize(ReadBufferBytes);
    t->reply = reply;
    const int id = t->id;
    const quint64 serial = t->serial;
    connect(reply, &QNetworkReply::metaDataChanged, this, [this, id, serial, reply] {
        if (Transfer *t = find(id, serial); t && t->reply == reply)
            onHeaders(t, reply);
    });
    connect(reply, &QNetworkReply::readyRead, this, [this, id, serial, reply] {
        if (Transfer *t = find(id, serial); t && t->reply == reply)
            onData(t, reply);
        else
            reply->readAll();
    });
    connect(reply, &QNetworkReply::finished, this, [this, id, reply] { onFinished(id, reply); });
}

bool DownloadWorker::learnFromHub(Transfer *t, QNetworkReply *reply)
{
    bool changed = false;
    QString linked = HubProtocol::normalizeEtag(reply->rawHeader("X-Linked-Etag"));
    if (linked.isEmpty() && HubProtocol::sameOrigin(reply->url(), t->endpoint))
        linked = HubProtocol::normalizeEtag(reply->rawHeader("ETag"));   // a non-LFS file: its git blob id
    if (HubProtocol::isHex(linked, 64) || HubProtocol::isHex(linked, 40)) {
        if (t->spec.checksum.size() == linked.size() && t->spec.checksum != linked) {
            // The file changed on the hub since the part was started: the
            // part is of another file.
            qCInfo(lcApp) << t->spec.fileName << "changed on the hub; starting again from zero";
            if (t->have > 0)
                restartFromZero(t);
            t->spec.checksum = linked;
            t->spec.size = -1;
            changed = true;
        } else if (t->spec.checksum.isEmpty() || (linked.size() == 64 && t->spec.checksum.size() != 64)) {
            t->spec.checksum = linked;
            changed = true;
        }
    }
    bool ok = false;
    const qint64 linkedSize = reply->rawHeader("X-Linked-Size").trimmed().toLongLong(&ok);
    if (ok && linkedSize >= 0 && linkedSize <= MaxFileSize) {
        if (t->spec.size >= 0 && t->spec.size != linkedSize) {
            fail(t, tr("The hub gives %1 a size of %2, but its list of files said %3; try again.")
                        .arg(t->spec.fileName, sizeText(linkedSize), sizeText(t->spec.size)));
            return false;
        }
        if (t->spec.size != linkedSize) {
            t->spec.size = linkedSize;
            changed = true;
        }
    }
    const QString commit = QString::fromLatin1(reply->rawHeader("X-Repo-Commit")).trimmed();
    if (HubProtocol::isHex(commit, 40) && commit != t->spec.commit) {
        t->spec.commit = commit;
        changed = true;
    }
    if (changed) {
        if (!saveSidecar(t) || !checkSpace(t))
            return false;
        Q_EMIT specChanged(t->id, t->spec);
    }
    return true;
}

void DownloadWorker::onHeaders(Transfer *t, QNetworkReply *reply)
{
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status >= 400 || status == 0)
        return;   // onFinished says why
    if (!learnFromHub(t, reply))
        return;
    if (status >= 300)
        return;   // a redirect: followed in onFinished
    if (status == 206) {
        qint64 first = 0, last = 0, total = 0;
        if (!parseContentRange(reply->rawHeader("Content-Range"), &first, &last, &total) || first != t->have) {
            fail(t, tr("The server sent another part of %1 than the one asked for.").arg(t->spec.fileName));
            return;
        }
        if (total >= 0 && t->spec.size >= 0 && total != t->spec.size) {
            fail(t, tr("The server sends %1 with a size of %2, but the hub said %3; try again.")
                        .arg(t->spec.fileName, sizeText(total), sizeText(t->spec.size)));
            return;
        }
        if (t->spec.size < 0 && total >= 0 && total <= MaxFileSize)
            t->spec.size = total;
    } else if (status == 200) {
        // The whole file: the range was ignored, or If-Range found the
        // file changed.
        if (t->have > 0) {
            qCInfo(lcApp) << t->spec.fileName << ": the server sent the whole file; starting again from zero";
            restartFromZero(t);
        }
        bool ok = false;
        const qint64 length = reply->header(QNetworkRequest::ContentLengthHeader).toLongLong(&ok);
        if (ok && length >= 0) {
            if (t->spec.size >= 0 && length != t->spec.size) {
                fail(t, tr("The server sends %1 with a size of %2, but the hub said %3; try again.")
                            .arg(t->spec.fileName, sizeText(length), sizeText(t->spec.size)));
                return;
            }
            if (length <= MaxFileSize)
                t->spec.size = length;
        }
    } else {
        return;   // another 2xx: onFinished refuses it
    }
    if (t->spec.checksum.isEmpty()) {
        fail(t, tr("The hub gives no checksum for %1, so Burrow could not check it; nothing was downloaded.")
                    .arg(t->spec.fileName));
        return;
    }
    const QByteArray etag = reply->rawHeader("ETag").trimmed();
    if (etag != t->spec.validator && etag.size() <= 200) {
        t->spec.validator = etag;
        if (!saveSidecar(t))
            return;
    }
    if (!checkSpace(t))
        return;
    t->receiving = true;
    Q_EMIT specChanged(t->id, t->spec);
    Q_EMIT phaseChanged(t->id, Downloading);
    reportProgress(t, true);
}

void DownloadWorker::onData(Transfer *t, QNetworkReply *reply)
{
    if (!t->receiving) {
        reply->readAll();   // a redirect's or an error's body
        return;
    }
    while (reply->bytesAvailable() > 0) {
        const QByteArray chunk = reply->read(256 * 1024);
        if (chunk.isEmpty())
            break;
        if (t->spec.size >= 0 && t->have + chunk.size() > t->spec.size) {
            fail(t, tr("The server sent more than the %1 of %2; the download was stopped.")
                        .arg(sizeText(t->spec.size), t->spec.fileName));
            return;
        }
        if (!writeAll(t, chunk))
            return;
        t->sha.addData(chunk);
        t->have += chunk.size();
    }
    reportProgress(t, false);
}

bool DownloadWorker::writeAll(Transfer *t, const QByteArray &data)
{
    qint64 done = 0;
    while (done < data.size()) {
        const qint64 n = t->part.write(data.constData() + done, data.size() - done);
        if (n <= 0) {
            const QString path = QDir::toNativeSeparators(t->part.fileName());
            const qint64 available = QStorageInfo(m_folder).bytesAvailable();
            const bool full = t->part.error() == QFileDevice::ResourceError || (available >= 0 && available < data.size());
            const QString message = full
                ? tr("The disk is full: %1 could not be written (%2 free). The part downloaded so far is kept; "
                     "free some space and resume.").arg(path, sizeText(available))
                : tr("Could not write %1: %2. The part downloaded so far is kept; resume when the problem is solved.")
                      .arg(path, t->part.errorString());
            // What was written of this piece is valid data: the part keeps
            // it, and a resume hashes it again.
            fail(t, message);
            return false;
        }
        done += n;
    }
    return true;
}

void DownloadWorker::onFinished(int id, QNetworkReply *reply)
{
    reply->deleteLater();
    Transfer *t = find(id);
    if (!t || t->reply != reply)
        return;   // stopped, cancelled or failed already
    t->reply = nullptr;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QUrl url = reply->url();
    if (status >= 300 && status < 400 && reply->hasRawHeader("Location")) {
        if (++t->hops > HubProtocol::MaxRedirects) {
            fail(t, tr("The hub redirected the download of %1 too many times.").arg(t->spec.fileName));
            return;
        }
        const QUrl next = url.resolved(QUrl::fromEncoded(reply->rawHeader("Location").trimmed()));
        const QString scheme = next.scheme().toLower();
        if (!next.isValid() || (scheme != u"https" && scheme != u"http") || next.host().isEmpty()) {
            fail(t, tr("The hub redirected the download of %1 to an address Burrow does not follow.").arg(t->spec.fileName));
            return;
        }
        if (url.scheme().toLower() == u"https" && scheme == u"http") {
            fail(t, tr("The download of %1 was redirected to an insecure (http) address; it was stopped.").arg(t->spec.fileName));
            return;
        }
        request(t, next);
        return;
    }
    const bool tokenSent = !t->token.isEmpty() && HubProtocol::sameOrigin(url, t->endpoint);
    if (status == 416) {
        if (t->spec.size >= 0 && t->have == t->spec.size) {
            verify(t);
            return;
        }
        if (!t->restartedAfter416 && t->have > 0) {
            t->restartedAfter416 = true;
            qCInfo(lcApp) << t->spec.fileName << ": 416 at" << t->have << "; starting again from zero";
            restartFromZero(t);
            t->hops = 0;
            request(t, HubProtocol::resolveUrl(t->endpoint, t->spec.repo, t->spec.revision, t->spec.path));
            return;
        }
    }
    if (status >= 400) {
        fail(t, HubProtocol::httpErrorText(status, reply->rawHeader("X-Error-Code"), reply->rawHeader("X-Error-Message"),
                                           tokenSent, t->spec.repo, t->spec.revision, t->spec.path));
        return;
    }
    if (reply->error() != QNetworkReply::NoError) {
        // OperationCanceledError here is the transfer timeout (our own
        // aborts clear t->reply first).
        retryOrFail(t, HubProtocol::networkErrorText(reply->error(), url.host(), reply->errorString()));
        return;
    }
    if (!t->receiving || (status != 200 && status != 206)) {
        fail(t, tr("The server answered the download of %1 with the unexpected status %2.").arg(t->spec.fileName).arg(status));
        return;
    }
    if (t->spec.size >= 0 && t->have < t->spec.size) {
        retryOrFail(t, HubProtocol::networkErrorText(QNetworkReply::RemoteHostClosedError, url.host(), QString()));
        return;
    }
    if (t->spec.size < 0) {
        t->spec.size = t->have;
        Q_EMIT specChanged(t->id, t->spec);
    }
    verify(t);
}

void DownloadWorker::retryOrFail(Transfer *t, const QString &message)
{
    if (t->have > t->haveAtAttempt)
        t->failuresInARow = 0;
    ++t->failuresInARow;
    if (t->failuresInARow > MaxRetries) {
        fail(t, tr("%1 The part downloaded so far (%2) is kept; Resume continues from there.").arg(message, sizeText(t->have)));
        return;
    }
    const int delay = m_retryDelayMs << (t->failuresInARow - 1);
    qCInfo(lcApp) << t->spec.fileName << ":" << message << "- retrying from" << t->have << "in" << delay << "ms";
    reportProgress(t, true);
    QTimer::singleShot(delay, this, [this, id = t->id, serial = t->serial] {
        Transfer *t = find(id, serial);
        if (!t || t->reply)
            return;
        t->hops = 0;
        t->haveAtAttempt = t->have;
        request(t, HubProtocol::resolveUrl(t->endpoint, t->spec.repo, t->spec.revision, t->spec.path));
    });
}

void DownloadWorker::verify(Transfer *t)
{
    Q_EMIT phaseChanged(t->id, Verifying);
    reportProgress(t, true);
    const QString part = t->part.fileName();
    t->part.close();
    QString actual;
    QString kind = QStringLiteral("SHA-256");
    if (t->spec.checksum.size() == 64) {
        actual = QString::fromLatin1(t->sha.result().toHex());
    } else if (t->spec.checksum.size() == 40) {
        // A small non-LFS file: read once more for its git blob id.
        actual = gitBlobId(part, t->have);
        kind = QStringLiteral("git SHA-1");
    }
    if (actual.isEmpty() || actual != t->spec.checksum) {
        qCWarning(lcApp) << t->spec.fileName << ": checksum mismatch, expected" << t->spec.checksum << "got" << actual;
        QFile::remove(part);
        QFile::remove(sidecarPath(m_folder, t->spec.fileName));
        fail(t, tr("The downloaded %1 does not match the checksum the hub gives for it (%2), so it was not kept. "
                   "Try again; if this repeats, the file on the hub may be damaged.").arg(t->spec.fileName, kind), false);
        return;
    }
    // Into place, beside any file of the same name.
    const QDir dir(m_folder);
    QString target = dir.filePath(t->spec.fileName);
    const QString stem = t->spec.fileName.chopped(5);
    for (int n = 2; QFileInfo::exists(target) || QFileInfo(target).isSymLink(); ++n)
        target = dir.filePath(QStringLiteral("%1 (%2).gguf").arg(stem).arg(n));
    if (!QFile::rename(part, target)) {
        fail(t, tr("The download of %1 is complete and checked, but it could not be renamed to %2.")
                    .arg(t->spec.fileName, QDir::toNativeSeparators(target)));
        return;
    }
    QFile::remove(sidecarPath(m_folder, t->spec.fileName));
    qCInfo(lcApp) << "downloaded" << t->spec.repo << t->spec.path << "to" << target << "(" << kind << "checked)";
    const int id = t->id;
    end(t);
    Q_EMIT finished(id, target);
}

bool DownloadWorker::saveSidecar(Transfer *t)
{
    QSaveFile file(sidecarPath(m_folder, t->spec.fileName));
    const QByteArray json = QJsonDocument(t->spec.toJson()).toJson(QJsonDocument::Indented);
    if (!file.open(QIODevice::WriteOnly) || file.write(json) != json.size() || !file.commit()) {
        fail(t, tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(file.fileName()), file.errorString()));
        return false;
    }
    return true;
}

void DownloadWorker::restartFromZero(Transfer *t)
{
    if (t->part.isOpen()) {
        t->part.resize(0);
        t->part.seek(0);
    }
    t->sha.reset();
    t->have = 0;
    t->haveAtAttempt = 0;
    t->spec.validator.clear();
    reportProgress(t, true);
}

void DownloadWorker::reportProgress(Transfer *t, bool force)
{
    if (!force && t->sinceProgress.isValid() && t->sinceProgress.elapsed() < ProgressIntervalMs) {
        // Too soon: the last word comes when the interval is over (also
        // when no more data arrives).
        if (!t->progressPending) {
            t->progressPending = true;
            QTimer::singleShot(ProgressIntervalMs - t->sinceProgress.elapsed(), this, [this, id = t->id, serial = t->serial] {
                if (Transfer *t = find(id, serial))
                    reportProgress(t, true);
            });
        }
        return;
    }
    t->progressPending = false;
    t->sinceProgress.start();
    Q_EMIT progress(t->id, t->have, t->spec.size);
}

void DownloadWorker::fail(Transfer *t, const QString &message, bool keepPart)
{
    const int id = t->id;
    const bool kept = keepPart && QFileInfo::exists(partPath(m_folder, t->spec.fileName));
    qCInfo(lcApp) << "download of" << t->spec.repo << t->spec.path << "failed:" << message;
    Q_EMIT progress(id, t->have, t->spec.size);
    end(t);
    Q_EMIT failed(id, message, kept);
}

void DownloadWorker::end(Transfer *t)
{
    m_transfers.remove(t->id);
    if (QNetworkReply *reply = t->reply) {
        t->reply = nullptr;
        reply->abort();
    }
    t->part.close();
    delete t;
}

void DownloadWorker::stop(int id)
{
    Transfer *t = find(id);
    if (!t)
        return;
    const qint64 have = t->have;
    end(t);
    Q_EMIT stopped(id, have);
}

void DownloadWorker::cancel(int id, const QString &fileName)
{
    if (Transfer *t = find(id))
        end(t);
    if (HubProtocol::localFileName(fileName) == fileName && !fileName.isEmpty()) {
        QFile::remove(partPath(m_folder, fileName));
        QFile::remove(sidecarPath(m_folder, fileName));
    }
    Q_EMIT cancelled(id);
}

void DownloadWorker::shutdown()
{
    const QList<Transfer *> all = m_transfers.values();
    for (Transfer *t : all)
        end(t);
    delete m_network;
    m_network = nullptr;
}
