#include "remotechat.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QRegularExpression>

#if QT_CONFIG(ssl)
#include <QSslCertificate>
#include <QSslError>
#endif

#include "common/logging.h"

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("RemoteChat", text);
}

QString fromStd(const std::string &s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

// The server's own words from an error body ({"error": {"message": …}},
// {"error": "…"}, {"detail": …}, or the text), at most 300 characters.
QString serverMessage(const QByteArray &body)
{
    const QJsonObject o = QJsonDocument::fromJson(body).object();
    QString text;
    const QJsonValue error = o.value(QLatin1String("error"));
    if (error.isObject())
        text = error.toObject().value(QLatin1String("message")).toString();
    else if (error.isString())
        text = error.toString();
    else if (o.value(QLatin1String("detail")).isString())
        text = o.value(QLatin1String("detail")).toString();
    else if (o.value(QLatin1String("message")).isString())
        text = o.value(QLatin1String("message")).toString();
    if (text.isEmpty() && !body.trimmed().startsWith('{') && !body.trimmed().startsWith('<'))
        text = QString::fromUtf8(body).simplified();
    text = text.simplified();
    if (text.size() > 300)
        text = text.left(300) + QChar(0x2026);
    return text;
}

int jsonInt(const QJsonObject &o, const char *key, int fallback = -1)
{
    const QJsonValue v = o.value(QLatin1String(key));
    return v.isDouble() ? int(qBound(0.0, v.toDouble(), 2e9)) : fallback;
}

} // namespace

RemoteChat::Limits &RemoteChat::limits()
{
    static Limits limits;
    return limits;
}

RemoteChat::RemoteChat(QNetworkAccessManager *network, const RemoteEndpoint &endpoint, const QString &modelId,
                       const ChatRequest &request, ChatBackend::ReplySinks sinks, QObject *parent)
    : QObject(parent), m_network(network), m_endpoint(endpoint), m_modelId(modelId), m_request(request),
      m_sinks(std::move(sinks)), m_limits(limits()), m_sse(limits().maxLine)
{
    m_body = QJsonDocument(requestBody(modelId, request, &m_optional)).toJson(QJsonDocument::Compact);
    m_cancelPoll.setInterval(50);
    connect(&m_cancelPoll, &QTimer::timeout, this, &RemoteChat::checkCancel);
    m_idle.setSingleShot(true);
    connect(&m_idle, &QTimer::timeout, this, &RemoteChat::onIdleTimeout);
    m_retryWait.setSingleShot(true);
    connect(&m_retryWait, &QTimer::timeout, this, &RemoteChat::send);
}

RemoteChat::~RemoteChat()
{
    closeReply();
}

QJsonObject RemoteChat::requestBody(const QString &modelId, const ChatRequest &request, QStringList *optional)
{
    QJsonArray messages;
    if (!request.settings.systemPrompt.empty())
        messages.append(QJsonObject{{QStringLiteral("role"), QStringLiteral("system")},
                                    {QStringLiteral("content"), fromStd(request.settings.systemPrompt)}});
    for (const burrow::ChatMessage &m : request.messages) {
        QJsonObject message{{QStringLiteral("role"), fromStd(m.role)}, {QStringLiteral("content"), fromStd(m.content)}};
        // A chat's earlier tool calls and results (tool_calls, tool_call_id, name: OpenAI's own fields).
        if (!m.extraJson.empty()) {
            const QJsonObject extra = QJsonDocument::fromJson(QByteArray::fromStdString(m.extraJson)).object();
            for (auto it = extra.constBegin(); it != extra.constEnd(); ++it)
                message.insert(it.key(), it.value());
        }
        messages.append(message);
    }
    QJsonObject body{
        {QStringLiteral("model"), modelId},
        {QStringLiteral("messages"), messages},
        {QStringLiteral("stream"), true},
        {QStringLiteral("stream_options"), QJsonObject{{QStringLiteral("include_usage"), true}}},
    };
    // The chat's settings: each sent only where it does something, so a
    // server that knows fewer fields is asked for as few as possible.
    const burrow::SamplingParams &s = request.settings.sampling;
    const auto put = [&](const char *name, const QJsonValue &value) {
        body.insert(QLatin1String(name), value);
        optional->append(QLatin1String(name));
    };
    put("temperature", double(qMax(0.0f, s.temperature)));
    if (s.topP < 1.0f)
        put("top_p", double(s.topP));
    if (s.topK > 0)
        put("top_k", s.topK);
    if (s.minP > 0.0f)
        put("min_p", double(s.minP));
    if (s.typicalP < 1.0f)
        put("typical_p", double(s.typicalP));
    if (s.repeatPenalty != 1.0f)
        put("repeat_penalty", double(s.repeatPenalty));
    if (s.frequencyPenalty != 0.0f)
        put("frequency_penalty", double(s.frequencyPenalty));
    if (s.presencePenalty != 0.0f)
        put("presence_penalty", double(s.presencePenalty));
    if (s.mirostat != 0) {
        put("mirostat", s.mirostat);
        put("mirostat_tau", double(s.mirostatTau));
        put("mirostat_eta", double(s.mirostatEta));
    }
    if (s.seed != 0xFFFFFFFFu)
        put("seed", qint64(s.seed));
    if (request.settings.maxTokens > 0)
        put("max_tokens", request.settings.maxTokens);
    if (!request.settings.enableThinking)
        put("chat_template_kwargs", QJsonObject{{QStringLiteral("enable_thinking"), false}});
    if (request.settings.reasoningEffort != "medium" && !request.settings.reasoningEffort.empty())
        put("reasoning_effort", fromStd(request.settings.reasoningEffort));
    return body;
}

