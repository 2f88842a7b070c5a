// Settings → Local server with the real engine: off by default and kept
// across restarts (QSettings); turned on, `GET /health` and a
// `POST /v1/chat/completions` answer while a chat streams (the server shares
// the app's model and scheduler), the status line shows the address; an API
// key is asked for; turned off, connections are refused; a port in use is
// reported in words, not a crash.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSettings>
#include <QTcpServer>

#include "apptestsupport.h"
#include "settings/localserver.h"

Q_IMPORT_QML_PLUGIN(BurrowPlugin)

using namespace burrow::test;

namespace {

const QString kBench = QStringLiteral("models/bench/llama-155M-Q4_K_M.gguf");

struct Answer {
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    int status = 0;
    QByteArray body;
};

// One request, waited for (at most 60 s).
Answer fetch(QNetworkAccessManager &net, const QUrl &url, const QByteArray &post = QByteArray(),
             const QByteArray &key = QByteArray())
{
    QNetworkRequest request(url);
    request.setTransferTimeout(60000);
    if (!key.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + key);
    QNetworkReply *reply = nullptr;
    if (post.isNull()) {
        reply = net.get(request);
    } else {
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
        reply = net.post(request, post);
    }
    QSignalSpy done(reply, &QNetworkReply::finished);
    done.wait(60000);
    Answer answer;
    answer.error = reply->error();
    answer.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    answer.body = reply->readAll();
    reply->deleteLater();
    return answer;
}

// A port nothing listens on now (the system's choice, released again).
int freePort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    return probe.serverPort();
}

bool loadModel(ChatController *chat, const QString &path)
{
    QSignalSpy finished(chat, &ChatController::loadFinished);
    chat->models()->openFile(path, false);
    return (!finished.isEmpty() || finished.wait(60000)) && finished.first().first().toBool();
}

QString statusLine(AppWindow &app)
{
    auto *label = app.find<QObject>(QStringLiteral("statusServer"));
    return label && label->property("visible").toBool() ? label->property("text").toString() : QString();
}

} // namespace

