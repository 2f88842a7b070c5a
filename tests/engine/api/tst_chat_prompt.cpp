// buildChatPrompt() and chatFormatFor(model, name, plainTextForBaseModels)
// (issue #15): the one decision of which format "auto" uses for a model with
// a template, with a template that does not parse, with chat tokens only,
// and for a base model; plain text as the app wrote it; truncation that
// keeps the system prompt and the newest turns and drops whole exchanges
// (checked at every budget: the result fits, starts at a user message, and
// the cut one exchange earlier would not fit), the same keeping the first
// exchange too (keepFirstExchange: a chat whose context shifts), refusal
// naming the sizes, the last message alone too long, keepTokens, and the
// boundary reported.
#include "burrow/engine.h"
#include "test_support.h"
#include "tiny_model.h"

#include <QTemporaryDir>
#include <QtTest>

#include <map>

using namespace burrow;

namespace {

const char *kChatml =
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

enum class Kind { Template, BrokenTemplate, ChatTokens, Base };

ChatMessage msg(const char *role, const char *content)
{
    ChatMessage m;
    m.role = role;
    m.content = content;
    return m;
}

// A conversation in the tiny vocabulary's letters, messages of varied length.
std::vector<ChatMessage> conversation()
{
    return {msg("system", "be brief"),
            msg("user", "abc"),
            msg("assistant", "a b c d e f g h"),
            msg("user", "ba"),
            msg("assistant", "cab"),
            msg("user", "a b a b a b a b a b a b"),
            msg("assistant", "h"),
            msg("user", "ge fa")};
}

} // namespace

class TestChatPrompt : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::map<Kind, std::shared_ptr<Model>> m_models;

    std::shared_ptr<Model> model(Kind kind)
    {
        if (auto it = m_models.find(kind); it != m_models.end())
            return it->second;
        test::TinySpec spec;
        spec.nCtx = 512;
        if (kind != Kind::Base)
            spec.controlTokens = {"<|im_start|>", "<|im_end|>"};
        if (kind == Kind::Template)
            spec.extraKeys = [](gguf::GgufWriter &w) { w.addString("tokenizer.chat_template", kChatml); };
        if (kind == Kind::BrokenTemplate)
            spec.extraKeys = [](gguf::GgufWriter &w) { w.addString("tokenizer.chat_template", "{% if %}"); };
        if (kind == Kind::BrokenTemplate)
            spec.controlTokens.clear();   // no chat tokens either: only the template says "chat"
        const std::string path = m_dir.filePath(QStringLiteral("tiny%1.gguf").arg(int(kind))).toStdString();
        if (!test::writeTinyModel(spec, path))
            return nullptr;
        auto m = Model::load(path);
        if (!m) {
            qWarning("%s", m.message().c_str());
            return nullptr;
        }
        m_models[kind] = m.value();
        return m.value();
    }

    // What the kept part must be: the lead (the leading system message, and
    // the first exchange when lead is 3) and messages[first..].
    static std::vector<Token> expectedTokens(const Model &m, const std::vector<ChatMessage> &all, size_t first,
                                             const ChatPrompt &p, size_t lead = 1)
    {
        std::vector<ChatMessage> kept(all.begin(), all.begin() + std::ptrdiff_t(lead));
        kept.insert(kept.end(), all.begin() + std::ptrdiff_t(first), all.end());
        if (p.format.plainText) {
            std::string text = kept.front().content + "\n";
            for (size_t i = 1; i < kept.size(); ++i) {
                if (kept[i].role == "user" && i > 1)
                    text += "\n";
                text += kept[i].content;
            }
            return m.tokenize(text, true, false);
        }
        auto text = renderChat(m, kept, true);
        return text ? m.tokenize(text.value(), true, true) : std::vector<Token>();
    }

