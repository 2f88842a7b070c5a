// One conversation's settings (sampling, reply length, context size, system
// prompt, chat format) with validation and the link to the defaults. The
// fields themselves, their defaults, checks and engine mapping are the
// table in settingsfields.cpp.
#pragma once

#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QUrl>
#include <QVariant>
#include <QVariantHash>
#include <QVariantList>
#include <QVariantMap>
#include <QtQml/qqmlregistration.h>

#include "settingsfields.h"

/**
 * @brief The settings of one chat (or, with no `defaults`, the defaults for new chats).
 *
 * Fields: SettingsFields::all() (names as used by value()/setValue(), JSON
 * and QML). chatFormat is "auto" or one of the engine's built-in formats
 * (chatFormats); names are taken in any case and stored in lower case.
 * thinking and reasoningEffort (low/medium/high) reach the templates that
 * read enable_thinking / reasoning_effort; others ignore them.
 *
 * Every write goes through validation: an invalid value is refused (the
 * field keeps its value) and error(field) holds the reason for the panel to
 * show next to the field; a valid write clears it. The context-size limits
 * (trainedContext, memoryContextLimit) are set by the app from the loaded
 * model; when they change the current context size is checked again and
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
    Q_PROPERTY(QString kvCacheType READ kvCacheType WRITE setKvCacheType NOTIFY changed)
    Q_PROPERTY(QStringList kvCacheTypes READ kvCacheTypes CONSTANT)
    Q_PROPERTY(QString contextPolicy READ contextPolicy WRITE setContextPolicy NOTIFY changed)
    Q_PROPERTY(QStringList contextPolicies READ contextPolicies CONSTANT)
    Q_PROPERTY(QString systemPrompt READ systemPrompt WRITE setSystemPrompt NOTIFY changed)
    Q_PROPERTY(QString chatFormat READ chatFormat WRITE setChatFormat NOTIFY changed)
    Q_PROPERTY(QStringList chatFormats READ chatFormats CONSTANT)
    Q_PROPERTY(bool thinking READ thinking WRITE setThinking NOTIFY changed)
    Q_PROPERTY(bool tools READ tools WRITE setTools NOTIFY changed)
    Q_PROPERTY(QString reasoningEffort READ reasoningEffort WRITE setReasoningEffort NOTIFY changed)
    Q_PROPERTY(QStringList reasoningEfforts READ reasoningEfforts CONSTANT)
    Q_PROPERTY(QString speculative READ speculative WRITE setSpeculative NOTIFY changed)
    Q_PROPERTY(QString draftModel READ draftModel WRITE setDraftModel NOTIFY changed)
    /// The field table for the panel: [{name, kind, label, hint, numberRow}]
    /// (label and hint untranslated: the panel passes them to qsTranslate("ChatSettings", …)).
    Q_PROPERTY(QVariantList fields READ fieldList CONSTANT)

    Q_PROPERTY(int trainedContext READ trainedContext WRITE setTrainedContext NOTIFY limitsChanged)
    Q_PROPERTY(int memoryContextLimit READ memoryContextLimit WRITE setMemoryContextLimit NOTIFY limitsChanged)
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

    static constexpr int MinContextSize = SettingsFields::MinContextSize;
    static constexpr int MaxContextSize = SettingsFields::MaxContextSize;
    static constexpr qint64 MaxSeed = SettingsFields::MaxSeed;
    /// The values chatFormat takes: "auto", then the engine's built-in formats.
    static QStringList chatFormats() { return SettingsFields::chatFormats(); }
    static QVariantList fieldList();
    /// How a chat format is named to the user ("Automatic (from the model)", "ChatML", …).
    Q_INVOKABLE QString chatFormatLabel(const QString &name) const { return SettingsFields::chatFormatLabel(name); }

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
    QString kvCacheType() const { return m_values.value(QStringLiteral("kvCacheType")).toString(); }
    static QStringList kvCacheTypes() { return SettingsFields::kvCacheTypes(); }
    QString contextPolicy() const { return m_values.value(QStringLiteral("contextPolicy")).toString(); }
    static QStringList contextPolicies() { return SettingsFields::contextPolicies(); }
    QString systemPrompt() const { return m_values.value(QStringLiteral("systemPrompt")).toString(); }
    QString chatFormat() const { return m_values.value(QStringLiteral("chatFormat")).toString(); }
    bool thinking() const { return m_values.value(QStringLiteral("thinking")).toBool(); }
    bool tools() const { return m_values.value(QStringLiteral("tools")).toBool(); }
    QString reasoningEffort() const { return m_values.value(QStringLiteral("reasoningEffort")).toString(); }
    static QStringList reasoningEfforts() { return SettingsFields::reasoningEfforts(); }
    QString speculative() const { return m_values.value(QStringLiteral("speculative")).toString(); }
    QString draftModel() const { return m_values.value(QStringLiteral("draftModel")).toString(); }

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
    void setKvCacheType(const QString &v) { setValue(QStringLiteral("kvCacheType"), v); }
    void setContextPolicy(const QString &v) { setValue(QStringLiteral("contextPolicy"), v); }
    void setSystemPrompt(const QString &v) { setValue(QStringLiteral("systemPrompt"), v); }
    void setChatFormat(const QString &v) { setValue(QStringLiteral("chatFormat"), v); }
    void setThinking(bool v) { setValue(QStringLiteral("thinking"), v); }
    void setTools(bool v) { setValue(QStringLiteral("tools"), v); }
    void setReasoningEffort(const QString &v) { setValue(QStringLiteral("reasoningEffort"), v); }
    void setSpeculative(const QString &v) { setValue(QStringLiteral("speculative"), v); }
    void setDraftModel(const QString &v) { setValue(QStringLiteral("draftModel"), v); }

    /// The model's trained context in tokens (0: unknown, no limit).
    int trainedContext() const { return m_limits.trainedContext; }
    void setTrainedContext(int tokens);
    /// The largest context the free memory holds for the loaded model (0: unknown).
    int memoryContextLimit() const { return m_limits.memoryContextLimit; }
    void setMemoryContextLimit(int tokens);

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
    /// The draft model picked in a file dialog: draftModel = its path and
    /// speculative = "draft"; false (nothing changed) for a URL that is not a local file.
    Q_INVOKABLE bool chooseDraftModel(const QUrl &file);
    /// The draft model as the panel names it: its file name and the memory
    /// its weights take beside the model ("small.gguf, 18.8 MB"); "" when none.
    Q_INVOKABLE QString draftModelText() const;
    Q_INVOKABLE void resetAll();
    /// Forgets the reasons for refused input (the refused text is not
    /// kept: the fields show the stored values again) and checks the
    /// stored context size again. The panel calls it when it opens; it
    /// runs by itself when the language changes (the reasons are words).
    Q_INVOKABLE void clearRefusals();
    /// Takes every field from `other` (a new chat copies the defaults).
    Q_INVOKABLE void copyFrom(const ChatSettings *other);

    /// Every field, for storage and export: {"version": 1, "temperature": 0.8, ...}.
    Q_INVOKABLE QJsonObject toJson() const;
    /// Reads what toJson() wrote. Missing fields take the defaults, unknown
    /// keys are ignored, invalid values are refused (see errors). Returns
    /// false when some field was refused.
    Q_INVOKABLE bool fromJson(const QJsonObject &json);
    /// `json` with every field checked through the table: the fields it has
    /// that are valid (and its version), nothing else (an import keeps no
    /// stray keys or refused values).
    static QJsonObject normalizedJson(const QJsonObject &json);

    /// What a reply is generated with, in the engine's types (the table's mapping).
    ReplySettings toEngine() const { return SettingsFields::toEngine(m_values); }

signals:
    /// Any field changed (one signal: the panel is small).
    void changed();
    void limitsChanged();
    void defaultsChanged();
    void errorsChanged();

private:
    static bool convert(const SettingsField &field, const QVariant &in, QVariant *out, QString *why);
    void setError(const QString &field, const QString &message);
    void recheckContextSize();

    QVariantHash m_values;
    QVariantMap m_errors;
    SettingsLimits m_limits;
    QPointer<ChatSettings> m_defaults;
};
