// Sampler stages: each one small, separate and testable on fixed logits.
//
// A Stage narrows or rewrites a CandidateArray (apply), learns from the token
// finally chosen (accept) and forgets its history (reset), like the reference
// engine's llama_sampler_i {name, apply, accept, reset}. Stages that need
// scratch space reserve it in their constructor for the vocabulary size, so
// apply() never allocates. Semantics follow llama.cpp c392e50
// (src/llama-sampling.cpp); deviations are stated at the stage.
//
// Selecting stages (Dist, Greedy, MirostatV2, Mirostat) set `selected`; every
// other stage leaves it alone.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "sampling/candidates.h"

namespace burrow::sampling {

// The seed value that means "random" (the reference's LLAMA_DEFAULT_SEED).
inline constexpr uint32_t kRandomSeed = 0xFFFFFFFFu;

// `seed` itself, or for kRandomSeed a fresh value from std::random_device
// (from the clock when the device reports zero entropy).
uint32_t resolveSeed(uint32_t seed);

class Stage {
public:
    virtual ~Stage() = default;
    virtual const char *name() const = 0;
    virtual void apply(CandidateArray &candidates) = 0;
    virtual void accept(Token /*token*/) {}
    virtual void reset() {}
};

// Repetition, frequency and presence penalties over the last `lastN` accepted
// tokens. For a candidate seen `count` > 0 times in the window:
//   logit <= 0 ? logit *= repeat : logit /= repeat;  logit -= count*freq + presence.
// lastN == 0 disables (accept() records nothing). Memory: 2 x vocabSize
// ints + lastN ring; accept() is O(1), apply() O(lastN) on the whole
// vocabulary in id order (else O(size)). Token ids outside [0, vocabSize)
// are ignored.
class Penalties final : public Stage {
public:
    Penalties(uint32_t vocabSize, int32_t lastN, float repeat, float frequency, float presence);
    const char *name() const override { return "penalties"; }
    void apply(CandidateArray &candidates) override;
    void accept(Token token) override;
    void reset() override;

    // How many times `token` is in the window (0 for unknown ids).
    int32_t count(Token token) const;
    size_t windowSize() const { return m_windowSize; }

private:
    void penalize(Candidate &candidate, int32_t count) const;

    int32_t m_lastN;
    float m_repeat, m_frequency, m_presence;
    std::vector<int32_t> m_counts;   // [vocabSize]
    std::vector<uint32_t> m_seen;    // [vocabSize] epoch stamps: token already penalized in this apply()
    uint32_t m_epoch = 0;
    std::vector<Token> m_ring;       // [lastN], oldest at m_first
    size_t m_first = 0;
    size_t m_windowSize = 0;
};

// Keeps the k highest logits (sorted descending). k <= 0: off.
class TopK final : public Stage {
public:
    explicit TopK(int32_t k) : m_k(k) {}
    const char *name() const override { return "top-k"; }
    void apply(CandidateArray &candidates) override;

private:
    int32_t m_k;
};

// Locally typical sampling: sorts candidates by |(-ln p) - H| (H = entropy)
// and keeps the smallest such set whose probability mass exceeds p (and at
// least max(minKeep, 1) tokens). May drop the most likely token; leaves the
// array unsorted. p >= 1: off. Deviation: at c392e50 the reference compared
// `i >= minKeep - 1` in size_t, so with its default minKeep 0 the stage never
// truncated; we keep at least one token instead (upstream's later fix).
class TypicalP final : public Stage {
public:
    TypicalP(float p, size_t minKeep, uint32_t vocabSize);
    const char *name() const override { return "typical"; }
    void apply(CandidateArray &candidates) override;

private:
    float m_p;
    size_t m_minKeep;
    std::vector<float> m_scores;        // [vocabSize] scratch
    std::vector<uint32_t> m_order;      // [vocabSize] scratch
    std::vector<Candidate> m_copy;      // [vocabSize] scratch
};

// Nucleus: keeps the smallest prefix (by probability, descending) whose
// cumulative probability is >= p and that has at least minKeep tokens.
// p >= 1: off. Always keeps at least the most likely token. Leaves the
// survivors sorted. Cost on unsorted input: a softmax, then partial sorts of
// 256, 1024, ... candidates until the nucleus is complete (O(n log m) for a
// nucleus of m), instead of sorting everything.
class TopP final : public Stage {
public:
    TopP(float p, size_t minKeep) : m_p(p), m_minKeep(minKeep) {}
    const char *name() const override { return "top-p"; }
    void apply(CandidateArray &candidates) override;

private:
    float m_p;
    size_t m_minKeep;
};

// Keeps tokens with p >= minP * p_max, i.e. logit >= max_logit + ln(minP),
// and at least minKeep tokens (and always the most likely one). Unsorted
// input keeps its order. minP <= 0: off.
class MinP final : public Stage {
public:
    MinP(float p, size_t minKeep) : m_p(p), m_minKeep(minKeep) {}
    const char *name() const override { return "min-p"; }
    void apply(CandidateArray &candidates) override;

private:
    float m_p;
    size_t m_minKeep;
};

// Divides every logit by t. t <= 0: keeps the first highest logit and sets
// every other to -infinity (so a following Dist picks the argmax).
class Temperature final : public Stage {
public:
    explicit Temperature(float t) : m_t(t) {}
    const char *name() const override { return "temp"; }
    void apply(CandidateArray &candidates) override;

private:
    float m_t;
};

// Draws one token from the softmax of the live candidates with a std::mt19937
// seeded from `seed` (kRandomSeed: random). The draw is the one
// std::discrete_distribution<int> makes on libstdc++ (sorted descending
// probabilities, normalized in double, cumulative sums, first cumulative >= a
// std::generate_canonical<double, 53> draw; a single candidate draws nothing),
// computed in a reserved buffer so it does not allocate.
class Dist final : public Stage {
public:
    Dist(uint32_t seed, uint32_t vocabSize);
    const char *name() const override { return "dist"; }
    void apply(CandidateArray &candidates) override;
    void reset() override;                      // reseeds (a new random seed for kRandomSeed)
    uint32_t seedUsed() const { return m_seedUsed; }