private slots:
    // --- the format decision ---------------------------------------------------
    void formatDecision_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<bool>("plainForBase");
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("plainText");
        QTest::addColumn<bool>("fromVocabulary");
        QTest::newRow("template") << int(Kind::Template) << true << "template" << false << false;
        QTest::newRow("template that does not parse") << int(Kind::BrokenTemplate) << true << "llama2" << false << false;
        QTest::newRow("chat tokens only") << int(Kind::ChatTokens) << true << "chatml" << false << true;
        QTest::newRow("base model, plain text") << int(Kind::Base) << true << "plain" << true << false;
        QTest::newRow("base model, no plain text") << int(Kind::Base) << false << "llama2" << false << false;
    }

    void formatDecision()
    {
        QFETCH(int, kind);
        QFETCH(bool, plainForBase);
        QFETCH(QString, name);
        QFETCH(bool, plainText);
        QFETCH(bool, fromVocabulary);
        auto m = model(Kind(kind));
        QVERIFY(m);
        auto f = chatFormatFor(*m, "auto", plainForBase);
        QVERIFY2(f, f.message().c_str());
        QCOMPARE(QString::fromStdString(f->name), name);
        QCOMPARE(f->plainText, plainText);
        QCOMPARE(f->fromVocabulary, fromVocabulary);
        QVERIFY(!f->reason.empty());
        // "" is "auto" too; a forced format is never plain text.
        auto same = chatFormatFor(*m, "", plainForBase);
        QVERIFY(same);
        QCOMPARE(same->name, f->name);
        auto forced = chatFormatFor(*m, "chatml", true);
        QVERIFY(forced);
        QCOMPARE(QString::fromStdString(forced->name), QStringLiteral("chatml"));
        QVERIFY(!forced->plainText);
        // buildChatPrompt decides the same way.
        PromptOptions o;
        o.plainTextForBaseModels = plainForBase;
        auto p = buildChatPrompt(*m, conversation(), o);
        QVERIFY2(p, p.message().c_str());
        QCOMPARE(p->format.name, f->name);
        QCOMPARE(p->format.plainText, plainText);
    }

    void unknownFormatIsRefused()
    {
        auto m = model(Kind::Template);
        QVERIFY(m);
        PromptOptions o;
        o.render.chatFormat = "nonsense";
        auto p = buildChatPrompt(*m, conversation(), o);
        QVERIFY(!p);
        QVERIFY(QString::fromStdString(p.message()).contains(QLatin1String("chatml")));
        QVERIFY(!buildChatPrompt(*m, {}, PromptOptions{}));
    }

    // Plain text is what the app wrote before: the system prompt and "\n",
    // then the turns with "\n" before each user turn after the first; BOS,
    // no special-token parsing; keepTokens = the system line's tokens.
    void plainText()
    {
        auto m = model(Kind::Base);
        QVERIFY(m);
        PromptOptions o;
        o.plainTextForBaseModels = true;
        const std::vector<ChatMessage> conv = {msg("system", "be"), msg("user", "ab"), msg("assistant", "c d"), msg("user", "<s>e")};
        auto p = buildChatPrompt(*m, conv, o);
        QVERIFY2(p, p.message().c_str());
        QVERIFY(p->tokens == m->tokenize("be\nabc d\n<s>e", true, false));
        QCOMPARE(p->keepTokens, int32_t(m->tokenize("be\n", true, false).size()));
        QCOMPARE(p->droppedMessages, size_t(0));
        QCOMPARE(p->firstMessage, size_t(1));
        QVERIFY(p->format.stopStrings.empty());
        QVERIFY(p->reasoning.syntax == ReasoningSyntax::REASONING_SYNTAX_NONE);
    }

    // A template: renderChat + tokenize (one BOS); keepTokens = the tokens of
    // the system turn rendered alone.
    void templateRender()
    {
        auto m = model(Kind::Template);
        QVERIFY(m);
        const std::vector<ChatMessage> conv = conversation();
        auto p = buildChatPrompt(*m, conv, PromptOptions{});
        QVERIFY2(p, p.message().c_str());
        auto text = renderChat(*m, conv, true);
        QVERIFY(text);
        QVERIFY(p->tokens == m->tokenize(text.value(), true, true));
        QCOMPARE(p->tokens.front(), m->info().bosId);
        QVERIFY(p->tokens[1] != m->info().bosId);
        auto system = renderChat(*m, {conv.front()}, false);
        QVERIFY(system);
        const std::vector<Token> sys = m->tokenize(system.value(), true, true);
        QCOMPARE(p->keepTokens, int32_t(sys.size()));
        QVERIFY(std::equal(sys.begin(), sys.end(), p->tokens.begin()));
        QCOMPARE(p->droppedMessages, size_t(0));
        QVERIFY(!p->format.stopStrings.empty());
        // No system message: nothing to keep.
        auto noSystem = buildChatPrompt(*m, {conv.begin() + 1, conv.end()}, PromptOptions{});
        QVERIFY(noSystem);
        QCOMPARE(noSystem->keepTokens, 0);
        QCOMPARE(noSystem->firstMessage, size_t(0));
    }

    // Every budget from "everything fits" down to "nothing fits": the prompt
    // fits, is the system turn + messages[firstMessage..] rendered, starts at
    // a user message, and one exchange more would not have fitted.
    void truncationAtEveryBudget_data()
    {
        QTest::addColumn<int>("kind");
        QTest::newRow("template") << int(Kind::Template);
        QTest::newRow("chat tokens") << int(Kind::ChatTokens);
        QTest::newRow("plain text") << int(Kind::Base);
    }

    void truncationAtEveryBudget()
    {
        QFETCH(int, kind);
        auto m = model(Kind(kind));
        QVERIFY(m);
        const std::vector<ChatMessage> conv = conversation();
        PromptOptions o;
        o.plainTextForBaseModels = true;
        auto whole = buildChatPrompt(*m, conv, o);
        QVERIFY(whole);
        const uint32_t full = uint32_t(whole->tokens.size());
        // Sizes of every possible cut, from the API itself.
        std::map<size_t, size_t> sizeAt;
        for (size_t i = 1; i < conv.size(); ++i)
            if (conv[i].role == "user")
                sizeAt[i] = expectedTokens(*m, conv, i, whole.value()).size();
        QCOMPARE(sizeAt[1], size_t(full));
        int refusedLast = 0;
        for (uint32_t budget = full + 1; budget >= 1; --budget) {
            o.budget = budget;
            auto p = buildChatPrompt(*m, conv, o);
            if (budget < sizeAt.rbegin()->second) {
                QVERIFY2(!p, qPrintable(QString::number(budget)));
                QVERIFY2(QString::fromStdString(p.message()).contains(QLatin1String("too long")), p.message().c_str());
                QVERIFY(QString::fromStdString(p.message()).contains(QString::number(budget)));
                ++refusedLast;
                continue;
            }
            QVERIFY2(p, qPrintable(QStringLiteral("budget %1: %2").arg(budget).arg(QString::fromStdString(p.message()))));
            QVERIFY(p->tokens.size() <= budget);
            QCOMPARE(conv[p->firstMessage].role, std::string("user"));
            QCOMPARE(p->droppedMessages, p->firstMessage - 1);
            QVERIFY(p->tokens == expectedTokens(*m, conv, p->firstMessage, p.value()));
            // The newest cut that fits: the one before it does not.
            auto it = sizeAt.find(p->firstMessage);
            QVERIFY(it != sizeAt.end());
            if (it != sizeAt.begin())
                QVERIFY2(std::prev(it)->second > budget, qPrintable(QString::number(budget)));
            QCOMPARE(p->keepTokens, whole->keepTokens);   // the system part stays
        }
        QVERIFY(refusedLast > 0);
    }

    // keepFirstExchange: the system message and the first exchange stay at
    // every budget, the rest is cut as without it; keepTokens covers the
    // three (a context shift keeps them).
    void keepFirstExchangeAtEveryBudget_data() { truncationAtEveryBudget_data(); }

    void keepFirstExchangeAtEveryBudget()
    {
        QFETCH(int, kind);
        auto m = model(Kind(kind));
        QVERIFY(m);
        const std::vector<ChatMessage> conv = conversation();
        PromptOptions o;
        o.plainTextForBaseModels = true;
        o.keepFirstExchange = true;
        auto whole = buildChatPrompt(*m, conv, o);
        QVERIFY(whole);
        QCOMPARE(whole->keptMessages, size_t(2));
        QCOMPARE(whole->firstMessage, size_t(3));
        QCOMPARE(whole->droppedMessages, size_t(0));
        // The same tokens as without keeping: only what a cut drops differs.
        PromptOptions plain = o;
        plain.keepFirstExchange = false;
        auto without = buildChatPrompt(*m, conv, plain);
        QVERIFY(without);
        QVERIFY(whole->tokens == without->tokens);
        QVERIFY(whole->keepTokens > without->keepTokens);
        const uint32_t full = uint32_t(whole->tokens.size());
        std::map<size_t, size_t> sizeAt;
        for (size_t i = 3; i < conv.size(); ++i)
            if (conv[i].role == "user")
                sizeAt[i] = expectedTokens(*m, conv, i, whole.value(), 3).size();
        int kept = 0;
        for (uint32_t budget = full; budget >= 1; --budget) {
            o.budget = budget;
            auto p = buildChatPrompt(*m, conv, o);
            if (budget < sizeAt.rbegin()->second) {
                QVERIFY2(!p, qPrintable(QString::number(budget)));
                continue;
            }
            QVERIFY2(p, p.message().c_str());
            QVERIFY(p->tokens.size() <= budget);
            QCOMPARE(conv[p->firstMessage].role, std::string("user"));
            QCOMPARE(p->keptMessages, size_t(2));
            QCOMPARE(p->droppedMessages, p->firstMessage - 3);
            QVERIFY(p->tokens == expectedTokens(*m, conv, p->firstMessage, p.value(), 3));
            auto it = sizeAt.find(p->firstMessage);
            QVERIFY(it != sizeAt.end());
            if (it != sizeAt.begin())
                QVERIFY2(std::prev(it)->second > budget, qPrintable(QString::number(budget)));
            // The lead is the prompt's first keepTokens tokens.
            QCOMPARE(p->keepTokens, whole->keepTokens);
            QVERIFY(std::equal(whole->tokens.begin(), whole->tokens.begin() + p->keepTokens, p->tokens.begin()));
            ++kept;
        }
        QVERIFY(kept > 0);
    }

    void refuse()
    {
        auto m = model(Kind::Template);
        QVERIFY(m);
        PromptOptions o;
        o.truncation = Truncation::TRUNCATION_REFUSE;
        auto whole = buildChatPrompt(*m, conversation(), o);
        QVERIFY(whole);
        const size_t full = whole->tokens.size();
        o.budget = uint32_t(full);
        QVERIFY(buildChatPrompt(*m, conversation(), o));
        o.budget = uint32_t(full - 1);
        auto refused = buildChatPrompt(*m, conversation(), o);
        QVERIFY(!refused);
        const QString msg = QString::fromStdString(refused.message());
        QVERIFY2(msg.contains(QString::number(full)) && msg.contains(QString::number(full - 1)), qPrintable(msg));
    }

    // A single message longer than the budget: an error that says what to do.
    void lastMessageTooLong()
    {
        auto m = model(Kind::Template);
        QVERIFY(m);
        PromptOptions o;
        o.budget = 8;
        auto p = buildChatPrompt(*m, {msg("system", "be brief"), msg("user", "a b c d e f g h a b c d e f g h")}, o);
        QVERIFY(!p);
        const QString msg = QString::fromStdString(p.message());
        QVERIFY2(msg.contains(QLatin1String("too long")) && msg.contains(QLatin1String("shorten")), qPrintable(msg));
    }

    // The models in ../shared: stories260K is a base model (plain text under
    // plainTextForBaseModels), the synthetic ones have their own templates.
    void sharedModels_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("format");
        QTest::newRow("stories260K") << "models/stories260K.gguf" << "plain";
        QTest::newRow("phi3") << "models/synthetic/phi3-Q4_K_M.gguf" << "template";
        QTest::newRow("qwen2 (no template, no chat tokens)") << "models/synthetic/qwen2-Q4_K_M.gguf" << "plain";
    }

    void sharedModels()
    {
        QFETCH(QString, file);
        QFETCH(QString, format);
        BURROW_REQUIRE_SHARED(file);
        auto m = Model::load(test::sharedPath(file).toStdString());
        QVERIFY2(m, m.message().c_str());
        PromptOptions o;
        o.plainTextForBaseModels = true;
        const std::vector<ChatMessage> conv = {msg("system", "You are brief."), msg("user", "Hello there"),
                                               msg("assistant", "Hi! How can I help?"), msg("user", "Tell me a story.")};
        auto whole = buildChatPrompt(*m.value(), conv, o);
        QVERIFY2(whole, whole.message().c_str());
        QCOMPARE(QString::fromStdString(whole->format.name), format);
        QVERIFY(whole->keepTokens > 0);
        o.budget = uint32_t(whole->tokens.size() - 1);
        auto cut = buildChatPrompt(*m.value(), conv, o);
        QVERIFY2(cut, cut.message().c_str());
        QCOMPARE(cut->firstMessage, size_t(3));
        QCOMPARE(cut->droppedMessages, size_t(2));
        QVERIFY(cut->tokens == expectedTokens(*m.value(), conv, 3, cut.value()));
    }
};

QTEST_MAIN(TestChatPrompt)
#include "tst_chat_prompt.moc"
