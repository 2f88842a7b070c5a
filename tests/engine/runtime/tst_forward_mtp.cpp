// Multi-token-prediction drafting (runtime/forward_mtp.cpp, issue 30) on
// qwen35 and qwen35moe files with an MTP block, written here by the
// engine's own generator (burrow-cli synth --mtp 1): the block is loaded
// (ModelInfo, the config), greedy replies drafted by it equal plain greedy
// replies token for token, alone and four at once through the scheduler
// (drafts verified in the same batched pass, rejected ones rolled back in
// the paged KV cache and the recurrent state); auto picks it; a file
// without it refuses --spec mtp; malformed MTP tensors are refused by name.
#include "api/model_impl.h"
#include "burrow/engine.h"
#include "model/model_config.h"
#include "runtime/forward.h"
#include "runtime/kv_cache.h"
#include "runtime/thread_pool.h"
#include "model/synthetic_model.h"
#include "chi_squared.h"
#include "cli_process.h"
#include "gguf/gguf_reader.h"
#include "test_support.h"

#include <QtTest>

#include <condition_variable>
#include <mutex>

using namespace burrow;

namespace {

const char *const kPrompts[] = {
    "Once upon a time there was a little",
    "The quick brown fox jumps over the lazy dog and then",
    "In a small village by the sea, an old fisherman",
    "Tom and Lily went to the park. They saw a big",
};

model::SyntheticSpec mtpSpec(const char *preset, const char *type)
{
    const model::SyntheticPreset *p = model::findSyntheticPreset(preset);
    model::SyntheticSpec spec;
    spec.arch = p->arch;
    spec.shape = p->shape;
    spec.shape.nextnLayers = 1;
    spec.fileType = type;
    spec.seed = 7;
    spec.threads = 2;
    return spec;
}

GenerateResult solo(const std::shared_ptr<Model> &m, const std::vector<Token> &prompt, SpeculativeMode mode, int maxTokens)
{
    SessionOptions so;
    so.contextSize = 128;
    so.threads = 2;
    auto session = Session::create(m, so);
    GenerateResult r;
    if (!session)
        return r;
    GenerateOptions go;
    go.maxTokens = maxTokens;
    go.overflow = ContextOverflow::CONTEXT_OVERFLOW_STOP;
    go.speculative.mode = mode;
    SamplingParams greedy;
    greedy.temperature = 0.0f;
    if (Status s = session.value()->generate(prompt, greedy, go, {}, &r); !s)
        qWarning("generate: %s", s.message().c_str());
    return r;
}

QString describe(const std::vector<Token> &v)
{
    QString t;
    for (Token x : v)
        t += QString::number(x) + ' ';
    return t;
}

} // namespace

class TestForwardMtp : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString write(const model::SyntheticSpec &spec, const QString &name)
    {
        const QString path = m_dir.filePath(name);
        auto r = model::writeSyntheticModel(spec, path.toStdString());
        return r ? path : QString("error: ") + QString::fromStdString(r.status().message());
    }

    // PRESET's `synth --mtp 1 --type F32 --seed 1` file (the reference's
    // drafts are of it), written as `name` and loaded; null and *error set
    // when either fails.
    std::shared_ptr<const api::ModelImpl> seedOneF32(const QString &preset, const QString &name, QString *error)
    {
        auto spec = mtpSpec(qPrintable(preset), "F32");
        spec.seed = 1;
        const QString path = write(spec, name);
        if (path.startsWith("error")) {
            *error = path;
            return nullptr;
        }
        auto loaded = Model::load(path.toStdString());
        if (!loaded) {
            *error = QString::fromStdString(loaded.status().message());
            return nullptr;
        }
        return std::dynamic_pointer_cast<const api::ModelImpl>(loaded.value());
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void draftsAsTheReference_data();
    void draftsAsTheReference();
    void waitingRowsDraftTheSame_data();
    void waitingRowsDraftTheSame();
    void loadsTheBlock_data();
    void loadsTheBlock();
    void greedyEqualsPlain_data();
    void greedyEqualsPlain();
    void scriptedDraftsAccepted();
    void sampledKeepsTheDistribution();
    void modes();
    void malformedRefused_data();
    void malformedRefused();
};

