// EngineBridge: the engine as the GUI thread sees it. It owns the engine
// thread ("burrow-engine") and the EngineWorker on it (which owns the model
// and the KV cache); the GUI thread never touches those. Requests go in as
// queued calls, each with its own cancel token; results come back as queued
// signals. Streamed text is taken from the request's ReplyBuffer at most
// once every flushIntervalMs() (33 ms by default, ~30 times a second; the app
// sets it from what draws its window, app/common/renderpacing.h).
//
// It is also the one owner of the context size in use: the positions the
// loaded session's KV cache holds, as the engine reports them.
#pragma once

#include <map>
#include <memory>

#include <QElapsedTimer>
#include <QObject>
#include <QThread>
#include <QTimer>

#include "chatbackend.h"
#include "replybuffer.h"
#include "serverconfig.h"

class EngineWorker;

class EngineBridge : public QObject {
    Q_OBJECT

public:
    explicit EngineBridge(QObject *parent = nullptr);
    // Cancels everything running (a prompt stops within one chunk, a reply
    // within one token, a load at its next progress step), then waits for
    // the engine thread: the one time the GUI thread waits for it.
    ~EngineBridge() override;

    // Tests: the backend for bridges created from now on (default: the engine).
    static void setBackendFactory(const BackendFactory &factory);
    static void resetBackendFactory();

    static constexpr int DefaultFlushIntervalMs = 33;
    int flushIntervalMs() const { return m_flushIntervalMs; }
    // At least 1 ms; a take already scheduled keeps its time.
    void setFlushIntervalMs(int ms) { m_flushIntervalMs = ms < 1 ? 1 : ms; }

    // Reads a header on the calling thread (thread-safe; the loader runs it on a pool thread).
    const ModelInspector &inspector() const { return m_inspect; }

    // Starts a load; returns its id. Loads and requests run in order.
    quint64 load(const QString &path, int contextSize);
    // Starts a reply; returns its id (request.id and request.cancel are set here).
    quint64 generate(ChatRequest request);
    // Cancels a load or a request (no effect when it has ended).
    void cancel(quint64 id);
    // A running reply's priority (ReplyPriority; no effect when it has ended).
    void setPriority(quint64 id, int priority);
    void cancelAll();

    // The local server: applied on the engine thread (serverStatus answers).
    void configureServer(const ServerConfig &config);
    // Asks for the server's numbers (no second ask while one is on its way).
    void pollServer();

    // Positions one reply may use (the scheduler's context; 0: none loaded).
    int contextSize() const { return m_contextSize; }

Q_SIGNALS:
    void loadProgress(quint64 id, double progress);
    void modelLoaded(quint64 id, const ModelCard &card);
    void loadFailed(quint64 id, const QString &path, const QString &reason);
    void contextSizeChanged();
    void promptPlanned(quint64 id, const PromptPlan &plan);
    void promptProgress(quint64 id, int done, int total);
    // New text of a reply (at most every flushIntervalMs()): of its answer and
    // of its reasoning (either may be empty), the engine's token count so far
    // and the milliseconds since its first token.
    void textReady(quint64 id, const QString &text, const QString &reasoning, int tokens, double elapsedMs);
    void generationFinished(quint64 id, const GenerationOutcome &outcome);
    void serverStatus(const ServerStatus &status);

private:
    struct Running {
        std::shared_ptr<burrow::CancelToken> cancel;
        std::shared_ptr<ReplyBuffer> buffer;    // null for a load
        std::shared_ptr<ReplyPriorityCell> priority;   // null for a load
    };
    void wakeUp(quint64 id);
    void deliver(quint64 id);

    QThread m_thread;
    EngineWorker *m_worker = nullptr;
    ModelInspector m_inspect;
    quint64 m_nextId = 0;
    std::map<quint64, Running> m_running;
    int m_contextSize = 0;
    int m_flushIntervalMs = DefaultFlushIntervalMs;
    QTimer m_flushTimer;            // single shot: the next take when the last was too recent
    QElapsedTimer m_sinceFlush;
    quint64 m_flushPending = 0;     // the request whose text waits for m_flushTimer
    bool m_pollPending = false;     // a pollServer() not answered yet
};
