// ModelCard: what the header of a .gguf says, the memory estimate for a
// context size, the context a chat gets, and which chat format the engine
// uses for it and why. A value type (copyable, no QObject) that QML reads as
// `modelCard`. The numbers come from the engine's own burrow::ModelInfo,
// which the card keeps (shared, read-only): the memory estimate is the
// engine's arithmetic on it (weights, KV cache of the chosen type, sliding
// windows, recurrent state).
#pragma once

#include <memory>

#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QtQml/qqmlregistration.h>

namespace burrow { struct ModelInfo; }

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
    Q_PROPERTY(qulonglong fileSize MEMBER fileSize)
    Q_PROPERTY(QString fileSizeText READ fileSizeText)
    Q_PROPERTY(qulonglong availableMemory MEMBER availableMemory)
    Q_PROPERTY(QString availableMemoryText READ availableMemoryText)
    Q_PROPERTY(bool hasChatTemplate MEMBER hasChatTemplate)
    Q_PROPERTY(QString chatFormat MEMBER chatFormat)
    Q_PROPERTY(bool continuesText READ continuesText)
    Q_PROPERTY(QString chatFormatText READ chatFormatText)
    Q_PROPERTY(int expertCount MEMBER expertCount)
    Q_PROPERTY(int expertUsedCount MEMBER expertUsedCount)
    Q_PROPERTY(QString expertsText READ expertsText)
    Q_PROPERTY(qulonglong activeParameterCount MEMBER activeParameterCount)
    Q_PROPERTY(QString activeParametersText READ activeParametersText)
    Q_PROPERTY(int slidingWindow MEMBER slidingWindow)
    Q_PROPERTY(QString slidingWindowText READ slidingWindowText)
    Q_PROPERTY(int sharedKvLayerCount MEMBER sharedKvLayerCount)
    Q_PROPERTY(QString sharedKvText READ sharedKvText)
    Q_PROPERTY(qulonglong perLayerEmbeddingBytes MEMBER perLayerEmbeddingBytes)
    Q_PROPERTY(QString perLayerEmbeddingText READ perLayerEmbeddingText)
    Q_PROPERTY(QString speculativeText READ speculativeText)
    Q_PROPERTY(bool readsEnableThinking MEMBER readsEnableThinking)
    Q_PROPERTY(bool readsReasoningEffort MEMBER readsReasoningEffort)
    Q_PROPERTY(bool reasons READ reasons)
    // A full context can be shifted (burrow::ModelInfo::canShiftContext):
    // false for a model with recurrent layers (qwen35).
    Q_PROPERTY(bool canShiftContext READ canShiftContext)
    // A model served by an OpenAI-compatible server (Settings → Servers):
    // `path` is its locator (RemoteModelRef), `name` the server's model id.
    Q_PROPERTY(bool remote MEMBER remote)
    Q_PROPERTY(QString remoteServer MEMBER remoteServer)

