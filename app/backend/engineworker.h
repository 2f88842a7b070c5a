// EngineWorker: owns the ChatBackend (model, KV cache, sampler) and runs it
// on the engine thread. The GUI thread talks to it only through queued
// invocations of its slots and queued signals back; cancelUpTo() is the one
// thread-safe call (an atomic, no lock is shared with the token loop).
//
// Each streamed piece is one queued textReady signal (cheap: a short string);
// ChatController coalesces them with a 16 ms timer, so the view updates at
// most ~60 times a second however fast the model runs, and a piece is never
// held back waiting for the next one.
#pragma once

#include <atomic>
#include <memory>

#include <QObject>

#include "chatbackend.h"

class EngineWorker : public QObject {
    Q_OBJECT

public:
    explicit EngineWorker(std::unique_ptr<ChatBackend> backend, QObject *parent = nullptr);
    ~EngineWorker() override;

    // Thread-safe: every request and load whose id is <= `id` stops within one
    // token (or one progress step) and reports Stop::Cancelled / a cancelled load.
    void cancelUpTo(quint64 id);

    // Minimum time between two progress emissions (loading, prompt).
    static constexpr int ProgressIntervalMs = 16;

public Q_SLOTS:
    void loadModel(quint64 id, const QString &path, int contextSize);
    void generate(const GenerationRequest &request);

Q_SIGNALS:
    void loadProgress(quint64 id, double progress);
    void modelLoaded(quint64 id, const ModelCard &card);
    void loadFailed(quint64 id, const QString &path, const QString &reason);
    void promptPlanned(quint64 id, const PromptPlan &plan);
    void promptProgress(quint64 id, int done, int total);
    // `text` is new text to append; `pieces` counts the pieces streamed so far,
    // `elapsedMs` is the time since the first piece.
    void textReady(quint64 id, const QString &text, int pieces, double elapsedMs);
    void generationFinished(quint64 id, const GenerationOutcome &outcome);

private:
    bool isCancelled(quint64 id) const { return id <= m_cancelUpTo.load(std::memory_order_relaxed); }

    std::unique_ptr<ChatBackend> m_backend;
    std::atomic<quint64> m_cancelUpTo{0};
};
