// The app's local server (Settings → Local server) as the engine thread
// sees it: what to serve with, and what it reports. Plain data, copied
// across threads; EngineBackend runs burrow::server::Server on the app's
// own model and scheduler.
#pragma once

#include <QMetaType>
#include <QString>

struct ServerConfig {
    bool enabled = false;
    QString host = QStringLiteral("127.0.0.1");   // "0.0.0.0": every interface
    int port = 8080;
    QString apiKey;                                // "": none
};

struct ServerStatus {
    bool enabled = false;      // asked to run
    bool running = false;      // listening now
    QString url;               // "http://127.0.0.1:8080" while running
    int connections = 0;       // open now
    int activeRequests = 0;    // completions being generated now
    QString error;             // why it is not running (a sentence), "" otherwise
};

Q_DECLARE_METATYPE(ServerConfig)
Q_DECLARE_METATYPE(ServerStatus)
