// Downloads from the hub (app/models/downloadmanager.*, downloadworker.*)
// against FakeHub on loopback, into a temporary models folder: a complete
// download checked by its SHA-256 and renamed into place; the token sent to
// the hub and never to the CDN a redirect leads to; resuming after a cut
// connection and after a restart (a new manager over the same folder picks
// up the sidecar); the part kept only while the hub's ETag is unchanged (a
// changed file, or a CDN whose If-Range no longer matches, starts from
// zero); a checksum mismatch refused; no space, and a write error mid-way
// (RLIMIT_FSIZE makes the kernel refuse writes past a size: a real failed
// write, the part kept, then resumed); 401 / 403 / 404 / 500 / offline in
// words; cancel removing the part; names that would leave the folder
// refused. The real hub is never contacted.
#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <memory>
#include <sys/resource.h>

#include "fakehub.h"
#include "models/accesstoken.h"
#include "models/downloadmanager.h"

using namespace burrow::test;

namespace {

const QString kRepo = QStringLiteral("org/model-GGUF");
const QString kPath = QStringLiteral("sub/model-Q4_K_M.gguf");
const QString kName = QStringLiteral("model-Q4_K_M.gguf");
constexpr int kSize = 300 * 1024;
constexpr int kStall = 100 * 1024;

int freePort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    return probe.serverPort();
}

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Makes the kernel refuse to grow any file of this process past `bytes`
// (writes fail with EFBIG) until it goes out of scope.
struct FileSizeLimit {
    rlimit old{};
    bool ok = false;
    explicit FileSizeLimit(rlim_t bytes)
    {
        std::signal(SIGXFSZ, SIG_IGN);
        if (getrlimit(RLIMIT_FSIZE, &old) != 0)
            return;
        rlimit limit = old;
        limit.rlim_cur = bytes;
        ok = setrlimit(RLIMIT_FSIZE, &limit) == 0;
    }
    ~FileSizeLimit()
    {
        if (ok)
            setrlimit(RLIMIT_FSIZE, &old);
    }
};

} // namespace

class TestDownloadManager : public QObject {
    Q_OBJECT

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<FakeHub> m_hub;
    QByteArray m_content;

    QString folder() const { return m_dir->path() + QStringLiteral("/models"); }
    QString target() const { return folder() + u'/' + kName; }
    QString part() const { return target() + QStringLiteral(".part"); }
    QString sidecar() const { return target() + QStringLiteral(".part.json"); }

