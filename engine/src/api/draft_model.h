// DraftModel: a smaller model with the target's vocabulary, loaded beside
// it to guess the next tokens of each generating sequence (speculative
// decoding's "draft model" drafter, SpeculativeMode::SPECULATIVE_DRAFT).
// The scheduler verifies the guesses in its one batched pass.
//
// It has its own paged KV cache (one sequence per scheduler slot, the whole
// context each) and its own forward pass over the scheduler's thread pool;
// only the scheduler's thread calls draft(). Per slot it remembers the
// tokens its cache holds; each draft() first cuts that back to the longest
// prefix shared with the sequence's tokens now (a rejected draft, a new
// request in the slot, a shift: one rule) and computes the rest (catch-up,
// at most maxBatch rows per call, over several steps for a long prompt;
// a sequence still behind drafts nothing this step), then drafts token by
// token, every drafting sequence in one pass per token.
//
// A draft token is the draft model's argmax (q a point mass: the scheduler
// accepts it when its sampler picks it), or, with a job's sampler chain, a
// draw from the draft's distribution q under that chain, which is recorded
// for the speculative-sampling rule (sampling::Chain::sampleAgainst).
//
// Costs per step: the catch-up rows, then k passes of one row per drafting
// sequence through the draft model. Memory: its weights (mapped) plus
// KvCache bytes for contextSize x slots positions (bytes()).
#pragma once

#include "api/model_impl.h"
#include "sampling/candidates.h"

#include <functional>
#include <memory>
#include <vector>

namespace burrow::runtime {
class Forward;
class KvCache;
class ThreadPool;
}

namespace burrow::sampling {
class Chain;
}

namespace burrow::api {

class DraftModel {
public:
    // draft: loaded; target: the model it drafts for (the vocabularies are
    // compared: an error naming the first difference). contextSize, slots,
    // maxBatch, flash and cell type as the scheduler's (contextSize clamped
    // to the draft's trained context: a sequence longer than that drafts nothing).
    static Result<std::unique_ptr<DraftModel>> create(std::shared_ptr<const ModelImpl> draft, const ModelImpl &target,
                                                      uint32_t contextSize, uint32_t slots, int maxBatch,
                                                      runtime::ThreadPool &pool, bool flash, GgmlType cellType);
    ~DraftModel();

    const std::string &path() const { return m_model->info().path; }
    uint32_t vocabSize() const { return m_model->config().nVocab; }
    uint64_t kvBytes() const;

    // One sequence's request for drafts.
    struct Job {
        uint32_t slot = 0;
        const std::vector<Token> *tokens = nullptr;   // the sequence; its last token is not in the target's cache yet
        int want = 0;                                 // drafts wanted (> 0)
        sampling::Chain *chain = nullptr;             // null: argmax; else drawn with it (q recorded)
        std::vector<Token> *out = nullptr;            // the drafts (cleared first; may end up shorter or empty)
        std::vector<std::vector<sampling::Candidate>> *q = nullptr;   // with chain: q of each draft
    };
    // Drafts for every job (see the file comment). A failure of the draft's
    // forward pass (memory) leaves the drafts empty: plain decoding goes on.
    // cancelled: read between passes.
    void draft(std::vector<Job> &jobs, const std::function<bool()> &cancelled);

private:
    DraftModel() = default;
    // Cuts slot's cache back to what it shares with tokens; the length kept.
    uint32_t reconcile(uint32_t slot, const std::vector<Token> &tokens);
    // Picks job's next draft from a logits row; false when it ends there.
    bool pick(Job &job, const float *logits);

    std::shared_ptr<const ModelImpl> m_model;
    uint32_t m_targetVocab = 0;
    std::unique_ptr<runtime::KvCache> m_cache;
    std::unique_ptr<runtime::Forward> m_forward;
    int m_maxBatch = 0;
    std::vector<std::vector<Token>> m_held;   // per slot: the tokens its cache holds
    std::vector<float> m_logits;              // [slots, nVocab]
    std::vector<Token> m_rows;                // [maxBatch]
};

} // namespace burrow::api
