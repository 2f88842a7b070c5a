#include "enginebackend.h"

#include <atomic>

#include <QCoreApplication>
#include <QFileInfo>

#include "burrow/engine.h"
#include "common/logging.h"
#include "backend/systemmemory.h"
#include "burrow/server.h"
#include "burrow/tool_calls.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("EngineBackend", text);
}

std::string toStd(const QString &s)
{
    return s.toUtf8().toStdString();
}

QString fromStd(const std::string &s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

GenerationOutcome::Stop stopFrom(burrow::StopReason reason)
{
    switch (reason) {
    case burrow::StopReason::STOP_REASON_END_OF_GENERATION: return GenerationOutcome::Stop::EndOfText;
    case burrow::StopReason::STOP_REASON_MAX_TOKENS: return GenerationOutcome::Stop::MaxTokens;
    case burrow::StopReason::STOP_REASON_STOP_STRING: return GenerationOutcome::Stop::StopString;
    case burrow::StopReason::STOP_REASON_CANCELLED: return GenerationOutcome::Stop::Cancelled;
    case burrow::StopReason::STOP_REASON_CONTEXT_FULL: return GenerationOutcome::Stop::ContextFull;
    }
    return GenerationOutcome::Stop::EndOfText;
}

// The engine's answer to "which format does Automatic use, and why" (and
// what its template reads), onto the card.
void describeFormat(const burrow::Result<burrow::ChatFormat> &format, ModelCard *card)
{
    if (!format) {
        qCWarning(lcApp) << "no chat format:" << fromStd(format.message());
        return;
    }
    card->chatFormat = format->plainText ? QStringLiteral("plain") : fromStd(format->name);
    card->chatFormatFromVocabulary = format->fromVocabulary;
    card->readsEnableThinking = format->readsEnableThinking;
    card->readsReasoningEffort = format->readsReasoningEffort;
    card->reasoning = format->reasoning != burrow::ReasoningSyntax::REASONING_SYNTAX_NONE;
}


} // namespace

EngineBackend::EngineBackend() = default;
EngineBackend::~EngineBackend()
{
    m_server.reset();      // closes its connections, cancels their requests
    m_scheduler.reset();   // ends the replies still running (their onDone), joins its thread
}

ModelCard EngineBackend::inspect(const QString &path, QString *error)
{
    auto info = burrow::inspectModel(toStd(path));
    if (!info) {
        if (error)
            *error = fromStd(info.message());
        return {};
    }
    ModelCard card = ModelCard::fromInfo(*info);
    card.path = path;
    // The engine's format decision from the header, so the card shows it
    // before the load (when the template cannot be read, the card says the
    // format is chosen at the load).
    describeFormat(burrow::chatFormatFor(toStd(path), "auto", true), &card);
    return card;
}

int EngineBackend::contextSize() const
{
    return m_scheduler ? int(m_scheduler->options().contextSize) : 0;
}

burrow::KvCacheType EngineBackend::kvCacheType() const
{
    return m_scheduler ? m_scheduler->options().kvCacheType : burrow::KvCacheType::KV_CACHE_F16;
}

int EngineBackend::contextFor(int requested, burrow::KvCacheType kvType) const
{
    return m_card.contextFor(requested, QString::fromLatin1(burrow::kvCacheTypeName(kvType)));
}

int EngineBackend::engineThreadCount() const
{
    return m_scheduler ? m_scheduler->options().threads : 0;
}

int EngineBackend::engineThreads(int physicalCores)
{
    return physicalCores <= 4 ? qMax(1, physicalCores) : physicalCores - 1;
}

