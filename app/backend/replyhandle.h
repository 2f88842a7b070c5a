// ReplyHandle: one reply as the GUI thread sees it while the engine writes
// it. EngineBridge::generate() makes one per request; whoever shows or
// stores the reply connects to its signals. Each handle owns what used to
// be shared between replies:
//   - its ReplyBuffer (the text the engine thread streamed and the GUI
//     thread has not taken yet);
//   - its coalesced flush: the buffer is taken at most once every
//     flushIntervalMs() (textReady), by its own timer, whatever other
//     replies stream at the same time;
//   - its cancel token and its priority.
// So two or three chats writing at once each get their text, their token
// count and their speed at the same pace as one alone.
//
// Lifetime: a child of the bridge; it emits finished() exactly once (after
// the last textReady) and deletes itself later. A QPointer to it turns null
// then. GUI thread only.
#pragma once

#include <memory>

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include "chatbackend.h"
#include "replybuffer.h"

class ReplyHandle : public QObject {
    Q_OBJECT

public:
    ReplyHandle(quint64 id, int priority, int flushIntervalMs, QObject *parent = nullptr);

    quint64 id() const { return m_id; }
    // Until finished() was emitted.
    bool isRunning() const { return m_running; }

    // Asks the engine to stop (the prompt within one chunk, the reply within
    // one token); finished() follows with Stop::Cancelled (or the outcome
    // reached first).
    void cancel();
    // The reply's priority from now on (ReplyPriority).
    void setPriority(int priority);

    // At least 1 ms; a take already scheduled keeps its time.
    int flushIntervalMs() const { return m_flushIntervalMs; }
    void setFlushIntervalMs(int ms) { m_flushIntervalMs = ms < 1 ? 1 : ms; }

    // What the engine side needs (shared with it; thread-safe objects).
    const std::shared_ptr<ReplyBuffer> &buffer() const { return m_buffer; }
    const std::shared_ptr<burrow::CancelToken> &cancelToken() const { return m_cancel; }
    const std::shared_ptr<ReplyPriorityCell> &priorityCell() const { return m_priority; }

    // ---- called by EngineBridge (GUI thread) ---------------------------------
    // The buffer turned non-empty: take it now, or when the interval since
    // the last take has passed.
    void wake();
    void plan(const PromptPlan &plan) { Q_EMIT planned(plan); }
    void progress(int done, int total) { Q_EMIT promptProgress(done, total); }
    // The reply ended: the text still in the buffer first, then finished().
    void finish(const GenerationOutcome &outcome);

Q_SIGNALS:
    // How the prompt fit (before the first token).
    void planned(const PromptPlan &plan);
    void promptProgress(int done, int total);
    // New text (at most every flushIntervalMs()): of the answer and of the
    // reasoning (either may be empty), the engine's token count so far and
    // the milliseconds since the first token.
    void textReady(const QString &text, const QString &reasoning, int tokens, double elapsedMs);
    void finished(const GenerationOutcome &outcome);

private:
    void deliver();

    const quint64 m_id;
    std::shared_ptr<ReplyBuffer> m_buffer = std::make_shared<ReplyBuffer>();
    std::shared_ptr<burrow::CancelToken> m_cancel = std::make_shared<burrow::CancelToken>();
    std::shared_ptr<ReplyPriorityCell> m_priority;
    int m_flushIntervalMs;
    QTimer m_flushTimer;            // single shot: the next take when the last was too recent
    QElapsedTimer m_sinceFlush;     // invalid until the first take
    bool m_running = true;
};
