#include "localserver.h"

#include "language/language.h"

#include <QSettings>

#include "backend/enginebridge.h"

namespace {
const QString kEnabled = QStringLiteral("server/enabled");
const QString kPort = QStringLiteral("server/port");
const QString kAllowNetwork = QStringLiteral("server/allowNetwork");
const QString kApiKey = QStringLiteral("server/apiKey");
}

LocalServer::LocalServer(EngineBridge *bridge, QObject *parent) : QObject(parent), m_bridge(bridge)
{
    connect(m_bridge, &EngineBridge::serverStatus, this, &LocalServer::onStatus);
    // statusText is words: read again in a new language.
    connect(Language::instance(), &Language::changed, this, &LocalServer::statusChanged);
    m_poll.setInterval(PollIntervalMs);
    connect(&m_poll, &QTimer::timeout, m_bridge, &EngineBridge::pollServer);
    load();
    if (m_config.enabled)
        apply();
}

void LocalServer::load()
{
    QSettings settings;
    m_config.enabled = settings.value(kEnabled, false).toBool();
    const int port = settings.value(kPort, DefaultPort).toInt();
    m_config.port = port >= 1 && port <= 65535 ? port : DefaultPort;
    m_allowNetwork = settings.value(kAllowNetwork, false).toBool();
    m_config.host = m_allowNetwork ? QStringLiteral("0.0.0.0") : QStringLiteral("127.0.0.1");
    m_config.apiKey = settings.value(kApiKey).toString();
}

void LocalServer::save() const
{
    QSettings settings;
    settings.setValue(kEnabled, m_config.enabled);
    settings.setValue(kPort, m_config.port);
    settings.setValue(kAllowNetwork, m_allowNetwork);
    settings.setValue(kApiKey, m_config.apiKey);
}

void LocalServer::setEnabled(bool enabled)
{
    if (enabled == m_config.enabled)
        return;
    m_config.enabled = enabled;
    save();
    Q_EMIT settingsChanged();
    apply();
    if (!enabled) {
        m_status = ServerStatus();   // off now; the engine thread closes it next
        Q_EMIT statusChanged();
    }
}

void LocalServer::setPort(int port)
{
    if (port < 1 || port > 65535 || port == m_config.port)
        return;
    m_config.port = port;
    save();
    Q_EMIT settingsChanged();
    if (m_config.enabled)
        apply();
}

void LocalServer::setAllowNetwork(bool allow)
{
    if (allow == m_allowNetwork)
        return;
    m_allowNetwork = allow;
    m_config.host = allow ? QStringLiteral("0.0.0.0") : QStringLiteral("127.0.0.1");
    save();
    Q_EMIT settingsChanged();
    if (m_config.enabled)
        apply();
}

void LocalServer::setApiKey(const QString &key)
{
    const QString trimmed = key.trimmed();
    if (trimmed == m_config.apiKey)
        return;
    m_config.apiKey = trimmed;
    save();
    Q_EMIT settingsChanged();
    if (m_config.enabled)
        apply();
}

void LocalServer::apply()
{
    m_bridge->configureServer(m_config);
    if (m_config.enabled)
        m_poll.start();
    else
        m_poll.stop();
}

void LocalServer::onStatus(const ServerStatus &status)
{
    // A report for settings since changed is followed by a newer one.
    m_status = status;
    if (!m_config.enabled)
        m_status = ServerStatus();
    Q_EMIT statusChanged();
}

QString LocalServer::statusText() const
{
    if (!m_config.enabled)
        return QString();
    if (m_status.running)
        return tr("Server: %1 · %n client(s)", nullptr, m_status.connections).arg(m_status.url);
    if (!m_status.error.isEmpty())
        return tr("Server: %1").arg(m_status.error);
    return tr("Server: starting…");
}