void TestForwardMtp::draftsAsTheReference_data()
{
    QTest::addColumn<QString>("preset");
    QTest::addColumn<QList<QList<int>>>("reference");   // the drafts of steps 1, 2, 3
    QTest::newRow("qwen35") << "qwen35-tiny" << QList<QList<int>>{{261, 377, 501}, {225, 341, 458}, {55, 224, 356}};
    QTest::newRow("qwen35moe") << "qwen35moe-tiny" << QList<QList<int>>{{261, 377, 402}, {497, 264, 213}, {261, 377, 425}};
}

// The drafts equal the reference's MTP drafts on the same file. The file is
// `burrow-cli synth --preset PRESET --mtp 1 --type F32` (seed 1), which
// this test writes again (the generator is deterministic); the reference
// (llama.cpp build 9749) ran it as
//   llama-server -m FILE --spec-type draft-mtp --spec-draft-n-max 3 -t 2
//                -c 1024 -np 1 -v --no-warmup
// with POST /completion {"prompt": [the 28 ids below], "n_predict": 8 (6 for
// qwen35moe), "temperature": 0}, and its debug log ("draft candidate 0, pos i: ID")
// listed the drafts of each step: the target's reply is token 269 ('e')
// over and over, every draft rejected. Step 1 drafts from the prompt and the
// first sampled token; steps 2 and 3 after one more 'e' each.
void TestForwardMtp::draftsAsTheReference()
{
    QFETCH(QString, preset);
    QFETCH(QList<QList<int>>, reference);
    QString error;
    auto impl = seedOneF32(preset, preset + "-reference-drafts.gguf", &error);
    QVERIFY2(impl, qPrintable(error));
    const model::ModelConfig &c = impl->config();
    const std::vector<int32_t> prompt = {1,   259, 82,  287, 425, 300, 291, 289, 287, 260, 298, 277, 285, 269,
                                         298, 275, 269, 295, 269, 304, 349, 260, 282, 277, 299, 299, 283, 269};
    QCOMPARE(impl->tokenize(kPrompts[0], true, false), std::vector<Token>(prompt.begin(), prompt.end()));

    runtime::ThreadPool pool(2);
    auto cache = runtime::KvCache::create(c, 128, 64, 1);
    QVERIFY(cache);
    auto fwd = runtime::Forward::create(c, impl->weights(), *cache.value(), pool, 64);
    QVERIFY(fwd);
    std::vector<float> logits(static_cast<size_t>(4) * c.nVocab);
    runtime::BatchSpan sp;
    sp.n = static_cast<int32_t>(prompt.size());
    sp.logits = true;
    sp.mtp = true;
    QVERIFY(fwd.value()->evalBatch(prompt.data(), &sp, 1, logits.data()));
    const auto argmaxOf = [&](int row) {
        const float *l = logits.data() + static_cast<size_t>(row) * c.nVocab;
        return static_cast<int32_t>(std::max_element(l, l + c.nVocab) - l);
    };
    int32_t token = argmaxOf(0);
    QCOMPARE(token, 269);
    for (qsizetype step = 0; step < reference.size(); ++step) {
        QVERIFY(fwd.value()->mtpReady(0));
        std::vector<int32_t> drafts(3, -1);
        runtime::MtpDraft d;
        d.token = token;
        d.count = 3;
        d.out = drafts.data();
        QVERIFY(fwd.value()->mtpDraft(&d, 1, logits.data()));
        QCOMPARE(d.drafted, 3);
        QCOMPARE(drafts, std::vector<int32_t>(reference[step].begin(), reference[step].end()));
        // Verify them as the scheduler does: all rejected (the target says
        // 'e' again), rolled back to the sampled token.
        const uint32_t len = cache.value()->length(0);
        const std::vector<int32_t> batch = {token, drafts[0], drafts[1], drafts[2]};
        runtime::BatchSpan v;
        v.n = 4;
        v.logits = true;
        v.verify = true;
        v.mtp = true;
        QVERIFY(fwd.value()->evalBatch(batch.data(), &v, 1, logits.data()));
        token = argmaxOf(0);
        QCOMPARE(token, 269);
        cache.value()->truncate(0, len + 1);
        fwd.value()->mtpRollback(0, len + 1);
    }
}

