#include "engineworker.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include "common/logging.h"

EngineWorker::EngineWorker(std::unique_ptr<ChatBackend> backend, QObject *parent)
    : QObject(parent), m_backend(std::move(backend))
{
}

EngineWorker::~EngineWorker() = default;

void EngineWorker::cancelUpTo(quint64 id)
{
    quint64 current = m_cancelUpTo.load();
    while (current < id && !m_cancelUpTo.compare_exchange_weak(current, id)) {
    }
}

void EngineWorker::loadModel(quint64 id, const QString &path, int contextSize)
{
    if (isCancelled(id)) {
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
        return !isCancelled(id);
    };
    QString error;
    if (!m_backend->load(path, contextSize, progress, &error)) {
        qCInfo(lcApp) << "refused" << path << error;
        Q_EMIT loadFailed(id, path, error);
        return;
    }
    Q_EMIT loadProgress(id, 1.0);
    Q_EMIT modelLoaded(id, m_backend->loadedModel());
}

void EngineWorker::generate(const GenerationRequest &request)
{
    const quint64 id = request.id;
    if (isCancelled(id)) {
        GenerationOutcome outcome;
        outcome.stop = GenerationOutcome::Stop::Cancelled;
        Q_EMIT generationFinished(id, outcome);
        return;
    }
    int pieces = 0;
    QElapsedTimer clock;
    clock.start();
    qint64 lastProgress = -ProgressIntervalMs;
    qint64 firstPieceNs = 0;

    auto onText = [&](const QString &piece) {
        // A stop requested while the engine computed this piece drops it.
        if (isCancelled(id))
            return false;
        if (++pieces == 1)
            firstPieceNs = clock.nsecsElapsed();
        // Milliseconds since the first piece: the streaming rate excludes the prompt.
        Q_EMIT textReady(id, piece, pieces, double(clock.nsecsElapsed() - firstPieceNs) / 1e6);
        return true;
    };
    auto onProgress = [&](int done, int total) {
        const qint64 now = clock.elapsed();
        if (now - lastProgress >= ProgressIntervalMs || done >= total) {
            Q_EMIT promptProgress(id, done, total);
            lastProgress = now;
        }
    };
    auto onPlan = [&](const PromptPlan &plan) {
        Q_EMIT promptPlanned(id, plan);
        clock.restart();
    };
    const GenerationOutcome outcome = m_backend->generate(request, onText, onProgress, onPlan);
    Q_EMIT generationFinished(id, outcome);
}
