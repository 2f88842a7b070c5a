#include "settingsfields.h"

#include <QDir>
#include <QHash>

#include "backend/contextlimit.h"
#include "backend/modelcard.h"
#include "burrow/engine.h"

namespace {

using Kind = SettingsField::Kind;

constexpr double MaxTemperature = 10.0;
constexpr double MaxRepeatPenalty = 10.0;
constexpr qint64 MaxTopK = 1 << 20;
constexpr qint64 MaxRepeatLastN = 1 << 20;

std::string toStd(const QVariant &v)
{
    return v.toString().toUtf8().toStdString();
}

} // namespace

const QList<SettingsField> &SettingsFields::all()
{
    // The sampler values follow a mild, widely used chain; the light repeat
    // penalty (1.1) keeps small models from looping in chat.
    static const QList<SettingsField> fields = {
        {"temperature", Kind::Real, 0.8, QT_TRANSLATE_NOOP("ChatSettings", "Temperature"),
         QT_TRANSLATE_NOOP("ChatSettings", "0 always picks the most likely word; higher values give more varied replies."),
         QT_TRANSLATE_NOOP("ChatSettings", "temperature %1"), true,
         [](const QVariant &v, const SettingsLimits &) {
             const double d = v.toDouble();
             if (d < 0)
                 return tr("Temperature cannot be negative (0 always picks the most likely token).");
             if (d > MaxTemperature)
                 return tr("Temperature must be at most %1.").arg(MaxTemperature);
             return QString();
         },
         [](const QVariantHash &v, ReplySettings *out) {
             out->sampling.temperature = float(v.value(QStringLiteral("temperature")).toDouble());
         }},
        {"topP", Kind::Real, 0.95, QT_TRANSLATE_NOOP("ChatSettings", "Top-p"),
         QT_TRANSLATE_NOOP("ChatSettings", "Keep the most likely words that together reach this probability (1: off)."),
         QT_TRANSLATE_NOOP("ChatSettings", "top-p %1"), true,
         [](const QVariant &v, const SettingsLimits &) {
             const double d = v.toDouble();
             return d <= 0 || d > 1 ? tr("Top-p must be greater than 0 and at most 1 (1 turns it off).") : QString();
         },
         [](const QVariantHash &v, ReplySettings *out) {
             out->sampling.topP = float(v.value(QStringLiteral("topP")).toDouble());
         }},
        {"topK", Kind::Integer, 40, QT_TRANSLATE_NOOP("ChatSettings", "Top-k"),
         QT_TRANSLATE_NOOP("ChatSettings", "Keep only this many most likely words (0: off)."),
         QT_TRANSLATE_NOOP("ChatSettings", "top-k %1"), true,
         [](const QVariant &v, const SettingsLimits &) {
             const qint64 n = v.toLongLong();
             if (n < 0)
                 return tr("Top-k cannot be negative (0 turns it off).");
             if (n > MaxTopK)
                 return tr("Top-k must be at most %1.").arg(MaxTopK);
             return QString();
         },
         [](const QVariantHash &v, ReplySettings *out) {
             out->sampling.topK = v.value(QStringLiteral("topK")).toInt();
         }},
        {"minP", Kind::Real, 0.05, QT_TRANSLATE_NOOP("ChatSettings", "Min-p"),
         QT_TRANSLATE_NOOP("ChatSettings", "Drop words less likely than this share of the most likely one (0: off)."),
         QT_TRANSLATE_NOOP("ChatSettings", "min-p %1"), true,
         [](const QVariant &v, const SettingsLimits &) {
             const double d = v.toDouble();
             return d < 0 || d > 1 ? tr("Min-p must be between 0 and 1 (0 turns it off).") : QString();
         },
         [](const QVariantHash &v, ReplySettings *out) {
             out->sampling.minP = float(v.value(QStringLiteral("minP")).toDouble());
         }},
        {"repeatPenalty", Kind::Real, 1.1, QT_TRANSLATE_NOOP("ChatSettings", "Repeat penalty"),
         QT_TRANSLATE_NOOP("ChatSettings", "Above 1 makes repeating recent words less likely (1: off)."),
         QT_TRANSLATE_NOOP("ChatSettings", "repeat penalty %1"), true,
         [](const QVariant &v, const SettingsLimits &) {
             const double d = v.toDouble();
             if (d <= 0)
                 return tr("The repeat penalty must be greater than 0 (1 turns it off).");
             if (d > MaxRepeatPenalty)
                 return tr("The repeat penalty must be at most %1.").arg(MaxRepeatPenalty);
             return QString();
         },
         [](const QVariantHash &v, ReplySettings *out) {
             out->sampling.repeatPenalty = float(v.value(QStringLiteral("repeatPenalty")).toDouble());
         }},
        {"repeatLastN", Kind::Integer, 64, QT_TRANSLATE_NOOP("ChatSettings", "Repeat window"),
         QT_TRANSLATE_NOOP("ChatSettings", "How many recent tokens the penalty looks at (-1: the whole context)."),
         nullptr, true,
         [](const QVariant &v, const SettingsLimits &) {
             const qint64 n = v.toLongLong();
             if (n < -1)
                 return tr("The repeat window must be 0 or more tokens (-1: the whole context).");
             if (n > MaxRepeatLastN)
                 return tr("The repeat window must be at most %1 tokens.").arg(MaxRepeatLastN);
             return QString();
         },
         [](const QVariantHash &v, ReplySettings *out) {
             out->sampling.penaltyLastN = v.value(QStringLiteral("repeatLastN")).toInt();
         }},
        {"randomSeed", Kind::Boolean, true, QT_TRANSLATE_NOOP("ChatSettings", "Random seed"),
         QT_TRANSLATE_NOOP("ChatSettings", "A new random seed for each reply; off: the seed below, to repeat a reply exactly."),
         nullptr, false, [](const QVariant &, const SettingsLimits &) { return QString(); }, nullptr},
        {"seed", Kind::Integer, qint64(0), QT_TRANSLATE_NOOP("ChatSettings", "Seed"),
         QT_TRANSLATE_NOOP("ChatSettings", "The same seed and settings write the same reply again."), nullptr, false,
         [](const QVariant &v, const SettingsLimits &) {
             const qint64 n = v.toLongLong();
             return n < 0 || n > MaxSeed ? tr("The seed must be between 0 and %1.").arg(MaxSeed) : QString();
         },
         [](const QVariantHash &v, ReplySettings *out) {
             // randomSeed on: the engine's "random" value instead.
             out->sampling.seed = v.value(QStringLiteral("randomSeed")).toBool()
                                      ? 0xFFFFFFFFu
                                      : uint32_t(v.value(QStringLiteral("seed")).toLongLong());
         }},
        {"maxTokens", Kind::Integer, -1, QT_TRANSLATE_NOOP("ChatSettings", "Maximum reply length"),
         QT_TRANSLATE_NOOP("ChatSettings", "In tokens (-1: until the model stops)."), nullptr, true,
         [](const QVariant &v, const SettingsLimits &) {
             const qint64 n = v.toLongLong();
             if (n < -1 || n == 0)
                 return tr("The reply length must be at least 1 token (-1: no limit).");
             if (n > MaxContextSize)
                 return tr("The reply length must be at most %1 tokens.").arg(MaxContextSize);
             return QString();
         },
         [](const QVariantHash &v, ReplySettings *out) {
             const int n = v.value(QStringLiteral("maxTokens")).toInt();
             out->maxTokens = n > 0 ? n : -1;
         }},
        // 0 is Automatic: the smallest of 4,096, the model's trained length
        // and what fits in memory (ContextLimit::decide, the one place).
        {"contextSize", Kind::Integer, ContextLimit::Automatic, QT_TRANSLATE_NOOP("ChatSettings", "Context size"),
         QT_TRANSLATE_NOOP("ChatSettings", "How many tokens of the conversation the model sees (0: automatic, "
                                           "up to 4,096 as the model and the free memory allow)."),
         QT_TRANSLATE_NOOP("ChatSettings", "context %1"), true,
         [](const QVariant &v, const SettingsLimits &limits) {
             const qint64 n = v.toLongLong();
             if (n == ContextLimit::Automatic)
                 return QString();
             if (n < MinContextSize)
                 return tr("The context must hold at least %1 tokens.").arg(MinContextSize);
             if (limits.trainedContext > 0 && n > limits.trainedContext)
                 return tr("This model was trained for at most %1 tokens of context.").arg(limits.trainedContext);
             if (limits.memoryContextLimit > 0 && n > limits.memoryContextLimit)
                 return tr("Only about %1 tokens of context fit in the free memory.").arg(limits.memoryContextLimit);
             if (n > MaxContextSize)
                 return tr("The context can hold at most %1 tokens.").arg(MaxContextSize);
             return QString();
         },
         [](const QVariantHash &v, ReplySettings *out) {
             out->contextSize = qMax(0, v.value(QStringLiteral("contextSize")).toInt());
         }},
        // What a reply does when the context is full (burrow::ContextOverflow;
        // a model with recurrent layers can only stop, the panel says so).
        // Stop by default: a model that never ends its turn (a loop, a base
        // model) stops at the context instead of writing until stopped.
        {"contextPolicy", Kind::Choice, QStringLiteral("stop"), QT_TRANSLATE_NOOP("ChatSettings", "When the context is full"),
         QT_TRANSLATE_NOOP("ChatSettings", "stop: end the reply there; shift: forget the oldest messages (the system "
                                           "prompt and the first exchange stay) and go on."),
         QT_TRANSLATE_NOOP("ChatSettings", "when full: %1"), false,
         [](const QVariant &v, const SettingsLimits &) {
             const QStringList known = contextPolicies();
             return known.contains(v.toString())
                        ? QString()
                        : tr("When the context is full, a reply does one of: %1.").arg(known.join(QStringLiteral(", ")));
         },
         [](const QVariantHash &v, ReplySettings *out) {
             out->contextOverflow = v.value(QStringLiteral("contextPolicy")).toString() == QLatin1String("shift")
                                        ? burrow::ContextOverflow::CONTEXT_OVERFLOW_SHIFT
                                        : burrow::ContextOverflow::CONTEXT_OVERFLOW_STOP;
         }},
        // The scheduler's cache is shared by the chats: a chat asking for the
        // other type has it made again when no reply runs (EngineBackend::ensureScheduler).
        {"kvCacheType", Kind::Choice, QStringLiteral("f16"), QT_TRANSLATE_NOOP("ChatSettings", "Context memory"),
         QT_TRANSLATE_NOOP("ChatSettings", "q8_0 keeps the context in 8 bits: half the memory, replies may differ slightly."),
         QT_TRANSLATE_NOOP("ChatSettings", "KV cache %1"), false,
         [](const QVariant &v, const SettingsLimits &) {
             const QStringList known = kvCacheTypes();
             return known.contains(v.toString())
                        ? QString()
                        : tr("The context memory is one of: %1.").arg(known.join(QStringLiteral(", ")));
         },
         [](const QVariantHash &v, ReplySettings *out) {
             out->kvCacheType = v.value(QStringLiteral("kvCacheType")).toString() == QLatin1String("q8_0")
                                    ? burrow::KvCacheType::KV_CACHE_Q8_0
                                    : burrow::KvCacheType::KV_CACHE_F16;
         }},
        {"systemPrompt", Kind::Text, QString(), QT_TRANSLATE_NOOP("ChatSettings", "System prompt"),
         QT_TRANSLATE_NOOP("ChatSettings", "Instructions the model sees before the conversation"), nullptr, false,
         [](const QVariant &, const SettingsLimits &) { return QString(); },
         [](const QVariantHash &v, ReplySettings *out) {
             out->systemPrompt = toStd(v.value(QStringLiteral("systemPrompt")));
         }},
        {"chatFormat", Kind::Choice, QStringLiteral("auto"), QT_TRANSLATE_NOOP("ChatSettings", "Chat format"),
         nullptr, QT_TRANSLATE_NOOP("ChatSettings", "chat format %1"), false,
         [](const QVariant &v, const SettingsLimits &) {
             const QStringList known = chatFormats();
             return known.contains(v.toString())
                        ? QString()
                        : tr("There is no chat format called \"%1\" (known: %2).")
                              .arg(v.toString(), known.join(QStringLiteral(", ")));
         },
         [](const QVariantHash &v, ReplySettings *out) {
             out->chatFormat = toStd(v.value(QStringLiteral("chatFormat")));
         }},
        // The tools of Settings → Tools (MCP servers) for this chat; with no
        // server there are none to offer (the chat controller adds them to the request).
        {"tools", Kind::Boolean, true, QT_TRANSLATE_NOOP("ChatSettings", "Tools"),
         QT_TRANSLATE_NOOP("ChatSettings", "The model may call the tools of Settings → Tools; you allow each call."),
         QT_TRANSLATE_NOOP("ChatSettings", "tools %1"), false,
         [](const QVariant &, const SettingsLimits &) { return QString(); },
         [](const QVariantHash &v, ReplySettings *out) { out->tools = v.value(QStringLiteral("tools")).toBool(); }},
        // Reasoning, for templates that read these variables (ModelCard.readsEnableThinking /
        // readsReasoningEffort); the panel shows each only then. Other templates ignore them.
        {"thinking", Kind::Boolean, true, QT_TRANSLATE_NOOP("ChatSettings", "Thinking"),
         QT_TRANSLATE_NOOP("ChatSettings", "The model reasons before it answers (slower, often better); off: it answers at once."),
         QT_TRANSLATE_NOOP("ChatSettings", "thinking %1"), false,
         [](const QVariant &, const SettingsLimits &) { return QString(); },
         [](const QVariantHash &v, ReplySettings *out) {
             out->enableThinking = v.value(QStringLiteral("thinking")).toBool();
         }},
        {"reasoningEffort", Kind::Choice, QStringLiteral("medium"), QT_TRANSLATE_NOOP("ChatSettings", "Reasoning effort"),
         QT_TRANSLATE_NOOP("ChatSettings", "How long the model reasons before it answers."),
         QT_TRANSLATE_NOOP("ChatSettings", "reasoning effort %1"), false,
         [](const QVariant &v, const SettingsLimits &) {
             const QStringList known = reasoningEfforts();
             return known.contains(v.toString())
                        ? QString()
                        : tr("The reasoning effort is one of: %1.").arg(known.join(QStringLiteral(", ")));
         },
         [](const QVariantHash &v, ReplySettings *out) {
             out->reasoningEffort = toStd(v.value(QStringLiteral("reasoningEffort")));
         }},
        // Speculative decoding (burrow::SpeculativeMode): auto (the best the
        // model offers: n-gram drafts today), prompt lookup, a draft model
        // (draftModel, chosen in the panel's file dialog), off. The reply is
        // the same either way (greedy token for token; sampled: the same
        // distribution), only faster or not.
        {"speculative", Kind::Choice, QStringLiteral("auto"), QT_TRANSLATE_NOOP("ChatSettings", "Speculative decoding"),
         QT_TRANSLATE_NOOP("ChatSettings", "Guessed tokens are checked in one pass, so a reply can come faster; "
                                           "it says the same either way."),
         QT_TRANSLATE_NOOP("ChatSettings", "drafting %1"), false,
         [](const QVariant &v, const SettingsLimits &) {
             const QStringList known = speculativeModes();
             return known.contains(v.toString())
                        ? QString()
                        : tr("Speculative decoding is one of: %1.").arg(known.join(QStringLiteral(", ")));
         },
         [](const QVariantHash &v, ReplySettings *out) {
             const QString mode = v.value(QStringLiteral("speculative")).toString();
             out->speculative.mode = mode == QLatin1String("ngram") ? burrow::SpeculativeMode::SPECULATIVE_NGRAM
                                     : mode == QLatin1String("draft") ? burrow::SpeculativeMode::SPECULATIVE_DRAFT
                                     : mode == QLatin1String("off")   ? burrow::SpeculativeMode::SPECULATIVE_OFF
                                                                      : burrow::SpeculativeMode::SPECULATIVE_AUTO;
         }},
        // The draft model's file (speculative "draft"): a smaller .gguf with
        // the model's vocabulary, checked when a reply starts.
        {"draftModel", Kind::Text, QString(), QT_TRANSLATE_NOOP("ChatSettings", "Draft model"),
         QT_TRANSLATE_NOOP("ChatSettings", "A smaller model with the same vocabulary that guesses the next tokens."),
         nullptr, false,
         [](const QVariant &v, const SettingsLimits &) {
             const QString path = v.toString();
             if (path.isEmpty())
                 return QString();
             if (!QDir::isAbsolutePath(path))
                 return tr("The draft model is a file's full path.");
             return QString();
         },
         [](const QVariantHash &v, ReplySettings *out) {
             out->speculative.draftModel = toStd(v.value(QStringLiteral("draftModel")));
         }},
    };
    return fields;
}