QStringList RemoteChat::refusedFields(const QByteArray &body, const QStringList &sent)
{
    QStringList refused;
    const QJsonObject error = QJsonDocument::fromJson(body).object().value(QLatin1String("error")).toObject();
    const QString param = error.value(QLatin1String("param")).toString();
    for (const QString &name : sent)
        if (param == name || param.startsWith(name + QLatin1Char('.')))
            refused << name;
    if (!refused.isEmpty())
        return refused;
    // Servers that name the field only in their message ("Unrecognized
    // request argument supplied: top_k", pydantic's "extra_forbidden" lists).
    const QString text = QString::fromUtf8(body.left(64 << 10));
    for (const QString &name : sent) {
        const QRegularExpression word(QStringLiteral("(^|[^A-Za-z0-9_])%1($|[^A-Za-z0-9_])")
                                          .arg(QRegularExpression::escape(name)));
        if (name != QLatin1String("temperature") && word.match(text).hasMatch())
            refused << name;
    }
    return refused;
}

int RemoteChat::retryAfterSeconds(const QByteArray &header)
{
    const QByteArray h = header.trimmed();
    if (h.isEmpty())
        return -1;
    bool ok = false;
    const qlonglong seconds = h.toLongLong(&ok);
    if (ok)
        return seconds < 0 ? -1 : int(qMin<qlonglong>(seconds, 1 << 30));
    const QDateTime at = QDateTime::fromString(QString::fromLatin1(h), Qt::RFC2822Date);
    if (!at.isValid())
        return -1;
    return int(qBound<qint64>(0, QDateTime::currentDateTimeUtc().secsTo(at), qint64(1) << 30));
}

QString RemoteChat::where() const
{
    return m_endpoint.name.isEmpty() ? m_endpoint.baseUrl.host() : m_endpoint.name;
}

void RemoteChat::start()
{
    m_clock.start();
    if (m_sinks.onPlan) {
        PromptPlan plan;
        plan.chatFormat = QStringLiteral("remote");
        m_sinks.onPlan(plan);
    }
    m_cancelPoll.start();
    send();
}

void RemoteChat::send()
{
    if (m_done)
        return;
    if (m_request.cancel && m_request.cancel->isCancelled()) {
        finish(GenerationOutcome::Stop::Cancelled);
        return;
    }
    ++m_attempt;
    m_status = 0;
    m_errorBody.clear();
    m_streaming = m_plainJson = false;
    QNetworkRequest request(RemoteEndpoints::endpointUrl(m_endpoint.baseUrl, QStringLiteral("chat/completions")));
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setRawHeader("Accept", "text/event-stream");
    if (!m_endpoint.apiKey.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + m_endpoint.apiKey.toUtf8());
    // Redirects could take the key elsewhere: none are followed.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    m_reply = m_network->post(request, m_body);
    connect(m_reply, &QNetworkReply::metaDataChanged, this, &RemoteChat::onMetaData);
    connect(m_reply, &QNetworkReply::readyRead, this, &RemoteChat::onReadyRead);
    connect(m_reply, &QNetworkReply::finished, this, &RemoteChat::onFinished);
#if QT_CONFIG(ssl)
    connect(m_reply, &QNetworkReply::sslErrors, this, &RemoteChat::onSslErrors);
#endif
    m_idle.start(m_limits.firstByteMs);
}

