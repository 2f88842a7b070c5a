#include "hubprotocol.h"

#include <QRegularExpression>
#include <QStringList>
#include <QUrlQuery>

#include "common/logging.h"

namespace {

QUrl endpointFrom(const QByteArray &value)
{
    if (value.isEmpty())
        return QUrl();
    QUrl url(QString::fromUtf8(value).trimmed(), QUrl::StrictMode);
    const QString scheme = url.scheme().toLower();
    if (!url.isValid() || (scheme != u"http" && scheme != u"https") || url.host().isEmpty() || url.hasQuery()
        || url.hasFragment() || !url.userInfo().isEmpty()) {
        qCWarning(lcApp) << "ignoring hub endpoint" << value << "(not an http(s) URL)";
        return QUrl();
    }
    QString path = url.path();
    while (path.endsWith(u'/'))
        path.chop(1);
    url.setPath(path);
    return url;
}

// "org/repo" parts: letters, digits, '_', '-', '.'; starts and ends with a
// letter, digit or '_'; no "--" or ".." (the hub's own rule for repo ids).
bool isValidIdPart(const QString &part)
{
    static const QRegularExpression re(QStringLiteral("^[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,94}[A-Za-z0-9_])?$"));
    return re.match(part).hasMatch() && !part.contains(QLatin1String("--")) && !part.contains(QLatin1String(".."));
}

bool hasControl(const QString &text)
{
    for (const QChar c : text)
        if (c.unicode() < 0x20 || c.unicode() == 0x7f)
            return true;
    return false;
}

QString joinPath(const QStringList &parts, qsizetype from)
{
    return parts.mid(from).join(u'/');
}

} // namespace

QUrl HubProtocol::endpoint()
{
    QUrl url = endpointFrom(qgetenv("BURROW_HF_ENDPOINT"));
    if (url.isEmpty())
        url = endpointFrom(qgetenv("HF_ENDPOINT"));
    if (url.isEmpty())
        url = QUrl(QString::fromLatin1(DefaultEndpoint));
    return url;
}

bool HubProtocol::isValidRepoId(const QString &repo)
{
    const QStringList parts = repo.split(u'/');
    return parts.size() == 2 && isValidIdPart(parts[0]) && isValidIdPart(parts[1]);
}

bool HubProtocol::isValidRevision(const QString &revision)
{
    if (revision.isEmpty() || revision.size() > 255 || hasControl(revision) || revision.contains(u'\\'))
        return false;
    const QStringList parts = revision.split(u'/');
    for (const QString &part : parts)
        if (part.isEmpty() || part == u"." || part == u"..")
            return false;
    return true;
}

bool HubProtocol::isValidRepoPath(const QString &path)
{
    if (path.isEmpty() || path.size() > 1024 || hasControl(path) || path.contains(u'\\'))
        return false;
    const QStringList parts = path.split(u'/');
    for (const QString &part : parts)
        if (part.isEmpty() || part == u"." || part == u"..")
            return false;
    return true;
}

