// Remote models: the OpenAI-compatible servers the user added (Settings →
// Servers: vLLM, llama-server, Ollama's /v1, LM Studio, another Burrow) as
// the backend sees them, and how a model on one of them is named.
//
// A remote model travels through the app as a "locator" string where a
// local model has its file path: the endpoint's base URL and the model id,
// "<base URL>#model=<percent-encoded id>" (e.g.
// "http://127.0.0.1:8080/v1#model=qwen3-8b"). The conversation store keeps
// it as the chat's model (its provenance: endpoint and model id), the model
// loader and the recent list pass it on unchanged, and the engine bridge
// hands it to the backend, which routes it to RemoteBackend.
//
// RemoteEndpoints is the one list of endpoints a request may go to
// (thread-safe, one per process). The GUI (RemoteServers) fills it with
// what the user added, keys included; the remote backend refuses any base
// URL not in it before opening a connection, so nothing leaves the
// computer for a server the user did not add.
#pragma once

#include <mutex>
#include <optional>

#include <QList>
#include <QString>
#include <QUrl>

struct RemoteEndpoint {
    QString name;          // what the user called it ("GPU box")
    QUrl baseUrl;          // normalised (RemoteEndpoints::normalized), ends before "/models"
    QString apiKey;        // sent as "Authorization: Bearer …" ("" for none)
    // What the server said of its models the last time they were listed
    // (GET /models): id → context length (0: not reported).
    QList<QPair<QString, int>> models;
};

struct RemoteModelRef {
    QUrl baseUrl;          // normalised
    QString modelId;

    bool isValid() const { return baseUrl.isValid() && !baseUrl.isEmpty() && !modelId.isEmpty(); }
    // "<base URL>#model=<percent-encoded id>".
    QString locator() const;
    // The reference a locator names (invalid when `text` is not one).
    static RemoteModelRef parse(const QString &text);
    // `text` names a remote model (an http:// or https:// locator), not a file.
    static bool isLocator(const QString &text);
    // What to call the model at `path` (a file's name, a remote model's id).
    static QString displayName(const QString &path);
};

class RemoteEndpoints {
public:
    static RemoteEndpoints &instance();

    // The list from now on (replaces the one before).
    void set(const QList<RemoteEndpoint> &endpoints);
    QList<RemoteEndpoint> all() const;
    // The endpoint with this base URL (compared normalised); none when the
    // user did not add it.
    std::optional<RemoteEndpoint> find(const QUrl &baseUrl) const;

    // The form every base URL is kept and compared in: scheme and host in
    // lower case, no query, fragment, user info or trailing slash; a URL
    // with no path gets "/v1" (what every OpenAI-compatible server serves
    // under). Invalid unless http or https with a host.
    static QUrl normalized(const QUrl &url);
    // `base` + "/" + `path` ("chat/completions", "models").
    static QUrl endpointUrl(const QUrl &base, const QString &path);
    // The host is this computer (localhost, 127.0.0.0/8, ::1).
    static bool isLoopback(const QUrl &url);
    // Plain http to another computer: the key and the chats cross the
    // network unencrypted (the user is warned once, when adding it).
    static bool isInsecure(const QUrl &url) { return url.scheme() == QLatin1String("http") && !isLoopback(url); }

private:
    mutable std::mutex m_mutex;
    QList<RemoteEndpoint> m_endpoints;
};
