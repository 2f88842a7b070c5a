#include "modelcard.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QLocale>

#include <QHash>

#include "burrow/engine.h"
#include "contextlimit.h"
#include "systemmemory.h"

namespace {
QString tr(const char *text)
{
    return QCoreApplication::translate("ModelCard", text);
}
} // namespace

ModelCard ModelCard::fromInfo(const burrow::ModelInfo &info)
{
    const auto fromStd = [](const std::string &s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); };
    const auto toInt = [](uint64_t v) { return int(qMin<quint64>(v, quint64(INT_MAX))); };
    ModelCard card;
    card.path = fromStd(info.path);
    card.name = fromStd(info.name);
    if (card.name.isEmpty())
        card.name = QFileInfo(card.path).completeBaseName();
    card.architecture = fromStd(info.architecture);
    card.quantization = fromStd(info.fileType);
    card.parameterCount = info.parameterCount;
    card.trainedContext = toInt(info.contextLength);
    card.fileSize = info.fileSize;
    card.weightBytes = info.weightBytes;
    card.layerCount = toInt(info.blockCount);
    card.expertCount = toInt(info.expertCount);
    card.expertUsedCount = toInt(info.expertUsedCount);
    card.activeParameterCount = info.activeParameterCount ? info.activeParameterCount : info.parameterCount;
    card.slidingWindow = toInt(info.slidingWindow);
    card.slidingLayerCount = toInt(info.slidingLayerCount);
    card.sharedKvLayerCount = toInt(info.sharedKvLayerCount);
    card.perLayerEmbeddingLength = toInt(info.perLayerEmbeddingLength);
    card.perLayerEmbeddingBytes = info.perLayerEmbeddingBytes;
    card.recurrentLayerCount = toInt(info.recurrentLayerCount);
    for (const std::string &drafter : info.drafters)
        card.drafters << fromStd(drafter);
    card.draftsFor = fromStd(info.draftsFor);
    card.hasChatTemplate = info.hasChatTemplate;
    card.availableMemory = SystemMemory::availableBytes();
    // The estimate needs the numbers, not the template or the tensor table.
    auto kept = std::make_shared<burrow::ModelInfo>(info);
    kept->chatTemplate.clear();
    kept->tensorTypeCounts.clear();
    card.m_info = std::move(kept);
    return card;
}

QString ModelCard::fileName() const
{
    if (remote)
        return name;
    return QFileInfo(path).fileName();
}

QString ModelCard::countText(quint64 count)
{
    const double n = double(count);
    if (n >= 1e9)
        return QLocale().toString(n / 1e9, 'f', 1) + QLatin1Char('B');
    if (n >= 1e6)
        return QLocale().toString(n / 1e6, 'f', 1) + QLatin1Char('M');
    if (n >= 1e3)
        return QLocale().toString(n / 1e3, 'f', 0) + QLatin1Char('K');
    return QLocale().toString(count);
}

QString ModelCard::parametersText() const
{
    return countText(parameterCount);
}

QString ModelCard::expertsText() const
{
    if (expertCount <= 0)
        return QString();
    return tr("%1 experts, %2 active").arg(expertCount).arg(expertUsedCount);
}

QString ModelCard::activeParametersText() const
{
    if (expertCount <= 0 || activeParameterCount == 0)
        return QString();
    return tr("%1 of %2 active per token").arg(countText(activeParameterCount), countText(parameterCount));
}

QString ModelCard::slidingWindowText() const
{
    if (slidingWindow <= 0)
        return QString();
    return tr("%1 positions on %2 of %3 layers")
        .arg(QLocale().toString(slidingWindow))
        .arg(slidingLayerCount)
        .arg(layerCount);
}

QString ModelCard::sharedKvText() const
{
    if (sharedKvLayerCount <= 0)
        return QString();
    return tr("the last %1 of %2 layers reuse earlier layers' keys and values").arg(sharedKvLayerCount).arg(layerCount);
}

QString ModelCard::perLayerEmbeddingText() const
{
    if (perLayerEmbeddingLength <= 0)
        return QString();
    return tr("%1 per layer, %2, read from the file one row per token")
        .arg(QLocale().toString(perLayerEmbeddingLength), formatBytes(perLayerEmbeddingBytes));
}