HubReference HubProtocol::parseReference(const QString &input)
{
    HubReference ref;
    ref.revision = QStringLiteral("main");
    QString text = input.trimmed();
    if (text.isEmpty()) {
        ref.error = tr("Paste a repository id (organisation/name) or a link to a model on the Hugging Face hub.");
        return ref;
    }
    const bool looksLikeUrl = text.contains(QLatin1String("://")) || text.startsWith(QLatin1String("huggingface.co/"))
                              || text.startsWith(QLatin1String("www.huggingface.co/")) || text.startsWith(QLatin1String("hf.co/"));
    if (!looksLikeUrl) {
        while (text.endsWith(u'/'))
            text.chop(1);
        if (!isValidRepoId(text)) {
            ref.error = tr("\"%1\" is not a repository id: write it as organisation/name, for example "
                           "Qwen/Qwen2.5-0.5B-Instruct-GGUF.").arg(text.left(200));
            return ref;
        }
        ref.repo = text;
        return ref;
    }

    const QUrl url = QUrl::fromUserInput(text);
    const QString host = url.host().toLower();
    const QUrl hub = endpoint();
    const bool known = host == u"huggingface.co" || host == u"www.huggingface.co" || host == u"hf.co"
                       || sameOrigin(url, hub) || (host == hub.host().toLower() && url.port() == hub.port());
    if (!url.isValid() || !known) {
        ref.error = tr("Only links to the Hugging Face hub (huggingface.co) can be downloaded from.");
        return ref;
    }
    // The path below the endpoint's own path (a mirror may live in a
    // folder), split while still encoded so that a revision written
    // "refs%2Fpr%2F1" stays one segment.
    QString path = url.path(QUrl::FullyEncoded);
    const QString base = sameOrigin(url, hub) ? hub.path(QUrl::FullyEncoded) : QString();
    if (!base.isEmpty() && path.startsWith(base + u'/'))
        path = path.mid(base.size());
    QStringList parts;
    const QStringList encodedParts = path.split(u'/', Qt::SkipEmptyParts);
    for (const QString &part : encodedParts)
        parts << QUrl::fromPercentEncoding(part.toLatin1());
    if (!parts.isEmpty() && parts.first() == u"models")
        parts.removeFirst();   // /models/org/repo (an old form of the page)
    if (!parts.isEmpty() && (parts.first() == u"datasets" || parts.first() == u"spaces")) {
        ref.error = tr("This is a link to a dataset or a space; Burrow downloads models.");
        return ref;
    }
    if (parts.size() < 2 || !isValidRepoId(parts[0] + u'/' + parts[1])) {
        ref.error = tr("This link does not name a model repository (organisation/name).");
        return ref;
    }
    ref.repo = parts[0] + u'/' + parts[1];
    if (parts.size() == 2)
        return ref;
    const QString kind = parts[2];
    if ((kind == u"tree" || kind == u"blob" || kind == u"resolve") && parts.size() >= 4) {
        // The revision is one segment in these links (a '/' in it arrives
        // percent-encoded).
        ref.revision = parts[3];
        if (!isValidRevision(ref.revision)) {
            ref.error = tr("This link names no valid revision.");
            return ref;
        }
        if (kind != u"tree" && parts.size() >= 5) {
            ref.file = joinPath(parts, 4);
            if (!isValidRepoPath(ref.file)) {
                ref.error = tr("This link names no valid file.");
                return ref;
            }
        }
        return ref;
    }
    ref.error = tr("This link does not name a model repository (organisation/name).");
    return ref;
}

QUrl HubProtocol::treeUrl(const QUrl &endpoint, const QString &repo, const QString &revision)
{
    QUrl url = endpoint;
    url.setPath(endpoint.path() + QStringLiteral("/api/models/") + repo + QStringLiteral("/tree/")
                    + QString::fromLatin1(QUrl::toPercentEncoding(revision)),
                QUrl::TolerantMode);
    QUrlQuery query;
    query.addQueryItem(QStringLiteral("recursive"), QStringLiteral("true"));
    url.setQuery(query);
    return url;
}

QUrl HubProtocol::resolveUrl(const QUrl &endpoint, const QString &repo, const QString &revision, const QString &path)
{
    QStringList encoded;
    const QStringList parts = path.split(u'/');
    for (const QString &part : parts)
        encoded << QString::fromLatin1(QUrl::toPercentEncoding(part));
    QUrl url = endpoint;
    url.setPath(endpoint.path() + u'/' + repo + QStringLiteral("/resolve/")
                    + QString::fromLatin1(QUrl::toPercentEncoding(revision)) + u'/' + encoded.join(u'/'),
                QUrl::TolerantMode);
    return url;
}

QUrl HubProtocol::pageUrl(const QUrl &endpoint, const QString &repo)
{
    QUrl url = endpoint;
    url.setPath(endpoint.path() + u'/' + repo);
    return url;
}

bool HubProtocol::sameOrigin(const QUrl &a, const QUrl &b)
{
    const QString scheme = a.scheme().toLower();
    if (scheme != b.scheme().toLower() || a.host().compare(b.host(), Qt::CaseInsensitive) != 0)
        return false;
    const int defaultPort = scheme == u"https" ? 443 : scheme == u"http" ? 80 : -1;
    return a.port(defaultPort) == b.port(defaultPort);
}

