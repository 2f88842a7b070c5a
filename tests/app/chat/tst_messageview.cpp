// How a conversation's messages are shown, in the real window (offscreen):
// one delegate per block kind (MessageDelegate's DelegateChooser) — a
// person's own words as written, line breaks kept; a reply's Markdown
// rendered; a long code box in parts, Copy on any part taking the whole box —
// and no QML error on the way (a delegate that lost its chat, a cast that
// failed, used to pass unseen).
#include <QClipboard>
#include <QGuiApplication>
#include <functional>

#include "apptestsupport.h"
#include "chat/markdownblocks.h"

Q_IMPORT_QML_PLUGIN(BurrowPlugin)

using namespace burrow::test;

namespace {

// The first item under `root` for which `match` holds, or null.
QQuickItem *findIn(QQuickItem *root, const std::function<bool(QQuickItem *)> &match)
{
    if (match(root))
        return root;
    const QList<QQuickItem *> children = root->childItems();
    for (QQuickItem *child : children)
        if (QQuickItem *found = findIn(child, match))
            return found;
    return nullptr;
}

} // namespace

class TestMessageView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { failOnQmlErrors(); }

    void blocksByKind()
    {
        AppWindow app;
        QVERIFY(app.open());
        ConversationStore *store = app.chat->store();
        QTRY_VERIFY(store->isReady());
        QString code;
        for (int i = 0; i < 2 * MarkdownSplitter::MaxLines + 5; ++i)
            code += QStringLiteral("print(%1)\n").arg(i);
        code.chop(1);
        const qint64 id = store->createConversation(QStringLiteral("Lines"));
        QVERIFY(store->appendMessage(id, Chat::Role::User, QStringLiteral("first line\nsecond *line*")) > 0);
        QVERIFY(store->appendMessage(id, Chat::Role::Assistant,
                                     QStringLiteral("Here is **the** loop:\n\n```python\n%1\n```").arg(code)) > 0);
        QVERIFY(app.chat->openConversation(double(id)));
        auto *list = app.find(QStringLiteral("messageList"));
        QVERIFY(list);
        QTRY_COMPARE(list->property("count").toInt(), 2);

        // The person's words: two lines, the asterisks as typed.
        QQuickItem *mine = nullptr;
        QTRY_VERIFY((mine = findIn(list, [](QQuickItem *item) {
                         return item->inherits("QQuickTextEdit")
                             && item->property("text").toString() == QLatin1String("first line\nsecond *line*");
                     })));
        QCOMPARE(mine->property("lineCount").toInt(), 2);
        QCOMPARE(mine->property("textFormat").toInt(), int(Qt::PlainText));

        // The code box comes in parts (only the first has the header and its
        // Copy); Copy takes the whole box.
        QQuickItem *copy = nullptr;
        QTRY_VERIFY((copy = findIn(list, [](QQuickItem *item) {
                         return item->objectName() == QLatin1String("copyCode") && item->isVisible();
                     })));
        // (The list follows the end of the chat: back to its top, where the box begins.)
        QTest::qWait(300);
        QVERIFY(QMetaObject::invokeMethod(list, "positionViewAtBeginning"));
        QGuiApplication::clipboard()->clear();
        clickItem(app.window, copy);
        QTRY_COMPARE(QGuiApplication::clipboard()->text(), code);
    }
};

QTEST_MAIN(TestMessageView)
#include "tst_messageview.moc"
