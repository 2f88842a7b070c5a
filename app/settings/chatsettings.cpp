#include "chatsettings.h"

#include "backend/modelcard.h"
#include "language/language.h"

#include <QFileInfo>

#include <QJsonValue>
#include <QLocale>
#include <QMetaType>

#include <cmath>

using Kind = SettingsField::Kind;

ChatSettings::ChatSettings(QObject *parent)
    : QObject(parent), m_values(SettingsFields::builtInValues())
{
    connect(Language::instance(), &Language::changed, this, &ChatSettings::clearRefusals);
}

QStringList ChatSettings::fieldNames()
{
    QStringList names;
    for (const SettingsField &f : SettingsFields::all())
        names << QLatin1String(f.name);
    return names;
}

QVariant ChatSettings::builtInDefault(const QString &field)
{
    const SettingsField *f = SettingsFields::find(field);
    return f ? f->builtIn : QVariant();
}

QVariantList ChatSettings::fieldList()
{
    static const char *const kinds[] = {"real", "integer", "boolean", "text", "choice"};
    QVariantList list;
    for (const SettingsField &f : SettingsFields::all()) {
        list.append(QVariantMap{
            {QStringLiteral("name"), QLatin1String(f.name)},
            {QStringLiteral("kind"), QLatin1String(kinds[int(f.kind)])},
            {QStringLiteral("label"), QLatin1String(f.label)},
            {QStringLiteral("hint"), f.hint ? QLatin1String(f.hint) : QLatin1String("")},
            {QStringLiteral("numberRow"), f.numberRow},
        });
    }
    return list;
}

// Turns what the user or a file gave into the field's type. Text is read as
// the user typed it: the C locale first, then the user's locale ("0,7").
bool ChatSettings::convert(const SettingsField &f, const QVariant &in, QVariant *out, QString *why)
{
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
    switch (f.kind) {
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
            *why = qstrcmp(f.name, "chatFormat") == 0 ? tr("Expected the name of a chat format.")
                                                      : tr("Expected one of the listed choices.");
            return false;
        }
        *out = in.toString().trimmed().toLower();
        return true;
    }
    return false;
}

QString ChatSettings::validate(const QString &field, const QVariant &value) const
{
    const SettingsField *f = SettingsFields::find(field);
    if (!f)
        return tr("There is no setting called \"%1\".").arg(field);
    QVariant v;
    QString why;
    if (!convert(*f, value, &v, &why))
        return why;
    return f->check(v, m_limits);
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
    const SettingsField *f = SettingsFields::find(field);
    if (!why.isEmpty()) {
        if (f)
            setError(field, why);
        return false;
    }
    QVariant v;
    QString unused;
    convert(*f, value, &v, &unused);
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
    for (const SettingsField &f : SettingsFields::all())
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
    if (tokens == m_limits.trainedContext)
        return;
    m_limits.trainedContext = tokens;
    emit limitsChanged();
    recheckContextSize();
    emit errorsChanged();  // `valid` may have changed even when the message did not
}

void ChatSettings::setMemoryContextLimit(int tokens)
{
    tokens = qMax(0, tokens);
    if (tokens == m_limits.memoryContextLimit)
        return;
    m_limits.memoryContextLimit = tokens;
    emit limitsChanged();
    recheckContextSize();
    emit errorsChanged();
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
    const SettingsField *f = SettingsFields::find(field);
    if (!f)
        return true;
    const QVariant mine = m_values.value(field);
    const QVariant theirs = defaultValue(field);
    switch (f->kind) {
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
    for (const SettingsField &f : SettingsFields::all())
        if (!isDefault(QLatin1String(f.name)))
            out << QLatin1String(f.name);
    return out;
}

bool ChatSettings::chooseDraftModel(const QUrl &file)
{
    if (!file.isLocalFile())
        return false;
    return setValue(QStringLiteral("draftModel"), file.toLocalFile()) &&
           setValue(QStringLiteral("speculative"), QStringLiteral("draft"));
}

QString ChatSettings::draftModelText() const
{
    const QFileInfo file(draftModel());
    if (draftModel().isEmpty())
        return QString();
    if (!file.isFile())
        return tr("%1 (not found)").arg(file.fileName());
    return QStringLiteral("%1, %2").arg(file.fileName(), ModelCard::formatBytes(quint64(file.size())));
}

void ChatSettings::resetField(const QString &field)
{
    if (!SettingsFields::find(field))
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

void ChatSettings::clearRefusals()
{
    const QString field = QStringLiteral("contextSize");
    const QString why = validate(field, m_values.value(field));
    if (m_errors.isEmpty() && why.isEmpty())
        return;
    m_errors.clear();
    if (!why.isEmpty())
        m_errors.insert(field, why);
    emit errorsChanged();
}

void ChatSettings::resetAll()
{
    for (const SettingsField &f : SettingsFields::all())
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
    for (const SettingsField &f : SettingsFields::all()) {
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
    QJsonObject o{{QStringLiteral("version"), SettingsFields::JsonVersion}};
    for (const SettingsField &f : SettingsFields::all()) {
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
    // Version 1 wrote the old default context (4096) into every chat: it is Automatic now.
    const bool oldDefaultContext = json.value(QStringLiteral("version")).toInt() < 2
                                   && json.value(QStringLiteral("contextSize")).toInt() == 4096;
    for (const SettingsField &f : SettingsFields::all()) {
        const QString name = QLatin1String(f.name);
        const QVariant fallback = defaultValue(name);
        if (oldDefaultContext && name == QLatin1String("contextSize")) {
            setValue(name, 0);
            continue;
        }
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

QJsonObject ChatSettings::normalizedJson(const QJsonObject &json)
{
    // No model limits here: a context the loaded model cannot hold is kept
    // (the chat says so when it is opened).
    if (json.isEmpty())
        return json;   // nothing was ever set: the chat takes the defaults
    ChatSettings reader;
    QJsonObject out;
    if (json.contains(QStringLiteral("version")))
        out.insert(QStringLiteral("version"), SettingsFields::JsonVersion);
    reader.fromJson(json);
    const QJsonObject all = reader.toJson();
    for (const SettingsField &f : SettingsFields::all()) {
        const QString name = QLatin1String(f.name);
        if (json.contains(name) && reader.error(name).isEmpty())
            out.insert(name, all.value(name));
    }
    return out;
}
