#include "engineworker.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include "common/logging.h"

EngineWorker::EngineWorker(std::unique_ptr<ChatBackend> backend, QObject *parent)
    : QObject(parent), m_backend(std::move(backend))
{
}

EngineWorker::~EngineWorker() = default;

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
}

void EngineWorker::generate(const ChatRequest &request, std::shared_ptr<ReplyBuffer> buffer,
                            std::function<void()> wake)
{
    const quint64 id = request.id;
    QElapsedTimer clock;
    clock.start();
    qint64 lastProgress = -ProgressIntervalMs;
    qint64 generationStartNs = -1;   // the prompt is done: generation (and its speed) starts

    auto onText = [&](const QString &piece, int tokens, bool reasoning) {
        // A stop requested while the engine computed this piece drops it.
        if (request.cancel->isCancelled())
            return false;
        if (generationStartNs < 0)
            generationStartNs = clock.nsecsElapsed();
        if (buffer->push(piece, tokens, double(clock.nsecsElapsed() - generationStartNs) / 1e6, reasoning))
            wake();
        return true;
    };
    auto onProgress = [&](int done, int total) {
        const qint64 now = clock.elapsed();
        if (now - lastProgress >= ProgressIntervalMs || done >= total) {
            Q_EMIT promptProgress(id, done, total);
            lastProgress = now;
        }
        if (done >= total)
            generationStartNs = clock.nsecsElapsed();
    };
    auto onPlan = [&](const PromptPlan &plan) {
        reportContextSize();   // the request may have asked for another size
        Q_EMIT promptPlanned(id, plan);
    };
    const GenerationOutcome outcome = m_backend->generate(request, onText, onProgress, onPlan);
    reportContextSize();
    Q_EMIT generationFinished(id, outcome);
}
