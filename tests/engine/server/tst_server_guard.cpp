// Who may talk to the server: the Host check against DNS rebinding, the
// CORS origin list, the Bearer key.
#include "server/http_guard.h"

#include <QtTest>

using namespace burrow::server;

class TestServerGuard : public QObject {
    Q_OBJECT

private slots:
    void host_data()
    {
        QTest::addColumn<QString>("host");
        QTest::addColumn<bool>("allowed");
        QTest::newRow("localhost") << "localhost" << true;
        QTest::newRow("localhost:port") << "localhost:8080" << true;
        QTest::newRow("LOCALHOST") << "LocalHost:8080" << true;
        QTest::newRow("trailing dot") << "localhost.:8080" << true;
        QTest::newRow("sub.localhost") << "app.localhost:1" << true;
        QTest::newRow("127.0.0.1") << "127.0.0.1:8080" << true;
        QTest::newRow("lan ip") << "192.168.1.20:8080" << true;
        QTest::newRow("[::1]") << "[::1]:8080" << true;
        QTest::newRow("[::1] no port") << "[::1]" << true;
        QTest::newRow("machine") << "burrow-box:8080" << true;
        QTest::newRow("machine.local") << "burrow-box.local" << true;
        QTest::newRow("listed") << "chat.example.org:443" << true;
        QTest::newRow("listed domain") << "a.b.lan" << true;
        QTest::newRow("listed domain itself") << "b.lan" << true;
        QTest::newRow("rebinding name") << "evil.example:8080" << false;
        QTest::newRow("localhost suffix trick") << "localhost.evil.example" << false;
        QTest::newRow("fake localhost") << "notlocalhost" << false;
        QTest::newRow("not an ip") << "127.0.0.1.evil.example" << false;
        QTest::newRow("empty") << "" << false;
        QTest::newRow("bad port") << "localhost:80a" << false;
        QTest::newRow("empty port") << "localhost:" << false;
        QTest::newRow("bare ipv6") << "::1" << false;
        QTest::newRow("bracket junk") << "[::1]x" << false;
        QTest::newRow("bracket name") << "[evil.example]" << false;
        QTest::newRow("machine suffix trick") << "burrow-box.evil.example" << false;
    }
    void host()
    {
        QFETCH(QString, host);
        QFETCH(bool, allowed);
        const std::vector<std::string> listed = {"Chat.Example.org", ".b.lan"};
        QCOMPARE(hostAllowed(host.toStdString(), listed, "burrow-box"), allowed);
    }

    void anyHost()
    {
        QVERIFY(hostAllowed("evil.example", {"*"}, ""));
        QVERIFY(!hostAllowed("evil.example", {}, ""));
    }

    void origin_data()
    {
        QTest::addColumn<QString>("origin");
        QTest::addColumn<QStringList>("listed");
        QTest::addColumn<bool>("allowed");
        QTest::newRow("none listed") << "http://localhost:3000" << QStringList{} << false;
        QTest::newRow("exact") << "http://localhost:3000" << QStringList{"http://localhost:3000"} << true;
        QTest::newRow("case") << "HTTP://LocalHost:3000" << QStringList{"http://localhost:3000"} << true;
        QTest::newRow("other port") << "http://localhost:3001" << QStringList{"http://localhost:3000"} << false;
        QTest::newRow("star") << "https://anything.example" << QStringList{"*"} << true;
        QTest::newRow("null origin") << "null" << QStringList{"http://localhost:3000"} << false;
        QTest::newRow("prefix trick") << "http://localhost:3000.evil.example" << QStringList{"http://localhost:3000"}
                                      << false;
    }
    void origin()
    {
        QFETCH(QString, origin);
        QFETCH(QStringList, listed);
        QFETCH(bool, allowed);
        std::vector<std::string> list;
        for (const QString &s : listed)
            list.push_back(s.toStdString());
        QCOMPARE(originAllowed(origin.toStdString(), list), allowed);
    }

    void bearer_data()
    {
        QTest::addColumn<QString>("header");
        QTest::addColumn<bool>("matches");
        QTest::newRow("right") << "Bearer s3cret" << true;
        QTest::newRow("scheme case") << "bearer s3cret" << true;
        QTest::newRow("extra spaces") << "Bearer   s3cret " << true;
        QTest::newRow("wrong") << "Bearer s3creT" << false;
        QTest::newRow("prefix") << "Bearer s3cre" << false;
        QTest::newRow("longer") << "Bearer s3cret2" << false;
        QTest::newRow("no scheme") << "s3cret" << false;
        QTest::newRow("basic") << "Basic s3cret" << false;
        QTest::newRow("empty") << "" << false;
        QTest::newRow("empty token") << "Bearer " << false;
    }
    void bearer()
    {
        QFETCH(QString, header);
        QFETCH(bool, matches);
        QCOMPARE(bearerMatches(header.toStdString(), "s3cret"), matches);
    }

    void noKeyMatchesNothing()
    {
        QVERIFY(!bearerMatches("Bearer ", ""));
        QVERIFY(!bearerMatches("Bearer x", ""));
    }

    void constantTime()
    {
        QVERIFY(constantTimeEquals("", ""));
        QVERIFY(constantTimeEquals("abc", "abc"));
        QVERIFY(!constantTimeEquals("abc", "abd"));
        QVERIFY(!constantTimeEquals("abc", "ab"));
        QVERIFY(!constantTimeEquals("ab", "abc"));
        QVERIFY(!constantTimeEquals(std::string("a\0b", 3), std::string("a\0c", 3)));
        QVERIFY(!constantTimeEquals(std::string("ab\0", 3), "ab"));
    }
};

QTEST_MAIN(TestServerGuard)
#include "tst_server_guard.moc"
