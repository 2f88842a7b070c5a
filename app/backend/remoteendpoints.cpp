#include "remoteendpoints.h"

#include <QFileInfo>
#include <QHostAddress>

namespace {
const QLatin1String ModelMarker("model=");
} // namespace

QString RemoteModelRef::locator() const
{
    return baseUrl.toString(QUrl::FullyEncoded) + QLatin1Char('#') + ModelMarker
        + QString::fromLatin1(QUrl::toPercentEncoding(modelId));
}

bool RemoteModelRef::isLocator(const QString &text)
{
    return text.startsWith(QLatin1String("http://"), Qt::CaseInsensitive)
        || text.startsWith(QLatin1String("https://"), Qt::CaseInsensitive);
}

QString RemoteModelRef::displayName(const QString &path)
{
    if (!isLocator(path))
        return QFileInfo(path).fileName();
    const RemoteModelRef ref = parse(path);
    return ref.isValid() ? ref.modelId : path;
}

RemoteModelRef RemoteModelRef::parse(const QString &text)
{
    RemoteModelRef ref;
    if (!isLocator(text))
        return ref;
    const qsizetype hash = text.lastIndexOf(QLatin1Char('#'));
    if (hash < 0 || !QStringView(text).mid(hash + 1).startsWith(ModelMarker))
        return ref;
    const QString id = QUrl::fromPercentEncoding(text.mid(hash + 1 + ModelMarker.size()).toLatin1());
    const QUrl base = RemoteEndpoints::normalized(QUrl(text.left(hash), QUrl::StrictMode));
    if (!base.isValid() || id.isEmpty() || id.size() > 1024)
        return ref;
    ref.baseUrl = base;
    ref.modelId = id;
    return ref;
}

RemoteEndpoints &RemoteEndpoints::instance()
{
    static RemoteEndpoints endpoints;
    return endpoints;
}

void RemoteEndpoints::set(const QList<RemoteEndpoint> &endpoints)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_endpoints = endpoints;
    for (RemoteEndpoint &e : m_endpoints)
        e.baseUrl = normalized(e.baseUrl);
}

QList<RemoteEndpoint> RemoteEndpoints::all() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_endpoints;
}

std::optional<RemoteEndpoint> RemoteEndpoints::find(const QUrl &baseUrl) const
{
    const QUrl wanted = normalized(baseUrl);
    if (!wanted.isValid())
        return std::nullopt;
    std::lock_guard<std::mutex> lock(m_mutex);
    for (const RemoteEndpoint &e : m_endpoints)
        if (e.baseUrl == wanted)
            return e;
    return std::nullopt;
}

QUrl RemoteEndpoints::normalized(const QUrl &url)
{
    const QString scheme = url.scheme().toLower();
    if (!url.isValid() || (scheme != QLatin1String("http") && scheme != QLatin1String("https")) || url.host().isEmpty())
        return QUrl();
    QUrl out;
    out.setScheme(scheme);
    out.setHost(url.host().toLower());
    if (url.port() > 0)
        out.setPort(url.port());
    QString path = url.path();
    while (path.endsWith(QLatin1Char('/')))
        path.chop(1);
    out.setPath(path.isEmpty() ? QStringLiteral("/v1") : path);
    return out;
}

QUrl RemoteEndpoints::endpointUrl(const QUrl &base, const QString &path)
{
    QUrl out = base;
    out.setPath(base.path() + QLatin1Char('/') + path);
    return out;
}

bool RemoteEndpoints::isLoopback(const QUrl &url)
{
    const QString host = url.host().toLower();
    if (host == QLatin1String("localhost") || host.endsWith(QLatin1String(".localhost")))
        return true;
    const QHostAddress address(host);
    return !address.isNull() && address.isLoopback();
}
