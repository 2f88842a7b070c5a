#include "hubclient.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>

#include "accesstoken.h"
#include "common/logging.h"
#include "backend/modelcard.h"

namespace {
constexpr int ListingTimeoutMs = 30000;
constexpr qint64 MaxFileSize = 1LL << 50;   // 1 PiB: beyond any real model, keeps sums in range
} // namespace

HubClient::HubClient(AccessToken *token, QObject *parent)
    : QObject(parent), m_token(token), m_network(new QNetworkAccessManager(this))
{
}

HubClient::~HubClient()
{
    if (m_reply)
        m_reply->abort();
}

QString HubClient::pageUrl() const
{
    return m_repo.isEmpty() ? QString() : HubProtocol::pageUrl(HubProtocol::endpoint(), m_repo).toString();
}

void HubClient::cancel()
{
    ++m_ticket;
    const bool wasBusy = isBusy();
    m_waitingForToken = false;
    if (m_reply) {
        QNetworkReply *reply = m_reply;
        m_reply = nullptr;
        reply->abort();
    }
    if (wasBusy)
        Q_EMIT busyChanged();
}

void HubClient::fail(const QString &message)
{
    m_error = message;
    m_files.clear();
    m_pending.clear();
    Q_EMIT listingChanged();
}

void HubClient::list(const QString &text)
{
    cancel();
    const HubReference ref = HubProtocol::parseReference(text);
    m_repo = ref.isValid() ? ref.repo : QString();
    m_revision = ref.isValid() ? ref.revision : QString();
    m_suggested = ref.file;
    if (!ref.isValid()) {
        fail(ref.error);
        return;
    }
    m_error.clear();
    m_files.clear();
    m_pending.clear();
    m_pages = 0;
    m_endpoint = HubProtocol::endpoint();
    Q_EMIT listingChanged();
    const quint64 ticket = ++m_ticket;
    m_waitingForToken = true;
    Q_EMIT busyChanged();
    const QUrl url = HubProtocol::treeUrl(m_endpoint, m_repo, m_revision);
    m_token->fetch(this, [this, ticket, url](const QString &token) {
        if (ticket != m_ticket)
            return;
        m_waitingForToken = false;
        request(url, token);
    });
}

void HubClient::request(const QUrl &url, const QString &token)
{
    QNetworkRequest request(url);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::SameOriginRedirectPolicy);
    request.setTransferTimeout(ListingTimeoutMs);
    request.setRawHeader("Accept", "application/json");
    request.setRawHeader("User-Agent", "Burrow/" BURROW_VERSION);
    // Only the hub's own origin: the pages a Link header names elsewhere are not followed.
    if (!token.isEmpty() && HubProtocol::sameOrigin(url, m_endpoint))
        request.setRawHeader("Authorization", "Bearer " + token.toUtf8());
    QNetworkReply *reply = m_network->get(request);
    m_reply = reply;
    ++m_pages;
    connect(reply, &QNetworkReply::downloadProgress, this, [reply](qint64 received, qint64) {
        if (received > HubProtocol::MaxListingBytes) {
            reply->setProperty("tooLarge", true);
            reply->abort();
        }
    });
    connect(reply, &QNetworkReply::finished, this, [this, reply, token] { onFinished(reply, token); });
    Q_EMIT busyChanged();
}

void HubClient::onFinished(QNetworkReply *reply, const QString &token)
{
    reply->deleteLater();
    if (reply != m_reply)
        return;   // cancelled or replaced
    m_reply = nullptr;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QString host = reply->url().host();
    if (status >= 400) {
        fail(HubProtocol::httpErrorText(status, reply->rawHeader("X-Error-Code"), reply->rawHeader("X-Error-Message"),
                                        !token.isEmpty(), m_repo, m_revision, QString()));
    } else if (reply->property("tooLarge").toBool()) {
        fail(tr("The hub's list of files for %1 is too long to read.").arg(m_repo));
    } else if (reply->error() != QNetworkReply::NoError) {
        fail(HubProtocol::networkErrorText(reply->error(), host, reply->errorString()));
    } else if (status != 200) {
        fail(HubProtocol::httpErrorText(status, reply->rawHeader("X-Error-Code"), reply->rawHeader("X-Error-Message"),
                                        !token.isEmpty(), m_repo, m_revision, QString()));
    } else {
        const QByteArray body = reply->read(HubProtocol::MaxListingBytes + 1);
        QString why;
        if (body.size() > HubProtocol::MaxListingBytes) {
            fail(tr("The hub's list of files for %1 is too long to read.").arg(m_repo));
        } else if (!parseTreePage(body, &m_pending, &why)) {
            fail(tr("The hub's answer for %1 could not be read: %2").arg(m_repo, why));
        } else {
            const QUrl next = HubProtocol::nextPageUrl(reply->rawHeader("Link"), reply->url());
            if (next.isValid() && !next.isEmpty() && HubProtocol::sameOrigin(next, m_endpoint)
                && m_pages < HubProtocol::MaxListingPages && m_pending.size() < HubProtocol::MaxListedFiles) {
                request(next, token);
                return;
            }
            m_files = groupSplits(m_pending);
            m_pending.clear();
            if (m_files.isEmpty())
                m_error = tr("%1 has no GGUF files. Burrow runs GGUF models: look for a repository whose name "
                             "ends in -GGUF.").arg(m_repo);
            Q_EMIT listingChanged();
        }
    }
    Q_EMIT busyChanged();
}

