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
// "llama, qwen2, phi3, gemma2" for messages.
std::string supportedArchitectureList();

Status configureLlama(const gguf::GgufFile &file, ModelConfig &config);
Status configureQwen2(const gguf::GgufFile &file, ModelConfig &config);
Status configurePhi3(const gguf::GgufFile &file, ModelConfig &config);
Status configureGemma2(const gguf::GgufFile &file, ModelConfig &config);

} // namespace burrow::model
