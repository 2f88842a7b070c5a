// AssistantDrafter: Gemma 4's multi-token-prediction drafter, a
// gemma4-assistant file loaded beside a gemma4 model (speculative decoding's
// MTP drafter for Gemma 4: SpeculativeMode::SPECULATIVE_MTP or
// SPECULATIVE_DRAFT with SpeculativeOptions::draftModel naming the file).
//
// It keeps no KV cache: its layers read the target's (the scheduler's) —
// each sliding layer the keys and values of the target's block n - 2, each
// global layer those of block n - 1 (through their shared-KV sources), as
// the reference's llama-model.cpp shares them (mem_other) — and its input is
// the target's hidden state of the position before the token it reads
// (runtime::Forward::keptHidden), so it drafts for every generating
// sequence with no catch-up of its own (runtime/forward.h, "Assistant").
//
// Binding to the target checks what the two files must agree on, naming the
// key or tensor: the target is gemma4; embedding_length_out equals the
// target's embedding_length; the vocabularies match (as a draft model's);
// every assistant layer has the head sizes and KV heads of the target
// layer it reads, and the same sliding window.
//
// Costs per draft token: the assistant's layers for one row per drafting
// sequence (each query over the target's keys) plus its output matrix.
// Memory: its mapped weights and activations for `slots` rows.
#pragma once

#include "api/model_impl.h"

#include <memory>
#include <string>

namespace burrow::runtime {
class Forward;
class KvCache;
class ThreadPool;
struct MtpDraft;
}

namespace burrow::api {

class AssistantDrafter {
public:
    // assistant: loaded (a gemma4-assistant file); target: the model it
    // drafts for, whose KV cache `targetCache` is (slots sequences).
    static Result<std::unique_ptr<AssistantDrafter>> create(std::shared_ptr<const ModelImpl> assistant,
                                                            const ModelImpl &target, runtime::KvCache &targetCache,
                                                            runtime::ThreadPool &pool, uint32_t slots, bool flash);
    ~AssistantDrafter();

    const std::string &path() const { return m_model->info().path; }
    // The checks of create() from the two configs alone (no cache needed):
    // ok, or the first disagreement named.
    static Status checkPair(const model::ModelConfig &assistant, const model::ModelConfig &target);

    // Drafts for each request (seq, token, count, out; `hidden` the target's
    // Forward::keptHidden(seq)), all in the same passes. logits: scratch of
    // n x nVocab floats. A failure leaves the drafts empty.
    Status draft(runtime::MtpDraft *drafts, int n, float *logits);

private:
    AssistantDrafter() = default;

    std::shared_ptr<const ModelImpl> m_model;
    model::ModelConfig m_config;       // the assistant's, bound to the target (LayerSpec::kvLayer)
    model::TensorView m_targetEmbd;    // the target's token_embd (in its mapped file)
    std::unique_ptr<runtime::Forward> m_forward;
};

} // namespace burrow::api