burrow::Result<std::shared_ptr<burrow::Scheduler>> EngineBackend::makeScheduler(
    const std::shared_ptr<burrow::Model> &model, int contextSize, burrow::KvCacheType kvType)
{
    burrow::SchedulerOptions options;
    options.kvCacheType = kvType;
    options.contextSize = uint32_t(qMax(1, contextSize));   // decided by contextFor (the engine clamps to the trained one too)
    options.parallel = Parallel;
    options.threads = engineThreads(burrow::physicalCoreCount());
    // Room for two whole conversations (more when they share a prefix: a
    // chat resent whole reuses its blocks) when the memory free now holds
    // it beside the weights; else one, as a single session had. Beyond that
    // the lowest-priority reply waits and is recomputed from its cached prefix.
    const quint64 doubled = model->info().kvCacheBytes(options.contextSize * 2, kvType);
    const quint64 available = SystemMemory::availableBytes();
    options.kvPositions = available > 0 && doubled < available / 2 ? options.contextSize * 2 : options.contextSize;
    return burrow::Scheduler::create(model, options);
}

bool EngineBackend::load(const QString &path, int contextSize, const LoadProgress &progress, QString *error)
{
    burrow::LoadOptions options;
    if (progress)
        options.progress = [&progress](float p) { return progress(double(p)); };
    auto loaded = burrow::Model::load(toStd(path), options);
    if (!loaded) {
        *error = fromStd(loaded.message());
        return false;
    }
    std::shared_ptr<burrow::Model> model = std::move(loaded).value();
    ModelCard card = ModelCard::fromInfo(model->info());
    card.path = path;
    auto scheduler = makeScheduler(model, card.contextFor(contextSize));
    if (!scheduler) {
        *error = fromStd(scheduler.message());
        return false;
    }
    // Only now replace the model in use: a refused file leaves it untouched.
    m_server.reset();      // it serves the old model; it starts again below
    m_scheduler.reset();   // cancels what it still runs, joins its thread
    m_model = std::move(model);
    m_scheduler = std::move(scheduler).value();
    m_card = std::move(card);
    describeFormat(burrow::chatFormatFor(*m_model, "auto", true), &m_card);
    startServer();
    qCInfo(lcApp) << "loaded" << path << "context" << m_scheduler->options().contextSize << "per reply,"
                  << m_scheduler->options().kvPositions << "KV positions, chat format" << m_card.chatFormat;
    return true;
}

bool EngineBackend::ensureScheduler(int contextSize, burrow::KvCacheType kvType, QString *error)
{
    const int wanted = contextFor(contextSize, kvType);
    if (m_scheduler && int(m_scheduler->options().contextSize) >= wanted && m_scheduler->options().kvCacheType == kvType)
        return true;
    if (m_scheduler && m_inFlight->load() > 0) {
        qCInfo(lcApp) << "context" << wanted << burrow::kvCacheTypeName(kvType) << "asked for while replies run: they keep"
                      << m_scheduler->options().contextSize << burrow::kvCacheTypeName(m_scheduler->options().kvCacheType);
        return true;
    }
    // What runs now, to come back to when the model refuses the new type.
    const int before = m_scheduler ? int(m_scheduler->options().contextSize) : wanted;
    const burrow::KvCacheType typeBefore =
        m_scheduler ? m_scheduler->options().kvCacheType : burrow::KvCacheType::KV_CACHE_F16;
    // A larger context is kept when only the type changes.
    const int size = qMax(wanted, m_scheduler ? before : 0);
    qCInfo(lcApp) << "context" << before << burrow::kvCacheTypeName(typeBefore) << "->" << size
                  << burrow::kvCacheTypeName(kvType) << ": the KV cache is made again";
    m_server.reset();      // it serves on the old scheduler
    m_scheduler.reset();   // free the old KV cache before allocating the new one
    auto scheduler = makeScheduler(m_model, size, kvType);
    if (!scheduler && kvType != typeBefore) {
        *error = tr("The context memory cannot be %1 for this model: %2")
                     .arg(QString::fromLatin1(burrow::kvCacheTypeName(kvType)), fromStd(scheduler.message()));
        auto again = makeScheduler(m_model, before, typeBefore);
        if (again) {
            m_scheduler = std::move(again).value();
            startServer();
        }
        return false;
    }
    if (!scheduler) {
        *error = fromStd(scheduler.message());
        m_serverError = tr("it stopped: %1").arg(*error);
        return false;
    }
    m_scheduler = std::move(scheduler).value();
    startServer();
    return true;
}

