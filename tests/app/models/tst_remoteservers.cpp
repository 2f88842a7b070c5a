// Settings → Servers' list (RemoteServers, issue 33): addresses refused in
// words, plain http to another computer warned about once, a server's
// models listed (GET /v1/models, with its key) and shown in the model
// library marked remote, the list and the key (in a 0600 file here, where
// no keychain is used) kept across restarts and handed to RemoteEndpoints,
// and a removed server forgotten with its key.
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include "backend/remoteendpoints.h"
#include "models/accesstoken.h"
#include "models/modellibrary.h"
#include "models/remoteservers.h"

namespace {

// Answers GET /v1/models with two models (one with its context length);
// remembers each request's head.
class ModelsServer : public QObject {
public:
    ModelsServer()
    {
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            QTcpSocket *s = m_server.nextPendingConnection();
            connect(s, &QTcpSocket::readyRead, s, [this, s] {
                const QByteArray head = s->peek(8192);
                if (!head.contains("\r\n\r\n"))
                    return;
                s->readAll();
                heads << head;
                const QByteArray body =
                    R"({"object":"list","data":[{"id":"Qwen/Qwen3-32B","object":"model","max_model_len":32768},)"
                    R"({"id":"llama3.2:latest","object":"model"}]})";
                s->write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                         + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
                s->disconnectFromHost();
            });
        });
        m_server.listen(QHostAddress::LocalHost, 0);
    }
    QString url() const { return QStringLiteral("http://127.0.0.1:%1/v1").arg(m_server.serverPort()); }
    QList<QByteArray> heads;

private:
    QTcpServer m_server;
};

} // namespace

class TestRemoteServers : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { qputenv("BURROW_TOKEN_STORE", "file"); }
    void init()
    {
        QSettings().clear();
        RemoteEndpoints::instance().set({});
    }

    void refusedAddresses_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("said");
        QTest::newRow("no scheme") << "192.168.1.20:8000" << "with http:// or https://";
        QTest::newRow("ftp") << "ftp://example.org/v1" << "with http:// or https://";
        QTest::newRow("no host") << "http:///v1" << "is not a server address";
    }
    void refusedAddresses()
    {
        QFETCH(QString, url);
        QFETCH(QString, said);
        RemoteServers servers;
        QVERIFY(!servers.add(QString(), url, QString()));
        QVERIFY2(servers.problem().contains(said), qPrintable(servers.problem()));
        QVERIFY(!servers.warned());
        QCOMPARE(servers.rowCount(), 0);
        QVERIFY(RemoteEndpoints::instance().all().isEmpty());
    }

    // Plain http to another computer: the first Add warns (and adds
    // nothing), the second adds. https and loopback are not warned about.
    void plainHttpToAnotherComputerWarnsOnce()
    {
        RemoteServers servers;
        const QString lan = QStringLiteral("http://192.0.2.7:8000/v1");   // TEST-NET-1: never routed
        QVERIFY(!servers.add(QStringLiteral("GPU box"), lan, QStringLiteral("k")));
        QVERIFY(servers.warned());
        QVERIFY2(servers.problem().contains(QLatin1String("your chats and the API key would cross the network unencrypted")),
                 qPrintable(servers.problem()));
        QCOMPARE(servers.rowCount(), 0);
        QVERIFY(servers.add(QStringLiteral("GPU box"), lan, QStringLiteral("k")));
        QVERIFY(!servers.warned());
        QCOMPARE(servers.rowCount(), 1);
        QVERIFY(servers.data(servers.index(0), RemoteServers::InsecureRole).toBool());
        // The same address again: refused as a duplicate, not warned.
        QVERIFY(!servers.add(QString(), QStringLiteral("http://192.0.2.7:8000/v1/"), QString()));
        QVERIFY(servers.problem().contains(QLatin1String("in the list already")));
        QVERIFY(servers.add(QString(), QStringLiteral("https://gpu.example.org/v1"), QString()));
        QCOMPARE(servers.rowCount(), 2);
    }

    // Added with a key: its models are listed with the key and appear in
    // the library; after a restart the server, its key and its models are
    // there again; removed, its key file is gone and nothing may be sent to it.
    void listKeepAndRemove()
    {
        ModelsServer models;
        QString keyFile;
        {
            RemoteServers servers;
            QSignalSpy listed(&servers, &RemoteServers::modelsChanged);
            QVERIFY(servers.add(QStringLiteral("Loopback"), models.url(), QStringLiteral("sesame")));
            QTRY_COMPARE(servers.data(servers.index(0), RemoteServers::ModelsRole).toStringList(),
                         (QStringList{QStringLiteral("Qwen/Qwen3-32B"), QStringLiteral("llama3.2:latest")}));
            // (the English plural is the translation's: "2 model(s)" without it loaded)
            QVERIFY(servers.data(servers.index(0), RemoteServers::StatusRole).toString().startsWith(QLatin1String("2 model")));
            QVERIFY(models.heads.last().startsWith("GET /v1/models "));
            QVERIFY(models.heads.last().contains("Authorization: Bearer sesame"));
            const QString keyText = servers.data(servers.index(0), RemoteServers::KeyTextRole).toString();
            QVERIFY2(keyText.contains(QLatin1String("only you can read")), qPrintable(keyText));
            keyFile = keyText.section(QLatin1String(" in "), 1).section(QLatin1String(", which"), 0, 0);
            QVERIFY2(QFile::exists(keyFile), qPrintable(keyFile));
            QCOMPARE(QFile::permissions(keyFile) & ~(QFileDevice::ReadUser | QFileDevice::WriteUser),
                     QFileDevice::ReadOwner | QFileDevice::WriteOwner);

            ModelLibrary library;
            library.setServers(&servers);
            const QList<LibraryEntry> entries = servers.libraryEntries();
            QCOMPARE(entries.size(), 2);
            QCOMPARE(entries[0].source, QStringLiteral("remote"));
            QCOMPARE(entries[0].contextLength, 32768);
            QVERIFY(entries[0].card.remote);
            const RemoteModelRef ref = RemoteModelRef::parse(entries[1].path);
            QCOMPARE(ref.modelId, QStringLiteral("llama3.2:latest"));
            QCOMPARE(ref.baseUrl.toString(), models.url());
            bool inLibrary = false;
            for (const LibraryEntry &e : library.allModels()->entries())
                inLibrary = inLibrary || e.path == entries[1].path;
            QVERIFY(inLibrary);
        }
        RemoteEndpoints::instance().set({});
        // A restart: the list, the key and the last listed models again.
        RemoteServers again;
        QCOMPARE(again.rowCount(), 1);
        QCOMPARE(again.data(again.index(0), RemoteServers::NameRole).toString(), QStringLiteral("Loopback"));
        QCOMPARE(again.libraryEntries().size(), 2);
        QTRY_COMPARE(RemoteEndpoints::instance().find(QUrl(models.url()))->apiKey, QStringLiteral("sesame"));
        QCOMPARE(RemoteEndpoints::instance().find(QUrl(models.url()))->models.first().second, 32768);
        // The settings hold the list, never the key.
        QVERIFY(!QSettings().value(QStringLiteral("servers/list")).toByteArray().contains("sesame"));

        again.remove(0);
        QCOMPARE(again.rowCount(), 0);
        QVERIFY(!QFile::exists(keyFile));
        QVERIFY(!RemoteEndpoints::instance().find(QUrl(models.url())));
        QVERIFY(again.libraryEntries().isEmpty());
    }
};

QTEST_MAIN(TestRemoteServers)
#include "tst_remoteservers.moc"