void RemoteChat::onMetaData()
{
    if (!m_reply || m_status != 0)
        return;
    m_status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (m_status >= 200 && m_status < 300) {
        const QByteArray type = m_reply->header(QNetworkRequest::ContentTypeHeader).toByteArray().toLower();
        m_streaming = type.startsWith("text/event-stream");
        m_plainJson = !m_streaming;
    }
    m_idle.start(m_limits.idleMs);
}

void RemoteChat::onReadyRead()
{
    if (!m_reply || m_done)
        return;
    if (m_status == 0)
        onMetaData();
    m_idle.start(m_limits.idleMs);
    if (m_streaming) {
        QList<QByteArray> events;
        const bool ok = m_sse.feed(m_reply->readAll(), &events);
        for (const QByteArray &e : std::as_const(events)) {
            if (m_done)
                return;
            takeEvent(e);
        }
        if (!ok && !m_done)
            finish(GenerationOutcome::Stop::Error,
                   tr("%1 sent a line of more than %2 MiB; the reply was given up, what arrived is kept.")
                       .arg(where())
                       .arg(m_limits.maxLine >> 20));
        return;
    }
    // An error body, or a whole answer that is not a stream: kept up to a bound.
    const qsizetype bound = m_plainJson ? m_limits.maxLine : m_limits.maxErrorBody;
    const QByteArray bytes = m_reply->read(qMax<qsizetype>(0, bound - m_errorBody.size()));
    m_errorBody += bytes;
    if (m_errorBody.size() >= bound) {
        // No more is read: a whole answer this large is refused, an error's
        // first bytes tell enough.
        finish(GenerationOutcome::Stop::Error,
               m_plainJson ? tr("%1 sent an answer of more than %2 MiB; it was given up.").arg(where()).arg(bound >> 20)
                           : httpFailure(m_status, m_errorBody));
    }
}

void RemoteChat::takeEvent(const QByteArray &data)
{
    if (data.trimmed() == "[DONE]") {
        m_sawDone = true;
        return;
    }
    const QJsonObject chunk = QJsonDocument::fromJson(data).object();
    if (chunk.contains(QLatin1String("error"))) {
        finish(GenerationOutcome::Stop::Error,
               tr("%1 reported an error in the middle of the reply: %2").arg(where(), serverMessage(data)));
        return;
    }
    const QJsonObject usage = chunk.value(QLatin1String("usage")).toObject();
    if (!usage.isEmpty()) {
        m_promptTokens = jsonInt(usage, "prompt_tokens", m_promptTokens);
        m_completionTokens = jsonInt(usage, "completion_tokens", m_completionTokens);
        m_cachedTokens = jsonInt(usage.value(QLatin1String("prompt_tokens_details")).toObject(), "cached_tokens", 0);
        m_reasoningTokens = jsonInt(usage.value(QLatin1String("completion_tokens_details")).toObject(),
                                    "reasoning_tokens", m_reasoningTokens);
    }
    // llama-server's own measure of the generation, when it sends one.
    const QJsonValue predicted = chunk.value(QLatin1String("timings")).toObject().value(QLatin1String("predicted_ms"));
    if (predicted.isDouble() && predicted.toDouble() > 0)
        m_serverGenerateMs = qMin(predicted.toDouble(), 1e9);
    const QJsonArray choices = chunk.value(QLatin1String("choices")).toArray();
    if (choices.isEmpty())
        return;
    const QJsonObject choice = choices.first().toObject();
    // A whole message (a server that ignored "stream") or a delta.
    const QJsonObject delta = choice.value(QLatin1String(m_plainJson ? "message" : "delta")).toObject();
    for (const char *key : {"reasoning_content", "reasoning"}) {
        const QString reasoning = delta.value(QLatin1String(key)).toString();
        if (!reasoning.isEmpty()) {
            takeDelta(reasoning, true);
            break;
        }
    }
    const QString content = delta.value(QLatin1String("content")).toString();
    if (!content.isEmpty())
        takeDelta(content, false);
    const QString reason = choice.value(QLatin1String("finish_reason")).toString();
    if (!reason.isEmpty()) {
        m_finishReason = reason;
        m_sawDone = true;
    }
}

void RemoteChat::takeDelta(const QString &text, bool reasoning)
{
    const double now = double(m_clock.nsecsElapsed()) / 1e6;
    if (m_firstTokenMs < 0)
        m_firstTokenMs = now;
    m_lastTokenMs = now;
    if (reasoning) {
        if (m_reasoningStartMs < 0)
            m_reasoningStartMs = now;
        ++m_reasoningPieces;
    } else if (m_reasoningStartMs >= 0 && m_reasoningEndMs < 0) {
        m_reasoningEndMs = now;
    }
    ++m_pieces;
    if (m_sinks.onText && !m_sinks.onText(text, m_pieces, reasoning)) {
        m_cancelled = true;
        finish(GenerationOutcome::Stop::Cancelled);
    }
}

