// The reasoning splitter: for each reply, the reasoning and the answer it
// gives in one push() are the expected ones (written here by hand from the
// rules in reasoning_split.h), and the same for the reply streamed in every
// cut: at every byte boundary, at every pair of boundaries (short replies)
// and one byte at a time. Emitted texts stay whole UTF-8 characters.
// Also: the prompt check (promptEndsInReasoning) and inReasoning().
#include "chat/reasoning_split.h"

#include <QTest>

#include <string>
#include <vector>

using namespace burrow;
using namespace burrow::chat;

namespace {

struct Split {
    std::string reasoning;
    std::string answer;
    std::string toolCalls;   // Gemma 4's tool-call parts (never answer)
    bool utf8Whole = true;   // every emitted piece was valid UTF-8 on its own
};

bool validUtf8(const std::string &s)
{
    size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        size_t n = c < 0x80 ? 1 : (c >= 0xC2 && c <= 0xDF) ? 2 : (c >= 0xE0 && c <= 0xEF) ? 3 : (c >= 0xF0 && c <= 0xF4) ? 4 : 0;
        if (n == 0 || i + n > s.size())
            return false;
        for (size_t k = 1; k < n; ++k)
            if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80)
                return false;
        i += n;
    }
    return true;
}

void collect(const std::vector<ReplyPart> &parts, Split &out)
{
    for (const ReplyPart &p : parts) {
        QVERIFY(!p.text.empty());
        out.utf8Whole = out.utf8Whole && validUtf8(p.text);
        switch (p.kind) {
        case ReplyPartKind::REPLY_PART_KIND_REASONING: out.reasoning += p.text; break;
        case ReplyPartKind::REPLY_PART_KIND_ANSWER: out.answer += p.text; break;
        case ReplyPartKind::REPLY_PART_KIND_TOOL_CALL: out.toolCalls += p.text; break;
        }
    }
}

// The reply pushed in pieces cut at `cuts` (sorted byte offsets).
Split run(const ReasoningOptions &options, const std::string &reply, const std::vector<size_t> &cuts)
{
    ReasoningSplitter splitter(options);
    Split out;
    size_t from = 0;
    for (const size_t cut : cuts) {
        collect(splitter.push(std::string_view(reply).substr(from, cut - from)), out);
        from = cut;
    }
    collect(splitter.push(std::string_view(reply).substr(from)), out);
    collect(splitter.finish(), out);
    return out;
}

ReasoningOptions opts(ReasoningSyntax syntax, bool startsInReasoning = false)
{
    ReasoningOptions o;
    o.syntax = syntax;
    o.startsInReasoning = startsInReasoning;
    return o;
}

QByteArray qb(const std::string &s) { return QByteArray(s.data(), qsizetype(s.size())); }

} // namespace

Q_DECLARE_METATYPE(ReasoningSyntax)

class TestReasoningSplit : public QObject {
    Q_OBJECT

private slots:
    void split_data();
    void split();
    void promptCheck_data();
    void promptCheck();
    void inReasoningFollowsTheStream();
    void finishIsFinal();
    void gemma4ToolCallsKeptApart();
};

