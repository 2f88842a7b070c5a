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
        QString text;          // new text since the last take
        int tokens = 0;        // generated so far (engine count)
        double elapsedMs = 0;  // since generation started (after the prompt)
    };

    // Engine thread. Returns true when the buffer was empty (the reader
    // should be woken); false when a wake-up is already on its way.
    bool push(const QString &piece, int tokens, double elapsedMs)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        const bool wasEmpty = !m_pending;
        m_text += piece;
        m_tokens = tokens;
        m_elapsedMs = elapsedMs;
        m_pending = true;
        return wasEmpty;
    }

    // GUI thread: everything since the last take (empty text when none).
    Taken take()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        Taken out{std::move(m_text), m_tokens, m_elapsedMs};
        m_text = QString();
        m_pending = false;
        return out;
    }

private:
    std::mutex m_mutex;
    QString m_text;
    int m_tokens = 0;
    double m_elapsedMs = 0;
    bool m_pending = false;
};
