// qwen2 (Qwen 2 / 2.5): NeoX RoPE, SwiGLU, Q/K/V biases required, output
// optional (tied in the small models).
#include "model/architectures.h"

namespace burrow::model {

Status configureQwen2(const gguf::GgufFile &, ModelConfig &config)
{
    config.ropeType = RopeType::ROPE_TYPE_NEOX;
    config.ffnActivation = FfnActivation::FFN_ACTIVATION_SILU;
    config.qkvBiasRequired = true;
    config.ffnScales = false;   // the reference's graph leaves FFN .scale tensors unused
    return Status::ok();
}

} // namespace burrow::model
