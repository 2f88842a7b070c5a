// RoutingBackend: the app's ChatBackend. A file path goes to the local
// engine (EngineBackend), a remote model's locator (RemoteModelRef) to
// RemoteBackend; the backend of the model loaded last answers everything
// else. The local server (Settings → Local server) is always the engine's.
// A failed load leaves the model in use as it was. Engine thread only.
#pragma once

#include <memory>

#include "chatbackend.h"

class RoutingBackend final : public ChatBackend {
public:
    RoutingBackend(std::unique_ptr<ChatBackend> local, std::unique_ptr<ChatBackend> remote);
    ~RoutingBackend() override;

    bool load(const QString &path, int contextSize, const LoadProgress &progress, QString *error) override;
    bool hasModel() const override { return m_current && m_current->hasModel(); }
    ModelCard loadedModel() const override { return m_current ? m_current->loadedModel() : ModelCard(); }
    int contextSize() const override { return m_current ? m_current->contextSize() : 0; }
    void generate(const ChatRequest &request, ReplySinks sinks) override;
    ServerStatus configureServer(const ServerConfig &config) override { return m_local->configureServer(config); }
    ServerStatus serverStatus() const override { return m_local->serverStatus(); }

    // A path or a locator, read by the backend it belongs to (thread-safe).
    static ModelCard inspect(const QString &path, QString *error);

private:
    std::unique_ptr<ChatBackend> m_local;
    std::unique_ptr<ChatBackend> m_remote;
    ChatBackend *m_current = nullptr;   // the one whose model was loaded last
};
