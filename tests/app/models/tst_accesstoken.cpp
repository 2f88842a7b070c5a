// The Hugging Face access token (app/models/accesstoken.*): saved in a file
// only the user can read when there is no keychain (created 0600, never
// widened), remembered across instances, read back only when asked for,
// cleared everywhere; refused when it cannot be a token; never in a log
// line or in what QML can read. Where Burrow is built with QtKeychain, a
// keychain that does not answer (no session bus) falls back to the file.
#include <QFile>
#include <QFileInfo>
#include <QMetaProperty>
#include <QSignalSpy>
#include <QTest>
#include <sys/stat.h>

#include "models/accesstoken.h"

namespace {

const QString kToken = QStringLiteral("hf_SecretTokenValue123");

QStringList g_messages;

void capture(QtMsgType, const QMessageLogContext &, const QString &message)
{
    g_messages << message;
}

int modeOf(const QString &path)
{
    struct stat st {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return -1;
    return int(st.st_mode & 07777);
}

QString fetchNow(AccessToken &token)
{
    QString value = QStringLiteral("<not called>");
    QObject context;
    token.fetch(&context, [&](const QString &t) { value = t; });
    QTest::qWaitFor([&] { return value != u"<not called>"; }, 10000);
    return value;
}

} // namespace

class TestAccessToken : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("Burrow"));
        QCoreApplication::setApplicationName(QStringLiteral("Burrow"));
        qputenv("BURROW_TOKEN_STORE", "file");
    }
    void init()
    {
        AccessToken().clear();
        g_messages.clear();
    }

    void savedInAFileOnlyTheUserReads()
    {
        // An older file with wide permissions is replaced, not reused.
        QFile old(AccessToken::filePath());
        QVERIFY(QDir().mkpath(QFileInfo(old).absolutePath()));
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("old\n");
        old.close();
        QVERIFY(old.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadOther | QFileDevice::ReadGroup));

        const QtMessageHandler previous = qInstallMessageHandler(capture);
        {
            AccessToken token;
            QSignalSpy changed(&token, &AccessToken::changed);
            QVERIFY(token.save(QStringLiteral("  ") + kToken + QStringLiteral("\n")));
            QVERIFY(token.isSet());
            QCOMPARE(token.store(), AccessToken::Store::File);
            QVERIFY(token.error().isEmpty());
            QCOMPARE(modeOf(AccessToken::filePath()), 0600);
            QCOMPARE(fetchNow(token), kToken);
            QVERIFY(!token.storageText().contains(kToken));
            QVERIFY(token.storageText().contains(AccessToken::filePath()));
        }
        {
            // Another start: known to be set without reading it; read when asked.
            AccessToken token;
            QVERIFY(token.isSet());
            QCOMPARE(fetchNow(token), kToken);
            // Nothing QML can read holds it.
            const QMetaObject *meta = token.metaObject();
            for (int i = meta->propertyOffset(); i < meta->propertyCount(); ++i)
                QVERIFY(!meta->property(i).read(&token).toString().contains(kToken));
            token.clear();
            QVERIFY(!token.isSet());
            QVERIFY(!QFile::exists(AccessToken::filePath()));
            QCOMPARE(fetchNow(token), QString());
        }
        AccessToken after;
        QVERIFY(!after.isSet());
        QCOMPARE(fetchNow(after), QString());
        qInstallMessageHandler(previous);
        for (const QString &m : std::as_const(g_messages))
            QVERIFY2(!m.contains(kToken), qPrintable(m));
    }

    void refused_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("empty") << "   ";
        QTest::newRow("inner space") << "hf_abc def";
        QTest::newRow("control") << "hf_abc\x01";
        QTest::newRow("not ASCII") << "hf_äbc";
        QTest::newRow("too long") << QString(600, u'a');
    }
    void refused()
    {
        QFETCH(QString, text);
        AccessToken token;
        QVERIFY(!token.save(text));
        QVERIFY(!token.error().isEmpty());
        QVERIFY(!token.isSet());
        QVERIFY(!QFile::exists(AccessToken::filePath()));
    }

    // With QtKeychain and no keychain service answering (here: a session
    // bus that does not exist), the token goes to the file.
    void keychainFallsBackToFile()
    {
        qunsetenv("BURROW_TOKEN_STORE");
        const QByteArray bus = qgetenv("DBUS_SESSION_BUS_ADDRESS");
        qputenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/burrow-test-bus");
        if (!AccessToken::keychainEnabled()) {
            qputenv("BURROW_TOKEN_STORE", "file");
            QSKIP("Burrow is built without QtKeychain: the file is the only store");
        }
        {
            AccessToken token;
            QVERIFY(token.save(kToken));
            QVERIFY(QTest::qWaitFor([&] { return !token.isBusy(); }, 30000));
            QCOMPARE(token.store(), AccessToken::Store::File);
            QCOMPARE(modeOf(AccessToken::filePath()), 0600);
            QCOMPARE(fetchNow(token), kToken);
            token.clear();
        }
        qputenv("BURROW_TOKEN_STORE", "file");
        if (bus.isEmpty())
            qunsetenv("DBUS_SESSION_BUS_ADDRESS");
        else
            qputenv("DBUS_SESSION_BUS_ADDRESS", bus);
    }
};

QTEST_MAIN(TestAccessToken)
#include "tst_accesstoken.moc"