void RemoteChat::checkCancel()
{
    if (!m_done && m_request.cancel && m_request.cancel->isCancelled()) {
        m_cancelled = true;
        finish(GenerationOutcome::Stop::Cancelled);
    }
}

void RemoteChat::abortNow()
{
    if (m_done)
        return;
    m_cancelled = true;
    finish(GenerationOutcome::Stop::Cancelled);
}

void RemoteChat::onIdleTimeout()
{
    if (m_done || !m_reply)
        return;
    m_timedOut = true;
    const int seconds = qMax(1, (m_status == 0 ? m_limits.firstByteMs : m_limits.idleMs) / 1000);
    if (m_pieces > 0)
        finish(GenerationOutcome::Stop::Error,
               tr("%1 sent nothing for %2 s in the middle of the reply; it was given up, what arrived is kept.")
                   .arg(where())
                   .arg(seconds));
    else
        finish(GenerationOutcome::Stop::Error,
               tr("%1 did not answer within %2 s; the request was given up.").arg(where()).arg(seconds));
}

void RemoteChat::onSslErrors(const QList<QSslError> &errors)
{
#if QT_CONFIG(ssl)
    if (!m_reply)
        return;
    // Never ignored (ignoreSslErrors is not called): the reply fails, and
    // says which certificate was refused and why.
    QStringList reasons;
    QSslCertificate cert;
    for (const QSslError &e : errors) {
        reasons << e.errorString();
        if (cert.isNull())
            cert = e.certificate();
    }
    if (cert.isNull())
        cert = m_reply->sslConfiguration().peerCertificate();
    QString certText = tr("none received");
    if (!cert.isNull())
        certText = tr("issued to “%1” by “%2”, valid %3 to %4, SHA-256 fingerprint %5")
                       .arg(cert.subjectDisplayName(), cert.issuerDisplayName(),
                            cert.effectiveDate().toString(Qt::ISODate), cert.expiryDate().toString(Qt::ISODate),
                            QString::fromLatin1(cert.digest(QCryptographicHash::Sha256).toHex(':')));
    m_tlsReasons = reasons.join(QStringLiteral("; "));
    m_tlsError = certText;
#else
    Q_UNUSED(errors);
#endif
}

QString RemoteChat::httpFailure(int status, const QByteArray &body) const
{
    const QString said = serverMessage(body);
    const QString detail = said.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(said);
    switch (status) {
    case 401:
    case 403:
        return tr("%1 refused the API key (HTTP %2)%3. Check the key in Settings → Servers.")
            .arg(where())
            .arg(status)
            .arg(detail);
    case 404:
        return tr("%1 has no model “%2” (HTTP 404)%3. It may have been removed, or the address does not end in "
                  "the server's /v1; choose another model in the library.")
            .arg(where(), m_modelId, detail);
    case 400:
    case 422: {
        const QStringList refused = refusedFields(body, m_optional);
        if (!refused.isEmpty())
            return tr("%1 refused the chat settings %2 (HTTP %3)%4. Set them back to their defaults in this chat's "
                      "settings to use this server.")
                .arg(where(), refused.join(QStringLiteral(", ")))
                .arg(status)
                .arg(detail);
        break;
    }
    default:
        break;
    }
    return tr("%1 answered HTTP %2%3.").arg(where()).arg(status).arg(detail);
}

