// gemma4-assistant (Gemma 4's multi-token-prediction drafter, a file of its
// own beside a gemma4 target; reference: src/models/gemma4-assistant.cpp):
// - the layers of gemma4 (configureGemma4Attention: sliding and global
//   layers by attention.sliding_window_pattern, their head sizes and RoPE,
//   Q head norms, sandwich norms, GeGLU, layer_output_scale, attention
//   scale 1) with queries only: every layer reads the TARGET's KV cache
//   (LayerSpec::foreignKv; a sliding layer the target's block n - 2's keys,
//   a global one block n - 1's, bound by api/assistant_drafter.cpp);
// - embedding_length_out (required, not embedding_length) is the target's
//   hidden size Et; the input of a token t with the target's hidden state
//   h is nextn.pre_projection [2 Et -> E] . (target token_embd[t] x
//   sqrt(Et) | h); the outputs are logits = token_embd . rmsnorm(x) *
//   output_norm (always tied, no softcap: the reference's graph has none)
//   and the next hidden state nextn.post_projection [E -> Et] . that norm;
// - nextn_predict_layers, when present, must equal block_count (the
//   reference asserts it); no experts, no per-layer inputs, no shared KV
//   (their keys are ignored, as the reference's loader does).
#include "model/architectures.h"

#include "gguf/gguf_reader.h"

namespace burrow::model {

Status configureGemma4Assistant(const gguf::GgufFile &file, ModelConfig &config)
{
    ModelConfig &c = config;
    const std::string p = c.archName + ".";
    if (Status s = configureGemma4Attention(file, c); !s)
        return s;
    if (!file.find(p + "embedding_length_out"))
        return Status::error("missing metadata key '" + p + "embedding_length_out' (the hidden size of the Gemma 4 "
                             "model the assistant drafts for)");
    if (Status s = file.getU32(p + "embedding_length_out", c.nEmbdTarget); !s)
        return s;
    if (c.nEmbdTarget < 1 || c.nEmbdTarget > (1u << 20) || c.nEmbdTarget == c.nEmbd)
        return Status::error("metadata key '" + p + "embedding_length_out' is " + std::to_string(c.nEmbdTarget) +
                             ", expected the target's hidden size (1..1048576, not embedding_length " +
                             std::to_string(c.nEmbd) + ")");
    uint32_t nextn = c.nLayer;
    if (Status s = file.getOptionalU32(p + "nextn_predict_layers", nextn); !s)
        return s;
    if (nextn != c.nLayer)
        return Status::error("metadata key '" + p + "nextn_predict_layers' is " + std::to_string(nextn) +
                             ", expected block_count " + std::to_string(c.nLayer) + " (every block of the assistant predicts)");
    if (c.nExpert != 0)
        return Status::error("metadata key '" + p + "expert_count' is " + std::to_string(c.nExpert) +
                             ": a Gemma 4 assistant has a dense feed-forward only");
    if (c.headDimK != c.headDimV)
        return Status::error(p + "attention.key_length and value_length differ (the assistant requires them equal)");
    c.outputAlwaysTied = true;
    c.finalSoftcap = 0.0f;
    for (LayerSpec &l : c.layers) {
        l.foreignKv = true;
        if (l.nFf == 0)
            return Status::error("metadata key '" + p + "feed_forward_length' is missing or 0 (the assistant's FFN)");
    }
    return Status::ok();
}

} // namespace burrow::model
