// The settings of a chat, listed once. Each row of the table says what the
// field is (its name, kind and built-in default), how the panel shows it
// (label and hint), when a value is refused (check), how a reply's details
// name it (summary) and what it sets in the engine (toEngine). ChatSettings
// (validation, JSON for storage and export), DefaultSettings,
// ChatSettingsPanel.qml (through ChatSettings::fields) and the engine
// bridge (ReplySettings) all read this table; nothing else lists the fields.
#pragma once

#include <QCoreApplication>
#include <QList>
#include <QString>
#include <QStringView>
#include <QVariant>
#include <QVariantHash>

#include "backend/contextlimit.h"
#include "backend/replysettings.h"

// What the loaded model allows, for the checks of the context size.
struct SettingsLimits {
    int trainedContext = 0;      // 0: unknown (no limit)
    int memoryContextLimit = 0;  // 0: unknown (no limit)
};

struct SettingsField {
    enum class Kind { Real, Integer, Boolean, Text, Choice };

    const char *name;        // C++/QML property, JSON key (storage, export), panel object names
    Kind kind;
    QVariant builtIn;        // the value before anyone changes it (new chats, Reset)
    const char *label;       // the panel's label (QT_TRANSLATE_NOOP, context "ChatSettings")
    const char *hint;        // the panel's line under the field
    const char *summary;     // a reply's details: "temperature %1" (nullptr: not listed)
    bool numberRow;          // the panel shows it as a number field in the common list
    // Why `value` (already of `kind`) is refused, "" when it is fine.
    QString (*check)(const QVariant &value, const SettingsLimits &limits);
    // Writes the field into `out` from every field's value (nullptr: another
    // field's mapping reads it, as seed reads randomSeed).
    void (*toEngine)(const QVariantHash &values, ReplySettings *out);
};

class SettingsFields {
    Q_DECLARE_TR_FUNCTIONS(ChatSettings)

public:
    static constexpr int MinContextSize = ContextLimit::Minimum;
    static constexpr int MaxContextSize = 1 << 20;
    static constexpr qint64 MaxSeed = 0xFFFFFFFELL;   // 0xFFFFFFFF means "random" to the engine
    // 2: contextSize 0 is Automatic (its default). Version 1 stored the old
    // default 4096 in every chat; it reads as Automatic.
    static constexpr int JsonVersion = 2;

    // Every field, in panel order.
    static const QList<SettingsField> &all();
    static const SettingsField *find(QStringView name);
    static QVariantHash builtInValues();
    // The engine's settings for a reply (every field's toEngine, in order).
    static ReplySettings toEngine(const QVariantHash &values);
    // The values chatFormat takes: "auto", then the engine's built-in formats.
    static QStringList chatFormats();
    // The values reasoningEffort takes (gpt-oss's reasoning_effort): low, medium, high.
    static QStringList reasoningEfforts();
    // The values kvCacheType takes: f16, q8_0 (burrow::KvCacheType).
    static QStringList kvCacheTypes();
    // The values speculative takes: auto, ngram, draft, off (burrow::SpeculativeMode).
    static QStringList speculativeModes();
    // The values contextPolicy takes: stop, shift (burrow::ContextOverflow).
    static QStringList contextPolicies();
    // How a chat format is named to the user: "Automatic (from the model)",
    // else the family's own name ("ChatML", "Llama 3"; not translated).
    static QString chatFormatLabel(const QString &name);
};
