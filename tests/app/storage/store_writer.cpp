// Helper for tst_conversationstore's crash test: writes a conversation into
// the store at argv[1], then streams a reply into it forever (one update per
// line "UPDATED <n>" on stdout, written after the update is committed) until
// the test kills it with SIGKILL.
#include <QCoreApplication>
#include <QJsonObject>
#include <QThread>

#include <cstdio>

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

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: store_writer <database>\n");
        return 2;
    }
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
