// gemma2: NeoX RoPE, embeddings scaled by sqrt(n_embd), GELU (tanh) gated FFN,
// post-norms on the attention and FFN outputs before the residual adds,
// attention softcap (scores = 50 tanh(scores/50)) and final softcap (30),
// sliding window on the even layers (period 2 unless the file gives one), queries scaled by 1/sqrt(head_dim) after
// RoPE (27B: 1/sqrt(n_embd/n_head)). The output matrix is always token_embd.
// The converter stores the norm weights as w+1, so they are used as they are.
#include "model/architectures.h"

#include "gguf/gguf_reader.h"

#include <cmath>

namespace burrow::model {

Status configureGemma2(const gguf::GgufFile &file, ModelConfig &config)
{
    config.ropeType = RopeType::ROPE_TYPE_NEOX;
    config.ffnActivation = FfnActivation::FFN_ACTIVATION_GELU_TANH;
    config.postNorms = true;
    config.outputAlwaysTied = true;
    config.ffnScales = false;   // the reference's graph leaves FFN .scale tensors unused
    config.embeddingScale = std::sqrt(static_cast<float>(config.nEmbd));

    float attnCap = 50.0f, finalCap = 30.0f;
    uint32_t window = 4096;
    if (Status s = file.getOptionalF32("gemma2.attn_logit_softcapping", attnCap); !s)
        return s;
    if (Status s = file.getOptionalF32("gemma2.final_logit_softcapping", finalCap); !s)
        return s;
    if (Status s = file.getOptionalU32("gemma2.attention.sliding_window", window); !s)
        return s;
    if (!(attnCap >= 0.0f) || !(finalCap >= 0.0f) || !std::isfinite(attnCap) || !std::isfinite(finalCap))
        return Status::error("gemma2 softcapping values must be finite and >= 0");
    config.attnSoftcap = attnCap;
    config.finalSoftcap = finalCap;
    config.slidingWindow = window;
    float swaBase = config.ropeFreqBase;
    if (Status s = file.getOptionalF32("gemma2.rope.freq_base_swa", swaBase); !s)
        return s;
    if (Status s = applySlidingPattern(file, config, 2, swaBase, config.ropeFreqScale); !s)
        return s;

    config.queryScaleBeforeAttention = true;
    // The 27B model (46 layers) scales by n_embd/n_head, the others by the head size.
    const float d = config.nLayer == 46 ? static_cast<float>(config.nEmbd / config.nHead)
                                        : static_cast<float>(config.headDimK);
    config.queryScale = 1.0f / std::sqrt(d);
    return Status::ok();
}

} // namespace burrow::model
