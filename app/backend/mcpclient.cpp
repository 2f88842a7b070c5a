#include "mcpclient.h"

#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTimer>

#include "common/logging.h"
#include "ssereader.h"

namespace {

constexpr auto ProtocolVersion = "2025-03-26";

QString quoted(QString text)
{
    text = text.simplified();
    if (text.size() > 80)
        text = text.left(77) + QStringLiteral("…");
    return QLatin1Char('"') + text + QLatin1Char('"');
}

} // namespace

// ---- McpServerSpec -----------------------------------------------------------

QJsonObject McpServerSpec::toJson() const
{
    if (isHttp())
        return {{QStringLiteral("url"), url.toString()}};
    QJsonObject environment;
    for (auto it = env.cbegin(); it != env.cend(); ++it)
        environment.insert(it.key(), it.value());
    QJsonObject o{{QStringLiteral("command"), command}, {QStringLiteral("args"), QJsonArray::fromStringList(args)}};
    if (!environment.isEmpty())
        o.insert(QStringLiteral("env"), environment);
    return o;
}

bool McpServerSpec::fromJson(const QString &name, const QJsonObject &json, McpServerSpec *spec, QString *error)
{
    McpServerSpec s;
    s.name = name;
    if (json.value(QLatin1String("command")).isString()) {
        s.command = json.value(QLatin1String("command")).toString().trimmed();
        for (const QJsonValue &a : json.value(QLatin1String("args")).toArray())
            s.args << a.toString();
        const QJsonObject env = json.value(QLatin1String("env")).toObject();
        for (auto it = env.constBegin(); it != env.constEnd(); ++it)
            s.env.insert(it.key(), it.value().toString());
        if (s.command.isEmpty()) {
            *error = QObject::tr("the server \"%1\" has an empty command").arg(name);
            return false;
        }
    } else {
        s.url = QUrl(json.value(QLatin1String("url")).toString().trimmed(), QUrl::StrictMode);
        const QString scheme = s.url.scheme();
        if (!s.url.isValid() || s.url.host().isEmpty() || (scheme != QLatin1String("http") && scheme != QLatin1String("https"))) {
            *error = QObject::tr("the server \"%1\" names neither a command nor an http(s) URL").arg(name);
            return false;
        }
    }
    *spec = s;
    return true;
}

// ---- McpClient ---------------------------------------------------------------

McpClient::McpClient(const McpServerSpec &spec, QObject *parent) : QObject(parent), m_spec(spec)
{
}

McpClient::~McpClient()
{
    m_ending = true;
    if (m_process) {
        disconnect(m_process, nullptr, this, nullptr);
        m_process->kill();
        m_process->waitForFinished(1000);
    }
}

void McpClient::setState(State state, const QString &error)
{
    m_state = state;
    m_error = error;
    Q_EMIT stateChanged();
}

void McpClient::start()
{
    failPending(tr("the tool server was started again"));
    endProcess();
    ++m_generation;
    m_tools.clear();
    m_garbage.clear();
    m_stderr.clear();
    m_session.clear();
    setState(State::Starting);
    if (m_spec.isHttp()) {
        if (!m_network) {
            m_network = new QNetworkAccessManager(this);
            m_network->setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
        }
    } else {
        startProcess();
        if (m_state != State::Starting)
            return;
    }
    const QJsonObject params{
        {QStringLiteral("protocolVersion"), QLatin1String(ProtocolVersion)},
        {QStringLiteral("capabilities"), QJsonObject()},
        {QStringLiteral("clientInfo"), QJsonObject{{QStringLiteral("name"), QStringLiteral("Burrow")},
                                                   {QStringLiteral("version"), QStringLiteral("1")}}}};
    request(QStringLiteral("initialize"), params, m_startTimeoutMs,
            [this](const QJsonObject &result, const QString &error) { initialized(result, error); });
}

void McpClient::stop()
{
    failAll(tr("the tool server was stopped"));
    endProcess();
    if (m_state != State::Stopped && m_state != State::Failed)
        setState(State::Stopped);
}

void McpClient::endProcess()
{
    if (m_process) {
        m_ending = true;
        disconnect(m_process, nullptr, this, nullptr);
        m_process->kill();
        m_process->waitForFinished(1000);
        m_process->deleteLater();
        m_process = nullptr;
        m_ending = false;
    }
    m_stdout.clear();
}