void TestReasoningSplit::split_data()
{
    QTest::addColumn<ReasoningSyntax>("syntax");
    QTest::addColumn<bool>("startsInReasoning");
    QTest::addColumn<QByteArray>("reply");
    QTest::addColumn<QByteArray>("reasoning");
    QTest::addColumn<QByteArray>("answer");

    const auto THINK = ReasoningSyntax::REASONING_SYNTAX_THINK_TAGS;
    const auto HARMONY = ReasoningSyntax::REASONING_SYNTAX_HARMONY;
    const auto NONE = ReasoningSyntax::REASONING_SYNTAX_NONE;

    // ---- <think> ----
    QTest::newRow("think/qwen3") << THINK << false
                                 << QByteArray("<think>\nThe user greets me.\n</think>\n\nHello! How can I help?")
                                 << QByteArray("The user greets me.") << QByteArray("Hello! How can I help?");
    QTest::newRow("think/no-block") << THINK << false << QByteArray("  Just an answer <think>") << QByteArray()
                                    << QByteArray("  Just an answer <think>");
    QTest::newRow("think/empty-block") << THINK << false << QByteArray("<think>\n\n</think>\n\nAnswer.") << QByteArray()
                                       << QByteArray("Answer.");
    QTest::newRow("think/blank-before-open") << THINK << false << QByteArray("\n <think>x</think>y") << QByteArray("x")
                                             << QByteArray("y");
    QTest::newRow("think/opened-by-prompt") << THINK << true << QByteArray("Let me think.\n</think>\n\nThe answer is 42.")
                                            << QByteArray("Let me think.") << QByteArray("The answer is 42.");
    QTest::newRow("think/prompt-opened-no-close") << THINK << true << QByteArray("still thinking \n")
                                                  << QByteArray("still thinking") << QByteArray();
    QTest::newRow("think/unterminated") << THINK << false << QByteArray("<think>\nStep 1. Step 2 </thi")
                                        << QByteArray("Step 1. Step 2 </thi") << QByteArray();
    QTest::newRow("think/markers-in-answer") << THINK << false
                                             << QByteArray("<think>a</think>b <think>c</think> d</think>")
                                             << QByteArray("a") << QByteArray("b <think>c</think> d</think>");
    QTest::newRow("think/nested-open-is-text") << THINK << false << QByteArray("<think>a <think> b</think>c")
                                               << QByteArray("a <think> b") << QByteArray("c");
    QTest::newRow("think/inner-blank-kept") << THINK << false << QByteArray("<think> a \n\n b </think> \t c \n")
                                            << QByteArray("a \n\n b") << QByteArray("c \n");
    QTest::newRow("think/lookalike-markers") << THINK << false << QByteArray("<think><thin </thin </think</think>ok")
                                             << QByteArray("<thin </thin </think") << QByteArray("ok");
    QTest::newRow("think/utf8") << THINK << false
                                << QByteArray("<think>Привет, 世界 🦙</think>\n\nÉtude — ünïcödé 🦙")
                                << QByteArray("Привет, 世界 🦙") << QByteArray("Étude — ünïcödé 🦙");
    QTest::newRow("think/only-open") << THINK << false << QByteArray("<think>") << QByteArray() << QByteArray();
    QTest::newRow("think/partial-open-is-answer") << THINK << false << QByteArray("<thin") << QByteArray()
                                                  << QByteArray("<thin");
    QTest::newRow("think/empty") << THINK << false << QByteArray() << QByteArray() << QByteArray();

    // ---- harmony ----
    QTest::newRow("harmony/gpt-oss") << HARMONY << false
                                     << QByteArray("<|channel|>analysis<|message|>User says hi. Reply.<|end|>"
                                                   "<|start|>assistant<|channel|>final<|message|>Hello there!<|return|>")
                                     << QByteArray("User says hi. Reply.") << QByteArray("Hello there!");
    QTest::newRow("harmony/stopped-before-return") << HARMONY << false
                                                   << QByteArray("<|channel|>analysis<|message|>Think.<|end|>"
                                                                 "<|start|>assistant<|channel|>final<|message|>Done.")
                                                   << QByteArray("Think.") << QByteArray("Done.");
    QTest::newRow("harmony/no-header-is-answer") << HARMONY << false << QByteArray("Hello <|end|> world")
                                                 << QByteArray() << QByteArray("Hello world");
    QTest::newRow("harmony/final-only") << HARMONY << false << QByteArray("<|channel|>final<|message|>Hi!")
                                        << QByteArray() << QByteArray("Hi!");
    QTest::newRow("harmony/commentary-tool-call")
        << HARMONY << false
        << QByteArray(" to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{\"city\":\"Paris\"}<|call|>")
        << QByteArray() << QByteArray();
    QTest::newRow("harmony/preamble-then-final")
        << HARMONY << false
        << QByteArray("<|channel|>analysis<|message|>A<|end|><|start|>assistant<|channel|>commentary<|message|>B<|end|>"
                      "\n<|start|>assistant<|channel|>final<|message|>C<|return|>")
        << QByteArray("AB") << QByteArray("C");
    QTest::newRow("harmony/unterminated-analysis") << HARMONY << false
                                                   << QByteArray("<|channel|>analysis<|message|>Still going <|en")
                                                   << QByteArray("Still going <|en") << QByteArray();
    QTest::newRow("harmony/header-without-end") << HARMONY << false
                                                << QByteArray("<|channel|>analysis<|message|>x<|channel|>final<|message|>y")
                                                << QByteArray("x") << QByteArray("y");
    QTest::newRow("harmony/text-after-end") << HARMONY << false
                                            << QByteArray("<|channel|>analysis<|message|>x<|end|> tail")
                                            << QByteArray("x") << QByteArray("tail");
    QTest::newRow("harmony/opened-by-prompt") << HARMONY << true
                                              << QByteArray("Thinking...<|end|><|start|>assistant<|channel|>final<|message|>Yes")
                                              << QByteArray("Thinking...") << QByteArray("Yes");
    QTest::newRow("harmony/unfinished-header") << HARMONY << false << QByteArray("<|channel|>analysis<|mess")
                                               << QByteArray() << QByteArray();
    QTest::newRow("harmony/utf8") << HARMONY << false
                                  << QByteArray("<|channel|>analysis<|message|>думаю 🤔<|end|><|start|>assistant"
                                                "<|channel|>final<|message|>答案 ✓")
                                  << QByteArray("думаю 🤔") << QByteArray("答案 ✓");
    QTest::newRow("harmony/marker-lookalikes") << HARMONY << false
                                               << QByteArray("<|channel|>final<|message|>a <|en <|star <|x|> b")
                                               << QByteArray() << QByteArray("a <|en <|star <|x|> b");
    {
        // A header that never ends: given up on at 512 bytes, the rest is answer.
        QByteArray reply = "<|channel|>" + QByteArray(600, 'h') + "<|message|>body";
        QTest::newRow("harmony/runaway-header") << HARMONY << false << reply << QByteArray() << reply;
    }

    // ---- Gemma 4 channels (tool calls are never answer) ----
    const auto G4 = ReasoningSyntax::REASONING_SYNTAX_GEMMA4_CHANNEL;
    QTest::newRow("gemma4/thinking") << G4 << false
                                     << QByteArray("<|channel>thought\nLet me think.\n<channel|>The answer is 42.")
                                     << QByteArray("Let me think.") << QByteArray("The answer is 42.");
    QTest::newRow("gemma4/no-channel") << G4 << false << QByteArray(" Just an answer.") << QByteArray()
                                       << QByteArray(" Just an answer.");
    QTest::newRow("gemma4/empty-thought") << G4 << false << QByteArray("<|channel>thought\n<channel|>Hi") << QByteArray()
                                          << QByteArray("Hi");
    QTest::newRow("gemma4/blank-around") << G4 << false << QByteArray("\n <|channel>thought\n x \n<channel|>\n\ny \n")
                                         << QByteArray("x") << QByteArray("y \n");
    QTest::newRow("gemma4/tool-call-after-thought")
        << G4 << false
        << QByteArray("<|channel>thought\nNeed the weather.\n<channel|><|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>}<tool_call|>")
        << QByteArray("Need the weather.") << QByteArray();
    QTest::newRow("gemma4/text-then-tool-call") << G4 << false
                                                << QByteArray("Let me check.<|tool_call>call:f{}<tool_call|> Done.")
                                                << QByteArray() << QByteArray("Let me check. Done.");
    QTest::newRow("gemma4/unterminated-tool-call") << G4 << false << QByteArray("ok <|tool_call>call:f{a:")
                                                   << QByteArray() << QByteArray("ok ");
    QTest::newRow("gemma4/unterminated-thought") << G4 << false << QByteArray("<|channel>thought\nstep 1 ")
                                                 << QByteArray("step 1") << QByteArray();
    QTest::newRow("gemma4/only-open") << G4 << false << QByteArray("<|channel>") << QByteArray() << QByteArray();
    QTest::newRow("gemma4/two-channels") << G4 << false
                                         << QByteArray("<|channel>thought\na<channel|>b<|channel>thought\nc<channel|>d")
                                         << QByteArray("ac") << QByteArray("bd");
    QTest::newRow("gemma4/utf8") << G4 << false
                                 << QByteArray("<|channel>thought\n\xc3\x9c" "ber \xf0\x9f\xa6\x99\n<channel|>\xe6\x97\xa5\xe6\x9c\xac")
                                 << QByteArray("\xc3\x9c" "ber \xf0\x9f\xa6\x99") << QByteArray("\xe6\x97\xa5\xe6\x9c\xac");
    QTest::newRow("gemma4/lookalikes") << G4 << false << QByteArray("<|channe <channel| <|tool_cal <tool_call|> x")
                                       << QByteArray() << QByteArray("<|channe <channel| <|tool_cal <tool_call|> x");
    QTest::newRow("gemma4/trailing-close") << G4 << false
                                           << QByteArray("<|channel>thought\nhm<channel|>The answer.<channel|>")
                                           << QByteArray("hm") << QByteArray("The answer.");
    QTest::newRow("gemma4/unmatched-close") << G4 << false << QByteArray("a<channel|>b") << QByteArray()
                                            << QByteArray("ab");
    QTest::newRow("gemma4/opened-by-prompt") << G4 << true << QByteArray("\nmore thinking\n<channel|>Done.")
                                             << QByteArray("more thinking") << QByteArray("Done.");
    {
        const QByteArray name(100, 'x');   // a header without a line break within 64 bytes: the body
        QTest::newRow("gemma4/runaway-header") << G4 << false << (QByteArray("<|channel>") + name + "<channel|>z")
                                               << name << QByteArray("z");
    }

    // ---- none ----
    QTest::newRow("none") << NONE << false << QByteArray("<think>a</think>b 🦙") << QByteArray()
                          << QByteArray("<think>a</think>b 🦙");
}

