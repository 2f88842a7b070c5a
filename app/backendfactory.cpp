// defaultBackendFactory(): the real engine when this build links it.
#include <QCoreApplication>

#include "chatbackend.h"

#if BURROW_HAVE_ENGINE
#include "enginebackend.h"

BackendFactory defaultBackendFactory()
{
    return {[] { return std::unique_ptr<ChatBackend>(new EngineBackend); }, &EngineBackend::inspect};
}
#else
namespace {
QString missingEngine()
{
    return QCoreApplication::translate("ChatBackend", "This build of Burrow has no inference engine yet.");
}

// Stands in while the engine is not linked: refuses every file with a reason.
class UnavailableBackend final : public ChatBackend {
public:
    bool load(const QString &, int, const LoadProgress &, QString *error) override
    {
        *error = missingEngine();
        return false;
    }
    bool hasModel() const override { return false; }
    ModelCard loadedModel() const override { return {}; }
    GenerationOutcome generate(const GenerationRequest &, const TextSink &, const PromptProgress &,
                               const PlanSink &) override
    {
        GenerationOutcome outcome;
        outcome.stop = GenerationOutcome::Stop::Error;
        outcome.error = missingEngine();
        return outcome;
    }
};
} // namespace

BackendFactory defaultBackendFactory()
{
    return {[] { return std::unique_ptr<ChatBackend>(new UnavailableBackend); },
            [](const QString &, QString *error) {
                *error = missingEngine();
                return ModelCard();
            }};
}
#endif
