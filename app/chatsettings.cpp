#include "chatsettings.h"

ChatSettings::ChatSettings(QObject *parent) : QObject(parent) {}

void ChatSettings::setTemperature(double v) { assign(m_values.temperature, qMax(0.0, v)); }
void ChatSettings::setTopK(int v) { assign(m_values.topK, qMax(0, v)); }
void ChatSettings::setTopP(double v) { assign(m_values.topP, qBound(0.0, v, 1.0)); }
void ChatSettings::setMinP(double v) { assign(m_values.minP, qBound(0.0, v, 1.0)); }
void ChatSettings::setRepeatPenalty(double v) { assign(m_values.repeatPenalty, qMax(0.0, v)); }
void ChatSettings::setRepeatLastN(int v) { assign(m_values.repeatLastN, qMax(-1, v)); }
void ChatSettings::setSeed(qint64 v) { assign(m_values.seed, qMax<qint64>(-1, qMin<qint64>(v, 0xFFFFFFFEll))); }
void ChatSettings::setMaxTokens(int v) { assign(m_values.maxTokens, v <= 0 ? -1 : v); }
void ChatSettings::setContextSize(int v) { assign(m_values.contextSize, qMax(16, v)); }

void ChatSettings::setSystemPrompt(const QString &v)
{
    if (m_systemPrompt == v)
        return;
    m_systemPrompt = v;
    Q_EMIT changed();
}

void ChatSettings::setValues(const GenerationSettings &values, const QString &systemPrompt)
{
    m_values = values;
    m_systemPrompt = systemPrompt;
    Q_EMIT changed();
}
