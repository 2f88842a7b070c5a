// RemoteBackend: ChatBackend on a model served elsewhere by an
// OpenAI-compatible server the user added (RemoteEndpoints). "Loading" a
// remote model opens no connection: it checks that its endpoint is one the
// user added and makes its card (the server's name, the context length the
// server reported when its models were listed). Each reply is a RemoteChat
// (a streamed POST /chat/completions) on this object's network manager,
// made on the engine thread at the first use; several run at once. The
// endpoint is looked up again for every reply, so a key changed or a server
// removed in Settings → Servers applies to the next reply, and a removed
// server gets nothing.
#pragma once

#include <memory>
#include <set>

#include "chatbackend.h"
#include "remoteendpoints.h"

class QNetworkAccessManager;
class RemoteChat;

class RemoteBackend final : public ChatBackend {
public:
    RemoteBackend();
    ~RemoteBackend() override;

    bool load(const QString &locator, int contextSize, const LoadProgress &progress, QString *error) override;
    bool hasModel() const override { return m_card.isValid(); }
    ModelCard loadedModel() const override { return m_card; }
    // What the server reported (0: it did not say; the context is the server's business).
    int contextSize() const override { return m_card.trainedContext; }
    void generate(const ChatRequest &request, ReplySinks sinks) override;

    // The card of a remote model (a ModelInspector: no network, thread-safe);
    // invalid with `error` set when the locator is not one or names a server
    // the user did not add.
    static ModelCard inspect(const QString &locator, QString *error);

private:
    QNetworkAccessManager *network();

    std::unique_ptr<QNetworkAccessManager> m_network;
    RemoteModelRef m_ref;
    ModelCard m_card;
    std::set<RemoteChat *> m_running;
};
