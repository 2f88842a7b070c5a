// The generation loop: greedy text as the reference, stop strings (held
// back, split across tokens, never shown once matched), UTF-8 split across
// tokens, cancellation from another thread within one token, the callback
// stopping, max tokens, a full context (stop or shift), timings.
#include "burrow/engine.h"
#include "api/model_impl.h"
#include "api/stop_strings.h"
#include "test_support.h"
#include "tokenizer/tokenizer.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <atomic>
#include <thread>

using namespace burrow;

namespace {

const char *kStories = "models/stories260K.gguf";

bool validUtf8(const std::string &s)
{
    for (size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        const size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        if (len == 0 || i + len > s.size())
            return false;
        for (size_t k = 1; k < len; ++k)
            if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80)
                return false;
        i += len;
    }
    return true;
}

} // namespace

class TestGeneration : public QObject {
    Q_OBJECT

    std::shared_ptr<Model> m_stories;

    std::shared_ptr<Model> stories()
    {
        if (!m_stories) {
            auto m = Model::load(test::sharedPath(QString::fromLatin1(kStories)).toStdString());
            if (m)
                m_stories = m.value();
        }
        return m_stories;
    }

    static SamplingParams greedy()
    {
        SamplingParams p;
        p.temperature = 0.0f;
        return p;
    }

private slots:
    // --- the stop-string filter on its own -----------------------------------
    void stopFilter_data()
    {
        QTest::addColumn<QStringList>("chunks");
        QTest::addColumn<QStringList>("stops");
        QTest::addColumn<QStringList>("expectedPieces");   // what push() returns, chunk by chunk, then finish()
        QTest::addColumn<bool>("matched");
        QTest::newRow("no stops") << QStringList{"ab", "c"} << QStringList{} << QStringList{"ab", "c", ""} << false;
        QTest::newRow("split across chunks") << QStringList{"Hello <|e", "nd", "|> more"} << QStringList{"<|end|>"}
                                             << QStringList{"Hello ", "", "", ""} << true;
        QTest::newRow("false start is released") << QStringList{"a <", "|x", "y"} << QStringList{"<|end|>"}
                                                 << QStringList{"a ", "<|x", "y", ""} << false;
        QTest::newRow("held at the end is released") << QStringList{"tail <|"} << QStringList{"<|end|>"}
                                                     << QStringList{"tail ", "<|"} << false;
        QTest::newRow("earliest of two") << QStringList{"x STOP y END"} << QStringList{"END", "STOP"}
                                         << QStringList{"x ", ""} << true;
        QTest::newRow("inside one chunk") << QStringList{"abcUserdef"} << QStringList{"User"} << QStringList{"abc", ""}
                                          << true;
        QTest::newRow("nothing after a match") << QStringList{"aSTOP", "more"} << QStringList{"STOP"}
                                               << QStringList{"a", "", ""} << true;
        QTest::newRow("utf-8 stop string") << QStringList{"é", "tat fin"} << QStringList{"état"}
                                           << QStringList{"", "", ""} << true;
    }

    void stopFilter()
    {
        QFETCH(QStringList, chunks);
        QFETCH(QStringList, stops);
        QFETCH(QStringList, expectedPieces);
        QFETCH(bool, matched);
        std::vector<std::string> s;
        for (const QString &x : stops)
            s.push_back(x.toStdString());
        api::StopStringFilter filter(s);
        QStringList pieces;
        for (const QString &c : chunks) {
            bool m = false;
            pieces << QString::fromStdString(filter.push(c.toStdString(), &m));
        }
        pieces << QString::fromStdString(filter.finish());
        QCOMPARE(pieces, expectedPieces);
        QCOMPARE(filter.matched(), matched);
    }

