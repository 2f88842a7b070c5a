// Model loading: hyper-parameters per architecture, the tensor-name table,
// weights as views into the mapped file, and every refusal (unsupported
// architecture, missing tensor, wrong shape, unsupported type, wrong metadata
// type, missing key) with a message naming what is wrong.
#include "burrow/engine.h"
#include "gguf/gguf_reader.h"
#include "model/model_config.h"
#include "model/tensor_names.h"
#include "model/weights.h"
#include "api/model_impl.h"
#include "test_support.h"
#include "tiny_model.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <set>

using namespace burrow;

class TestModel : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_counter = 0;

    std::string writeModel(const std::vector<uint8_t> &bytes)
    {
        const QString path = m_dir.filePath(QStringLiteral("m%1.gguf").arg(m_counter++));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return {};
        f.write(reinterpret_cast<const char *>(bytes.data()), qint64(bytes.size()));
        return path.toStdString();
    }

private slots:
    void tensorNameTable()
    {
        std::set<std::string> names;
        for (uint32_t k = 0; k < uint32_t(model::TensorKind::TENSOR_KIND_COUNT); ++k) {
            const auto kind = model::TensorKind(k);
            const model::TensorNameEntry &e = model::tensorNameEntry(kind);
            QCOMPARE(uint32_t(e.kind), k);
            QCOMPARE(std::string(e.pattern).find("%d") != std::string::npos, e.perLayer);
            QVERIFY(names.insert(e.pattern).second);
        }
        QCOMPARE(model::tensorName(model::TensorKind::TENSOR_KIND_ATTN_Q, 7), std::string("blk.7.attn_q.weight"));
        QCOMPARE(model::tensorName(model::TensorKind::TENSOR_KIND_FFN_POST_NORM, 0),
                 std::string("blk.0.post_ffw_norm.weight"));
        QCOMPARE(model::tensorName(model::TensorKind::TENSOR_KIND_TOKEN_EMBD), std::string("token_embd.weight"));
    }

    void loadsTinyModel()
    {
        const std::string path = writeModel(test::buildTinyModel({}));
        auto m = Model::load(path);
        QVERIFY2(m, m.message().c_str());
        auto impl = std::dynamic_pointer_cast<api::ModelImpl>(m.value());
        QVERIFY(impl);
        const model::ModelConfig &c = impl->config();
        QCOMPARE(c.nEmbd, 32u);
        QCOMPARE(c.nLayer, 2u);
        QCOMPARE(c.nHead, 4u);
        QCOMPARE(c.nHeadKv, 2u);
        QCOMPARE(c.headDimK, 8u);
        QCOMPARE(c.nRot, 8u);
        QCOMPARE(c.nVocab, 16u);
        QVERIFY(!c.tiedOutput);
        QVERIFY(c.ropeType == model::RopeType::ROPE_TYPE_NORM);
        QCOMPARE(m.value()->vocabSize(), 16u);

        // Weights are views into the mapping: the same addresses as the reader's tensor data.
        const gguf::GgufFile &file = impl->file();
        const model::Weights &w = impl->weights();
        QCOMPARE(w.tokenEmbd.data, file.tensor("token_embd.weight")->data);
        QCOMPARE(w.layers[1].ffnDown.data, file.tensor("blk.1.ffn_down.weight")->data);
        QCOMPARE(w.layers[1].ffnDown.ne0, int64_t(64));
        QCOMPARE(w.layers[1].ffnDown.ne1, int64_t(32));

        // Tied output: no output.weight means the embedding matrix is used.
        test::TinySpec tied;
        tied.tiedOutput = true;
        auto t = Model::load(writeModel(test::buildTinyModel(tied)));
        QVERIFY2(t, t.message().c_str());
        auto timpl = std::dynamic_pointer_cast<api::ModelImpl>(t.value());
        QVERIFY(timpl->config().tiedOutput);
        QCOMPARE(timpl->weights().output.data, timpl->weights().tokenEmbd.data);

        // It computes: finite logits for a short prompt.
        auto session = Session::create(m.value(), SessionOptions{16, 1});
        QVERIFY2(session, session.message().c_str());
        std::vector<float> logits;
        const Status s = session.value()->evaluate({1, 5, 6, 7}, &logits);
        QVERIFY2(s, s.message().c_str());
        QCOMPARE(logits.size(), size_t(16));
        for (float v : logits)
            QVERIFY(std::isfinite(v));
    }

    void loadProgressAndCancel()
    {
        const std::string path = writeModel(test::buildTinyModel({}));
        std::vector<float> seen;
        LoadOptions options;
        options.progress = [&](float p) {
            seen.push_back(p);
            return true;
        };
        auto m = Model::load(path, options);
        QVERIFY2(m, m.message().c_str());
        QVERIFY(seen.size() >= 2);
        QCOMPARE(seen.front(), 0.0f);
        QCOMPARE(seen.back(), 1.0f);
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));

        int calls = 0;
        options.progress = [&](float) { return ++calls < 2; };
        auto cancelled = Model::load(path, options);
        QVERIFY(!cancelled);
        QVERIFY2(QString::fromStdString(cancelled.message()).contains(QLatin1String("cancelled")),
                 cancelled.message().c_str());
    }

    void refusals_data()
    {
        QTest::addColumn<int>("variant");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unsupported architecture") << 0 << "architecture 'mamba' is not supported (supported: llama, qwen2, phi3, gemma2, qwen3, qwen3moe, gemma3, gpt-oss, qwen35, qwen35moe, gemma4, gemma4-assistant)";
        QTest::newRow("missing tensor") << 1 << "missing tensor 'blk.1.ffn_down.weight' (expected shape [64, 32])";
        QTest::newRow("wrong shape") << 2 << "tensor 'blk.0.attn_q.weight' has shape [32, 16], expected [32, 32]";
        QTest::newRow("unsupported type") << 3 << "tensor 'blk.0.ffn_up.weight' has type Q8_1, which Burrow cannot compute with";
        QTest::newRow("1-D tensor not F32") << 4 << "tensor 'blk.0.attn_norm.weight' has type F16, expected F32";
        QTest::newRow("missing key") << 5 << "llama.embedding_length";
        QTest::newRow("wrong key type") << 6 << "llama.block_count";
        QTest::newRow("head counts") << 7 << "attention.head_count 4 is not a multiple of attention.head_count_kv 3";
        QTest::newRow("qwen2 needs biases") << 8 << "missing tensor 'blk.0.attn_q.bias'";
        QTest::newRow("missing embeddings") << 9 << "missing tensor 'token_embd.weight'";
        QTest::newRow("rope dims odd") << 10 << "rope.dimension_count' is 7";
        QTest::newRow("unknown rope scaling") << 11 << "RoPE scaling type 'longrope'";
    }

    void refusals()
    {
        QFETCH(int, variant);
        QFETCH(QString, expected);
        test::TinySpec s;
        switch (variant) {
        case 0: s.arch = "mamba"; break;
        case 1: s.dropTensors = {"blk.1.ffn_down.weight"}; break;
        case 2: s.shapes["blk.0.attn_q.weight"] = {32, 16}; break;
        case 3: s.types["blk.0.ffn_up.weight"] = GgmlType::GGML_TYPE_Q8_1; break;
        case 4: s.types["blk.0.attn_norm.weight"] = GgmlType::GGML_TYPE_F16; break;
        case 5: s.dropKeys = {"llama.embedding_length"}; break;
        case 6:
            s.dropKeys = {"llama.block_count"};
            s.extraKeys = [](gguf::GgufWriter &w) { w.addString("llama.block_count", "two"); };
            break;
        case 7: s.nHeadKv = 3; break;
        case 8: s.arch = "qwen2"; s.dropTensors = {"blk.0.attn_q.bias"}; break;
        case 9: s.dropTensors = {"token_embd.weight"}; break;
        case 10: s.extraKeys = [](gguf::GgufWriter &w) { w.addU32("llama.rope.dimension_count", 7); }; break;
        case 11: s.extraKeys = [](gguf::GgufWriter &w) { w.addString("llama.rope.scaling.type", "longrope"); }; break;
        }
        const std::string path = writeModel(test::buildTinyModel(s));
        auto m = Model::load(path);
        QVERIFY(!m);
        const QString message = QString::fromStdString(m.message());
        QVERIFY2(message.contains(expected), qPrintable(message));
        QVERIFY2(message.contains(QString::fromStdString(path)) || variant == 0 || variant >= 5,
                 qPrintable(message));
    }

    void sharedArchitectures_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("stories260K") << "models/stories260K.gguf";
        QTest::newRow("qwen2") << "models/synthetic/qwen2-f32.gguf";
        QTest::newRow("phi3") << "models/synthetic/phi3-Q4_K_M.gguf";
        QTest::newRow("gemma2") << "models/synthetic/gemma2-Q4_K_M.gguf";
        QTest::newRow("qwen3") << "models/synthetic-2026/qwen3-f32.gguf";
        QTest::newRow("qwen3moe") << "models/synthetic-2026/qwen3moe-Q4_K_M.gguf";
        QTest::newRow("gemma3") << "models/synthetic-2026/gemma3-Q8_0.gguf";
        QTest::newRow("gemma4") << "models/synthetic-2026/gemma4-Q4_K_M.gguf";
        QTest::newRow("gemma4moe") << "models/synthetic-2026/gemma4moe-Q4_K_M.gguf";
    }

    void sharedArchitectures()
    {
        QFETCH(QString, file);
        BURROW_REQUIRE_SHARED(file);
        auto opened = gguf::GgufFile::open(test::sharedPath(file).toStdString());
        QVERIFY2(opened, opened.message().c_str());
        auto config = model::loadModelConfig(*opened.value());
        QVERIFY2(config, config.message().c_str());
        model::ModelConfig c = config.value();
        auto weights = model::loadWeights(*opened.value(), c);
        QVERIFY2(weights, weights.message().c_str());
        const model::Weights &w = weights.value();
        QCOMPARE(w.layers.size(), size_t(c.nLayer));
        switch (c.arch) {
        case model::Architecture::ARCHITECTURE_LLAMA:
            QCOMPARE(c.nEmbd, 64u);
            QCOMPARE(c.nHead, 8u);
            QCOMPARE(c.nHeadKv, 4u);
            QCOMPARE(c.nRot, 8u);
            QVERIFY(c.ropeType == model::RopeType::ROPE_TYPE_NORM);
            QVERIFY(!c.tiedOutput);
            break;
        case model::Architecture::ARCHITECTURE_QWEN2:
            QVERIFY(c.ropeType == model::RopeType::ROPE_TYPE_NEOX);
            QVERIFY(c.tiedOutput);
            QCOMPARE(c.ropeFreqBase, 1000000.0f);
            QVERIFY(w.layers[0].bq && w.layers[0].bk && w.layers[0].bv);
            break;
        case model::Architecture::ARCHITECTURE_PHI3:
            QVERIFY(c.fusedQkv && c.fusedGateUp);
            QVERIFY(w.layers[0].wqkv && !w.layers[0].wq && !w.layers[0].ffnGate);
            QCOMPARE(w.layers[0].ffnUp.ne1, int64_t(2 * c.nFf));
            QCOMPARE(c.nVocab, 32064u);
            // The reference turns Phi's sliding window off; so does Burrow.
            QCOMPARE(c.slidingWindow, 0u);
            QCOMPARE(c.slidingLayerCount(), 0u);
            QVERIFY(c.queryScaleBeforeAttention);
            QCOMPARE(c.queryScale, 1.0f / std::sqrt(32.0f));
            break;
        case model::Architecture::ARCHITECTURE_GEMMA2:
            QCOMPARE(c.nLayer, 26u);
            QCOMPARE(c.attnSoftcap, 50.0f);
            QCOMPARE(c.finalSoftcap, 30.0f);
            QCOMPARE(c.slidingWindow, 4096u);
            QVERIFY(c.layers[0].sliding && !c.layers[1].sliding && c.layers[2].sliding);
            QCOMPARE(c.embeddingScale, 16.0f);
            QCOMPARE(c.queryScale, 1.0f / std::sqrt(32.0f));
            QVERIFY(c.postNorms && c.outputAlwaysTied && c.tiedOutput);
            QVERIFY(c.ffnActivation == model::FfnActivation::FFN_ACTIVATION_GELU_TANH);
            QVERIFY(w.layers[25].attnPostNorm && w.layers[25].ffnPostNorm);
            break;
        case model::Architecture::ARCHITECTURE_QWEN3:
            // head size x heads (4 x 128 = 512) differs from the embedding (256)
            QCOMPARE(c.nEmbd, 256u);
            QCOMPARE(c.nEmbdQ(0), 512u);
            QVERIFY(c.qkNorm && c.tiedOutput);
            QVERIFY(c.ropeType == model::RopeType::ROPE_TYPE_NEOX);
            QCOMPARE(w.layers[0].attnQNorm.ne0, int64_t(128));
            QCOMPARE(w.layers[0].wq.ne1, int64_t(512));
            QCOMPARE(w.layers[0].wo.ne0, int64_t(512));
            break;
        case model::Architecture::ARCHITECTURE_QWEN3MOE:
            QCOMPARE(c.nExpert, 8u);
            QCOMPARE(c.nExpertUsed, 2u);
            QCOMPARE(c.nFfExp, 256u);
            QVERIFY(c.layers[0].moe && c.layers[1].moe);
            QVERIFY(c.expertGating == model::ExpertGating::EXPERT_GATING_SOFTMAX && c.expertWeightsNorm);
            QCOMPARE(w.layers[0].gateExps.size(), size_t(8));
            QCOMPARE(w.layers[0].downExps[7].ne0, int64_t(256));
            QCOMPARE(w.layers[0].ffnGateInp.ne1, int64_t(8));
            // Each expert is its own slice of the 3-D tensor.
            QCOMPARE(size_t(w.layers[0].upExps[1].data - w.layers[0].upExps[0].data),
                     w.layers[0].upExps[0].rowBytes * 256);
            QVERIFY(!w.layers[0].ffnGate);
            break;
        case model::Architecture::ARCHITECTURE_GEMMA3:
            QCOMPARE(c.nLayer, 6u);
            QCOMPARE(c.slidingWindow, 16u);
            for (uint32_t il = 0; il < 6; ++il) {
                QCOMPARE(c.layers[il].sliding, il != 5);   // five of every six
                QCOMPARE(c.layers[il].ropeFreqScale, il != 5 ? 1.0f : 1.0f / 8.0f);   // linear scaling on global layers
            }
            QVERIFY(c.layers[0].ropeFreqBase != c.layers[5].ropeFreqBase);
            QVERIFY(c.qkNorm && c.postNorms && c.queryScaleBeforeAttention);
            QCOMPARE(c.queryScale, 1.0f / std::sqrt(float(c.headDimK)));
            QCOMPARE(c.embeddingScale, 16.0f);
            break;
        case model::Architecture::ARCHITECTURE_GPT_OSS:
            QCOMPARE(c.nExpert, 8u);
            QCOMPARE(c.nExpertUsed, 2u);
            QCOMPARE(c.slidingWindow, 8u);
            QVERIFY(c.layers[0].sliding && !c.layers[1].sliding && c.layers[2].sliding && !c.layers[3].sliding);
            QVERIFY(c.expertGating == model::ExpertGating::EXPERT_GATING_SOFTMAX_SELECTED && !c.expertWeightsNorm);
            QVERIFY(c.attnSinks && c.expertBiases && !c.tiedOutput);
            QVERIFY(c.yarnExtFactor == 1.0f);
            QVERIFY(c.ffnActivation == model::FfnActivation::FFN_ACTIVATION_SWIGLU_OAI);
            QCOMPARE(w.layers[0].attnSinks.ne0, int64_t(c.nHead));
            QVERIFY(w.layers[0].bo && w.layers[0].ffnGateInpBias && w.layers[0].downExpsBias);
            QCOMPARE(w.layers[0].downExpsBias.ne1, int64_t(8));
            // The FFN input norm is stored as post_attention_norm.
            QCOMPARE(w.layers[0].ffnNorm.name, std::string_view("blk.0.post_attention_norm.weight"));
            break;
        case model::Architecture::ARCHITECTURE_GEMMA4:
            checkGemma4(c, w);
            break;
        default:
            QFAIL("an architecture without checks here");
        }
    }

