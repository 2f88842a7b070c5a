// The GGUF tensor names the engine knows: one table from a TensorKind to its
// name pattern. Per-layer names carry the layer index ("blk.%d.attn_q.weight").
#pragma once

#include <cstdint>
#include <string>

namespace burrow::model {

enum class TensorKind : uint32_t {
    // model level
    TENSOR_KIND_TOKEN_EMBD,
    TENSOR_KIND_OUTPUT_NORM,
    TENSOR_KIND_OUTPUT,
    TENSOR_KIND_ROPE_FREQS,
    // per layer
    TENSOR_KIND_ATTN_NORM,
    TENSOR_KIND_ATTN_Q,
    TENSOR_KIND_ATTN_K,
    TENSOR_KIND_ATTN_V,
    TENSOR_KIND_ATTN_QKV,
    TENSOR_KIND_ATTN_Q_BIAS,
    TENSOR_KIND_ATTN_K_BIAS,
    TENSOR_KIND_ATTN_V_BIAS,
    TENSOR_KIND_ATTN_QKV_BIAS,
    TENSOR_KIND_ATTN_OUTPUT,
    TENSOR_KIND_ATTN_OUTPUT_BIAS,
    TENSOR_KIND_ATTN_POST_NORM,
    TENSOR_KIND_FFN_NORM,
    TENSOR_KIND_FFN_GATE,
    TENSOR_KIND_FFN_UP,
    TENSOR_KIND_FFN_DOWN,
    TENSOR_KIND_FFN_POST_NORM,
    TENSOR_KIND_ATTN_Q_NORM,
    TENSOR_KIND_ATTN_K_NORM,
    TENSOR_KIND_ATTN_SINKS,
    TENSOR_KIND_FFN_GATE_INP,
    TENSOR_KIND_FFN_GATE_INP_BIAS,
    TENSOR_KIND_FFN_GATE_EXPS,
    TENSOR_KIND_FFN_UP_EXPS,
    TENSOR_KIND_FFN_DOWN_EXPS,
    TENSOR_KIND_FFN_GATE_UP_EXPS,
    TENSOR_KIND_FFN_GATE_EXPS_BIAS,
    TENSOR_KIND_FFN_UP_EXPS_BIAS,
    TENSOR_KIND_FFN_DOWN_EXPS_BIAS,
    TENSOR_KIND_FFN_GATE_UP_EXPS_BIAS,
    // shared expert (qwen35moe)
    TENSOR_KIND_FFN_GATE_INP_SHEXP,
    TENSOR_KIND_FFN_GATE_SHEXP,
    TENSOR_KIND_FFN_UP_SHEXP,
    TENSOR_KIND_FFN_DOWN_SHEXP,
    // Gated DeltaNet layers (qwen35); attn_qkv is TENSOR_KIND_ATTN_QKV
    TENSOR_KIND_ATTN_GATE,
    TENSOR_KIND_SSM_CONV1D,
    TENSOR_KIND_SSM_DT_BIAS,
    TENSOR_KIND_SSM_A,
    TENSOR_KIND_SSM_BETA,
    TENSOR_KIND_SSM_ALPHA,
    TENSOR_KIND_SSM_NORM,
    TENSOR_KIND_SSM_OUT,
    // gemma4: per-layer input embeddings (model level, then per layer)
    TENSOR_KIND_PER_LAYER_TOKEN_EMBD,
    TENSOR_KIND_PER_LAYER_MODEL_PROJ,
    TENSOR_KIND_PER_LAYER_PROJ_NORM,
    TENSOR_KIND_PER_LAYER_INP_GATE,
    TENSOR_KIND_PER_LAYER_PROJ,
    TENSOR_KIND_PER_LAYER_POST_NORM,
    // gemma4: the layer's output scale, the dense MLP beside the experts,
    // the router input scale and the experts' output scales
    TENSOR_KIND_LAYER_OUTPUT_SCALE,
    TENSOR_KIND_FFN_PRE_NORM_2,
    TENSOR_KIND_FFN_POST_NORM_1,
    TENSOR_KIND_FFN_POST_NORM_2,
    TENSOR_KIND_FFN_GATE_INP_SCALE,
    TENSOR_KIND_FFN_DOWN_EXPS_SCALE,
    // multi-token prediction (qwen35: the block after the trunk)
    TENSOR_KIND_NEXTN_EH_PROJ,
    TENSOR_KIND_NEXTN_ENORM,
    TENSOR_KIND_NEXTN_HNORM,
    TENSOR_KIND_NEXTN_EMBED_TOKENS,
    TENSOR_KIND_NEXTN_SHARED_HEAD_HEAD,
    TENSOR_KIND_NEXTN_SHARED_HEAD_NORM,
    // gemma4-assistant (model level): its input and hidden-state projections
    TENSOR_KIND_NEXTN_PROJ_PRE,
    TENSOR_KIND_NEXTN_PROJ_POST,
    TENSOR_KIND_COUNT,
};

struct TensorNameEntry {
    TensorKind kind;
    const char *pattern;   // printf pattern; per-layer patterns contain one %d
    bool perLayer;
};

// The row for `kind` (kind < TENSOR_KIND_COUNT).
const TensorNameEntry &tensorNameEntry(TensorKind kind);

// The tensor name for `kind` (layer ignored for model-level kinds).
std::string tensorName(TensorKind kind, int layer = -1);

} // namespace burrow::model