    // --- UTF-8 split across tokens -------------------------------------------
    void utf8SplitAcrossTokens()
    {
        BURROW_REQUIRE_SHARED(QString::fromLatin1(kStories));
        auto m = std::dynamic_pointer_cast<api::ModelImpl>(stories());
        QVERIFY(m && m->tokenizer());
        const Token c3 = m->tokenizer()->findToken("<0xC3>"), a9 = m->tokenizer()->findToken("<0xA9>");
        const Token e2 = m->tokenizer()->findToken("<0xE2>"), x82 = m->tokenizer()->findToken("<0x82>"),
                    xac = m->tokenizer()->findToken("<0xAC>");
        QVERIFY(c3 >= 0 && a9 >= 0 && e2 >= 0 && x82 >= 0 && xac >= 0);
        auto stream = m->newTextStream();
        QCOMPARE(stream->push(c3), std::string());
        QCOMPARE(stream->push(a9), std::string("\xC3\xA9"));        // é whole, with the token that completes it
        QCOMPARE(stream->push(e2), std::string());
        QCOMPARE(stream->push(x82), std::string());
        QCOMPARE(stream->push(xac), std::string("\xE2\x82\xAC"));   // €
        QCOMPARE(stream->push(e2), std::string());
        QCOMPARE(stream->finish(), std::string("\xEF\xBF\xBD"));     // unfinished at the end: U+FFFD
    }

    // --- whole generations on stories260K -----------------------------------
    void greedyTextMatchesReference_data()
    {
        QTest::addColumn<QString>("reference");
        QTest::newRow("0") << "reference/generation/stories260K.0.json";
        QTest::newRow("1") << "reference/generation/stories260K.1.json";
    }

    void greedyTextMatchesReference()
    {
        QFETCH(QString, reference);
        BURROW_REQUIRE_SHARED(reference);
        BURROW_REQUIRE_SHARED(QString::fromLatin1(kStories));
        QFile f(test::sharedPath(reference));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
        auto m = stories();
        QVERIFY(m);
        const std::vector<Token> prompt = m->tokenize(o.value("prompt").toString().toStdString(), true, true);
        std::vector<Token> refPrompt;
        for (const QJsonValue &v : o.value("prompt_tokens").toArray())
            refPrompt.push_back(v.toInt());
        QCOMPARE(prompt, refPrompt);
        const int n = int(o.value("greedy_tokens").toArray().size());

        auto session = Session::create(m, SessionOptions{256, 0});
        QVERIFY(session);
        GenerateOptions go;
        go.maxTokens = n;
        GenerateResult r;
        std::string streamed;
        QVERIFY(session.value()->generate(prompt, greedy(), go,
                                          [&](std::string_view piece) {
                                              streamed += piece;
                                              return true;
                                          },
                                          &r));
        QCOMPARE(QString::fromStdString(r.text), o.value("greedy_text").toString());
        QCOMPARE(streamed, r.text);
        QVERIFY(r.stopReason == StopReason::STOP_REASON_MAX_TOKENS);
        QCOMPARE(int(r.tokens.size()), n);
        QCOMPARE(r.timings.promptTokens, int(prompt.size()));
        QCOMPARE(r.timings.generatedTokens, n);
        QVERIFY(r.timings.promptMs >= 0 && r.timings.generateMs > 0);
    }

    void stopStrings_data()
    {
        QTest::addColumn<QString>("stop");
        QTest::addColumn<QString>("expectedText");
        QTest::addColumn<bool>("stopped");
        // Greedy: ", there was a little girl named Lily. She loved to play outside in the park."
        QTest::newRow("across tokens") << "Lily. She" << ", there was a little girl named " << true;
        QTest::newRow("one token") << " girl" << ", there was a little" << true;
        QTest::newRow("never completes") << "named Tom" << ", there was a little girl named Lily. She loved to play outside in the park."
                                         << false;
    }

    void stopStrings()
    {
        QFETCH(QString, stop);
        QFETCH(QString, expectedText);
        QFETCH(bool, stopped);
        BURROW_REQUIRE_SHARED(QString::fromLatin1(kStories));
        auto m = stories();
        QVERIFY(m);
        auto session = Session::create(m, SessionOptions{256, 0});
        QVERIFY(session);
        GenerateOptions go;
        go.maxTokens = 30;
        go.stopStrings = {stop.toStdString(), "never-appears"};
        GenerateResult r;
        std::string streamed;
        QVERIFY(session.value()->generate(m->tokenize("Once upon a time", true, true), greedy(), go,
                                          [&](std::string_view piece) {
                                              streamed += piece;
                                              return true;
                                          },
                                          &r));
        if (stopped) {
            QCOMPARE(QString::fromStdString(streamed), expectedText);
            QVERIFY(r.stopReason == StopReason::STOP_REASON_STOP_STRING);
        } else {
            QVERIFY2(QString::fromStdString(streamed).startsWith(expectedText), streamed.c_str());
            QVERIFY(r.stopReason == StopReason::STOP_REASON_MAX_TOKENS);
        }
        QVERIFY(!QString::fromStdString(streamed).contains(stop));
        QCOMPARE(streamed, r.text);
    }