ServerStatus EngineBackend::configureServer(const ServerConfig &config)
{
    const bool same = config.enabled == m_serverConfig.enabled && config.host == m_serverConfig.host
                      && config.port == m_serverConfig.port && config.apiKey == m_serverConfig.apiKey;
    m_serverConfig = config;
    if (!same || (config.enabled && !m_server))
        startServer();
    return serverStatus();
}

ServerStatus EngineBackend::serverStatus() const
{
    ServerStatus status;
    status.enabled = m_serverConfig.enabled;
    if (m_server) {
        const burrow::server::ServerStats stats = m_server->stats();
        status.running = true;
        status.url = fromStd(m_server->url());
        status.connections = stats.connections;
        status.activeRequests = stats.activeRequests;
    } else if (m_serverConfig.enabled) {
        status.error = m_serverError;
    }
    return status;
}

void EngineBackend::startServer()
{
    if (m_server) {
        m_server.reset();   // closes its connections, cancels their requests
        qCInfo(lcApp) << "local server stopped";
    }
    m_serverError.clear();
    if (!m_serverConfig.enabled)
        return;
    if (!m_model || !m_scheduler) {
        m_serverError = tr("it starts when a model is loaded");
        return;
    }
    burrow::server::ServerOptions options;
    options.host = toStd(m_serverConfig.host);
    options.port = uint16_t(qBound(1, m_serverConfig.port, 65535));
    options.apiKey = toStd(m_serverConfig.apiKey);
    options.modelId = toStd(QFileInfo(m_card.path).completeBaseName());
    options.priority = ReplyPriority::Server;   // below the user's chats
    options.maxChoices = Parallel;
    options.log = [](std::string_view line) { qCInfo(lcApp).noquote() << "server:" << fromStd(std::string(line)); };
    auto server = burrow::server::Server::start(m_model, m_scheduler, options);
    if (!server) {
        const QString message = fromStd(server.message());
        qCWarning(lcApp) << "local server:" << message;
        if (message.contains(QLatin1String("in use"), Qt::CaseInsensitive))
            m_serverError = tr("port %1 is in use by another program; choose another port in Settings → Local server")
                                .arg(m_serverConfig.port);
        else
            m_serverError = tr("it cannot start: %1").arg(message);
        return;
    }
    m_server = std::move(server).value();
    qCInfo(lcApp) << "local server on" << fromStd(m_server->url());
}

namespace {

// What one reply's callbacks share on the scheduler thread.
struct LiveReply {
    ChatBackend::ReplySinks sinks;
    int tokens = 0;               // generated so far (the engine's count; scheduler thread only)
    int chatContext = 0;          // positions the chat gets
    int promptTokens = 0;
    std::atomic<int> promptDone{0};   // prompt tokens computed so far (beyond the reused ones)
    std::shared_ptr<std::atomic<int>> inFlight;
    // With tools: reads the calls out of the answer (scheduler thread only).
    std::unique_ptr<burrow::ToolCallReader> tools;
    QList<ModelToolCall> calls;

