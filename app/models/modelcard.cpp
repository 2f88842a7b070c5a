#include "modelcard.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QLocale>

QString ModelCard::fileName() const
{
    return QFileInfo(path).fileName();
}

QString ModelCard::parametersText() const
{
    const double n = double(parameterCount);
    if (n >= 1e9)
        return QLocale().toString(n / 1e9, 'f', 1) + QLatin1Char('B');
    if (n >= 1e6)
        return QLocale().toString(n / 1e6, 'f', 1) + QLatin1Char('M');
    if (n >= 1e3)
        return QLocale().toString(n / 1e3, 'f', 0) + QLatin1Char('K');
    return QLocale().toString(parameterCount);
}

QString ModelCard::formatBytes(quint64 bytes)
{
    return QLocale().formattedDataSize(qint64(bytes), 1, QLocale::DataSizeTraditionalFormat);
}

QString ModelCard::fileSizeText() const
{
    return formatBytes(fileSize);
}

int ModelCard::effectiveContext() const
{
    if (contextSize <= 0)
        return trainedContext;
    if (trainedContext > 0 && contextSize > trainedContext)
        return trainedContext;
    return contextSize;
}

quint64 ModelCard::memoryBytes() const
{
    return memoryBytesAt(contextSize);
}

qulonglong ModelCard::memoryBytesAt(int context) const
{
    if (context <= 0 || (trainedContext > 0 && context > trainedContext))
        context = trainedContext;
    return weightBytes + kvBytesPerToken * quint64(qMax(0, context));
}

QString ModelCard::memoryText() const
{
    return formatBytes(memoryBytes());
}

QString ModelCard::availableMemoryText() const
{
    return availableMemory ? formatBytes(availableMemory) : QCoreApplication::translate("ModelCard", "unknown");
}
