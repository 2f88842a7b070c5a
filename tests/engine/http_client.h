// A small blocking HTTP/1.1 client over QTcpSocket for the server's tests:
// exact bytes out (hostile requests are written by hand), one response in
// (Content-Length, chunked, or until close; a 100 Continue skipped), and the
// SSE events of a stream's body. Used by tst_server_http and the
// burrow-cli serve tests.
#pragma once

#include <QByteArray>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QTcpSocket>

#include <algorithm>

namespace burrow::test {

struct Reply {
    int status = 0;
    QMap<QByteArray, QByteArray> headers;   // lower-case names
    QByteArray body;                        // de-chunked
    bool closed = false;                    // the server closed the connection
};

// Reads one HTTP response from `s` (Content-Length, chunked, or until close).
inline bool readReply(QTcpSocket &s, Reply *r, int timeoutMs = 10000)
{
    QByteArray buf;
    QElapsedTimer t;
    t.start();
    const auto more = [&]() {
        if (s.bytesAvailable() == 0 && !s.waitForReadyRead(std::max(1, int(timeoutMs - t.elapsed())))) {
            r->closed = s.state() != QAbstractSocket::ConnectedState;
            return false;
        }
        buf += s.readAll();
        return true;
    };
    int headerEnd;
    while ((headerEnd = buf.indexOf("\r\n\r\n")) < 0)
        if (!more())
            return false;
    const QList<QByteArray> lines = buf.left(headerEnd).split('\n');
    const QList<QByteArray> statusLine = lines[0].trimmed().split(' ');
    if (statusLine.size() < 2)
        return false;
    r->status = statusLine[1].toInt();
    for (int i = 1; i < lines.size(); ++i) {
        const int colon = lines[i].indexOf(':');
        if (colon > 0)
            r->headers[lines[i].left(colon).trimmed().toLower()] = lines[i].mid(colon + 1).trimmed();
    }
    buf.remove(0, headerEnd + 4);
    if (r->status == 100) {   // 100 Continue: the real answer follows
        r->headers.clear();
        return readReply(s, r, timeoutMs);
    }
    if (r->headers.value("transfer-encoding") == "chunked") {
        for (;;) {
            int lineEnd;
            while ((lineEnd = buf.indexOf("\r\n")) < 0)
                if (!more())
                    return false;
            bool ok = false;
            const int size = buf.left(lineEnd).toInt(&ok, 16);
            if (!ok)
                return false;
            while (buf.size() < lineEnd + 2 + size + 2)
                if (!more())
                    return false;
            r->body += buf.mid(lineEnd + 2, size);
            buf.remove(0, lineEnd + 2 + size + 2);
            if (size == 0)
                return true;
        }
    }
    if (r->headers.contains("content-length")) {
        const int n = r->headers.value("content-length").toInt();
        while (buf.size() < n)
            if (!more())
                return false;
        r->body = buf.left(n);
        return true;
    }
    while (more()) {
    }
    r->body = buf;
    return true;
}

inline QJsonObject jsonObject(const QByteArray &body)
{
    return QJsonDocument::fromJson(body).object();
}

// "METHOD path HTTP/1.1" with Host (none when empty), the extra header
// lines, and a JSON body with its Content-Length (always for POST).
inline QByteArray httpRequest(const QByteArray &method, const QByteArray &path, const QByteArray &body = {},
                              const QByteArray &extraHeaders = {}, const QByteArray &host = "127.0.0.1")
{
    QByteArray r = method + " " + path + " HTTP/1.1\r\n";
    if (!host.isEmpty())
        r += "Host: " + host + "\r\n";
    r += extraHeaders;
    if (!body.isEmpty() || method == "POST")
        r += "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n";
    return r + "\r\n" + body;
}

// One request on a new connection to 127.0.0.1:port, its response.
inline Reply httpExchange(const QByteArray &raw, int port, int timeoutMs = 30000)
{
    QTcpSocket s;
    Reply r;
    s.connectToHost(QStringLiteral("127.0.0.1"), static_cast<quint16>(port));
    if (!s.waitForConnected(5000))
        return r;
    s.write(raw);
    s.flush();
    readReply(s, &r, timeoutMs);
    return r;
}

// The data: payloads of an SSE body (comments counted apart); false when a
// line is neither or an event does not end with a blank line.
inline bool sseEvents(const QByteArray &body, QList<QByteArray> *data, int *comments)
{
    *comments = 0;
    const QList<QByteArray> blocks = body.split('\n');
    for (int i = 0; i < blocks.size(); ++i) {
        if (blocks[i].isEmpty())
            continue;
        if (i + 1 >= blocks.size() || !blocks[i + 1].isEmpty())
            return false;
        if (blocks[i].startsWith(':'))
            ++*comments;
        else if (blocks[i].startsWith("data: "))
            data->push_back(blocks[i].mid(6));
        else
            return false;
    }
    return true;
}

} // namespace burrow::test
