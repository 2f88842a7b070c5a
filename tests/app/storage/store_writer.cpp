// Helper for tst_conversationstore's tests that need a process of their own.
//   store_writer DB            writes a conversation into the store at DB,
//       then streams a reply into it forever (one update per line
//       "UPDATED <n>" on stdout, written after the update is committed)
//       until the test kills it with SIGKILL (the crash test);
//   store_writer DB open [FSIZE]  opens the store as an unprivileged user
//       would (root drops to nobody first, so file permissions count), with
//       files limited to FSIZE bytes when given (a disk that is full), and
//       prints "READY <ready> <readOnly> <conversations> <failure>" and
//       "PROBLEM <text>".
#include <QCoreApplication>
#include <QJsonObject>
#include <QThread>

#include <cstdio>
#include <csignal>
#include <cstdlib>

#include <sys/resource.h>
#include <unistd.h>

#include "storage/conversationstore.h"

// The reply's text after `n` updates; the test checks the stored text is one
// of these.
static QString partialReply(int n)
{
    QString text;
    for (int i = 0; i < n; ++i)
        text += QStringLiteral("token%1 ").arg(i);
    return text;
}

static int openOnly(const char *path, const char *fsize)
{
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) {
        std::fprintf(stderr, "cannot drop root\n");
        return 2;
    }
    if (fsize) {
        std::signal(SIGXFSZ, SIG_IGN);   // a write past the limit fails (EFBIG) instead of killing us
        const rlim_t bytes = rlim_t(std::strtoull(fsize, nullptr, 10));
        const rlimit limit{bytes, bytes};
        if (setrlimit(RLIMIT_FSIZE, &limit) != 0)
            return 2;
    }
    ConversationStore store;
    store.setDatabasePath(QString::fromLocal8Bit(path));
    store.setBusyTimeoutMs(200);
    store.open();
    std::printf("READY %d %d %lld %d\n", store.isReady() ? 1 : 0, store.isReadOnly() ? 1 : 0,
                static_cast<long long>(store.conversations().size()), int(store.lastFailure()));
    std::printf("PROBLEM %s\n", store.problem().toUtf8().constData());
    std::fflush(stdout);
    return 0;
}

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: store_writer <database> [open [FSIZE]]\n");
        return 2;
    }
    if (argc >= 3 && qstrcmp(argv[2], "open") == 0)
        return openOnly(argv[1], argc >= 4 ? argv[3] : nullptr);
    ConversationStore store;
    store.setDatabasePath(QString::fromLocal8Bit(argv[1]));
    if (!store.open()) {
        std::fprintf(stderr, "cannot open the store\n");
        return 2;
    }
    const QJsonObject settings{{QStringLiteral("temperature"), 0.25}, {QStringLiteral("seed"), 7}};
    const qint64 id = store.createConversation(QString(), QStringLiteral("/models/tiny.gguf"), 1234, settings);
    for (int turn = 0; turn < 3; ++turn) {
        store.appendMessage(id, Chat::Role::User, QStringLiteral("question %1").arg(turn));
        const qint64 reply = store.beginReply(id, QStringLiteral("tiny.gguf"), settings);
        store.updateReply(reply, QStringLiteral("answer"));
        store.finishReply(reply, QStringLiteral("answer %1").arg(turn), Chat::State::Complete, 10, 5, 42.5);
    }
    store.appendMessage(id, Chat::Role::User, QStringLiteral("the last question"));
    const qint64 reply = store.beginReply(id, QStringLiteral("tiny.gguf"), settings);
    std::printf("READY %lld %lld\n", static_cast<long long>(id), static_cast<long long>(reply));
    std::fflush(stdout);
    for (int n = 1; n < 100000; ++n) {
        if (!store.updateReply(reply, partialReply(n)))
            return 3;
        std::printf("UPDATED %d\n", n);
        std::fflush(stdout);
        QThread::msleep(10);
    }
    return 4;  // never reached in the test: it kills us long before
}