QStringList SettingsFields::kvCacheTypes()
{
    // The engine's names (burrow::kvCacheTypeName).
    return {QString::fromLatin1(burrow::kvCacheTypeName(burrow::KvCacheType::KV_CACHE_F16)),
            QString::fromLatin1(burrow::kvCacheTypeName(burrow::KvCacheType::KV_CACHE_Q8_0))};
}

QStringList SettingsFields::speculativeModes()
{
    return {QStringLiteral("auto"), QStringLiteral("ngram"), QStringLiteral("draft"), QStringLiteral("off")};
}

QStringList SettingsFields::contextPolicies()
{
    return {QStringLiteral("stop"), QStringLiteral("shift")};
}

QStringList SettingsFields::reasoningEfforts()
{
    return {QStringLiteral("low"), QStringLiteral("medium"), QStringLiteral("high")};
}

const SettingsField *SettingsFields::find(QStringView name)
{
    for (const SettingsField &f : all())
        if (name == QLatin1String(f.name))
            return &f;
    return nullptr;
}

QVariantHash SettingsFields::builtInValues()
{
    QVariantHash values;
    for (const SettingsField &f : all())
        values.insert(QLatin1String(f.name), f.builtIn);
    return values;
}

ReplySettings SettingsFields::toEngine(const QVariantHash &values)
{
    ReplySettings out;
    for (const SettingsField &f : all())
        if (f.toEngine)
            f.toEngine(values, &out);
    return out;
}

QStringList SettingsFields::chatFormats()
{
    QStringList names;
    for (const std::string &name : burrow::chatFormatNames())
        names << QString::fromStdString(name);
    if (!names.contains(QLatin1String("auto")))
        names.prepend(QStringLiteral("auto"));
    return names;
}

QString SettingsFields::chatFormatLabel(const QString &name)
{
    return ModelCard::formatLabel(name);
}
