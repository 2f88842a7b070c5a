// The hub's protocol as Burrow reads it (app/models/hubprotocol.*) and the
// listing of a repository's GGUF files (app/models/hubclient.*), against
// FakeHub on loopback: what a pasted id or link means, safe local names,
// quantization hints, errors in words, pages followed, split models
// gathered, the token sent to the hub. The real hub is never contacted.
#include <QSignalSpy>
#include <QTest>

#include "fakehub.h"
#include "models/accesstoken.h"
#include "models/hubclient.h"
#include "models/hubprotocol.h"

using namespace burrow::test;

namespace {

// A port nothing listens on now.
int freePort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    return probe.serverPort();
}

bool waitIdle(HubClient &client)
{
    return QTest::qWaitFor([&] { return !client.isBusy(); }, 20000);
}

QVariantMap fileNamed(const HubClient &client, const QString &name)
{
    const QVariantList files = client.files();
    for (const QVariant &f : files)
        if (f.toMap().value(QStringLiteral("name")).toString() == name)
            return f.toMap();
    return {};
}

} // namespace

class TestHubClient : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("Burrow"));
        QCoreApplication::setApplicationName(QStringLiteral("Burrow"));
        qputenv("BURROW_TOKEN_STORE", "file");
        qunsetenv("HF_ENDPOINT");
        QLocale::setDefault(QLocale::c());
    }
    void init()
    {
        AccessToken().clear();
        qunsetenv("BURROW_HF_ENDPOINT");
    }

    void endpoint_data()
    {
        QTest::addColumn<QByteArray>("burrow");
        QTest::addColumn<QByteArray>("hf");
        QTest::addColumn<QString>("expected");
        QTest::newRow("default") << QByteArray() << QByteArray() << "https://huggingface.co";
        QTest::newRow("burrow's") << QByteArray("http://127.0.0.1:9/") << QByteArray() << "http://127.0.0.1:9";
        QTest::newRow("HF_ENDPOINT (a mirror)") << QByteArray() << QByteArray("https://hf-mirror.com") << "https://hf-mirror.com";
        QTest::newRow("burrow's first") << QByteArray("http://localhost:8000") << QByteArray("https://hf-mirror.com")
                                        << "http://localhost:8000";
        QTest::newRow("not http") << QByteArray("ftp://x.org") << QByteArray() << "https://huggingface.co";
        QTest::newRow("with a query") << QByteArray("https://x.org/?a=1") << QByteArray() << "https://huggingface.co";
        QTest::newRow("a folder") << QByteArray("https://x.org/hub/") << QByteArray() << "https://x.org/hub";
    }
    void endpoint()
    {
        QFETCH(QByteArray, burrow);
        QFETCH(QByteArray, hf);
        QFETCH(QString, expected);
        if (burrow.isEmpty())
            qunsetenv("BURROW_HF_ENDPOINT");
        else
            qputenv("BURROW_HF_ENDPOINT", burrow);
        if (hf.isEmpty())
            qunsetenv("HF_ENDPOINT");
        else
            qputenv("HF_ENDPOINT", hf);
        QCOMPARE(HubProtocol::endpoint().toString(), expected);
        qunsetenv("HF_ENDPOINT");
    }

    void parseReference_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("repo");
        QTest::addColumn<QString>("revision");
        QTest::addColumn<QString>("file");
        const QString none;
        QTest::newRow("id") << "Qwen/Qwen2.5-0.5B-Instruct-GGUF" << "Qwen/Qwen2.5-0.5B-Instruct-GGUF" << "main" << none;
        QTest::newRow("id, spaces and slash") << "  org/repo/ " << "org/repo" << "main" << none;
        QTest::newRow("page") << "https://huggingface.co/org/repo" << "org/repo" << "main" << none;
        QTest::newRow("page without scheme") << "huggingface.co/org/repo" << "org/repo" << "main" << none;
        QTest::newRow("hf.co") << "https://hf.co/org/repo/" << "org/repo" << "main" << none;
        QTest::newRow("tree") << "https://huggingface.co/org/repo/tree/dev" << "org/repo" << "dev" << none;
        QTest::newRow("blob") << "https://huggingface.co/org/repo/blob/main/sub/model-Q4_K_M.gguf" << "org/repo" << "main"
                              << "sub/model-Q4_K_M.gguf";
        QTest::newRow("resolve, query") << "https://huggingface.co/org/repo/resolve/v1.0/model.gguf?download=true"
                                        << "org/repo" << "v1.0" << "model.gguf";
        QTest::newRow("encoded revision") << "https://huggingface.co/org/repo/resolve/refs%2Fpr%2F1/m.gguf" << "org/repo"
                                          << "refs/pr/1" << "m.gguf";
        QTest::newRow("other host") << "https://example.com/org/repo" << none << none << none;
        QTest::newRow("dataset") << "https://huggingface.co/datasets/org/repo" << none << none << none;
        QTest::newRow("one part") << "gpt2" << none << none << none;
        QTest::newRow("three parts") << "org/repo/extra" << none << none << none;
        QTest::newRow("dots") << "../etc" << none << none << none;
        QTest::newRow("double dot inside") << "org/re..po" << none << none << none;
        QTest::newRow("leading dash") << "org/-repo" << none << none << none;
        QTest::newRow("empty") << "" << none << none << none;
        QTest::newRow("dot-dot file") << "https://huggingface.co/org/repo/blob/main/a/%2e%2e/b.gguf" << none << none << none;
    }
    void parseReference()
    {
        QFETCH(QString, text);
        QFETCH(QString, repo);
        QFETCH(QString, revision);
        QFETCH(QString, file);
        const HubReference ref = HubProtocol::parseReference(text);
        if (repo.isEmpty()) {
            QVERIFY2(!ref.isValid(), qPrintable(ref.repo));
            QVERIFY(!ref.error.isEmpty());
            return;
        }
        QVERIFY2(ref.isValid(), qPrintable(ref.error));
        QCOMPARE(ref.repo, repo);
        QCOMPARE(ref.revision, revision);
        QCOMPARE(ref.file, file);
    }

    void urls()
    {
        const QUrl base(QStringLiteral("https://huggingface.co"));
        QCOMPARE(HubProtocol::treeUrl(base, QStringLiteral("org/repo"), QStringLiteral("refs/pr/1")).toString(QUrl::FullyEncoded),
                 QStringLiteral("https://huggingface.co/api/models/org/repo/tree/refs%2Fpr%2F1?recursive=true"));
        QCOMPARE(HubProtocol::resolveUrl(base, QStringLiteral("org/repo"), QStringLiteral("main"),
                                         QStringLiteral("sub dir/m#1.gguf")).toString(QUrl::FullyEncoded),
                 QStringLiteral("https://huggingface.co/org/repo/resolve/main/sub%20dir/m%231.gguf"));
        const QUrl mirror(QStringLiteral("https://mirror.example/hub"));
        QCOMPARE(HubProtocol::resolveUrl(mirror, QStringLiteral("a/b"), QStringLiteral("main"), QStringLiteral("x.gguf")).toString(),
                 QStringLiteral("https://mirror.example/hub/a/b/resolve/main/x.gguf"));
    }

    void localFileName_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("expected");
        QTest::newRow("plain") << "model-Q4_K_M.gguf" << "model-Q4_K_M.gguf";
        QTest::newRow("in folders") << "Q4_K_M/sub/model.gguf" << "model.gguf";
        QTest::newRow("upper case") << "M.GGUF" << "M.GGUF";
        QTest::newRow("hidden") << ".hidden.gguf" << "";
        QTest::newRow("dot-dot") << ".." << "";
        QTest::newRow("backslash") << "a\\..\\b.gguf" << "";
        QTest::newRow("control") << "x\n.gguf" << "";
        QTest::newRow("not gguf") << "model.bin" << "";
        QTest::newRow("only suffix") << ".gguf" << "";
        QTest::newRow("trailing slash") << "model.gguf/" << "";
        QTest::newRow("too long") << QString(300, u'a') + ".gguf" << "";
    }
    void localFileName()
    {
        QFETCH(QString, path);
        QFETCH(QString, expected);
        QCOMPARE(HubProtocol::localFileName(path), expected);
    }

    void quantization_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("quant");
        QTest::addColumn<bool>("hasHint");
        QTest::newRow("Q4_K_M") << "Llama-3.2-1B-Instruct-Q4_K_M.gguf" << "Q4_K_M" << true;
        QTest::newRow("lower q8_0") << "qwen2.5-0.5b-instruct-q8_0.gguf" << "Q8_0" << true;
        QTest::newRow("IQ2_XXS with dots") << "model.IQ2_XXS.gguf" << "IQ2_XXS" << true;
        QTest::newRow("BF16") << "gemma-3-1b-it-BF16.gguf" << "BF16" << true;
        QTest::newRow("fp16") << "Phi-3-mini-4k-instruct-fp16.gguf" << "F16" << true;
        QTest::newRow("UD Q4_K_XL") << "Qwen3-8B-UD-Q4_K_XL.gguf" << "Q4_K_XL" << true;
        QTest::newRow("split") << "big-Q5_K_S-00001-of-00003.gguf" << "Q5_K_S" << true;
        QTest::newRow("MXFP4") << "gpt-oss-20b-MXFP4.gguf" << "MXFP4" << true;
        QTest::newRow("none") << "stories260K.gguf" << "" << false;
        QTest::newRow("Qwen is no quant") << "Qwen2-0.5B.gguf" << "" << false;
    }
    void quantization()
    {
        QFETCH(QString, name);
        QFETCH(QString, quant);
        QFETCH(bool, hasHint);
        QCOMPARE(HubProtocol::quantization(name), quant);
        QCOMPARE(!HubProtocol::quantizationHint(quant).isEmpty(), hasHint);
    }

    void splitPart()
    {
        int part = 0, count = 0;
        QString base;
        QVERIFY(HubProtocol::splitPart(QStringLiteral("big-Q4-00002-of-00003.gguf"), &part, &count, &base));
        QCOMPARE(part, 2);
        QCOMPARE(count, 3);
        QCOMPARE(base, QStringLiteral("big-Q4.gguf"));
        QVERIFY(!HubProtocol::splitPart(QStringLiteral("big-00004-of-00003.gguf"), &part, &count, &base));
        QVERIFY(!HubProtocol::splitPart(QStringLiteral("model.gguf"), &part, &count, &base));
    }

    void origins()
    {
        QVERIFY(HubProtocol::sameOrigin(QUrl(QStringLiteral("https://huggingface.co/a")), QUrl(QStringLiteral("https://HuggingFace.co:443/b"))));
        QVERIFY(!HubProtocol::sameOrigin(QUrl(QStringLiteral("https://huggingface.co")), QUrl(QStringLiteral("https://cdn-lfs.huggingface.co"))));
        QVERIFY(!HubProtocol::sameOrigin(QUrl(QStringLiteral("https://huggingface.co")), QUrl(QStringLiteral("http://huggingface.co"))));
        QVERIFY(!HubProtocol::sameOrigin(QUrl(QStringLiteral("http://127.0.0.1:1000")), QUrl(QStringLiteral("http://127.0.0.1:1001"))));
    }

    void links()
    {
        const QUrl base(QStringLiteral("https://huggingface.co/api/models/a/b/tree/main"));
        QCOMPARE(HubProtocol::nextPageUrl("<https://huggingface.co/api/x?cursor=abc>; rel=\"next\"", base).toString(),
                 QStringLiteral("https://huggingface.co/api/x?cursor=abc"));
        QCOMPARE(HubProtocol::nextPageUrl("<https://h/p1>; rel=\"prev\", </api/p3?c=1>; rel=next", base).toString(),
                 QStringLiteral("https://huggingface.co/api/p3?c=1"));
        QVERIFY(HubProtocol::nextPageUrl("<https://h/p1>; rel=\"last\"", base).isEmpty());
        QVERIFY(HubProtocol::nextPageUrl("", base).isEmpty());
        QCOMPARE(HubProtocol::normalizeEtag("W/\"ABCdef\""), QStringLiteral("abcdef"));
        QCOMPARE(HubProtocol::normalizeEtag("\"123\""), QStringLiteral("123"));
    }

    void errorTexts_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("code");
        QTest::addColumn<QByteArray>("message");
        QTest::addColumn<bool>("hasToken");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("words");
        QTest::newRow("401 gated, no token") << 401 << QByteArray("GatedRepo") << QByteArray() << false << "m.gguf"
                                             << QStringList{"gated", "needs an access token", "accept the license", "add a token"};
        QTest::newRow("401 anonymous") << 401 << QByteArray() << QByteArray() << false << "m.gguf"
                                       << QStringList{"not found", "needs an access token", "accept the license"};
        QTest::newRow("403 gated, token") << 403 << QByteArray("GatedRepo") << QByteArray() << true << "m.gguf"
                                          << QStringList{"no access", "accept the license"};
        QTest::newRow("401 bad token") << 401 << QByteArray() << QByteArray("Invalid credentials in Authorization header")
                                       << true << "m.gguf" << QStringList{"refused the access token"};
        QTest::newRow("404 file") << 404 << QByteArray("EntryNotFound") << QByteArray() << false << "m.gguf"
                                  << QStringList{"Not found", "m.gguf"};
        QTest::newRow("404 repo") << 404 << QByteArray("RepoNotFound") << QByteArray() << false << ""
                                  << QStringList{"Not found", "no repository", "org/repo"};
        QTest::newRow("404 revision") << 404 << QByteArray("RevisionNotFound") << QByteArray() << false << ""
                                      << QStringList{"Not found", "no revision"};
        QTest::newRow("416") << 416 << QByteArray() << QByteArray() << false << "m.gguf" << QStringList{"416"};
        QTest::newRow("500") << 500 << QByteArray() << QByteArray() << false << "m.gguf" << QStringList{"server error", "500"};
        QTest::newRow("429") << 429 << QByteArray() << QByteArray() << false << "" << QStringList{"busy"};
    }
    void errorTexts()
    {
        QFETCH(int, status);
        QFETCH(QByteArray, code);
        QFETCH(QByteArray, message);
        QFETCH(bool, hasToken);
        QFETCH(QString, file);
        QFETCH(QStringList, words);
        const QString text = HubProtocol::httpErrorText(status, code, message, hasToken, QStringLiteral("org/repo"),
                                                        QStringLiteral("main"), file);
        for (const QString &word : words)
            QVERIFY2(text.contains(word, Qt::CaseInsensitive), qPrintable(text + " lacks " + word));
    }

    void networkTexts()
    {
        QVERIFY(HubProtocol::networkErrorText(QNetworkReply::HostNotFoundError, QStringLiteral("huggingface.co"), {})
                    .contains(QLatin1String("online")));
        QVERIFY(HubProtocol::networkErrorText(QNetworkReply::RemoteHostClosedError, QStringLiteral("h"), {})
                    .contains(QLatin1String("cut")));
    }

    void parseTree()
    {
        QList<HubFile> files;
        QString why;
        const QByteArray json = R"([
            {"type":"file","path":"README.md","size":10,"oid":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
            {"type":"directory","path":"q4","size":0,"oid":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"},
            {"type":"file","path":"q4/m-Q4_0.gguf","size":134,"oid":"cccccccccccccccccccccccccccccccccccccccc",
             "lfs":{"oid":"DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD","size":123456789012,"pointerSize":134}},
            {"type":"file","path":"tiny.gguf","size":99,"oid":"eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"},
            {"type":"file","path":"../evil.gguf","size":1,"oid":"ffffffffffffffffffffffffffffffffffffffff"},
            {"type":"file","path":"neg.gguf","size":-5},
            "junk"
        ])";
        QVERIFY(HubClient::parseTreePage(json, &files, &why));
        QCOMPARE(files.size(), 3);
        QCOMPARE(files[0].path, QStringLiteral("q4/m-Q4_0.gguf"));
        QCOMPARE(files[0].size, 123456789012LL);
        QCOMPARE(files[0].checksum, QString(64, u'd'));
        QCOMPARE(files[1].path, QStringLiteral("tiny.gguf"));
        QCOMPARE(files[1].size, 99);
        QCOMPARE(files[1].checksum, QString(40, u'e'));
        QCOMPARE(files[2].size, -1);
        QVERIFY(!HubClient::parseTreePage("{\"error\":1}", &files, &why));
        QVERIFY(!HubClient::parseTreePage("[1,", &files, &why));
    }

    void listing_data()
    {
        QTest::addColumn<int>("pageSize");
        QTest::newRow("one page") << 0;
        QTest::newRow("pages of 2") << 2;
    }
    void listing()
    {
        QFETCH(int, pageSize);
        FakeHub hub;
        QVERIFY(hub.isListening());
        hub.pageSize = pageSize;
        const QString repo = QStringLiteral("org/model-GGUF");
        hub.addFile(repo, QStringLiteral("model-Q4_K_M.gguf"), fakeModelBytes(3000, 1));
        hub.addFile(repo, QStringLiteral("model-Q8_0.gguf"), fakeModelBytes(5000, 2));
        hub.addFile(repo, QStringLiteral("sub/model-F16.gguf"), fakeModelBytes(7000, 3));
        hub.addFile(repo, QStringLiteral("small.gguf"), fakeModelBytes(100, 4), false);
        hub.addFile(repo, QStringLiteral("split/big-00001-of-00002.gguf"), fakeModelBytes(1000, 5));
        hub.addFile(repo, QStringLiteral("split/big-00002-of-00002.gguf"), fakeModelBytes(500, 6));
        qputenv("BURROW_HF_ENDPOINT", hub.endpoint().toEncoded());

        AccessToken token;
        HubClient client(&token);
        QSignalSpy changed(&client, &HubClient::listingChanged);
        client.list(QStringLiteral("https://huggingface.co/org/model-GGUF/blob/main/model-Q8_0.gguf"));
        QVERIFY(client.isBusy());
        QVERIFY(waitIdle(client));
        QVERIFY2(client.error().isEmpty(), qPrintable(client.error()));
        QCOMPARE(client.repository(), repo);
        QCOMPARE(client.suggestedFile(), QStringLiteral("model-Q8_0.gguf"));
        QCOMPARE(client.files().size(), 5);   // README and the folder left out, the split model once

        const QVariantMap q4 = fileNamed(client, QStringLiteral("model-Q4_K_M.gguf"));
        QCOMPARE(q4.value(QStringLiteral("size")).toDouble(), 3000.0);
        QCOMPARE(q4.value(QStringLiteral("checksum")).toString(), QString::fromLatin1(sha256Hex(fakeModelBytes(3000, 1))));
        QCOMPARE(q4.value(QStringLiteral("quantization")).toString(), QStringLiteral("Q4_K_M"));
        QVERIFY(!q4.value(QStringLiteral("hint")).toString().isEmpty());
        QVERIFY(q4.value(QStringLiteral("downloadable")).toBool());
        QCOMPARE(fileNamed(client, QStringLiteral("model-F16.gguf")).value(QStringLiteral("folder")).toString(), QStringLiteral("sub"));
        const QVariantMap small = fileNamed(client, QStringLiteral("small.gguf"));
        QCOMPARE(small.value(QStringLiteral("checksum")).toString(), QString::fromLatin1(gitBlobIdHex(fakeModelBytes(100, 4))));
        const QVariantMap big = fileNamed(client, QStringLiteral("big-00001-of-00002.gguf"));
        QCOMPARE(big.value(QStringLiteral("parts")).toInt(), 2);
        QCOMPARE(big.value(QStringLiteral("size")).toDouble(), 1500.0);
        QVERIFY(!big.value(QStringLiteral("downloadable")).toBool());
        QVERIFY(!big.value(QStringLiteral("note")).toString().isEmpty());

        const int expectedPages = pageSize > 0 ? (6 + 2 + pageSize - 1) / pageSize : 1;
        QCOMPARE(hub.hubRequests().size(), expectedPages);
        QVERIFY(hub.cdnRequests().isEmpty());
        QVERIFY(hub.requests.first().header("Authorization").isEmpty());   // no token set: none sent
    }

    void listingSendsToken()
    {
        FakeHub hub;
        hub.addFile(QStringLiteral("org/gated"), QStringLiteral("m.gguf"), fakeModelBytes(100, 7)).lfs = true;
        hub.repos[QStringLiteral("org/gated")].gated = true;
        qputenv("BURROW_HF_ENDPOINT", hub.endpoint().toEncoded());
        AccessToken token;
        QVERIFY(token.save(QStringLiteral("hf_testtoken")));
        HubClient client(&token);
        client.list(QStringLiteral("org/gated"));
        QVERIFY(waitIdle(client));
        QCOMPARE(client.files().size(), 1);
        QCOMPARE(hub.requests.first().header("Authorization"), QByteArray("Bearer hf_testtoken"));
    }

    void listingErrors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("serverDown");
        QTest::addColumn<int>("requests");
        QTest::addColumn<QString>("words");
        QTest::newRow("no such repository") << "org/none" << false << 1 << "Not found";
        QTest::newRow("no GGUF") << "org/empty" << false << 1 << "no GGUF files";
        QTest::newRow("not a repository") << "just words" << false << 0 << "not a repository id";
        QTest::newRow("offline") << "org/none" << true << 0 << "refused the connection";
    }
    void listingErrors()
    {
        QFETCH(QString, text);
        QFETCH(bool, serverDown);
        QFETCH(int, requests);
        QFETCH(QString, words);
        FakeHub hub;
        hub.repos[QStringLiteral("org/empty")];
        qputenv("BURROW_HF_ENDPOINT", serverDown ? QByteArray("http://127.0.0.1:") + QByteArray::number(freePort())
                                                 : hub.endpoint().toEncoded());
        AccessToken token;
        HubClient client(&token);
        client.list(text);
        QVERIFY(waitIdle(client));
        QVERIFY2(client.error().contains(words, Qt::CaseInsensitive), qPrintable(client.error()));
        QVERIFY(client.files().isEmpty());
        QCOMPARE(hub.requests.size(), requests);
    }

    // A new listing replaces the one still running; cancel() drops it.
    void replaceAndCancel()
    {
        FakeHub hub;
        hub.addFile(QStringLiteral("org/a"), QStringLiteral("a.gguf"), fakeModelBytes(100, 8));
        hub.addFile(QStringLiteral("org/b"), QStringLiteral("b.gguf"), fakeModelBytes(100, 9));
        qputenv("BURROW_HF_ENDPOINT", hub.endpoint().toEncoded());
        AccessToken token;
        HubClient client(&token);
        client.list(QStringLiteral("org/a"));
        client.list(QStringLiteral("org/b"));
        QVERIFY(waitIdle(client));
        QCOMPARE(client.repository(), QStringLiteral("org/b"));
        QCOMPARE(client.files().size(), 1);
        QCOMPARE(client.files().first().toMap().value(QStringLiteral("name")).toString(), QStringLiteral("b.gguf"));
        client.list(QStringLiteral("org/a"));
        client.cancel();
        QVERIFY(!client.isBusy());
    }
};

QTEST_MAIN(TestHubClient)
#include "tst_hubclient.moc"
