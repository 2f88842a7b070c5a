// qwen3 (Qwen3 0.6B-32B, Qwen3-2507, DeepSeek-R1-0528-Qwen3): NeoX RoPE,
// SwiGLU, RMS norm of each query and key head (attn_q_norm / attn_k_norm,
// head-size weights) before RoPE, optional q/k/v biases, tied output when
// output.weight is absent. Head size x heads may differ from the embedding
// length (attention.key_length decides), and RoPE must cover the whole head.
//
// qwen3moe (Qwen3-30B-A3B, Qwen3-Coder-30B-A3B, 235B-A22B): the same
// attention; every FFN is a mixture of experts: softmax over all router
// logits, the top k experts, their probabilities renormalised to sum 1,
// SwiGLU experts (reference: src/models/qwen3.cpp, qwen3moe.cpp).
#include "model/architectures.h"

namespace burrow::model {

namespace {

Status configureQwen3Attention(ModelConfig &config)
{
    config.ropeType = RopeType::ROPE_TYPE_NEOX;
    config.ffnActivation = FfnActivation::FFN_ACTIVATION_SILU;
    config.qkNorm = true;
    if (config.headDimK != config.headDimV)
        return Status::error(config.archName + ": attention.key_length " + std::to_string(config.headDimK) +
                             " and attention.value_length " + std::to_string(config.headDimV) + " differ");
    if (config.nRot != config.headDimK)
        return Status::error(config.archName + ".rope.dimension_count is " + std::to_string(config.nRot) +
                             ", expected the head dimension " + std::to_string(config.headDimK));
    return Status::ok();
}

} // namespace

Status configureQwen3(const gguf::GgufFile &, ModelConfig &config)
{
    return configureQwen3Attention(config);
}

Status configureQwen3Moe(const gguf::GgufFile &file, ModelConfig &config)
{
    if (Status s = configureQwen3Attention(config); !s)
        return s;
    return readQwenExperts(file, config);
}

Status readQwenExperts(const gguf::GgufFile &file, ModelConfig &config)
{
    // expert_feed_forward_length defaults to n_ff / n_expert_used, as the reference's.
    const uint32_t fallback = config.nExpertUsed > 0 ? config.nFf / config.nExpertUsed : 0;
    if (Status s = readExperts(file, config, fallback); !s)
        return s;
    config.expertGating = ExpertGating::EXPERT_GATING_SOFTMAX;
    config.expertWeightsNorm = true;
    return Status::ok();
}

} // namespace burrow::model
