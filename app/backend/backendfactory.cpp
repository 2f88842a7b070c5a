// defaultBackendFactory(): the real engine when this build links it.
#include <QCoreApplication>

#include "chatbackend.h"

#include "enginebackend.h"

BackendFactory defaultBackendFactory()
{
    return {[] { return std::unique_ptr<ChatBackend>(new EngineBackend); }, &EngineBackend::inspect};
}
