// ReplyBench: `burrow --bench PROMPT MODEL` measures the app as a user runs
// it. Once the model is loaded it sends PROMPT once with greedy sampling
// (temperature 0, repeat penalty 1, at most --bench-tokens tokens), lets the
// reply stream into the real window, then prints one JSON line to stdout and
// quits:
//   {"generated": N, "tokens_per_second": T, "generate_ms": G,
//    "gui_cpu_ms": C, "gui_cpu_share": S, "wall_ms": W, "engine_cpu_ms": E,
//    "other_cpu_ms": O, "other_threads": {"NAME": ms, ...}}
// tokens_per_second is the engine's count over its generation time (as
// `burrow-cli run` reports it); gui_cpu_ms is the CPU time of the GUI thread
// from Send to the reply's end (CLOCK_THREAD_CPUTIME_ID), gui_cpu_share that
// over the wall time. engine_cpu_ms is the CPU time of the engine's threads
// ("burrow-sched", "burrow-pool": common/thread_name.h) and other_cpu_ms that
// of every other thread of the process (GUI, the scene graph's render thread,
// Mesa's llvmpipe rasterisers, Qt's workers, SQLite), from Send to the end,
// per thread name in other_threads; read from /proc/self/task/*/schedstat
// (nanoseconds). What the X server spends drawing is outside the process:
// scripts/bench-app.sh reads it. The chat it writes goes into the data folder: run it
// with a temporary XDG_DATA_HOME (scripts/bench-app.sh does).
#pragma once

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QString>

class ChatController;

class ReplyBench : public QObject {
    Q_OBJECT

public:
    ReplyBench(ChatController *chat, const QString &prompt, int maxTokens, QObject *parent = nullptr);

private:
    void onLoaded(bool ok);
    void onReplyFinished(int row);

    ChatController *m_chat;
    QString m_prompt;
    int m_maxTokens;
    QElapsedTimer m_wall;
    qint64 m_cpuStartNs = 0;
    QHash<qint64, QPair<QString, qint64>> m_threadsAtSend;   // tid -> (name, CPU ns) at Send
    bool m_sent = false;
};
