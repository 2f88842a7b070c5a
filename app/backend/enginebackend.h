// EngineBackend: ChatBackend on Burrow's own engine (burrow::Model,
// burrow::Session). Lives on the engine thread; not thread-safe.
#pragma once

#include <memory>

#include "chatbackend.h"

namespace burrow {
class Model;
class Session;
}

class EngineBackend final : public ChatBackend {
public:
    EngineBackend();
    ~EngineBackend() override;

    bool load(const QString &path, int contextSize, const LoadProgress &progress, QString *error) override;
    bool hasModel() const override { return m_model != nullptr; }
    ModelCard loadedModel() const override { return m_card; }
    int contextSize() const override;
    GenerationOutcome generate(const ChatRequest &request, const TextSink &onText,
                               const PromptProgress &onPromptProgress, const PlanSink &onPlan) override;

    // burrow::inspectModel() as a ModelInspector (thread-safe, header only).
    static ModelCard inspect(const QString &path, QString *error);

private:
    // A session of `contextSize` positions (clamped to the trained context);
    // the one in use is kept when it already has that size.
    bool ensureSession(int contextSize, QString *error);

    std::shared_ptr<burrow::Model> m_model;
    std::unique_ptr<burrow::Session> m_session;
    ModelCard m_card;
};
