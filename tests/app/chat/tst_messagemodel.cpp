// MessageModel under QAbstractItemModelTester, and the Markdown block split
// the chat view renders from.
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

#include "chat/markdownblocks.h"
#include "chat/messagemodel.h"

Q_DECLARE_METATYPE(QList<MarkdownBlock>)

namespace {
MessageModel::Message message(MessageModel::Author author, const QString &text)
{
    MessageModel::Message m;
    m.author = author;
    m.text = text;
    return m;
}

MarkdownBlock text(const QString &t) { return {MarkdownBlock::Kind::Text, t, QString(), true}; }
MarkdownBlock code(const QString &t, const QString &lang, bool closed = true)
{
    return {MarkdownBlock::Kind::Code, t, lang, closed};
}
} // namespace

class TestMessageModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void editsUnderModelTester()
    {
        MessageModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy count(&model, &MessageModel::countChanged);

        QCOMPARE(model.append(message(MessageModel::Author::User, QStringLiteral("Hi"))), 0);
        auto reply = message(MessageModel::Author::Assistant, QString());
        reply.state = MessageModel::State::Streaming;
        QCOMPARE(model.append(reply), 1);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(count.size(), 2);

        model.appendText(1, QStringLiteral("Hello"));
        model.appendText(1, QStringLiteral(" there"));
        QCOMPARE(model.data(model.index(1), MessageModel::TextRole).toString(), QStringLiteral("Hello there"));
        model.setState(1, MessageModel::State::Stopped);
        QCOMPARE(model.data(model.index(1), MessageModel::StateRole).toInt(), int(MessageModel::State::Stopped));
        model.setStats(1, 2, 100.0);
        QVERIFY(!model.data(model.index(1), MessageModel::StatsRole).toString().isEmpty());
        QCOMPARE(model.data(model.index(0), MessageModel::StatsRole).toString(), QString());
        QCOMPARE(model.data(model.index(0), MessageModel::IsLastRole).toBool(), false);
        QCOMPARE(model.data(model.index(1), MessageModel::IsLastRole).toBool(), true);

        model.append(message(MessageModel::Author::User, QStringLiteral("More")));
        model.append(message(MessageModel::Author::Assistant, QStringLiteral("Sure")));
        model.setMemoryStart(2);
        QCOMPARE(model.data(model.index(1), MessageModel::InContextRole).toBool(), false);
        QCOMPARE(model.data(model.index(2), MessageModel::InContextRole).toBool(), true);
        QCOMPARE(model.data(model.index(2), MessageModel::MemoryStartsHereRole).toBool(), true);
        model.setMemoryStart(-1);
        QCOMPARE(model.data(model.index(1), MessageModel::InContextRole).toBool(), true);

        model.removeFrom(2);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.data(model.index(1), MessageModel::IsLastRole).toBool(), true);
        model.setMessages({message(MessageModel::Author::User, QStringLiteral("Stored"))});
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.textAt(0), QStringLiteral("Stored"));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        // Out-of-range edits are ignored.
        model.appendText(5, QStringLiteral("x"));
        model.setState(-1, MessageModel::State::Failed);
        model.removeFrom(3);
    }

    void rolesHaveNames()
    {
        MessageModel model;
        const auto names = model.roleNames();
        for (int role = MessageModel::IdRole; role <= MessageModel::IsLastRole; ++role)
            QVERIFY2(names.contains(role), qPrintable(QString::number(role)));
    }

    void splitMarkdown_data()
    {
        QTest::addColumn<QString>("markdown");
        QTest::addColumn<QList<MarkdownBlock>>("expected");
        QTest::newRow("prose only") << QStringLiteral("# Title\n\nSome *text*.")
                                    << QList<MarkdownBlock>{text(QStringLiteral("# Title\n\nSome *text*."))};
        QTest::newRow("empty") << QString() << QList<MarkdownBlock>{};
        QTest::newRow("code between prose")
            << QStringLiteral("Before\n```cpp\nint x = 1;\n```\nAfter")
            << QList<MarkdownBlock>{text(QStringLiteral("Before")), code(QStringLiteral("int x = 1;"), QStringLiteral("cpp")),
                                    text(QStringLiteral("After"))};
        QTest::newRow("unclosed fence while streaming")
            << QStringLiteral("Look:\n~~~\nline 1\nline 2")
            << QList<MarkdownBlock>{text(QStringLiteral("Look:")), code(QStringLiteral("line 1\nline 2"), QString(), false)};
        QTest::newRow("longer closing fence, shorter inner fence")
            << QStringLiteral("````md\n```\ninner\n```\n`````")
            << QList<MarkdownBlock>{code(QStringLiteral("```\ninner\n```"), QStringLiteral("md"))};
        QTest::newRow("inline code is prose")
            << QStringLiteral("Use `ls` here, ``a`` too")
            << QList<MarkdownBlock>{text(QStringLiteral("Use `ls` here, ``a`` too"))};
        QTest::newRow("indented fence up to three spaces")
            << QStringLiteral("   ```python extra\nprint(1)\n   ```")
            << QList<MarkdownBlock>{code(QStringLiteral("print(1)"), QStringLiteral("python"))};
        QTest::newRow("four spaces is not a fence")
            << QStringLiteral("    ```\n    x")
            << QList<MarkdownBlock>{text(QStringLiteral("    ```\n    x"))};
        QTest::newRow("backtick fence with backtick in info is not a fence")
            << QStringLiteral("``` a`b\ntext")
            << QList<MarkdownBlock>{text(QStringLiteral("``` a`b\ntext"))};
    }

    void splitMarkdown()
    {
        QFETCH(QString, markdown);
        QFETCH(QList<MarkdownBlock>, expected);
        const QList<MarkdownBlock> blocks = ::splitMarkdown(markdown);
        QCOMPARE(blocks.size(), expected.size());
        for (int i = 0; i < blocks.size(); ++i) {
            QCOMPARE(int(blocks.at(i).kind), int(expected.at(i).kind));
            QCOMPARE(blocks.at(i).text, expected.at(i).text);
            QCOMPARE(blocks.at(i).language, expected.at(i).language);
            QCOMPARE(blocks.at(i).closed, expected.at(i).closed);
        }
    }

    void blocksRoleForQml()
    {
        MessageModel model;
        model.append(message(MessageModel::Author::Assistant, QStringLiteral("Run:\n```sh\nmake\n```")));
        const QVariantList blocks = model.data(model.index(0), MessageModel::BlocksRole).toList();
        QCOMPARE(blocks.size(), 2);
        QCOMPARE(blocks.at(1).toMap().value(QStringLiteral("kind")).toString(), QStringLiteral("code"));
        QCOMPARE(blocks.at(1).toMap().value(QStringLiteral("text")).toString(), QStringLiteral("make"));
        QCOMPARE(blocks.at(1).toMap().value(QStringLiteral("language")).toString(), QStringLiteral("sh"));
    }
};

QTEST_MAIN(TestMessageModel)
#include "tst_messagemodel.moc"
