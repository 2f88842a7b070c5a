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

// The prompt for turns [first, end): the token ids and how many of them
// belong to the system prompt (kept on a context shift).
struct BuiltPrompt {
    std::vector<burrow::Token> tokens;
    int keep = 0;
    std::vector<std::string> stopStrings;
};

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
    return card;
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
    m_requestedContext = contextSize;
    m_card = cardFromInfo(m_model->info());
    m_card.path = path;
    m_card.contextSize = int(m_session->contextSize());
    // Which format "auto" renders with: the template (or its fallback when it
    // does not parse); without a template, the format the vocabulary's chat
    // tokens show (an instruct model converted without its template), else
    // none: a base model continues plain text.
    if (auto format = burrow::chatFormatFor(*m_model, "auto");
        format && (m_card.hasChatTemplate || format->fromVocabulary)) {
        m_card.chatFormat = fromStd(format->name);
    }
    qCInfo(lcApp) << "loaded" << path << "context" << m_session->contextSize() << "chat format"
                  << (m_card.chatFormat.isEmpty() ? QStringLiteral("plain text") : m_card.chatFormat);
    return true;
}

bool EngineBackend::ensureSession(int contextSize, QString *error)
{
    if (m_session && contextSize == m_requestedContext)
        return true;
    burrow::SessionOptions options;
    options.contextSize = uint32_t(qMax(1, contextSize));
    m_session.reset();   // free the old KV cache before allocating the new one
    auto session = burrow::Session::create(m_model, options);
    if (!session) {
        *error = fromStd(session.message());
        return false;
    }
    m_session = std::move(session).value();
    m_requestedContext = contextSize;
    m_card.contextSize = int(m_session->contextSize());
    return true;
}

