// ReplyBuffer: the text a reply has streamed that the GUI thread has not
// taken yet, with the engine's token count and the time since the first
// token. Written on the engine thread (push), read on the GUI thread (take);
// a mutex guards it, held only to append or to swap the text out.
#pragma once

#include <mutex>

#include <QElapsedTimer>
#include <QString>

class ReplyBuffer {
public:
    struct Taken {
        QString text;          // new answer text since the last take
        QString reasoning;     // new reasoning text since the last take
        int tokens = 0;        // generated so far (engine count)
        double elapsedMs = 0;  // since generation started (after the prompt)
    };

    // Engine thread. Returns true when the buffer was empty (the reader
    // should be woken); false when a wake-up is already on its way.
    bool push(const QString &piece, int tokens, double elapsedMs, bool reasoning = false)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        const bool wasEmpty = !m_pending;
        (reasoning ? m_reasoning : m_text) += piece;
        m_tokens = tokens;
        m_elapsedMs = elapsedMs;
        m_pending = true;
        return wasEmpty;
    }

    // GUI thread: everything since the last take (empty texts when none).
    Taken take()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        Taken out{std::move(m_text), std::move(m_reasoning), m_tokens, m_elapsedMs};
        m_text = QString();
        m_reasoning = QString();
        m_pending = false;
        return out;
    }

private:
    std::mutex m_mutex;
    QString m_text;
    QString m_reasoning;
    int m_tokens = 0;
    double m_elapsedMs = 0;
    bool m_pending = false;
};