QString ModelCard::speculativeText() const
{
    if (remote)
        return QString();
    if (!draftsFor.isEmpty())   // Gemma 4's assistant: it drafts, it does not chat
        return tr("none: this file is a drafter for Gemma 4 models (choose it as a chat's draft model)");
    QStringList ways;
    for (const QString &drafter : drafters) {
        if (drafter == QLatin1String("ngram"))
            ways << tr("prompt lookup (n-gram)");
        else if (drafter == QLatin1String("mtp"))
            ways << tr("its MTP layers");
        else
            ways << drafter;   // a drafter named by a newer engine
    }
    if (architecture == QLatin1String("gemma4"))
        ways << tr("its assistant file (as the draft model)");
    ways << tr("a draft model with the same vocabulary");
    return ways.join(QStringLiteral(", "));
}

QString ModelCard::formatBytes(quint64 bytes)
{
    return QLocale().formattedDataSize(qint64(bytes), 1, QLocale::DataSizeTraditionalFormat);
}

QString ModelCard::fileSizeText() const
{
    return formatBytes(fileSize);
}

int ModelCard::contextFor(int requested, const QString &kvCacheType) const
{
    // The search below needs the estimate at a size, not at Automatic: no recursion.
    return ContextLimit::decide(requested, trainedContext,
                                requested > 0 ? 0 : largestFittingContext(kvCacheType));
}

int ModelCard::largestFittingContext(const QString &kvCacheType) const
{
    if (availableMemory == 0 || !m_info)
        return 0;
    if (memoryAtPositions(ContextLimit::Minimum, kvCacheType) > availableMemory)
        return ContextLimit::Minimum;
    int lo = ContextLimit::Minimum, hi = trainedContext > 0 ? trainedContext : (1 << 20);
    if (memoryAtPositions(hi, kvCacheType) <= availableMemory)
        return hi;
    while (lo < hi) {
        const int mid = lo + (hi - lo + 1) / 2;
        if (memoryAtPositions(mid, kvCacheType) <= availableMemory)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

quint64 ModelCard::memoryAtPositions(int positions, const QString &kvCacheType) const
{
    if (!m_info)
        return weightBytes;
    // The engine's arithmetic (saturating).
    const burrow::KvCacheType type = kvCacheType == QLatin1String("q8_0") ? burrow::KvCacheType::KV_CACHE_Q8_0
                                                                          : burrow::KvCacheType::KV_CACHE_F16;
    const uint64_t kv = m_info->kvCacheBytes(uint32_t(qMax(0, positions)), type);
    return kv > UINT64_MAX - m_info->weightBytes ? UINT64_MAX : m_info->weightBytes + kv;
}

qulonglong ModelCard::memoryBytesAt(int context, const QString &kvCacheType) const
{
    return memoryAtPositions(contextFor(context, kvCacheType), kvCacheType);
}

QString ModelCard::availableMemoryText() const
{
    return availableMemory ? formatBytes(availableMemory) : tr("unknown");
}

QString ModelCard::chatFormatText() const
{
    if (chatFormat.isEmpty()) {
        return hasChatTemplate ? tr("its own chat template")
                               : tr("chosen when it loads: the chat format its vocabulary shows, or plain text");
    }
    if (chatFormat == QLatin1String("template"))
        return tr("its own chat template");
    if (chatFormat == QLatin1String("plain"))
        return tr("none: the model continues your text (it has no chat template and no chat tokens)");
    const QString label = formatLabel(chatFormat);
    if (chatFormatFromVocabulary)
        return tr("%1, from the chat tokens in its vocabulary (it has no chat template)").arg(label);
    if (hasChatTemplate)
        return tr("%1 (its own chat template cannot be used)").arg(label);
    return tr("%1, chosen from its architecture (it has no chat template)").arg(label);
}

QString ModelCard::formatLabel(const QString &name)
{
    static const QHash<QString, QString> families = {
        {QStringLiteral("chatml"), QStringLiteral("ChatML")},   {QStringLiteral("llama2"), QStringLiteral("Llama 2")},
        {QStringLiteral("llama3"), QStringLiteral("Llama 3")},  {QStringLiteral("gemma"), QStringLiteral("Gemma")},
        {QStringLiteral("phi3"), QStringLiteral("Phi-3")},      {QStringLiteral("mistral"), QStringLiteral("Mistral")},
        {QStringLiteral("zephyr"), QStringLiteral("Zephyr")},
    };
    if (name == QLatin1String("auto"))
        return QCoreApplication::translate("ChatSettings", "Automatic (from the model)");
    return families.value(name, name);
}
