#include "engineworker.h"

#include <atomic>

#include <QCoreApplication>
#include <QElapsedTimer>

#include "common/logging.h"

EngineWorker::EngineWorker(std::unique_ptr<ChatBackend> backend, QObject *parent)
    : QObject(parent), m_backend(std::move(backend))
{
}

EngineWorker::~EngineWorker()
{
    // The backend first, while this object is whole: its scheduler ends the
    // replies still running, and their generationFinished is still sent.
    m_backend.reset();
}

void EngineWorker::reportContextSize()
{
    const int size = m_backend->contextSize();
    if (size == m_contextSize)
        return;
    m_contextSize = size;
    Q_EMIT contextSizeChanged(size);
}

void EngineWorker::loadModel(quint64 id, const QString &path, int contextSize,
                             std::shared_ptr<burrow::CancelToken> cancel)
{
    if (cancel->isCancelled()) {
        Q_EMIT loadFailed(id, path, QCoreApplication::translate("EngineWorker", "Loading was cancelled."));
        return;
    }
    QElapsedTimer sinceEmit;
    sinceEmit.start();
    Q_EMIT loadProgress(id, 0.0);
    auto progress = [&](double p) {
        if (sinceEmit.elapsed() >= ProgressIntervalMs || p >= 1.0) {
            Q_EMIT loadProgress(id, p);
            sinceEmit.restart();
        }
        return !cancel->isCancelled();
    };
    QString error;
    if (!m_backend->load(path, contextSize, progress, &error)) {
        qCInfo(lcApp) << "refused" << path << error;
        Q_EMIT loadFailed(id, path, error);
        return;
    }
    Q_EMIT loadProgress(id, 1.0);
    reportContextSize();
    Q_EMIT modelLoaded(id, m_backend->loadedModel());
    Q_EMIT serverStatus(m_backend->serverStatus());   // it serves the new model
}

void EngineWorker::configureServer(const ServerConfig &config)
{
    Q_EMIT serverStatus(m_backend->configureServer(config));
}

void EngineWorker::pollServer()
{
    Q_EMIT serverStatus(m_backend->serverStatus());
}

void EngineWorker::generate(const ChatRequest &request, std::shared_ptr<ReplyBuffer> buffer,
                            std::function<void()> wake)
{
    // The callbacks outlive this call: the scheduler's thread runs them.
    struct State {
        quint64 id = 0;
        std::shared_ptr<burrow::CancelToken> cancel;
        std::shared_ptr<ReplyBuffer> buffer;
        std::function<void()> wake;
        QElapsedTimer clock;
        std::atomic<qint64> lastProgress{-ProgressIntervalMs};
        std::atomic<qint64> generationStartNs{-1};   // the prompt is done: generation (and its speed) starts
    };
    auto state = std::make_shared<State>();
    state->id = request.id;
    state->cancel = request.cancel;
    state->buffer = std::move(buffer);
    state->wake = std::move(wake);
    state->clock.start();

    ChatBackend::ReplySinks sinks;
    sinks.onText = [state](const QString &piece, int tokens, bool reasoning) {
        // A stop requested while the engine computed this piece drops it.
        if (state->cancel->isCancelled())
            return false;
        qint64 start = state->generationStartNs.load();
        if (start < 0) {
            start = state->clock.nsecsElapsed();
            state->generationStartNs = start;
        }
        if (state->buffer->push(piece, tokens, double(state->clock.nsecsElapsed() - start) / 1e6, reasoning))
            state->wake();
        return true;
    };
    sinks.onPromptProgress = [this, state](int done, int total) {
        const qint64 now = state->clock.elapsed();
        if (now - state->lastProgress >= ProgressIntervalMs || done >= total) {
            Q_EMIT promptProgress(state->id, done, total);
            state->lastProgress = now;
        }
        if (done >= total)
            state->generationStartNs = state->clock.nsecsElapsed();
    };
    sinks.onPlan = [this, state](const PromptPlan &plan) {
        reportContextSize();   // the request may have asked for another size (engine thread)
        Q_EMIT promptPlanned(state->id, plan);
    };
    // On either thread; the worker outlives the backend (see the destructor),
    // and the signal is queued to the bridge.
    sinks.onDone = [this, state](const GenerationOutcome &outcome) { Q_EMIT generationFinished(state->id, outcome); };
    m_backend->generate(request, std::move(sinks));
    reportContextSize();
}
