#include "model/tensor_names.h"

#include <array>
#include <cstdio>

namespace burrow::model {
namespace {

constexpr std::array<TensorNameEntry, static_cast<size_t>(TensorKind::TENSOR_KIND_COUNT)> kNames = {{
    {TensorKind::TENSOR_KIND_TOKEN_EMBD,       "token_embd.weight",               false},
    {TensorKind::TENSOR_KIND_OUTPUT_NORM,      "output_norm.weight",              false},
    {TensorKind::TENSOR_KIND_OUTPUT,           "output.weight",                   false},
    {TensorKind::TENSOR_KIND_ROPE_FREQS,       "rope_freqs.weight",               false},
    {TensorKind::TENSOR_KIND_ATTN_NORM,        "blk.%d.attn_norm.weight",          true},
    {TensorKind::TENSOR_KIND_ATTN_Q,           "blk.%d.attn_q.weight",             true},
    {TensorKind::TENSOR_KIND_ATTN_K,           "blk.%d.attn_k.weight",             true},
    {TensorKind::TENSOR_KIND_ATTN_V,           "blk.%d.attn_v.weight",             true},
    {TensorKind::TENSOR_KIND_ATTN_QKV,         "blk.%d.attn_qkv.weight",           true},
    {TensorKind::TENSOR_KIND_ATTN_Q_BIAS,      "blk.%d.attn_q.bias",               true},
    {TensorKind::TENSOR_KIND_ATTN_K_BIAS,      "blk.%d.attn_k.bias",               true},
    {TensorKind::TENSOR_KIND_ATTN_V_BIAS,      "blk.%d.attn_v.bias",               true},
    {TensorKind::TENSOR_KIND_ATTN_QKV_BIAS,    "blk.%d.attn_qkv.bias",             true},
    {TensorKind::TENSOR_KIND_ATTN_OUTPUT,      "blk.%d.attn_output.weight",        true},
    {TensorKind::TENSOR_KIND_ATTN_OUTPUT_BIAS, "blk.%d.attn_output.bias",          true},
    {TensorKind::TENSOR_KIND_ATTN_POST_NORM,   "blk.%d.post_attention_norm.weight", true},
    {TensorKind::TENSOR_KIND_FFN_NORM,         "blk.%d.ffn_norm.weight",           true},
    {TensorKind::TENSOR_KIND_FFN_GATE,         "blk.%d.ffn_gate.weight",           true},
    {TensorKind::TENSOR_KIND_FFN_UP,           "blk.%d.ffn_up.weight",             true},
    {TensorKind::TENSOR_KIND_FFN_DOWN,         "blk.%d.ffn_down.weight",           true},
    {TensorKind::TENSOR_KIND_FFN_POST_NORM,    "blk.%d.post_ffw_norm.weight",      true},
    {TensorKind::TENSOR_KIND_ATTN_Q_NORM,      "blk.%d.attn_q_norm.weight",        true},
    {TensorKind::TENSOR_KIND_ATTN_K_NORM,      "blk.%d.attn_k_norm.weight",        true},
    {TensorKind::TENSOR_KIND_ATTN_SINKS,       "blk.%d.attn_sinks.weight",         true},
    {TensorKind::TENSOR_KIND_FFN_GATE_INP,     "blk.%d.ffn_gate_inp.weight",       true},
    {TensorKind::TENSOR_KIND_FFN_GATE_INP_BIAS, "blk.%d.ffn_gate_inp.bias",        true},
    {TensorKind::TENSOR_KIND_FFN_GATE_EXPS,    "blk.%d.ffn_gate_exps.weight",      true},
    {TensorKind::TENSOR_KIND_FFN_UP_EXPS,      "blk.%d.ffn_up_exps.weight",        true},
    {TensorKind::TENSOR_KIND_FFN_DOWN_EXPS,    "blk.%d.ffn_down_exps.weight",      true},
    {TensorKind::TENSOR_KIND_FFN_GATE_UP_EXPS, "blk.%d.ffn_gate_up_exps.weight",   true},
    {TensorKind::TENSOR_KIND_FFN_GATE_EXPS_BIAS, "blk.%d.ffn_gate_exps.bias",      true},
    {TensorKind::TENSOR_KIND_FFN_UP_EXPS_BIAS, "blk.%d.ffn_up_exps.bias",          true},
    {TensorKind::TENSOR_KIND_FFN_DOWN_EXPS_BIAS, "blk.%d.ffn_down_exps.bias",      true},
    {TensorKind::TENSOR_KIND_FFN_GATE_UP_EXPS_BIAS, "blk.%d.ffn_gate_up_exps.bias", true},
    {TensorKind::TENSOR_KIND_FFN_GATE_INP_SHEXP, "blk.%d.ffn_gate_inp_shexp.weight", true},
    {TensorKind::TENSOR_KIND_FFN_GATE_SHEXP,   "blk.%d.ffn_gate_shexp.weight",     true},
    {TensorKind::TENSOR_KIND_FFN_UP_SHEXP,     "blk.%d.ffn_up_shexp.weight",       true},
    {TensorKind::TENSOR_KIND_FFN_DOWN_SHEXP,   "blk.%d.ffn_down_shexp.weight",     true},
    {TensorKind::TENSOR_KIND_ATTN_GATE,        "blk.%d.attn_gate.weight",          true},
    {TensorKind::TENSOR_KIND_SSM_CONV1D,       "blk.%d.ssm_conv1d.weight",         true},
    {TensorKind::TENSOR_KIND_SSM_DT_BIAS,      "blk.%d.ssm_dt.bias",               true},
    {TensorKind::TENSOR_KIND_SSM_A,            "blk.%d.ssm_a",                     true},
    {TensorKind::TENSOR_KIND_SSM_BETA,         "blk.%d.ssm_beta.weight",           true},
    {TensorKind::TENSOR_KIND_SSM_ALPHA,        "blk.%d.ssm_alpha.weight",          true},
    {TensorKind::TENSOR_KIND_SSM_NORM,         "blk.%d.ssm_norm.weight",           true},
    {TensorKind::TENSOR_KIND_SSM_OUT,          "blk.%d.ssm_out.weight",            true},
    {TensorKind::TENSOR_KIND_PER_LAYER_TOKEN_EMBD, "per_layer_token_embd.weight",      false},
    {TensorKind::TENSOR_KIND_PER_LAYER_MODEL_PROJ, "per_layer_model_proj.weight",      false},
    {TensorKind::TENSOR_KIND_PER_LAYER_PROJ_NORM, "per_layer_proj_norm.weight",        false},
    {TensorKind::TENSOR_KIND_PER_LAYER_INP_GATE, "blk.%d.inp_gate.weight",             true},
    {TensorKind::TENSOR_KIND_PER_LAYER_PROJ,   "blk.%d.proj.weight",                   true},
    {TensorKind::TENSOR_KIND_PER_LAYER_POST_NORM, "blk.%d.post_norm.weight",           true},
    {TensorKind::TENSOR_KIND_LAYER_OUTPUT_SCALE, "blk.%d.layer_output_scale.weight",   true},
    {TensorKind::TENSOR_KIND_FFN_PRE_NORM_2,   "blk.%d.pre_ffw_norm_2.weight",         true},
    {TensorKind::TENSOR_KIND_FFN_POST_NORM_1,  "blk.%d.post_ffw_norm_1.weight",        true},
    {TensorKind::TENSOR_KIND_FFN_POST_NORM_2,  "blk.%d.post_ffw_norm_2.weight",        true},
    {TensorKind::TENSOR_KIND_FFN_GATE_INP_SCALE, "blk.%d.ffn_gate_inp.scale",          true},
    {TensorKind::TENSOR_KIND_FFN_DOWN_EXPS_SCALE, "blk.%d.ffn_down_exps.scale",        true},
    {TensorKind::TENSOR_KIND_NEXTN_EH_PROJ,       "blk.%d.nextn.eh_proj.weight",       true},
    {TensorKind::TENSOR_KIND_NEXTN_ENORM,         "blk.%d.nextn.enorm.weight",         true},
    {TensorKind::TENSOR_KIND_NEXTN_HNORM,         "blk.%d.nextn.hnorm.weight",         true},
    {TensorKind::TENSOR_KIND_NEXTN_EMBED_TOKENS,  "blk.%d.nextn.embed_tokens.weight",  true},
    {TensorKind::TENSOR_KIND_NEXTN_SHARED_HEAD_HEAD, "blk.%d.nextn.shared_head_head.weight", true},
    {TensorKind::TENSOR_KIND_NEXTN_SHARED_HEAD_NORM, "blk.%d.nextn.shared_head_norm.weight", true},
    {TensorKind::TENSOR_KIND_NEXTN_PROJ_PRE,      "nextn.pre_projection.weight",       false},
    {TensorKind::TENSOR_KIND_NEXTN_PROJ_POST,     "nextn.post_projection.weight",      false},
}};

// The table is indexed by kind; keep it in enum order.
constexpr bool tableInOrder()
{
    for (size_t i = 0; i < kNames.size(); ++i)
        if (static_cast<size_t>(kNames[i].kind) != i)
            return false;
    return true;
}
static_assert(tableInOrder(), "kNames must list the TensorKind values in order");

} // namespace

const TensorNameEntry &tensorNameEntry(TensorKind kind)
{
    return kNames[static_cast<size_t>(kind)];
}

std::string tensorName(TensorKind kind, int layer)
{
    const TensorNameEntry &e = tensorNameEntry(kind);
    if (!e.perLayer)
        return e.pattern;
    char buf[96];
    std::snprintf(buf, sizeof buf, e.pattern, layer);
    return buf;
}

} // namespace burrow::model