GenerationOutcome EngineBackend::generate(const GenerationRequest &request, const TextSink &onText,
                                          const PromptProgress &onPromptProgress, const PlanSink &onPlan)
{
    GenerationOutcome outcome;
    auto fail = [&outcome](const QString &message) {
        outcome.stop = GenerationOutcome::Stop::Error;
        outcome.error = message;
        return outcome;
    };
    if (!m_model)
        return fail(tr("No model is loaded."));
    QString error;
    if (!ensureSession(request.settings.contextSize, &error))
        return fail(error);

    const burrow::Model &model = *m_model;
    const burrow::ModelInfo &info = model.info();
    const int contextSize = int(m_session->contextSize());
    // "auto": the model's template when it has one, else the format its
    // vocabulary's chat tokens show, else plain text; a format the user chose
    // is used whether or not the model has a template.
    const QString chatFormat = request.settings.chatFormat.trimmed();
    const bool forcedFormat = !chatFormat.isEmpty() && chatFormat.compare(QLatin1String("auto"), Qt::CaseInsensitive) != 0;
    // (The card names a format for "auto" exactly when it renders one.)
    const bool useTemplate = info.hasChatTemplate || !m_card.chatFormat.isEmpty() || forcedFormat;
    QString formatUsed;
    const std::string bosText = info.bosId >= 0 ? model.tokenBytes(info.bosId) : std::string();

    // Builds the prompt from turns [first, end). Template models: the chat
    // template with the system prompt; others: the conversation as one text
    // the model continues (what a base model like stories260K expects).
    auto build = [&](int first, BuiltPrompt *out, QString *buildError) -> bool {
        out->tokens.clear();
        out->keep = 0;
        if (useTemplate) {
            std::vector<burrow::ChatMessage> messages;
            if (!request.systemPrompt.isEmpty())
                messages.push_back({"system", toStd(request.systemPrompt)});
            for (int i = first; i < request.turns.size(); ++i) {
                const ChatTurn &turn = request.turns.at(i);
                const char *role = turn.author == ChatTurn::Author::User ? "user"
                                 : turn.author == ChatTurn::Author::Assistant ? "assistant" : "system";
                messages.push_back({role, toStd(turn.text)});
            }
            burrow::RenderOptions renderOptions;
            renderOptions.addGenerationPrompt = true;
            renderOptions.chatFormat = forcedFormat ? toStd(chatFormat) : std::string("auto");
            burrow::ChatFormat format;
            auto rendered = burrow::renderChat(model, messages, renderOptions, &format);
            if (!rendered) {
                *buildError = fromStd(rendered.message());
                return false;
            }
            formatUsed = fromStd(format.name);
            const bool hasBos = !bosText.empty() && rendered->rfind(bosText, 0) == 0;
            out->tokens = model.tokenize(*rendered, !hasBos, true);
            out->stopStrings = format.stopStrings;
            if (!request.systemPrompt.isEmpty()) {
                std::vector<burrow::ChatMessage> systemOnly{messages.front()};
                renderOptions.addGenerationPrompt = false;
                auto sys = burrow::renderChat(model, systemOnly, renderOptions);
                if (sys)
                    out->keep = int(model.tokenize(*sys, !hasBos, true).size());
            }
            return true;
        }
        std::string text;
        if (!request.systemPrompt.isEmpty()) {
            text = toStd(request.systemPrompt);
            text.push_back('\n');
        }
        const std::vector<burrow::Token> systemTokens =
            text.empty() ? std::vector<burrow::Token>() : model.tokenize(text, true, false);
        out->keep = int(systemTokens.size());
        for (int i = first; i < request.turns.size(); ++i) {
            const ChatTurn &turn = request.turns.at(i);
            if (turn.author == ChatTurn::Author::User && i > first)
                text += "\n";
            text += toStd(turn.text);
        }
        out->tokens = model.tokenize(text, true, false);
        return true;
    };

    // Leave room for the reply; drop the oldest turns (whole exchanges, so
    // the prompt starts with a user message) until the rest fits.
    const int wanted = request.settings.maxTokens > 0 ? request.settings.maxTokens : contextSize / 4;
    const int reserve = qBound(1, wanted, qMax(1, contextSize / 2));
    int first = 0;
    BuiltPrompt prompt;
    if (!build(first, &prompt, &error))
        return fail(error);
    while (int(prompt.tokens.size()) > contextSize - reserve) {
        int next = first + 1;
        while (next < request.turns.size() && request.turns.at(next).author != ChatTurn::Author::User)
            ++next;
        if (next >= request.turns.size())
            break;
        first = next;
        if (!build(first, &prompt, &error))
            return fail(error);
    }
    if (int(prompt.tokens.size()) >= contextSize)
        return fail(tr("The message is too long for this model's context (%1 tokens, the context holds %2). "
                       "Shorten it or choose a larger context.")
                        .arg(prompt.tokens.size())
                        .arg(contextSize));

    PromptPlan plan;
    plan.firstRow = first < request.turns.size() ? request.turns.at(first).row : -1;
    plan.promptTokens = int(prompt.tokens.size());
    plan.contextSize = contextSize;
    plan.usesTemplate = useTemplate;
    plan.chatFormat = formatUsed;
    if (onPlan)
        onPlan(plan);

    burrow::SamplingParams sampling;
    sampling.temperature = float(request.settings.temperature);
    sampling.topK = request.settings.topK;
    sampling.topP = float(request.settings.topP);
    sampling.minP = float(request.settings.minP);
    sampling.repeatPenalty = float(request.settings.repeatPenalty);
    sampling.penaltyLastN = request.settings.repeatLastN;
    sampling.seed = request.settings.seed < 0 ? 0xFFFFFFFFu : uint32_t(request.settings.seed);

    burrow::GenerateOptions options;
    options.maxTokens = request.settings.maxTokens > 0 ? request.settings.maxTokens : -1;
    options.stopStrings = prompt.stopStrings;
    options.overflow = burrow::ContextOverflow::CONTEXT_OVERFLOW_SHIFT;
    options.nKeep = prompt.keep;

    burrow::GenerateResult result;
    const burrow::Status status = m_session->generate(
        prompt.tokens, sampling, options,
        [&onText](std::string_view piece) {
            return onText(QString::fromUtf8(piece.data(), qsizetype(piece.size())));
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
    outcome.contextSize = contextSize;
    if (!status)
        return fail(fromStd(status.message()));
    outcome.stop = stopFrom(result.stopReason);
    return outcome;
}
