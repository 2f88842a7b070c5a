// gemma4 (Gemma 4 E2B, E4B, 26B-A4B, 31B; reference: src/models/gemma4.cpp,
// where it and Hugging Face differ the reference is followed):
// - embeddings x sqrt(n_embd); sandwich norms (post_attention_norm,
//   post_ffw_norm); GeGLU (tanh GELU); tied output unless output.weight;
//   the final logit softcap when final_logit_softcapping is present;
// - which layers slide is a required per-layer array
//   (attention.sliding_window_pattern, one bool per block) over a required
//   attention.sliding_window; sliding layers have their own head size
//   (attention.key_length_swa = value_length_swa, required) and rotated dims
//   (rope.dimension_count_swa), RoPE base rope.freq_base_swa (10000) unscaled;
//   global layers attention.key_length = value_length, rope.freq_base and the
//   "proportional" partial RoPE: rope_freqs divides the angle of each pair
//   (1e30 for the pairs that do not turn);
// - Q and K heads get RMS norms with weights, V heads a weightless RMS norm;
//   a layer without attn_v uses the raw K projection as V (before the norms);
//   no query scale (attention scale 1);
// - the last attention.shared_kv_layers blocks compute no keys and values:
//   a sliding one attends over block n_kv - 2's, a global one over block
//   n_kv - 1's (n_kv = blocks - shared; the reference's layer reuse), so
//   they have no cache of their own (their files may still carry K/V
//   weights, which are not read);
// - per-layer input embeddings (E2B, E4B; embedding_length_per_layer_input
//   > 0, required key): per_layer_token_embd [Epl x blocks, vocab] x
//   sqrt(Epl) plus rmsnorm(per_layer_model_proj . x / sqrt(n_embd)) *
//   per_layer_proj_norm, times 1/sqrt(2); after each block
//   x += rmsnorm(proj . (gelu(inp_gate . x) * that block's slice)) * post_norm;
// - the optional layer_output_scale [1] multiplies a block's output;
// - experts (26B-A4B; expert_count > 0): every layer runs a dense GeGLU MLP
//   (ffn_norm, post_ffw_norm_1) beside the experts (pre_ffw_norm_2,
//   post_ffw_norm_2), their sum through post_ffw_norm; the router reads
//   rmsnorm(x) / sqrt(n_embd) * ffn_gate_inp.scale; softmax over all
//   experts, the top k renormalised; GELU experts (fused gate_up or not),
//   each expert's output times ffn_down_exps.scale[e].
#include "model/architectures.h"

#include "gguf/gguf_reader.h"

#include <cmath>

