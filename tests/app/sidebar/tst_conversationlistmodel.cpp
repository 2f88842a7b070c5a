// ConversationListModel under QAbstractItemModelTester: order, live updates
// from the store (insert, move, remove, undo), day sections, search mode.
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "sidebar/conversationlistmodel.h"
#include "storage/conversationstore.h"

class TestConversationListModel : public QObject {
    Q_OBJECT

private:
    QTemporaryDir *m_dir = nullptr;
    ConversationStore *m_store = nullptr;
    ConversationListModel *m_model = nullptr;
    QAbstractItemModelTester *m_tester = nullptr;
    QDateTime m_clock;  // local time

    QList<qint64> ids() const
    {
        QList<qint64> out;
        for (int i = 0; i < m_model->rowCount(); ++i)
            out << m_model->data(m_model->index(i), ConversationListModel::IdRole).toLongLong();
        return out;
    }
    QVariant at(int row, int role) const { return m_model->data(m_model->index(row), role); }

private slots:
    void initTestCase() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }

    void init()
    {
        m_dir = new QTemporaryDir;
        QVERIFY(m_dir->isValid());
        m_clock = QDateTime(QDate(2026, 3, 5), QTime(15, 0));  // a Thursday afternoon
        m_store = new ConversationStore;
        m_store->setDatabasePath(m_dir->filePath(QStringLiteral("burrow.db")));
        m_store->setClock([this] { return m_clock.toUTC(); });
        QVERIFY(m_store->open());
        m_model = new ConversationListModel;
        m_tester = new QAbstractItemModelTester(m_model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_model->setNow(QDateTime(QDate(2026, 3, 5), QTime(18, 0)));
    }
    void cleanup()
    {
        delete m_tester;
        delete m_model;
        delete m_store;
        delete m_dir;
    }

    void roles()
    {
        const QHash<int, QByteArray> names = m_model->roleNames();
        for (const char *name : {"conversationId", "title", "displayTitle", "updated", "section", "snippet",
                                 "snippetHtml", "modelName", "generating", "selected"})
            QVERIFY2(names.values().contains(name), name);
    }

    void followsTheStore()
    {
        const qint64 a = m_store->createConversation(QStringLiteral("A"), QStringLiteral("/models/alpha.gguf"));
        m_clock = m_clock.addSecs(60);
        const qint64 b = m_store->createConversation(QStringLiteral("B"));
        m_model->setStore(m_store);
        QCOMPARE(ids(), (QList<qint64>{b, a}));
        QCOMPARE(m_model->count(), 2);
        QCOMPARE(at(1, ConversationListModel::ModelNameRole).toString(), QStringLiteral("alpha.gguf"));

        // New: inserted at the top.
        QSignalSpy inserted(m_model, &QAbstractItemModel::rowsInserted);
        m_clock = m_clock.addSecs(60);
        const qint64 c = m_store->createConversation();
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(ids(), (QList<qint64>{c, b, a}));
        QCOMPARE(at(0, ConversationListModel::DisplayTitleRole).toString(), QStringLiteral("New chat"));
        QCOMPARE(at(0, ConversationListModel::TitleRole).toString(), QString());

        // A message moves its chat to the top (a move, not remove + insert)
        // and names an untitled chat.
        QSignalSpy moved(m_model, &QAbstractItemModel::rowsMoved);
        QSignalSpy removedRows(m_model, &QAbstractItemModel::rowsRemoved);
        m_clock = m_clock.addSecs(60);
        m_store->appendMessage(a, Chat::Role::User, QStringLiteral("hello"));
        QCOMPARE(ids(), (QList<qint64>{a, c, b}));
        QCOMPARE(moved.count(), 1);
        QCOMPARE(removedRows.count(), 0);
        m_clock = m_clock.addSecs(60);
        m_store->appendMessage(c, Chat::Role::User, QStringLiteral("What is a burrow?"));
        QCOMPARE(ids(), (QList<qint64>{c, a, b}));
        QCOMPARE(at(0, ConversationListModel::DisplayTitleRole).toString(), QStringLiteral("What is a burrow?"));

        // Rename in place.
        QSignalSpy changed(m_model, &QAbstractItemModel::dataChanged);
        m_store->rename(b, QStringLiteral("Bee"));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.first().at(0).toModelIndex().row(), 2);
        QCOMPARE(at(2, ConversationListModel::TitleRole).toString(), QStringLiteral("Bee"));
        QCOMPARE(m_model->indexOf(b), 2);
        QCOMPARE(m_model->idAt(2), b);
        QCOMPARE(m_model->idAt(7), qint64(-1));

        // Delete and undo: gone, then back in its place.
        QSignalSpy count(m_model, &ConversationListModel::countChanged);
        m_store->remove(a);
        QCOMPARE(ids(), (QList<qint64>{c, b}));
        QCOMPARE(m_model->indexOf(a), -1);
        m_store->undoRemove(a);
        QCOMPARE(ids(), (QList<qint64>{c, a, b}));
        QCOMPARE(count.count(), 2);

        // Streaming updates do not reorder or touch the list; a finished reply does.
        m_clock = m_clock.addSecs(60);
        const qint64 reply = m_store->beginReply(b, QStringLiteral("m"), {});
        QCOMPARE(ids(), (QList<qint64>{b, c, a}));
        changed.clear();
        m_store->updateReply(reply, QStringLiteral("partial"));
        QCOMPARE(changed.count(), 0);
    }

    void generatingRole()
    {
        const qint64 a = m_store->createConversation(QStringLiteral("A"));
        const qint64 b = m_store->createConversation(QStringLiteral("B"));
        m_model->setStore(m_store);
        QSignalSpy changed(m_model, &QAbstractItemModel::dataChanged);
        m_model->setGeneratingId(a);
        QVERIFY(at(m_model->indexOf(a), ConversationListModel::GeneratingRole).toBool());
        QVERIFY(!at(m_model->indexOf(b), ConversationListModel::GeneratingRole).toBool());
        m_model->setGeneratingId(b);
        QVERIFY(!at(m_model->indexOf(a), ConversationListModel::GeneratingRole).toBool());
        QVERIFY(at(m_model->indexOf(b), ConversationListModel::GeneratingRole).toBool());
        QCOMPARE(changed.count(), 3);
        m_model->setGeneratingId(-1);
        QVERIFY(!at(m_model->indexOf(b), ConversationListModel::GeneratingRole).toBool());
    }

    void sections_data()
    {
        QTest::addColumn<QDateTime>("updated");  // local time; now is Thu 2026-03-05 18:00
        QTest::addColumn<QString>("section");
        QTest::newRow("this morning") << QDateTime(QDate(2026, 3, 5), QTime(0, 1)) << QStringLiteral("Today");
        QTest::newRow("later today (clock ahead)") << QDateTime(QDate(2026, 3, 5), QTime(23, 0)) << QStringLiteral("Today");
        QTest::newRow("tomorrow (clock ahead)") << QDateTime(QDate(2026, 3, 6), QTime(9, 0)) << QStringLiteral("Today");
        QTest::newRow("last night") << QDateTime(QDate(2026, 3, 4), QTime(23, 59)) << QStringLiteral("Yesterday");
        QTest::newRow("yesterday morning") << QDateTime(QDate(2026, 3, 4), QTime(0, 0)) << QStringLiteral("Yesterday");
        QTest::newRow("two days") << QDateTime(QDate(2026, 3, 3), QTime(12, 0)) << QStringLiteral("Tuesday");
        QTest::newRow("six days") << QDateTime(QDate(2026, 2, 27), QTime(12, 0)) << QStringLiteral("Friday");
        QTest::newRow("a week") << QDateTime(QDate(2026, 2, 26), QTime(12, 0))
                                << QStringLiteral("Thursday, February 26, 2026");
        QTest::newRow("last year") << QDateTime(QDate(2025, 12, 31), QTime(12, 0))
                                   << QStringLiteral("Wednesday, December 31, 2025");
    }
    void sections()
    {
        QFETCH(QDateTime, updated);
        QFETCH(QString, section);
        const QDateTime now(QDate(2026, 3, 5), QTime(18, 0));
        QCOMPARE(ConversationListModel::sectionFor(updated, now), section);
        QCOMPARE(ConversationListModel::sectionFor(updated.toUTC(), now.toUTC()), section);  // local days, not UTC
        m_clock = updated;
        m_store->createConversation(QStringLiteral("x"));
        m_model->setStore(m_store);
        QCOMPARE(at(0, ConversationListModel::SectionRole).toString(), section);
    }

    void sectionsFollowNow()
    {
        m_store->createConversation(QStringLiteral("x"));
        m_model->setStore(m_store);
        QCOMPARE(at(0, ConversationListModel::SectionRole).toString(), QStringLiteral("Today"));
        QSignalSpy changed(m_model, &QAbstractItemModel::dataChanged);
        m_model->setNow(QDateTime(QDate(2026, 3, 6), QTime(9, 0)));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(at(0, ConversationListModel::SectionRole).toString(), QStringLiteral("Yesterday"));
    }

    void sectionsAreContiguous()
    {
        // Newest first means each day's rows sit together, as ListView sections need.
        const QList<int> daysAgo{0, 0, 1, 3, 3, 10, 40};
        for (int d : daysAgo) {
            m_clock = QDateTime(QDate(2026, 3, 5).addDays(-d), QTime(10, d));
            m_store->createConversation(QString::number(d));
        }
        m_model->setStore(m_store);
        QStringList seen;
        for (int i = 0; i < m_model->rowCount(); ++i) {
            const QString s = at(i, ConversationListModel::SectionRole).toString();
            if (seen.isEmpty() || seen.last() != s) {
                QVERIFY2(!seen.contains(s), qPrintable(s));
                seen << s;
            }
        }
        QCOMPARE(seen.size(), 5);
        QCOMPARE(seen.first(), QStringLiteral("Today"));
    }

    void searchMode()
    {
        const qint64 soup = m_store->createConversation(QStringLiteral("Soup"));
        m_store->appendMessage(soup, Chat::Role::User, QStringLiteral("A recipe with lentils please"));
        m_clock = m_clock.addSecs(60);
        const qint64 trip = m_store->createConversation(QStringLiteral("Trip to Lisbon"));
        m_store->appendMessage(trip, Chat::Role::User, QStringLiteral("Where should I eat?"));
        m_model->setStore(m_store);
        QCOMPARE(m_model->count(), 2);

        m_model->setSearchText(QStringLiteral("lentil"));
        QCOMPARE(ids(), QList<qint64>{soup});
        QCOMPARE(at(0, ConversationListModel::SnippetRole).toString(), QStringLiteral("A recipe with lentils please"));
        QVERIFY(at(0, ConversationListModel::SnippetHtmlRole).toString().contains(QStringLiteral("<b>lentil</b>")));
        QVERIFY(at(0, ConversationListModel::MatchedMessageIdRole).toLongLong() > 0);

        m_model->setSearchText(QStringLiteral("lisbon"));
        QCOMPARE(ids(), QList<qint64>{trip});
        QCOMPARE(at(0, ConversationListModel::MatchedMessageIdRole).toLongLong(), qint64(-1));  // the title

        // The results follow the store while searching.
        m_store->appendMessage(soup, Chat::Role::User, QStringLiteral("Or something from Lisbon"));
        QCOMPARE(m_model->count(), 2);
        m_model->setSearchText(QStringLiteral("nothing like this"));
        QCOMPARE(m_model->count(), 0);
        m_model->setSearchText(QString());
        QCOMPARE(m_model->count(), 2);
        QCOMPARE(at(0, ConversationListModel::SnippetRole).toString(), QString());
    }

    // Selection: the steps run on five chats listed Echo, Delta, Charlie,
    // Bravo, Alpha (newest first), each with a message "about <name>".
    // Steps: "current X" (the chat shown; "current -" none), "toggle X"
    // (Ctrl+click), "range X" (Shift+click), "all" (Ctrl+A), "clear",
    // "remove X" (deleted in the store), "search TEXT" ("search" alone: none).
    void selection_data()
    {
        QTest::addColumn<QStringList>("steps");
        QTest::addColumn<QStringList>("expected");   // selected, in row order
        const auto steps = [](const char *text) { return QString::fromLatin1(text).split(QLatin1Char(';')); };
        const auto names = [](const char *text) {
            return QString::fromLatin1(text).split(QLatin1Char(' '), Qt::SkipEmptyParts);
        };
        QTest::newRow("nothing shown") << steps("current -") << names("");
        QTest::newRow("the current chat") << steps("current Charlie") << names("Charlie");
        QTest::newRow("toggle adds") << steps("current Charlie;toggle Alpha") << names("Charlie Alpha");
        QTest::newRow("toggle twice removes") << steps("current Charlie;toggle Alpha;toggle Alpha") << names("Charlie");
        QTest::newRow("current cannot be toggled off") << steps("current Charlie;toggle Charlie") << names("Charlie");
        QTest::newRow("toggle without current") << steps("current -;toggle Bravo;toggle Echo") << names("Echo Bravo");
        QTest::newRow("range down from current") << steps("current Charlie;range Alpha") << names("Charlie Bravo Alpha");
        QTest::newRow("range up from current") << steps("current Charlie;range Echo") << names("Echo Delta Charlie");
        QTest::newRow("range from last toggled") << steps("current Alpha;toggle Echo;range Charlie")
                                                 << names("Echo Delta Charlie Alpha");
        QTest::newRow("range replaces range") << steps("current Charlie;range Alpha;range Delta") << names("Delta Charlie");
        QTest::newRow("range keeps anchor") << steps("current Alpha;toggle Delta;range Echo;range Bravo")
                                            << names("Delta Charlie Bravo Alpha");
        QTest::newRow("range without current") << steps("current -;range Charlie") << names("Charlie");
        QTest::newRow("select all") << steps("current Charlie;all") << names("Echo Delta Charlie Bravo Alpha");
        QTest::newRow("clear keeps current") << steps("current Charlie;all;clear") << names("Charlie");
        QTest::newRow("new current resets") << steps("current Charlie;all;current Bravo") << names("Bravo");
        QTest::newRow("removed chat leaves") << steps("current Charlie;toggle Alpha;toggle Echo;remove Alpha")
                                             << names("Echo Charlie");
        QTest::newRow("removed anchor") << steps("current Charlie;toggle Alpha;remove Alpha;range Delta")
                                        << names("Delta Charlie");
        QTest::newRow("removed current") << steps("current Charlie;toggle Alpha;remove Charlie") << names("Alpha");
        QTest::newRow("search hides current") << steps("current Charlie;toggle Alpha;search delta") << names("");
        QTest::newRow("search resets") << steps("current Charlie;toggle Alpha;search about") << names("Charlie");
        QTest::newRow("select in results") << steps("current Charlie;search delta;toggle Delta") << names("Delta");
        QTest::newRow("unlisted not toggled") << steps("current Charlie;search delta;toggle Alpha;range Bravo") << names("");
        QTest::newRow("search cleared resets") << steps("current Charlie;search delta;toggle Delta;search")
                                               << names("Charlie");
        QTest::newRow("all in results") << steps("current Charlie;search alpha;all;search") << names("Charlie");
    }
    void selection()
    {
        QFETCH(QStringList, steps);
        QFETCH(QStringList, expected);
        QHash<QString, qint64> byName;
        QHash<qint64, QString> nameOf;
        for (const char *name : {"Alpha", "Bravo", "Charlie", "Delta", "Echo"}) {
            const QString title = QString::fromLatin1(name);
            m_clock = m_clock.addSecs(60);
            const qint64 id = m_store->createConversation(title);
            QVERIFY(m_store->appendMessage(id, Chat::Role::User, QStringLiteral("about ") + title.toLower()) > 0);
            byName.insert(title, id);
            nameOf.insert(id, title);
        }
        m_model->setStore(m_store);
        QCOMPARE(m_model->count(), 5);
        QSignalSpy changed(m_model, &ConversationListModel::selectionChanged);

        for (const QString &step : steps) {
            const QString verb = step.section(QLatin1Char(' '), 0, 0);
            const QString arg = step.section(QLatin1Char(' '), 1);
            if (verb == QLatin1String("current"))
                m_model->setCurrentId(byName.value(arg, -1));
            else if (verb == QLatin1String("toggle"))
                m_model->toggle(byName.value(arg));
            else if (verb == QLatin1String("range"))
                m_model->selectRange(byName.value(arg));
            else if (verb == QLatin1String("all"))
                m_model->selectAll();
            else if (verb == QLatin1String("clear"))
                m_model->clearSelection();
            else if (verb == QLatin1String("remove"))
                QVERIFY(m_store->remove(byName.value(arg)));
            else if (verb == QLatin1String("search"))
                m_model->setSearchText(arg);
            else
                QFAIL(qPrintable(QStringLiteral("unknown step ") + step));
        }

        QStringList got;
        for (qint64 id : m_model->selection())
            got << nameOf.value(id);
        QCOMPARE(got, expected);
        QCOMPARE(m_model->selectionCount(), expected.size());
        QCOMPARE(m_model->selectedIdList().size(), expected.size());
        // The role agrees with the list, row by row.
        for (int row = 0; row < m_model->rowCount(); ++row) {
            const QString name = at(row, ConversationListModel::TitleRole).toString();
            QCOMPARE(at(row, ConversationListModel::SelectedRole).toBool(), expected.contains(name));
            QCOMPARE(m_model->isSelected(byName.value(name)), expected.contains(name));
        }
        if (expected.size() > 1)
            QVERIFY(changed.count() > 0);
    }

    // A change of the selection reaches views as dataChanged on the rows concerned.
    void selectionSignalsRows()
    {
        const qint64 a = m_store->createConversation(QStringLiteral("A"));
        m_clock = m_clock.addSecs(60);
        const qint64 b = m_store->createConversation(QStringLiteral("B"));
        m_model->setStore(m_store);
        m_model->setCurrentId(a);
        QSignalSpy rows(m_model, &QAbstractItemModel::dataChanged);
        QSignalSpy changed(m_model, &ConversationListModel::selectionChanged);
        QVERIFY(m_model->toggle(b));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(rows.count(), 1);
        QCOMPARE(rows.first().at(0).toModelIndex().row(), 0);   // B is the newest
        QCOMPARE(rows.first().at(2).value<QList<int>>(), QList<int>{ConversationListModel::SelectedRole});
        QVERIFY(!m_model->toggle(a));   // the current one stays
        QCOMPARE(changed.count(), 1);
        QCOMPARE(m_model->selectedIdList(), (QVariantList{b, a}));
    }

    void storeGoesAway()
    {
        m_store->createConversation(QStringLiteral("x"));
        m_model->setStore(m_store);
        QCOMPARE(m_model->count(), 1);
        m_store->close();
        QCOMPARE(m_model->count(), 0);
        QVERIFY(m_store->open());
        QCOMPARE(m_model->count(), 1);
        delete m_store;
        m_store = nullptr;
        QCOMPARE(m_model->count(), 0);
    }
};

QTEST_MAIN(TestConversationListModel)
#include "tst_conversationlistmodel.moc"