class TestLocalServer : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        EngineBridge::resetBackendFactory();
        QSettings().remove(QStringLiteral("server"));
    }

    void cleanup() { QSettings().remove(QStringLiteral("server")); }

    void offByDefaultAndKeptAcrossRestarts()
    {
        {
            AppWindow app;
            QVERIFY(app.open());
            LocalServer *server = app.chat->server();
            QVERIFY(!server->isEnabled());
            QCOMPARE(server->port(), 8080);
            QVERIFY(!server->allowNetwork());
            QCOMPARE(server->apiKey(), QString());
            QCOMPARE(statusLine(app), QString());
            server->setPort(8181);
            server->setAllowNetwork(true);
            server->setApiKey(QStringLiteral(" secret "));
            // The dialog (Settings → Local server…) warns while other devices are allowed.
            auto *dialog = app.find<QObject>(QStringLiteral("localServerDialog"));
            QVERIFY(dialog);
            QVERIFY(QMetaObject::invokeMethod(dialog, "open"));
            QTRY_VERIFY(dialog->property("opened").toBool());
            auto *warning = app.find<QQuickItem>(QStringLiteral("serverNetworkWarning"));
            QVERIFY(warning);
            QVERIFY(warning->isVisible());
            server->setAllowNetwork(false);
            QVERIFY(!warning->isVisible());
            server->setAllowNetwork(true);
            QVERIFY(warning->isVisible());
            QCOMPARE(app.find<QQuickItem>(QStringLiteral("serverPort"))->property("value").toInt(), 8181);
            QVERIFY(QMetaObject::invokeMethod(dialog, "close"));
        }
        AppWindow again;
        QVERIFY(again.open(true));
        LocalServer *server = again.chat->server();
        QVERIFY(!server->isEnabled());
        QCOMPARE(server->port(), 8181);
        QVERIFY(server->allowNetwork());
        QCOMPARE(server->apiKey(), QStringLiteral("secret"));
    }

    void answersWhileAChatStreams()
    {
        BURROW_REQUIRE_SHARED(kBench);
        AppWindow app;
        QVERIFY(app.open());
        app.chat->settings()->setContextSize(2048);
        app.chat->settings()->setMaxTokens(1500);
        QVERIFY(loadModel(app.chat, sharedPath(kBench)));
        LocalServer *server = app.chat->server();
        const int port = freePort();
        QVERIFY(port > 0);
        server->setPort(port);

        // A long reply in the chat.
        QString prompt;
        for (int i = 0; i < 60; ++i)
            prompt += QStringLiteral("The little fox ran across the field %1. ").arg(i);
        QVERIFY(app.chat->send(prompt));
        QVERIFY(app.chat->isGenerating());

        server->setEnabled(true);
        QTRY_VERIFY_WITH_TIMEOUT(server->isRunning(), 10000);
        const QString url = QStringLiteral("http://127.0.0.1:%1").arg(port);
        QCOMPARE(server->url(), url);
        QTRY_VERIFY_WITH_TIMEOUT(statusLine(app).contains(QStringLiteral("127.0.0.1:%1").arg(port)), 5000);

        QNetworkAccessManager net;
        const Answer health = fetch(net, QUrl(url + QStringLiteral("/health")));
        QCOMPARE(health.error, QNetworkReply::NoError);
        QCOMPARE(health.status, 200);

        const bool streamingBefore = app.chat->isGenerating();
        QJsonObject body{{QStringLiteral("messages"),
                          QJsonArray{QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                                                 {QStringLiteral("content"), QStringLiteral("Once upon a time")}}}},
                         {QStringLiteral("max_tokens"), 8},
                         {QStringLiteral("temperature"), 0}};
        const Answer chat = fetch(net, QUrl(url + QStringLiteral("/v1/chat/completions")),
                                  QJsonDocument(body).toJson(QJsonDocument::Compact));
        QCOMPARE(chat.error, QNetworkReply::NoError);
        QCOMPARE(chat.status, 200);
        const QJsonObject answer = QJsonDocument::fromJson(chat.body).object();
        const QJsonObject message = answer.value(QStringLiteral("choices")).toArray().at(0).toObject()
                                        .value(QStringLiteral("message")).toObject();
        QCOMPARE(message.value(QStringLiteral("role")).toString(), QStringLiteral("assistant"));
        QVERIFY2(!message.value(QStringLiteral("content")).toString().isEmpty(), chat.body.constData());
        QVERIFY2(streamingBefore, "the chat's reply ended before the API request was sent");
        qInfo("chat still writing after the API answered: %s", app.chat->isGenerating() ? "yes" : "no");

        // The number of clients shows on the status line.
        QTRY_VERIFY_WITH_TIMEOUT(statusLine(app).contains(QStringLiteral("client")), 5000);
        app.chat->stop();
        QTRY_VERIFY_WITH_TIMEOUT(!app.chat->isGenerating(), 30000);
    }

    void apiKeyIsAskedFor()
    {
        BURROW_REQUIRE_SHARED(kBench);
        AppWindow app;
        QVERIFY(app.open());
        QVERIFY(loadModel(app.chat, sharedPath(kBench)));
        LocalServer *server = app.chat->server();
        const int port = freePort();
        server->setPort(port);
        server->setApiKey(QStringLiteral("k3y"));
        server->setEnabled(true);
        QTRY_VERIFY_WITH_TIMEOUT(server->isRunning(), 10000);
        QNetworkAccessManager net;
        const QUrl models(QStringLiteral("http://127.0.0.1:%1/v1/models").arg(port));
        QCOMPARE(fetch(net, models).status, 401);
        QCOMPARE(fetch(net, models, QByteArray(), "k3y").status, 200);
    }

    void offRefusesConnections()
    {
        BURROW_REQUIRE_SHARED(kBench);
        AppWindow app;
        QVERIFY(app.open());
        QVERIFY(loadModel(app.chat, sharedPath(kBench)));
        LocalServer *server = app.chat->server();
        const int port = freePort();
        server->setPort(port);
        const QUrl health(QStringLiteral("http://127.0.0.1:%1/health").arg(port));
        QNetworkAccessManager net;
        QCOMPARE(fetch(net, health).error, QNetworkReply::ConnectionRefusedError);   // off by default
        server->setEnabled(true);
        QTRY_VERIFY_WITH_TIMEOUT(server->isRunning(), 10000);
        QCOMPARE(fetch(net, health).status, 200);
        server->setEnabled(false);
        QVERIFY(!server->isRunning());
        QCOMPARE(statusLine(app), QString());
        // The engine thread stops it after the queued call.
        QTRY_COMPARE_WITH_TIMEOUT(fetch(net, health).error, QNetworkReply::ConnectionRefusedError, 10000);
    }

    void portInUseIsReported()
    {
        BURROW_REQUIRE_SHARED(kBench);
        QTcpServer taken;
        QVERIFY(taken.listen(QHostAddress::Any, 0));
        AppWindow app;
        QVERIFY(app.open());
        QVERIFY(loadModel(app.chat, sharedPath(kBench)));
        LocalServer *server = app.chat->server();
        server->setPort(taken.serverPort());
        server->setEnabled(true);
        QTRY_VERIFY_WITH_TIMEOUT(!server->error().isEmpty(), 10000);
        QVERIFY(!server->isRunning());
        QVERIFY2(server->error().contains(QStringLiteral("in use")), qPrintable(server->error()));
        QVERIFY2(server->error().contains(QString::number(taken.serverPort())), qPrintable(server->error()));
        QVERIFY2(statusLine(app).contains(QStringLiteral("in use")), qPrintable(statusLine(app)));
        // Another port: it runs, and the chat still works.
        server->setPort(freePort());
        QTRY_VERIFY_WITH_TIMEOUT(server->isRunning(), 10000);
        QVERIFY(server->error().isEmpty());
    }
};

QTEST_MAIN(TestLocalServer)
#include "tst_localserver.moc"
