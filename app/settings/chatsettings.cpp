#include "chatsettings.h"

#include <QJsonValue>
#include <QLocale>
#include <QMetaType>

#include <cmath>

#include "burrow/engine.h"

namespace {

// Choice: text from a fixed list (chatFormat), compared in lower case.
enum class Kind { Real, Integer, Boolean, Text, Choice };

struct FieldSpec {
    const char *name;
    Kind kind;
};

// Panel order.
constexpr FieldSpec Fields[] = {
    {"temperature", Kind::Real},   {"topP", Kind::Real},         {"topK", Kind::Integer},
    {"minP", Kind::Real},          {"repeatPenalty", Kind::Real}, {"repeatLastN", Kind::Integer},
    {"randomSeed", Kind::Boolean}, {"seed", Kind::Integer},       {"maxTokens", Kind::Integer},
    {"contextSize", Kind::Integer}, {"systemPrompt", Kind::Text}, {"chatFormat", Kind::Choice},
};

const FieldSpec *spec(const QString &field)
{
    for (const FieldSpec &f : Fields)
        if (field == QLatin1String(f.name))
            return &f;
    return nullptr;
}

constexpr int JsonVersion = 1;
constexpr double MaxTemperature = 10.0;
constexpr double MaxRepeatPenalty = 10.0;
constexpr qint64 MaxTopK = 1 << 20;
constexpr qint64 MaxRepeatLastN = 1 << 20;

} // namespace

ChatSettings::ChatSettings(QObject *parent)
    : QObject(parent)
{
    for (const FieldSpec &f : Fields)
        m_values.insert(QLatin1String(f.name), builtInDefault(QLatin1String(f.name)));
}

QStringList ChatSettings::fieldNames()
{
    QStringList names;
    for (const FieldSpec &f : Fields)
        names << QLatin1String(f.name);
    return names;
}

QStringList ChatSettings::chatFormats()
{
    QStringList names;
    for (const std::string &name : burrow::chatFormatNames())
        names << QString::fromStdString(name);
    if (!names.contains(QLatin1String("auto")))
        names.prepend(QStringLiteral("auto"));
    return names;
}

QVariant ChatSettings::builtInDefault(const QString &field)
{
    // The sampler values follow the engine's SamplingParams defaults (a
    // mild, widely used chain), except a light repeat penalty which keeps
    // small models from looping in chat.
    static const QVariantHash defaults = {
        {QStringLiteral("temperature"), 0.8},
        {QStringLiteral("topP"), 0.95},
        {QStringLiteral("topK"), 40},
        {QStringLiteral("minP"), 0.05},
        {QStringLiteral("repeatPenalty"), 1.1},
        {QStringLiteral("repeatLastN"), 64},
        {QStringLiteral("randomSeed"), true},
        {QStringLiteral("seed"), qint64(0)},
        {QStringLiteral("maxTokens"), -1},
        {QStringLiteral("contextSize"), 4096},
        {QStringLiteral("systemPrompt"), QString()},
        {QStringLiteral("chatFormat"), QStringLiteral("auto")},
    };
    return defaults.value(field);
}

// Turns what the user or a file gave into the field's type. Text is read as
// the user typed it: the C locale first, then the user's locale ("0,7").
bool ChatSettings::convert(const QString &field, const QVariant &in, QVariant *out, QString *why) const
{
    const FieldSpec *f = spec(field);
    if (!f) {
        *why = tr("There is no setting called \"%1\".").arg(field);
        return false;
    }
    auto number = [&](double *d) {
        bool ok = false;
        if (in.typeId() == QMetaType::QString) {
            const QString text = in.toString().trimmed();
            *d = text.toDouble(&ok);
            if (!ok)
                *d = QLocale().toDouble(text, &ok);
        } else if (in.typeId() == QMetaType::Bool || !in.isValid() || in.isNull()) {
            ok = false;
        } else {
            *d = in.toDouble(&ok);
        }
        if (!ok || !std::isfinite(*d)) {
            *why = tr("Enter a number.");
            return false;
        }
        return true;
    };
    switch (f->kind) {
    case Kind::Real: {
        double d = 0;
        if (!number(&d))
            return false;
        *out = d;
        return true;
    }
    case Kind::Integer: {
        double d = 0;
        if (!number(&d))
            return false;
        if (d != std::floor(d)) {
            *why = tr("Enter a whole number.");
            return false;
        }
        if (std::fabs(d) > 9.0e15) {
            *why = tr("That number is far too large.");
            return false;
        }
        *out = qint64(d);
        return true;
    }
    case Kind::Boolean:
        if (in.typeId() != QMetaType::Bool && in.typeId() != QMetaType::Int && in.typeId() != QMetaType::LongLong) {
            *why = tr("Expected on or off.");
            return false;
        }
        *out = in.toBool();
        return true;
    case Kind::Text:
        if (!in.canConvert<QString>() || (in.isValid() && in.typeId() == QMetaType::Bool)) {
            *why = tr("Expected text.");
            return false;
        }
        *out = in.toString();
        return true;
    case Kind::Choice:
        if (in.typeId() != QMetaType::QString) {
            *why = tr("Expected the name of a chat format.");
            return false;
        }
        *out = in.toString().trimmed().toLower();
        return true;
    }
    return false;
}

