// The model card says what the 2026 files are, from the engine's header
// facts (burrow::ModelInfo): the architecture, "8 experts, 2 active" and the
// active share of the parameters for a mixture of experts, the sliding
// window, and a memory estimate that counts all experts, bounds the sliding
// layers' cache by their window and counts the recurrent state of a qwen35
// model (ModelInfo::kvCacheBytes: the card used to leave the state out),
// which also cannot shift its context; Gemma 4's shared KV layers and
// per-layer embeddings. And the context a chat gets on a model trained for
// less than 4,096 positions: its trained length.
#include <QLocale>
#include <QTest>

#include "backend/enginebackend.h"
#include "burrow/engine.h"
#include "backend/modelcard.h"
#include "test_support.h"

using namespace burrow::test;

class TestModelCard : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }

    void cardOfEachFamily_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("architecture");
        QTest::addColumn<QString>("experts");       // "" for a dense model
        QTest::addColumn<bool>("sliding");
        QTest::addColumn<bool>("recurrent");
        QTest::newRow("qwen3") << QStringLiteral("models/synthetic-2026/qwen3-Q4_K_M.gguf") << QStringLiteral("qwen3")
                               << QString() << false << false;
        QTest::newRow("qwen3moe") << QStringLiteral("models/synthetic-2026/qwen3moe-Q4_K_M.gguf")
                                  << QStringLiteral("qwen3moe") << QStringLiteral("8 experts, 2 active") << false << false;
        QTest::newRow("gemma3") << QStringLiteral("models/synthetic-2026/gemma3-Q4_K_M.gguf") << QStringLiteral("gemma3")
                                << QString() << true << false;
        QTest::newRow("gpt-oss") << QStringLiteral("models/synthetic-2026/gpt-oss-MXFP4.gguf")
                                 << QStringLiteral("gpt-oss") << QStringLiteral("8 experts, 2 active") << true << false;
        QTest::newRow("qwen35") << QStringLiteral("models/synthetic-2026/qwen35-Q4_K_M.gguf") << QStringLiteral("qwen35")
                                << QString() << false << true;
        QTest::newRow("gemma4") << QStringLiteral("models/synthetic-2026/gemma4-Q4_K_M.gguf") << QStringLiteral("gemma4")
                                << QString() << true << false;
        QTest::newRow("gemma4moe") << QStringLiteral("models/synthetic-2026/gemma4moe-Q4_K_M.gguf")
                                   << QStringLiteral("gemma4") << QStringLiteral("8 experts, 2 active") << true << false;
    }

    // Gemma 4's E-shape: the shared KV layers and the per-layer embeddings
    // are on the card; the estimate counts the table (in the weights) and
    // no cache for the shared layers.
    void gemma4Card()
    {
        const QString file = QStringLiteral("models/synthetic-2026/gemma4-Q4_K_M.gguf");
        BURROW_REQUIRE_SHARED(file);
        QString error;
        const ModelCard card = EngineBackend::inspect(sharedPath(file), &error);
        QVERIFY2(card.isValid(), qPrintable(error));
        QCOMPARE(card.sharedKvLayerCount, 3);
        QCOMPARE(card.sharedKvText(), QStringLiteral("the last 3 of 6 layers reuse earlier layers' keys and values"));
        QCOMPARE(card.perLayerEmbeddingBytes, quint64(322560));
        QCOMPARE(card.perLayerEmbeddingText(),
                 QStringLiteral("128 per layer, %1, read from the file one row per token").arg(ModelCard::formatBytes(322560)));
        // Three of six layers keep keys and values, F16 K and V of 2 KV heads: 2 sliding layers of
        // 2 * 2 * 64 * 2 = 512 bytes, 1 global of 2 * 2 * 128 * 2 = 1024 bytes per position (300
        // positions: within the sliding layers' window + chunk bound of 528).
        QCOMPARE(card.memoryBytesAt(300) - card.weightBytes, quint64(300) * (2 * 512 + 1024));
        const QString qwen = QStringLiteral("models/synthetic-2026/qwen3-Q4_K_M.gguf");
        BURROW_REQUIRE_SHARED(qwen);
        const ModelCard other = EngineBackend::inspect(sharedPath(qwen), &error);
        QCOMPARE(other.sharedKvText(), QString());
        QCOMPARE(other.perLayerEmbeddingText(), QString());
    }

    // Speculative decoding on the card: what the engine says the file offers
    // (prompt lookup for every file), then a draft model; nothing for a remote model.
    void speculativeLine()
    {
        const QString file = QStringLiteral("models/stories260K.gguf");
        BURROW_REQUIRE_SHARED(file);
        QString error;
        ModelCard card = EngineBackend::inspect(sharedPath(file), &error);
        QVERIFY2(card.isValid(), qPrintable(error));
        QCOMPARE(card.drafters, QStringList{QStringLiteral("ngram")});
        QCOMPARE(card.speculativeText(), QStringLiteral("prompt lookup (n-gram), a draft model with the same vocabulary"));
        card.drafters.prepend(QStringLiteral("mtp"));
        QCOMPARE(card.speculativeText(),
                 QStringLiteral("its MTP layers, prompt lookup (n-gram), a draft model with the same vocabulary"));
        // Gemma 4: its assistant file too; the assistant's own card says what it is.
        card.architecture = QStringLiteral("gemma4");
        QCOMPARE(card.speculativeText(), QStringLiteral("its MTP layers, prompt lookup (n-gram), its assistant file (as "
                                                        "the draft model), a draft model with the same vocabulary"));
        card.draftsFor = QStringLiteral("gemma4");
        QCOMPARE(card.speculativeText(),
                 QStringLiteral("none: this file is a drafter for Gemma 4 models (choose it as a chat's draft model)"));
        card.remote = true;
        QCOMPARE(card.speculativeText(), QString());
    }

    void cardOfEachFamily()
    {
        QFETCH(QString, file);
        QFETCH(QString, architecture);
        QFETCH(QString, experts);
        QFETCH(bool, sliding);
        QFETCH(bool, recurrent);
        BURROW_REQUIRE_SHARED(file);
        const QString path = sharedPath(file);
        auto info = burrow::inspectModel(path.toStdString());
        QVERIFY2(info, info.message().c_str());

        QString error;
        const ModelCard card = EngineBackend::inspect(path, &error);
        QVERIFY2(card.isValid(), qPrintable(error));
        QCOMPARE(card.architecture, architecture);
        QCOMPARE(card.expertsText(), experts);
        if (experts.isEmpty()) {
            QCOMPARE(card.activeParametersText(), QString());
        } else {
            // What one token reads, of everything the file holds.
            QVERIFY(info->activeParameterCount > 0 && info->activeParameterCount < info->parameterCount);
            QCOMPARE(card.activeParametersText(),
                     QStringLiteral("%1 of %2 active per token")
                         .arg(ModelCard::countText(info->activeParameterCount), ModelCard::countText(info->parameterCount)));
        }
        QCOMPARE(!card.slidingWindowText().isEmpty(), sliding);
        if (sliding) {
            QCOMPARE(card.slidingWindowText(), QStringLiteral("%1 positions on %2 of %3 layers")
                                                   .arg(info->slidingWindow)
                                                   .arg(info->slidingLayerCount)
                                                   .arg(info->blockCount));
        }
        QCOMPARE(info->recurrentStateBytes > 0, recurrent);
        QCOMPARE(card.canShiftContext(), !recurrent);
        // The memory estimate: all the weights (every expert) and the
        // engine's KV cache arithmetic (with the recurrent state's copies),
        // at a short and at the full context.
        for (const int context : {64, card.trainedContext}) {
            const quint64 expected = info->weightBytes + info->kvCacheBytes(uint32_t(card.contextFor(context)));
            QCOMPARE(card.memoryBytesAt(context), expected);
            // The chat's "Context memory" q8_0: the engine's Q8_0 arithmetic (34 bytes per 64 of F16).
            const quint64 q8 = info->weightBytes
                               + info->kvCacheBytes(uint32_t(card.contextFor(context)), burrow::KvCacheType::KV_CACHE_Q8_0);
            QCOMPARE(card.memoryBytesAt(context, QStringLiteral("q8_0")), q8);
            QVERIFY(q8 < expected);
        }
    }

    // Hand-made numbers: a sliding layer's cache stops growing at its
    // window plus one prompt chunk; the recurrent state counts its copies;
    // a hostile header saturates, never wraps.
    void memoryEstimateBoundsTheWindow()
    {
        burrow::ModelInfo info;
        info.path = "/m/hand.gguf";
        info.contextLength = 1 << 20;
        info.weightBytes = 1000;
        info.kvBytesPerToken = 10;
        info.kvBytesPerTokenSliding = 100;
        info.slidingWindow = 1024;
        ModelCard card = ModelCard::fromInfo(info);
        const quint64 window = 1024 + burrow::ModelInfo::kSlidingCacheSlack;
        QCOMPARE(card.memoryBytesAt(512), quint64(1000 + 10 * 512 + 100 * 512));
        QCOMPARE(card.memoryBytesAt(65536), quint64(1000 + 10 * 65536 + 100 * window));
        info.recurrentLayerCount = 3;
        info.recurrentStateBytes = 7;
        card = ModelCard::fromInfo(info);
        QCOMPARE(card.memoryBytesAt(512), quint64(1000 + 10 * 512 + 100 * 512 + 7 * burrow::ModelInfo::kRecurrentStateCopies));
        QVERIFY(!card.canShiftContext());
        info.kvBytesPerToken = UINT64_MAX / 2;
        QCOMPARE(ModelCard::fromInfo(info).memoryBytesAt(65536), quint64(UINT64_MAX));
    }

    // A model trained for 2,048 positions (the bench model): Automatic gives
    // it 2,048 when memory holds that, an explicit size is kept up to the
    // trained length, and a larger one gets the trained length.
    void contextOfAModelTrainedForLess()
    {
        const QString bench = QStringLiteral("models/bench/llama-155M-Q4_K_M.gguf");
        BURROW_REQUIRE_SHARED(bench);
        QString error;
        ModelCard card = EngineBackend::inspect(sharedPath(bench), &error);
        QVERIFY2(card.isValid(), qPrintable(error));
        QCOMPARE(card.trainedContext, 2048);
        card.availableMemory = 64ull << 30;   // plenty
        QCOMPARE(card.contextFor(0), 2048);
        QCOMPARE(card.contextFor(1000), 1000);
        QCOMPARE(card.contextFor(4096), 2048);
        // Little memory: Automatic shrinks to what fits, never below the minimum.
        card.availableMemory = card.memoryBytesAt(700) + 1;
        QVERIFY(card.contextFor(0) >= 700 && card.contextFor(0) < 720);
        QVERIFY(card.fitsAt(0));
        card.availableMemory = 1;
        QCOMPARE(card.contextFor(0), 64);
        QVERIFY(!card.fitsAt(0));
    }
};

QTEST_GUILESS_MAIN(TestModelCard)
#include "tst_modelcard.moc"
