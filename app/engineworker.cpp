#include "engineworker.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include "logging.h"

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
        if (sinceEmit.elapsed() >= FlushIntervalMs || p >= 1.0) {
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
    QString pending;
    int pieces = 0;
    QElapsedTimer clock;
    clock.start();
    qint64 lastEmit = -FlushIntervalMs;
    qint64 lastProgress = -FlushIntervalMs;
    qint64 firstPieceNs = 0;
    // Milliseconds since the first piece: the streaming rate excludes the prompt.
    auto streamingMs = [&] { return double(clock.nsecsElapsed() - firstPieceNs) / 1e6; };

    auto onText = [&](const QString &piece) {
        pending += piece;
        if (++pieces == 1)
            firstPieceNs = clock.nsecsElapsed();
        const qint64 now = clock.elapsed();
        if (now - lastEmit >= FlushIntervalMs) {
            Q_EMIT textReady(id, pending, pieces, streamingMs());
            pending.clear();
            lastEmit = now;
        }
        return !isCancelled(id);
    };
    auto onProgress = [&](int done, int total) {
        const qint64 now = clock.elapsed();
        if (now - lastProgress >= FlushIntervalMs || done >= total) {
            Q_EMIT promptProgress(id, done, total);
            lastProgress = now;
        }
    };
    auto onPlan = [&](const PromptPlan &plan) {
        Q_EMIT promptPlanned(id, plan);
        clock.restart();
    };
    const GenerationOutcome outcome = m_backend->generate(request, onText, onProgress, onPlan);
    if (!pending.isEmpty())
        Q_EMIT textReady(id, pending, pieces, streamingMs());
    Q_EMIT generationFinished(id, outcome);
}