public:
    QString path;
    QString name;
    QString architecture;
    QString quantization;
    quint64 parameterCount = 0;
    int trainedContext = 0;
    int layerCount = 0;
    quint64 fileSize = 0;
    quint64 weightBytes = 0;
    // Mixture of experts (burrow::ModelInfo): 0 for a dense model.
    int expertCount = 0;
    int expertUsedCount = 0;
    quint64 activeParameterCount = 0;     // what one token reads (= parameterCount when dense)
    // Sliding-window attention: positions a sliding layer sees, and how many layers use it.
    int slidingWindow = 0;
    int slidingLayerCount = 0;
    // Gemma 4: layers that reuse an earlier layer's keys and values (no KV
    // cache of their own: not in kvBytesPerToken), and the per-layer input
    // embeddings (values per layer; the table's bytes, part of weightBytes,
    // read from the mapped file one row per token).
    int sharedKvLayerCount = 0;
    int perLayerEmbeddingLength = 0;
    quint64 perLayerEmbeddingBytes = 0;
    // Recurrent layers (qwen35's Gated DeltaNet): they keep a state per
    // conversation, and a full context cannot be shifted.
    int recurrentLayerCount = 0;
    // Speculative decoding the file offers by itself (burrow::ModelInfo::drafters, best first).
    QStringList drafters;
    // A drafter-only file (burrow::ModelInfo::draftsFor: "gemma4" for Gemma 4's assistant), else empty.
    QString draftsFor;
    quint64 availableMemory = 0;    // MemAvailable when the card was made (0: unknown)
    bool hasChatTemplate = false;
    // The engine's answer to "which chat format does Automatic use"
    // (burrow::chatFormatFor(..., plainTextForBaseModels = true)): its name
    // ("template": the model's own; "chatml", "llama3", ...: a known format;
    // "plain": none, the model continues the text) and whether the
    // vocabulary's chat tokens chose it. "" while the engine has not said
    // (a card read from a header the engine could not judge).
    QString chatFormat;
    bool chatFormatFromVocabulary = false;
    // What the format's template reads (burrow::ChatFormat): the chat
    // settings Thinking and Reasoning effort are shown only when it does.
    bool readsEnableThinking = false;    // Qwen3's enable_thinking
    bool readsReasoningEffort = false;   // gpt-oss's reasoning_effort
    // Replies may carry reasoning (a format with a reasoning syntax).
    bool reasoning = false;
    // Served elsewhere (RemoteBackend): no file, no memory estimate here.
    bool remote = false;
    QString remoteServer;           // the name the user gave the server

    // The card of an engine header (burrow::inspectModel, the model library),
    // with the memory free now (SystemMemory); the chat format is left for
    // the engine to say. The card keeps a copy of `info` for its estimates.
    static ModelCard fromInfo(const burrow::ModelInfo &info);
    // The engine's facts behind the card (null for a card made by hand).
    const burrow::ModelInfo *info() const { return m_info.get(); }

    bool isValid() const { return !path.isEmpty(); }
    // The file's name; a remote model's id.
    QString fileName() const;
    QString parametersText() const;          // "260K", "7.2B"
    // "128 experts, 8 active" ("" for a dense model).
    QString expertsText() const;
    // "3.3B of 30.5B active per token" for a MoE model, else "".
    QString activeParametersText() const;
    // "4,096 positions on 5 of 6 layers" ("" without sliding-window attention).
    QString slidingWindowText() const;
    // "the last 20 of 35 layers reuse earlier layers' keys and values" ("" without).
    QString sharedKvText() const;
    // "256 per layer, 2.8 GB, read from the file one row per token" ("" without).
    QString perLayerEmbeddingText() const;
    // "prompt lookup, or a draft model with the same vocabulary" (the file's
    // drafters, in the engine's order, then a draft model: any file may have one).
    QString speculativeText() const;
    bool reasons() const { return reasoning; }
    bool canShiftContext() const { return recurrentLayerCount == 0; }
    static QString countText(quint64 n);     // 260K, 7.2M, 30.5B
    QString fileSizeText() const;
    // The context a chat asking for `requested` (ContextLimit::Automatic or
    // a size) gets on this model: ContextLimit::decide with the trained
    // length and largestFittingContext(kvCacheType).
    Q_INVOKABLE int contextFor(int requested, const QString &kvCacheType = QStringLiteral("f16")) const;
    // The largest context whose memory estimate fits in availableMemory (0:
    // unknown; ContextLimit::Minimum when not even that fits). About 20 estimates.
    Q_INVOKABLE int largestFittingContext(const QString &kvCacheType = QStringLiteral("f16")) const;
    QString availableMemoryText() const;

    // Automatic gives the conversation as plain text to continue (a base model).
    bool continuesText() const { return chatFormat == QLatin1String("plain"); }
    // The card's, the composer's and the settings panel's one sentence about
    // the format: which and why ("ChatML, from the chat tokens in its
    // vocabulary (it has no chat template)").
    QString chatFormatText() const;

    // Weights (all experts) + the KV cache if the context were `contextSize`
    // positions (at most the trained context; Automatic as contextFor) of
    // `kvCacheType` ("f16", "q8_0": the chat setting of that name; Q8_0 is 34
    // bytes per 64 of F16), sliding layers holding at most their window plus
    // one prompt chunk, plus the recurrent state's copies
    // (burrow::ModelInfo::kvCacheBytes). The weights alone for a card
    // without the engine's facts.
    Q_INVOKABLE qulonglong memoryBytesAt(int contextSize, const QString &kvCacheType = QStringLiteral("f16")) const;
    Q_INVOKABLE QString memoryTextAt(int contextSize, const QString &kvCacheType = QStringLiteral("f16")) const
    {
        return formatBytes(memoryBytesAt(contextSize, kvCacheType));
    }
    Q_INVOKABLE bool fitsAt(int contextSize, const QString &kvCacheType = QStringLiteral("f16")) const
    {
        return availableMemory == 0 || memoryBytesAt(contextSize, kvCacheType) <= availableMemory;
    }

    static QString formatBytes(quint64 bytes);
    // How a chat format is named to the user: "Automatic (from the model)",
    // else the family's own name ("ChatML", "Llama 3"; not translated).
    static QString formatLabel(const QString &name);

private:
    // Positions the estimate counts for a context of `contextSize` (Automatic: 0 here).
    quint64 memoryAtPositions(int positions, const QString &kvCacheType) const;

    std::shared_ptr<const burrow::ModelInfo> m_info;
};

Q_DECLARE_METATYPE(ModelCard)
