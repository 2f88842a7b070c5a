// phi3 (Phi-3 / 3.5 mini): NeoX RoPE, fused attn_qkv, fused gate/up in ffn_up
// (first half gate, second half up), queries scaled by 1/sqrt(head_dim) after
// RoPE. phi3.attention.sliding_window is ignored: the reference turns Phi's
// sliding window off (its converters do not write the pattern correctly), and
// Burrow computes what the reference computes.
#include "model/architectures.h"

#include "gguf/gguf_reader.h"

#include <cmath>

namespace burrow::model {

Status configurePhi3(const gguf::GgufFile &file, ModelConfig &config)
{
    config.ropeType = RopeType::ROPE_TYPE_NEOX;
    config.ffnActivation = FfnActivation::FFN_ACTIVATION_SILU;
    config.fusedQkv = true;
    config.fusedGateUp = true;
    config.ffnScales = false;   // the reference's graph leaves FFN .scale tensors unused
    config.queryScaleBeforeAttention = true;
    config.queryScale = 1.0f / std::sqrt(static_cast<float>(config.headDimK));
    uint32_t window = 0;   // read for its type check only
    if (Status s = file.getOptionalU32("phi3.attention.sliding_window", window); !s)
        return s;
    config.slidingWindow = 0;
    return Status::ok();
}

} // namespace burrow::model
