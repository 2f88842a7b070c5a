#include "remotebackend.h"

#include <QCoreApplication>
#include <QNetworkAccessManager>

#include "remotechat.h"

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("RemoteBackend", text);
}

} // namespace

RemoteBackend::RemoteBackend() = default;

RemoteBackend::~RemoteBackend()
{
    // Replies still running end Cancelled (their onDone), connections closed.
    const std::set<RemoteChat *> running = std::exchange(m_running, {});
    for (RemoteChat *chat : running) {
        chat->abortNow();
        delete chat;
    }
    m_network.reset();
}

QNetworkAccessManager *RemoteBackend::network()
{
    if (!m_network) {
        m_network = std::make_unique<QNetworkAccessManager>();
        m_network->setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
    }
    return m_network.get();
}

ModelCard RemoteBackend::inspect(const QString &locator, QString *error)
{
    const RemoteModelRef ref = RemoteModelRef::parse(locator);
    if (!ref.isValid()) {
        if (error)
            *error = tr("this is not a remote model's address");
        return {};
    }
    const std::optional<RemoteEndpoint> endpoint = RemoteEndpoints::instance().find(ref.baseUrl);
    if (!endpoint) {
        if (error)
            *error = tr("the server %1 is not among your servers (Settings → Servers); Burrow sends nothing to it")
                         .arg(ref.baseUrl.toString(QUrl::RemoveUserInfo));
        return {};
    }
    ModelCard card;
    card.path = ref.locator();
    card.name = ref.modelId;
    card.remote = true;
    card.remoteServer = endpoint->name;
    card.architecture = tr("remote");
    for (const auto &model : endpoint->models)
        if (model.first == ref.modelId)
            card.trainedContext = model.second;
    // Whether a reply carries reasoning is the server's: shown when it sends
    // some. Thinking off goes as chat_template_kwargs.enable_thinking (vLLM,
    // llama-server and Burrow pass it to the template) and a reasoning effort
    // other than medium as OpenAI's reasoning_effort, so the chat offers both.
    card.reasoning = true;
    card.readsEnableThinking = true;
    card.readsReasoningEffort = true;
    return card;
}

bool RemoteBackend::load(const QString &locator, int contextSize, const LoadProgress &progress, QString *error)
{
    Q_UNUSED(contextSize);   // the server's business
    if (progress && !progress(0.0)) {
        *error = tr("Loading was cancelled.");
        return false;
    }
    const ModelCard card = inspect(locator, error);
    if (!card.isValid())
        return false;
    m_ref = RemoteModelRef::parse(locator);
    m_card = card;
    if (progress)
        progress(1.0);
    return true;
}

void RemoteBackend::generate(const ChatRequest &request, ReplySinks sinks)
{
    const std::optional<RemoteEndpoint> endpoint = RemoteEndpoints::instance().find(m_ref.baseUrl);
    if (!m_ref.isValid() || !endpoint) {
        GenerationOutcome outcome;
        outcome.stop = GenerationOutcome::Stop::Error;
        outcome.error = m_ref.isValid()
                            ? tr("The server %1 was removed from Settings → Servers; nothing was sent.")
                                  .arg(m_ref.baseUrl.toString(QUrl::RemoveUserInfo))
                            : tr("No model is loaded.");
        if (sinks.onDone)
            sinks.onDone(outcome);
        return;
    }
    auto *chat = new RemoteChat(network(), *endpoint, m_ref.modelId, request, std::move(sinks));
    m_running.insert(chat);
    QObject::connect(chat, &RemoteChat::ended, chat, [this, chat] {
        if (m_running.erase(chat))
            chat->deleteLater();
    });
    chat->start();
}
