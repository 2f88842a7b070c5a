// gpt-oss (gpt-oss-20b, 120b; the reference's "openai-moe"): NeoX RoPE with
// static YaRN (factor 32 from the file), optional q/k/v biases, a required
// attn_output bias, attention sinks (attn_sinks: one logit per head joins the
// softmax), scores scaled by 1/sqrt(head size); sliding window on even layers
// (period 2, attention.sliding_window required) with the global RoPE on every
// layer unless rope.freq_base_swa is given. The FFN input norm is stored as
// post_attention_norm. Every FFN is a mixture of experts with biases: the top
// k router logits (+ bias), a softmax over those k, and the clamped SwiGLU
// g = min(gate, 7), u = clamp(up, -7, 7), g sigmoid(1.702 g) (u + 1). The
// output matrix is required (reference: src/models/openai-moe.cpp).
#include "model/architectures.h"

#include "gguf/gguf_reader.h"

namespace burrow::model {

Status configureGptOss(const gguf::GgufFile &file, ModelConfig &config)
{
    config.ropeType = RopeType::ROPE_TYPE_NEOX;
    config.ffnActivation = FfnActivation::FFN_ACTIVATION_SWIGLU_OAI;
    config.attnSinks = true;
    config.attnOutputBiasRequired = true;
    config.ffnNormNamedPostAttention = true;
    config.outputRequired = true;
    config.expertScales = false;   // the reference's graph leaves expert .scale tensors unused
    if (config.nRot != config.headDimK || config.headDimV != config.headDimK)
        return Status::error("gpt-oss: rope.dimension_count " + std::to_string(config.nRot) + ", key_length " +
                             std::to_string(config.headDimK) + " and value_length " + std::to_string(config.headDimV) +
                             " must be equal");

    if (!file.find("gpt-oss.expert_feed_forward_length"))
        return Status::error("missing metadata key 'gpt-oss.expert_feed_forward_length'");
    if (Status s = readExperts(file, config, 0); !s)
        return s;
    config.expertGating = ExpertGating::EXPERT_GATING_SOFTMAX_SELECTED;
    config.expertWeightsNorm = false;
    config.expertBiases = true;

    uint32_t window = 0;
    if (Status s = file.getU32("gpt-oss.attention.sliding_window", window); !s)
        return s;
    config.slidingWindow = window;
    float swaBase = config.ropeFreqBase;
    if (Status s = file.getOptionalF32("gpt-oss.rope.freq_base_swa", swaBase); !s)
        return s;
    return applySlidingPattern(file, config, 2, swaBase, config.ropeFreqScale);
}

} // namespace burrow::model
