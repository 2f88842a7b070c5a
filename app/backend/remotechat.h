// RemoteChat: one reply from an OpenAI-compatible server (POST
// <base>/chat/completions with "stream": true), on the thread of its
// QNetworkAccessManager (the engine thread). It turns the server's
// server-sent events into the ChatBackend sinks a local reply uses: the
// answer (`delta.content`) and the reasoning (`delta.reasoning_content`, or
// `delta.reasoning` as vLLM and Ollama name it) as they arrive, then one
// outcome with the server's token counts (`usage`, asked for with
// stream_options.include_usage) and the speed measured here.
//
// Bounded: the answer's headers must come within Limits::firstByteMs, and
// then something within every Limits::idleMs (a server that hangs ends the
// reply, what arrived kept); a line of the stream is at most
// Limits::maxLine bytes, an error body is read up to Limits::maxErrorBody.
// 429 and 503 before any text are retried after the server's Retry-After
// (at most Limits::retries times, each wait at most Limits::maxRetryAfterS).
// TLS errors are never ignored: the reply fails and says which certificate
// was refused and why. Stop (the request's cancel token, checked every
// 50 ms) closes the connection. Every failure is a sentence for the user.
#pragma once

#include <QElapsedTimer>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QTimer>

#include "chatbackend.h"
#include "remoteendpoints.h"
#include "ssereader.h"

class QNetworkAccessManager;
class QNetworkReply;
class QSslError;

class RemoteChat : public QObject {
    Q_OBJECT

public:
    struct Limits {
        int firstByteMs = 120000;        // sending → the answer's headers (a long prompt on a busy server)
        int idleMs = 60000;              // the longest quiet spell inside a reply
        int retries = 3;                 // 429/503 retried at most this often
        int maxRetryAfterS = 30;         // a longer Retry-After is reported, not waited for
        qsizetype maxErrorBody = 64 << 10;
        qsizetype maxLine = 4 << 20;
    };
    // The limits replies start with from now on (tests shorten them).
    static Limits &limits();

    RemoteChat(QNetworkAccessManager *network, const RemoteEndpoint &endpoint, const QString &modelId,
               const ChatRequest &request, ChatBackend::ReplySinks sinks, QObject *parent = nullptr);
    ~RemoteChat() override;

    // Sends the request (the plan is reported first, as a local reply's).
    void start();
    // The backend goes away: closes the connection, the reply ends Cancelled.
    void abortNow();

    // The JSON body for `request` on `modelId`; `optional` gets the names of
    // the fields sent that a server may refuse (the chat's settings).
    static QJsonObject requestBody(const QString &modelId, const ChatRequest &request, QStringList *optional);
    // The fields of `sent` that a refusal (HTTP 400/422: its body) names.
    static QStringList refusedFields(const QByteArray &body, const QStringList &sent);
    // Seconds a Retry-After header asks for (-1: none or unreadable).
    static int retryAfterSeconds(const QByteArray &header);

Q_SIGNALS:
    // After onDone ran (the object may be deleted then).
    void ended();

private:
    void send();
    void onMetaData();
    void onReadyRead();
    void onFinished();
    void onSslErrors(const QList<QSslError> &errors);
    void onIdleTimeout();
    void checkCancel();
    // One event's data: a chunk, "[DONE]", or an error object.
    void takeEvent(const QByteArray &data);
    void takeDelta(const QString &text, bool reasoning);
    // The reply is over: the sinks' onDone, once.
    void finish(GenerationOutcome::Stop stop, const QString &error = QString());
    void closeReply();
    QString where() const;
    QString httpFailure(int status, const QByteArray &body) const;

    QNetworkAccessManager *m_network;
    RemoteEndpoint m_endpoint;
    QString m_modelId;
    ChatRequest m_request;
    ChatBackend::ReplySinks m_sinks;
    Limits m_limits;
    QByteArray m_body;
    QStringList m_optional;          // the settings sent (a refusal is matched against them)

    QPointer<QNetworkReply> m_reply;
    QTimer m_cancelPoll;
    QTimer m_idle;                   // first byte, then between pieces
    QTimer m_retryWait;
    SseReader m_sse;
    bool m_streaming = false;        // a 2xx event stream is being read
    bool m_plainJson = false;        // a 2xx answer that is not a stream (the server ignored "stream")
    QByteArray m_errorBody;          // a non-2xx answer's body (bounded)
    int m_status = 0;
    int m_attempt = 0;
    QString m_tlsError;              // the refused certificate, in words (null when none was)
    QString m_tlsReasons;            // why it was refused
    bool m_timedOut = false;
    bool m_cancelled = false;
    bool m_done = false;
    bool m_sawDone = false;          // "[DONE]" or a finish_reason arrived
    QString m_finishReason;

    QElapsedTimer m_clock;
    double m_firstTokenMs = -1;      // since sending (m_clock)
    double m_lastTokenMs = -1;
    double m_reasoningStartMs = -1;
    double m_reasoningEndMs = -1;
    double m_serverGenerateMs = -1;  // llama-server's timings.predicted_ms, when sent
    int m_pieces = 0;                // content and reasoning pieces (the count while streaming)
    int m_reasoningPieces = 0;
    int m_promptTokens = -1;         // from usage
    int m_cachedTokens = 0;
    int m_completionTokens = -1;
    int m_reasoningTokens = -1;
};
