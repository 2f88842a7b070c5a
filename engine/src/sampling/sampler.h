// The sampler chain: picks the next token from a row of logits.
//
// Built from burrow::SamplingParams in the reference engine's order
// (llama.cpp c392e50, common/sampling.cpp):
//   mirostat 0, temperature > 0:  penalties -> top-k -> typical -> top-p -> min-p -> temp -> dist
//   mirostat 0, temperature <= 0: penalties [-> top-k -> typical, only when typical < 1] -> greedy
//       (the reference runs the full chain with temp <= 0 = "argmax only"; top-k,
//        top-p and min-p never drop the argmax, typical can, so this is the same token)
//   mirostat 2:                   temp -> mirostat-v2     (no penalties, as in the reference)
//   mirostat 1:                   temp -> mirostat
// Disabled stages stay in the chain and return at once (see stageNames()).
//
// Usage in a generate loop (one thread):
//   auto chain = sampling::Chain::create(params, model.vocabSize(), contextSize);
//   for (Token t : prompt) chain->accept(t);      // penalties see the prompt, as in llama.cpp's main
//   loop { Token t = chain->sample(logits); chain->accept(t); ... }
//   chain->reset();                               // before an unrelated generation
//
// Cost per token: O(V) to load the candidates plus the stages' sorts (top-k
// partial sort; softmax-based stages sort what is left); a plain greedy
// chain (plainArgmax()) reads the row once and copies nothing. No allocation after
// create(): the candidates and every stage's scratch are reserved for V.
//
// Grammar (SamplingParams::grammar): the chain samples as usual, then checks
// the token against the grammar (O(its bytes)); only when the grammar
// refuses it are the candidates reloaded, the refused tokens removed (the
// grammar's mask, cached per state) and the stages run again. accept() after
// a sample() advances the grammar; accept() of prompt tokens (before the
// first sample()) does not.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "burrow/engine.h"
#include "burrow/status.h"
#include "grammar/token_constraint.h"
#include "sampling/candidates.h"
#include "sampling/stages.h"

namespace burrow::sampling {

// Checks ranges: finite values; minP in [0, 1]; topP, typicalP >= 0 (>= 1 =
// off); repeatPenalty > 0; penaltyLastN >= -1; mirostat 0, 1 or 2;
// mirostatTau >= 0, mirostatEta >= 0. The message names the field and value.
Status validateSamplingParams(const SamplingParams &params);

class Chain {
public:
    // vocabSize: length of every logits row (> 0). contextSize: what
    // penaltyLastN = -1 means. Fails on invalid params (validateSamplingParams).
    static Result<std::unique_ptr<Chain>> create(const SamplingParams &params, uint32_t vocabSize,
                                                 uint32_t contextSize);

    // Runs the stages over logits[0..vocabSize) and returns the chosen token.
    // Does not accept it: call accept() with the token actually used.
    Token sample(const float *logits);

    // Speculative sampling against a draft token drawn from q (ids and p,
    // summing to 1; see Dist::applyAgainst): the token this chain picks,
    // distributed exactly as sample()'s, equal to `draft` as often as
    // min(1, p/q) allows. Only when canSampleAgainst(); like sample(), call
    // accept() with the token used.
    bool canSampleAgainst() const { return m_dist != nullptr && !m_constraint; }
    Token sampleAgainst(const float *logits, Token draft, const Candidate *q, size_t nq);

    // Records a token in the stages' history (penalty window).
    void accept(Token token);

    // Forgets the history, restores mirostat's mu and reseeds (a new random
    // seed when the seed is 0xFFFFFFFF).
    void reset();

    // The candidates as the last sample() left them (size, order, p, selected).
    // A plain greedy chain (plainArgmax()) leaves the chosen token alone.
    const CandidateArray &candidates() const { return m_view; }
    // Greedy with no penalty, typical stage, grammar or logprobs: sample()
    // is one pass over the row for its first highest logit (NaN never
    // chosen), without loading the candidates. Same token as the stages.
    bool plainArgmax() const { return m_plainArgmax; }
    // With SamplingParams::logprobs / recordLogprobs: the last sample()'s
    // token, its log-probability and the top alternatives, from the
    // distribution the draw used (the final stage's probabilities; for a
    // greedy chain the softmax of the logits the chain saw, penalties and
    // the grammar mask applied). Empty entry otherwise.
    bool recordsLogprobs() const { return m_recordLogprobs; }
    const TokenLogprobs &lastLogprobs() const { return m_last; }
    // The grammar's state, when SamplingParams::grammar was given (null otherwise).
    const grammar::TokenConstraint *constraint() const { return m_constraint.get(); }
    // Stage names in order, e.g. "penalties top-k typical top-p min-p temp dist".
    std::string stageNames() const;
    const std::vector<std::unique_ptr<Stage>> &stages() const { return m_stages; }
    // The seed actually in use (resolved from 0xFFFFFFFF), 0 for greedy chains.
    uint32_t seedUsed() const;
    uint32_t vocabSize() const { return m_vocabSize; }

private:
    Chain() = default;
    void load(const float *logits);
    Token runStages();
    Token sampleArgmax(const float *logits);
    void keepAllowed(const std::vector<uint64_t> &mask);
    void computeLogprobs(Token token);

    uint32_t m_vocabSize = 0;
    std::unique_ptr<grammar::TokenConstraint> m_constraint;
    bool m_sampled = false;          // sample() ran since the last accept(): the grammar takes the next accept
    bool m_recordLogprobs = false;
    int32_t m_topLogprobs = 0;
    bool m_greedy = false;
    bool m_plainArgmax = false;      // sample() is sampleArgmax()
    Dist *m_dist = nullptr;          // the final stage when it is a plain draw (temperature > 0, no mirostat)
    TokenLogprobs m_last;
    std::vector<std::unique_ptr<Stage>> m_stages;
    std::vector<Candidate> m_buffer;     // [vocabSize], reused every token
    CandidateArray m_view;
};

} // namespace burrow::sampling