void TestForwardMtp::waitingRowsDraftTheSame_data()
{
    QTest::addColumn<QString>("preset");
    QTest::addColumn<int>("waits");         // generated tokens whose block rows wait before each draft
    QTest::addColumn<bool>("promptWaits");  // the prompt's rows wait too (a short prompt)
    QTest::newRow("one") << "qwen35-tiny" << 1 << false;
    QTest::newRow("five") << "qwen35-tiny" << 5 << false;
    QTest::newRow("a full lag") << "qwen35-tiny" << runtime::Forward::kMtpLag << false;
    QTest::newRow("past the lag") << "qwen35-tiny" << 2 * runtime::Forward::kMtpLag + 5 << false;
    QTest::newRow("the prompt waits") << "qwen35-tiny" << 3 << true;
    QTest::newRow("qwen35moe") << "qwen35moe-tiny" << 7 << false;
}

// A backed-off sequence's block rows wait (BatchSpan::mtpLater) and run in
// one pass before it drafts: its drafts are the drafts of a sequence whose
// block ran every step. Two sequences with the same prompt share each
// batch, sequence 0 eager, sequence 1 waiting; every round both generate
// `waits` tokens, draft 3 in one mtpDraft call, verify them and roll back
// as the scheduler does.
void TestForwardMtp::waitingRowsDraftTheSame()
{
    QFETCH(QString, preset);
    QFETCH(int, waits);
    QFETCH(bool, promptWaits);
    QString error;
    auto impl = seedOneF32(preset, preset + "-waiting-rows.gguf", &error);
    QVERIFY2(impl, qPrintable(error));
    const model::ModelConfig &c = impl->config();
    std::vector<Token> prompt = impl->tokenize(kPrompts[1], true, false);
    if (promptWaits)
        prompt.resize(std::min<size_t>(prompt.size(), 9));
    const int P = static_cast<int>(prompt.size());

    runtime::ThreadPool pool(2);
    auto cache = runtime::KvCache::create(c, 512, 64, 2);
    QVERIFY(cache);
    auto fwd = runtime::Forward::create(c, impl->weights(), *cache.value(), pool, 2 * P + 8);
    QVERIFY(fwd);
    runtime::Forward &f = *fwd.value();
    std::vector<float> logits(static_cast<size_t>(8) * c.nVocab);
    const auto argmaxOf = [&](int row) {
        const float *l = logits.data() + static_cast<size_t>(row) * c.nVocab;
        return static_cast<int32_t>(std::max_element(l, l + c.nVocab) - l);
    };
    // One pass over both sequences: rows a (sequence 0), then rows b (1).
    const auto pass = [&](const std::vector<int32_t> &a, const std::vector<int32_t> &b, bool verify, bool waiting) {
        std::vector<int32_t> rows = a;
        rows.insert(rows.end(), b.begin(), b.end());
        runtime::BatchSpan sp[2];
        for (int s = 0; s < 2; ++s) {
            sp[s].seq = static_cast<uint32_t>(s);
            sp[s].row0 = s == 0 ? 0 : static_cast<int32_t>(a.size());
            sp[s].n = static_cast<int32_t>(s == 0 ? a.size() : b.size());
            sp[s].logits = true;
            sp[s].verify = verify;
            sp[s].mtp = true;
        }
        sp[1].mtpLater = waiting;
        return bool(f.evalBatch(rows.data(), sp, 2, logits.data()));
    };
    QVERIFY(pass(prompt, prompt, false, promptWaits));
    int32_t token = argmaxOf(0);
    QCOMPARE(argmaxOf(1), token);
    for (int round = 0; round < 3; ++round) {
        for (int w = 0; w < waits; ++w) {
            QVERIFY(pass({token}, {token}, false, true));
            token = argmaxOf(0);
            QCOMPARE(argmaxOf(1), token);
        }
        QVERIFY(f.mtpReady(0));
        QVERIFY(f.mtpReady(1));
        std::vector<int32_t> drafts(6, -1);
        runtime::MtpDraft d[2];
        for (int s = 0; s < 2; ++s) {
            d[s].seq = static_cast<uint32_t>(s);
            d[s].token = token;
            d[s].count = 3;
            d[s].out = drafts.data() + 3 * s;
        }
        QVERIFY(f.mtpDraft(d, 2, logits.data()));
        QCOMPARE(d[0].drafted, 3);
        QCOMPARE(d[1].drafted, 3);
        QVERIFY2(std::equal(drafts.begin(), drafts.begin() + 3, drafts.begin() + 3),
                 qPrintable(QString("round %1: eager %2, waited %3")
                                .arg(round)
                                .arg(describe({drafts.begin(), drafts.begin() + 3}))
                                .arg(describe({drafts.begin() + 3, drafts.end()}))));
        // Verified (one 4-row span each) and rolled back to the first.
        const uint32_t len = cache.value()->length(0);
        QCOMPARE(cache.value()->length(1), len);
        const std::vector<int32_t> batch = {token, drafts[0], drafts[1], drafts[2]};
        QVERIFY(pass(batch, batch, true, false));
        const int32_t next = argmaxOf(0);
        QCOMPARE(argmaxOf(4), next);
        for (uint32_t s = 0; s < 2; ++s) {
            cache.value()->truncate(s, len + 1);
            f.mtpRollback(s, len + 1);
        }
        token = next;
    }
}

