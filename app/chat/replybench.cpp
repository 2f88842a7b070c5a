#include "replybench.h"

#include <cstdio>
#include <ctime>

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

#include "chatcontroller.h"
#include "messagemodel.h"
#include "replystream.h"
#include "models/modelloader.h"
#include "settings/chatsettings.h"

namespace {

// CPU time of the calling thread (the GUI thread here), in nanoseconds.
qint64 threadCpuNs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return qint64(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// Every thread of this process: tid -> (name, CPU time in ns so far).
QHash<qint64, QPair<QString, qint64>> threadCpu()
{
    QHash<qint64, QPair<QString, qint64>> out;
    const QDir tasks(QStringLiteral("/proc/self/task"));
    for (const QString &tid : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile comm(tasks.filePath(tid + QStringLiteral("/comm")));
        QFile stat(tasks.filePath(tid + QStringLiteral("/schedstat")));
        if (!comm.open(QIODevice::ReadOnly) || !stat.open(QIODevice::ReadOnly))
            continue;   // the thread ended meanwhile
        const QString name = QString::fromUtf8(comm.read(64)).trimmed();
        const qint64 ns = QString::fromLatin1(stat.read(128)).section(QLatin1Char(' '), 0, 0).toLongLong();
        out.insert(tid.toLongLong(), {name, ns});
    }
    return out;
}

bool isEngineThread(const QString &name)
{
    return name.startsWith(QLatin1String("burrow-sched")) || name.startsWith(QLatin1String("burrow-pool"));
}

} // namespace

ReplyBench::ReplyBench(ChatController *chat, const QString &prompt, int maxTokens, QObject *parent)
    : QObject(parent), m_chat(chat), m_prompt(prompt), m_maxTokens(maxTokens)
{
    connect(m_chat, &ChatController::loadFinished, this, &ReplyBench::onLoaded);
    connect(m_chat, &ChatController::replyFinished, this, &ReplyBench::onReplyFinished);
}

void ReplyBench::onLoaded(bool ok)
{
    if (!ok) {
        std::fprintf(stderr, "bench: the model did not load: %s\n", qPrintable(m_chat->banner()));
        QCoreApplication::exit(2);
        return;
    }
    if (m_sent)
        return;
    m_sent = true;
    // A new chat with the settings `burrow-cli run --temp 0 -n N` uses.
    m_chat->newConversation();
    ChatSettings *settings = m_chat->settings();
    settings->setTemperature(0.0);
    settings->setRepeatPenalty(1.0);
    settings->setMaxTokens(m_maxTokens);
    // Let the window settle (the load's last repaint) before the clock starts.
    QTimer::singleShot(500, this, [this] {
        m_wall.start();
        m_cpuStartNs = threadCpuNs();
        m_threadsAtSend = threadCpu();
        if (!m_chat->send(m_prompt)) {
            std::fprintf(stderr, "bench: the prompt could not be sent: %s\n", qPrintable(m_chat->banner()));
            QCoreApplication::exit(2);
        }
    });
}

void ReplyBench::onReplyFinished(int row)
{
    const double cpuMs = double(threadCpuNs() - m_cpuStartNs) / 1e6;
    // CPU per thread since Send (threads started later count from zero).
    double engineMs = 0, otherMs = 0;
    QJsonObject others;
    const auto now = threadCpu();
    for (auto it = now.cbegin(); it != now.cend(); ++it) {
        const qint64 before = m_threadsAtSend.value(it.key(), {it.value().first, 0}).second;
        const double ms = double(it.value().second - before) / 1e6;
        if (isEngineThread(it.value().first)) {
            engineMs += ms;
        } else {
            otherMs += ms;
            others.insert(it.value().first, others.value(it.value().first).toDouble() + ms);
        }
    }
    const double wallMs = double(m_wall.nsecsElapsed()) / 1e6;
    const ReplyStream *reply = m_chat->reply();
    const MessageModel::Message m = m_chat->messages()->message(row);
    const double speed = m.tokensPerSecond;
    const double generateMs = speed > 0 ? m.tokens * 1000.0 / speed : 0;
    std::printf("{\"generated\": %d, \"tokens_per_second\": %.2f, \"generate_ms\": %.1f, \"gui_cpu_ms\": %.1f, "
                "\"gui_cpu_share\": %.4f, \"wall_ms\": %.1f, \"prompt_tokens\": %d, \"flush_ms\": %d, "
                "\"engine_cpu_ms\": %.1f, \"other_cpu_ms\": %.1f, \"other_threads\": %s}\n",
                m.tokens, speed, generateMs, cpuMs, wallMs > 0 ? cpuMs / wallMs : 0.0, wallMs, reply->promptTokens(),
                m_chat->viewFlushInterval(), engineMs, otherMs,
                QJsonDocument(others).toJson(QJsonDocument::Compact).constData());
    std::fflush(stdout);
    QCoreApplication::exit(m.state == Chat::State::Complete ? 0 : 3);
}
