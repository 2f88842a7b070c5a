// One conversation's generation settings: sampling, reply length, context
// size, system prompt and chat format, with validation and the link to the
// defaults.
#pragma once

#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <QVariantMap>
#include <QtQml/qqmlregistration.h>

#include "burrow/engine.h"
#include "backend/chatbackend.h"

/**
 * @brief The settings of one chat (or, with no `defaults`, the defaults for new chats).
 *
 * Fields (names as used by value()/setValue(), JSON and QML):
 * temperature, topP, topK, minP, repeatPenalty, repeatLastN, randomSeed,
 * seed, maxTokens, contextSize, systemPrompt, chatFormat.
 *
 * chatFormat is "auto" (the model's own chat template; a model without one
 * gets the conversation as plain text) or a built-in format that replaces the
 * template (chatFormats lists them all: "auto", "chatml", "llama2", "llama3",
 * "gemma", "phi3", "mistral", "zephyr"). Names are taken in any case and
 * stored in lower case; any other name is refused.
 *
 * Every write goes through validation: an invalid value is refused (the
 * field keeps its value) and error(field) holds the reason for the panel to
 * show next to the field; a valid write clears it. The context-size limits
 * (trainedContext, memoryContextLimit) and automaticChatFormat are set by
 * the app from the loaded model; when they change the current context size is checked again and
 * `valid` turns false while it is too large (the value is kept so the user
 * sees what the chat asked for).
 *
 * `defaults` is the settings new chats start from (DefaultSettings.settings);
 * isDefault()/changedFields compare against it, resetField() copies from it.
 * Without `defaults` the comparison is against the built-in values.
 */
class ChatSettings : public QObject {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(double temperature READ temperature WRITE setTemperature NOTIFY changed)
    Q_PROPERTY(double topP READ topP WRITE setTopP NOTIFY changed)
    Q_PROPERTY(int topK READ topK WRITE setTopK NOTIFY changed)
    Q_PROPERTY(double minP READ minP WRITE setMinP NOTIFY changed)
    Q_PROPERTY(double repeatPenalty READ repeatPenalty WRITE setRepeatPenalty NOTIFY changed)
    Q_PROPERTY(int repeatLastN READ repeatLastN WRITE setRepeatLastN NOTIFY changed)
    Q_PROPERTY(bool randomSeed READ randomSeed WRITE setRandomSeed NOTIFY changed)
    Q_PROPERTY(qint64 seed READ seed WRITE setSeed NOTIFY changed)
    Q_PROPERTY(int maxTokens READ maxTokens WRITE setMaxTokens NOTIFY changed)
    Q_PROPERTY(int contextSize READ contextSize WRITE setContextSize NOTIFY changed)
    Q_PROPERTY(QString systemPrompt READ systemPrompt WRITE setSystemPrompt NOTIFY changed)
    Q_PROPERTY(QString chatFormat READ chatFormat WRITE setChatFormat NOTIFY changed)
    Q_PROPERTY(QStringList chatFormats READ chatFormats CONSTANT)

    Q_PROPERTY(int trainedContext READ trainedContext WRITE setTrainedContext NOTIFY limitsChanged)
    Q_PROPERTY(int memoryContextLimit READ memoryContextLimit WRITE setMemoryContextLimit NOTIFY limitsChanged)
    Q_PROPERTY(QString automaticChatFormat READ automaticChatFormat WRITE setAutomaticChatFormat NOTIFY limitsChanged)
    Q_PROPERTY(ChatSettings *defaults READ defaults WRITE setDefaults NOTIFY defaultsChanged)

    Q_PROPERTY(QVariantMap errors READ errors NOTIFY errorsChanged)
    Q_PROPERTY(bool valid READ isValid NOTIFY errorsChanged)
    Q_PROPERTY(QStringList changedFields READ changedFields NOTIFY changed)

public:
    explicit ChatSettings(QObject *parent = nullptr);

    /// Every field name, in panel order.
    static QStringList fieldNames();
    /// The value a field has before anyone changes it (built in).
    static QVariant builtInDefault(const QString &field);

    static constexpr int MinContextSize = 64;
    static constexpr int MaxContextSize = 1 << 20;
    static constexpr qint64 MaxSeed = 0xFFFFFFFELL;  // 0xFFFFFFFF means "random" to the engine
    /// The values chatFormat takes: "auto", then the engine's built-in formats
    /// (burrow::chatFormatNames(); only "auto" in a build without chat templates).
    static QStringList chatFormats();

    double temperature() const { return m_values.value(QStringLiteral("temperature")).toDouble(); }
    double topP() const { return m_values.value(QStringLiteral("topP")).toDouble(); }
    int topK() const { return m_values.value(QStringLiteral("topK")).toInt(); }
    double minP() const { return m_values.value(QStringLiteral("minP")).toDouble(); }
    double repeatPenalty() const { return m_values.value(QStringLiteral("repeatPenalty")).toDouble(); }
    int repeatLastN() const { return m_values.value(QStringLiteral("repeatLastN")).toInt(); }
    bool randomSeed() const { return m_values.value(QStringLiteral("randomSeed")).toBool(); }
    qint64 seed() const { return m_values.value(QStringLiteral("seed")).toLongLong(); }
    int maxTokens() const { return m_values.value(QStringLiteral("maxTokens")).toInt(); }
    int contextSize() const { return m_values.value(QStringLiteral("contextSize")).toInt(); }
    QString systemPrompt() const { return m_values.value(QStringLiteral("systemPrompt")).toString(); }
    QString chatFormat() const { return m_values.value(QStringLiteral("chatFormat")).toString(); }

