#include "enginebackend.h"

#include <QCoreApplication>
#include <QFileInfo>

#include "burrow/engine.h"
#include "common/logging.h"
#include "models/systemmemory.h"

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

ModelCard cardFromInfo(const burrow::ModelInfo &info)
{
    ModelCard card;
    card.path = fromStd(info.path);
    card.name = fromStd(info.name);
    if (card.name.isEmpty())
        card.name = QFileInfo(card.path).completeBaseName();
    card.architecture = fromStd(info.architecture);
    card.quantization = fromStd(info.fileType);
    card.parameterCount = info.parameterCount;
    card.trainedContext = int(qMin<quint64>(info.contextLength, quint64(INT_MAX)));
    card.fileSize = info.fileSize;
    card.weightBytes = info.weightBytes;
    card.kvBytesPerToken = info.kvBytesPerToken;
    card.kvBytesPerTokenSliding = info.kvBytesPerTokenSliding;
    card.layerCount = int(qMin<quint64>(info.blockCount, quint64(INT_MAX)));
    card.expertCount = int(qMin<quint64>(info.expertCount, quint64(INT_MAX)));
    card.expertUsedCount = int(qMin<quint64>(info.expertUsedCount, quint64(INT_MAX)));
    card.activeParameterCount = info.activeParameterCount ? info.activeParameterCount : info.parameterCount;
    card.slidingWindow = int(qMin<quint64>(info.slidingWindow, quint64(INT_MAX)));
    card.slidingLayerCount = int(qMin<quint64>(info.slidingLayerCount, quint64(INT_MAX)));
    card.hasChatTemplate = info.hasChatTemplate;
    card.availableMemory = SystemMemory::availableBytes();
    return card;
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
EngineBackend::~EngineBackend() = default;

ModelCard EngineBackend::inspect(const QString &path, QString *error)
{
    auto info = burrow::inspectModel(toStd(path));
    if (!info) {
        if (error)
            *error = fromStd(info.message());
        return {};
    }
    ModelCard card = cardFromInfo(*info);
    card.path = path;
    // The engine's format decision from the header, so the card shows it
    // before the load (when the template cannot be read, the card says the
    // format is chosen at the load).
    describeFormat(burrow::chatFormatFor(toStd(path), "auto", true), &card);
    return card;
}

int EngineBackend::contextSize() const
{
    return m_session ? int(m_session->contextSize()) : 0;
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
    burrow::SessionOptions sessionOptions;
    sessionOptions.contextSize = uint32_t(qMax(1, contextSize));
    auto session = burrow::Session::create(model, sessionOptions);
    if (!session) {
        *error = fromStd(session.message());
        return false;
    }
    // Only now replace the model in use: a refused file leaves it untouched.
    m_session.reset();
    m_model = std::move(model);
    m_session = std::move(session).value();
    m_card = cardFromInfo(m_model->info());
    m_card.path = path;
    describeFormat(burrow::chatFormatFor(*m_model, "auto", true), &m_card);
    qCInfo(lcApp) << "loaded" << path << "context" << m_session->contextSize() << "chat format" << m_card.chatFormat;
    return true;
}

bool EngineBackend::ensureSession(int contextSize, QString *error)
{
    const int trained = m_card.trainedContext;
    const int wanted = trained > 0 ? qMin(qMax(1, contextSize), trained) : qMax(1, contextSize);
    if (m_session && int(m_session->contextSize()) == wanted)
        return true;
    burrow::SessionOptions options;
    options.contextSize = uint32_t(wanted);
    qCInfo(lcApp) << "context" << (m_session ? int(m_session->contextSize()) : 0) << "->" << wanted
                  << ": the KV cache is made again";
    m_session.reset();   // free the old KV cache before allocating the new one
    auto session = burrow::Session::create(m_model, options);
    if (!session) {
        *error = fromStd(session.message());
        return false;
    }
    m_session = std::move(session).value();
    return true;
}

GenerationOutcome EngineBackend::generate(const ChatRequest &request, const TextSink &onText,
                                          const PromptProgress &onPromptProgress, const PlanSink &onPlan)
{
    GenerationOutcome outcome;
    auto fail = [&outcome](const QString &message) {
        outcome.stop = GenerationOutcome::Stop::Error;
        outcome.error = message;
        return outcome;
    };
    if (request.cancel && request.cancel->isCancelled()) {
        outcome.stop = GenerationOutcome::Stop::Cancelled;
        return outcome;
    }
    if (!m_model)
        return fail(tr("No model is loaded."));
    QString error;
    if (!ensureSession(int(request.settings.contextSize), &error))
        return fail(error);
    const int contextSize = int(m_session->contextSize());

    std::vector<burrow::ChatMessage> messages;
    if (!request.settings.systemPrompt.empty())
        messages.push_back({"system", request.settings.systemPrompt, {}, {}});
    messages.insert(messages.end(), request.messages.begin(), request.messages.end());

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
    auto prompt = burrow::buildChatPrompt(*m_model, messages, promptOptions);
    if (!prompt)
        return fail(tr("The conversation cannot be written for this model: %1").arg(fromStd(prompt.message())));

    PromptPlan plan;
    // messages[firstMessage..] are in the prompt; the system message (when
    // set) is messages[0] and has no row.
    const size_t offset = request.settings.systemPrompt.empty() ? 0 : 1;
    const qsizetype first = qsizetype(prompt->firstMessage >= offset ? prompt->firstMessage - offset : 0);
    plan.firstRow = prompt->droppedMessages > 0 && first < request.rows.size() ? request.rows.at(first) : -1;
    plan.promptTokens = int(prompt->tokens.size());
    plan.chatFormat = prompt->format.plainText ? QStringLiteral("plain") : fromStd(prompt->format.name);
    if (onPlan)
        onPlan(plan);

    burrow::GenerateOptions options;
    options.maxTokens = request.settings.maxTokens;
    options.stopStrings = prompt->format.stopStrings;
    options.overflow = burrow::ContextOverflow::CONTEXT_OVERFLOW_SHIFT;
    options.nKeep = prompt->keepTokens;
    options.cancel = request.cancel;
    options.reasoning = prompt->reasoning;

    burrow::GenerateResult result;
    // generate() fills `result` as it goes: in the text callbacks,
    // result.tokens holds every token generated so far.
    options.onReasoning = [&onText, &result](std::string_view piece) {
        return onText(QString::fromUtf8(piece.data(), qsizetype(piece.size())), int(result.tokens.size()), true);
    };
    const burrow::Status status = m_session->generate(
        prompt->tokens, request.settings.sampling, options,
        [&onText, &result](std::string_view piece) {
            return onText(QString::fromUtf8(piece.data(), qsizetype(piece.size())), int(result.tokens.size()), false);
        },
        &result,
        [&onPromptProgress](int32_t done, int32_t total) {
            if (onPromptProgress)
                onPromptProgress(done, total);
        });
    outcome.promptTokens = result.timings.promptTokens;
    outcome.reusedTokens = result.timings.reusedTokens;
    outcome.generatedTokens = result.timings.generatedTokens;
    outcome.promptMs = result.timings.promptMs;
    outcome.generateMs = result.timings.generateMs;
    outcome.contextUsed = int(m_session->cachedTokens().size());
    outcome.reasoningTokens = result.timings.reasoningTokens;
    outcome.reasoningMs = result.timings.reasoningTokens > 0 || !result.reasoning.empty() ? result.timings.reasoningMs : -1;
    if (!status)
        return fail(fromStd(status.message()));
    outcome.stop = stopFrom(result.stopReason);
    return outcome;
}

BackendFactory defaultBackendFactory()
{
    return {[] { return std::unique_ptr<ChatBackend>(new EngineBackend); }, &EngineBackend::inspect};
}
