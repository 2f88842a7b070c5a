// qwen35 (Qwen3.5 / Qwen3.6 0.8B-27B) and qwen35moe (35B-A3B and larger):
// a hybrid. Three layers of every four (attention.recurrent_layers, else
// every layer il with (il + 1) % full_attention_interval != 0, interval 4 by
// default) are Gated DeltaNet layers: a fused attn_qkv projection into a
// short causal convolution, the delta rule over a per-head S x S state, a
// gated RMS norm and ssm_out (runtime/forward.h). The others are gated
// attention: attn_q holds query and gate per head, per-head Q/K norms,
// partial multi-section RoPE (IMROPE: rope.dimension_sections of the
// rope.dimension_count rotated dims), the output times sigmoid(gate).
// Every layer: attn_norm before the mixer, post_attention_norm before the
// FFN (SwiGLU; qwen35moe: softmax top-k experts renormalised, plus a shared
// expert gated by sigmoid(ffn_gate_inp_shexp . h)). Tied output when
// output.weight is absent. Multi-token-prediction blocks
// (nextn_predict_layers) follow the trunk: one (the reference runs only one)
// is loaded as layers[nLayer], a gated-attention block of the trunk's kind,
// when the file has its blk.N.nextn.eh_proj (a file without it, or with more
// than one block, loads its trunk alone). Reference: src/models/qwen35.cpp
// graph_mtp, load_block_mtp.
// Reference: src/models/qwen35.cpp, qwen35moe.cpp, delta-net-base.cpp.
#include "model/architectures.h"

#include "gguf/gguf_reader.h"