    void setTemperature(double v) { setValue(QStringLiteral("temperature"), v); }
    void setTopP(double v) { setValue(QStringLiteral("topP"), v); }
    void setTopK(int v) { setValue(QStringLiteral("topK"), v); }
    void setMinP(double v) { setValue(QStringLiteral("minP"), v); }
    void setRepeatPenalty(double v) { setValue(QStringLiteral("repeatPenalty"), v); }
    void setRepeatLastN(int v) { setValue(QStringLiteral("repeatLastN"), v); }
    void setRandomSeed(bool v) { setValue(QStringLiteral("randomSeed"), v); }
    void setSeed(qint64 v) { setValue(QStringLiteral("seed"), v); }
    void setMaxTokens(int v) { setValue(QStringLiteral("maxTokens"), v); }
    void setContextSize(int v) { setValue(QStringLiteral("contextSize"), v); }
    void setSystemPrompt(const QString &v) { setValue(QStringLiteral("systemPrompt"), v); }
    void setChatFormat(const QString &v) { setValue(QStringLiteral("chatFormat"), v); }

    /// The model's trained context in tokens (0: unknown, no limit).
    int trainedContext() const { return m_trainedContext; }
    void setTrainedContext(int tokens);
    /// The largest context the free memory holds for the loaded model (0: unknown).
    int memoryContextLimit() const { return m_memoryContextLimit; }
    void setMemoryContextLimit(int tokens);
    /// The format "auto" uses for the loaded model: "template" (its own), a
    /// built-in name (its template does not parse), "plain" (no template: plain
    /// text), or "" when no model is loaded (not known). Not stored.
    QString automaticChatFormat() const { return m_automaticChatFormat; }
    void setAutomaticChatFormat(const QString &format);

    ChatSettings *defaults() const { return m_defaults; }
    void setDefaults(ChatSettings *defaults);

    QVariantMap errors() const { return m_errors; }
    /// Every current value passes validation (with the current limits).
    bool isValid() const;
    /// Fields whose value differs from the defaults.
    QStringList changedFields() const;

    Q_INVOKABLE QVariant value(const QString &field) const { return m_values.value(field); }
    /// Validates and stores; on refusal keeps the old value, sets error(field), returns false.
    /// Accepts numbers or text (as typed: "0.7", "0,7" in a comma locale).
    Q_INVOKABLE bool setValue(const QString &field, const QVariant &value);
    /// Why `value` would be refused for `field` ("" when it is fine).
    Q_INVOKABLE QString validate(const QString &field, const QVariant &value) const;
    Q_INVOKABLE QString error(const QString &field) const { return m_errors.value(field).toString(); }
    Q_INVOKABLE bool isDefault(const QString &field) const;
    Q_INVOKABLE QVariant defaultValue(const QString &field) const;
    Q_INVOKABLE void resetField(const QString &field);
    Q_INVOKABLE void resetAll();
    /// Takes every field from `other` (a new chat copies the defaults).
    Q_INVOKABLE void copyFrom(const ChatSettings *other);

    /// Every field, for storage: {"version": 1, "temperature": 0.8, ...}.
    Q_INVOKABLE QJsonObject toJson() const;
    /// Reads what toJson() wrote. Missing fields take the defaults, unknown
    /// keys are ignored, invalid values are refused (see errors). Returns
    /// false when some field was refused.
    Q_INVOKABLE bool fromJson(const QJsonObject &json);

    /// The values a reply uses, for the chat backend (seed -1 when random).
    GenerationSettings values() const;
    /// Sets every field at once (values are validated like setValue()).
    void setValues(const GenerationSettings &values, const QString &systemPrompt);

    /// The sampler settings for the engine (seed 0xFFFFFFFF when random).
    burrow::SamplingParams toSamplingParams() const;
    /// Maximum reply length for the engine (-1: until the model stops).
    burrow::GenerateOptions toGenerateOptions() const;
    burrow::SessionOptions toSessionOptions() const;

signals:
    /// Any field changed (one signal: the panel is small).
    void changed();
    void limitsChanged();
    void defaultsChanged();
    void errorsChanged();

private:
    bool convert(const QString &field, const QVariant &in, QVariant *out, QString *why) const;
    void setError(const QString &field, const QString &message);
    void recheckContextSize();

    QVariantHash m_values;
    QVariantMap m_errors;
    int m_trainedContext = 0;
    int m_memoryContextLimit = 0;
    QString m_automaticChatFormat;
    QPointer<ChatSettings> m_defaults;
};
