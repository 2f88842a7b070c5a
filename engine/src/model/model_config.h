// ModelConfig: the hyper-parameters of a model, read from GGUF metadata, plus
// everything in which the supported architectures differ, as data. The
// forward pass (runtime/forward.cpp) reads these fields; there is one forward
// pass for every architecture.
//
// Contract: loadModelConfig() checks the declared type of every key it reads
// and the consistency of the numbers (head counts divide, dimensions > 0,
// bounded); an architecture other than llama, qwen2, phi3, gemma2 is refused
// by name.
#pragma once

#include "burrow/status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace burrow::gguf { class GgufFile; }

namespace burrow::model {

enum class Architecture : uint32_t {
    ARCHITECTURE_LLAMA,
    ARCHITECTURE_QWEN2,
    ARCHITECTURE_PHI3,
    ARCHITECTURE_GEMMA2,
};

// How RoPE pairs the elements of a head: NORM rotates (x[2i], x[2i+1]);
// NEOX rotates (x[i], x[i + nRot/2]).
enum class RopeType : uint32_t { ROPE_TYPE_NORM, ROPE_TYPE_NEOX };

enum class FfnActivation : uint32_t {
    FFN_ACTIVATION_SILU,        // SwiGLU: silu(gate) * up
    FFN_ACTIVATION_GELU_TANH,   // GeGLU: gelu_tanh(gate) * up
};

struct ModelConfig {
    Architecture arch = Architecture::ARCHITECTURE_LLAMA;
    std::string archName;              // general.architecture

    // Sizes.
    uint32_t nVocab = 0;               // from token_embd (set by loadWeights) or {arch}.vocab_size
    uint32_t nCtxTrain = 0;            // {arch}.context_length
    uint32_t nEmbd = 0;                // {arch}.embedding_length
    uint32_t nLayer = 0;               // {arch}.block_count
    uint32_t nHead = 0;                // {arch}.attention.head_count
    uint32_t nHeadKv = 0;              // {arch}.attention.head_count_kv (default nHead)
    uint32_t headDimK = 0;             // {arch}.attention.key_length (default nEmbd / nHead)
    uint32_t headDimV = 0;             // {arch}.attention.value_length (default nEmbd / nHead)
    uint32_t nFf = 0;                  // {arch}.feed_forward_length
    float rmsEps = 1e-5f;              // {arch}.attention.layer_norm_rms_epsilon

    // RoPE.
    RopeType ropeType = RopeType::ROPE_TYPE_NORM;
    uint32_t nRot = 0;                 // {arch}.rope.dimension_count (default headDimK); rotated dims per head
    float ropeFreqBase = 10000.0f;     // {arch}.rope.freq_base
    float ropeFreqScale = 1.0f;        // 1 / {arch}.rope.scaling.factor for linear scaling

    // What differs between architectures (set by the per-architecture files).
    FfnActivation ffnActivation = FfnActivation::FFN_ACTIVATION_SILU;
    bool fusedQkv = false;             // one attn_qkv [nEmbd, nEmbd + 2*nEmbdKv] instead of attn_q/k/v
    bool fusedGateUp = false;          // ffn_up [nEmbd, 2*nFf] = (gate | up), no ffn_gate
    bool qkvBiasRequired = false;      // attn_q/k/v.bias must be present (qwen2)
    bool postNorms = false;            // post_attention_norm and post_ffw_norm before the residual adds
    bool outputAlwaysTied = false;     // ignore output.weight, use token_embd (gemma2)
    float embeddingScale = 0.0f;       // 0: none; else token embeddings are multiplied by it
    float attnSoftcap = 0.0f;          // 0: none; else scores = c * tanh(scores / c) before the mask
    float finalSoftcap = 0.0f;         // 0: none; else logits = c * tanh(logits / c)
    // Attention scale: 1/sqrt(headDimK) unless set. When queryScaleBeforeAttention
    // the queries are multiplied after RoPE (phi3, gemma2) and the scores are not
    // scaled again; otherwise the scores are scaled inside the softmax (llama, qwen2).
    float queryScale = 0.0f;
    bool queryScaleBeforeAttention = false;
    // Sliding-window attention: a query at position p sees keys at positions
    // p - slidingWindow < k <= p on the layers where swaLayers[layer] is true.
    uint32_t slidingWindow = 0;        // 0: none
    std::vector<bool> swaLayers;       // size nLayer once loaded

    // Set by loadWeights().
    bool tiedOutput = false;           // no output.weight: the output matrix is token_embd

    uint32_t nEmbdQ() const { return nHead * headDimK; }
    uint32_t nEmbdKv() const { return nHeadKv * headDimK; }   // K (and V, headDimV) row of one position
    uint32_t nEmbdVKv() const { return nHeadKv * headDimV; }
    uint32_t nEmbdVOut() const { return nHead * headDimV; }   // attention output before attn_output
    float attentionScale() const;
};

// Reads and checks the hyper-parameters of `file`.
Result<ModelConfig> loadModelConfig(const gguf::GgufFile &file);

// "llama", "qwen2", "phi3", "gemma2".
const char *architectureName(Architecture arch);

} // namespace burrow::model
