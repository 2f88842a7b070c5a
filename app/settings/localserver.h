// LocalServer: Settings → Local server, on the GUI thread. It owns the
// server's settings (kept in QSettings under "server/": off by default,
// port 8080, this machine only, no key) and what the engine reports about
// it (the address, the clients connected, why it does not run). The server
// itself runs on the engine side (EngineBackend: burrow::server::Server on
// the app's model and scheduler, its requests below the user's chats);
// starting and stopping it are queued to the engine thread, so the window
// never waits for them. While it is on, its numbers are asked for once a second.
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>
#include <QtQml/qqmlregistration.h>

#include "backend/serverconfig.h"

class EngineBridge;

class LocalServer : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("The local server belongs to a ChatController")
    Q_PROPERTY(bool enabled READ isEnabled WRITE setEnabled NOTIFY settingsChanged)
    Q_PROPERTY(int port READ port WRITE setPort NOTIFY settingsChanged)
    // Listen on every interface (0.0.0.0) instead of this machine only (127.0.0.1).
    Q_PROPERTY(bool allowNetwork READ allowNetwork WRITE setAllowNetwork NOTIFY settingsChanged)
    Q_PROPERTY(QString apiKey READ apiKey WRITE setApiKey NOTIFY settingsChanged)
    Q_PROPERTY(bool running READ isRunning NOTIFY statusChanged)
    Q_PROPERTY(QString url READ url NOTIFY statusChanged)
    Q_PROPERTY(int connections READ connections NOTIFY statusChanged)
    // Why it is not running while enabled ("" otherwise).
    Q_PROPERTY(QString error READ error NOTIFY statusChanged)
    // One line for the status bar ("" while off).
    Q_PROPERTY(QString statusText READ statusText NOTIFY statusChanged)

public:
    static constexpr int DefaultPort = 8080;
    static constexpr int PollIntervalMs = 1000;

    explicit LocalServer(EngineBridge *bridge, QObject *parent = nullptr);

    bool isEnabled() const { return m_config.enabled; }
    void setEnabled(bool enabled);
    int port() const { return m_config.port; }
    void setPort(int port);
    bool allowNetwork() const { return m_allowNetwork; }
    void setAllowNetwork(bool allow);
    QString apiKey() const { return m_config.apiKey; }
    void setApiKey(const QString &key);

    bool isRunning() const { return m_status.running; }
    QString url() const { return m_status.url; }
    int connections() const { return m_status.connections; }
    QString error() const { return m_status.error; }
    QString statusText() const;

Q_SIGNALS:
    void settingsChanged();
    void statusChanged();

private:
    void load();
    void save() const;
    void apply();
    void onStatus(const ServerStatus &status);

    EngineBridge *m_bridge;
    ServerConfig m_config;
    bool m_allowNetwork = false;
    ServerStatus m_status;
    QTimer m_poll;
};
