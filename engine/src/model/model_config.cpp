#include "model/model_config.h"

#include "model/architectures.h"
#include "gguf/gguf_reader.h"

#include <array>
#include <cmath>

namespace burrow::model {
namespace {

constexpr std::array<ArchitectureSpec, 4> kArchitectures = {{
    {"llama", Architecture::ARCHITECTURE_LLAMA, configureLlama},
    {"qwen2", Architecture::ARCHITECTURE_QWEN2, configureQwen2},
    {"phi3", Architecture::ARCHITECTURE_PHI3, configurePhi3},
    {"gemma2", Architecture::ARCHITECTURE_GEMMA2, configureGemma2},
}};

// Bounds that keep every size computed from them far from overflow.
constexpr uint32_t kMaxDim = 1u << 20;      // embedding, FFN, head sizes
constexpr uint32_t kMaxLayers = 1024;
constexpr uint32_t kMaxHeads = 4096;

// A u32 that may also be written as a per-layer array (all equal here: the
// supported architectures use the same value on every layer).
Status getU32MaybePerLayer(const gguf::GgufFile &file, const std::string &key, uint32_t nLayer,
                           bool required, uint32_t &out)
{
    const gguf::KeyValue *kv = file.find(key);
    if (!kv) {
        if (required)
            return Status::error("missing metadata key '" + key + "'");
        return Status::ok();
    }
    if (kv->value.type != gguf::ValueType::VALUE_TYPE_ARRAY)
        return file.getU32(key, out);
    std::vector<int32_t> values;
    if (Status s = file.getI32Array(key, values); !s)
        return s;
    if (values.size() != nLayer)
        return Status::error("metadata key '" + key + "' has " + std::to_string(values.size()) +
                             " per-layer values, expected " + std::to_string(nLayer));
    for (size_t i = 0; i < values.size(); ++i)
        if (values[i] != values[0] || values[i] < 0)
            return Status::error("metadata key '" + key +
                                 "': per-layer values that differ between layers are not supported");
    out = static_cast<uint32_t>(values.empty() ? 0 : values[0]);
    return Status::ok();
}

Status checkRange(const std::string &key, uint32_t value, uint32_t lo, uint32_t hi)
{
    if (value < lo || value > hi)
        return Status::error("metadata key '" + key + "' is " + std::to_string(value) + ", expected " +
                             std::to_string(lo) + ".." + std::to_string(hi));
    return Status::ok();
}

} // namespace

const ArchitectureSpec *findArchitecture(std::string_view name)
{
    for (const ArchitectureSpec &spec : kArchitectures)
        if (name == spec.name)
            return &spec;
    return nullptr;
}

std::string supportedArchitectureList()
{
    std::string list;
    for (const ArchitectureSpec &spec : kArchitectures) {
        if (!list.empty())
            list += ", ";
        list += spec.name;
    }
    return list;
}

const char *architectureName(Architecture arch)
{
    for (const ArchitectureSpec &spec : kArchitectures)
        if (spec.arch == arch)
            return spec.name;
    return "unknown";
}

float ModelConfig::attentionScale() const
{
    return queryScale > 0.0f ? queryScale : 1.0f / std::sqrt(static_cast<float>(headDimK));
}

Result<ModelConfig> loadModelConfig(const gguf::GgufFile &file)
{
    ModelConfig c;
    const auto fail = [&](const Status &s) -> Result<ModelConfig> {
        return s.withContext(file.path() + ": model config");
    };

    if (Status s = file.getString("general.architecture", c.archName); !s)
        return fail(s);
    const ArchitectureSpec *spec = findArchitecture(c.archName);
    if (!spec)
        return fail(Status::error("architecture '" + c.archName + "' is not supported (supported: " +
                                  supportedArchitectureList() + ")"));
    c.arch = spec->arch;
    const std::string p = c.archName + ".";

    // Required keys.
    if (Status s = file.getU32(p + "context_length", c.nCtxTrain); !s)
        return fail(s);
    if (Status s = file.getU32(p + "embedding_length", c.nEmbd); !s)
        return fail(s);
    if (Status s = file.getU32(p + "block_count", c.nLayer); !s)
        return fail(s);
    if (Status s = file.getF32(p + "attention.layer_norm_rms_epsilon", c.rmsEps); !s)
        return fail(s);
    if (Status s = checkRange(p + "embedding_length", c.nEmbd, 1, kMaxDim); !s)
        return fail(s);
    if (Status s = checkRange(p + "block_count", c.nLayer, 1, kMaxLayers); !s)
        return fail(s);
    if (Status s = checkRange(p + "context_length", c.nCtxTrain, 1, 1u << 24); !s)
        return fail(s);
    if (!(c.rmsEps > 0.0f) || !std::isfinite(c.rmsEps) || c.rmsEps > 1.0f)
        return fail(Status::error("metadata key '" + p + "attention.layer_norm_rms_epsilon' is " +
                                  std::to_string(c.rmsEps) + ", expected a small positive number"));

    if (Status s = getU32MaybePerLayer(file, p + "feed_forward_length", c.nLayer, true, c.nFf); !s)
        return fail(s);
    if (Status s = getU32MaybePerLayer(file, p + "attention.head_count", c.nLayer, true, c.nHead); !s)
        return fail(s);
    c.nHeadKv = c.nHead;
    if (Status s = getU32MaybePerLayer(file, p + "attention.head_count_kv", c.nLayer, false, c.nHeadKv); !s)
        return fail(s);
    if (Status s = checkRange(p + "feed_forward_length", c.nFf, 1, kMaxDim); !s)
        return fail(s);
    if (Status s = checkRange(p + "attention.head_count", c.nHead, 1, kMaxHeads); !s)
        return fail(s);
    if (Status s = checkRange(p + "attention.head_count_kv", c.nHeadKv, 1, c.nHead); !s)
        return fail(s);
    if (c.nHead % c.nHeadKv != 0)
        return fail(Status::error("attention.head_count " + std::to_string(c.nHead) +
                                  " is not a multiple of attention.head_count_kv " + std::to_string(c.nHeadKv)));

    // Head sizes.
    c.headDimK = c.nEmbd / c.nHead;
    c.headDimV = c.headDimK;
    if (Status s = file.getOptionalU32(p + "attention.key_length", c.headDimK); !s)
        return fail(s);
    if (Status s = file.getOptionalU32(p + "attention.value_length", c.headDimV); !s)
        return fail(s);
    if (Status s = checkRange(p + "attention.key_length", c.headDimK, 1, 4096); !s)
        return fail(s);
    if (Status s = checkRange(p + "attention.value_length", c.headDimV, 1, 4096); !s)
        return fail(s);

    // RoPE.
    c.nRot = c.headDimK;
    if (Status s = file.getOptionalU32(p + "rope.dimension_count", c.nRot); !s)
        return fail(s);
    if (c.nRot == 0 || c.nRot > c.headDimK || c.nRot % 2 != 0)
        return fail(Status::error("metadata key '" + p + "rope.dimension_count' is " + std::to_string(c.nRot) +
                                  ", expected an even number <= the head dimension " + std::to_string(c.headDimK)));
    if (Status s = file.getOptionalF32(p + "rope.freq_base", c.ropeFreqBase); !s)
        return fail(s);
    if (!(c.ropeFreqBase > 0.0f) || !std::isfinite(c.ropeFreqBase))
        return fail(Status::error("metadata key '" + p + "rope.freq_base' must be a positive number"));
    std::string scalingType = "none";
    if (Status s = file.getOptionalString(p + "rope.scaling.type", scalingType); !s)
        return fail(s);
    float scalingFactor = 0.0f;
    if (Status s = file.getOptionalF32(p + "rope.scaling.factor", scalingFactor); !s)
        return fail(s);
    if (scalingType == "linear") {
        if (!(scalingFactor > 0.0f) || !std::isfinite(scalingFactor))
            return fail(Status::error("metadata key '" + p + "rope.scaling.factor' must be > 0 for linear scaling"));
        c.ropeFreqScale = 1.0f / scalingFactor;
    } else if (scalingType != "none" && scalingType != "llama3") {
        // llama3 scaling is carried by the rope_freqs tensor.
        return fail(Status::error("RoPE scaling type '" + scalingType + "' (" + p +
                                  "rope.scaling.type) is not supported (supported: none, linear, llama3)"));
    }

    uint32_t vocab = 0;
    if (Status s = file.getOptionalU32(p + "vocab_size", vocab); !s)
        return fail(s);
    c.nVocab = vocab;

    c.swaLayers.assign(c.nLayer, false);
    if (Status s = spec->configure(file, c); !s)
        return fail(s);
    if (c.swaLayers.size() != c.nLayer)
        c.swaLayers.assign(c.nLayer, c.slidingWindow != 0);
    return c;
}

} // namespace burrow::model
