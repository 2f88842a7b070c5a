// EngineBridge: the engine as the GUI thread sees it. It owns the engine
// thread ("burrow-engine") and the EngineWorker on it (which owns the model
// and the KV cache); the GUI thread never touches those. Loads go in as
// queued calls and come back as queued signals. Each reply gets its own
// ReplyHandle (its buffer, its coalesced flush, its cancel token and
// priority): the bridge only routes the engine thread's reports to the
// handle they belong to and keeps no state shared between replies. Streamed
// text is taken from a reply's buffer at most once every flushIntervalMs()
// (33 ms by default, ~30 times a second; the app sets it from what draws
// its window, app/common/renderpacing.h).
//
// It is also the one owner of the context size in use: the positions the
// loaded session's KV cache holds, as the engine reports them.
#pragma once

#include <map>
#include <memory>

#include <QObject>
#include <QPointer>
#include <QThread>

#include "chatbackend.h"
#include "replyhandle.h"
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
    // At least 1 ms; for the replies running and those to come (a take
    // already scheduled keeps its time).
    void setFlushIntervalMs(int ms);

    // Reads a header on the calling thread (thread-safe; the loader runs it on a pool thread).
    const ModelInspector &inspector() const { return m_inspect; }

    // Starts a load; returns its id. Loads and requests run in order.
    quint64 load(const QString &path, int contextSize);
    // Starts a reply and returns its handle (a child of the bridge that
    // deletes itself after its finished(); request.id, request.cancel and
    // request.priorityCell are set here from it). Connect to the handle
    // before control returns to the event loop: nothing is emitted earlier.
    ReplyHandle *generate(ChatRequest request);
    // Cancels a load or a reply (no effect when it has ended).
    void cancel(quint64 id);
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
    void serverStatus(const ServerStatus &status);

private:
    // The reply `id`'s handle while it runs (null when it has ended).
    ReplyHandle *handle(quint64 id) const;

    QThread m_thread;
    EngineWorker *m_worker = nullptr;
    ModelInspector m_inspect;
    quint64 m_nextId = 0;
    std::map<quint64, std::shared_ptr<burrow::CancelToken>> m_loads;   // loads not reported yet
    std::map<quint64, QPointer<ReplyHandle>> m_replies;                  // replies not finished yet
    int m_contextSize = 0;
    int m_flushIntervalMs = DefaultFlushIntervalMs;
    bool m_pollPending = false;     // a pollServer() not answered yet
};
