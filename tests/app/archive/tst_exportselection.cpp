// Exporting a selection from the real window: two of three chats picked in
// the sidebar (click, then Ctrl+click), File → "Export selected
// conversations (2)…" offered, the selection exported through ArchiveService,
// and the bundle's conversations.json holds exactly those two.
#include "apptestsupport.h"
#include "archive/archiveservice.h"

#include <QDir>
#include <QJsonArray>
#include <QProcess>
#include <QTemporaryDir>

Q_IMPORT_QML_PLUGIN(BurrowPlugin)

using namespace burrow::test;

namespace {

const QString kHelper = QStringLiteral(BURROW_BINARY_DIR "/app/burrow-archive");

// The sidebar's row showing `conversationId` (its delegate), or null.
QQuickItem *rowFor(QQuickItem *list, qint64 conversationId)
{
    QMetaObject::invokeMethod(list, "forceLayout");
    auto *content = list->property("contentItem").value<QQuickItem *>();
    if (!content)
        return nullptr;
    const QList<QQuickItem *> items = content->childItems();   // the delegates
    for (QQuickItem *item : items) {
        if (item->objectName().startsWith(QLatin1String("conversation_"))
            && item->property("conversationId").toLongLong() == conversationId)
            return item;
    }
    return nullptr;
}

void clickRow(QQuickWindow *window, QQuickItem *row, Qt::KeyboardModifiers modifiers)
{
    // Left part of the row: the title, not the actions button.
    const QPointF at = row->mapToScene(QPointF(20, row->height() / 2));
    QTest::mouseClick(window, Qt::LeftButton, modifiers, at.toPoint());
}

} // namespace

class TestExportSelection : public QObject {
    Q_OBJECT
private slots:
    void init() { failOnQmlErrors(); }
    void initTestCase()
    {
        QVERIFY2(QFileInfo(kHelper).isExecutable(), "burrow-archive was not built");
        qputenv("BURROW_ARCHIVE_HELPER", kHelper.toUtf8());
    }

    void exportsExactlyTheSelectedChats()
    {
        AppWindow app;
        QVERIFY(app.open());
        ConversationStore *store = app.chat->store();
        QTRY_VERIFY(store->isReady());
        QList<qint64> ids;
        for (const QString &title : {QStringLiteral("Soup"), QStringLiteral("Trip"), QStringLiteral("Taxes")}) {
            const qint64 id = store->createConversation(title);
            QVERIFY(id > 0);
            QVERIFY(store->appendMessage(id, Chat::Role::User, QStringLiteral("about ") + title) > 0);
            ids << id;
        }
        auto *list = app.find(QStringLiteral("conversationList"));
        QVERIFY(list);
        // (The window also shows the chat it started with.)
        QTRY_VERIFY(rowFor(list, ids[0]) && rowFor(list, ids[1]) && rowFor(list, ids[2]));

        // Click Soup (it opens), Ctrl+click Taxes (added, Trip stays out).
        QQuickItem *soup = rowFor(list, ids[0]);
        QVERIFY(soup);
        clickRow(app.window, soup, Qt::NoModifier);
        QTRY_COMPARE(qint64(app.chat->conversationId()), ids[0]);
        QQuickItem *taxes = rowFor(list, ids[2]);
        QVERIFY(taxes);
        clickRow(app.window, taxes, Qt::ControlModifier);
        QCOMPARE(qint64(app.chat->conversationId()), ids[0]);   // Ctrl+click does not open it
        auto *sidebar = app.find(QStringLiteral("conversationSidebar"));
        QVERIFY(sidebar);
        QTRY_COMPARE(sidebar->property("selectionCount").toInt(), 2);
        QVERIFY(taxes->property("highlighted").toBool());
        QVERIFY(!rowFor(list, ids[1])->property("highlighted").toBool());

        // File → Export selected conversations (2)… is offered.
        auto *menuItem = app.window->findChild<QObject *>(QStringLiteral("exportSelectedMenuItem"));
        QVERIFY(menuItem);
        QCOMPARE(menuItem->property("text").toString(), QStringLiteral("Export se&lected conversations (2)…"));
        QVERIFY(menuItem->property("enabled").toBool());
        const QVariantList selected = sidebar->property("selectedIds").toList();
        QList<qint64> picked;
        for (const QVariant &v : selected)
            picked << v.toLongLong();
        std::sort(picked.begin(), picked.end());
        QCOMPARE(picked, (QList<qint64>{ids[0], ids[2]}));

        // What the menu item hands to the file dialog, and the dialog to the
        // service once a file is chosen (the dialog itself cannot be shown
        // offscreen: Qt 6.4's non-native FileDialog needs Qt.labs.folderlistmodel).
        QTemporaryDir tmp;
        const QString bundle = tmp.filePath(QStringLiteral("two chats.zip"));
        auto *archives = app.chat->archives();
        QVERIFY(archives);
        QSignalSpy finished(archives, &ArchiveService::finished);
        QVERIFY(archives->exportConversations(selected, bundle));
        QVERIFY2(archives->activity().startsWith(QStringLiteral("Exporting 2 ")), qPrintable(archives->activity()));
        QVERIFY(finished.wait(60000));
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));

        // The bundle holds exactly Soup and Taxes, each with its transcript.
        const QString out = tmp.filePath(QStringLiteral("out"));
        QProcess extract;
        extract.start(kHelper, {QStringLiteral("extract"), bundle, out});
        QVERIFY(extract.waitForFinished(60000));
        QCOMPARE(extract.exitCode(), 0);
        QFile json(out + QStringLiteral("/conversations.json"));
        QVERIFY(json.open(QIODevice::ReadOnly));
        const QJsonArray conversations = QJsonDocument::fromJson(json.readAll()).object()
                                             .value(QStringLiteral("conversations")).toArray();
        QStringList titles;
        for (const QJsonValue &c : conversations)
            titles << c.toObject().value(QStringLiteral("title")).toString();
        titles.sort();
        QCOMPARE(titles, (QStringList{QStringLiteral("Soup"), QStringLiteral("Taxes")}));
        QCOMPARE(QDir(out + QStringLiteral("/transcripts")).entryList(QDir::Files).size(), 2);
    }
};

QTEST_MAIN(TestExportSelection)
#include "tst_exportselection.moc"