void TestReasoningSplit::split()
{
    QFETCH(ReasoningSyntax, syntax);
    QFETCH(bool, startsInReasoning);
    QFETCH(QByteArray, reply);
    QFETCH(QByteArray, reasoning);
    QFETCH(QByteArray, answer);
    const ReasoningOptions o = opts(syntax, startsInReasoning);
    const std::string text = reply.toStdString();

    // False (and the test failed) when the split differs from the expected.
    auto check = [&](const std::vector<size_t> &cuts, const char *how) -> bool {
        const Split s = run(o, text, cuts);
        if (qb(s.reasoning) != reasoning || qb(s.answer) != answer) {
            std::string where;
            for (size_t c : cuts)
                where += std::to_string(c) + " ";
            QTest::qFail(qPrintable(QStringLiteral("%1 (cuts: %2): reasoning '%3' answer '%4'")
                                        .arg(QString::fromLatin1(how), QString::fromStdString(where),
                                             QString::fromStdString(s.reasoning), QString::fromStdString(s.answer))),
                         __FILE__, __LINE__);
            return false;
        }
        if (!s.utf8Whole) {
            QTest::qFail(qPrintable(QStringLiteral("%1: a piece was cut inside a UTF-8 character").arg(QString::fromLatin1(how))),
                         __FILE__, __LINE__);
            return false;
        }
        return true;
    };

    if (!check({}, "one push"))
        return;
    for (size_t i = 0; i <= text.size(); ++i)
        if (!check({i}, "one cut"))
            return;
    if (text.size() <= 160)
        for (size_t i = 0; i <= text.size(); ++i)
            for (size_t j = i; j <= text.size(); ++j)
                if (!check({i, j}, "two cuts"))
                    return;
    std::vector<size_t> every;
    for (size_t i = 1; i < text.size(); ++i)
        every.push_back(i);
    check(every, "byte by byte");
}

