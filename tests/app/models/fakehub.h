// A Hugging Face hub on loopback for the download tests: a tiny HTTP/1.1
// responder (one request per connection, `Connection: close`) on two ports,
// so that the "hub" and the "CDN" its redirects lead to are two origins.
// It speaks what app/models/hubprotocol.h relies on: the tree API (with
// Link-header pages), /resolve/ with a 302 carrying X-Linked-Etag,
// X-Linked-Size and X-Repo-Commit, a CDN with Range / 206 / If-Range / 416,
// small non-LFS files served by the hub itself, X-Error-Code errors (401 and
// 403 for a gated repository, 404). Knobs cut, stall or spoil responses.
// Every request is recorded with its headers. Test-only code; it stops with
// the object.
#pragma once

#include <QCryptographicHash>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QPointer>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>
#include <QUrl>
#include <QUrlQuery>

namespace burrow::test {

// Deterministic bytes (a GGUF magic first, so the file looks like one).
inline QByteArray fakeModelBytes(int size, quint32 seed)
{
    QByteArray out(size, '\0');
    quint32 x = seed * 2654435761u + 1;
    for (int i = 0; i < size; ++i) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        out[i] = char(x & 0xff);
    }
    if (size >= 4)
        out.replace(0, 4, "GGUF");
    return out;
}

inline QByteArray sha256Hex(const QByteArray &data)
{
    return QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex();
}

inline QByteArray gitBlobIdHex(const QByteArray &data)
{
    QCryptographicHash h(QCryptographicHash::Sha1);
    h.addData("blob " + QByteArray::number(data.size()) + '\0');
    h.addData(data);
    return h.result().toHex();
}

struct HubRequest {
    QString origin;                        // "hub" or "cdn"
    QByteArray target;                     // path and query
    QMap<QByteArray, QByteArray> headers;  // lower-case names
    int status = 0;                        // the answer's status
    QByteArray header(const QByteArray &name) const { return headers.value(name.toLower()); }
    bool isCdn() const { return origin == QLatin1String("cdn"); }
};

class FakeHub {
public:
    using Header = QPair<QByteArray, QByteArray>;
    struct File {
        QByteArray content;
        bool lfs = true;
        QByteArray linkedEtag;     // X-Linked-Etag value (unquoted); default: the content's SHA-256
        qint64 linkedSize = -1;    // X-Linked-Size; default: the content's size
        QByteArray cdnEtag;        // the CDN's ETag (quoted); default derived from the content
        qint64 listedSize = -1;    // the size the tree API gives; default: the content's size
    };
    struct Repo {
        QMap<QString, File> files;   // by path in the repository
        bool gated = false;
    };

    QMap<QString, Repo> repos;
    QList<HubRequest> requests;
    QByteArray acceptedToken = "hf_testtoken";   // what a gated repository accepts

    // Knobs, for the next CDN (or non-LFS hub) body.
    qint64 cutAfter = -1;        // close the connection after this many body bytes (once)
    qint64 stallAfter = -1;      // send this many body bytes, then nothing (until the client leaves)
    int nextCdnStatus = 0;       // answer the next CDN request with this status (once)
    bool sameOriginRedirect = false;   // /resolve/ redirects to a path on the hub itself
    int pageSize = 0;            // tree API entries per page (0: one page)
    int chunkBytes = 16 * 1024;  // a body goes out in pieces of this size, one per millisecond

    FakeHub()
    {
        for (QTcpServer *server : {&m_hub, &m_cdn}) {
            const QString origin = server == &m_hub ? QStringLiteral("hub") : QStringLiteral("cdn");
            QObject::connect(server, &QTcpServer::newConnection, server, [this, server, origin] {
                while (QTcpSocket *socket = server->nextPendingConnection())
                    accept(socket, origin);
            });
        }
        m_listening = m_hub.listen(QHostAddress::LocalHost) && m_cdn.listen(QHostAddress::LocalHost);
    }
    ~FakeHub()
    {
        m_hub.close();
        m_cdn.close();
        for (const QPointer<QTcpSocket> &s : std::as_const(m_sockets))
            if (s) {
                s->disconnect();
                s->abort();
                s->deleteLater();
            }
    }
    FakeHub(const FakeHub &) = delete;
    FakeHub &operator=(const FakeHub &) = delete;