    // Speculative sampling (Leviathan et al. 2023) of a draft token drawn
    // from the distribution q (q[0..nq): ids and p, summing to 1): with p
    // the softmax of `candidates` (what apply() would draw from), selects
    // the draft with probability min(1, p(draft) / q(draft)), else a token
    // drawn from max(0, p - q) normalised (p itself if that is all zero).
    // The selected token is distributed as p exactly, whatever q is. Draws
    // one or two uniform numbers from this stage's generator; O(n + nq).
    void applyAgainst(CandidateArray &candidates, Token draft, const Candidate *q, size_t nq);

private:
    uint32_t m_seed, m_seedUsed;
    std::mt19937 m_rng;
    std::vector<double> m_cumulative;           // [vocabSize] scratch
    std::vector<float> m_q;                     // [vocabSize] q by id, zero between calls (first use allocates)
};

// Selects the first candidate with the highest logit.
class Greedy final : public Stage {
public:
    const char *name() const override { return "greedy"; }
    void apply(CandidateArray &candidates) override;
};

// Index drawn from p[0..n) as libstdc++'s std::discrete_distribution<int> draws
// it; `cumulative` must hold n doubles. Shared by Dist and the mirostats.
size_t drawDiscrete(const Candidate *data, size_t n, double *cumulative, std::mt19937 &rng);

// Mirostat 2.0: softmax; drops candidates whose surprise -log2(p) exceeds mu
// (keeping at least the most likely one); softmax again; draws; then
// mu -= eta * (surprise of the drawn token - tau). mu starts at 2*tau;
// reset() restores it and reseeds. Unsorted input is filtered before the
// survivors are sorted (same result as sorting first).
class MirostatV2 final : public Stage {
public:
    MirostatV2(uint32_t seed, float tau, float eta, uint32_t vocabSize);
    const char *name() const override { return "mirostat-v2"; }
    void apply(CandidateArray &candidates) override;
    void reset() override;
    float mu() const { return m_mu; }
    uint32_t seedUsed() const { return m_seedUsed; }

private:
    uint32_t m_seed, m_seedUsed;
    float m_tau, m_eta, m_mu;
    std::mt19937 m_rng;
    std::vector<double> m_cumulative;
};

// Mirostat 1.0: estimates the Zipf exponent s from the top m probabilities,
// derives k = ((s-1) 2^mu / (1 - n^(1-s)))^(1/s), keeps the top k, softmax,
// draws, then mu -= eta * (surprise - tau). n = vocabSize, m = 100 (the
// reference's values). mu starts at 2*tau.
class Mirostat final : public Stage {
public:
    Mirostat(uint32_t seed, float tau, float eta, uint32_t vocabSize, int32_t m = 100);
    const char *name() const override { return "mirostat"; }
    void apply(CandidateArray &candidates) override;
    void reset() override;
    float mu() const { return m_mu; }
    uint32_t seedUsed() const { return m_seedUsed; }

private:
    uint32_t m_seed, m_seedUsed;
    float m_tau, m_eta, m_mu;
    uint32_t m_vocabSize;
    int32_t m_m;
    std::mt19937 m_rng;
    std::vector<double> m_cumulative;
};

} // namespace burrow::sampling
