// The model library in the app: the list model and its filter under
// QAbstractItemModelTester; a fake home (fake_home.h, found through HOME,
// XDG_DATA_HOME and OLLAMA_MODELS) listed with every fact the screen shows;
// search and sort (recently opened first); a folder added is kept in the
// settings; a model written into a watched folder appears and one removed
// goes; and, in the real window, a model from each source opened with one
// click on its Open button (the real engine loads it) and answered a message.
#include <QAbstractItemModelTester>
#include <QSettings>
#include <QTemporaryDir>

#include "apptestsupport.h"
#include "fake_home.h"
#include "models/libraryfilter.h"
#include "models/librarymodel.h"
#include "models/modellibrary.h"
#include "models/recentmodels.h"

Q_IMPORT_QML_PLUGIN(BurrowPlugin)

using namespace burrow::test;

namespace {

LibraryEntry entry(const QString &path, const QString &name, quint64 size, const QString &source = QStringLiteral("folder"))
{
    LibraryEntry e;
    e.path = e.realPath = path;
    e.name = name;
    e.fileSize = size;
    e.source = source;
    e.family = QStringLiteral("llama");
    return e;
}

QStringList column(const QAbstractItemModel *model, const QByteArray &roleName)
{
    const int role = model->roleNames().key(roleName, -1);
    QStringList values;
    for (int row = 0; row < model->rowCount(); ++row)
        values << model->index(row, 0).data(role).toString();
    return values;
}

bool waitForScan(ModelLibrary &library)
{
    QSignalSpy scanned(&library, &ModelLibrary::scanned);
    return (scanned.wait(20000) || !scanned.isEmpty()) && QTest::qWaitFor([&] { return !library.isScanning(); }, 20000);
}

} // namespace

