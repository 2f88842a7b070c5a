// ChatSettings: the sampling and length settings of one chat (temperature,
// top-k, ...). Owned by the chat; a conversation store persists it later.
// Values are taken as they are when a reply starts.
#pragma once

#include <QObject>
#include <QtQml/qqmlregistration.h>

#include "chatbackend.h"

class ChatSettings : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("ChatSettings belong to a ChatController")
    Q_PROPERTY(double temperature READ temperature WRITE setTemperature NOTIFY changed)
    Q_PROPERTY(int topK READ topK WRITE setTopK NOTIFY changed)
    Q_PROPERTY(double topP READ topP WRITE setTopP NOTIFY changed)
    Q_PROPERTY(double minP READ minP WRITE setMinP NOTIFY changed)
    Q_PROPERTY(double repeatPenalty READ repeatPenalty WRITE setRepeatPenalty NOTIFY changed)
    Q_PROPERTY(int repeatLastN READ repeatLastN WRITE setRepeatLastN NOTIFY changed)
    Q_PROPERTY(qint64 seed READ seed WRITE setSeed NOTIFY changed)
    Q_PROPERTY(int maxTokens READ maxTokens WRITE setMaxTokens NOTIFY changed)
    Q_PROPERTY(int contextSize READ contextSize WRITE setContextSize NOTIFY changed)
    Q_PROPERTY(QString systemPrompt READ systemPrompt WRITE setSystemPrompt NOTIFY changed)

public:
    explicit ChatSettings(QObject *parent = nullptr);

    double temperature() const { return m_values.temperature; }
    int topK() const { return m_values.topK; }
    double topP() const { return m_values.topP; }
    double minP() const { return m_values.minP; }
    double repeatPenalty() const { return m_values.repeatPenalty; }
    int repeatLastN() const { return m_values.repeatLastN; }
    qint64 seed() const { return m_values.seed; }
    int maxTokens() const { return m_values.maxTokens; }
    int contextSize() const { return m_values.contextSize; }
    QString systemPrompt() const { return m_systemPrompt; }

    void setTemperature(double v);
    void setTopK(int v);
    void setTopP(double v);
    void setMinP(double v);
    void setRepeatPenalty(double v);
    void setRepeatLastN(int v);
    void setSeed(qint64 v);
    void setMaxTokens(int v);
    void setContextSize(int v);
    void setSystemPrompt(const QString &v);

    // The values a reply uses.
    GenerationSettings values() const { return m_values; }
    void setValues(const GenerationSettings &values, const QString &systemPrompt);

Q_SIGNALS:
    void changed();

private:
    template <typename T>
    void assign(T &field, T value)
    {
        if (field == value)
            return;
        field = value;
        Q_EMIT changed();
    }

    GenerationSettings m_values;
    QString m_systemPrompt;
};