    // The reader's items: content to the sink, calls kept. False: stop.
    bool take(std::vector<burrow::ToolCallPiece> &&pieces)
    {
        for (burrow::ToolCallPiece &p : pieces) {
            if (p.isCall) {
                calls.append({QString::fromStdString(p.call.name), QString::fromStdString(p.call.argumentsJson)});
            } else if (!p.content.empty() && sinks.onText
                       && !sinks.onText(QString::fromUtf8(p.content.data(), qsizetype(p.content.size())), tokens, false)) {
                return false;
            }
        }
        return true;
    }
};

GenerationOutcome outcomeOf(const LiveReply &live, const burrow::GenerateResult &result, const burrow::Status &status)
{
    GenerationOutcome outcome;
    outcome.promptTokens = result.timings.promptTokens;
    outcome.reusedTokens = result.timings.reusedTokens;
    outcome.generatedTokens = result.timings.generatedTokens;
    outcome.promptMs = result.timings.promptMs;
    outcome.generateMs = result.timings.generateMs;
    // Positions the conversation holds: the whole prompt and the reply (a
    // shifted context holds no more than its size), or what was computed of
    // the prompt when it was stopped before its end.
    const bool promptDone = !result.tokens.empty() || result.stopReason != burrow::StopReason::STOP_REASON_CANCELLED;
    outcome.contextUsed = promptDone ? qMin(live.promptTokens + int(result.tokens.size()), live.chatContext)
                                     : qMin(live.promptTokens, result.timings.reusedTokens + live.promptDone.load());
    outcome.reasoningTokens = result.timings.reasoningTokens;
    outcome.reasoningMs = result.timings.reasoningTokens > 0 || !result.reasoning.empty() ? result.timings.reasoningMs : -1;
    outcome.draftedTokens = result.timings.draftedTokens;
    outcome.acceptedTokens = result.timings.acceptedTokens;
    if (!status) {
        outcome.stop = GenerationOutcome::Stop::Error;
        outcome.error = fromStd(status.message());
    } else {
        outcome.stop = stopFrom(result.stopReason);
    }
    return outcome;
}

} // namespace

namespace {

// Earlier tool calls as the family's templates read them (what the server
// does for a client's messages): arguments as a JSON object for most
// families, content none for a turn of calls only where the family wants it.
void toolTurnsForTemplate(std::vector<burrow::ChatMessage> &messages, const std::string &chatTemplate)
{
    std::unique_ptr<burrow::ToolCallReader> reader;
    for (burrow::ChatMessage &m : messages) {
        if (m.extraJson.find("tool_calls") == std::string::npos)
            continue;
        if (!reader)
            reader = std::make_unique<burrow::ToolCallReader>(chatTemplate, std::string_view());
        QJsonObject extra = QJsonDocument::fromJson(QByteArray::fromStdString(m.extraJson)).object();
        QJsonArray calls = extra.value(QLatin1String("tool_calls")).toArray();
        for (qsizetype i = 0; i < calls.size() && reader->argumentsAsObject(); ++i) {
            QJsonObject call = calls.at(i).toObject();
            QJsonObject fn = call.value(QLatin1String("function")).toObject();
            const QJsonDocument args = QJsonDocument::fromJson(fn.value(QLatin1String("arguments")).toString().toUtf8());
            if (args.isObject())
                fn.insert(QStringLiteral("arguments"), args.object());
            call.insert(QStringLiteral("function"), fn);
            calls.replace(i, call);
        }
        extra.insert(QStringLiteral("tool_calls"), calls);
        if (m.content.empty() && reader->contentIsNone())
            extra.insert(QStringLiteral("content"), QJsonValue::Null);
        m.extraJson = QJsonDocument(extra).toJson(QJsonDocument::Compact).toStdString();
    }
}

} // namespace

