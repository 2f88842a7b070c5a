// The per-architecture part of ModelConfig: one function per architecture
// (arch_<name>.cpp) that fills in what differs, as data, after the common keys
// were read. Each may read its own keys ("{arch}.attn_logit_softcapping").
#pragma once

#include "model/model_config.h"

#include <string_view>

namespace burrow::model {

struct ArchitectureSpec {
    const char *name;                  // general.architecture value
    Architecture arch;
    // Fills the architecture-specific fields; common keys are already read.
    Status (*configure)(const gguf::GgufFile &file, ModelConfig &config);
};

// The row for `name`, or nullptr when the architecture is not supported.
const ArchitectureSpec *findArchitecture(std::string_view name);
// "llama, qwen2, phi3, gemma2, ..." for messages.
std::string supportedArchitectureList();

Status configureLlama(const gguf::GgufFile &file, ModelConfig &config);
Status configureQwen2(const gguf::GgufFile &file, ModelConfig &config);
Status configurePhi3(const gguf::GgufFile &file, ModelConfig &config);
Status configureGemma2(const gguf::GgufFile &file, ModelConfig &config);
Status configureQwen3(const gguf::GgufFile &file, ModelConfig &config);
Status configureQwen3Moe(const gguf::GgufFile &file, ModelConfig &config);
Status configureGemma3(const gguf::GgufFile &file, ModelConfig &config);
Status configureGptOss(const gguf::GgufFile &file, ModelConfig &config);
Status configureQwen35(const gguf::GgufFile &file, ModelConfig &config);
Status configureQwen35Moe(const gguf::GgufFile &file, ModelConfig &config);
Status configureGemma4(const gguf::GgufFile &file, ModelConfig &config);
Status configureGemma4Assistant(const gguf::GgufFile &file, ModelConfig &config);
// What gemma4 and gemma4-assistant share ({arch}. keys): GeGLU, Q/K/V head
// norms, sandwich norms, attention scale 1, NeoX RoPE, the sliding layers
// (attention.sliding_window, the per-block sliding_window_pattern, their
// head sizes and RoPE), rope_freqs for the global layers.
Status configureGemma4Attention(const gguf::GgufFile &file, ModelConfig &config);

// Shared by the architectures with a sliding window on some layers: reads
// {arch}.attention.sliding_window_pattern (a u32 period; a bool array is
// ignored, as the reference's reader does) over `defaultPeriod`, and marks
// layer il sliding iff il % period < period - 1 (period 0: every layer). The
// sliding layers use `swaBase` / `swaScale` for RoPE.
Status applySlidingPattern(const gguf::GgufFile &file, ModelConfig &config, uint32_t defaultPeriod, float swaBase,
                           float swaScale);
// Reads and checks the expert feed-forward keys of a mixture-of-experts
// architecture (expert_count > 0 required, expert_feed_forward_length with
// `defaultFfExp` when absent) and marks every layer as MoE.
Status readExperts(const gguf::GgufFile &file, ModelConfig &config, uint32_t defaultFfExp);
// The Qwen MoE routing (qwen3moe, qwen35moe): readExperts with
// expert_feed_forward_length defaulting to n_ff / n_expert_used (as the
// reference), softmax over all experts, the top k renormalised.
Status readQwenExperts(const gguf::GgufFile &file, ModelConfig &config);

} // namespace burrow::model
