#include "sampling/sampler.h"

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

    std::unique_ptr<Chain> chain(new Chain());
    chain->m_vocabSize = vocabSize;
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
            stages.push_back(std::make_unique<Dist>(params.seed, vocabSize));
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

Token Chain::sample(const float *logits)
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

    for (auto &stage : m_stages)
        stage->apply(m_view);

    // Every chain ends in a selecting stage; should it select nothing, the
    // first live candidate is taken rather than reading out of range.
    if (m_view.selected < 0 || static_cast<size_t>(m_view.selected) >= m_view.size)
        m_view.selected = 0;
    return m_view.data[m_view.selected].id;
}

void Chain::accept(Token token)
{
    for (auto &stage : m_stages)
        stage->accept(token);
}

void Chain::reset()
{
    for (auto &stage : m_stages)
        stage->reset();
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