void TestForwardMtp::loadsTheBlock_data()
{
    QTest::addColumn<QString>("preset");
    QTest::newRow("qwen35") << "qwen35-tiny";
    QTest::newRow("qwen35moe") << "qwen35moe-tiny";
}

// The file declares 5 blocks of which 1 predicts (the reference's layout:
// block_count counts it, its tensors are blk.4.*); the engine runs the 4
// trunk blocks and loads the 5th as the MTP block, with its own KV cache.
void TestForwardMtp::loadsTheBlock()
{
    QFETCH(QString, preset);
    const QString path = write(mtpSpec(qPrintable(preset), "Q8_0"), preset + "-mtp.gguf");
    QVERIFY2(!path.startsWith("error"), qPrintable(path));
    auto info = inspectModel(path.toStdString());
    QVERIFY2(info, info ? "" : info.status().message().c_str());
    QCOMPARE(info.value().blockCount, 5u);
    QCOMPARE(info.value().mtpLayerCount, 1u);
    QVERIFY(info.value().mtpDrafting);
    // The block's keys and values are counted: one attention layer of the
    // trunk's kind beside the trunk's one.
    auto plain = mtpSpec(qPrintable(preset), "Q8_0");
    plain.shape.nextnLayers = 0;
    const QString plainPath = write(plain, preset + "-plain.gguf");
    auto plainInfo = inspectModel(plainPath.toStdString());
    QVERIFY(plainInfo);
    QCOMPARE(plainInfo.value().mtpLayerCount, 0u);
    QVERIFY(!plainInfo.value().mtpDrafting);
    QCOMPARE(info.value().kvBytesPerToken, 2 * plainInfo.value().kvBytesPerToken);

    // burrow-cli info says so (and the JSON keys).
    const test::ProcessResult text = test::runCli({QStringLiteral("info"), path});
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("MTP layers:        1 (drafts for speculative decoding: --spec mtp)"), text.out.constData());
    const test::ProcessResult json = test::runCli({QStringLiteral("info"), path, QStringLiteral("--json")});
    QVERIFY(json.out.contains("\"mtp_layer_count\": 1,") && json.out.contains("\"mtp_drafting\": true,"));
    const test::ProcessResult plainText = test::runCli({QStringLiteral("info"), plainPath});
    QVERIFY(!plainText.out.contains("MTP layers"));

    auto file = gguf::GgufFile::open(path.toStdString());
    QVERIFY(file);
    auto config = model::loadModelConfig(*file.value());
    QVERIFY(config);
    QCOMPARE(config.value().nLayer, 4u);
    QCOMPARE(config.value().nLayerMtp, 1u);
    QCOMPARE(config.value().layers.size(), size_t{5});
    QVERIFY(!config.value().layers[4].recurrent);
    QCOMPARE(config.value().layers[4].moe, preset.contains("moe"));
}