class TestModelLibrary : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        QVERIFY(m_fake.build(m_home.path()));
        // A user whose home is the fake one.
        qputenv("HOME", QFile::encodeName(m_home.path()));
        qputenv("XDG_DATA_HOME", QFile::encodeName(m_fake.path(QStringLiteral(".local/share"))));
        qputenv("OLLAMA_MODELS", QFile::encodeName(m_fake.path(QStringLiteral(".ollama/models"))));
        for (const char *name : {"XDG_CACHE_HOME", "HF_HOME", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"})
            qunsetenv(name);
    }

    void init()
    {
        QSettings().remove(QStringLiteral("library/folders"));
        QSettings().remove(QStringLiteral("recentModels"));
        EngineBridge::resetBackendFactory();
    }

    void listModelUnderTester()
    {
        LibraryModel model;
        LibraryFilter filter;
        filter.setSourceModel(&model);
        QAbstractItemModelTester modelTester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester filterTester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy counted(&model, &LibraryModel::countChanged);

        model.setEntries({entry("/m/b.gguf", "b", 20), entry("/m/a.gguf", "a", 30), entry("/m/c.gguf", "c", 10)});
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(counted.size(), 1);
        QCOMPARE(column(&filter, "name"), (QStringList{"a", "b", "c"}));

        // The same files again: nothing changes.
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        model.setEntries({entry("/m/b.gguf", "b", 20), entry("/m/a.gguf", "a", 30), entry("/m/c.gguf", "c", 10)});
        QCOMPARE(changed.size() + inserted.size() + removed.size(), 0);

        // One gone, one changed, one new.
        model.setEntries({entry("/m/b.gguf", "b", 25), entry("/m/c.gguf", "c", 10), entry("/m/d.gguf", "d", 5)});
        QCOMPARE(removed.size(), 1);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(inserted.size(), 1);
        QCOMPARE(column(&model, "path"), (QStringList{"/m/b.gguf", "/m/c.gguf", "/m/d.gguf"}));
        QCOMPARE(column(&model, "fileSize"), (QStringList{"25", "10", "5"}));

        filter.setSortOrder(LibraryFilter::SortSize);
        QCOMPARE(column(&filter, "name"), (QStringList{"d", "c", "b"}));
        filter.setSearchText(QStringLiteral("C"));
        QCOMPARE(filter.count(), 1);
        QCOMPARE(filter.valueAt(0, QStringLiteral("path")).toString(), QStringLiteral("/m/c.gguf"));
        filter.setSearchText(QString());

        // Recently opened first under the default order.
        filter.setSortOrder(LibraryFilter::SortRecent);
        model.setRecentPaths({QStringLiteral("/m/d.gguf"), QStringLiteral("/m/c.gguf")});
        QCOMPARE(column(&filter, "name"), (QStringList{"d", "c", "b"}));
        model.setRecentPaths({});
        QCOMPARE(column(&filter, "name"), (QStringList{"b", "c", "d"}));

        model.setEntries({});
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(filter.count(), 0);
    }

    // Every model of the fake home with what the screen shows of it.
    void listsTheFakeHome()
    {
        ModelLibrary library;
        QVERIFY(waitForScan(library));
        QVERIFY(library.addFolder(QUrl::fromLocalFile(m_fake.path(QStringLiteral("Models")))));
        QVERIFY(waitForScan(library));

        const QList<ExpectedModel> expected = FakeHome::expectedModels();
        LibraryModel *model = library.allModels();
        QCOMPARE(model->rowCount(), expected.size());
        for (int row = 0; row < expected.size(); ++row) {
            const QModelIndex i = model->index(row, 0);
            const ExpectedModel &e = expected[row];
            QCOMPARE(i.data(LibraryModel::PathRole).toString(), m_fake.path(e.path));
            QCOMPARE(i.data(LibraryModel::NameRole).toString(), e.name);
            QCOMPARE(i.data(LibraryModel::SourceRole).toString(), e.source);
            QCOMPARE(i.data(LibraryModel::FamilyRole).toString(), e.family);
            QCOMPARE(i.data(LibraryModel::RepositoryRole).toString(), e.repository);
            QCOMPARE(i.data(LibraryModel::PartsRole).toInt(), e.parts);
            QCOMPARE(i.data(LibraryModel::RunnableRole).toBool(), e.runnable == QLatin1String("yes"));
            QCOMPARE(i.data(LibraryModel::WhyNotRole).toString().isEmpty(), e.runnable == QLatin1String("yes"));
            QVERIFY(!i.data(LibraryModel::SizeClassRole).toString().isEmpty());
            QVERIFY(!i.data(LibraryModel::FileSizeTextRole).toString().isEmpty());
            QVERIFY(!i.data(LibraryModel::MemoryTextRole).toString().isEmpty());
            QCOMPARE(i.data(LibraryModel::RecentRankRole).toInt(), -1);
            if (e.runnable == QLatin1String("yes")) {
                QCOMPARE(i.data(LibraryModel::ContextLengthRole).toInt(), 64);
                QCOMPARE(i.data(LibraryModel::QuantizationRole).toString(), QStringLiteral("F32"));
                QVERIFY(i.data(LibraryModel::FitsRole).toBool());   // a few hundred kB
            }
        }
        const QStringList sources = column(model, "sourceName");
        QCOMPARE(sources.first(), QStringLiteral("Burrow"));
        QVERIFY(sources.contains(QStringLiteral("LM Studio")));
        QVERIFY(sources.contains(QStringLiteral("Hugging Face")));
        QCOMPARE(sources.last(), QStringLiteral("Models"));   // the user's folder, by its name
        const QStringList whyNot = column(model, "whyNot");
        QVERIFY(whyNot.contains(QStringLiteral("Burrow can't run the mamba architecture yet.")));
        QVERIFY(whyNot.contains(QStringLiteral("Split into 3 files; Burrow opens single-file models only.")));
        QVERIFY(whyNot.contains(QStringLiteral("A part of this split model is missing: Half-00002-of-00002.gguf")));

        QCOMPARE(library.skippedCount(), int(m_fake.expectedSkipped().size()));
        QStringList placeNames;
        for (const QVariant &p : library.places())
            placeNames << p.toMap().value(QStringLiteral("sourceName")).toString() + QLatin1Char(' ') +
                              p.toMap().value(QStringLiteral("count")).toString();
        QCOMPARE(placeNames, (QStringList{"Burrow 1", "LM Studio 5", "LM Studio 1", "Ollama 2", "GPT4All 1", "Jan 1",
                                          "Hugging Face 1", "Models 1"}));

        // The estimate follows the chat's context size; far beyond the
        // memory free, nothing fits.
        QSignalSpy fits(model, &QAbstractItemModel::dataChanged);
        library.setContextSize(1 << 30);
        QCOMPARE(fits.size(), 1);
    }

    void searchAndSort_data()
    {
        QTest::addColumn<QString>("search");
        QTest::addColumn<int>("order");
        QTest::addColumn<QStringList>("names");
        QTest::newRow("by source name") << "ollama" << int(LibraryFilter::SortName)
                                        << QStringList{"hf.co/org/Tiny-GGUF:Q8_0", "tiny:latest"};
        QTest::newRow("two words") << "tiny hugging" << int(LibraryFilter::SortName) << QStringList{"tiny.Q8_0"};
        QTest::newRow("family") << "mamba" << int(LibraryFilter::SortName) << QStringList{"mamba-tiny"};
        QTest::newRow("repository") << "bartowski" << int(LibraryFilter::SortName)
                                    << QStringList{"Big", "Half", "mamba-tiny"};
        QTest::newRow("by source order") << "" << int(LibraryFilter::SortSource)
                                         << QStringList{"burrow-tiny", "Big", "Half", "mamba-tiny", "old-tiny",
                                                        "renamed-model", "Tiny-Q8_0", "hf.co/org/Tiny-GGUF:Q8_0",
                                                        "tiny:latest", "gpt4all-tiny", "jan-tiny", "tiny.Q8_0"};
        QTest::newRow("runnable first, then by name") << "LM Studio" << int(LibraryFilter::SortRecent)
                                                      << QStringList{"old-tiny", "renamed-model", "Tiny-Q8_0", "Big",
                                                                     "Half", "mamba-tiny"};
        QTest::newRow("smallest first") << "bartowski" << int(LibraryFilter::SortSize)
                                        << QStringList{"mamba-tiny", "Half", "Big"};
        QTest::newRow("nothing") << "no such model" << int(LibraryFilter::SortName) << QStringList{};
    }

    void searchAndSort()
    {
        QFETCH(QString, search);
        QFETCH(int, order);
        QFETCH(QStringList, names);
        ModelLibrary library;
        QVERIFY(waitForScan(library));
        LibraryFilter *filter = library.models();
        filter->setSortOrder(LibraryFilter::SortOrder(order));
        filter->setSearchText(search);
        QCOMPARE(column(filter, "name"), names);
    }

    void recentFirst()
    {
        ModelLibrary library;
        RecentModels recent;
        library.setRecentModels(&recent);
        QVERIFY(waitForScan(library));
        const QString gpt4all = m_fake.path(QStringLiteral(".local/share/nomic.ai/GPT4All/gpt4all-tiny.gguf"));
        const QString jan = m_fake.path(QStringLiteral(".local/share/Jan/data/llamacpp/models/jan-tiny/model.gguf"));
        recent.add(gpt4all);
        recent.add(jan);   // the newest
        QCOMPARE(library.models()->valueAt(0, QStringLiteral("path")).toString(), jan);
        QCOMPARE(library.models()->valueAt(1, QStringLiteral("path")).toString(), gpt4all);
        QCOMPARE(library.models()->valueAt(1, QStringLiteral("recentRank")).toInt(), 1);
        QCOMPARE(library.models()->valueAt(2, QStringLiteral("recentRank")).toInt(), -1);
    }

    void foldersAreKept()
    {
        const QString models = m_fake.path(QStringLiteral("Models"));
        {
            ModelLibrary library;
            QVERIFY(library.addFolder(QUrl::fromLocalFile(models)));
            QVERIFY(!library.addFolder(QUrl::fromLocalFile(models)));   // there already
            QVERIFY(!library.addFolder(QUrl::fromLocalFile(m_fake.path(QStringLiteral("Models/own-tiny.gguf")))));
            QVERIFY(!library.addFolder(QUrl::fromLocalFile(m_fake.path(QStringLiteral("absent")))));
            QCOMPARE(library.userFolders(), QStringList{models});
        }
        ModelLibrary again;
        QCOMPARE(again.userFolders(), QStringList{models});
        QVERIFY(waitForScan(again));
        QCOMPARE(column(again.allModels(), "name").last(), QStringLiteral("own-tiny"));
        again.removeFolder(models);
        QVERIFY(again.userFolders().isEmpty());
        QVERIFY(waitForScan(again));
        QVERIFY(!column(again.allModels(), "name").contains(QStringLiteral("own-tiny")));
        QCOMPARE(QSettings().value(QStringLiteral("library/folders")).toStringList(), QStringList{});
    }

    // A model written into a watched folder is listed without asking; a
    // removed one goes; a new publisher folder in LM Studio's is seen too.
    void watchedFoldersRescan()
    {
        ModelLibrary library;
        QVERIFY(waitForScan(library));
        const int before = library.allModels()->rowCount();
        QVERIFY(library.watchedFolders().contains(m_fake.path(QStringLiteral(".lmstudio/models"))));
        QVERIFY(library.watchedFolders().contains(m_fake.path(QStringLiteral(".local/share/Burrow/models"))));

        const QString downloaded = m_fake.path(QStringLiteral(".local/share/Burrow/models/new-tiny.gguf"));
        QVERIFY(writeTinyModel(TinySpec{}, downloaded.toStdString()));
        QTRY_VERIFY_WITH_TIMEOUT(column(library.allModels(), "path").contains(downloaded), 20000);
        QCOMPARE(library.allModels()->rowCount(), before + 1);

        const QString publisher = m_fake.path(QStringLiteral(".lmstudio/models/someone/New-GGUF/new.gguf"));
        QVERIFY(QDir().mkpath(QFileInfo(publisher).path()));
        QVERIFY(writeTinyModel(TinySpec{}, publisher.toStdString()));
        // A new folder in the watched LM Studio folder (the rescan waits for a quiet spell).
        QTRY_VERIFY_WITH_TIMEOUT(column(library.allModels(), "path").contains(publisher), 20000);

        QVERIFY(QFile::remove(downloaded));
        QVERIFY(QDir(m_fake.path(QStringLiteral(".lmstudio/models/someone"))).removeRecursively());
        QTRY_COMPARE_WITH_TIMEOUT(library.allModels()->rowCount(), before, 20000);
    }

    // The real window: the library from the empty state and the menu's
    // shortcut; each source's model opened with a click on Open, loaded by
    // the engine; a message answered.
    void opensFromEachSource()
    {
        AppWindow app;
        QVERIFY(app.open());
        auto *library = app.window->property("library").value<ModelLibrary *>();
        QVERIFY(library);
        QVERIFY(library->addFolder(QUrl::fromLocalFile(m_fake.path(QStringLiteral("Models")))));
        QTRY_COMPARE_WITH_TIMEOUT(library->allModels()->rowCount(), int(FakeHome::expectedModels().size()), 20000);
        QTRY_VERIFY(!library->isScanning());

        // The empty state offers what was found.
        QQuickItem *button = app.find(QStringLiteral("emptyStateLibrary"));
        QVERIFY(button);
        QTRY_VERIFY(button->property("text").toString().contains(QString::number(FakeHome::expectedModels().size())));
        clickItem(app.window, button);
        QTRY_VERIFY(app.window->property("libraryShown").toBool());

        QSet<QString> sources;
        for (const ExpectedModel &e : FakeHome::expectedModels()) {
            if (e.runnable != QLatin1String("yes") || sources.contains(e.source))
                continue;
            sources.insert(e.source);
            if (!app.window->property("libraryShown").toBool())
                QTest::keyClick(app.window, Qt::Key_L, Qt::ControlModifier | Qt::ShiftModifier);
            QTRY_VERIFY(app.window->property("libraryShown").toBool());
            library->models()->setSearchText(e.name);
            QTRY_COMPARE(library->models()->count(), 1);
            QQuickItem *row = nullptr;
            QTRY_VERIFY((row = findItem(app.window->contentItem(), QStringLiteral("libraryRow0"))) != nullptr &&
                        row->property("path").toString() == m_fake.path(e.path));
            QQuickItem *open = findItem(row, QStringLiteral("libraryRowOpen"));
            QVERIFY(open);
            QTRY_VERIFY(open->isVisible() && open->width() > 0 && open->isEnabled());

            QSignalSpy finished(app.chat, &ChatController::loadFinished);
            clickItem(app.window, open);
            QVERIFY2(finished.wait(30000) || !finished.isEmpty(), qPrintable(e.path));
            QVERIFY2(finished.first().first().toBool(), qPrintable(e.path));
            QCOMPARE(app.chat->models()->model().path, m_fake.path(e.path));
            QVERIFY(!app.window->property("libraryShown").toBool());
            // Opened from the library, it is recent now, and first in its list.
            QCOMPARE(app.chat->models()->recentModels()->paths().value(0), m_fake.path(e.path));
        }
        QCOMPARE(sources, (QSet<QString>{"burrow", "lmstudio", "ollama", "gpt4all", "jan", "huggingface", "folder"}));

        // The last one answers. Greedy, so the reply is the same on every
        // machine (a random-weights model may sample its end token first).
        QVERIFY(app.chat->settings()->setValue(QStringLiteral("temperature"), 0.0));
        QSignalSpy replied(app.chat, &ChatController::replyFinished);
        QVERIFY(app.chat->send(QStringLiteral("a b")));
        QVERIFY(replied.wait(60000) || !replied.isEmpty());
        const auto &reply = app.chat->messages()->message(replied.first().first().toInt());
        QVERIFY2(reply.error.isEmpty(), qPrintable(reply.error));
        QCOMPARE(reply.state, Chat::State::Complete);
        QVERIFY(reply.tokens > 0);
        QVERIFY(!reply.text.isEmpty());
    }

private:
    QTemporaryDir m_home;
    FakeHome m_fake;
};

QTEST_MAIN(TestModelLibrary)
#include "tst_modellibrary.moc"