QString ChatSettings::validate(const QString &field, const QVariant &value) const
{
    QVariant v;
    QString why;
    if (!convert(field, value, &v, &why))
        return why;
    const double d = v.toDouble();
    const qint64 n = v.toLongLong();
    if (field == QLatin1String("temperature")) {
        if (d < 0)
            return tr("Temperature cannot be negative (0 always picks the most likely token).");
        if (d > MaxTemperature)
            return tr("Temperature must be at most %1.").arg(MaxTemperature);
    } else if (field == QLatin1String("topP")) {
        if (d <= 0 || d > 1)
            return tr("Top-p must be greater than 0 and at most 1 (1 turns it off).");
    } else if (field == QLatin1String("topK")) {
        if (n < 0)
            return tr("Top-k cannot be negative (0 turns it off).");
        if (n > MaxTopK)
            return tr("Top-k must be at most %1.").arg(MaxTopK);
    } else if (field == QLatin1String("minP")) {
        if (d < 0 || d > 1)
            return tr("Min-p must be between 0 and 1 (0 turns it off).");
    } else if (field == QLatin1String("repeatPenalty")) {
        if (d <= 0)
            return tr("The repeat penalty must be greater than 0 (1 turns it off).");
        if (d > MaxRepeatPenalty)
            return tr("The repeat penalty must be at most %1.").arg(MaxRepeatPenalty);
    } else if (field == QLatin1String("repeatLastN")) {
        if (n < -1)
            return tr("The repeat window must be 0 or more tokens (-1: the whole context).");
        if (n > MaxRepeatLastN)
            return tr("The repeat window must be at most %1 tokens.").arg(MaxRepeatLastN);
    } else if (field == QLatin1String("seed")) {
        if (n < 0 || n > MaxSeed)
            return tr("The seed must be between 0 and %1.").arg(MaxSeed);
    } else if (field == QLatin1String("maxTokens")) {
        if (n < -1 || n == 0)
            return tr("The reply length must be at least 1 token (-1: no limit).");
        if (n > MaxContextSize)
            return tr("The reply length must be at most %1 tokens.").arg(MaxContextSize);
    } else if (field == QLatin1String("contextSize")) {
        if (n < MinContextSize)
            return tr("The context must hold at least %1 tokens.").arg(MinContextSize);
        if (m_trainedContext > 0 && n > m_trainedContext)
            return tr("This model was trained for at most %1 tokens of context.").arg(m_trainedContext);
        if (m_memoryContextLimit > 0 && n > m_memoryContextLimit)
            return tr("Only about %1 tokens of context fit in the free memory.").arg(m_memoryContextLimit);
        if (n > MaxContextSize)
            return tr("The context can hold at most %1 tokens.").arg(MaxContextSize);
    } else if (field == QLatin1String("chatFormat")) {
        const QStringList known = chatFormats();
        if (!known.contains(v.toString()))
            return tr("There is no chat format called \"%1\" (known: %2).").arg(value.toString(), known.join(QStringLiteral(", ")));
    }
    return QString();
}

void ChatSettings::setError(const QString &field, const QString &message)
{
    if (message.isEmpty()) {
        if (!m_errors.contains(field))
            return;
        m_errors.remove(field);
    } else {
        if (m_errors.value(field).toString() == message)
            return;
        m_errors.insert(field, message);
    }
    emit errorsChanged();
}