void McpClient::fail(const QString &why)
{
    failAll(why);
    endProcess();
    setState(State::Failed, why);
}

void McpClient::initialized(const QJsonObject &result, const QString &error)
{
    Q_UNUSED(result);
    if (!error.isEmpty()) {
        fail(error);
        return;
    }
    notify(QStringLiteral("notifications/initialized"));
    request(QStringLiteral("tools/list"), {}, m_startTimeoutMs,
            [this](const QJsonObject &r, const QString &e) { listed(r, e); });
}

void McpClient::listed(const QJsonObject &result, const QString &error)
{
    if (!error.isEmpty()) {
        fail(error);
        return;
    }
    m_tools.clear();
    for (const QJsonValue &v : result.value(QLatin1String("tools")).toArray()) {
        const QJsonObject t = v.toObject();
        McpTool tool;
        tool.name = t.value(QLatin1String("name")).toString();
        tool.description = t.value(QLatin1String("description")).toString().left(4096);
        tool.inputSchema = t.value(QLatin1String("inputSchema")).toObject();
        if (tool.name.isEmpty() || tool.name.size() > 64)
            continue;
        m_tools.append(tool);
        if (m_tools.size() >= MaxTools)
            break;
    }
    setState(State::Ready);
    const auto waiting = std::exchange(m_waiting, {});
    for (const auto &w : waiting)
        callTool(w.first, w.second.first, w.second.second);
}

void McpClient::callTool(const QString &name, const QJsonObject &arguments, CallDone done)
{
    if (m_state != State::Ready) {
        m_waiting.append({name, {arguments, std::move(done)}});
        if (m_state != State::Starting)
            start();
        return;
    }
    const QJsonObject params{{QStringLiteral("name"), name}, {QStringLiteral("arguments"), arguments}};
    const int maxChars = m_maxResultChars;
    request(QStringLiteral("tools/call"), params, m_callTimeoutMs,
            [done = std::move(done), maxChars](const QJsonObject &result, const QString &error) {
                if (!error.isEmpty()) {
                    done(error, true);
                    return;
                }
                QStringList parts;
                for (const QJsonValue &v : result.value(QLatin1String("content")).toArray()) {
                    const QJsonObject c = v.toObject();
                    const QString type = c.value(QLatin1String("type")).toString();
                    if (type == QLatin1String("text"))
                        parts << c.value(QLatin1String("text")).toString();
                    else
                        parts << tr("[%1 content, not shown]").arg(type.left(32));
                }
                if (parts.isEmpty() && result.contains(QLatin1String("structuredContent")))
                    parts << QString::fromUtf8(QJsonDocument(result.value(QLatin1String("structuredContent")).toObject())
                                                   .toJson(QJsonDocument::Compact));
                QString text = parts.join(QLatin1Char('\n'));
                if (text.size() > maxChars)
                    text = text.left(maxChars) + QLatin1Char('\n')
                           + tr("[the result was cut here: it had %n characters]", nullptr, int(text.size()));
                done(text, result.value(QLatin1String("isError")).toBool());
            });
}

// ---- JSON-RPC --------------------------------------------------------------

void McpClient::request(const QString &method, const QJsonObject &params, int timeoutMs, Answer onAnswer)
{
    const qint64 id = m_nextId++;
    QJsonObject message{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                        {QStringLiteral("id"), id},
                        {QStringLiteral("method"), method}};
    if (!params.isEmpty() || method == QLatin1String("tools/list"))
        message.insert(QStringLiteral("params"), params);
    Pending p;
    p.answer = std::move(onAnswer);
    p.timer = new QTimer(this);
    p.timer->setSingleShot(true);
    connect(p.timer, &QTimer::timeout, this, [this, id, timeoutMs, method] {
        QString why = tr("the tool server did not answer %1 within %2 s").arg(method).arg(timeoutMs / 1000.0);
        if (!m_garbage.isEmpty())
            why += QStringLiteral(" ") + tr("(it wrote text that is not a JSON-RPC message: %1)").arg(m_garbage);
        answer(id, {}, why);
    });
    p.timer->start(timeoutMs);
    m_pending.insert(id, std::move(p));
    send(message, id);
}