void RemoteChat::onFinished()
{
    if (m_done || !m_reply || sender() != m_reply)
        return;
    QNetworkReply *reply = m_reply;
    if (m_status == 0)
        m_status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (m_streaming || m_plainJson)
        onReadyRead();
    else if (reply->bytesAvailable() > 0)
        onReadyRead();
    if (m_done)
        return;
    const QNetworkReply::NetworkError error = reply->error();
    m_idle.stop();
    // TLS first: the certificate was refused.
    if (!m_tlsError.isNull() || error == QNetworkReply::SslHandshakeFailedError) {
        finish(GenerationOutcome::Stop::Error,
               tr("The connection to %1 was refused: its certificate could not be checked (%2). The certificate: %3. "
                  "Burrow does not accept a certificate it cannot check; give the server one from an authority this "
                  "computer trusts, or add its authority to the system's certificates.")
                   .arg(where(), m_tlsReasons.isEmpty() ? reply->errorString() : m_tlsReasons,
                        m_tlsError.isEmpty() ? tr("none received") : m_tlsError));
        return;
    }
    if (m_status == 429 || m_status == 503) {
        const int asked = retryAfterSeconds(reply->rawHeader("Retry-After"));
        const int wait = asked >= 0 ? asked : m_attempt;   // none given: 1 s, 2 s, 3 s
        closeReply();
        if (m_attempt <= m_limits.retries && wait <= m_limits.maxRetryAfterS) {
            qCInfo(lcApp) << "remote" << where() << "busy (" << m_status << "), retry in" << wait << "s";
            m_retryWait.start(wait * 1000);
            return;
        }
        finish(GenerationOutcome::Stop::Error,
               wait > m_limits.maxRetryAfterS
                   ? tr("%1 is busy (HTTP %2) and asked to wait %3 s; try again later.").arg(where()).arg(m_status).arg(wait)
                   : tr("%1 is busy (HTTP %2); it was asked %3 times. Try again later.")
                         .arg(where())
                         .arg(m_status)
                         .arg(m_attempt));
        return;
    }
    if (m_status >= 300 || (m_status == 0 && error == QNetworkReply::NoError)) {
        finish(GenerationOutcome::Stop::Error, httpFailure(m_status, m_errorBody));
        return;
    }
    if (m_status == 0) {
        finish(GenerationOutcome::Stop::Error,
               tr("Could not reach %1 at %2 (%3). Is the server running, and is the address right?")
                   .arg(where(), m_endpoint.baseUrl.toString(QUrl::RemoveUserInfo), reply->errorString()));
        return;
    }
    if (m_plainJson) {
        takeEvent(m_errorBody);
        if (m_done)
            return;
    }
    if (!m_sawDone) {
        finish(GenerationOutcome::Stop::Error,
               m_pieces > 0 ? tr("The connection to %1 ended in the middle of the reply; the text that arrived is kept.")
                                  .arg(where())
                            : tr("The connection to %1 ended before the reply began (%2).")
                                  .arg(where(), error == QNetworkReply::NoError ? tr("no answer") : reply->errorString()));
        return;
    }
    const bool asked = m_request.settings.maxTokens > 0;
    finish(m_finishReason == QLatin1String("length")
               ? (asked ? GenerationOutcome::Stop::MaxTokens : GenerationOutcome::Stop::ContextFull)
               : GenerationOutcome::Stop::EndOfText);
}

void RemoteChat::closeReply()
{
    if (!m_reply)
        return;
    QNetworkReply *reply = m_reply;
    m_reply = nullptr;
    disconnect(reply, nullptr, this, nullptr);
    reply->abort();
    reply->deleteLater();
}

void RemoteChat::finish(GenerationOutcome::Stop stop, const QString &error)
{
    if (m_done)
        return;
    m_done = true;
    m_cancelPoll.stop();
    m_idle.stop();
    m_retryWait.stop();
    closeReply();
    GenerationOutcome outcome;
    outcome.stop = stop;
    outcome.error = error;
    outcome.generatedTokens = m_completionTokens >= 0 ? m_completionTokens : m_pieces;
    outcome.promptTokens = m_promptTokens >= 0 ? qMax(0, m_promptTokens - m_cachedTokens) : 0;
    outcome.reusedTokens = m_promptTokens >= 0 ? qMin(m_cachedTokens, m_promptTokens) : 0;
    outcome.promptMs = qMax(0.0, m_firstTokenMs);
    // The speed: the server's own measure when it sends one (llama-server),
    // else tokens over the time from the first piece to the last; pieces
    // that all came at once (a fast server, a short reply) are timed from
    // the request instead, prompt included.
    const double span = m_lastTokenMs - m_firstTokenMs;
    outcome.generateMs = m_serverGenerateMs > 0 ? m_serverGenerateMs
                       : m_firstTokenMs < 0     ? 0
                       : span >= 1.0            ? span
                                                : qMax(0.0, m_lastTokenMs);
    outcome.contextUsed = m_promptTokens >= 0 ? m_promptTokens + outcome.generatedTokens : 0;
    outcome.reasoningTokens = m_reasoningTokens >= 0 ? m_reasoningTokens : m_reasoningPieces;
    if (m_reasoningStartMs >= 0)
        outcome.reasoningMs = (m_reasoningEndMs >= 0 ? m_reasoningEndMs : m_lastTokenMs) - m_reasoningStartMs;
    if (stop == GenerationOutcome::Stop::Error)
        qCInfo(lcApp) << "remote reply failed:" << error;
    if (m_sinks.onDone)
        m_sinks.onDone(outcome);
    Q_EMIT ended();
}
