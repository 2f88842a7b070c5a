#include "sampling/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace burrow::sampling {

namespace {

Status checkFinite(const char *field, float value)
{
    if (!std::isfinite(value))
        return Status::error(std::string("sampling: ") + field + " is " + std::to_string(value)
                             + ", expected a finite number");
    return Status::ok();
}

Status checkRange(const char *field, float value, float low, float high, const char *expected)
{
    Status status = checkFinite(field, value);
    if (!status)
        return status;
    if (value < low || value > high)
        return Status::error(std::string("sampling: ") + field + " is " + std::to_string(value)
                             + ", expected " + expected);
    return Status::ok();
}

// Reference's default min_keep.
constexpr size_t kMinKeep = 0;

} // namespace

Status validateSamplingParams(const SamplingParams &p)
{
    const float inf = INFINITY;
    Status s;
    if (!(s = checkFinite("temperature", p.temperature)))
        return s;
    if (!(s = checkRange("top_p", p.topP, 0.0f, inf, "a value in [0, 1] (1 = off)")))
        return s;
    if (!(s = checkRange("min_p", p.minP, 0.0f, 1.0f, "a value in [0, 1] (0 = off)")))
        return s;
    if (!(s = checkRange("typical_p", p.typicalP, 0.0f, inf, "a value in [0, 1] (1 = off)")))
        return s;
    if (!(s = checkFinite("repeat_penalty", p.repeatPenalty)))
        return s;
    if (p.repeatPenalty <= 0.0f)
        return Status::error("sampling: repeat_penalty is " + std::to_string(p.repeatPenalty)
                             + ", expected a value > 0 (1 = off)");
    if (p.penaltyLastN < -1)
        return Status::error("sampling: penalty_last_n is " + std::to_string(p.penaltyLastN)
                             + ", expected -1 (whole context), 0 (off) or a token count");
    if (!(s = checkFinite("frequency_penalty", p.frequencyPenalty)))
        return s;
    if (!(s = checkFinite("presence_penalty", p.presencePenalty)))
        return s;
    if (p.mirostat < 0 || p.mirostat > 2)
        return Status::error("sampling: mirostat is " + std::to_string(p.mirostat)
                             + ", expected 0 (off), 1 or 2");
    if (!(s = checkRange("mirostat_tau", p.mirostatTau, 0.0f, inf, "a value >= 0")))
        return s;
    if (!(s = checkRange("mirostat_eta", p.mirostatEta, 0.0f, inf, "a value >= 0")))
        return s;
    return Status::ok();
}

Result<std::unique_ptr<Chain>> Chain::create(const SamplingParams &params, uint32_t vocabSize,
                                             uint32_t contextSize)
{
    if (vocabSize == 0)
        return Status::error("sampling: vocabulary size is 0, expected at least one token");
    if (Status s = validateSamplingParams(params); !s)
        return s;

    if (params.logprobs < 0 || params.logprobs > 20)
        return Status::error("sampling: logprobs is " + std::to_string(params.logprobs) + ", expected 0 to 20");
    std::unique_ptr<Chain> chain(new Chain());
    chain->m_vocabSize = vocabSize;
    if (params.grammar) {
        if (params.grammar->vocab->vocabSize != vocabSize)
            return Status::error("sampling: the grammar was compiled for a vocabulary of " +
                                 std::to_string(params.grammar->vocab->vocabSize) + " tokens, not " +
                                 std::to_string(vocabSize));
        chain->m_constraint = std::make_unique<grammar::TokenConstraint>(params.grammar);
    }
    chain->m_recordLogprobs = params.logprobs > 0 || params.recordLogprobs;
    chain->m_topLogprobs = params.logprobs;
    chain->m_greedy = params.mirostat == 0 && params.temperature <= 0.0f;
    // Greedy with nothing that can move a logit or drop the argmax (no
    // penalty, no typical stage, no grammar) and nothing recorded: the
    // token is the argmax of the row itself (sampleArgmax).
    const bool penaltiesInert = params.penaltyLastN == 0 || (params.repeatPenalty == 1.0f &&
                                                             params.frequencyPenalty == 0.0f &&
                                                             params.presencePenalty == 0.0f);
    chain->m_plainArgmax = chain->m_greedy && penaltiesInert && params.typicalP >= 1.0f && !params.grammar &&
                           !chain->m_recordLogprobs;
    chain->m_buffer.resize(vocabSize);
    auto &stages = chain->m_stages;

    if (params.mirostat == 0) {
        const int32_t lastN = params.penaltyLastN == -1 ? static_cast<int32_t>(contextSize) : params.penaltyLastN;
        stages.push_back(std::make_unique<Penalties>(vocabSize, lastN, params.repeatPenalty,
                                                     params.frequencyPenalty, params.presencePenalty));
        if (params.temperature > 0.0f) {
            stages.push_back(std::make_unique<TopK>(params.topK));
            stages.push_back(std::make_unique<TypicalP>(params.typicalP, kMinKeep, vocabSize));
            stages.push_back(std::make_unique<TopP>(params.topP, kMinKeep));
            stages.push_back(std::make_unique<MinP>(params.minP, kMinKeep));
            stages.push_back(std::make_unique<Temperature>(params.temperature));
            auto dist = std::make_unique<Dist>(params.seed, vocabSize);
            chain->m_dist = dist.get();
            stages.push_back(std::move(dist));
        } else {
            if (params.typicalP < 1.0f) {
                stages.push_back(std::make_unique<TopK>(params.topK));
                stages.push_back(std::make_unique<TypicalP>(params.typicalP, kMinKeep, vocabSize));
            }
            stages.push_back(std::make_unique<Greedy>());
        }
    } else {
        stages.push_back(std::make_unique<Temperature>(params.temperature));
        if (params.mirostat == 2)
            stages.push_back(std::make_unique<MirostatV2>(params.seed, params.mirostatTau, params.mirostatEta, vocabSize));
        else
            stages.push_back(std::make_unique<Mirostat>(params.seed, params.mirostatTau, params.mirostatEta, vocabSize));
    }
    return chain;
}

