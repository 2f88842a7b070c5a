// McpClient: one connection to a Model Context Protocol server (JSON-RPC
// 2.0), on the GUI thread, never blocking it. Two transports:
//   stdio            the server is a program (command, arguments, extra
//                    environment) started with QProcess; one JSON message
//                    per line each way (stdout: messages only; stderr: its
//                    log, of which the last 4 KiB are kept for messages).
//   streamable HTTP  each message is POSTed to the URL; the answer is
//                    application/json (the message) or text/event-stream
//                    (events whose data are messages; the one with our id
//                    answers). The Mcp-Session-Id the server gives at
//                    initialize goes with every later request.
// start() runs initialize, notifications/initialized and tools/list;
// callTool() runs tools/call and gives back the result's text.
//
// Bounds (every byte a server sends is untrusted):
// - one message (a stdio line, an HTTP body, an event) ≤ maxMessageBytes
//   (4 MiB): a larger one fails the call and, on stdio, ends the server
//   (its stream can no longer be trusted to be in step);
// - startup (process start + initialize + tools/list) ≤ startTimeoutMs,
//   each call ≤ callTimeoutMs; a server that hangs is reported, not waited on;
// - a stdio line that is not a JSON-RPC message is skipped (the first is
//   kept, quoted in the message of a call that then times out);
// - a server that ends fails every pending call with its exit status and
//   the end of its log; a later call starts it again;
// - at most MaxTools tools are listed; a tool's result text is cut at
//   maxResultChars (its end replaced by a note).
// Every failure is a sentence for the user (error(), the call's text).
#pragma once

#include <QByteArray>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QUrl>
#include <functional>

class QNetworkAccessManager;
class QProcess;
class QTimer;

// Where a server is: a command (stdio) or a URL (streamable HTTP).
struct McpServerSpec {
    QString name;
    QString command;                 // stdio: the program
    QStringList args;
    QMap<QString, QString> env;      // added to this process's environment
    QUrl url;                        // streamable HTTP (command empty)

    bool isHttp() const { return command.isEmpty(); }
    QJsonObject toJson() const;      // the common {"command","args","env"} | {"url"} shape
    // From that shape; false (and `error`) when it names neither a command nor an http(s) URL.
    static bool fromJson(const QString &name, const QJsonObject &json, McpServerSpec *spec, QString *error);
};

struct McpTool {
    QString name;
    QString description;
    QJsonObject inputSchema;
};

class McpClient : public QObject {
    Q_OBJECT

public:
    enum class State { Stopped, Starting, Ready, Failed };
    Q_ENUM(State)

    static constexpr qint64 MaxMessageBytes = 4 << 20;
    static constexpr int MaxTools = 256;
    static constexpr int MaxStderrBytes = 4096;

    // The text of a call: its content's text parts joined; isError: the
    // server said the tool failed, or the call failed (the text says why).
    using CallDone = std::function<void(const QString &text, bool isError)>;

    explicit McpClient(const McpServerSpec &spec, QObject *parent = nullptr);
    ~McpClient() override;

    const McpServerSpec &spec() const { return m_spec; }
    State state() const { return m_state; }
    QString error() const { return m_error; }
    QList<McpTool> tools() const { return m_tools; }

    void setStartTimeoutMs(int ms) { m_startTimeoutMs = ms; }
    void setCallTimeoutMs(int ms) { m_callTimeoutMs = ms; }
    void setMaxMessageBytes(qint64 bytes) { m_maxMessage = bytes; }
    void setMaxResultChars(int chars) { m_maxResultChars = chars; }

    // Connects (stdio: starts the program) and lists the tools; stateChanged
    // when Ready or Failed. Again after a failure: a fresh start.
    void start();
    // Ends the program / forgets the session; pending calls fail.
    void stop();
    // tools/call with `arguments` (a JSON object). `done` is called once,
    // later (never from inside this call). Starts the server first when it
    // is not running.
    void callTool(const QString &name, const QJsonObject &arguments, CallDone done);

Q_SIGNALS:
    void stateChanged();

private:
    using Answer = std::function<void(const QJsonObject &result, const QString &error)>;
    struct Pending {
        Answer answer;
        QTimer *timer = nullptr;
    };

    void setState(State state, const QString &error = QString());
    void request(const QString &method, const QJsonObject &params, int timeoutMs, Answer answer);
    void notify(const QString &method);
    void send(const QJsonObject &message, qint64 id);
    void initialized(const QJsonObject &result, const QString &error);
    void listed(const QJsonObject &result, const QString &error);
    void takeMessage(const QJsonObject &message);
    void failPending(const QString &error);   // the requests sent
    void failAll(const QString &error);       // and the calls waiting for a start
    void endProcess();
    // Fails what waits, ends the program, State::Failed with `why`.
    void fail(const QString &why);
    void answer(qint64 id, const QJsonObject &result, const QString &error);

    // stdio
    void startProcess();
    void readStdout();
    void processEnded();
    QString stderrTail() const;
    // HTTP
    void post(const QJsonObject &message, qint64 id);

    McpServerSpec m_spec;
    State m_state = State::Stopped;
    QString m_error;
    QList<McpTool> m_tools;
    QHash<qint64, Pending> m_pending;
    qint64 m_nextId = 1;
    QList<std::pair<QString, QPair<QJsonObject, CallDone>>> m_waiting;   // calls made before Ready
    int m_startTimeoutMs = 20000;
    int m_callTimeoutMs = 60000;
    qint64 m_maxMessage = MaxMessageBytes;
    int m_maxResultChars = 256 * 1024;

    QProcess *m_process = nullptr;
    QByteArray m_stdout;          // the line not ended yet
    QByteArray m_stderr;          // the last MaxStderrBytes
    QString m_garbage;            // the first line that was not a message
    bool m_ending = false;        // stop() ends the process: not a failure

    QNetworkAccessManager *m_network = nullptr;
    QByteArray m_session;         // Mcp-Session-Id
    quint64 m_generation = 0;     // a restart makes older answers stale
};