void McpClient::notify(const QString &method)
{
    send(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("method"), method}}, -1);
}

void McpClient::send(const QJsonObject &message, qint64 id)
{
    if (m_spec.isHttp()) {
        post(message, id);
        return;
    }
    if (!m_process)
        return;
    m_process->write(QJsonDocument(message).toJson(QJsonDocument::Compact) + '\n');
}

void McpClient::answer(qint64 id, const QJsonObject &result, const QString &error)
{
    auto it = m_pending.find(id);
    if (it == m_pending.end())
        return;
    Pending p = std::move(it.value());
    m_pending.erase(it);
    p.timer->stop();
    p.timer->deleteLater();
    // Later, not from inside the caller's stack (a read, a timer).
    QTimer::singleShot(0, this, [done = std::move(p.answer), result, error] { done(result, error); });
}

void McpClient::failPending(const QString &error)
{
    const QList<qint64> ids = m_pending.keys();
    for (qint64 id : ids)
        answer(id, {}, error);
}

void McpClient::failAll(const QString &error)
{
    failPending(error);
    const auto waiting = std::exchange(m_waiting, {});
    for (const auto &w : waiting)
        QTimer::singleShot(0, this, [done = w.second.second, error] { done(error, true); });
}

void McpClient::takeMessage(const QJsonObject &message)
{
    const QJsonValue idValue = message.value(QLatin1String("id"));
    if (!idValue.isDouble() || message.contains(QLatin1String("method")))
        return;   // a notification or a request of the server's (this client offers none)
    const qint64 id = qint64(idValue.toDouble());
    if (message.contains(QLatin1String("error"))) {
        const QJsonObject e = message.value(QLatin1String("error")).toObject();
        answer(id, {}, tr("the tool server refused: %1").arg(e.value(QLatin1String("message")).toString().left(500)));
        return;
    }
    answer(id, message.value(QLatin1String("result")).toObject(), QString());
}

// ---- stdio -------------------------------------------------------------------

void McpClient::startProcess()
{
    m_process = new QProcess(this);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (auto it = m_spec.env.cbegin(); it != m_spec.env.cend(); ++it)
        env.insert(it.key(), it.value());
    m_process->setProcessEnvironment(env);
    connect(m_process, &QProcess::readyReadStandardOutput, this, &McpClient::readStdout);
    connect(m_process, &QProcess::readyReadStandardError, this, [this] {
        m_stderr += m_process->readAllStandardError();
        if (m_stderr.size() > MaxStderrBytes)
            m_stderr = m_stderr.right(MaxStderrBytes);
    });
    connect(m_process, &QProcess::finished, this, &McpClient::processEnded);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            processEnded();
    });
    qCInfo(lcApp) << "tool server" << m_spec.name << "starts:" << m_spec.command << m_spec.args;
    m_process->start(m_spec.command, m_spec.args);
}

void McpClient::readStdout()
{
    if (!m_process)
        return;
    m_stdout += m_process->readAllStandardOutput();
    qsizetype start = 0;
    for (;;) {
        const qsizetype end = m_stdout.indexOf('\n', start);
        if (end < 0)
            break;
        if (end - start > m_maxMessage) {
            m_stdout = m_stdout.mid(start);   // over the bound: failed below
            start = 0;
            break;
        }
        const QByteArray line = m_stdout.mid(start, end - start).trimmed();
        start = end + 1;
        if (line.isEmpty())
            continue;
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(line, &parseError);
        if (!doc.isObject()) {
            if (m_garbage.isEmpty())
                m_garbage = quoted(QString::fromUtf8(line.left(200)));
            qCWarning(lcApp) << "tool server" << m_spec.name << "wrote a line that is not JSON-RPC";
            continue;
        }
        takeMessage(doc.object());
        if (!m_process)
            return;
    }
    m_stdout.remove(0, start);
    if (m_stdout.size() > m_maxMessage) {
        fail(tr("the tool server sent a message over %1 MiB; it was stopped").arg(m_maxMessage / double(1 << 20)));
    }
}