void TestReasoningSplit::promptCheck_data()
{
    QTest::addColumn<ReasoningSyntax>("syntax");
    QTest::addColumn<QByteArray>("prompt");
    QTest::addColumn<bool>("inside");
    const auto THINK = ReasoningSyntax::REASONING_SYNTAX_THINK_TAGS;
    const auto HARMONY = ReasoningSyntax::REASONING_SYNTAX_HARMONY;
    QTest::newRow("qwen3-plain") << THINK << QByteArray("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n") << false;
    QTest::newRow("qwen3-thinking-2507") << THINK << QByteArray("<|im_start|>assistant\n<think>\n") << true;
    QTest::newRow("qwen3-no-thinking") << THINK << QByteArray("<|im_start|>assistant\n<think>\n\n</think>\n\n") << false;
    QTest::newRow("closed-in-history") << THINK << QByteArray("<think>\nx\n</think>\n\nA<|im_end|>\n<|im_start|>assistant\n")
                                       << false;
    QTest::newRow("think-in-user-text") << THINK << QByteArray("user: what is <think>?\nassistant:") << false;
    QTest::newRow("harmony-plain") << HARMONY << QByteArray("<|start|>user<|message|>Hi<|end|><|start|>assistant") << false;
    QTest::newRow("harmony-analysis") << HARMONY << QByteArray("<|start|>assistant<|channel|>analysis<|message|>") << true;
    QTest::newRow("harmony-final") << HARMONY << QByteArray("<|start|>assistant<|channel|>final<|message|>") << false;
    QTest::newRow("harmony-user-message") << HARMONY << QByteArray("<|start|>user<|message|>") << false;
    QTest::newRow("none") << ReasoningSyntax::REASONING_SYNTAX_NONE << QByteArray("<think>\n") << false;
    const auto G4 = ReasoningSyntax::REASONING_SYNTAX_GEMMA4_CHANNEL;
    QTest::newRow("gemma4-thinking-off") << G4 << QByteArray("<|turn>model\n<|channel>thought\n<channel|>") << false;
    QTest::newRow("gemma4-thinking-on") << G4 << QByteArray("<|turn>system\n<|think|>\n<turn|>\n<|turn>model\n") << false;
    QTest::newRow("gemma4-open-channel") << G4 << QByteArray("<|turn>model\n<|channel>thought\n") << true;
}

