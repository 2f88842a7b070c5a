// The tool calls of a chat through ChatController (what the tool card's
// buttons call), with a fake backend whose replies call a tool and a fake
// MCP server over stdio (backend/fake_mcp_server.cpp): a call waits for the
// user; Deny tells the model so, Always for this chat runs later calls of
// the tool without asking, and each settled reply goes on by itself with an
// assistant turn of tool_calls and one tool message per call; the chat's
// Tools switch off sends no tools; no server, no tools.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "backend/enginebridge.h"
#include "chat/chatcontroller.h"
#include "fakebackend.h"



namespace {

QList<ModelToolCall> echo(const QString &message)
{
    return {{QStringLiteral("echo"), QStringLiteral("{\"message\":\"%1\"}").arg(message)}};
}

// The entry of call 0 of the reply at `row`.
QJsonObject callAt(ChatController &chat, int row)
{
    return chat.messages()->message(row).tools.at(0).toObject();
}

} // namespace

class TestToolRunner : public QObject {
    Q_OBJECT

    std::shared_ptr<FakeControl> m_control;
    QTemporaryDir m_dir;

    bool load(ChatController &chat)
    {
        const QString path = m_dir.filePath(QStringLiteral("good.gguf"));
        QFile f(path);
        if (!f.exists() && f.open(QIODevice::WriteOnly))
            f.write("GGUF");
        f.close();
        QSignalSpy finished(&chat, &ChatController::loadFinished);
        chat.models()->openFile(path, false);
        return finished.wait(10000) && finished.first().first().toBool();
    }

    static bool addFakeServer(ChatController &chat, const QString &mode = QStringLiteral("ok"))
    {
        McpServerSpec spec;
        spec.name = QStringLiteral("fake");
        spec.command = QStringLiteral(FAKE_MCP_SERVER);
        spec.args = {mode};
        return chat.tools()->add(spec) && QTest::qWaitFor([&] { return chat.tools()->toolCount() == 3; }, 10000);
    }

private Q_SLOTS:
    void init()
    {
        QSettings().clear();
        m_control = std::make_shared<FakeControl>();
        m_control->gated = false;
        m_control->pieces = {QStringLiteral("ok")};
        EngineBridge::setBackendFactory(fakeFactory(m_control));
    }
    void cleanup()
    {
        m_control->abort = true;
        EngineBridge::resetBackendFactory();
    }

    void denyAlwaysAndGoOn()
    {
        ChatController chat;
        QVERIFY(chat.startPersistence(m_dir.filePath(QStringLiteral("a.db"))));
        QVERIFY(load(chat));
        QVERIFY(addFakeServer(chat));
        // Reply 1 calls echo (denied), reply 3 calls it (always), reply 5 calls it (runs alone).
        m_control->toolCalls = {echo(QStringLiteral("one")), {}, echo(QStringLiteral("two")), {},
                                echo(QStringLiteral("three")), {}};

        QVERIFY(chat.send(QStringLiteral("first")));
        QTRY_COMPARE(chat.messages()->rowCount(), 2);
        QTRY_COMPARE(callAt(chat, 1).value(QLatin1String("state")).toString(), QStringLiteral("pending"));
        QTest::qWait(100);
        QCOMPARE(int(m_control->generateCalls), 1);   // nothing goes on before the user decides
        QVERIFY(QJsonDocument::fromJson(QByteArray::fromStdString(m_control->requests.at(0).toolsJson)).array().size() == 3);
        QVERIFY(!chat.decideTool(1, 1, QStringLiteral("denied")));   // no such call
        QVERIFY(!chat.decideTool(1, 0, QStringLiteral("maybe")));
        QVERIFY(chat.decideTool(1, 0, QStringLiteral("denied")));
        QCOMPARE(callAt(chat, 1).value(QLatin1String("state")).toString(), QStringLiteral("denied"));
        QVERIFY(!chat.decideTool(1, 0, QStringLiteral("once")));   // decided already
        // The reply goes on, seeing the call and the denial.
        QTRY_COMPARE(chat.messages()->rowCount(), 3);
        QTRY_COMPARE(int(m_control->generateCalls), 2);
        QTRY_VERIFY(!chat.isGenerating());
        {
            const std::vector<burrow::ChatMessage> &m = m_control->requests.at(1).messages;
            QCOMPARE(m.size(), size_t(3));
            QCOMPARE(m.at(1).role, std::string("assistant"));
            const QJsonObject extra = QJsonDocument::fromJson(QByteArray::fromStdString(m.at(1).extraJson)).object();
            const QJsonObject fn = extra.value(QLatin1String("tool_calls")).toArray().at(0).toObject()
                                       .value(QLatin1String("function")).toObject();
            QCOMPARE(fn.value(QLatin1String("name")).toString(), QStringLiteral("echo"));
            QCOMPARE(fn.value(QLatin1String("arguments")).toString(), QStringLiteral("{\"message\":\"one\"}"));
            QCOMPARE(m.at(2).role, std::string("tool"));
            QCOMPARE(m.at(2).content, std::string("The user did not allow this call."));
            QVERIFY(m.at(2).extraJson.find("\"tool_call_id\"") != std::string::npos);
        }

        // Always for this chat: runs now, and the next call of echo runs without asking.
        QVERIFY(chat.send(QStringLiteral("second")));
        QTRY_COMPARE(chat.messages()->rowCount(), 5);
        QTRY_COMPARE(callAt(chat, 4).value(QLatin1String("state")).toString(), QStringLiteral("pending"));
        QVERIFY(chat.decideTool(4, 0, QStringLiteral("always")));
        QTRY_COMPARE(callAt(chat, 4).value(QLatin1String("result")).toString(), QStringLiteral("Echo: two"));
        QCOMPARE(callAt(chat, 4).value(QLatin1String("state")).toString(), QStringLiteral("done"));
        QTRY_COMPARE(chat.messages()->rowCount(), 6);
        QTRY_VERIFY(!chat.isGenerating());
        QVERIFY(chat.send(QStringLiteral("third")));
        QTRY_COMPARE(chat.messages()->rowCount(), 9);   // the call ran alone, the reply went on
        QCOMPARE(callAt(chat, 7).value(QLatin1String("decision")).toString(), QStringLiteral("always"));
        QCOMPARE(callAt(chat, 7).value(QLatin1String("result")).toString(), QStringLiteral("Echo: three"));
        QTRY_VERIFY(!chat.isGenerating());
        QCOMPARE(m_control->requests.at(5).messages.back().content, std::string("Echo: three"));

        // Stored with the replies.
        const QVector<MessageRecord> stored = chat.store()->messages(qint64(chat.conversationId()));
        QCOMPARE(stored.at(1).tools.at(0).toObject().value(QLatin1String("state")).toString(), QStringLiteral("denied"));
        QCOMPARE(stored.at(7).tools.at(0).toObject().value(QLatin1String("result")).toString(), QStringLiteral("Echo: three"));

        // The chat's Tools switch off: no tools go with the request.
        chat.settings()->setTools(false);
        QVERIFY(chat.send(QStringLiteral("fourth")));
        QTRY_COMPARE(int(m_control->generateCalls), 7);
        QTRY_VERIFY(!chat.isGenerating());
        QVERIFY(m_control->requests.at(6).toolsJson.empty());
    }