namespace burrow::model {

namespace {

Status readU32(const gguf::GgufFile &file, const std::string &key, uint32_t lo, uint32_t hi, uint32_t &out)
{
    if (Status s = file.getU32(key, out); !s)
        return s;
    if (out < lo || out > hi)
        return Status::error("metadata key '" + key + "' is " + std::to_string(out) + ", expected " +
                             std::to_string(lo) + ".." + std::to_string(hi));
    return Status::ok();
}

// Which layers are recurrent: attention.recurrent_layers (one bool or
// integer per layer) or full_attention_interval.
Status markRecurrentLayers(const gguf::GgufFile &file, ModelConfig &c, uint32_t nLayerAll)
{
    const std::string p = c.archName + ".";
    if (const gguf::KeyValue *kv = file.find(p + "attention.recurrent_layers")) {
        const gguf::Value &v = kv->value;
        if (v.type != gguf::ValueType::VALUE_TYPE_ARRAY || v.arrayCount != nLayerAll)
            return Status::error("metadata key '" + p + "attention.recurrent_layers' must be an array of " +
                                 std::to_string(nLayerAll) + " bools (one per block)");
        std::vector<int32_t> flags;
        if (v.arrayType == gguf::ValueType::VALUE_TYPE_BOOL) {
            for (uint64_t i = 0; i < v.arrayCount; ++i)
                flags.push_back(v.arrayData[i] != 0 ? 1 : 0);
        } else if (Status s = file.getI32Array(p + "attention.recurrent_layers", flags); !s) {
            return s;
        }
        for (uint32_t il = 0; il < c.nLayer; ++il)
            c.layers[il].recurrent = flags[il] != 0;
        return Status::ok();
    }
    uint32_t interval = 4;
    if (Status s = file.getOptionalU32(p + "full_attention_interval", interval); !s)
        return s;
    if (interval < 1 || interval > 1024)
        return Status::error("metadata key '" + p + "full_attention_interval' is " + std::to_string(interval) +
                             ", expected 1..1024");
    for (uint32_t il = 0; il < c.nLayer; ++il)
        c.layers[il].recurrent = (il + 1) % interval != 0;
    return Status::ok();
}

Status configureQwen35Common(const gguf::GgufFile &file, ModelConfig &c)
{
    const std::string p = c.archName + ".";
    c.ropeType = RopeType::ROPE_TYPE_NEOX;   // IMROPE turns NeoX pairs
    c.ffnActivation = FfnActivation::FFN_ACTIVATION_SILU;
    c.qkNorm = true;
    c.attnOutputGate = true;
    c.ffnNormNamedPostAttention = true;

    // Multi-token-prediction blocks after the trunk.
    uint32_t nextn = 0;
    if (Status s = file.getOptionalU32(p + "nextn_predict_layers", nextn); !s)
        return s;
    if (nextn >= c.nLayer)
        return Status::error("metadata key '" + p + "nextn_predict_layers' is " + std::to_string(nextn) +
                             ", expected fewer than the " + std::to_string(c.nLayer) + " blocks");
    const uint32_t nLayerAll = c.nLayer;
    c.nLayer -= nextn;
    c.nextnDeclared = nextn;
    c.nLayerMtp = nextn == 1 && file.tensor("blk." + std::to_string(c.nLayer) + ".nextn.eh_proj.weight") ? 1 : 0;
    c.layers.resize(c.nLayer + c.nLayerMtp);
    if (c.nLayerMtp > 0)
        c.layers[c.nLayer].kvLayer = c.nLayer;   // its own keys and values (the trunk's kind of attention)

    if (c.headDimK != c.headDimV)
        return Status::error(c.archName + ": attention.key_length " + std::to_string(c.headDimK) +
                             " and attention.value_length " + std::to_string(c.headDimV) + " differ");

    // RoPE sections (4 values; the reference requires the key).
    std::vector<int32_t> sections;
    if (Status s = file.getI32Array(p + "rope.dimension_sections", sections); !s)
        return s;
    if (sections.size() != 4)
        return Status::error("metadata key '" + p + "rope.dimension_sections' has " + std::to_string(sections.size()) +
                             " values, expected 4");
    uint64_t sum = 0;
    for (int i = 0; i < 4; ++i) {
        if (sections[static_cast<size_t>(i)] < 0)
            return Status::error("metadata key '" + p + "rope.dimension_sections' has a negative value");
        c.ropeSections[i] = static_cast<uint32_t>(sections[static_cast<size_t>(i)]);
        sum += c.ropeSections[i];
    }
    if (c.ropeSections[0] + c.ropeSections[1] + c.ropeSections[2] == 0)
        return Status::error("metadata key '" + p + "rope.dimension_sections' is all zero for the text positions");
    if (sum > c.headDimK)
        return Status::error("metadata key '" + p + "rope.dimension_sections' adds up to " + std::to_string(sum) +
                             " pairs, more than the head size " + std::to_string(c.headDimK));

    // Gated DeltaNet.
    if (Status s = readU32(file, p + "ssm.conv_kernel", 2, 16, c.ssmConvKernel); !s)
        return s;
    if (Status s = readU32(file, p + "ssm.state_size", 1, 1024, c.ssmStateSize); !s)
        return s;
    if (Status s = readU32(file, p + "ssm.group_count", 1, 1024, c.ssmGroupCount); !s)
        return s;
    if (Status s = readU32(file, p + "ssm.time_step_rank", 1, 1024, c.ssmTimeStepRank); !s)
        return s;
    if (Status s = readU32(file, p + "ssm.inner_size", 1, 1u << 20, c.ssmInnerSize); !s)
        return s;
    if (c.ssmTimeStepRank % c.ssmGroupCount != 0)
        return Status::error(c.archName + ": ssm.time_step_rank " + std::to_string(c.ssmTimeStepRank) +
                             " (value heads) is not a multiple of ssm.group_count " + std::to_string(c.ssmGroupCount) +
                             " (key heads)");
    if (static_cast<uint64_t>(c.ssmTimeStepRank) * c.ssmStateSize != c.ssmInnerSize)
        return Status::error(c.archName + ": ssm.inner_size " + std::to_string(c.ssmInnerSize) + " is not ssm.time_step_rank " +
                             std::to_string(c.ssmTimeStepRank) + " x ssm.state_size " + std::to_string(c.ssmStateSize) +
                             " (the delta rule needs value heads of the key head size)");
    return markRecurrentLayers(file, c, nLayerAll);
}

} // namespace

Status configureQwen35(const gguf::GgufFile &file, ModelConfig &config)
{
    return configureQwen35Common(file, config);
}

Status configureQwen35Moe(const gguf::GgufFile &file, ModelConfig &config)
{
    if (Status s = configureQwen35Common(file, config); !s)
        return s;
    if (Status s = readQwenExperts(file, config); !s)
        return s;
    const std::string key = config.archName + ".expert_shared_feed_forward_length";
    config.nFfShexp = config.nFf;
    if (Status s = file.getOptionalU32(key, config.nFfShexp); !s)
        return s;
    if (config.nFfShexp == 0 || config.nFfShexp > (1u << 20))
        return Status::error("metadata key '" + key + "' is " + std::to_string(config.nFfShexp) + ", expected 1..1048576");
    return Status::ok();
}

} // namespace burrow::model
