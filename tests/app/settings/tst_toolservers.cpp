// ToolServers (Settings → Tools' list): what is refused and why, the warning
// about plain http to another computer, the list kept in the settings in the
// common {"mcpServers": ...} shape and started again by the next instance,
// and the tools of a server that answered as OpenAI function tools (a fake
// MCP server over stdio, backend/fake_mcp_server.cpp).
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QTest>

#include "settings/toolservers.h"

class TestToolServers : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() { QSettings().clear(); }

    void refusals_data()
    {
        QTest::addColumn<bool>("url");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("environment");
        QTest::addColumn<QString>("problem");
        QTest::newRow("no command") << false << "  " << "" << "Type the command that starts the server";
        QTest::newRow("environment line") << false << "node server.js" << "A=1\nnot a pair" << "“not a pair” is not";
        QTest::newRow("not an address") << true << "127.0.0.1:3001/mcp" << "" << "with http:// or https://";
        QTest::newRow("ftp") << true << "ftp://example.org/mcp" << "" << "with http:// or https://";
    }

    void refusals()
    {
        QFETCH(bool, url);
        QFETCH(QString, text);
        QFETCH(QString, environment);
        QFETCH(QString, problem);
        ToolServers servers;
        QVERIFY(!(url ? servers.addUrl(QString(), text) : servers.addCommand(QString(), text, environment)));
        QVERIFY2(servers.problem().contains(problem), qPrintable(servers.problem()));
        QCOMPARE(servers.rowCount(), 0);
        QVERIFY(QSettings().value(QLatin1String(ToolServers::SettingsKey)).isNull());
    }

    void plainHttpToAnotherComputerIsWarnedOnce()
    {
        ToolServers servers;
        QVERIFY(!servers.addUrl(QStringLiteral("far"), QStringLiteral("http://192.0.2.7:3001/mcp")));   // TEST-NET-1
        QVERIFY2(servers.problem().contains(QLatin1String("plain http")), qPrintable(servers.problem()));
        QCOMPARE(servers.rowCount(), 0);
        QVERIFY(servers.addUrl(QStringLiteral("far"), QStringLiteral("http://192.0.2.7:3001/mcp")));
        QCOMPARE(servers.rowCount(), 1);
        QVERIFY(servers.problem().isEmpty());
        // Loopback is not warned about; a name given twice is refused.
        QVERIFY(servers.addUrl(QStringLiteral("near"), QStringLiteral("http://127.0.0.1:3001/mcp")));
        QVERIFY(!servers.addUrl(QStringLiteral("near"), QStringLiteral("http://127.0.0.1:3002/mcp")));
        QVERIFY2(servers.problem().contains(QLatin1String("already")), qPrintable(servers.problem()));
        QCOMPARE(servers.rowCount(), 2);
    }

    void keptStartedAndListed()
    {
        {
            ToolServers servers;
            QVERIFY(servers.addCommand(QStringLiteral("fake"), QStringLiteral("\"%1\" ok").arg(QStringLiteral(FAKE_MCP_SERVER)),
                                       QStringLiteral("GREETING=hello world\n")));
            QTRY_COMPARE(servers.data(servers.index(0), ToolServers::StatusRole).toString(), QStringLiteral("3 tool(s)"));
            QCOMPARE(servers.toolCount(), 3);
            const QStringList tools = servers.data(servers.index(0), ToolServers::ToolsRole).toStringList();
            QCOMPARE(tools.first(), QStringLiteral("echo — Echoes the message"));
            const QJsonObject fn = servers.toolsJson().at(0).toObject().value(QLatin1String("function")).toObject();
            QCOMPARE(servers.toolsJson().at(0).toObject().value(QLatin1String("type")).toString(), QStringLiteral("function"));
            QCOMPARE(fn.value(QLatin1String("name")).toString(), QStringLiteral("echo"));
            QCOMPARE(fn.value(QLatin1String("parameters")).toObject().value(QLatin1String("type")).toString(),
                     QStringLiteral("object"));
        }
        // Kept in the settings, in the shape other apps use.
        const QJsonObject saved = QJsonDocument::fromJson(QSettings().value(QLatin1String(ToolServers::SettingsKey)).toByteArray())
                                      .object().value(QLatin1String("mcpServers")).toObject();
        const QJsonObject fake = saved.value(QLatin1String("fake")).toObject();
        QCOMPARE(fake.value(QLatin1String("command")).toString(), QStringLiteral(FAKE_MCP_SERVER));
        QCOMPARE(fake.value(QLatin1String("args")).toArray(), QJsonArray{QStringLiteral("ok")});
        QCOMPARE(fake.value(QLatin1String("env")).toObject().value(QLatin1String("GREETING")).toString(),
                 QStringLiteral("hello world"));
        // The next instance starts it again; Remove forgets it.
        ToolServers again;
        QCOMPARE(again.rowCount(), 1);
        QTRY_COMPARE(again.toolCount(), 3);
        again.remove(0);
        QCOMPARE(again.rowCount(), 0);
        QCOMPARE(again.toolCount(), 0);
        QVERIFY(QJsonDocument::fromJson(QSettings().value(QLatin1String(ToolServers::SettingsKey)).toByteArray())
                    .object().value(QLatin1String("mcpServers")).toObject().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestToolServers)
#include "tst_toolservers.moc"