bool HubClient::parseTreePage(const QByteArray &json, QList<HubFile> *files, QString *error)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        *error = parseError.errorString();
        return false;
    }
    if (!doc.isArray()) {
        *error = tr("not a list of files");
        return false;
    }
    const QJsonArray entries = doc.array();
    for (const QJsonValue &value : entries) {
        if (files->size() >= HubProtocol::MaxListedFiles)
            break;
        const QJsonObject entry = value.toObject();
        if (entry.value(QLatin1String("type")).toString(QStringLiteral("file")) != u"file")
            continue;
        HubFile file;
        file.path = entry.value(QLatin1String("path")).toString();
        if (!file.path.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive) || !HubProtocol::isValidRepoPath(file.path))
            continue;
        const QJsonObject lfs = entry.value(QLatin1String("lfs")).toObject();
        const double size = lfs.isEmpty() ? entry.value(QLatin1String("size")).toDouble(-1)
                                          : lfs.value(QLatin1String("size")).toDouble(-1);
        file.size = size >= 0 && size <= double(MaxFileSize) ? qint64(size) : -1;
        const QString lfsOid = lfs.value(QLatin1String("oid")).toString();
        const QString oid = entry.value(QLatin1String("oid")).toString();
        if (!lfs.isEmpty())
            file.checksum = HubProtocol::isHex(lfsOid, 64) ? lfsOid.toLower() : QString();
        else
            file.checksum = HubProtocol::isHex(oid, 40) ? oid.toLower() : QString();
        files->append(file);
    }
    return true;
}

QList<HubFile> HubClient::groupSplits(const QList<HubFile> &files)
{
    QList<HubFile> out;
    QHash<QString, qsizetype> sets;   // folder + base name + count -> index in out
    for (const HubFile &file : files) {
        int part = 0, count = 0;
        QString base;
        const QString name = file.path.section(u'/', -1);
        if (!HubProtocol::splitPart(name, &part, &count, &base) || count < 2) {
            out.append(file);
            continue;
        }
        const QString key = file.path.section(u'/', 0, -2) + u'/' + base + u'#' + QString::number(count);
        auto it = sets.find(key);
        if (it == sets.end()) {
            HubFile set = file;
            set.parts = count;
            sets.insert(key, out.size());
            out.append(set);
            continue;
        }
        HubFile &set = out[*it];
        if (part == 1)
            set.path = file.path;
        set.size = set.size >= 0 && file.size >= 0 ? set.size + file.size : -1;
        set.checksum.clear();   // one file's checksum does not describe the set
    }
    return out;
}

QVariantList HubClient::files() const
{
    QVariantList list;
    for (const HubFile &file : m_files) {
        const QString name = file.path.section(u'/', -1);
        const QString quant = HubProtocol::quantization(name);
        QString hint = HubProtocol::quantizationHint(quant);
        if (name.startsWith(QLatin1String("mmproj"), Qt::CaseInsensitive))
            hint = tr("a vision projector that goes with a model, not a chat model by itself");
        QString note;
        if (file.parts > 1)
            note = tr("split into %n file(s); Burrow opens single-file models only", nullptr, file.parts);
        else if (HubProtocol::localFileName(file.path).isEmpty())
            note = tr("this file name cannot be saved safely");
        QVariantMap map;
        map.insert(QStringLiteral("path"), file.path);
        map.insert(QStringLiteral("name"), name);
        map.insert(QStringLiteral("folder"), file.path.section(u'/', 0, -2));
        map.insert(QStringLiteral("size"), double(file.size));
        map.insert(QStringLiteral("sizeText"), file.size >= 0 ? ModelCard::formatBytes(quint64(file.size)) : tr("unknown size"));
        map.insert(QStringLiteral("checksum"), file.checksum);
        map.insert(QStringLiteral("quantization"), quant);
        map.insert(QStringLiteral("hint"), hint);
        map.insert(QStringLiteral("parts"), file.parts);
        map.insert(QStringLiteral("downloadable"), note.isEmpty());
        map.insert(QStringLiteral("note"), note);
        list.append(map);
    }
    return list;
}