void Chain::load(const float *logits)
{
    Candidate *data = m_buffer.data();
    // A NaN logit (a broken model) would break the sorts' ordering; it becomes
    // -infinity, a token that is never drawn.
    const float negInf = -std::numeric_limits<float>::infinity();
    for (uint32_t i = 0; i < m_vocabSize; ++i) {
        const float logit = logits[i];
        data[i] = Candidate{static_cast<Token>(i), std::isnan(logit) ? negInf : logit, 0.0f};
    }
    m_view = CandidateArray{data, m_vocabSize, -1, false};
}

Token Chain::runStages()
{
    for (auto &stage : m_stages)
        stage->apply(m_view);
    // Every chain ends in a selecting stage; should it select nothing, the
    // first live candidate is taken rather than reading out of range.
    if (m_view.selected < 0 || static_cast<size_t>(m_view.selected) >= m_view.size)
        m_view.selected = 0;
    return m_view.data[m_view.selected].id;
}

void Chain::keepAllowed(const std::vector<uint64_t> &mask)
{
    size_t kept = 0;
    for (size_t i = 0; i < m_view.size; ++i)
        if (grammar::TokenConstraint::allowed(mask, m_view.data[i].id))
            m_view.data[kept++] = m_view.data[i];
    m_view.size = kept;
}

Token Chain::sampleArgmax(const float *logits)
{
    // The first highest logit in id order, NaN never chosen: what load() +
    // Greedy pick (load turns NaN into -infinity; argmaxIndex keeps the
    // first of equal maxima; token 0 when nothing beats -infinity).
    // Two passes, both without a loop-carried compare chain: the maximum in
    // 16 independent lanes (x > m ? x : m never takes a NaN: a max
    // instruction per lane), then the first index holding it.
    const float negInf = -std::numeric_limits<float>::infinity();
    constexpr uint32_t kLanes = 16;
    float lane[kLanes];
    std::fill(lane, lane + kLanes, negInf);
    uint32_t i = 0;
    for (; i + kLanes <= m_vocabSize; i += kLanes)
        for (uint32_t j = 0; j < kLanes; ++j)
            lane[j] = logits[i + j] > lane[j] ? logits[i + j] : lane[j];
    float bestLogit = negInf;
    for (; i < m_vocabSize; ++i)
        bestLogit = logits[i] > bestLogit ? logits[i] : bestLogit;
    for (uint32_t j = 0; j < kLanes; ++j)
        bestLogit = lane[j] > bestLogit ? lane[j] : bestLogit;
    uint32_t best = 0;   // nothing above -infinity (all NaN or -infinity): token 0
    if (bestLogit > negInf)
        while (logits[best] != bestLogit)
            ++best;
    m_buffer[0] = Candidate{static_cast<Token>(best), std::isnan(logits[best]) ? negInf : logits[best], 0.0f};
    m_view = CandidateArray{m_buffer.data(), 1, 0, true};
    m_sampled = true;
    return static_cast<Token>(best);
}