    bool isListening() const { return m_listening; }
    QUrl endpoint() const { return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_hub.serverPort())); }
    QUrl cdnBase() const { return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_cdn.serverPort())); }
    static QByteArray commit() { return QByteArray(40, 'c'); }

    File &addFile(const QString &repo, const QString &path, const QByteArray &content, bool lfs = true)
    {
        File &f = repos[repo].files[path];
        f = File();
        f.content = content;
        f.lfs = lfs;
        return f;
    }
    QList<HubRequest> cdnRequests() const
    {
        QList<HubRequest> out;
        for (const HubRequest &r : requests)
            if (r.isCdn())
                out << r;
        return out;
    }
    QList<HubRequest> hubRequests() const
    {
        QList<HubRequest> out;
        for (const HubRequest &r : requests)
            if (!r.isCdn())
                out << r;
        return out;
    }

private:
    struct Connection {
        QByteArray in;
        QByteArray body;
        qint64 sent = 0;
        qint64 cutAt = -1;
        qint64 stallAt = -1;
        bool answered = false;
        qsizetype request = -1;   // index in `requests`
    };

    static QByteArray linkedEtagOf(const File &f) { return f.linkedEtag.isEmpty() ? sha256Hex(f.content) : f.linkedEtag; }
    static QByteArray cdnEtagOf(const File &f)
    {
        return f.cdnEtag.isEmpty() ? '"' + sha256Hex(f.content).left(16) + "-cdn\"" : f.cdnEtag;
    }

    void accept(QTcpSocket *socket, const QString &origin)
    {
        m_sockets << socket;
        auto conn = std::make_shared<Connection>();
        QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket, origin, conn] {
            conn->in += socket->readAll();
            if (conn->answered || !conn->in.contains("\r\n\r\n"))
                return;
            conn->answered = true;
            handle(socket, origin, conn);
        });
        QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    }

    void handle(QTcpSocket *socket, const QString &origin, const std::shared_ptr<Connection> &conn)
    {
        const QByteArray head = conn->in.left(conn->in.indexOf("\r\n\r\n"));
        const QList<QByteArray> lines = head.split('\n');
        HubRequest request;
        request.origin = origin;
        const QList<QByteArray> first = lines.value(0).trimmed().split(' ');
        request.target = first.value(1);
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const QByteArray line = lines[i].trimmed();
            const qsizetype colon = line.indexOf(':');
            if (colon > 0)
                request.headers.insert(line.left(colon).trimmed().toLower(), line.mid(colon + 1).trimmed());
        }
        requests << request;
        conn->request = requests.size() - 1;
        if (origin == QLatin1String("cdn") || request.target.startsWith("/cdn-same/"))
            serveCdn(socket, request, conn);
        else
            serveHub(socket, request, conn);
    }

    void respond(QTcpSocket *socket, const std::shared_ptr<Connection> &conn, int status, const QByteArray &reason,
                 QList<QPair<QByteArray, QByteArray>> headers, const QByteArray &body, bool knobs = false)
    {
        if (conn->request >= 0 && conn->request < requests.size())
            requests[conn->request].status = status;
        QByteArray out = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reason + "\r\n";
        headers.append(Header{"Content-Length", QByteArray::number(body.size())});
        headers.append(Header{"Connection", "close"});
        for (const auto &h : headers)
            out += h.first + ": " + h.second + "\r\n";
        out += "\r\n";
        socket->write(out);
        conn->body = body;
        conn->sent = 0;
        if (knobs) {
            conn->cutAt = std::exchange(cutAfter, -1);
            conn->stallAt = stallAfter;
        }
        pump(socket, conn);
    }

    // Sends the body a piece at a time, honouring cut and stall.
    void pump(QTcpSocket *socket, const std::shared_ptr<Connection> &conn)
    {
        if (socket->state() != QAbstractSocket::ConnectedState)
            return;
        qint64 limit = conn->body.size();
        if (conn->cutAt >= 0)
            limit = qMin(limit, conn->cutAt);
        if (conn->stallAt >= 0)
            limit = qMin(limit, conn->stallAt);
        if (conn->sent < limit) {
            const qint64 n = qMin<qint64>(chunkBytes, limit - conn->sent);
            socket->write(conn->body.constData() + conn->sent, n);
            conn->sent += n;
        }
        if (conn->sent >= limit) {
            const bool cut = conn->cutAt >= 0 && conn->cutAt == limit;
            if (limit < conn->body.size() && !cut)
                return;   // stalled: hold the connection open, send nothing more
            socket->disconnectFromHost();
            return;
        }
        QPointer<QTcpSocket> guard(socket);
        QTimer::singleShot(1, socket, [this, guard, conn] {
            if (guard)
                pump(guard, conn);
        });
    }

    void serveHub(QTcpSocket *socket, const HubRequest &request, const std::shared_ptr<Connection> &conn)
    {
        const QUrl url(QString::fromLatin1(request.target));
        const QString path = url.path(QUrl::FullyDecoded);
        static const QRegularExpression treeRe(QStringLiteral("^/api/models/([^/]+/[^/]+)/tree/([^/]+)$"));
        static const QRegularExpression resolveRe(QStringLiteral("^/([^/]+/[^/]+)/resolve/([^/]+)/(.+)$"));
        if (const auto m = treeRe.match(url.path(QUrl::FullyEncoded)); m.hasMatch()) {
            const QString repo = m.captured(1);
            if (!repos.contains(repo)) {
                respond(socket, conn, 404, "Not Found", {{"X-Error-Code", "RepoNotFound"}}, "{\"error\":\"Repository not found\"}");
                return;
            }
            serveTree(socket, request, repo, url, conn);
            return;
        }
        const auto m = resolveRe.match(url.path(QUrl::FullyEncoded));
        if (!m.hasMatch()) {
            respond(socket, conn, 404, "Not Found", {}, "no such route");
            return;
        }
        const QString repo = m.captured(1);
        const QString file = QUrl::fromPercentEncoding(m.captured(3).toLatin1());
        if (!repos.contains(repo)) {
            respond(socket, conn, 404, "Not Found", {{"X-Error-Code", "RepoNotFound"}}, "Repository not found");
            return;
        }
        const Repo &r = repos[repo];
        if (r.gated) {
            const QByteArray auth = request.header("Authorization");
            if (auth.isEmpty()) {
                respond(socket, conn, 401, "Unauthorized", {{"X-Error-Code", "GatedRepo"}}, "gated");
                return;
            }
            if (auth != "Bearer " + acceptedToken) {
                respond(socket, conn, 403, "Forbidden", {{"X-Error-Code", "GatedRepo"}}, "gated");
                return;
            }
        }
        if (!r.files.contains(file)) {
            respond(socket, conn, 404, "Not Found", {{"X-Error-Code", "EntryNotFound"}}, "Entry not found");
            return;
        }
        const File &f = r.files[file];
        if (!f.lfs) {
            serveContent(socket, request, conn, f, '"' + gitBlobIdHex(f.content) + '"',
                         {{"X-Repo-Commit", commit()}});
            return;
        }
        const QByteArray key = QUrl::toPercentEncoding(repo + u'/' + file);
        const QByteArray location = sameOriginRedirect ? "/cdn-same/" + key + "?sig=x"
                                                       : cdnBase().toEncoded() + "/cdn/" + key + "?sig=x";
        respond(socket, conn, 302, "Found",
                {{"Location", location},
                 {"X-Linked-Etag", '"' + linkedEtagOf(f) + '"'},
                 {"X-Linked-Size", QByteArray::number(f.linkedSize >= 0 ? f.linkedSize : f.content.size())},
                 {"X-Repo-Commit", commit()},
                 {"ETag", '"' + linkedEtagOf(f) + '"'}},
                "Found. Redirecting");
    }

    void serveTree(QTcpSocket *socket, const HubRequest &request, const QString &repo, const QUrl &url,
                   const std::shared_ptr<Connection> &conn)
    {
        Q_UNUSED(request);
        QJsonArray all;
        QJsonObject readme{{QStringLiteral("type"), QStringLiteral("file")}, {QStringLiteral("path"), QStringLiteral("README.md")},
                           {QStringLiteral("size"), 120}, {QStringLiteral("oid"), QString(40, u'a')}};
        all.append(readme);
        all.append(QJsonObject{{QStringLiteral("type"), QStringLiteral("directory")}, {QStringLiteral("path"), QStringLiteral("sub")},
                               {QStringLiteral("size"), 0}, {QStringLiteral("oid"), QString(40, u'b')}});
        const Repo &r = repos[repo];
        for (auto it = r.files.cbegin(); it != r.files.cend(); ++it) {
            const File &f = it.value();
            const qint64 size = f.listedSize >= 0 ? f.listedSize : f.content.size();
            QJsonObject entry{{QStringLiteral("type"), QStringLiteral("file")}, {QStringLiteral("path"), it.key()},
                              {QStringLiteral("oid"), QString::fromLatin1(gitBlobIdHex(f.content))}};
            if (f.lfs) {
                entry.insert(QStringLiteral("size"), 134);   // the pointer file's size
                entry.insert(QStringLiteral("lfs"), QJsonObject{{QStringLiteral("oid"), QString::fromLatin1(linkedEtagOf(f))},
                                                                {QStringLiteral("size"), double(size)},
                                                                {QStringLiteral("pointerSize"), 134}});
            } else {
                entry.insert(QStringLiteral("size"), double(size));
            }
            all.append(entry);
        }
        QList<QPair<QByteArray, QByteArray>> headers{{"Content-Type", "application/json"}};
        QJsonArray page = all;
        if (pageSize > 0) {
            const int cursor = QUrlQuery(url).queryItemValue(QStringLiteral("cursor")).toInt();
            page = QJsonArray();
            for (int i = cursor; i < all.size() && i < cursor + pageSize; ++i)
                page.append(all.at(i));
            if (cursor + pageSize < all.size()) {
                QUrl next = endpoint();
                next.setPath(url.path());
                next.setQuery(QStringLiteral("recursive=true&cursor=%1").arg(cursor + pageSize));
                headers.append(Header{"Link", '<' + next.toEncoded() + ">; rel=\"next\""});
            }
        }
        respond(socket, conn, 200, "OK", headers, QJsonDocument(page).toJson(QJsonDocument::Compact));
    }

    void serveCdn(QTcpSocket *socket, const HubRequest &request, const std::shared_ptr<Connection> &conn)
    {
        const QUrl url(QString::fromLatin1(request.target));
        const QString encodedPath = url.path(QUrl::FullyEncoded);
        const QString key = QUrl::fromPercentEncoding(encodedPath.section(u'/', 2).toLatin1());
        const QString repo = key.section(u'/', 0, 1);
        const QString file = key.section(u'/', 2);
        if (!repos.contains(repo) || !repos[repo].files.contains(file)) {
            respond(socket, conn, 404, "Not Found", {}, "no such object");
            return;
        }
        if (const int status = std::exchange(nextCdnStatus, 0); status != 0) {
            respond(socket, conn, status, "Test", {{"Content-Range", "bytes */" + QByteArray::number(repos[repo].files[file].content.size())}},
                    "spoiled");
            return;
        }
        const File &f = repos[repo].files[file];
        serveContent(socket, request, conn, f, cdnEtagOf(f), {});
    }

    // 200, or 206 for `Range: bytes=N-` (unless If-Range names another
    // ETag), or 416 past the end.
    void serveContent(QTcpSocket *socket, const HubRequest &request, const std::shared_ptr<Connection> &conn,
                      const File &f, const QByteArray &etag, QList<QPair<QByteArray, QByteArray>> headers)
    {
        headers.append(Header{"ETag", etag});
        headers.append(Header{"Accept-Ranges", "bytes"});
        const QByteArray range = request.header("Range");
        const QByteArray ifRange = request.header("If-Range");
        static const QRegularExpression re(QStringLiteral(R"(^bytes=(\d+)-$)"));
        const auto m = re.match(QString::fromLatin1(range));
        const qint64 size = f.content.size();
        if (m.hasMatch() && (ifRange.isEmpty() || ifRange == etag)) {
            const qint64 from = m.captured(1).toLongLong();
            if (from >= size) {
                headers.append(Header{"Content-Range", "bytes */" + QByteArray::number(size)});
                respond(socket, conn, 416, "Range Not Satisfiable", headers, QByteArray());
                return;
            }
            headers.append(Header{"Content-Range", "bytes " + QByteArray::number(from) + '-' + QByteArray::number(size - 1) + '/'
                                                 + QByteArray::number(size)});
            respond(socket, conn, 206, "Partial Content", headers, f.content.mid(from), true);
            return;
        }
        respond(socket, conn, 200, "OK", headers, f.content, true);
    }

    QTcpServer m_hub;
    QTcpServer m_cdn;
    bool m_listening = false;
    QList<QPointer<QTcpSocket>> m_sockets;
};

} // namespace burrow::test