    void callbackStops()
    {
        BURROW_REQUIRE_SHARED(QString::fromLatin1(kStories));
        auto m = stories();
        auto session = Session::create(m, SessionOptions{256, 0});
        QVERIFY(session);
        int calls = 0;
        GenerateResult r;
        QVERIFY(session.value()->generate(m->tokenize("Once upon a time", true, true), greedy(), GenerateOptions{},
                                          [&](std::string_view) { return ++calls < 3; }, &r));
        QCOMPARE(calls, 3);
        QVERIFY(r.stopReason == StopReason::STOP_REASON_CANCELLED);
        QVERIFY(r.tokens.size() <= 4);
    }

    // A Session is the scheduler's loop stepped by its caller: the callbacks
    // run on the thread that called generate(), and the caller's result
    // holds every token generated so far when a piece arrives.
    void callbacksOnTheCallersThread()
    {
        BURROW_REQUIRE_SHARED(QString::fromLatin1(kStories));
        auto m = stories();
        auto session = Session::create(m, SessionOptions{256, 2});
        QVERIFY(session);
        const std::thread::id caller = std::this_thread::get_id();
        int elsewhere = 0, pieces = 0, progress = 0;
        size_t lastCount = 0;
        bool countsGrow = true;
        GenerateResult r;
        GenerateOptions go;
        go.maxTokens = 24;
        QVERIFY(session.value()->generate(
            m->tokenize("Once upon a time", true, true), greedy(), go,
            [&](std::string_view) {
                ++pieces;
                elsewhere += std::this_thread::get_id() != caller;
                countsGrow = countsGrow && r.tokens.size() > lastCount;
                lastCount = r.tokens.size();
                return true;
            },
            &r, [&](int32_t, int32_t) {
                ++progress;
                elsewhere += std::this_thread::get_id() != caller;
            }));
        QVERIFY(pieces > 0);
        QVERIFY(progress > 0);
        QCOMPARE(elsewhere, 0);
        QVERIFY(countsGrow);
        QCOMPARE(int(r.tokens.size()), 24);
    }

    void cancelFromAnotherThread()
    {
        BURROW_REQUIRE_SHARED(QString::fromLatin1(kStories));
        auto m = stories();
        auto session = Session::create(m, SessionOptions{512, 0});
        QVERIFY(session);
        Session *s = session.value().get();
        std::atomic<int> pieces{0};
        std::atomic<bool> cancelled{false};
        std::atomic<int> piecesAfterCancel{0};
        GenerateResult r;
        Status status;
        SamplingParams sp;
        sp.seed = 7;
        GenerateOptions go;
        go.maxTokens = 100000;   // only cancel() ends it (the context shifts when full)
        std::thread worker([&] {
            status = s->generate(m->tokenize("Once upon a time", true, true), sp, go,
                                 [&](std::string_view) {
                                     ++pieces;
                                     if (cancelled.load())
                                         ++piecesAfterCancel;
                                     return true;
                                 },
                                 &r);
        });
        while (pieces.load() < 5)
            std::this_thread::yield();
        s->cancel();
        cancelled.store(true);
        worker.join();
        QVERIFY2(status, status.message().c_str());
        QVERIFY(r.stopReason == StopReason::STOP_REASON_CANCELLED);
        QVERIFY2(piecesAfterCancel.load() <= 1, qPrintable(QString::number(piecesAfterCancel.load())));
    }

    void contextFull_data()
    {
        QTest::addColumn<bool>("shift");
        QTest::newRow("stop") << false;
        QTest::newRow("shift") << true;
    }

