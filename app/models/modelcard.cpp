#include "modelcard.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QLocale>

#include "burrow/engine.h"
#include "settings/settingsfields.h"
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
    card.kvBytesPerToken = info.kvBytesPerToken;
    card.kvBytesPerTokenSliding = info.kvBytesPerTokenSliding;
    card.layerCount = toInt(info.blockCount);
    card.expertCount = toInt(info.expertCount);
    card.expertUsedCount = toInt(info.expertUsedCount);
    card.activeParameterCount = info.activeParameterCount ? info.activeParameterCount : info.parameterCount;
    card.slidingWindow = toInt(info.slidingWindow);
    card.slidingLayerCount = toInt(info.slidingLayerCount);
    card.sharedKvLayerCount = toInt(info.sharedKvLayerCount);
    card.perLayerEmbeddingLength = toInt(info.perLayerEmbeddingLength);
    card.perLayerEmbeddingBytes = info.perLayerEmbeddingBytes;
    card.hasChatTemplate = info.hasChatTemplate;
    card.availableMemory = SystemMemory::availableBytes();
    return card;
}

QString ModelCard::fileName() const
{
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

QString ModelCard::formatBytes(quint64 bytes)
{
    return QLocale().formattedDataSize(qint64(bytes), 1, QLocale::DataSizeTraditionalFormat);
}

QString ModelCard::fileSizeText() const
{
    return formatBytes(fileSize);
}

int ModelCard::contextFor(int requested) const
{
    if (requested <= 0 || (trainedContext > 0 && requested > trainedContext))
        return trainedContext;
    return requested;
}

qulonglong ModelCard::memoryBytesAt(int context, const QString &kvCacheType) const
{
    // The engine's arithmetic (ModelInfo::kvCacheBytes, saturating), on the card's copy of its fields.
    burrow::ModelInfo info;
    info.kvBytesPerToken = kvBytesPerToken;
    info.kvBytesPerTokenSliding = kvBytesPerTokenSliding;
    info.slidingWindow = uint32_t(qMax(0, slidingWindow));
    const burrow::KvCacheType type = kvCacheType == QLatin1String("q8_0") ? burrow::KvCacheType::KV_CACHE_Q8_0
                                                                          : burrow::KvCacheType::KV_CACHE_F16;
    const uint64_t kv = info.kvCacheBytes(uint32_t(qMax(0, contextFor(context))), type);
    return kv > UINT64_MAX - weightBytes ? UINT64_MAX : weightBytes + kv;
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
    const QString label = SettingsFields::chatFormatLabel(chatFormat);
    if (chatFormatFromVocabulary)
        return tr("%1, from the chat tokens in its vocabulary (it has no chat template)").arg(label);
    if (hasChatTemplate)
        return tr("%1 (its own chat template cannot be used)").arg(label);
    return tr("%1, chosen from its architecture (it has no chat template)").arg(label);
}