    std::unique_ptr<DownloadManager> makeManager()
    {
        auto manager = std::make_unique<DownloadManager>(folder());
        manager->setRetryDelay(20);
        return manager;
    }
    static int stateOf(DownloadManager &m, int id)
    {
        const int row = m.rowOf(id);
        return row < 0 ? -1 : m.data(m.index(row), DownloadManager::StateRole).toInt();
    }
    static QString messageOf(DownloadManager &m, int id)
    {
        const int row = m.rowOf(id);
        return row < 0 ? QString() : m.data(m.index(row), DownloadManager::MessageRole).toString();
    }
    static qint64 receivedOf(DownloadManager &m, int id)
    {
        const int row = m.rowOf(id);
        return row < 0 ? -1 : qint64(m.data(m.index(row), DownloadManager::ReceivedRole).toDouble());
    }
    // Waits until the download is in `state`, or has come to rest in another.
    static bool waitState(DownloadManager &m, int id, DownloadManager::State state)
    {
        QTest::qWaitFor([&] {
            const int now = stateOf(m, id);
            return now == state || now == DownloadManager::Failed || now == DownloadManager::Finished
                || (now == DownloadManager::Paused && state != DownloadManager::Paused);
        }, 30000);
        return stateOf(m, id) == state;
    }
    // The id of the download just started (the last row).
    static int lastId(DownloadManager &m)
    {
        return m.data(m.index(m.rowCount() - 1), DownloadManager::IdRole).toInt();
    }
    int start(DownloadManager &m, double size = -2, const QString &checksum = QStringLiteral("listed"))
    {
        const QString sum = checksum == u"listed" ? QString::fromLatin1(sha256Hex(m_content)) : checksum;
        const QString why = m.download(kRepo, QStringLiteral("main"), kPath, size == -2 ? double(m_content.size()) : size, sum);
        return why.isEmpty() ? lastId(m) : -1;
    }
    // Downloads until the server stalls at kStall bytes, then pauses.
    int startAndPauseAtStall(DownloadManager &m)
    {
        m_hub->stallAfter = kStall;
        const int id = start(m);
        if (id < 0 || !QTest::qWaitFor([&] { return receivedOf(m, id) >= kStall; }, 30000))
            return -1;
        m.pause(id);
        m_hub->stallAfter = -1;
        if (!waitState(m, id, DownloadManager::Paused))
            return -1;
        return id;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("Burrow"));
        QCoreApplication::setApplicationName(QStringLiteral("Burrow"));
        qputenv("BURROW_TOKEN_STORE", "file");
        qunsetenv("HF_ENDPOINT");
    }
    void init()
    {
        AccessToken().clear();
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_hub = std::make_unique<FakeHub>();
        QVERIFY(m_hub->isListening());
        m_content = fakeModelBytes(kSize, 42);
        m_hub->addFile(kRepo, kPath, m_content);
        qputenv("BURROW_HF_ENDPOINT", m_hub->endpoint().toEncoded());
    }
    void cleanup()
    {
        AccessToken().clear();
        m_hub.reset();
        m_dir.reset();
    }

    void completeDownload_data()
    {
        QTest::addColumn<bool>("withToken");
        QTest::addColumn<bool>("sameOriginRedirect");
        QTest::addColumn<bool>("lfs");
        QTest::newRow("CDN on another origin, no token") << false << false << true;
        QTest::newRow("CDN on another origin, token") << true << false << true;
        QTest::newRow("redirect on the hub's origin, token") << true << true << true;
        QTest::newRow("small non-LFS file from the hub") << true << false << false;
    }
    void completeDownload()
    {
        QFETCH(bool, withToken);
        QFETCH(bool, sameOriginRedirect);
        QFETCH(bool, lfs);
        m_hub->sameOriginRedirect = sameOriginRedirect;
        m_hub->repos[kRepo].files[kPath].lfs = lfs;
        if (withToken)
            QVERIFY(AccessToken().save(QStringLiteral("hf_testtoken")));
        auto manager = makeManager();
        QAbstractItemModelTester tester(manager.get(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy finished(manager.get(), &DownloadManager::downloadFinished);
        const QString checksum = lfs ? QString::fromLatin1(sha256Hex(m_content)) : QString::fromLatin1(gitBlobIdHex(m_content));
        const int id = start(*manager, m_content.size(), checksum);
        QVERIFY(id > 0);
        QVERIFY2(waitState(*manager, id, DownloadManager::Finished), qPrintable(messageOf(*manager, id)));
        QCOMPARE(finished.size(), 1);
        QCOMPARE(finished.first().at(1).toString(), target());
        QCOMPARE(readFile(target()), m_content);
        QVERIFY(!QFile::exists(part()));
        QVERIFY(!QFile::exists(sidecar()));
        QCOMPARE(manager->data(manager->index(manager->rowOf(id)), DownloadManager::LocalPathRole).toString(), target());
        QCOMPARE(manager->data(manager->index(manager->rowOf(id)), DownloadManager::ProgressRole).toDouble(), 1.0);
        QCOMPARE(manager->activeCount(), 0);

        // The token reached the hub's origin only.
        const QByteArray bearer = "Bearer hf_testtoken";
        const QList<HubRequest> hub = m_hub->hubRequests();
        const QList<HubRequest> cdn = m_hub->cdnRequests();
        QVERIFY(!hub.isEmpty());
        QCOMPARE(hub.first().header("Authorization"), withToken ? bearer : QByteArray());
        QCOMPARE(hub.first().header("Accept-Encoding"), QByteArray("identity"));
        QCOMPARE(cdn.size(), lfs && !sameOriginRedirect ? 1 : 0);
        for (const HubRequest &r : cdn)
            QVERIFY2(r.header("Authorization").isEmpty(), "the token went to the CDN");
        if (sameOriginRedirect)
            QCOMPARE(hub.last().header("Authorization"), bearer);   // same origin: kept
    }

    void resumeAfterCut()
    {
        m_hub->cutAfter = kStall;
        auto manager = makeManager();
        const int id = start(*manager);
        QVERIFY2(waitState(*manager, id, DownloadManager::Finished), qPrintable(messageOf(*manager, id)));
        QCOMPARE(readFile(target()), m_content);
        const QList<HubRequest> cdn = m_hub->cdnRequests();
        QCOMPARE(cdn.size(), 2);
        QVERIFY(cdn[0].header("Range").isEmpty());
        QCOMPARE(cdn[1].header("Range"), "bytes=" + QByteArray::number(kStall) + '-');
        QVERIFY(!cdn[1].header("If-Range").isEmpty());
    }

    void resumeAfterRestart()
    {
        int id = 0;
        {
            auto manager = makeManager();
            m_hub->stallAfter = kStall;
            id = start(*manager);
            QVERIFY(id > 0);
            QVERIFY(QTest::qWaitFor([&] { return receivedOf(*manager, id) == kStall; }, 30000));
        }   // the app quits mid-download
        m_hub->stallAfter = -1;
        QVERIFY(QFile::exists(sidecar()));
        QCOMPARE(QFileInfo(part()).size(), kStall);
        QVERIFY(readFile(sidecar()).contains(sha256Hex(m_content)));

        auto manager = makeManager();
        QAbstractItemModelTester tester(manager.get(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(QTest::qWaitFor([&] { return manager->rowCount() == 1; }, 10000));
        id = lastId(*manager);
        QCOMPARE(stateOf(*manager, id), int(DownloadManager::Paused));
        QCOMPARE(receivedOf(*manager, id), kStall);
        QCOMPARE(manager->data(manager->index(0), DownloadManager::FileNameRole).toString(), kName);
        QVERIFY(manager->data(manager->index(0), DownloadManager::CanResumeRole).toBool());
        const qsizetype before = m_hub->cdnRequests().size();
        manager->resume(id);
        QVERIFY2(waitState(*manager, id, DownloadManager::Finished), qPrintable(messageOf(*manager, id)));
        QCOMPARE(readFile(target()), m_content);
        const QList<HubRequest> cdn = m_hub->cdnRequests();
        QCOMPARE(cdn.size(), before + 1);
        QCOMPARE(cdn.last().header("Range"), "bytes=" + QByteArray::number(kStall) + '-');
        QVERIFY(!cdn.last().header("If-Range").isEmpty());
    }

    // The part is resumed only while the hub's ETag (and the CDN's) is the
    // one it was made from; otherwise the download starts from zero.
    void partKeptOnlyForSameEtag_data()
    {
        QTest::addColumn<QString>("change");
        QTest::addColumn<int>("cdnStatus");
        QTest::newRow("unchanged: resumed (206)") << "none" << 206;
        QTest::newRow("file changed on the hub: from zero") << "hub" << 200;
        QTest::newRow("CDN's ETag changed (If-Range): the whole file (200)") << "cdn" << 200;
    }
    void partKeptOnlyForSameEtag()
    {
        QFETCH(QString, change);
        QFETCH(int, cdnStatus);
        auto manager = makeManager();
        const int id = startAndPauseAtStall(*manager);
        QVERIFY(id > 0);
        QCOMPARE(QFileInfo(part()).size(), kStall);
        const QByteArray firstCdnEtag = "\"" + sha256Hex(m_content).left(16) + "-cdn\"";
        QByteArray expected = m_content;
        if (change == u"hub") {
            expected = fakeModelBytes(kSize + 1000, 7);
            m_hub->addFile(kRepo, kPath, expected);
        } else if (change == u"cdn") {
            m_hub->repos[kRepo].files[kPath].cdnEtag = "\"another\"";
        }
        const qsizetype before = m_hub->cdnRequests().size();
        manager->resume(id);
        QVERIFY2(waitState(*manager, id, DownloadManager::Finished), qPrintable(messageOf(*manager, id)));
        QCOMPARE(readFile(target()), expected);
        const QList<HubRequest> cdn = m_hub->cdnRequests().mid(before);
        QCOMPARE(cdn.size(), 1);
        QCOMPARE(cdn.first().status, cdnStatus);
        if (change == u"hub") {
            // Told by X-Linked-Etag before the CDN was asked: no range.
            QVERIFY(cdn.first().header("Range").isEmpty());
        } else {
            // The range is asked for with the ETag the part came with; a
            // 200 replaces the part (appended, it would fail the size and
            // the checksum).
            QCOMPARE(cdn.first().header("Range"), "bytes=" + QByteArray::number(kStall) + '-');
            QCOMPARE(cdn.first().header("If-Range"), firstCdnEtag);
        }
    }

    void checksumMismatch()
    {
        // The hub names a checksum the bytes do not have.
        const QByteArray wrong = sha256Hex("something else");
        m_hub->repos[kRepo].files[kPath].linkedEtag = wrong;
        auto manager = makeManager();
        QSignalSpy failed(manager.get(), &DownloadManager::downloadFailed);
        const int id = start(*manager, kSize, QString::fromLatin1(wrong));
        QVERIFY(waitState(*manager, id, DownloadManager::Failed));
        QVERIFY2(messageOf(*manager, id).contains(QLatin1String("checksum")), qPrintable(messageOf(*manager, id)));
        QCOMPARE(failed.size(), 1);
        QVERIFY(!QFile::exists(target()));
        QVERIFY(!QFile::exists(part()));
        QVERIFY(!QFile::exists(sidecar()));
        QVERIFY(manager->data(manager->index(manager->rowOf(id)), DownloadManager::CanResumeRole).toBool());

        // The hub fixed: Retry downloads it again, from zero.
        m_hub->repos[kRepo].files[kPath].linkedEtag.clear();
        manager->resume(id);
        QVERIFY2(waitState(*manager, id, DownloadManager::Finished), qPrintable(messageOf(*manager, id)));
        QCOMPARE(readFile(target()), m_content);
    }

    void notEnoughSpace_data()
    {
        QTest::addColumn<double>("listedSize");
        QTest::addColumn<qint64>("hubSize");
        QTest::newRow("the listing's size") << double(1LL << 49) << qint64(-1);
        QTest::newRow("the hub's X-Linked-Size") << -1.0 << qint64(1LL << 49);
    }
    void notEnoughSpace()
    {
        QFETCH(double, listedSize);
        QFETCH(qint64, hubSize);
        m_hub->repos[kRepo].files[kPath].linkedSize = hubSize;
        auto manager = makeManager();
        const int id = start(*manager, listedSize);
        QVERIFY(waitState(*manager, id, DownloadManager::Failed));
        QVERIFY2(messageOf(*manager, id).contains(QLatin1String("Not enough free space")), qPrintable(messageOf(*manager, id)));
        QVERIFY(m_hub->cdnRequests().isEmpty());   // nothing downloaded
        QVERIFY(!QFile::exists(target()));
    }

    // A write that fails half-way (the kernel refuses to grow the file):
    // the download stops with the reason, the part keeps what was written,
    // and a resume finishes it.
    void writeErrorKeepsPart()
    {
        auto manager = makeManager();
        int id = 0;
        {
            FileSizeLimit limit(kStall);
            QVERIFY(limit.ok);
            id = start(*manager);
            QVERIFY(waitState(*manager, id, DownloadManager::Failed));
        }
        const QString message = messageOf(*manager, id);
        QVERIFY2(message.contains(QLatin1String(".part")) && message.contains(QLatin1String("kept")), qPrintable(message));
        QCOMPARE(QFileInfo(part()).size(), kStall);
        QVERIFY(QFile::exists(sidecar()));
        manager->resume(id);
        QVERIFY2(waitState(*manager, id, DownloadManager::Finished), qPrintable(messageOf(*manager, id)));
        QCOMPARE(readFile(target()), m_content);
        QCOMPARE(m_hub->cdnRequests().last().header("Range"), "bytes=" + QByteArray::number(kStall) + '-');
    }

    void httpErrors_data()
    {
        QTest::addColumn<QString>("setup");
        QTest::addColumn<QString>("words");
        QTest::newRow("401 gated, no token") << "gated" << "needs an access token";
        QTest::newRow("403 gated, token without access") << "gated wrong token" << "accept the license";
        QTest::newRow("404 no such file") << "no file" << "Not found";
        QTest::newRow("404 no such repository") << "no repo" << "Not found";
        QTest::newRow("500 at the CDN") << "500" << "server error";
        QTest::newRow("offline") << "offline" << "refused the connection";
    }
    void httpErrors()
    {
        QFETCH(QString, setup);
        QFETCH(QString, words);
        if (setup.startsWith(QLatin1String("gated")))
            m_hub->repos[kRepo].gated = true;
        if (setup == u"gated wrong token")
            QVERIFY(AccessToken().save(QStringLiteral("hf_wrong")));
        if (setup == u"no file")
            m_hub->repos[kRepo].files.clear();
        if (setup == u"no repo")
            m_hub->repos.clear();
        if (setup == u"500")
            m_hub->nextCdnStatus = 500;
        if (setup == u"offline")
            qputenv("BURROW_HF_ENDPOINT", QByteArray("http://127.0.0.1:") + QByteArray::number(freePort()));
        auto manager = makeManager();
        const int id = start(*manager);
        QVERIFY(waitState(*manager, id, DownloadManager::Failed));
        QVERIFY2(messageOf(*manager, id).contains(words, Qt::CaseInsensitive), qPrintable(messageOf(*manager, id)));
        QVERIFY(!QFile::exists(target()));
        if (setup == u"gated") {
            // A token, then Retry: the hub lets it through, the CDN never sees the token.
            QVERIFY(manager->token()->save(QStringLiteral("hf_testtoken")));
            manager->resume(id);
            QVERIFY2(waitState(*manager, id, DownloadManager::Finished), qPrintable(messageOf(*manager, id)));
            QCOMPARE(readFile(target()), m_content);
            QCOMPARE(m_hub->hubRequests().last().header("Authorization"), QByteArray("Bearer hf_testtoken"));
            QVERIFY(m_hub->cdnRequests().last().header("Authorization").isEmpty());
        }
    }

    // 416 for a range the part asked for: started again from zero, once.
    void rangeNotSatisfiable()
    {
        auto manager = makeManager();
        const int id = startAndPauseAtStall(*manager);
        QVERIFY(id > 0);
        m_hub->nextCdnStatus = 416;
        manager->resume(id);
        QVERIFY2(waitState(*manager, id, DownloadManager::Finished), qPrintable(messageOf(*manager, id)));
        QCOMPARE(readFile(target()), m_content);
        const QList<HubRequest> cdn = m_hub->cdnRequests();
        QVERIFY(!cdn[cdn.size() - 2].header("Range").isEmpty());
        QVERIFY(cdn.last().header("Range").isEmpty());
    }

    void sizeChecks_data()
    {
        QTest::addColumn<double>("listedSize");
        QTest::addColumn<qint64>("hubSize");
        QTest::addColumn<QString>("words");
        QTest::newRow("the hub's size is not the listing's") << 1000.0 << qint64(-1) << "its list of files said";
        QTest::newRow("the CDN sends another size") << -1.0 << qint64(kSize - 10) << "with a size of";
    }
    void sizeChecks()
    {
        QFETCH(double, listedSize);
        QFETCH(qint64, hubSize);
        QFETCH(QString, words);
        m_hub->repos[kRepo].files[kPath].linkedSize = hubSize;
        auto manager = makeManager();
        const int id = start(*manager, listedSize);
        QVERIFY(waitState(*manager, id, DownloadManager::Failed));
        QVERIFY2(messageOf(*manager, id).contains(words), qPrintable(messageOf(*manager, id)));
        QVERIFY(!QFile::exists(target()));
    }

    void cancelRemovesPart_data()
    {
        QTest::addColumn<bool>("whilePaused");
        QTest::newRow("while downloading") << false;
        QTest::newRow("while paused") << true;
    }
    void cancelRemovesPart()
    {
        QFETCH(bool, whilePaused);
        auto manager = makeManager();
        m_hub->stallAfter = kStall;
        const int id = start(*manager);
        QVERIFY(QTest::qWaitFor([&] { return receivedOf(*manager, id) >= kStall; }, 30000));
        if (whilePaused) {
            manager->pause(id);
            QVERIFY(waitState(*manager, id, DownloadManager::Paused));
        }
        QVERIFY(QFile::exists(part()));
        manager->cancel(id);
        QCOMPARE(manager->rowOf(id), -1);
        QCOMPARE(manager->rowCount(), 0);
        QVERIFY(QTest::qWaitFor([&] { return !QFile::exists(part()) && !QFile::exists(sidecar()); }, 10000));
        QVERIFY(!QFile::exists(target()));
    }

    void refusals_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("words");
        QTest::newRow("dot-dot") << "../evil.gguf" << "no file of a repository";
        QTest::newRow("backslash") << "a\\..\\evil.gguf" << "no file of a repository";
        QTest::newRow("hidden") << ".evil.gguf" << "plain names";
        QTest::newRow("not gguf") << "model.bin" << "plain names";
        QTest::newRow("split part") << "big-00001-of-00002.gguf" << "split model";
    }
    void refusals()
    {
        QFETCH(QString, path);
        QFETCH(QString, words);
        auto manager = makeManager();
        const QString why = manager->download(kRepo, QStringLiteral("main"), path, 100, QString());
        QVERIFY2(why.contains(words), qPrintable(why));
        QCOMPARE(manager->rowCount(), 0);
        QVERIFY(m_hub->requests.isEmpty());
        QVERIFY(!QFileInfo::exists(folder()) || QDir(folder()).isEmpty());
    }

    void refusesTwice()
    {
        auto manager = makeManager();
        m_hub->stallAfter = kStall;
        QVERIFY(start(*manager) > 0);
        QVERIFY(manager->download(kRepo, QStringLiteral("main"), kPath, kSize, QString()).contains(QLatin1String("already in the list")));
        QDir().mkpath(folder());
        QFile existing(folder() + QStringLiteral("/other.gguf"));
        QVERIFY(existing.open(QIODevice::WriteOnly));
        existing.close();
        QVERIFY(manager->download(kRepo, QStringLiteral("main"), QStringLiteral("x/other.gguf"), 10, QString())
                    .contains(QLatin1String("already in the models folder")));
    }

    // Sidecars that are no Burrow download, or that name a file outside
    // the folder, are not listed.
    void restoreIgnoresBadSidecars()
    {
        QVERIFY(QDir().mkpath(folder()));
        auto write = [&](const QString &name, const QByteArray &data) {
            QFile f(folder() + u'/' + name);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(data);
        };
        write(QStringLiteral("junk.gguf.part.json"), "{not json");
        write(QStringLiteral("evil.gguf.part.json"),
              R"({"format":"burrow-download","version":1,"repo":"org/r","revision":"main","path":"evil.gguf","file":"../evil.gguf","size":10})");
        write(QStringLiteral("other.gguf.part.json"),
              R"({"format":"burrow-download","version":1,"repo":"org/r","revision":"main","path":"x.gguf","file":"x.gguf","size":10})");
        write(QStringLiteral("good.gguf.part.json"),
              R"({"format":"burrow-download","version":1,"repo":"org/r","revision":"main","path":"a/good.gguf","file":"good.gguf","size":10,"sha256":""})");
        auto manager = makeManager();
        QVERIFY(QTest::qWaitFor([&] { return manager->rowCount() == 1; }, 10000));
        QTest::qWait(50);
        QCOMPARE(manager->rowCount(), 1);
        QCOMPARE(manager->data(manager->index(0), DownloadManager::FileNameRole).toString(), QStringLiteral("good.gguf"));
        QCOMPARE(manager->data(manager->index(0), DownloadManager::ReceivedRole).toDouble(), 0.0);
    }
};

QTEST_MAIN(TestDownloadManager)
#include "tst_downloadmanager.moc"
