#include "model/model_config.h"

#include "model/architectures.h"
#include "gguf/gguf_reader.h"

#include <array>
#include <cmath>

namespace burrow::model {
namespace {

constexpr std::array<ArchitectureSpec, 10> kArchitectures = {{
    {"llama", Architecture::ARCHITECTURE_LLAMA, configureLlama},
    {"qwen2", Architecture::ARCHITECTURE_QWEN2, configureQwen2},
    {"phi3", Architecture::ARCHITECTURE_PHI3, configurePhi3},
    {"gemma2", Architecture::ARCHITECTURE_GEMMA2, configureGemma2},
    {"qwen3", Architecture::ARCHITECTURE_QWEN3, configureQwen3},
    {"qwen3moe", Architecture::ARCHITECTURE_QWEN3MOE, configureQwen3Moe},
    {"gemma3", Architecture::ARCHITECTURE_GEMMA3, configureGemma3},
    {"gpt-oss", Architecture::ARCHITECTURE_GPT_OSS, configureGptOss},
    {"qwen35", Architecture::ARCHITECTURE_QWEN35, configureQwen35},
    {"qwen35moe", Architecture::ARCHITECTURE_QWEN35MOE, configureQwen35Moe},
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

uint32_t ModelConfig::recurrentLayerCount() const
{
    uint32_t n = 0;
    for (const LayerSpec &l : layers)
        n += l.recurrent ? 1 : 0;
    return n;
}

uint32_t ModelConfig::slidingLayerCount() const
{
    uint32_t n = 0;
    for (const LayerSpec &l : layers)
        n += l.sliding ? 1 : 0;
    return slidingWindow != 0 ? n : 0;
}

Status applySlidingPattern(const gguf::GgufFile &file, ModelConfig &c, uint32_t defaultPeriod, float swaBase,
                           float swaScale)
{
    const std::string key = c.archName + ".attention.sliding_window_pattern";
    uint32_t period = defaultPeriod;
    if (const gguf::KeyValue *kv = file.find(key)) {
        if (kv->value.type == gguf::ValueType::VALUE_TYPE_ARRAY) {
            // The reference reads the period with a scalar-only getter, which
            // ignores an array (Olmo 3 and EXAONE files write one bool per
            // layer): the default period runs. An array that cannot be such
            // a per-layer list is refused.
            const gguf::Value &v = kv->value;
            const bool perLayer = v.arrayType == gguf::ValueType::VALUE_TYPE_BOOL ||
                                  v.arrayType == gguf::ValueType::VALUE_TYPE_I32 ||
                                  v.arrayType == gguf::ValueType::VALUE_TYPE_U32;
            if (!perLayer || v.arrayCount != c.nLayer)
                return Status::error("metadata key '" + key + "' is an array of " + std::to_string(v.arrayCount) + " " +
                                     gguf::valueTypeName(v.arrayType) + " values; expected a period (u32) or one bool per layer (" +
                                     std::to_string(c.nLayer) + ")");
        } else {
            if (Status s = file.getU32(key, period); !s)
                return Status::error("metadata key '" + key + "': " + s.message() + " (expected the period of the sliding-window pattern)");
            if (period > c.nLayer)
                return Status::error("metadata key '" + key + "' is " + std::to_string(period) +
                                     ": a sliding-window pattern longer than the model's " + std::to_string(c.nLayer) + " layers");
        }
    }
    for (uint32_t il = 0; il < c.nLayer; ++il) {
        LayerSpec &l = c.layers[il];
        l.sliding = period == 0 || il % period < period - 1;
        if (l.sliding) {
            l.ropeFreqBase = swaBase;
            l.ropeFreqScale = swaScale;
        }
    }
    return Status::ok();
}

Status readExperts(const gguf::GgufFile &file, ModelConfig &c, uint32_t defaultFfExp)
{
    const std::string p = c.archName + ".";
    if (c.nExpert == 0)
        return Status::error("missing metadata key '" + p + "expert_count' (a mixture-of-experts model needs experts)");
    c.nFfExp = defaultFfExp;
    if (Status s = file.getOptionalU32(p + "expert_feed_forward_length", c.nFfExp); !s)
        return s;
    if (Status s = checkRange(p + "expert_feed_forward_length", c.nFfExp, 1, kMaxDim); !s)
        return s;
    for (LayerSpec &l : c.layers)
        l.moe = true;
    return Status::ok();
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

    // Optional here: a mixture-of-experts model may have no dense FFN (checked after configure).
    if (Status s = getU32MaybePerLayer(file, p + "feed_forward_length", c.nLayer, false, c.nFf); !s)
        return fail(s);
    if (Status s = getU32MaybePerLayer(file, p + "attention.head_count", c.nLayer, true, c.nHead); !s)
        return fail(s);
    c.nHeadKv = c.nHead;
    if (Status s = getU32MaybePerLayer(file, p + "attention.head_count_kv", c.nLayer, false, c.nHeadKv); !s)
        return fail(s);
    if (Status s = checkRange(p + "feed_forward_length", c.nFf, 0, kMaxDim); !s)
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
    // Scaling as the reference reads it: the type defaults to linear, the
    // factor (or the older rope.scale_linear) to none.
    std::string scalingType = "linear";
    if (Status s = file.getOptionalString(p + "rope.scaling.type", scalingType); !s)
        return fail(s);
    float scalingFactor = 0.0f;
    if (file.find(p + "rope.scaling.factor")) {
        if (Status s = file.getF32(p + "rope.scaling.factor", scalingFactor); !s)
            return fail(s);
    } else if (Status s = file.getOptionalF32(p + "rope.scale_linear", scalingFactor); !s) {
        return fail(s);
    }
    if (scalingFactor != 0.0f && (!(scalingFactor > 0.0f) || !std::isfinite(scalingFactor) || scalingFactor > 1e6f))
        return fail(Status::error("metadata key '" + p + "rope.scaling.factor' is " + std::to_string(scalingFactor) +
                                  ", expected a positive number"));
    c.yarnOrigCtx = c.nCtxTrain;
    if (Status s = file.getOptionalU32(p + "rope.scaling.original_context_length", c.yarnOrigCtx); !s)
        return fail(s);
    if (Status s = checkRange(p + "rope.scaling.original_context_length", c.yarnOrigCtx, 1, 1u << 24); !s)
        return fail(s);
    float attnFactorKey = 1.0f;
    if (Status s = file.getOptionalF32(p + "rope.scaling.attn_factor", attnFactorKey); !s)
        return fail(s);
    if (!(attnFactorKey > 0.0f) || !std::isfinite(attnFactorKey) || attnFactorKey > 100.0f)
        return fail(Status::error("metadata key '" + p + "rope.scaling.attn_factor' must be a positive number"));
    if (scalingType == "none") {
        c.ropeFreqScale = 1.0f;   // never scale
    } else if (scalingType == "linear" || scalingType == "yarn" || scalingType == "llama3") {
        // llama3 scaling is carried by the rope_freqs tensor.
        c.ropeFreqScale = scalingFactor == 0.0f ? 1.0f : 1.0f / scalingFactor;
    } else {
        return fail(Status::error("RoPE scaling type '" + scalingType + "' (" + p +
                                  "rope.scaling.type) is not supported (supported: none, linear, yarn, llama3)"));
    }
    c.ropeAttnFactor = attnFactorKey;
    if (scalingType == "yarn") {
        c.yarnExtFactor = 1.0f;
        // The context's attn_factor: mscale(factor) / (1 + 0.1 ln factor),
        // since the rope kernel multiplies the magnitude correction back in.
        const float factor = 1.0f / c.ropeFreqScale;
        const float mscale = factor <= 1.0f ? 1.0f : 0.1f * std::log(factor) + 1.0f;
        c.ropeAttnFactor = mscale * (1.0f / (1.0f + 0.1f * std::log(factor))) * attnFactorKey;
    }

    // Mixture of experts (the architectures that use it check them).
    if (Status s = file.getOptionalU32(p + "expert_count", c.nExpert); !s)
        return fail(s);
    if (Status s = file.getOptionalU32(p + "expert_used_count", c.nExpertUsed); !s)
        return fail(s);
    if (Status s = checkRange(p + "expert_count", c.nExpert, 0, 512); !s)
        return fail(s);
    if (c.nExpert > 0) {
        if (Status s = checkRange(p + "expert_used_count", c.nExpertUsed, 1, c.nExpert); !s)
            return fail(s);
    } else if (c.nExpertUsed != 0) {
        return fail(Status::error("metadata key '" + p + "expert_used_count' is " + std::to_string(c.nExpertUsed) +
                                  " but the model has no experts (" + p + "expert_count is absent or 0)"));
    }
    if (Status s = file.getOptionalF32(p + "expert_weights_scale", c.expertWeightsScale); !s)
        return fail(s);
    if (!std::isfinite(c.expertWeightsScale) || c.expertWeightsScale < 0.0f || c.expertWeightsScale > 1e4f)
        return fail(Status::error("metadata key '" + p + "expert_weights_scale' must be a finite number >= 0"));

    uint32_t vocab = 0;
    if (Status s = file.getOptionalU32(p + "vocab_size", vocab); !s)
        return fail(s);
    c.nVocab = vocab;

    // Every layer: full attention, the global RoPE, dense FFN, unless the
    // architecture says otherwise.
    c.layers.assign(c.nLayer, LayerSpec{false, c.ropeFreqBase, c.ropeFreqScale, false, false});
    if (Status s = spec->configure(file, c); !s)
        return fail(s);
    if (c.layers.size() != c.nLayer)
        return fail(Status::error("internal: the layer table has " + std::to_string(c.layers.size()) +
                                  " rows for " + std::to_string(c.nLayer) + " layers"));
    if (c.slidingWindow == 0)
        for (LayerSpec &l : c.layers)
            l.sliding = false;
    for (const LayerSpec &l : c.layers) {
        if (!(l.ropeFreqBase > 0.0f) || !std::isfinite(l.ropeFreqBase) || !(l.ropeFreqScale > 0.0f) ||
            !std::isfinite(l.ropeFreqScale))
            return fail(Status::error("RoPE base and scale must be positive numbers (" + p + "rope.freq_base_swa?)"));
        if (l.moe && (c.nExpert == 0 || c.nFfExp == 0))
            return fail(Status::error("internal: a mixture-of-experts layer without experts"));
        if (!l.moe && c.nFf == 0)
            return fail(Status::error("missing metadata key '" + p + "feed_forward_length'"));
    }
    return c;
}

} // namespace burrow::model