Token Chain::sample(const float *logits)
{
    if (m_plainArgmax)
        return sampleArgmax(logits);
    load(logits);
    Token token = runStages();
    if (m_constraint && !m_constraint->allows(token)) {
        load(logits);
        keepAllowed(m_constraint->mask());
        if (m_view.size == 0) {
            // Nothing continues the grammar (a schema bound was hit): end the reply.
            const Token end = m_constraint->endToken();
            m_sampled = true;
            m_last = TokenLogprobs{end >= 0 ? end : token, 0.0f, {}};
            return end >= 0 ? end : token;
        }
        token = runStages();
    }
    m_sampled = true;
    if (m_recordLogprobs)
        computeLogprobs(token);
    return token;
}

Token Chain::sampleAgainst(const float *logits, Token draft, const Candidate *q, size_t nq)
{
    load(logits);
    for (size_t i = 0; i + 1 < m_stages.size(); ++i)   // every stage but the final draw
        m_stages[i]->apply(m_view);
    m_dist->applyAgainst(m_view, draft, q, nq);
    if (m_view.selected < 0 || static_cast<size_t>(m_view.selected) >= m_view.size)
        m_view.selected = 0;
    const Token token = m_view.data[m_view.selected].id;
    m_sampled = true;
    if (m_recordLogprobs)
        computeLogprobs(token);
    return token;
}

void Chain::computeLogprobs(Token token)
{
    m_last = TokenLogprobs{token, 0.0f, {}};
    const size_t n = m_view.size;
    if (n == 0)
        return;
    const size_t k = std::min<size_t>(static_cast<size_t>(m_topLogprobs), n);
    if (!m_greedy && m_view.sorted && m_view.data[0].p > 0.0f) {
        // The final stage's probabilities (sorted, most likely first).
        for (size_t i = 0; i < n; ++i)
            if (m_view.data[i].id == token)
                m_last.logprob = std::log(std::max(m_view.data[i].p, 1e-30f));
        for (size_t i = 0; i < k; ++i)
            m_last.top.push_back({m_view.data[i].id, std::log(std::max(m_view.data[i].p, 1e-30f))});
        return;
    }
    // The softmax of the logits the chain saw: log p = l - max - log(sum exp(l - max)).
    float max = -std::numeric_limits<float>::infinity();
    for (size_t i = 0; i < n; ++i)
        max = std::max(max, m_view.data[i].logit);
    double sum = 0;
    for (size_t i = 0; i < n; ++i)
        sum += std::exp(static_cast<double>(m_view.data[i].logit - max));
    const float logSum = static_cast<float>(std::log(sum));
    for (size_t i = 0; i < n; ++i)
        if (m_view.data[i].id == token)
            m_last.logprob = m_view.data[i].logit - max - logSum;
    if (k > 0) {
        sortHead(m_view, k);   // the k highest logits first (order of the rest unspecified)
        for (size_t i = 0; i < k; ++i)
            m_last.top.push_back({m_view.data[i].id, m_view.data[i].logit - max - logSum});
    }
}

void Chain::accept(Token token)
{
    for (auto &stage : m_stages)
        stage->accept(token);
    if (m_constraint && m_sampled)
        m_constraint->accept(token);
    m_sampled = false;
}

void Chain::reset()
{
    for (auto &stage : m_stages)
        stage->reset();
    if (m_constraint)
        m_constraint->reset();
    m_sampled = false;
}

std::string Chain::stageNames() const
{
    std::string names;
    for (const auto &stage : m_stages) {
        if (!names.empty())
            names += ' ';
        names += stage->name();
    }
    return names;
}

uint32_t Chain::seedUsed() const
{
    for (const auto &stage : m_stages) {
        if (auto *dist = dynamic_cast<const Dist *>(stage.get()))
            return dist->seedUsed();
        if (auto *v2 = dynamic_cast<const MirostatV2 *>(stage.get()))
            return v2->seedUsed();
        if (auto *v1 = dynamic_cast<const Mirostat *>(stage.get()))
            return v1->seedUsed();
    }
    return 0;
}

} // namespace burrow::sampling
