// gemma3 (Gemma 3 270M-27B): embeddings x sqrt(n_embd); RMS norm of each
// query and key head before NeoX RoPE; queries scaled by 1/sqrt(head size)
// after RoPE (the 62-layer 27B model: 1/sqrt(n_embd / n_head)); sandwich
// norms (post_attention_norm, post_ffw_norm); GeGLU (tanh GELU); no
// attention softcap, a final softcap only when the key is present; tied
// output unless output.weight is present (reference: src/models/gemma3.cpp).
//
// Sliding window when attention.sliding_window > 0: five layers of every six
// (period 6, or attention.sliding_window_pattern), layer il % 6 == 5 global.
// Sliding layers use rope.freq_base_swa (default 10000) unscaled; global
// layers rope.freq_base with the file's scaling (linear, factor 8 in 4B+).
// The converter stores the norm weights as w + 1, so they are used as they are.
#include "model/architectures.h"

#include "gguf/gguf_reader.h"

#include <cmath>

namespace burrow::model {

Status configureGemma3(const gguf::GgufFile &file, ModelConfig &config)
{
    config.ropeType = RopeType::ROPE_TYPE_NEOX;
    config.ffnActivation = FfnActivation::FFN_ACTIVATION_GELU_TANH;
    config.qkNorm = true;
    config.postNorms = true;
    config.ffnScales = false;   // the reference's graph leaves FFN .scale tensors unused
    config.embeddingScale = std::sqrt(static_cast<float>(config.nEmbd));

    float finalCap = 0.0f;
    if (Status s = file.getOptionalF32("gemma3.final_logit_softcapping", finalCap); !s)
        return s;
    if (!(finalCap >= 0.0f) || !std::isfinite(finalCap))
        return Status::error("gemma3.final_logit_softcapping must be finite and >= 0");
    config.finalSoftcap = finalCap;

    uint32_t window = 0;
    if (Status s = file.getOptionalU32("gemma3.attention.sliding_window", window); !s)
        return s;
    config.slidingWindow = window;
    if (window > 0) {
        float swaBase = 10000.0f;
        if (Status s = file.getOptionalF32("gemma3.rope.freq_base_swa", swaBase); !s)
            return s;
        if (Status s = applySlidingPattern(file, config, 6, swaBase, 1.0f); !s)
            return s;
    }

    config.queryScaleBeforeAttention = true;
    const float d = config.nLayer == 62 ? static_cast<float>(config.nEmbd / config.nHead)
                                        : static_cast<float>(config.headDimK);
    config.queryScale = 1.0f / std::sqrt(d);
    return Status::ok();
}

} // namespace burrow::model