void TestForwardMtp::greedyEqualsPlain_data()
{
    QTest::addColumn<QString>("preset");
    QTest::addColumn<QString>("type");
    QTest::newRow("qwen35 Q4_K_M") << "qwen35-tiny" << "Q4_K_M";
    QTest::newRow("qwen35 F32") << "qwen35-tiny" << "F32";
    QTest::newRow("qwen35moe Q8_0") << "qwen35moe-tiny" << "Q8_0";
}

// Plain greedy decoding alone is the reference: drafting with the MTP block
// alone, and four requests at once through the scheduler with MTP drafts
// (prompt chunks beside generating rows, drafts verified in one pass and
// rolled back), give the same tokens.
void TestForwardMtp::greedyEqualsPlain()
{
    QFETCH(QString, preset);
    QFETCH(QString, type);
    const QString path = write(mtpSpec(qPrintable(preset), qPrintable(type)), preset + "-" + type + ".gguf");
    QVERIFY2(!path.startsWith("error"), qPrintable(path));
    auto loaded = Model::load(path.toStdString());
    QVERIFY2(loaded, loaded ? "" : loaded.status().message().c_str());
    const std::shared_ptr<Model> m = loaded.value();
    constexpr int kMax = 24;
    std::vector<std::vector<Token>> prompts, plain;
    int32_t drafted = 0, accepted = 0;
    for (const char *p : kPrompts) {
        prompts.push_back(m->tokenize(p, true, false));
        const GenerateResult off = solo(m, prompts.back(), SpeculativeMode::SPECULATIVE_OFF, kMax);
        QCOMPARE(off.tokens.size(), size_t{kMax});
        QCOMPARE(off.timings.draftedTokens, 0);
        plain.push_back(off.tokens);
        const GenerateResult mtp = solo(m, prompts.back(), SpeculativeMode::SPECULATIVE_MTP, kMax);
        QVERIFY2(mtp.tokens == off.tokens,
                 qPrintable(QStringLiteral("alone with MTP drafts: %1, without: %2").arg(describe(mtp.tokens), describe(off.tokens))));
        drafted += mtp.timings.draftedTokens;
        accepted += mtp.timings.acceptedTokens;
    }
    qInfo("alone: %d MTP draft tokens verified, %d accepted", drafted, accepted);
    QVERIFY2(drafted > 0, "the MTP block drafted nothing: the verification was not exercised");

    SchedulerOptions o;
    o.contextSize = 128;
    o.parallel = 4;
    o.threads = 2;
    o.batchTokens = 64;
    o.prefillTokensWhileGenerating = 4;   // prompts in several chunks while others generate
    auto s = Scheduler::create(m, o);
    QVERIFY2(s, s ? "" : s.status().message().c_str());
    std::mutex mutex;
    std::condition_variable cv;
    std::vector<GenerateResult> results(prompts.size());
    size_t done = 0;
    for (size_t i = 0; i < prompts.size(); ++i) {
        Request r;
        r.prompt = prompts[i];
        r.sampling.temperature = 0.0f;
        r.options.maxTokens = kMax;
        r.options.speculative.mode = SpeculativeMode::SPECULATIVE_MTP;
        r.onDone = [&, i](const GenerateResult &res, const Status &st) {
            if (!st)
                qWarning("request %zu: %s", i, st.message().c_str());
            std::lock_guard<std::mutex> lock(mutex);
            results[i] = res;
            ++done;
            cv.notify_all();
        };
        QVERIFY(s.value()->submit(std::move(r)));
    }
    {
        std::unique_lock<std::mutex> lock(mutex);
        QVERIFY(cv.wait_for(lock, std::chrono::seconds(120), [&] { return done == prompts.size(); }));
    }
    int32_t batchedDrafted = 0;
    for (size_t i = 0; i < prompts.size(); ++i) {
        QVERIFY2(results[i].tokens == plain[i], qPrintable(QStringLiteral("prompt %1: alone %2, batched with MTP drafts %3")
                                                               .arg(i)
                                                               .arg(describe(plain[i]), describe(results[i].tokens))));
        batchedDrafted += results[i].timings.draftedTokens;
    }
    qInfo("batched: %d MTP draft tokens verified", batchedDrafted);
    QVERIFY(batchedDrafted > 0);
}

