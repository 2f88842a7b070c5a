// SseReader: server-sent events (text/event-stream) from bytes as they
// arrive, the way an OpenAI-compatible server streams a chat completion.
// feed() takes any slice of the stream; each complete event's data (its
// "data:" lines joined by "\n") comes back in order. Comments (":") and
// the other fields (event, id, retry) are skipped. A line longer than
// `maxLineBytes` is an error (a server that never ends a line cannot make
// the app hold an unbounded buffer). Cost: each byte is scanned once.
#pragma once

#include <QByteArray>
#include <QList>

class SseReader {
public:
    explicit SseReader(qsizetype maxLineBytes = 4 << 20) : m_maxLine(maxLineBytes) {}

    // Appends `bytes` and returns the events they complete. False (and
    // nothing more read) when a line is too long.
    bool feed(const QByteArray &bytes, QList<QByteArray> *events)
    {
        if (m_failed)
            return false;
        m_pending += bytes;
        qsizetype start = 0;
        for (;;) {
            const qsizetype end = m_pending.indexOf('\n', start);
            if (end < 0)
                break;
            QByteArray line = m_pending.mid(start, end - start);
            start = end + 1;
            if (line.endsWith('\r'))
                line.chop(1);
            takeLine(line, events);
        }
        m_pending.remove(0, start);
        if (m_pending.size() > m_maxLine || m_data.size() > m_maxLine) {
            m_failed = true;
            return false;
        }
        return true;
    }

    // Bytes of a line not ended yet (a stream cut inside an event leaves some).
    bool hasPartial() const { return !m_pending.isEmpty() || m_inEvent; }

private:
    void takeLine(const QByteArray &line, QList<QByteArray> *events)
    {
        if (line.isEmpty()) {
            if (m_inEvent)
                events->append(m_data);
            m_data.clear();
            m_inEvent = false;
            return;
        }
        if (line.startsWith(':'))
            return;
        if (!line.startsWith("data:"))
            return;
        QByteArray value = line.mid(5);
        if (value.startsWith(' '))
            value.remove(0, 1);
        if (m_inEvent)
            m_data += '\n';
        m_data += value;
        m_inEvent = true;
    }

    const qsizetype m_maxLine;
    QByteArray m_pending;   // the line not ended yet
    QByteArray m_data;      // the event being read
    bool m_inEvent = false;
    bool m_failed = false;
};