bool ChatSettings::setValue(const QString &field, const QVariant &value)
{
    const QString why = validate(field, value);
    if (!why.isEmpty()) {
        if (spec(field))
            setError(field, why);
        return false;
    }
    QVariant v;
    QString unused;
    convert(field, value, &v, &unused);
    const FieldSpec *f = spec(field);
    if (f->kind == Kind::Integer && field != QLatin1String("seed"))
        v = int(v.toLongLong());
    setError(field, QString());
    if (m_values.value(field) == v)
        return true;
    m_values.insert(field, v);
    emit changed();
    return true;
}

bool ChatSettings::isValid() const
{
    for (const FieldSpec &f : Fields)
        if (!validate(QLatin1String(f.name), m_values.value(QLatin1String(f.name))).isEmpty())
            return false;
    return true;
}

void ChatSettings::recheckContextSize()
{
    const QString field = QStringLiteral("contextSize");
    setError(field, validate(field, m_values.value(field)));
}

void ChatSettings::setTrainedContext(int tokens)
{
    tokens = qMax(0, tokens);
    if (tokens == m_trainedContext)
        return;
    m_trainedContext = tokens;
    emit limitsChanged();
    recheckContextSize();
    emit errorsChanged();  // `valid` may have changed even when the message did not
}

void ChatSettings::setMemoryContextLimit(int tokens)
{
    tokens = qMax(0, tokens);
    if (tokens == m_memoryContextLimit)
        return;
    m_memoryContextLimit = tokens;
    emit limitsChanged();
    recheckContextSize();
    emit errorsChanged();
}

void ChatSettings::setAutomaticChatFormat(const QString &format)
{
    if (format == m_automaticChatFormat)
        return;
    m_automaticChatFormat = format;
    emit limitsChanged();
}

void ChatSettings::setDefaults(ChatSettings *defaults)
{
    if (defaults == m_defaults || defaults == this)
        return;
    if (m_defaults)
        disconnect(m_defaults, nullptr, this, nullptr);
    m_defaults = defaults;
    if (m_defaults)
        connect(m_defaults, &ChatSettings::changed, this, &ChatSettings::changed);  // changedFields follows
    emit defaultsChanged();
    emit changed();
}

QVariant ChatSettings::defaultValue(const QString &field) const
{
    return m_defaults ? m_defaults->value(field) : builtInDefault(field);
}

bool ChatSettings::isDefault(const QString &field) const
{
    const QVariant mine = m_values.value(field);
    const QVariant theirs = defaultValue(field);
    if (!spec(field))
        return true;
    switch (spec(field)->kind) {
    case Kind::Real: return mine.toDouble() == theirs.toDouble();
    case Kind::Integer: return mine.toLongLong() == theirs.toLongLong();
    case Kind::Boolean: return mine.toBool() == theirs.toBool();
    case Kind::Text: return mine.toString() == theirs.toString();
    case Kind::Choice: return mine.toString().toLower() == theirs.toString().toLower();
    }
    return true;
}

QStringList ChatSettings::changedFields() const
{
    QStringList out;
    for (const FieldSpec &f : Fields)
        if (!isDefault(QLatin1String(f.name)))
            out << QLatin1String(f.name);
    return out;
}

void ChatSettings::resetField(const QString &field)
{
    if (!spec(field))
        return;
    const QVariant v = defaultValue(field);
    if (!setValue(field, v)) {
        // The default itself does not fit this chat's limits (a context
        // larger than the model allows): store it anyway and show why.
        m_values.insert(field, v);
        emit changed();
        emit errorsChanged();  // `valid` changed with the value
    }
}

void ChatSettings::resetAll()
{
    for (const FieldSpec &f : Fields)
        resetField(QLatin1String(f.name));
}

void ChatSettings::copyFrom(const ChatSettings *other)
{
    if (!other || other == this)
        return;
    if (!m_errors.isEmpty()) {  // reasons for refused input no longer apply
        m_errors.clear();
        emit errorsChanged();
    }
    bool any = false;
    for (const FieldSpec &f : Fields) {
        const QString name = QLatin1String(f.name);
        const QVariant v = other->value(name);
        if (m_values.value(name) != v) {
            m_values.insert(name, v);
            any = true;
        }
    }
    if (any)
        emit changed();
    recheckContextSize();
}