burrow::Result<burrow::ChatPrompt> EngineBackend::buildPrompt(const ChatRequest &request, int contextSize,
                                                              PromptPlan *plan) const
{
    std::vector<burrow::ChatMessage> messages;
    if (!request.settings.systemPrompt.empty())
        messages.push_back({"system", request.settings.systemPrompt, {}, {}});
    messages.insert(messages.end(), request.messages.begin(), request.messages.end());
    toolTurnsForTemplate(messages, m_model->info().chatTemplate);

    // Leave room for the reply: its length limit, else a quarter of the
    // context, at most half of it.
    const int wanted = request.settings.maxTokens > 0 ? request.settings.maxTokens : contextSize / 4;
    const int reserve = qBound(1, wanted, qMax(1, contextSize / 2));
    burrow::PromptOptions promptOptions;
    promptOptions.render.chatFormat = request.settings.chatFormat;
    promptOptions.render.enableThinking = request.settings.enableThinking;
    promptOptions.render.reasoningEffort = request.settings.reasoningEffort;
    promptOptions.plainTextForBaseModels = true;
    promptOptions.budget = uint32_t(qMax(1, contextSize - reserve));
    promptOptions.truncation = burrow::Truncation::TRUNCATION_DROP_OLDEST;
    // "Shift": the first exchange stays, in the prompt and through a shift (nKeep).
    promptOptions.keepFirstExchange = request.settings.contextOverflow == burrow::ContextOverflow::CONTEXT_OVERFLOW_SHIFT;
    promptOptions.render.cancel = request.cancel;   // Stop also ends a template still rendering
    if (!request.toolsJson.empty()) {
        // The tools as the template's `tools` (what the server does for a request's tools).
        const QJsonArray tools = QJsonDocument::fromJson(QByteArray::fromStdString(request.toolsJson)).array();
        promptOptions.render.kwargsJson =
            QJsonDocument(QJsonObject{{QStringLiteral("tools"), tools}}).toJson(QJsonDocument::Compact).toStdString();
    }
    auto prompt = burrow::buildChatPrompt(*m_model, messages, promptOptions);
    if (!prompt && promptOptions.keepFirstExchange && !prompt.isCancelled()) {
        // A first exchange too long to keep beside the newest message is
        // left out like any other.
        promptOptions.keepFirstExchange = false;
        prompt = burrow::buildChatPrompt(*m_model, messages, promptOptions);
    }
    if (!prompt)
        return prompt;

    // messages[firstMessage..] are in the prompt, after the system message
    // (when set: messages[0], no row) and the kept first exchange.
    const size_t offset = request.settings.systemPrompt.empty() ? 0 : 1;
    const qsizetype first = qsizetype(prompt->firstMessage >= offset ? prompt->firstMessage - offset : 0);
    const qsizetype kept = qsizetype(prompt->keptMessages);
    plan->firstRow = prompt->droppedMessages > 0 && first < request.rows.size() ? request.rows.at(first) : -1;
    plan->keptEndRow = prompt->droppedMessages > 0 && kept > 0 && kept <= request.rows.size()
                           ? request.rows.at(kept - 1) + 1 : 0;
    plan->promptTokens = int(prompt->tokens.size());
    plan->chatFormat = prompt->format.plainText ? QStringLiteral("plain") : fromStd(prompt->format.name);
    return prompt;
}

