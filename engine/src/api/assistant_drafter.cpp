#include "api/assistant_drafter.h"

#include "runtime/forward.h"
#include "runtime/kv_cache.h"
#include "speculative/vocab_match.h"
#include "tokenizer/tokenizer.h"

namespace burrow::api {

namespace {

// The target layer an assistant layer reads: the reference's share(il) —
// block n - 2 for a sliding layer, n - 1 for a global one — through its
// shared-KV source (the cache layer that holds the keys).
uint32_t targetLayerFor(const model::ModelConfig &target, bool sliding)
{
    const uint32_t il = target.nLayer - (sliding ? 2 : 1);
    return target.layers[il].kvLayer;
}

} // namespace

AssistantDrafter::~AssistantDrafter() = default;

Status AssistantDrafter::checkPair(const model::ModelConfig &a, const model::ModelConfig &t)
{
    const std::string p = a.archName + ".";
    if (!a.isAssistant())
        return Status::error("the file's architecture is '" + a.archName + "', not gemma4-assistant");
    if (t.arch != model::Architecture::ARCHITECTURE_GEMMA4)
        return Status::error("a Gemma 4 assistant drafts for a gemma4 model; this model is '" + t.archName + "'");
    if (a.nEmbdTarget != t.nEmbd)
        return Status::error("metadata key '" + p + "embedding_length_out' is " + std::to_string(a.nEmbdTarget) +
                             " but the model's embedding_length is " + std::to_string(t.nEmbd) +
                             " (the assistant was made for another Gemma 4 model)");
    if (a.nVocab != t.nVocab)
        return Status::error("tensor 'token_embd.weight' has " + std::to_string(a.nVocab) + " rows but the model's vocabulary " +
                             std::to_string(t.nVocab) + " tokens");
    if (t.nLayer < 2 || t.layers[t.nLayer - 1].sliding || !t.layers[t.nLayer - 2].sliding)
        return Status::error("the model's last block is not global after a sliding one (the assistant reads their keys)");
    if (a.slidingWindow != t.slidingWindow)
        return Status::error("metadata key '" + p + "attention.sliding_window' is " + std::to_string(a.slidingWindow) +
                             " but the model's is " + std::to_string(t.slidingWindow));
    for (uint32_t il = 0; il < a.nLayer; ++il) {
        const model::LayerSpec &l = a.layers[il];
        const uint32_t kl = targetLayerFor(t, l.sliding);
        const model::LayerSpec &src = t.layers[kl];
        if (src.recurrent || src.headDimK != l.headDimK || src.headDimV != l.headDimV || src.nHeadKv != l.nHeadKv ||
            a.nHead % src.nHeadKv != 0)
            return Status::error("block " + std::to_string(il) + " of the assistant (" +
                                 (l.sliding ? "sliding" : "global") + ": head size " + std::to_string(l.headDimK) + ", " +
                                 std::to_string(l.nHeadKv) + " KV heads) does not match the model's block " +
                                 std::to_string(kl) + " whose keys it reads (head size " + std::to_string(src.headDimK) +
                                 ", " + std::to_string(src.nHeadKv) + " KV heads): see " + p + "attention.key_length" +
                                 (l.sliding ? "_swa" : "") + " and " + p + "attention.head_count_kv");
    }
    return Status::ok();
}

Result<std::unique_ptr<AssistantDrafter>> AssistantDrafter::create(std::shared_ptr<const ModelImpl> assistant,
                                                                   const ModelImpl &target, runtime::KvCache &targetCache,
                                                                   runtime::ThreadPool &pool, uint32_t slots, bool flash)
{
    const std::string &path = assistant->info().path;
    const model::ModelConfig &t = target.config();
    if (Status s = checkPair(assistant->config(), t); !s)
        return s.withContext(path);
    if (assistant->tokenizer() && target.tokenizer())
        if (Status s = speculative::checkDraftVocabulary(*target.tokenizer(), *assistant->tokenizer()); !s)
            return s.withContext(path);
    std::unique_ptr<AssistantDrafter> d(new AssistantDrafter());
    d->m_config = assistant->config();
    for (model::LayerSpec &l : d->m_config.layers)
        l.kvLayer = targetLayerFor(t, l.sliding);
    d->m_targetEmbd = target.weights().tokenEmbd;
    auto forward = runtime::Forward::create(d->m_config, assistant->weights(), targetCache, pool,
                                            static_cast<int>(std::max<uint32_t>(1, slots)), flash);
    if (!forward)
        return forward.status().withContext(path + " (Gemma 4 assistant)");
    d->m_forward = std::move(forward.value());
    d->m_model = std::move(assistant);
    return d;
}

Status AssistantDrafter::draft(runtime::MtpDraft *drafts, int n, float *logits)
{
    return m_forward->assistantDraft(m_targetEmbd, drafts, n, logits);
}

} // namespace burrow::api