    // A server that dies in the call, and a tool no server offers any more:
    // each call's card says why, and the reply goes on with that as the result.
    void failuresAreReportedOnTheCard()
    {
        ChatController chat;
        QVERIFY(chat.startPersistence(m_dir.filePath(QStringLiteral("c.db"))));
        QVERIFY(load(chat));
        QVERIFY(addFakeServer(chat, QStringLiteral("die")));
        m_control->toolCalls = {echo(QStringLiteral("one")), {}, echo(QStringLiteral("two")), {}};
        QVERIFY(chat.send(QStringLiteral("first")));
        QTRY_COMPARE(callAt(chat, 1).value(QLatin1String("state")).toString(), QStringLiteral("pending"));
        QVERIFY(chat.decideTool(1, 0, QStringLiteral("once")));
        QTRY_COMPARE_WITH_TIMEOUT(callAt(chat, 1).value(QLatin1String("state")).toString(), QStringLiteral("failed"), 10000);
        const QString why = callAt(chat, 1).value(QLatin1String("result")).toString();
        QVERIFY2(why.contains(QLatin1String("exit status 3")) && why.contains(QLatin1String("giving up on purpose")),
                 qPrintable(why));
        QTRY_COMPARE(chat.messages()->rowCount(), 3);
        QTRY_VERIFY(!chat.isGenerating());
        QCOMPARE(QString::fromStdString(m_control->requests.at(1).messages.back().content), why);

        chat.tools()->remove(0);
        QVERIFY(chat.send(QStringLiteral("second")));
        QTRY_COMPARE(chat.messages()->rowCount(), 5);
        QTRY_COMPARE(callAt(chat, 4).value(QLatin1String("state")).toString(), QStringLiteral("pending"));
        QVERIFY(chat.decideTool(4, 0, QStringLiteral("once")));
        QTRY_COMPARE(callAt(chat, 4).value(QLatin1String("state")).toString(), QStringLiteral("failed"));
        QVERIFY2(callAt(chat, 4).value(QLatin1String("result")).toString().contains(QStringLiteral("No tool server offers")),
                 qPrintable(callAt(chat, 4).value(QLatin1String("result")).toString()));
        QTRY_COMPARE(chat.messages()->rowCount(), 6);
    }

    // No server: no tools go to the model (tool use is off until a server is added).
    void noServerNoTools()
    {
        ChatController chat;
        QVERIFY(chat.startPersistence(m_dir.filePath(QStringLiteral("b.db"))));
        QVERIFY(load(chat));
        QCOMPARE(chat.tools()->rowCount(), 0);
        QVERIFY(chat.settings()->tools());
        QVERIFY(chat.send(QStringLiteral("hello")));
        QTRY_COMPARE(int(m_control->generateCalls), 1);
        QTRY_VERIFY(!chat.isGenerating());
        QVERIFY(m_control->requests.at(0).toolsJson.empty());
    }
};

QTEST_MAIN(TestToolRunner)
#include "tst_toolrunner.moc"