// A scripted model (burrow-cli synth --script): the trunk writes the
// script piece after piece and the MTP block (its eh_proj passing the
// embedding through) guesses the same, so drafts are accepted for the
// script's length; the script ends the reply ("</s>") in the middle of a
// draft, whose rest is not taken. The reply is still plain greedy's, alone
// and four at once.
void TestForwardMtp::scriptedDraftsAccepted()
{
    auto spec = mtpSpec("qwen35-tiny", "Q8_0");
    spec.shape.tiedOutput = false;
    spec.script = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "</s>"};
    const QString path = write(spec, "scripted.gguf");
    QVERIFY2(!path.startsWith("error"), qPrintable(path));
    auto loaded = Model::load(path.toStdString());
    QVERIFY(loaded);
    const std::shared_ptr<Model> m = loaded.value();
    Token trigger = -1;
    for (uint32_t t = m->vocabSize(); t-- > 0 && trigger < 0;)
        if (m->tokenBytes(Token(t)) == "a")
            trigger = Token(t);
    QVERIFY(trigger >= 0);
    const std::vector<std::vector<Token>> prompts = {
        {1, 40, 77, 5, trigger}, {1, 41, trigger}, {1, 300, 301, 302, 303, 304, trigger}, {1, trigger}};
    const GenerateResult off = solo(m, prompts[0], SpeculativeMode::SPECULATIVE_OFF, 20);
    const GenerateResult mtp = solo(m, prompts[0], SpeculativeMode::SPECULATIVE_MTP, 20);
    QVERIFY2(mtp.tokens == off.tokens,
             qPrintable(QStringLiteral("with MTP drafts: %1, without: %2").arg(describe(mtp.tokens), describe(off.tokens))));
    qInfo("scripted: %d drafted, %d accepted", mtp.timings.draftedTokens, mtp.timings.acceptedTokens);
    QVERIFY2(mtp.timings.acceptedTokens >= 8, "the block should guess the script");
    QCOMPARE(off.tokens.size(), size_t{12});   // b .. m
    QVERIFY2(mtp.timings.acceptedTokens < mtp.timings.draftedTokens, "drafts past the script's end are not taken");

    SchedulerOptions o;
    o.contextSize = 64;
    o.parallel = 4;
    o.threads = 2;
    o.batchTokens = 32;
    auto s = Scheduler::create(m, o);
    QVERIFY(s);
    std::mutex mutex;
    std::condition_variable cv;
    std::vector<GenerateResult> results(prompts.size());
    size_t done = 0;
    for (size_t i = 0; i < prompts.size(); ++i) {
        Request r;
        r.prompt = prompts[i];
        r.sampling.temperature = 0.0f;
        r.options.maxTokens = 20;
        r.options.speculative.mode = SpeculativeMode::SPECULATIVE_MTP;
        r.onDone = [&, i](const GenerateResult &res, const Status &) {
            std::lock_guard<std::mutex> lock(mutex);
            results[i] = res;
            ++done;
            cv.notify_all();
        };
        QVERIFY(s.value()->submit(std::move(r)));
    }
    {
        std::unique_lock<std::mutex> lock(mutex);
        QVERIFY(cv.wait_for(lock, std::chrono::seconds(120), [&] { return done == prompts.size(); }));
    }
    for (size_t i = 0; i < prompts.size(); ++i) {
        const GenerateResult alone = solo(m, prompts[i], SpeculativeMode::SPECULATIVE_OFF, 20);
        QVERIFY2(results[i].tokens == alone.tokens, qPrintable(QStringLiteral("prompt %1: alone %2, batched %3")
                                                                   .arg(i)
                                                                   .arg(describe(alone.tokens), describe(results[i].tokens))));
        QVERIFY(results[i].timings.acceptedTokens > 0);
    }
}