private:
    // The gemma4 fixtures as ../shared/README.md describes them.
    static void checkGemma4(const model::ModelConfig &c, const model::Weights &w)
    {
        QVERIFY(c.qkNorm && c.vNorm && c.valueFromKey && c.postNorms && c.layerOutputScale && c.tiedOutput);
        QCOMPARE(c.attentionScale(0), 1.0f);
        QVERIFY(!c.queryScaleBeforeAttention);
        QCOMPARE(c.finalSoftcap, 1.5f);
        QCOMPARE(c.slidingWindow, 16u);
        QVERIFY(w.ropeFreqs);
        QCOMPARE(w.ropeFreqs.f32()[0], 1.0f);
        QCOMPARE(w.ropeFreqs.f32()[63], 1e30f);   // only 32 of the 128 dims turn
        for (uint32_t il = 0; il < c.nLayer; ++il) {
            const model::LayerSpec &l = c.layers[il];
            QCOMPARE(l.headDimK, l.sliding ? 64u : 128u);
            QCOMPARE(l.nRot, l.sliding ? 64u : 128u);
            QCOMPARE(l.ropeFreqBase, l.sliding ? 10000.0f : 1000000.0f);
            QCOMPARE(l.ropeFactors, !l.sliding);
            QCOMPARE(w.layers[il].attnQNorm.ne0, int64_t(l.headDimK));
            QVERIFY(w.layers[il].layerOutScale);
        }
        if (c.nExpert == 0) {   // gemma4-Q4_K_M: the E-shape
            QCOMPARE(c.nLayer, 6u);
            for (uint32_t il = 0; il < 6; ++il) {
                QCOMPARE(c.layers[il].sliding, il % 3 != 2);
                QCOMPARE(c.layers[il].nFf, il < 3 ? 256u : 512u);   // double-wide on the shared layers
                QCOMPARE(c.layers[il].kvLayer, il < 3 ? il : (c.layers[il].sliding ? 1u : 2u));
                QCOMPARE(c.ownsKv(il), il < 3);
                // The shared layers' K/V weights are in the file, never bound.
                QCOMPARE(bool(w.layers[il].wk), il < 3);
                QCOMPARE(bool(w.layers[il].plInpGate && w.layers[il].plProj && w.layers[il].plPostNorm), true);
            }
            QCOMPARE(c.nEmbdPerLayer, 128u);
            QCOMPARE(c.nSharedKvLayers, 3u);
            QCOMPARE(c.kvLayerCount(), 3u);
            QCOMPARE(w.perLayerTokenEmbd.ne0, int64_t(128 * 6));
            QCOMPARE(w.perLayerTokenEmbd.ne1, int64_t(512));
            // The per-layer table is no matrix a multiply reads (not packed: read from the map, a row per token).
            for (const model::TensorView *t : model::weightMatrices(w))
                QVERIFY(t->data != w.perLayerTokenEmbd.data);
        } else {   // gemma4moe-Q4_K_M: the 26B-A4B shape
            QCOMPARE(c.nLayer, 5u);
            QCOMPARE(c.nExpert, 8u);
            QCOMPARE(c.nExpertUsed, 2u);
            QVERIFY(c.routerInputScale && c.expertWeightsNorm);
            for (uint32_t il = 0; il < 5; ++il) {
                QCOMPARE(c.layers[il].sliding, il != 4);
                QCOMPARE(c.layers[il].nHeadKv, il != 4 ? 2u : 1u);
                QVERIFY(c.layers[il].moe && c.layers[il].denseBesideMoe);
                QVERIFY(w.layers[il].ffnGate && w.layers[il].ffnPreNorm2 && w.layers[il].ffnPostNorm1 &&
                        w.layers[il].ffnPostNorm2 && w.layers[il].ffnGateInpScale);
                QCOMPARE(w.layers[il].gateExps.size(), size_t(8));
                // ffn_down_exps.scale: each expert's output scale, on its view (synth's are 1 + noise).
                QCOMPARE(w.layers[il].downExps.size(), size_t(8));
                QVERIFY(w.layers[il].downExps[0].outScale != 1.0f || w.layers[il].downExps[1].outScale != 1.0f);
            }
            QVERIFY(w.layers[0].wv && !w.layers[4].wv);   // V = K on the global layer
            QCOMPARE(c.nEmbdPerLayer, 0u);
            QCOMPARE(c.kvLayerCount(), 5u);
        }
    }
};

QTEST_MAIN(TestModel)
#include "tst_model.moc"
