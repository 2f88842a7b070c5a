// The per-chat "Context memory" setting (kvCacheType) on the real engine:
// a chat asking for q8_0 gets a scheduler whose KV cache is Q8_0 and a
// reply; the next chat asking for f16 gets F16 again (the cache is made
// again only when no reply runs); a model whose heads a Q8_0 cache cannot
// hold (stories260K: 8-element heads) refuses that reply with the engine's
// reason, keeps its F16 scheduler and answers the next f16 request. And how
// many threads the engine runs beside the window.
#include <QTest>

#include "backend/enginebackend.h"
#include "burrow/engine.h"
#include "settings/chatsettings.h"
#include "test_support.h"

#include <future>

using namespace burrow::test;

namespace {

const QString kQwen3 = QStringLiteral("models/synthetic-2026/qwen3-Q4_K_M.gguf");
const QString kStories = QStringLiteral("models/stories260K.gguf");

GenerationOutcome generateAndWait(ChatBackend &backend, const ChatRequest &request)
{
    std::promise<GenerationOutcome> done;
    auto result = done.get_future();
    ChatBackend::ReplySinks sinks;
    sinks.onText = [](const QString &, int, bool) { return true; };
    sinks.onPromptProgress = [](int, int) {};
    sinks.onPlan = [](const PromptPlan &) {};
    sinks.onDone = [&done](const GenerationOutcome &outcome) { done.set_value(outcome); };
    backend.generate(request, std::move(sinks));
    return result.get();
}

// A reply of at most two tokens with the settings of a chat whose context
// memory is `kvCacheType`, through the field table as the app sends it.
ChatRequest request(const QString &kvCacheType)
{
    ChatSettings settings;
    settings.setTemperature(0);
    settings.setMaxTokens(2);
    settings.setContextSize(256);
    settings.setKvCacheType(kvCacheType);
    ChatRequest r;
    r.id = 1;
    r.messages = {{"user", "Hi", {}, {}}};
    r.rows = {0};
    r.settings = settings.toEngine();
    r.cancel = std::make_shared<burrow::CancelToken>();
    return r;
}

} // namespace

class TestEngineBackend : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // The engine's threads leave the window a core from five cores on.
    void engineThreads_data()
    {
        QTest::addColumn<int>("cores");
        QTest::addColumn<int>("threads");
        QTest::newRow("unknown") << 0 << 1;
        QTest::newRow("one") << 1 << 1;
        QTest::newRow("two") << 2 << 2;
        QTest::newRow("four") << 4 << 4;
        QTest::newRow("five") << 5 << 4;
        QTest::newRow("eight") << 8 << 7;
        QTest::newRow("sixteen") << 16 << 15;
    }
    void engineThreads()
    {
        QFETCH(int, cores);
        QFETCH(int, threads);
        QCOMPARE(EngineBackend::engineThreads(cores), threads);
    }

    void theSchedulerUsesThem()
    {
        BURROW_REQUIRE_SHARED(kStories);
        EngineBackend backend;
        QString error;
        QVERIFY2(backend.load(sharedPath(kStories), 256, {}, &error), qPrintable(error));
        QCOMPARE(backend.engineThreadCount(), EngineBackend::engineThreads(burrow::physicalCoreCount()));
    }

    void chatsChooseTheKvCacheType()
    {
        BURROW_REQUIRE_SHARED(kQwen3);
        EngineBackend backend;
        QString error;
        QVERIFY2(backend.load(sharedPath(kQwen3), 256, {}, &error), qPrintable(error));
        QVERIFY(backend.kvCacheType() == burrow::KvCacheType::KV_CACHE_F16);

        GenerationOutcome q8 = generateAndWait(backend, request(QStringLiteral("q8_0")));
        QVERIFY2(q8.error.isEmpty(), qPrintable(q8.error));
        QVERIFY(q8.generatedTokens >= 1);
        QVERIFY(backend.kvCacheType() == burrow::KvCacheType::KV_CACHE_Q8_0);
        QCOMPARE(backend.contextSize(), 256);

        GenerationOutcome f16 = generateAndWait(backend, request(QStringLiteral("f16")));
        QVERIFY2(f16.error.isEmpty(), qPrintable(f16.error));
        QVERIFY(backend.kvCacheType() == burrow::KvCacheType::KV_CACHE_F16);
    }

    void aModelThatCannotHoldQ8_0SaysWhyAndKeepsServing()
    {
        BURROW_REQUIRE_SHARED(kStories);
        EngineBackend backend;
        QString error;
        QVERIFY2(backend.load(sharedPath(kStories), 256, {}, &error), qPrintable(error));

        const GenerationOutcome refused = generateAndWait(backend, request(QStringLiteral("q8_0")));
        QVERIFY(refused.error.contains(QLatin1String("q8_0")));
        QVERIFY2(refused.error.contains(QLatin1String("multiples of 32")), qPrintable(refused.error));
        QCOMPARE(refused.generatedTokens, 0);
        QVERIFY(backend.kvCacheType() == burrow::KvCacheType::KV_CACHE_F16);
        QCOMPARE(backend.contextSize(), 256);

        const GenerationOutcome f16 = generateAndWait(backend, request(QStringLiteral("f16")));
        QVERIFY2(f16.error.isEmpty(), qPrintable(f16.error));
        QVERIFY(f16.generatedTokens >= 1);
    }
};

QTEST_GUILESS_MAIN(TestEngineBackend)
#include "tst_enginebackend.moc"
