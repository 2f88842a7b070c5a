// MessageModel under QAbstractItemModelTester, and the Markdown blocks the
// chat view renders from: the split itself, the same blocks when the text
// arrives piece by piece (at every cut point), and a message's block model
// that never rebuilds the blocks before the last.
#include <QAbstractItemModelTester>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTest>

#include "chat/markdownblocks.h"
#include "chat/messageblocks.h"
#include "chat/messagemodel.h"

namespace {
MessageModel::Message message(Chat::Role author, const QString &text)
{
    MessageModel::Message m;
    m.author = author;
    m.text = text;
    return m;
}

// What a block shows, for the expectations.
struct Shown {
    MarkdownBlock::Kind kind = MarkdownBlock::Kind::Text;
    QString text;
    QString language;
    bool closed = true;
    bool continued = false;
};
Shown text(const QString &t) { return {MarkdownBlock::Kind::Text, t, QString(), true, false}; }
Shown continuedText(const QString &t) { return {MarkdownBlock::Kind::Text, t, QString(), true, true}; }
Shown code(const QString &t, const QString &lang, bool closed = true, bool continued = false)
{
    return {MarkdownBlock::Kind::Code, t, lang, closed, continued};
}

QString describe(const QList<MarkdownBlock> &blocks, QStringView source)
{
    QStringList out;
    for (const MarkdownBlock &b : blocks)
        out << QStringLiteral("%1%2[%3]%4").arg(b.kind == MarkdownBlock::Kind::Code ? QStringLiteral("code:") : QString(),
                                               b.language, b.textIn(source), b.closed ? QString() : QStringLiteral("…"));
    return out.join(QLatin1Char('|'));
}

// `count` sentences of exactly 50 characters (the space after each
// included), in one line: "Sentence 007 goes on for a long while, then ends. "
QString sentences(int count, int first = 0)
{
    QString out;
    for (int i = first; i < first + count; ++i)
        out += QStringLiteral("Sentence %1 goes on for a long while, then ends. ").arg(i, 3, 10, QLatin1Char('0'));
    return out;
}

// Replies with everything the splitter decides on: paragraphs, lists,
// fences of both kinds and lengths, an unclosed fence, a long code block
// and a long list (split by MaxLines), blank lines with spaces, CRLF, one
// very long paragraph (split by MaxProseChars), also with markup open across
// where it would be cut.
QStringList sampleReplies()
{
    QString longCode = QStringLiteral("Here:\n```python\n");
    for (int i = 0; i < 2 * MarkdownSplitter::MaxLines + 5; ++i)
        longCode += QStringLiteral("print(%1)\n").arg(i);
    longCode += QStringLiteral("```\nDone.");
    QString longList = QStringLiteral("Steps:\n");
    for (int i = 0; i < MarkdownSplitter::MaxLines + 10; ++i)
        longList += QStringLiteral("- step %1\n  detail\n").arg(i);
    return {
        QStringLiteral("# Title\n\nSome *text*.\nMore of it.\n\n- a\n- b\n\n  continued\n\n1. one\n2. two"),
        QStringLiteral("Before\n```cpp\nint x = 1;\n\nint y;\n```\nAfter\n\n~~~\nunclosed\n``` not closing\n"),
        QStringLiteral("````md\n```\ninner\n```\n`````\n   \ntext\r\n\r\nnext"),
        QStringLiteral("``` a`b\ntext\n```\n"),
        QStringLiteral("```"),
        longCode,
        longList,
        sentences(60) + QStringLiteral("And the end?"),
        sentences(23) + QStringLiteral("It says `x. y` and **bold. still** here. ") + sentences(30, 23) +
            QStringLiteral("\n\nA [link. text](u) then. ") + sentences(30, 60) + QStringLiteral("\n```\ncode\n```\n"),
    };
}
} // namespace

Q_DECLARE_METATYPE(Shown)

class TestMessageModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void editsUnderModelTester()
    {
        MessageModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy count(&model, &MessageModel::countChanged);

        QCOMPARE(model.append(message(Chat::Role::User, QStringLiteral("Hi"))), 0);
        auto reply = message(Chat::Role::Assistant, QString());
        reply.state = Chat::State::Streaming;
        QCOMPARE(model.append(reply), 1);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(count.size(), 2);

        model.appendText(1, QStringLiteral("Hello"));
        model.appendText(1, QStringLiteral(" there"));
        QCOMPARE(model.data(model.index(1), MessageModel::TextRole).toString(), QStringLiteral("Hello there"));
        model.setState(1, Chat::State::Stopped);
        QCOMPARE(model.data(model.index(1), MessageModel::StateRole).toInt(), int(Chat::State::Stopped));
        model.setStats(1, 2, 100.0);
        QVERIFY(!model.data(model.index(1), MessageModel::StatsRole).toString().isEmpty());
        QCOMPARE(model.data(model.index(0), MessageModel::StatsRole).toString(), QString());
        QCOMPARE(model.data(model.index(0), MessageModel::IsLastRole).toBool(), false);
        QCOMPARE(model.data(model.index(1), MessageModel::IsLastRole).toBool(), true);

        model.append(message(Chat::Role::User, QStringLiteral("More")));
        model.append(message(Chat::Role::Assistant, QStringLiteral("Sure")));
        model.setMemoryStart(2);
        QCOMPARE(model.data(model.index(1), MessageModel::InContextRole).toBool(), false);
        QCOMPARE(model.data(model.index(2), MessageModel::InContextRole).toBool(), true);
        QCOMPARE(model.data(model.index(2), MessageModel::MemoryStartsHereRole).toBool(), true);
        model.setMemoryStart(-1);
        QCOMPARE(model.data(model.index(1), MessageModel::InContextRole).toBool(), true);

        model.removeFrom(2);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.data(model.index(1), MessageModel::IsLastRole).toBool(), true);
        model.setMessages({message(Chat::Role::User, QStringLiteral("Stored"))});
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.textAt(0), QStringLiteral("Stored"));
        QCOMPARE(model.takeText(0), QStringLiteral("Stored"));
        QCOMPARE(model.textAt(0), QString());
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        // Out-of-range edits are ignored.
        model.appendText(5, QStringLiteral("x"));
        model.setState(-1, Chat::State::Failed);
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
        QTest::addColumn<QList<Shown>>("expected");
        QTest::newRow("paragraphs are blocks")
            << QStringLiteral("# Title\n\nSome *text*.\nSecond line.")
            << QList<Shown>{text(QStringLiteral("# Title")), text(QStringLiteral("Some *text*.\nSecond line."))};
        QTest::newRow("indented after a blank line stays (a list item goes on)")
            << QStringLiteral("- item\n\n  more of it\n- next")
            << QList<Shown>{text(QStringLiteral("- item\n\n  more of it\n- next"))};
        QTest::newRow("empty") << QString() << QList<Shown>{};
        QTest::newRow("code between prose")
            << QStringLiteral("Before\n```cpp\nint x = 1;\n```\nAfter")
            << QList<Shown>{text(QStringLiteral("Before")), code(QStringLiteral("int x = 1;"), QStringLiteral("cpp")),
                            text(QStringLiteral("After"))};
        QTest::newRow("unclosed fence while streaming")
            << QStringLiteral("Look:\n~~~\nline 1\nline 2")
            << QList<Shown>{text(QStringLiteral("Look:")), code(QStringLiteral("line 1\nline 2"), QString(), false)};
        QTest::newRow("longer closing fence, shorter inner fence")
            << QStringLiteral("````md\n```\ninner\n```\n`````")
            << QList<Shown>{code(QStringLiteral("```\ninner\n```"), QStringLiteral("md"))};
        QTest::newRow("inline code is prose")
            << QStringLiteral("Use `ls` here, ``a`` too")
            << QList<Shown>{text(QStringLiteral("Use `ls` here, ``a`` too"))};
        QTest::newRow("indented fence up to three spaces")
            << QStringLiteral("   ```python extra\nprint(1)\n   ```")
            << QList<Shown>{code(QStringLiteral("print(1)"), QStringLiteral("python"))};
        QTest::newRow("four spaces is not a fence")
            << QStringLiteral("    ```\n    x")
            << QList<Shown>{text(QStringLiteral("    ```\n    x"))};
        QTest::newRow("backtick fence with backtick in info is not a fence")
            << QStringLiteral("``` a`b\ntext")
            << QList<Shown>{text(QStringLiteral("``` a`b\ntext"))};
        QString lines;
        for (int i = 0; i < MarkdownSplitter::MaxLines + 2; ++i)
            lines += QStringLiteral("l%1\n").arg(i);
        QStringList firstPart, secondPart;
        for (int i = 0; i < MarkdownSplitter::MaxLines; ++i)
            firstPart << QStringLiteral("l%1").arg(i);
        secondPart << QStringLiteral("l%1").arg(MarkdownSplitter::MaxLines)
                   << QStringLiteral("l%1").arg(MarkdownSplitter::MaxLines + 1);
        const QString para = sentences(60) + QStringLiteral("Last.");
        QTest::newRow("a long paragraph is cut after a sentence, in its line")
            << para
            << QList<Shown>{text(sentences(24)), continuedText(sentences(24, 24)), continuedText(sentences(12, 48) + QStringLiteral("Last."))};
        // Its sentence end past the limit falls inside the code span.
        const QString spanning = QStringLiteral("Here is one long sentence that runs past the limit with `code. Inside` and then ends. ");
        QTest::newRow("not where a code span is open: at the next sentence")
            << sentences(23) + spanning + sentences(30, 23)
            << QList<Shown>{text(sentences(23) + spanning), continuedText(sentences(24, 23)), continuedText(sentences(6, 47))};
        QTest::newRow("a long paragraph with lines: the cut may fall inside a line")
            << sentences(20) + QStringLiteral("\n") + sentences(10, 20)
            << QList<Shown>{text(sentences(20) + QStringLiteral("\n") + sentences(4, 20)), continuedText(sentences(6, 24))};
        QString chinese;   // 24 sentences of 50 characters each, no spaces
        for (int i = 0; i < 30; ++i)
            chinese += QString(49, QChar(0x5B57)) + QChar(0x3002);
        QTest::newRow("full-width sentence ends need no space")
            << chinese << QList<Shown>{text(chinese.left(1200)), continuedText(chinese.mid(1200))};
        QTest::newRow("no space: no cut")
            << QString(3 * MarkdownSplitter::MaxProseChars, QLatin1Char('a'))
            << QList<Shown>{text(QString(3 * MarkdownSplitter::MaxProseChars, QLatin1Char('a')))};
        QString words;   // 1,000 words of 5 characters, no sentence end
        for (int i = 0; i < 1000; ++i)
            words += QStringLiteral("word ");
        QTest::newRow("no sentence end: before a word at twice the length")
            << words << QList<Shown>{text(words.left(2400)), continuedText(words.mid(2400, 2400)), continuedText(words.mid(4800))};
        QTest::newRow("a long code block goes on in a continued block")
            << QStringLiteral("```\n") + lines + QStringLiteral("```")
            << QList<Shown>{code(firstPart.join(u'\n'), QString(), /*closed=*/false),
                            code(secondPart.join(u'\n'), QString(), true, true)};
    }

    void splitMarkdown()
    {
        QFETCH(QString, markdown);
        QFETCH(QList<Shown>, expected);
        const QList<MarkdownBlock> blocks = ::splitMarkdown(markdown);
        QCOMPARE(blocks.size(), expected.size());
        for (int i = 0; i < blocks.size(); ++i) {
            QCOMPARE(int(blocks.at(i).kind), int(expected.at(i).kind));
            QCOMPARE(blocks.at(i).textIn(markdown), expected.at(i).text);
            QCOMPARE(blocks.at(i).language, expected.at(i).language);
            QCOMPARE(blocks.at(i).closed, expected.at(i).closed);
            QCOMPARE(blocks.at(i).continued, expected.at(i).continued);
        }
    }

    // Streaming: after every piece, the splitter that re-parses only its last
    // block has exactly the blocks a one-pass split of the text so far has;
    // at the end (the text complete) the blocks of the whole reply.
    void incrementalEqualsOnePassAtEveryCut_data()
    {
        QTest::addColumn<QString>("reply");
        QTest::addColumn<int>("step");   // characters per piece; 0: random pieces of 1..12
        const QStringList replies = sampleReplies();
        for (int i = 0; i < replies.size(); ++i) {
            QTest::addRow("reply %d, one character at a time", i) << replies.at(i) << 1;
            QTest::addRow("reply %d, random pieces", i) << replies.at(i) << 0;
        }
    }

    void incrementalEqualsOnePassAtEveryCut()
    {
        QFETCH(QString, reply);
        QFETCH(int, step);
        QRandomGenerator random(1234);
        MarkdownSplitter splitter;
        qsizetype at = 0;
        while (at < reply.size()) {
            at = qMin(reply.size(), at + (step > 0 ? step : 1 + random.bounded(12)));
            const QStringView prefix = QStringView(reply).left(at);
            const QList<MarkdownBlock> before = splitter.blocks();
            const qsizetype first = splitter.update(prefix, false);
            const QList<MarkdownBlock> onePass = ::splitMarkdown(prefix, false);
            QVERIFY2(splitter.blocks() == onePass,
                     qPrintable(QStringLiteral("at %1:\n incremental %2\n one pass    %3")
                                    .arg(at)
                                    .arg(describe(splitter.blocks(), prefix), describe(onePass, prefix))));
            // Only the last block of before may have changed.
            QVERIFY(first >= qMax<qsizetype>(0, before.size() - 1));
        }
        splitter.update(reply, true);
        QVERIFY2(splitter.blocks() == ::splitMarkdown(reply, true),
                 qPrintable(describe(splitter.blocks(), reply) + QStringLiteral("\n") +
                            describe(::splitMarkdown(reply, true), reply)));
    }

    // The cost of a streamed take: what the splitter re-reads is bounded
    // however long the reply grows (a ~20,000-token reply of paragraphs,
    // lists, code and one very long paragraph, in pieces of a take's size).
    void takesStayBoundedInALongReply()
    {
        QString reply;
        for (int i = 0; reply.size() < 80000; ++i) {
            switch (i % 5) {
            case 0: reply += sentences(8, i) + QStringLiteral("\n\n"); break;
            case 1: reply += QStringLiteral("- item %1\n- item %2\n\n").arg(i).arg(i + 1); break;
            case 2: reply += QStringLiteral("```cpp\nint x%1 = %1;\n```\n\n").arg(i); break;
            case 3: reply += sentences(100, i) + QStringLiteral("\n\n"); break;   // 5,000 characters in one line
            default:   // 6,000 characters of words without a sentence end (a random model's)
                for (int w = 0; w < 1000; ++w)
                    reply += QStringLiteral("w%1 ").arg(w % 100, 3, 10, QLatin1Char('0'));
                reply += QStringLiteral("\n\n");
                break;
            }
        }
        MarkdownSplitter splitter;
        qsizetype most = 0;
        constexpr int piece = 400;   // about a take's text (5 takes a second at ~100 tokens/s)
        for (qsizetype at = piece; at < reply.size(); at += piece) {
            splitter.update(QStringView(reply).left(at), false);
            most = qMax(most, splitter.lastParsed());
        }
        qInfo("most characters re-read by one take: %lld of a %lld-character reply", qlonglong(most), qlonglong(reply.size()));
        QVERIFY2(most <= 2 * MarkdownSplitter::MaxProseChars + 10 + piece, qPrintable(QString::number(most)));
        splitter.update(reply, true);
        QVERIFY(splitter.blocks() == ::splitMarkdown(reply, true));
    }

    // The view's model of one message: a streaming reply adds rows and
    // changes only its last one; the blocks before are never touched.
    void blocksModelTouchesOnlyTheLastBlock()
    {
        const QString reply = sampleReplies().at(5);   // prose, a long code block in parts, prose
        MessageBlocks blocks;
        QAbstractItemModelTester tester(&blocks, QAbstractItemModelTester::FailureReportingMode::QtTest);
        int lowestChanged = INT_MAX;
        int rowsBefore = 0;
        connect(&blocks, &QAbstractItemModel::dataChanged, this,
                [&](const QModelIndex &from, const QModelIndex &, const QList<int> &roles) {
                    // The Continues flag of the block before a new part is the one exception.
                    if (roles != QList<int>{MessageBlocks::ContinuesRole})
                        lowestChanged = qMin(lowestChanged, from.row());
                });
        connect(&blocks, &QAbstractItemModel::rowsRemoved, this,
                [&](const QModelIndex &, int first) { lowestChanged = qMin(lowestChanged, first); });
        blocks.reset(QString(), false);
        for (qsizetype at = 1; at <= reply.size(); at += 3) {
            rowsBefore = blocks.rowCount();
            lowestChanged = INT_MAX;
            blocks.grow(QStringView(reply).left(at), false);
            if (lowestChanged != INT_MAX)
                QVERIFY2(lowestChanged >= rowsBefore - 1, qPrintable(QStringLiteral("row %1 of %2 changed at %3")
                                                                         .arg(lowestChanged).arg(rowsBefore).arg(at)));
        }
        blocks.grow(reply, true);
        QCOMPARE(blocks.rowCount(), 5);   // text, code, code (continued), code (continued), text
        QCOMPARE(blocks.data(blocks.index(1), MessageBlocks::KindRole).toString(), QStringLiteral("code"));
        QCOMPARE(blocks.data(blocks.index(1), MessageBlocks::ContinuesRole).toBool(), true);
        QCOMPARE(blocks.data(blocks.index(2), MessageBlocks::ContinuedRole).toBool(), true);
        // Copy takes the whole box.
        QString code;
        for (int i = 0; i < 2 * MarkdownSplitter::MaxLines + 5; ++i)
            code += QStringLiteral("print(%1)\n").arg(i);
        code.chop(1);
        QCOMPARE(blocks.codeAt(2), code);
        QCOMPARE(blocks.codeAt(0), QString());
    }

    void blocksRoleForQml()
    {
        MessageModel model;
        model.append(message(Chat::Role::Assistant, QStringLiteral("Run:\n```sh\nmake\n```")));
        auto *blocks = model.data(model.index(0), MessageModel::BlocksRole).value<MessageBlocks *>();
        QVERIFY(blocks);
        QCOMPARE(blocks->rowCount(), 2);
        QCOMPARE(blocks->data(blocks->index(1), MessageBlocks::KindRole).toString(), QStringLiteral("code"));
        QCOMPARE(blocks->data(blocks->index(1), MessageBlocks::TextRole).toString(), QStringLiteral("make"));
        QCOMPARE(blocks->data(blocks->index(1), MessageBlocks::LanguageRole).toString(), QStringLiteral("sh"));
        // The same object while the row lives; a streaming reply grows it in place.
        QCOMPARE(model.blocksAt(0), blocks);
        auto streaming = message(Chat::Role::Assistant, QString());
        streaming.state = Chat::State::Streaming;
        const int row = model.append(streaming);
        MessageBlocks *growing = model.blocksAt(row);
        model.appendText(row, QStringLiteral("One.\n\n "));
        QCOMPARE(growing->rowCount(), 1);   // an indented line after a blank one may go on the block
        model.appendText(row, QStringLiteral("\nTwo"));
        QCOMPARE(growing->rowCount(), 2);   // at the margin after a blank line: a new block, decided at once
        model.appendText(row, QStringLiteral(".\n"));
        QCOMPARE(growing->rowCount(), 2);
        model.appendText(row, QStringLiteral("```\nx\n``"));
        model.appendText(row, QStringLiteral("`"));
        QCOMPARE(growing->rowCount(), 3);
        QCOMPARE(growing->data(growing->index(2), MessageBlocks::ClosedRole).toBool(), false);
        model.setState(row, Chat::State::Complete);   // complete: the last "```" closes the block
        QCOMPARE(growing->data(growing->index(2), MessageBlocks::ClosedRole).toBool(), true);
        QCOMPARE(growing->data(growing->index(2), MessageBlocks::TextRole).toString(), QStringLiteral("x"));
    }

    // A person's own words are shown as written: their prose blocks are
    // "plain" (line breaks kept, no Markdown), a reply's are "text" (Markdown).
    // Code fences make code blocks in both.
    void ownWordsAreShownAsWritten()
    {
        MessageModel model;
        model.append(message(Chat::Role::User, QStringLiteral("first line\nsecond *line*\n```\nx = 1\n```")));
        model.append(message(Chat::Role::Assistant, QStringLiteral("a reply\nin *Markdown*")));
        MessageBlocks *mine = model.blocksAt(0);
        QCOMPARE(mine->rowCount(), 2);
        QCOMPARE(mine->data(mine->index(0), MessageBlocks::KindRole).toString(), QStringLiteral("plain"));
        QVERIFY(mine->data(mine->index(0), MessageBlocks::TextRole).toString()
                    .startsWith(QStringLiteral("first line\nsecond *line*")));
        QCOMPARE(mine->data(mine->index(1), MessageBlocks::KindRole).toString(), QStringLiteral("code"));
        MessageBlocks *reply = model.blocksAt(1);
        QCOMPARE(reply->data(reply->index(0), MessageBlocks::KindRole).toString(), QStringLiteral("text"));
    }
};

QTEST_MAIN(TestMessageModel)
#include "tst_messagemodel.moc"
