// EngineWorker: owns the ChatBackend (model, scheduler, KV cache) and drives
// it from the engine thread (loads, prompts, submits; the replies themselves
// run on the scheduler's thread). EngineBridge (GUI thread) invokes its slots queued
// and hears back through queued signals; nothing else reaches it.
//
// Streamed text does not travel as one signal per piece: the worker appends
// each piece to the request's ReplyBuffer and wakes the bridge with one
// queued call only when the buffer was empty, so the GUI thread is woken at
// most as often as it empties the buffer (EngineBridge: ~60 times a second),
// however fast the model runs, and a piece never waits for the next one.
#pragma once

#include <memory>

#include <QObject>

#include "chatbackend.h"
#include "replybuffer.h"
#include "serverconfig.h"

class EngineWorker : public QObject {
    Q_OBJECT

public:
    explicit EngineWorker(std::unique_ptr<ChatBackend> backend, QObject *parent = nullptr);
    ~EngineWorker() override;

    // Minimum time between two progress emissions (loading, prompt).
    static constexpr int ProgressIntervalMs = 16;

    // Runs on the engine thread: a load, cancelled when `cancel` is.
    void loadModel(quint64 id, const QString &path, int contextSize, std::shared_ptr<burrow::CancelToken> cancel);
    // Runs on the engine thread: starts the reply and returns; it streams
    // into `buffer` (from the backend's thread) and `wake` is called there
    // when the buffer turns non-empty.
    void generate(const ChatRequest &request, std::shared_ptr<ReplyBuffer> buffer, std::function<void()> wake);

    // Runs on the engine thread: the local server (Settings → Local server).
    void configureServer(const ServerConfig &config);
    void pollServer();

Q_SIGNALS:
    void serverStatus(const ServerStatus &status);
    void loadProgress(quint64 id, double progress);
    void modelLoaded(quint64 id, const ModelCard &card);
    void loadFailed(quint64 id, const QString &path, const QString &reason);
    // The session's KV cache holds `size` positions now (after a load or a
    // request that asked for another size).
    void contextSizeChanged(int size);
    void promptPlanned(quint64 id, const PromptPlan &plan);
    void promptProgress(quint64 id, int done, int total);
    // After the last piece went into the buffer (emitted from the thread
    // that ran the reply; delivered queued).
    void generationFinished(quint64 id, const GenerationOutcome &outcome);

private:
    void reportContextSize();

    std::unique_ptr<ChatBackend> m_backend;
    int m_contextSize = 0;
};
