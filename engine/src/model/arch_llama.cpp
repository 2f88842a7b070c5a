// llama: Llama 2, Llama 3.x (rope_freqs factors), Mistral, TinyLlama, SmolLM2.
// Adjacent-pair RoPE, SwiGLU, optional biases, tied or untied output.
#include "model/architectures.h"

namespace burrow::model {

Status configureLlama(const gguf::GgufFile &, ModelConfig &config)
{
    config.ropeType = RopeType::ROPE_TYPE_NORM;
    config.ffnActivation = FfnActivation::FFN_ACTIVATION_SILU;
    // The reference reads no sliding-window key for llama (Mistral's window is ignored).
    if (config.nRot != config.headDimK)
        return Status::error("llama.rope.dimension_count is " + std::to_string(config.nRot) +
                             ", expected the head dimension " + std::to_string(config.headDimK));
    return Status::ok();
}

} // namespace burrow::model