void TestReasoningSplit::promptCheck()
{
    QFETCH(ReasoningSyntax, syntax);
    QFETCH(QByteArray, prompt);
    QFETCH(bool, inside);
    QCOMPARE(promptEndsInReasoning(syntax, prompt.toStdString()), inside);
    const ReasoningOptions o = reasoningOptionsFor(syntax, prompt.toStdString());
    QCOMPARE(o.syntax, syntax);
    QCOMPARE(o.startsInReasoning, inside);
}

void TestReasoningSplit::inReasoningFollowsTheStream()
{
    ReasoningSplitter think(opts(ReasoningSyntax::REASONING_SYNTAX_THINK_TAGS));
    QVERIFY(!think.inReasoning());
    think.push("<thi");
    QVERIFY(!think.inReasoning());
    think.push("nk>abc");
    QVERIFY(think.inReasoning());
    QVERIFY(!think.reasoningEnded());
    think.push("</think>\n");
    QVERIFY(!think.inReasoning());
    QVERIFY(think.reasoningEnded());

    ReasoningSplitter harmony(opts(ReasoningSyntax::REASONING_SYNTAX_HARMONY));
    harmony.push("<|channel|>analysis<|message|>x");
    QVERIFY(harmony.inReasoning());
    harmony.push("<|end|><|start|>assistant<|channel|>final<|message|>y");
    QVERIFY(!harmony.inReasoning());
    QVERIFY(harmony.reasoningEnded());
}

// Gemma 4's tool calls: their text (the markers removed) comes as
// REPLY_PART_KIND_TOOL_CALL in any cut, never as answer or reasoning.
void TestReasoningSplit::gemma4ToolCallsKeptApart()
{
    const std::string reply = "<|channel>thought\nweather?\n<channel|>Checking.<|tool_call>call:get_weather{city:<|\"|>Paris"
                              "<|\"|>}<tool_call|><|tool_call>call:now{}<tool_call|>";
    const ReasoningOptions o = opts(ReasoningSyntax::REASONING_SYNTAX_GEMMA4_CHANNEL);
    for (size_t cut = 0; cut <= reply.size(); ++cut) {
        const Split s = run(o, reply, {cut});
        QCOMPARE(qb(s.reasoning), QByteArray("weather?"));
        QCOMPARE(qb(s.answer), QByteArray("Checking."));
        QCOMPARE(qb(s.toolCalls), QByteArray("call:get_weather{city:<|\"|>Paris<|\"|>}call:now{}"));
    }
    ReasoningSplitter g(o);
    g.push("<|channel>");
    QVERIFY(g.inReasoning());   // the channel's header counts as its reasoning
    g.push("thought\nx");
    QVERIFY(g.inReasoning());
    g.push("<channel|>y");
    QVERIFY(!g.inReasoning());
    QVERIFY(g.reasoningEnded());
}

void TestReasoningSplit::finishIsFinal()
{
    ReasoningSplitter s(opts(ReasoningSyntax::REASONING_SYNTAX_THINK_TAGS));
    Split out;
    collect(s.push("<think>a</think>b"), out);
    collect(s.finish(), out);
    QVERIFY(s.push("more").empty());
    QVERIFY(s.finish().empty());
    QCOMPARE(qb(out.reasoning), QByteArray("a"));
    QCOMPARE(qb(out.answer), QByteArray("b"));
}

QTEST_GUILESS_MAIN(TestReasoningSplit)
#include "tst_reasoning_split.moc"