QJsonObject ChatSettings::toJson() const
{
    QJsonObject o{{QStringLiteral("version"), JsonVersion}};
    for (const FieldSpec &f : Fields) {
        const QString name = QLatin1String(f.name);
        const QVariant v = m_values.value(name);
        switch (f.kind) {
        case Kind::Real: o.insert(name, v.toDouble()); break;
        case Kind::Integer: o.insert(name, v.toLongLong()); break;
        case Kind::Boolean: o.insert(name, v.toBool()); break;
        case Kind::Text:
        case Kind::Choice: o.insert(name, v.toString()); break;
        }
    }
    return o;
}

bool ChatSettings::fromJson(const QJsonObject &json)
{
    if (!m_errors.isEmpty()) {  // another chat's settings: earlier reasons no longer apply
        m_errors.clear();
        emit errorsChanged();
    }
    bool allTaken = true;
    for (const FieldSpec &f : Fields) {
        const QString name = QLatin1String(f.name);
        const QVariant fallback = defaultValue(name);
        if (!json.contains(name)) {
            if (m_values.value(name) != fallback) {
                m_values.insert(name, fallback);
                emit changed();
            }
            continue;
        }
        QVariant v = json.value(name).toVariant();
        // JSON strings are not typed input: a number stored as text is refused.
        if (f.kind != Kind::Text && f.kind != Kind::Choice && v.typeId() == QMetaType::QString)
            v = QVariant();
        if (!setValue(name, v)) {
            allTaken = false;
            if (name == QLatin1String("contextSize") && json.value(name).isDouble()) {
                // Too large for the loaded model: keep what the chat asked for, flagged.
                m_values.insert(name, json.value(name).toInt());
                emit changed();
            } else if (m_values.value(name) != fallback) {
                m_values.insert(name, fallback);
                emit changed();
            }
        }
    }
    recheckContextSize();
    emit errorsChanged();  // `valid` may have changed with the values
    return allTaken;
}

GenerationSettings ChatSettings::values() const
{
    GenerationSettings g;
    g.temperature = temperature();
    g.topK = topK();
    g.topP = topP();
    g.minP = minP();
    g.repeatPenalty = repeatPenalty();
    g.repeatLastN = repeatLastN();
    g.seed = randomSeed() ? -1 : seed();
    g.maxTokens = maxTokens();
    g.contextSize = contextSize();
    g.chatFormat = chatFormat();
    return g;
}

void ChatSettings::setValues(const GenerationSettings &values, const QString &systemPrompt)
{
    setValue(QStringLiteral("temperature"), values.temperature);
    setValue(QStringLiteral("topK"), values.topK);
    setValue(QStringLiteral("topP"), values.topP);
    setValue(QStringLiteral("minP"), values.minP);
    setValue(QStringLiteral("repeatPenalty"), values.repeatPenalty);
    setValue(QStringLiteral("repeatLastN"), values.repeatLastN);
    setValue(QStringLiteral("randomSeed"), values.seed < 0);
    if (values.seed >= 0)
        setValue(QStringLiteral("seed"), values.seed);
    setValue(QStringLiteral("maxTokens"), values.maxTokens);
    setValue(QStringLiteral("contextSize"), values.contextSize);
    setValue(QStringLiteral("systemPrompt"), systemPrompt);
    setValue(QStringLiteral("chatFormat"), values.chatFormat);
}

burrow::SamplingParams ChatSettings::toSamplingParams() const
{
    burrow::SamplingParams p;
    p.temperature = float(temperature());
    p.topK = topK();
    p.topP = float(topP());
    p.minP = float(minP());
    p.repeatPenalty = float(repeatPenalty());
    p.penaltyLastN = repeatLastN();
    p.seed = randomSeed() ? 0xFFFFFFFFu : uint32_t(seed());
    return p;
}

burrow::GenerateOptions ChatSettings::toGenerateOptions() const
{
    burrow::GenerateOptions o;
    o.maxTokens = maxTokens();
    return o;
}

burrow::SessionOptions ChatSettings::toSessionOptions() const
{
    burrow::SessionOptions o;
    o.contextSize = uint32_t(contextSize());
    return o;
}