namespace burrow::model {

namespace {

// The per-layer sliding flags: an array of nLayer bools (or 0/1 integers);
// a single bool means every layer.
Status readSlidingFlags(const gguf::GgufFile &file, const std::string &key, uint32_t nLayer, std::vector<bool> &out)
{
    const gguf::KeyValue *kv = file.find(key);
    if (!kv)
        return Status::error("missing metadata key '" + key + "' (gemma4 needs one bool per block: sliding or global)");
    const gguf::Value &v = kv->value;
    if (v.type == gguf::ValueType::VALUE_TYPE_BOOL) {
        out.assign(nLayer, v.b);
        return Status::ok();
    }
    if (v.type != gguf::ValueType::VALUE_TYPE_ARRAY)
        return Status::error("metadata key '" + key + "' has type " + gguf::valueTypeName(v.type) +
                             ", expected an array of one bool per block");
    if (v.arrayCount != nLayer)
        return Status::error("metadata key '" + key + "' has " + std::to_string(v.arrayCount) + " values, expected " +
                             std::to_string(nLayer) + " (one per block)");
    out.clear();
    if (v.arrayType == gguf::ValueType::VALUE_TYPE_BOOL) {
        for (uint64_t i = 0; i < v.arrayCount; ++i)
            out.push_back(v.arrayData[i] != 0);
        return Status::ok();
    }
    std::vector<int32_t> flags;
    if (Status s = file.getI32Array(key, flags); !s)
        return Status::error("metadata key '" + key + "': " + s.message() + " (expected one bool per block)");
    for (const int32_t f : flags) {
        if (f != 0 && f != 1)
            return Status::error("metadata key '" + key + "' holds " + std::to_string(f) + ", expected 0 or 1 per block");
        out.push_back(f != 0);
    }
    return Status::ok();
}

Status readHeadSize(const gguf::GgufFile &file, const std::string &key, uint32_t &out)
{
    if (Status s = file.getU32(key, out); !s)
        return s;
    if (out < 1 || out > 4096)
        return Status::error("metadata key '" + key + "' is " + std::to_string(out) + ", expected 1..4096");
    return Status::ok();
}

// Head sizes and rotated dims of the sliding layers.
Status configureSlidingHeads(const gguf::GgufFile &file, ModelConfig &c)
{
    const std::string p = c.archName + ".";
    uint32_t keySwa = 0, valueSwa = 0;
    if (Status s = readHeadSize(file, p + "attention.key_length_swa", keySwa); !s)
        return s;
    if (Status s = readHeadSize(file, p + "attention.value_length_swa", valueSwa); !s)
        return s;
    if (c.headDimK != c.headDimV)
        return Status::error(c.archName + ": attention.key_length " + std::to_string(c.headDimK) + " and value_length " +
                             std::to_string(c.headDimV) + " differ (Gemma 4 uses V = K)");
    if (keySwa != valueSwa)
        return Status::error(c.archName + ": attention.key_length_swa " + std::to_string(keySwa) + " and value_length_swa " +
                             std::to_string(valueSwa) + " differ (Gemma 4 uses V = K)");
    uint32_t rotSwa = c.nRot;
    if (Status s = file.getOptionalU32(p + "rope.dimension_count_swa", rotSwa); !s)
        return s;
    if (rotSwa == 0 || rotSwa > keySwa || rotSwa % 2 != 0)
        return Status::error("metadata key '" + p + "rope.dimension_count_swa' is " + std::to_string(rotSwa) +
                             ", expected an even number <= attention.key_length_swa " + std::to_string(keySwa));
    float swaBase = 10000.0f;
    if (Status s = file.getOptionalF32(p + "rope.freq_base_swa", swaBase); !s)
        return s;
    for (LayerSpec &l : c.layers) {
        l.ropeFactors = !l.sliding;   // rope_freqs: the global layers' proportional RoPE
        if (!l.sliding) {
            c.ropeFreqsRequired = true;
            continue;
        }
        l.headDimK = keySwa;
        l.headDimV = valueSwa;
        l.nRot = rotSwa;
        l.ropeFreqBase = swaBase;
        l.ropeFreqScale = 1.0f;
    }
    return Status::ok();
}

// The last shared_kv_layers blocks read an earlier block's keys and values.
Status configureSharedKv(const gguf::GgufFile &file, ModelConfig &c)
{
    const std::string key = "gemma4.attention.shared_kv_layers";
    uint32_t shared = 0;
    if (Status s = file.getOptionalU32(key, shared); !s)
        return s;
    if (shared == 0)
        return Status::ok();
    if (shared > c.nLayer || c.nLayer - shared < 2)
        return Status::error("metadata key '" + key + "' is " + std::to_string(shared) + ": shared layers beyond the " +
                             std::to_string(c.nLayer) + " blocks (at least 2 blocks must keep their own keys and values)");
    const uint32_t first = c.nLayer - shared;
    if (!c.layers[first - 2].sliding || c.layers[first - 1].sliding)
        return Status::error("metadata key '" + key + "' is " + std::to_string(shared) + ": the shared blocks read block " +
                             std::to_string(first - 2) + " (must be sliding) and block " + std::to_string(first - 1) +
                             " (must be global), which the sliding_window_pattern does not give");
    c.nSharedKvLayers = shared;
    for (uint32_t il = first; il < c.nLayer; ++il)
        c.layers[il].kvLayer = c.layers[il].sliding ? first - 2 : first - 1;
    return Status::ok();
}

Status configureExperts(const gguf::GgufFile &file, ModelConfig &c)
{
    if (c.nExpert == 0)
        return Status::ok();
    if (!file.find("gemma4.expert_feed_forward_length"))
        return Status::error("missing metadata key 'gemma4.expert_feed_forward_length' (a Gemma 4 model with experts)");
    if (Status s = readExperts(file, c, 0); !s)
        return s;
    c.expertGating = ExpertGating::EXPERT_GATING_SOFTMAX;
    c.expertWeightsNorm = true;
    c.routerInputScale = true;
    for (LayerSpec &l : c.layers)
        l.denseBesideMoe = true;
    return Status::ok();
}

} // namespace

Status configureGemma4Attention(const gguf::GgufFile &file, ModelConfig &config)
{
    ModelConfig &c = config;
    const std::string p = c.archName + ".";
    c.ropeType = RopeType::ROPE_TYPE_NEOX;
    c.ffnActivation = FfnActivation::FFN_ACTIVATION_GELU_TANH;
    c.qkNorm = true;
    c.vNorm = true;
    c.valueFromKey = true;
    c.postNorms = true;
    c.layerOutputScale = true;
    c.queryScale = 1.0f;                 // attention scale 1, inside the softmax
    c.queryScaleBeforeAttention = false;
    if (Status s = file.getU32(p + "attention.sliding_window", c.slidingWindow); !s)
        return s;
    if (c.slidingWindow == 0)
        return Status::error("metadata key '" + p + "attention.sliding_window' is 0, expected the window of the sliding layers");
    std::vector<bool> sliding;
    if (Status s = readSlidingFlags(file, p + "attention.sliding_window_pattern", c.nLayer, sliding); !s)
        return s;
    for (uint32_t il = 0; il < c.nLayer; ++il)
        c.layers[il].sliding = sliding[il];
    return configureSlidingHeads(file, c);
}

Status configureGemma4(const gguf::GgufFile &file, ModelConfig &config)
{
    ModelConfig &c = config;
    const std::string p = "gemma4.";
    if (Status s = configureGemma4Attention(file, c); !s)
        return s;
    c.embeddingScale = std::sqrt(static_cast<float>(c.nEmbd));
    c.draftsFromHidden = true;           // a gemma4-assistant file may draft for it

    float finalCap = 0.0f;
    if (Status s = file.getOptionalF32(p + "final_logit_softcapping", finalCap); !s)
        return s;
    if (!(finalCap >= 0.0f) || !std::isfinite(finalCap))
        return Status::error("gemma4.final_logit_softcapping must be finite and >= 0");
    c.finalSoftcap = finalCap;

    if (Status s = file.getU32(p + "embedding_length_per_layer_input", c.nEmbdPerLayer); !s)
        return s;
    if (c.nEmbdPerLayer > (1u << 16))
        return Status::error("metadata key '" + p + "embedding_length_per_layer_input' is " +
                             std::to_string(c.nEmbdPerLayer) + ", expected 0..65536");
    if (Status s = configureSharedKv(file, c); !s)
        return s;
    return configureExperts(file, c);
}

} // namespace burrow::model
