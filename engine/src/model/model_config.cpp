#include "model/model_config.h"

#include "model/architectures.h"
#include "gguf/gguf_reader.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace burrow::model {
namespace {

constexpr std::array<ArchitectureSpec, 12> kArchitectures = {{
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
    {"gemma4", Architecture::ARCHITECTURE_GEMMA4, configureGemma4},
    {"gemma4-assistant", Architecture::ARCHITECTURE_GEMMA4_ASSISTANT, configureGemma4Assistant},
}};

// Bounds that keep every size computed from them far from overflow.
constexpr uint32_t kMaxDim = 1u << 20;      // embedding, FFN, head sizes
constexpr uint32_t kMaxLayers = 1024;
constexpr uint32_t kMaxHeads = 4096;

// A u32 that may also be written as a per-layer array: `perLayer` gets one
// value per layer (a scalar repeated), `out` the largest. With `sameOnAll`
// the values must agree (a quantity the engine keeps model-wide).
Status getU32MaybePerLayer(const gguf::GgufFile &file, const std::string &key, uint32_t nLayer, bool required,
                           uint32_t &out, std::vector<uint32_t> *perLayer = nullptr, bool sameOnAll = false)
{
    const gguf::KeyValue *kv = file.find(key);
    if (!kv) {
        if (required)
            return Status::error("missing metadata key '" + key + "'");
        if (perLayer)
            perLayer->assign(nLayer, out);
        return Status::ok();
    }
    if (kv->value.type != gguf::ValueType::VALUE_TYPE_ARRAY) {
        if (Status s = file.getU32(key, out); !s)
            return s;
        if (perLayer)
            perLayer->assign(nLayer, out);
        return Status::ok();
    }
    std::vector<int32_t> values;
    if (Status s = file.getI32Array(key, values); !s)
        return s;
    if (values.size() != nLayer)
        return Status::error("metadata key '" + key + "' has " + std::to_string(values.size()) +
                             " per-layer values, expected " + std::to_string(nLayer) + " (one per block)");
    uint32_t largest = 0;
    for (size_t i = 0; i < values.size(); ++i) {
        if (values[i] < 0)
            return Status::error("metadata key '" + key + "' has the negative value " + std::to_string(values[i]) +
                                 " for block " + std::to_string(i));
        if (sameOnAll && values[i] != values[0])
            return Status::error("metadata key '" + key +
                                 "': per-layer values that differ between layers are not supported");
        largest = std::max(largest, static_cast<uint32_t>(values[i]));
    }
    out = largest;
    if (perLayer)
        perLayer->assign(values.begin(), values.end());
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

float ModelConfig::attentionScale(uint32_t il) const
{
    return queryScale > 0.0f ? queryScale : 1.0f / std::sqrt(static_cast<float>(layers[il].headDimK));
}

namespace {

template <typename F>
uint32_t maxOverLayers(const std::vector<LayerSpec> &layers, F &&of)
{
    uint32_t best = 0;
    for (uint32_t il = 0; il < layers.size(); ++il)
        best = std::max(best, of(il));
    return best;
}

} // namespace

uint32_t ModelConfig::maxEmbdQ() const { return maxOverLayers(layers, [&](uint32_t il) { return nEmbdQ(il); }); }
uint32_t ModelConfig::maxEmbdKv() const { return maxOverLayers(layers, [&](uint32_t il) { return nEmbdKv(il); }); }
uint32_t ModelConfig::maxEmbdVKv() const { return maxOverLayers(layers, [&](uint32_t il) { return nEmbdVKv(il); }); }
uint32_t ModelConfig::maxEmbdVOut() const { return maxOverLayers(layers, [&](uint32_t il) { return nEmbdVOut(il); }); }
uint32_t ModelConfig::maxHeadDimK() const { return maxOverLayers(layers, [&](uint32_t il) { return layers[il].headDimK; }); }
uint32_t ModelConfig::maxHeadDimV() const { return maxOverLayers(layers, [&](uint32_t il) { return layers[il].headDimV; }); }
uint32_t ModelConfig::maxNRot() const { return maxOverLayers(layers, [&](uint32_t il) { return layers[il].nRot; }); }
uint32_t ModelConfig::maxFf() const { return maxOverLayers(layers, [&](uint32_t il) { return layers[il].nFf; }); }

LayerSpec ModelConfig::uniformLayer(uint32_t il) const
{
    LayerSpec l;
    l.ropeFreqBase = ropeFreqBase;
    l.ropeFreqScale = ropeFreqScale;
    l.headDimK = headDimK;
    l.headDimV = headDimV;
    l.nHeadKv = nHeadKv;
    l.nRot = nRot;
    l.nFf = nFf;
    l.kvLayer = il;
    return l;
}

uint32_t ModelConfig::kvLayerCount() const
{
    uint32_t n = 0;
    for (uint32_t il = 0; il < layers.size(); ++il)
        n += ownsKv(il) ? 1 : 0;
    return n;
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

namespace {

// The layer table after the architecture filled it: sizes in range and
// consistent, shared KV only from an earlier layer of the same shape.
Status checkLayers(ModelConfig &c)
{
    const std::string p = c.archName + ".";
    if (c.layers.size() != c.nLayer + c.nLayerMtp)
        return Status::error("internal: the layer table has " + std::to_string(c.layers.size()) + " rows for " +
                             std::to_string(c.nLayer + c.nLayerMtp) + " layers");
    if (c.slidingWindow == 0)
        for (LayerSpec &l : c.layers)
            l.sliding = false;
    for (uint32_t il = 0; il < c.layers.size(); ++il) {
        const LayerSpec &l = c.layers[il];
        const std::string block = " (block " + std::to_string(il) + ")";
        if (!(l.ropeFreqBase > 0.0f) || !std::isfinite(l.ropeFreqBase) || !(l.ropeFreqScale > 0.0f) ||
            !std::isfinite(l.ropeFreqScale))
            return Status::error("RoPE base and scale must be positive numbers (" + p + "rope.freq_base_swa?)");
        if (l.moe && (c.nExpert == 0 || c.nFfExp == 0))
            return Status::error("internal: a mixture-of-experts layer without experts");
        if ((!l.moe || l.denseBesideMoe) && l.nFf == 0)
            return Status::error(c.nFf == 0 ? "missing metadata key '" + p + "feed_forward_length'"
                                            : "metadata key '" + p + "feed_forward_length' is 0" + block);
        if (l.headDimK < 1 || l.headDimK > 4096 || l.headDimV < 1 || l.headDimV > 4096)
            return Status::error("head sizes " + std::to_string(l.headDimK) + " (keys) and " + std::to_string(l.headDimV) +
                                 " (values) must be 1..4096" + block);
        if (l.nRot == 0 || l.nRot > l.headDimK || l.nRot % 2 != 0)
            return Status::error("rotated dims " + std::to_string(l.nRot) + " must be an even number <= the head size " +
                                 std::to_string(l.headDimK) + block);
        if (l.kvLayer > il)
            return Status::error("internal: block " + std::to_string(il) + " reads the keys of a later block");
        if (l.kvLayer != il) {
            const LayerSpec &src = c.layers[l.kvLayer];
            if (src.kvLayer != l.kvLayer || src.recurrent || l.recurrent || src.sliding != l.sliding ||
                src.headDimK != l.headDimK || src.headDimV != l.headDimV || src.nHeadKv != l.nHeadKv ||
                src.nRot != l.nRot || src.ropeFreqBase != l.ropeFreqBase || src.ropeFreqScale != l.ropeFreqScale ||
                src.ropeFactors != l.ropeFactors)
                return Status::error("block " + std::to_string(il) + " shares the keys and values of block " +
                                     std::to_string(l.kvLayer) + ", which is not an attention layer of the same kind "
                                     "(sliding or global, head size, KV heads, RoPE)");
        }
    }
    return Status::ok();
}

} // namespace

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
    // The FFN width and the KV heads may differ per layer (per-layer arrays).
    std::vector<uint32_t> ffPerLayer, kvHeadsPerLayer;
    if (Status s = getU32MaybePerLayer(file, p + "feed_forward_length", c.nLayer, false, c.nFf, &ffPerLayer); !s)
        return fail(s);
    if (Status s = getU32MaybePerLayer(file, p + "attention.head_count", c.nLayer, true, c.nHead, nullptr, true); !s)
        return fail(s);
    if (Status s = checkRange(p + "attention.head_count", c.nHead, 1, kMaxHeads); !s)
        return fail(s);
    c.nHeadKv = c.nHead;
    if (Status s = getU32MaybePerLayer(file, p + "attention.head_count_kv", c.nLayer, false, c.nHeadKv, &kvHeadsPerLayer); !s)
        return fail(s);
    if (Status s = checkRange(p + "feed_forward_length", c.nFf, 0, kMaxDim); !s)
        return fail(s);
    for (uint32_t il = 0; il < c.nLayer; ++il) {
        const uint32_t kvHeads = kvHeadsPerLayer[il];
        if (kvHeads < 1 || kvHeads > c.nHead || c.nHead % kvHeads != 0)
            return fail(Status::error("attention.head_count " + std::to_string(c.nHead) +
                                      " is not a multiple of attention.head_count_kv " + std::to_string(kvHeads) +
                                      (kvHeadsPerLayer.size() > 1 && kvHeads != c.nHeadKv ? " (block " + std::to_string(il) + ")" : "")));
    }

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

    // Every layer: full attention, the global RoPE, dense FFN, the
    // model-wide sizes, its own keys and values, unless the architecture
    // says otherwise.
    c.layers.resize(c.nLayer);
    for (uint32_t il = 0; il < c.nLayer; ++il) {
        LayerSpec &l = c.layers[il];
        l = c.uniformLayer(il);
        l.nHeadKv = kvHeadsPerLayer[il];
        l.nFf = ffPerLayer[il];
    }
    if (Status s = spec->configure(file, c); !s)
        return fail(s);
    if (Status s = checkLayers(c); !s)
        return fail(s);
    return c;
}

} // namespace burrow::model