QUrl HubProtocol::nextPageUrl(const QByteArray &linkHeader, const QUrl &base)
{
    // Link: <https://host/api/...?cursor=...>; rel="next", <...>; rel="last"
    static const QRegularExpression entry(QStringLiteral(R"re(<([^>]*)>\s*((?:;\s*[^;,]*)*))re"));
    const QString header = QString::fromLatin1(linkHeader);
    auto it = entry.globalMatch(header);
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        const QString params = m.captured(2);
        static const QRegularExpression relNext(QStringLiteral(R"re(;\s*rel\s*=\s*"?([^";]*)"?)re"));
        const QRegularExpressionMatch rel = relNext.match(params);
        if (rel.hasMatch() && rel.captured(1).split(u' ').contains(QLatin1String("next")))
            return base.resolved(QUrl(m.captured(1)));
    }
    return QUrl();
}

QString HubProtocol::normalizeEtag(const QByteArray &etag)
{
    QString value = QString::fromLatin1(etag).trimmed();
    if (value.startsWith(QLatin1String("W/")))
        value = value.mid(2);
    if (value.size() >= 2 && value.startsWith(u'"') && value.endsWith(u'"'))
        value = value.mid(1, value.size() - 2);
    return value.toLower();
}

bool HubProtocol::isHex(const QString &text, int length)
{
    if (text.size() != length)
        return false;
    for (const QChar c : text)
        if (!((c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f') || (c >= u'A' && c <= u'F')))
            return false;
    return true;
}

QString HubProtocol::localFileName(const QString &repoPath)
{
    const QString name = repoPath.section(u'/', -1);
    if (name.isEmpty() || name.startsWith(u'.') || name.contains(u'\\') || name.contains(u'/') || hasControl(name))
        return QString();
    if (name.toUtf8().size() > 200 || !name.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive)
        || name.size() <= 5)
        return QString();
    return name;
}

QString HubProtocol::quantization(const QString &fileName)
{
    QString stem = fileName.section(u'/', -1);
    if (stem.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive))
        stem.chop(5);
    static const QRegularExpression re(
        QStringLiteral(R"((?:^|[-._])((?:IQ|TQ|Q)\d(?:_[A-Z0-9]+)*|BF16|FP16|F16|FP32|F32|MXFP4)(?=[-._]|$))"),
        QRegularExpression::CaseInsensitiveOption);
    QString found;
    auto it = re.globalMatch(stem);
    while (it.hasNext())
        found = it.next().captured(1).toUpper();
    if (found == u"FP16")
        found = QStringLiteral("F16");
    if (found == u"FP32")
        found = QStringLiteral("F32");
    return found;
}

QString HubProtocol::quantizationHint(const QString &quantization)
{
    const QString q = quantization.toUpper();
    if (q == u"F32")
        return tr("32-bit: the original weights, very large");
    if (q == u"F16" || q == u"BF16")
        return tr("16-bit: full quality, large");
    static const QRegularExpression bitsRe(QStringLiteral(R"(^(?:IQ|TQ|Q)(\d))"));
    const QRegularExpressionMatch m = bitsRe.match(q);
    const int bits = q == u"MXFP4" ? 4 : m.hasMatch() ? m.captured(1).toInt() : 0;
    switch (bits) {
    case 8: return tr("8-bit: close to the original, large");
    case 6: return tr("6-bit: near the original quality");
    case 5: return tr("5-bit: high quality");
    case 4: return tr("4-bit: a good balance of size and quality");
    case 3: return tr("3-bit: smaller, lower quality");
    case 1:
    case 2: return tr("2-bit or less: the smallest, the lowest quality");
    default: return QString();
    }
}

bool HubProtocol::splitPart(const QString &fileName, int *part, int *count, QString *base)
{
    static const QRegularExpression re(QStringLiteral(R"(^(.*)-(\d{5})-of-(\d{5})\.gguf$)"),
                                       QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch m = re.match(fileName);
    if (!m.hasMatch())
        return false;
    const int p = m.captured(2).toInt(), n = m.captured(3).toInt();
    if (p < 1 || n < 1 || p > n)
        return false;
    if (part)
        *part = p;
    if (count)
        *count = n;
    if (base)
        *base = m.captured(1) + QStringLiteral(".gguf");
    return true;
}

QString HubProtocol::httpErrorText(int status, const QByteArray &errorCode, const QByteArray &errorMessage,
                                   bool hasToken, const QString &repo, const QString &revision, const QString &file)
{
    const QString page = pageUrl(endpoint(), repo).toString();
    if (status == 401 || status == 403) {
        if (errorMessage.startsWith("Invalid credentials") || (status == 401 && hasToken && errorCode.isEmpty()))
            return tr("The hub refused the access token. Check it, or remove it, under Access token.");
        if (errorCode == "GatedRepo") {
            if (hasToken)
                return tr("%1 is a gated repository and this token has no access to it yet: accept the license "
                          "on the model page (%2), then try again.").arg(repo, page);
            return tr("%1 is a gated repository: it needs an access token. Accept the license on the model "
                      "page (%2) and add a token under Access token.").arg(repo, page);
        }
        if (hasToken)
            return tr("The hub refused access to %1 with this token (%2). Check that the token may read it.")
                .arg(repo).arg(status);
        return tr("%1 was not found, or it is private or gated and needs an access token: accept the license "
                  "on the model page (%2) and add a token under Access token.").arg(repo, page);
    }
    if (status == 404) {
        if (errorCode == "RevisionNotFound")
            return tr("Not found: %1 has no revision %2.").arg(repo, revision);
        if (errorCode == "EntryNotFound" || (!file.isEmpty() && errorCode != "RepoNotFound"))
            return tr("Not found: %1 has no file %2 (at %3).").arg(repo, file, revision);
        return tr("Not found: there is no repository %1 on the hub.").arg(repo);
    }
    if (status == 416)
        return tr("The server could not continue the download where it stopped (416: range not satisfiable).");
    if (status == 429)
        return tr("The hub is busy (too many requests). Try again in a few minutes.");
    if (status >= 500)
        return tr("The hub had a server error (%1). Try again later.").arg(status);
    const QString message = QString::fromUtf8(errorMessage.left(200));
    if (!message.isEmpty())
        return tr("The hub answered %1: %2").arg(status).arg(message);
    return tr("The hub answered with the unexpected status %1.").arg(status);
}

QString HubProtocol::networkErrorText(QNetworkReply::NetworkError error, const QString &host, const QString &detail)
{
    switch (error) {
    case QNetworkReply::HostNotFoundError:
        return tr("Could not find %1. Is this computer online?").arg(host);
    case QNetworkReply::ConnectionRefusedError:
        return tr("%1 refused the connection. Is this computer online?").arg(host);
    case QNetworkReply::TimeoutError:
    case QNetworkReply::OperationCanceledError:
        return tr("%1 did not answer in time.").arg(host);
    case QNetworkReply::RemoteHostClosedError:
        return tr("The connection to %1 was cut.").arg(host);
    case QNetworkReply::SslHandshakeFailedError:
    case QNetworkReply::InsecureRedirectError:
        return tr("A secure connection to %1 could not be made: %2").arg(host, detail);
    case QNetworkReply::TemporaryNetworkFailureError:
    case QNetworkReply::NetworkSessionFailedError:
    case QNetworkReply::BackgroundRequestNotAllowedError:
        return tr("The network is not available (%1).").arg(detail);
    case QNetworkReply::ProxyConnectionRefusedError:
    case QNetworkReply::ProxyConnectionClosedError:
    case QNetworkReply::ProxyNotFoundError:
    case QNetworkReply::ProxyTimeoutError:
    case QNetworkReply::ProxyAuthenticationRequiredError:
        return tr("The proxy did not let the connection to %1 through: %2").arg(host, detail);
    default:
        return tr("Could not reach %1: %2").arg(host, detail);
    }
}
