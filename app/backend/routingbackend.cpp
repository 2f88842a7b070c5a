#include "routingbackend.h"

#include "enginebackend.h"
#include "remotebackend.h"
#include "remoteendpoints.h"

RoutingBackend::RoutingBackend(std::unique_ptr<ChatBackend> local, std::unique_ptr<ChatBackend> remote)
    : m_local(std::move(local)), m_remote(std::move(remote))
{
}

RoutingBackend::~RoutingBackend()
{
    m_remote.reset();
    m_local.reset();
}

bool RoutingBackend::load(const QString &path, int contextSize, const LoadProgress &progress, QString *error)
{
    ChatBackend *target = RemoteModelRef::isLocator(path) ? m_remote.get() : m_local.get();
    if (!target->load(path, contextSize, progress, error))
        return false;
    m_current = target;
    return true;
}

void RoutingBackend::generate(const ChatRequest &request, ReplySinks sinks)
{
    if (m_current) {
        m_current->generate(request, std::move(sinks));
        return;
    }
    GenerationOutcome outcome;
    outcome.stop = GenerationOutcome::Stop::Error;
    outcome.error = QStringLiteral("no model is loaded");
    if (sinks.onDone)
        sinks.onDone(outcome);
}

ModelCard RoutingBackend::inspect(const QString &path, QString *error)
{
    return RemoteModelRef::isLocator(path) ? RemoteBackend::inspect(path, error) : EngineBackend::inspect(path, error);
}

BackendFactory defaultBackendFactory()
{
    return {[] {
                return std::unique_ptr<ChatBackend>(
                    new RoutingBackend(std::make_unique<EngineBackend>(), std::make_unique<RemoteBackend>()));
            },
            &RoutingBackend::inspect};
}