    void contextFull()
    {
        QFETCH(bool, shift);
        BURROW_REQUIRE_SHARED(QString::fromLatin1(kStories));
        auto m = stories();
        auto session = Session::create(m, SessionOptions{32, 0});
        QVERIFY(session);
        GenerateOptions go;
        go.maxTokens = 80;
        go.overflow = shift ? ContextOverflow::CONTEXT_OVERFLOW_SHIFT : ContextOverflow::CONTEXT_OVERFLOW_STOP;
        go.nKeep = 3;
        SamplingParams sp;
        sp.seed = 3;
        GenerateResult r;
        std::string streamed;
        const auto prompt = m->tokenize("Once upon a time", true, true);
        QVERIFY(session.value()->generate(prompt, sp, go,
                                          [&](std::string_view p) {
                                              streamed += p;
                                              return true;
                                          },
                                          &r));
        QVERIFY(validUtf8(streamed));
        const auto &cached = session.value()->cachedTokens();
        QVERIFY(cached.size() <= 32);
        if (r.stopReason == StopReason::STOP_REASON_END_OF_GENERATION)
            QSKIP("the story ended before the context filled");
        if (shift) {
            QVERIFY(r.stopReason == StopReason::STOP_REASON_MAX_TOKENS);
            QCOMPARE(int(r.tokens.size()), 80);
            // BOS and the nKeep tokens survive every shift.
            QCOMPARE(std::vector<Token>(cached.begin(), cached.begin() + 3),
                     std::vector<Token>(prompt.begin(), prompt.begin() + 3));
        } else {
            QVERIFY(r.stopReason == StopReason::STOP_REASON_CONTEXT_FULL);
            QCOMPARE(cached.size(), size_t(32));
            QCOMPARE(int(prompt.size() + r.tokens.size()), 33);   // the last token did not fit
        }
    }

    // renderChat: the model's own template (phi3), BOS written once.
    void renderChatWithModelTemplate()
    {
        const QString file = QStringLiteral("models/synthetic/phi3-Q4_K_M.gguf");
        BURROW_REQUIRE_SHARED(file);
        auto m = Model::load(test::sharedPath(file).toStdString());
        QVERIFY2(m, m.message().c_str());
        ChatFormat format;
        auto text = renderChat(*m.value(), {{"user", "Hi"}, {"assistant", "Hello"}, {"user", "Bye"}}, true, &format);
        QVERIFY2(text, text.message().c_str());
        // The template writes {{ bos_token }} first; the vocabulary adds BOS itself, so it is left out here.
        QCOMPARE(text.value(), std::string("<|user|>\nHi<|end|>\n<|assistant|>\nHello<|end|>\n<|user|>\nBye<|end|>\n<|assistant|>\n"));
        QCOMPARE(format.name, std::string("template"));
        QVERIFY(std::find(format.stopStrings.begin(), format.stopStrings.end(), "<|end|>") != format.stopStrings.end());
        const auto tokens = m.value()->tokenize(text.value(), true, true);
        QVERIFY(tokens.size() > 2);
        QCOMPARE(tokens[0], m.value()->info().bosId);
        QVERIFY(tokens[1] != m.value()->info().bosId);
    }

    void renderChatFallback()
    {
        BURROW_REQUIRE_SHARED(QString::fromLatin1(kStories));
        auto m = stories();
        ChatFormat format;
        auto text = renderChat(*m, {{"system", "Be brief."}, {"user", "Hi"}}, true, &format);
        QVERIFY2(text, text.message().c_str());
        QVERIFY(format.name != "template" && !format.name.empty());
        QVERIFY(QString::fromStdString(text.value()).contains(QLatin1String("Hi")));
        QVERIFY(QString::fromStdString(text.value()).contains(QLatin1String("Be brief.")));
    }

    void seededSamplingIsReproducible()
    {
        BURROW_REQUIRE_SHARED(QString::fromLatin1(kStories));
        auto m = stories();
        SamplingParams sp;
        sp.seed = 1234;
        sp.temperature = 1.0f;
        GenerateOptions go;
        go.maxTokens = 40;
        std::vector<Token> runs[2];
        for (auto &tokens : runs) {
            auto session = Session::create(m, SessionOptions{128, 0});
            QVERIFY(session);
            GenerateResult r;
            QVERIFY(session.value()->generate(m->tokenize("Lily and Tom", true, true), sp, go, {}, &r));
            tokens = r.tokens;
        }
        QCOMPARE(runs[0], runs[1]);
        for (Token t : runs[0])
            QVERIFY(!m->isEndOfGeneration(t));
    }
};

QTEST_MAIN(TestGeneration)
#include "tst_generation.moc"