// Sampling with MTP drafts keeps the target's distribution, as the n-gram
// test does (api/tst_speculative_sampling): the scripted model at
// temperature 5 (the script's lead of about 20 logits becomes about 4: its
// next piece is likely, not certain) with the chain's top-k and a
// repetition penalty (no top-p nor min-p: before the temperature, as the
// reference orders the chain, they would leave the script's piece alone);
// replies with drafts (seeds 1..N) and without
// (seeds N+1..2N) compared position by position (chi-squared, p = 0.001);
// drafts both accepted and rejected. With the same seed, the same reply.
void TestForwardMtp::sampledKeepsTheDistribution()
{
    auto spec = mtpSpec("qwen35-tiny", "Q8_0");
    spec.shape.tiedOutput = false;
    spec.script = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n"};
    const QString path = write(spec, "sampled.gguf");
    QVERIFY2(!path.startsWith("error"), qPrintable(path));
    auto loaded = Model::load(path.toStdString());
    QVERIFY(loaded);
    const std::shared_ptr<Model> m = loaded.value();
    Token trigger = -1;
    for (uint32_t t = m->vocabSize(); t-- > 0 && trigger < 0;)
        if (m->tokenBytes(Token(t)) == "a")
            trigger = Token(t);
    const std::vector<Token> prompt = {1, 40, 77, 5, trigger};
    SessionOptions so;
    so.contextSize = 64;
    so.threads = 1;
    auto session = Session::create(m, so);
    QVERIFY(session);
    constexpr int kRuns = 300, kTokens = 8;
    const auto generate = [&](uint32_t seed, SpeculativeMode mode) {
        SamplingParams p;
        p.temperature = 5.0f;
        p.topK = 100;
        p.topP = 1.0f;
        p.minP = 0.0f;
        p.repeatPenalty = 1.05f;
        p.seed = seed;
        GenerateOptions go;
        go.maxTokens = kTokens;
        go.speculative.mode = mode;
        GenerateResult r;
        session.value()->reset();
        if (Status s = session.value()->generate(prompt, p, go, {}, &r); !s)
            qWarning("%s", s.message().c_str());
        return r;
    };
    for (uint32_t seed = 1; seed <= 10; ++seed)
        QCOMPARE(generate(seed, SpeculativeMode::SPECULATIVE_MTP).tokens, generate(seed, SpeculativeMode::SPECULATIVE_OFF).tokens);
    std::vector<std::map<Token, int>> withDrafts(kTokens), without(kTokens);
    int drafted = 0, accepted = 0;
    for (int i = 0; i < kRuns; ++i) {
        const GenerateResult a = generate(static_cast<uint32_t>(1 + i), SpeculativeMode::SPECULATIVE_MTP);
        const GenerateResult b = generate(static_cast<uint32_t>(1 + kRuns + i), SpeculativeMode::SPECULATIVE_OFF);
        drafted += a.timings.draftedTokens;
        accepted += a.timings.acceptedTokens;
        for (size_t j = 0; j < a.tokens.size() && j < size_t(kTokens); ++j)
            ++withDrafts[j][a.tokens[j]];
        for (size_t j = 0; j < b.tokens.size() && j < size_t(kTokens); ++j)
            ++without[j][b.tokens[j]];
    }
    qInfo("%d MTP draft tokens, %d accepted", drafted, accepted);
    QVERIFY2(accepted > 0 && accepted < drafted, "drafts were both accepted and rejected");
    for (int j = 0; j < kTokens; ++j) {
        double stat = 0;
        int df = 0;
        const bool ok = test::homogeneous(withDrafts[size_t(j)], without[size_t(j)], &stat, &df);
        QVERIFY2(ok, qPrintable(QStringLiteral("token %1: chi-squared %2, %3 degrees of freedom").arg(j).arg(stat).arg(df)));
    }
}

