// DownloadWorker: the transfers of the DownloadManager, on a thread of their
// own (the network replies, the writes to disk and the SHA-256 all happen
// there, never on the GUI thread). Commands arrive as queued calls, results
// leave as signals.
//
// One download is <models>/<file>.part (the bytes so far) beside
// <models>/<file>.part.json (the sidecar: DownloadSpec). A start:
//   1. re-hashes an existing part (in 4 MiB steps on this thread's event
//      loop, so other transfers go on), then checks the free space for what
//      is left (QStorageInfo);
//   2. asks the hub: GET {endpoint}/{repo}/resolve/{revision}/{path} with
//      `Range: bytes=N-` and `If-Range: <the ETag that served the part>`
//      when a part exists, `Accept-Encoding: identity` (sizes and ranges are
//      of the file itself), the token only to the hub's origin;
//   3. follows redirects by hand (at most HubProtocol::MaxRedirects, never
//      from https to http): the hub's 302 carries X-Linked-Etag /
//      X-Linked-Size, which Qt's automatic redirects would hide, and the
//      Authorization header must not follow the redirect to the CDN. When
//      X-Linked-Etag differs from the checksum the part was made for, the
//      file changed on the hub and the part starts again from zero; when
//      the size differs from the listing's for the same checksum, the
//      download fails;
//   4. takes 206 (Content-Range must start at N and end at the size) or 200
//      (the server ignored the range or If-Range did not match: from zero),
//      writing each piece and adding it to the hash as it arrives, never
//      more bytes than the size;
//   5. at the end compares the hash with the hub's SHA-256 (or, for a small
//      non-LFS file, the git blob id), then renames the part into place and
//      removes the sidecar; a mismatch removes both.
// A connection cut mid-way is retried from where it stopped (a few times,
// with a growing pause; any progress resets the count). A write error (disk
// full) stops the download and keeps the part. Everything that can fail
// comes back as failed() with a sentence.
#pragma once

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QUrl>

class QNetworkAccessManager;
class QNetworkReply;

// What a download is, as its sidecar keeps it.
struct DownloadSpec {
    QString repo;           // "org/repo"
    QString revision;       // "main", a tag or a commit
    QString path;           // the file in the repository
    QString fileName;       // its name in the models folder (HubProtocol::localFileName)
    qint64 size = -1;       // expected bytes, -1 while unknown
    QString checksum;       // lower-case hex: 64 = SHA-256, 40 = git blob id, "" unknown
    QByteArray validator;   // the ETag of the response that sent the bytes (If-Range)
    QString commit;         // X-Repo-Commit, for the record
    QString url;            // the resolve URL last used, for the record

    QJsonObject toJson() const;
    // False (and `why`) when the object is no valid sidecar.
    static bool fromJson(const QJsonObject &json, DownloadSpec *spec, QString *why);
};
Q_DECLARE_METATYPE(DownloadSpec)

class DownloadWorker : public QObject {
    Q_OBJECT

public:
    enum Phase { Checking, Downloading, Verifying };
    Q_ENUM(Phase)

    static constexpr qint64 HashStepBytes = 4LL * 1024 * 1024;
    static constexpr qint64 ReadBufferBytes = 1LL * 1024 * 1024;
    static constexpr int MaxRetries = 3;
    static constexpr int TransferTimeoutMs = 60000;
    static constexpr qint64 MaxSidecarBytes = 64 * 1024;

    explicit DownloadWorker(const QString &folder, QObject *parent = nullptr);
    ~DownloadWorker() override;

    static QString partPath(const QString &folder, const QString &fileName);
    static QString sidecarPath(const QString &folder, const QString &fileName);

public Q_SLOTS:
    // Reports every unfinished download of the folder (restored()).
    void scan();
    void start(int id, const DownloadSpec &spec, const QString &token, const QUrl &endpoint);
    // Pause: the part and the sidecar stay (stopped()).
    void stop(int id);
    // Removes the part and the sidecar, running or not (cancelled()).
    void cancel(int id, const QString &fileName);
    // The app quits: every transfer stops as by stop(), without signals.
    void shutdown();
    // The first pause before a retry after a cut connection (doubles each time).
    void setRetryDelay(int ms) { m_retryDelayMs = ms; }

Q_SIGNALS:
    void restored(const DownloadSpec &spec, qint64 partSize);
    void phaseChanged(int id, int phase);
    void progress(int id, qint64 received, qint64 total);
    void specChanged(int id, const DownloadSpec &spec);
    void failed(int id, const QString &message, bool partKept);
    void stopped(int id, qint64 received);
    void finished(int id, const QString &path);
    void cancelled(int id);

private:
    struct Transfer;

    Transfer *find(int id, quint64 serial = 0) const;
    void prepare(Transfer *t);
    void hashStep(int id, quint64 serial);
    void request(Transfer *t, const QUrl &url);
    void onHeaders(Transfer *t, QNetworkReply *reply);
    void onData(Transfer *t, QNetworkReply *reply);
    void onFinished(int id, QNetworkReply *reply);
    bool learnFromHub(Transfer *t, QNetworkReply *reply);
    bool checkSpace(Transfer *t);
    bool writeAll(Transfer *t, const QByteArray &data);
    bool saveSidecar(Transfer *t);
    void restartFromZero(Transfer *t);
    void retryOrFail(Transfer *t, const QString &message);
    void verify(Transfer *t);
    void reportProgress(Transfer *t, bool force);
    void fail(Transfer *t, const QString &message, bool keepPart = true);
    void end(Transfer *t);

    QString m_folder;
    QNetworkAccessManager *m_network = nullptr;
    QHash<int, Transfer *> m_transfers;
    quint64 m_serial = 0;
    int m_retryDelayMs = 1000;
};