void EngineBackend::generate(const ChatRequest &request, ReplySinks sinks)
{
    auto fail = [&sinks](const QString &message) {
        GenerationOutcome outcome;
        outcome.stop = GenerationOutcome::Stop::Error;
        outcome.error = message;
        sinks.onDone(outcome);
    };
    if (request.cancel && request.cancel->isCancelled()) {
        GenerationOutcome outcome;
        outcome.stop = GenerationOutcome::Stop::Cancelled;
        sinks.onDone(outcome);
        return;
    }
    if (!m_model) {
        fail(tr("No model is loaded."));
        return;
    }
    QString error;
    if (!ensureScheduler(request.settings.contextSize, request.settings.kvCacheType, &error)) {
        fail(error);
        return;
    }
    // The chat's own context: the scheduler's may be larger (another chat asked for more).
    const int contextSize = qMin(contextFor(request.settings.contextSize, request.settings.kvCacheType),
                                 int(m_scheduler->options().contextSize));
    PromptPlan plan;
    auto prompt = buildPrompt(request, contextSize, &plan);
    if (!prompt && prompt.isCancelled()) {   // Stop while the template still rendered
        GenerationOutcome outcome;
        outcome.stop = GenerationOutcome::Stop::Cancelled;
        sinks.onDone(outcome);
        return;
    }
    if (!prompt) {
        fail(tr("The conversation cannot be written for this model: %1").arg(fromStd(prompt.message())));
        return;
    }
    if (sinks.onPlan)
        sinks.onPlan(plan);

    auto live = std::make_shared<LiveReply>();
    live->sinks = std::move(sinks);
    live->chatContext = contextSize;
    live->promptTokens = plan.promptTokens;
    live->inFlight = m_inFlight;

    burrow::Request job;
    job.prompt = std::move(prompt->tokens);
    job.sampling = request.settings.sampling;
    job.priority = request.priorityCell ? request.priorityCell->get() : request.priority;
    const int submittedPriority = job.priority;
    // The reply lives in the chat's context: when it is full the engine
    // shifts it (keeping the system prompt and the first exchange) or stops
    // the reply with STOP_REASON_CONTEXT_FULL, as the chat's policy says (a
    // recurrent model always stops).
    job.contextSize = uint32_t(contextSize);
    job.options.maxTokens = request.settings.maxTokens > 0 ? request.settings.maxTokens : -1;
    job.options.overflow = request.settings.contextOverflow;
    job.options.nKeep = prompt->keepTokens;
    job.options.stopStrings = prompt->format.stopStrings;
    job.options.cancel = request.cancel;
    job.options.reasoning = prompt->reasoning;
    job.options.speculative = request.settings.speculative;
    job.onToken = [live](int32_t generated) { live->tokens = generated; };
    job.options.onReasoning = [live](std::string_view piece) {
        return !live->sinks.onText
               || live->sinks.onText(QString::fromUtf8(piece.data(), qsizetype(piece.size())), live->tokens, true);
    };
    if (!request.toolsJson.empty()) {
        live->tools = std::make_unique<burrow::ToolCallReader>(m_model->info().chatTemplate, request.toolsJson);
        job.options.renderedControlTokens = live->tools->controlTokens();
        job.options.onToolCall = [live](std::string_view piece) { return live->take(live->tools->pushToolText(piece)); };
        job.onText = [live](std::string_view piece) { return live->take(live->tools->pushAnswer(piece)); };
    } else {
        job.onText = [live](std::string_view piece) {
            return !live->sinks.onText
                   || live->sinks.onText(QString::fromUtf8(piece.data(), qsizetype(piece.size())), live->tokens, false);
        };
    }
    job.onPromptProgress = [live](int32_t done, int32_t total) {
        live->promptDone = done;
        if (live->sinks.onPromptProgress)
            live->sinks.onPromptProgress(done, total);
    };
    job.onDone = [live](const burrow::GenerateResult &result, const burrow::Status &status) {
        if (live->tools)
            live->take(live->tools->finish());
        GenerationOutcome outcome = outcomeOf(*live, result, status);
        outcome.toolCalls = live->calls;
        --*live->inFlight;
        live->sinks.onDone(outcome);
    };
    ++*m_inFlight;
    auto submitted = m_scheduler->submit(std::move(job));
    if (!submitted) {
        // Refused without queuing (a full queue, a prompt too long): onDone is ours to call.
        --*m_inFlight;
        GenerationOutcome outcome;
        outcome.stop = GenerationOutcome::Stop::Error;
        outcome.error = fromStd(submitted.message());
        live->sinks.onDone(outcome);
        return;
    }
    if (request.priorityCell) {
        // The user switching chats changes it while it runs. A scheduler
        // rebuilt meanwhile (this request then ended) is not reached.
        request.priorityCell->attach(submittedPriority, [scheduler = std::weak_ptr<burrow::Scheduler>(m_scheduler),
                                                         rid = submitted.value()](int priority) {
            if (auto s = scheduler.lock())
                s->setPriority(rid, priority);
        });
    }
}