// auto drafts with the block where the file has one (the same drafts as
// mtp); a file without one refuses mtp and drafts by n-gram lookup on auto.
void TestForwardMtp::modes()
{
    const QString withPath = write(mtpSpec("qwen35-tiny", "Q8_0"), "modes-mtp.gguf");
    auto plainSpec = mtpSpec("qwen35-tiny", "Q8_0");
    plainSpec.shape.nextnLayers = 0;
    const QString withoutPath = write(plainSpec, "modes-plain.gguf");
    auto with = Model::load(withPath.toStdString());
    auto without = Model::load(withoutPath.toStdString());
    QVERIFY(with && without);
    const std::vector<Token> prompt = with.value()->tokenize(kPrompts[0], true, false);
    const GenerateResult a = solo(with.value(), prompt, SpeculativeMode::SPECULATIVE_AUTO, 16);
    const GenerateResult b = solo(with.value(), prompt, SpeculativeMode::SPECULATIVE_MTP, 16);
    QCOMPARE(a.tokens, b.tokens);
    QCOMPARE(a.timings.draftedTokens, b.timings.draftedTokens);
    QCOMPARE(a.timings.acceptedTokens, b.timings.acceptedTokens);
    QVERIFY(b.timings.draftedTokens > 0);

    SessionOptions so;
    so.contextSize = 64;
    so.threads = 2;
    auto session = Session::create(without.value(), so);
    QVERIFY(session);
    GenerateOptions go;
    go.maxTokens = 4;
    go.speculative.mode = SpeculativeMode::SPECULATIVE_MTP;
    GenerateResult r;
    const Status st = session.value()->generate(prompt, SamplingParams{}, go, {}, &r);
    QVERIFY(!st);
    QVERIFY2(QString::fromStdString(st.message()).contains("no multi-token-prediction layers"), st.message().c_str());

    // burrow-cli run --spec mtp: the same text as --spec off, a drafts line;
    // a file without the block exits 1 naming why.
    const auto run = [](const QString &model, const char *spec) {
        return test::runCli({"run", "-m", model, "-p", kPrompts[1], "-n", "16", "--temp", "0", "-t", "2", "--spec", spec});
    };
    const test::ProcessResult off = run(withPath, "off"), mtp = run(withPath, "mtp");
    QCOMPARE(off.exitCode, 0);
    QCOMPARE(mtp.exitCode, 0);
    QCOMPARE(mtp.out, off.out);
    QVERIFY2(mtp.err.contains("drafts:"), mtp.err.constData());
    const test::ProcessResult refused = run(withoutPath, "mtp");
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.err.contains("no multi-token-prediction layers"), refused.err.constData());
}

void TestForwardMtp::malformedRefused_data()
{
    QTest::addColumn<QString>("tensor");
    QTest::addColumn<QList<int>>("dims");   // empty: left out
    QTest::addColumn<QString>("message");
    QTest::newRow("eh_proj [E, E]") << "blk.4.nextn.eh_proj.weight" << QList<int>{256, 256}
                                    << "tensor 'blk.4.nextn.eh_proj.weight' has shape [256, 256], expected [512, 256]";
    QTest::newRow("no enorm") << "blk.4.nextn.enorm.weight" << QList<int>{}
                              << "missing tensor 'blk.4.nextn.enorm.weight'";
    QTest::newRow("hnorm [E/2]") << "blk.4.nextn.hnorm.weight" << QList<int>{128}
                                 << "tensor 'blk.4.nextn.hnorm.weight' has shape [128], expected [256]";
    QTest::newRow("shared_head_norm [E/2]") << "blk.4.nextn.shared_head_norm.weight" << QList<int>{128}
                                            << "tensor 'blk.4.nextn.shared_head_norm.weight' has shape [128]";
    QTest::newRow("no attn_q in the block") << "blk.4.attn_q.weight" << QList<int>{}
                                            << "missing tensor 'blk.4.attn_q.weight'";
}

void TestForwardMtp::malformedRefused()
{
    QFETCH(QString, tensor);
    QFETCH(QList<int>, dims);
    QFETCH(QString, message);
    auto spec = mtpSpec("qwen35-tiny", "F32");
    if (dims.isEmpty()) {
        spec.dropTensors.insert(tensor.toStdString());
    } else {
        std::vector<int64_t> d;
        for (int x : dims)
            d.push_back(x);
        spec.tensorShapes[tensor.toStdString()] = d;
    }
    const QString path = write(spec, "broken.gguf");
    QVERIFY2(!path.startsWith("error"), qPrintable(path));
    auto m = Model::load(path.toStdString());
    QVERIFY(!m);
    QVERIFY2(QString::fromStdString(m.status().message()).contains(message), m.status().message().c_str());
}

QTEST_MAIN(TestForwardMtp)
#include "tst_forward_mtp.moc"
