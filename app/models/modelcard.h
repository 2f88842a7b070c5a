// ModelCard: what the header of a .gguf says, plus the memory estimate for the
// context size the user chose. A value type (copyable, no QObject) that QML
// reads as `modelCard`.
#pragma once

#include <QMetaType>
#include <QString>
#include <QtQml/qqmlregistration.h>

class ModelCard {
    Q_GADGET
    QML_VALUE_TYPE(modelCard)
    Q_PROPERTY(bool valid READ isValid)
    Q_PROPERTY(QString path MEMBER path)
    Q_PROPERTY(QString fileName READ fileName)
    Q_PROPERTY(QString name MEMBER name)
    Q_PROPERTY(QString architecture MEMBER architecture)
    Q_PROPERTY(QString quantization MEMBER quantization)
    Q_PROPERTY(qulonglong parameterCount MEMBER parameterCount)
    Q_PROPERTY(QString parametersText READ parametersText)
    Q_PROPERTY(int trainedContext MEMBER trainedContext)
    Q_PROPERTY(int contextSize READ effectiveContext)
    Q_PROPERTY(qulonglong fileSize MEMBER fileSize)
    Q_PROPERTY(QString fileSizeText READ fileSizeText)
    Q_PROPERTY(qulonglong memoryBytes READ memoryBytes)
    Q_PROPERTY(QString memoryText READ memoryText)
    Q_PROPERTY(qulonglong availableMemory MEMBER availableMemory)
    Q_PROPERTY(QString availableMemoryText READ availableMemoryText)
    Q_PROPERTY(bool fitsInMemory READ fitsInMemory)
    Q_PROPERTY(bool hasChatTemplate MEMBER hasChatTemplate)
    Q_PROPERTY(QString chatFormat MEMBER chatFormat)

public:
    QString path;
    QString name;
    QString architecture;
    QString quantization;
    quint64 parameterCount = 0;
    int trainedContext = 0;
    int contextSize = 0;            // what the user chose (0: the trained context)
    quint64 fileSize = 0;
    quint64 weightBytes = 0;
    quint64 kvBytesPerToken = 0;
    quint64 availableMemory = 0;    // MemAvailable when the card was made (0: unknown)
    bool hasChatTemplate = false;
    // The chat format "auto" uses for the loaded model: "template" (its own),
    // a built-in name when its template does not parse ("chatml", ...), or ""
    // when the model has no template (plain text) or is not loaded.
    QString chatFormat;

    bool isValid() const { return !path.isEmpty(); }
    QString fileName() const;
    QString parametersText() const;          // "260K", "7.2B"
    QString fileSizeText() const;
    // Context actually used: the chosen size clamped to the trained context.
    int effectiveContext() const;
    // Weights + F16 KV cache at effectiveContext().
    quint64 memoryBytes() const;
    QString memoryText() const;
    QString availableMemoryText() const;
    bool fitsInMemory() const { return availableMemory == 0 || memoryBytes() <= availableMemory; }

    // Weights + KV cache if the context were `contextSize` positions.
    Q_INVOKABLE qulonglong memoryBytesAt(int contextSize) const;
    Q_INVOKABLE QString memoryTextAt(int contextSize) const { return formatBytes(memoryBytesAt(contextSize)); }
    Q_INVOKABLE bool fitsAt(int contextSize) const { return availableMemory == 0 || memoryBytesAt(contextSize) <= availableMemory; }

    static QString formatBytes(quint64 bytes);
};

Q_DECLARE_METATYPE(ModelCard)