QString McpClient::stderrTail() const
{
    const QString tail = QString::fromUtf8(m_stderr).trimmed();
    const QStringList lines = tail.split(QLatin1Char('\n'));
    return lines.isEmpty() ? QString() : lines.last().left(300);
}

void McpClient::processEnded()
{
    if (m_ending || !m_process)
        return;
    m_stderr += m_process->readAllStandardError();
    if (m_stderr.size() > MaxStderrBytes)
        m_stderr = m_stderr.right(MaxStderrBytes);
    QString why;
    if (m_process->error() == QProcess::FailedToStart)
        why = tr("the tool server \"%1\" could not be started: %2").arg(m_spec.command, m_process->errorString());
    else
        why = tr("the tool server ended (exit status %1)").arg(m_process->exitCode());
    const QString tail = stderrTail();
    if (!tail.isEmpty())
        why += QStringLiteral(": ") + tail;
    qCWarning(lcApp) << "tool server" << m_spec.name << why;
    m_process->deleteLater();
    m_process = nullptr;
    m_stdout.clear();
    failAll(why);
    setState(State::Failed, why);
}

// ---- streamable HTTP -----------------------------------------------------------

void McpClient::post(const QJsonObject &message, qint64 id)
{
    QNetworkRequest request(m_spec.url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    request.setRawHeader("Accept", "application/json, text/event-stream");
    request.setRawHeader("MCP-Protocol-Version", ProtocolVersion);
    if (!m_session.isEmpty())
        request.setRawHeader("Mcp-Session-Id", m_session);
    QNetworkReply *reply = m_network->post(request, QJsonDocument(message).toJson(QJsonDocument::Compact));
    const quint64 generation = m_generation;
    auto sse = std::make_shared<SseReader>(m_maxMessage);
    auto body = std::make_shared<QByteArray>();
    const bool isInitialize = message.value(QLatin1String("method")).toString() == QLatin1String("initialize");
    // Answers of an earlier start (or a stopped client) are dropped with the reply.
    connect(reply, &QNetworkReply::readyRead, this, [this, reply, generation, sse, body, id] {
        if (generation != m_generation) {
            reply->abort();
            return;
        }
        const QByteArray bytes = reply->readAll();
        const bool stream = reply->header(QNetworkRequest::ContentTypeHeader).toString().startsWith(
            QLatin1String("text/event-stream"));
        if (!stream) {
            *body += bytes;
            if (body->size() > m_maxMessage) {
                answer(id, {}, tr("the tool server sent a message over %1 MiB").arg(m_maxMessage / double(1 << 20)));
                reply->abort();
            }
            return;
        }
        QList<QByteArray> events;
        if (!sse->feed(bytes, &events)) {
            answer(id, {}, tr("the tool server sent a message over %1 MiB").arg(m_maxMessage / double(1 << 20)));
            reply->abort();
            return;
        }
        for (const QByteArray &event : std::as_const(events)) {
            const QJsonDocument doc = QJsonDocument::fromJson(event);
            if (doc.isObject())
                takeMessage(doc.object());
        }
        if (id >= 0 && !m_pending.contains(id))
            reply->abort();   // answered: the stream is not needed any more
    });
    connect(reply, &QNetworkReply::finished, this, [this, reply, generation, body, id, isInitialize] {
        reply->deleteLater();
        if (generation != m_generation || id < 0)
            return;
        if (isInitialize && reply->hasRawHeader("Mcp-Session-Id"))
            m_session = reply->rawHeader("Mcp-Session-Id").left(256);
        if (!m_pending.contains(id))
            return;
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (reply->error() != QNetworkReply::NoError && status == 0) {
            answer(id, {}, tr("the tool server cannot be reached: %1").arg(reply->errorString()));
            return;
        }
        if (status < 200 || status >= 300) {
            answer(id, {}, tr("the tool server answered HTTP %1").arg(status));
            return;
        }
        if (!body->isEmpty()) {
            const QJsonDocument doc = QJsonDocument::fromJson(*body);
            if (doc.isObject())
                takeMessage(doc.object());
            else if (doc.isArray() && !doc.array().isEmpty())
                takeMessage(doc.array().first().toObject());
        }
        if (m_pending.contains(id))
            answer(id, {}, tr("the tool server's answer is not a JSON-RPC message"));
    });
}
