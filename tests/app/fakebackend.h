// FakeBackend: a ChatBackend whose timing the test controls exactly. Each
// reply streams `pieces` one at a time (one token each); when `gated`, every
// piece waits for the test to release() one step, so a test can stop or
// switch models at a known point. Loads succeed for files whose name
// contains "good". A request's cancel token is honoured like the engine
// does: before the prompt, and between pieces.
#pragma once

#include <atomic>
#include <memory>

#include <QFileInfo>
#include <QMutex>
#include <QSemaphore>
#include <QStringList>

#include "backend/chatbackend.h"

struct FakeControl {
    QStringList pieces{QStringLiteral("Once"), QStringLiteral(" upon"), QStringLiteral(" a"),
                       QStringLiteral(" time"), QStringLiteral(".")};
    // Reasoning streamed before the pieces (none by default), as the engine
    // reports it: markers removed, apart from the answer.
    QStringList reasoningPieces;
    bool gated = true;
    QSemaphore steps;                       // one per piece when gated
    std::atomic<bool> abort{false};         // set at test end: unblock everything
    std::atomic<int> generateCalls{0};
    std::atomic<int> loads{0};
    int contextSize = 256;                  // what a load gets (a request may ask for another)
    // How a reply that streamed all its pieces ends (ContextFull: the
    // context filled up).
    GenerationOutcome::Stop endWith = GenerationOutcome::Stop::EndOfText;
    QList<ChatRequest> requests;            // written on the engine thread; read after it reports
    // The tool calls of reply n (in the order replies are asked for); none past the list.
    QList<QList<ModelToolCall>> toolCalls;

    void release(int n = 1) { steps.release(n); }
};

inline ModelCard fakeCard(const QString &path)
{
    ModelCard card;
    card.path = path;
    card.name = QFileInfo(path).completeBaseName();
    card.architecture = QStringLiteral("fake");
    card.quantization = QStringLiteral("F32");
    card.parameterCount = 1000;
    card.trainedContext = 256;
    card.fileSize = 10;
    card.weightBytes = 10;
    card.chatFormat = QStringLiteral("plain");   // a base model: it continues text
    return card;
}

class FakeBackend final : public ChatBackend {
public:
    explicit FakeBackend(std::shared_ptr<FakeControl> control) : m_control(std::move(control)) {}

    bool load(const QString &path, int, const LoadProgress &progress, QString *error) override
    {
        ++m_control->loads;
        if (!QFileInfo(path).fileName().contains(QLatin1String("good"))) {
            *error = QStringLiteral("fake refusal");
            return false;
        }
        if (progress && !progress(0.5))
            return false;
        m_card = fakeCard(path);
        m_contextSize = m_control->contextSize;
        return true;
    }
    bool hasModel() const override { return m_card.isValid(); }
    ModelCard loadedModel() const override { return m_card; }
    int contextSize() const override { return m_contextSize; }

    // Streams the whole reply before returning (on the engine thread, so
    // replies run one after the other).
    void generate(const ChatRequest &request, ReplySinks sinks) override
    {
        sinks.onDone(run(request, sinks.onText, sinks.onPromptProgress, sinks.onPlan));
    }

    GenerationOutcome run(const ChatRequest &request, const TextSink &onText,
                          const PromptProgress &onPromptProgress, const PlanSink &onPlan)
    {
        ++m_control->generateCalls;
        m_control->requests.append(request);
        GenerationOutcome outcome;
        if (request.cancel->isCancelled()) {
            outcome.stop = GenerationOutcome::Stop::Cancelled;
            return outcome;
        }
        m_contextSize = request.settings.contextSize > 0 ? qMin(request.settings.contextSize, 256) : 256;
        PromptPlan plan;
        plan.firstRow = -1;
        plan.promptTokens = int(request.messages.size()) * 4;
        plan.chatFormat = QStringLiteral("plain");
        onPlan(plan);
        onPromptProgress(plan.promptTokens, plan.promptTokens);
        for (const QString &piece : m_control->reasoningPieces) {
            if (request.cancel->isCancelled()) {
                outcome.stop = GenerationOutcome::Stop::Cancelled;
                return outcome;
            }
            ++outcome.generatedTokens;
            ++outcome.reasoningTokens;
            if (!onText(piece, outcome.generatedTokens, true)) {
                outcome.stop = GenerationOutcome::Stop::Cancelled;
                return outcome;
            }
        }
        if (!m_control->reasoningPieces.isEmpty())
            outcome.reasoningMs = 1500;
        for (const QString &piece : m_control->pieces) {
            if (m_control->gated) {
                while (!m_control->steps.tryAcquire(1, 10)) {
                    if (m_control->abort) {
                        outcome.stop = GenerationOutcome::Stop::Cancelled;
                        return outcome;
                    }
                }
            }
            if (request.cancel->isCancelled()) {
                outcome.stop = GenerationOutcome::Stop::Cancelled;
                return outcome;
            }
            ++outcome.generatedTokens;
            if (!onText(piece, outcome.generatedTokens, false)) {
                outcome.stop = GenerationOutcome::Stop::Cancelled;
                return outcome;
            }
        }
        outcome.generateMs = 10;
        outcome.contextUsed = plan.promptTokens + outcome.generatedTokens;
        outcome.stop = m_control->endWith;
        const int reply = m_control->generateCalls - 1;
        if (reply < m_control->toolCalls.size())
            outcome.toolCalls = m_control->toolCalls.at(reply);
        return outcome;
    }

    static ModelCard inspect(const QString &path, QString *error)
    {
        if (QFileInfo(path).fileName().contains(QLatin1String("corrupt"))) {
            *error = QStringLiteral("fake header error");
            return {};
        }
        ModelCard card = fakeCard(path);
        card.chatFormat.clear();   // the engine says which format only once it is loaded
        return card;
    }

private:
    std::shared_ptr<FakeControl> m_control;
    ModelCard m_card;
    int m_contextSize = 0;
};

inline BackendFactory fakeFactory(const std::shared_ptr<FakeControl> &control)
{
    return {[control] { return std::unique_ptr<ChatBackend>(new FakeBackend(control)); }, &FakeBackend::inspect};
}
