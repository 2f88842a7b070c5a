// ModelConfig: the hyper-parameters of a model, read from GGUF metadata, plus
// everything in which the supported architectures differ, as data. The
// forward pass (runtime/forward.cpp) reads these fields; there is one forward
// pass for every architecture.
//
// Contract: loadModelConfig() checks the declared type of every key it reads
// and the consistency of the numbers (head counts divide, dimensions > 0,
// bounded); an architecture the engine does not know is refused by name.
//
// Per-layer differences (sliding window or not, RoPE base and scale, dense
// or mixture-of-experts feed-forward) are rows of `layers`; a new layer kind
// is a new field there, read by the one forward pass.
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
    ARCHITECTURE_QWEN3,
    ARCHITECTURE_QWEN3MOE,
    ARCHITECTURE_GEMMA3,
    ARCHITECTURE_GPT_OSS,
    ARCHITECTURE_QWEN35,
    ARCHITECTURE_QWEN35MOE,
    ARCHITECTURE_GEMMA4,
    ARCHITECTURE_GEMMA4_ASSISTANT,
};

// How RoPE pairs the elements of a head: NORM rotates (x[2i], x[2i+1]);
// NEOX rotates (x[i], x[i + nRot/2]).
enum class RopeType : uint32_t { ROPE_TYPE_NORM, ROPE_TYPE_NEOX };

enum class FfnActivation : uint32_t {
    FFN_ACTIVATION_SILU,        // SwiGLU: silu(gate) * up
    FFN_ACTIVATION_GELU_TANH,   // GeGLU: gelu_tanh(gate) * up
    FFN_ACTIVATION_SWIGLU_OAI,  // gpt-oss: g = min(gate, 7), u = clamp(up, -7, 7), g * sigmoid(1.702 g) * (u + 1)
};

// How a mixture-of-experts layer turns router logits into expert weights.
enum class ExpertGating : uint32_t {
    // softmax over all experts, the top k by probability, their
    // probabilities (renormalised to sum 1 when expertWeightsNorm): qwen3moe
    EXPERT_GATING_SOFTMAX,
    // the top k by logit, then a softmax over those k logits: gpt-oss
    EXPERT_GATING_SOFTMAX_SELECTED,
};

// What one layer is, as data (ModelConfig::layers[il]). loadModelConfig
// fills the sizes from the model-wide keys; an architecture overrides them
// per layer (gemma4: head sizes and rotated dims of sliding vs global
// layers, per-layer KV heads and FFN widths, shared KV).
struct LayerSpec {
    bool sliding = false;          // attention sees only the last slidingWindow positions
    float ropeFreqBase = 10000.0f; // RoPE base and frequency scale of this layer
    float ropeFreqScale = 1.0f;
    bool moe = false;              // the feed-forward is a mixture of experts
    // A Gated DeltaNet layer (qwen35): no attention and no KV cache; a
    // recurrent state per sequence instead (ModelConfig::ssm*).
    bool recurrent = false;
    // Attention sizes of this layer (defaults: the model-wide values).
    uint32_t headDimK = 0;         // key (and query) size of one head
    uint32_t headDimV = 0;         // value size of one head
    uint32_t nHeadKv = 0;          // key/value heads
    uint32_t nRot = 0;             // rotated dims per head
    uint32_t nFf = 0;              // rows of the dense FFN's gate/up (0: none)
    // The layer whose keys and values this one attends over: itself, or an
    // earlier layer of the same kind (gemma4's shared KV layers: no K/V
    // projection and no cache of their own).
    uint32_t kvLayer = 0;
    // RoPE frequency divisors (rope_freqs) apply to this layer (Llama 3.1:
    // every layer; gemma4: the global layers' "proportional" RoPE only).
    bool ropeFactors = true;
    // A dense GeGLU MLP runs beside the experts, each with its own post-norm
    // (gemma4 26B-A4B; moe is set too).
    bool denseBesideMoe = false;
    // The layer reads another model's KV cache (gemma4-assistant: the
    // target's): kvLayer indexes that cache's layers (set when the drafter is
    // bound to its target), the layer computes only queries, and a query at
    // position p sees the keys before p (the target's cache holds positions
    // 0..p-1 when the assistant drafts the token at p).
    bool foreignKv = false;
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
    uint32_t nHeadKv = 0;              // {arch}.attention.head_count_kv (default nHead; the largest of a per-layer array)
    uint32_t headDimK = 0;             // {arch}.attention.key_length (default nEmbd / nHead)
    uint32_t headDimV = 0;             // {arch}.attention.value_length (default nEmbd / nHead)
    uint32_t nFf = 0;                  // {arch}.feed_forward_length (the largest of a per-layer array)
    float rmsEps = 1e-5f;              // {arch}.attention.layer_norm_rms_epsilon

    // RoPE.
    RopeType ropeType = RopeType::ROPE_TYPE_NORM;
    uint32_t nRot = 0;                 // {arch}.rope.dimension_count (default headDimK); rotated dims per head
    float ropeFreqBase = 10000.0f;     // {arch}.rope.freq_base
    float ropeFreqScale = 1.0f;        // 1 / {arch}.rope.scaling.factor (linear and YaRN scaling)
    // YaRN (rope.scaling.type yarn, "static": at every context length).
    // theta_i blends the interpolated and extrapolated angles by a ramp over
    // the correction dims; cos and sin are multiplied by ropeMscale.
    float yarnExtFactor = 0.0f;        // 0: no YaRN blend (1 for YaRN)
    float yarnBetaFast = 32.0f;        // {arch}.rope.scaling.yarn_beta_fast
    float yarnBetaSlow = 1.0f;         // {arch}.rope.scaling.yarn_beta_slow
    uint32_t yarnOrigCtx = 0;          // {arch}.rope.scaling.original_context_length (default nCtxTrain)
    // The reference's attn_factor: {arch}.rope.scaling.attn_factor (default
    // 1), with YaRN's magnitude correction taken out again because the rope
    // kernel multiplies it back in (see runtime/rope_tables.h).
    float ropeAttnFactor = 1.0f;

    // What differs between architectures (set by the per-architecture files).
    FfnActivation ffnActivation = FfnActivation::FFN_ACTIVATION_SILU;
    bool fusedQkv = false;             // one attn_qkv [nEmbd, nEmbd + 2*nEmbdKv] instead of attn_q/k/v
    bool fusedGateUp = false;          // ffn_up [nEmbd, 2*nFf] = (gate | up), no ffn_gate
    bool qkvBiasRequired = false;      // attn_q/k/v.bias must be present (qwen2)
    bool attnOutputBiasRequired = false; // attn_output.bias must be present (gpt-oss)
    bool qkNorm = false;               // attn_q_norm / attn_k_norm [headDimK]: RMS norm of each head before RoPE
    bool attnSinks = false;            // attn_sinks [nHead]: one logit per head joins the softmax (gpt-oss)
    bool postNorms = false;            // post_attention_norm and post_ffw_norm before the residual adds
    // The FFN input norm is stored as post_attention_norm (gpt-oss), not ffn_norm.
    bool ffnNormNamedPostAttention = false;
    bool outputRequired = false;       // output.weight must be present (gpt-oss)
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
    // p - slidingWindow < k <= p on the layers where layers[il].sliding.
    uint32_t slidingWindow = 0;        // 0: none

    // Mixture of experts (on the layers where layers[il].moe).
    uint32_t nExpert = 0;              // {arch}.expert_count
    uint32_t nExpertUsed = 0;          // {arch}.expert_used_count (top k)
    uint32_t nFfExp = 0;               // {arch}.expert_feed_forward_length: rows of one expert's gate/up
    ExpertGating expertGating = ExpertGating::EXPERT_GATING_SOFTMAX;
    bool expertWeightsNorm = false;    // renormalise the k weights to sum 1
    float expertWeightsScale = 0.0f;   // 0 or 1: none; else the weights are multiplied by it
    bool expertBiases = false;         // router and expert biases (gpt-oss)

    // Gated attention (qwen35): attn_q holds, per head, the query and then a
    // gate of the same size; the attention output is multiplied by
    // sigmoid(gate) before attn_output.
    bool attnOutputGate = false;
    // Multi-section RoPE of text tokens (qwen35's IMROPE, NeoX pairs): the
    // pairs i < nRot/2 fall into sections by i % sum(sections), interleaved
    // t, h, w; a text token has position p in the first three and 0 in the
    // fourth, so the fourth section's pairs are not turned. All zero: plain
    // RoPE.
    uint32_t ropeSections[4] = {0, 0, 0, 0};

    // Gated DeltaNet (the layers where layers[il].recurrent): ssm.*.
    uint32_t ssmConvKernel = 0;        // ssm.conv_kernel: taps of the causal convolution
    uint32_t ssmStateSize = 0;         // ssm.state_size: key (= value) head size S
    uint32_t ssmGroupCount = 0;        // ssm.group_count: key heads
    uint32_t ssmTimeStepRank = 0;      // ssm.time_step_rank: value heads
    uint32_t ssmInnerSize = 0;         // ssm.inner_size: value heads x S
    // A shared expert beside the routed ones (qwen35moe): ffn_*_shexp, its
    // output times sigmoid(ffn_gate_inp_shexp . h). 0: none.
    uint32_t nFfShexp = 0;

    // gemma4.
    // Per-layer input embeddings (E2B, E4B): per_layer_token_embd holds
    // nEmbdPerLayer values per layer and token; 0: none.
    uint32_t nEmbdPerLayer = 0;
    // The last nSharedKvLayers layers reuse an earlier layer's keys and
    // values (LayerSpec::kvLayer).
    uint32_t nSharedKvLayers = 0;
    // V of each head gets a weightless RMS norm (after the projection, or
    // after V = K where a layer has no attn_v).
    bool vNorm = false;
    // attn_v may be absent on a layer: V = the raw K projection then.
    bool valueFromKey = false;
    // The router input is rmsnorm(x) / sqrt(nEmbd) * ffn_gate_inp.scale (a
    // weight of the architecture, not a per-tensor scale; each expert's
    // output scale, ffn_down_exps.scale, is the per-tensor one below).
    bool routerInputScale = false;
    // Optional layer_output_scale [1]: the layer's output times it.
    bool layerOutputScale = false;
    // rope_freqs must be present (gemma4's global layers turn by it).
    bool ropeFreqsRequired = false;
    // Per-tensor `.scale` tensors (model/weight_scales.h): the reference's
    // graph applies those of the dense FFN and shared expert (ffnScales) and
    // of the experts (expertScales) only in some architectures; elsewhere
    // they are read and ignored, as there.
    bool ffnScales = true;
    bool expertScales = true;

    // Multi-token prediction (qwen35, qwen35moe): {arch}.nextn_predict_layers
    // blocks follow the nLayer trunk blocks (nLayer excludes them). The
    // engine runs one such block (as the reference does) when the file has
    // its tensors: nLayerMtp = 1, and layers[nLayer] describes it (a full-
    // attention block of the trunk's kind; runtime/forward.h, "MTP").
    uint32_t nextnDeclared = 0;        // {arch}.nextn_predict_layers
    uint32_t nLayerMtp = 0;            // MTP blocks loaded and run (0 or 1)
    // A drafter may read this model's final normed hidden state (gemma4:
    // the assistant drafter; runtime/forward.h, "Hidden states").
    bool draftsFromHidden = false;

    // gemma4-assistant (a drafter in a file of its own, loaded beside a
    // gemma4 target; runtime/forward.h, "Assistant"): the target's hidden
    // size ({arch}.embedding_length_out; 0 for every other architecture).
    // Its input is nextn.pre_projection . (target embedding x sqrt(this) |
    // target hidden state), its outputs logits and the next hidden state
    // nextn.post_projection . h; every layer is foreignKv.
    uint32_t nEmbdTarget = 0;

    std::vector<LayerSpec> layers;     // size nLayer + nLayerMtp once loaded

    // Set by loadWeights().
    bool tiedOutput = false;           // no output.weight: the output matrix is token_embd

    // Sizes of layer il: Q row, K row, V row of one position, attention
    // output before attn_output.
    uint32_t nEmbdQ(uint32_t il) const { return nHead * layers[il].headDimK; }
    uint32_t nEmbdKv(uint32_t il) const { return layers[il].nHeadKv * layers[il].headDimK; }
    uint32_t nEmbdVKv(uint32_t il) const { return layers[il].nHeadKv * layers[il].headDimV; }
    uint32_t nEmbdVOut(uint32_t il) const { return nHead * layers[il].headDimV; }
    // The largest of those over the layers (buffer sizes).
    uint32_t maxEmbdQ() const;
    uint32_t maxEmbdKv() const;
    uint32_t maxEmbdVKv() const;
    uint32_t maxEmbdVOut() const;
    uint32_t maxHeadDimK() const;
    uint32_t maxHeadDimV() const;
    uint32_t maxNRot() const;
    uint32_t maxFf() const;
    // Layer il as the model-wide values describe it (full attention, the
    // global RoPE, dense FFN, its own keys and values): loadModelConfig's
    // default row before the architecture changes it.
    LayerSpec uniformLayer(uint32_t il) const;
    // Layer il has keys and values of its own (not recurrent, not shared).
    bool ownsKv(uint32_t il) const
    {
        return !layers[il].recurrent && !layers[il].foreignKv && layers[il].kvLayer == il;
    }
    bool isAssistant() const { return nEmbdTarget > 0; }
    uint32_t kvLayerCount() const;     // the trunk's and the MTP block's
    // The index of the MTP block in layers / Weights::layers (valid when nLayerMtp > 0).
    uint32_t mtpLayer() const { return nLayer; }
    float attentionScale(uint32_t il) const;
    bool isMoe() const { return nExpert > 0; }
    // Gated DeltaNet sizes: the conv channels are q | k | v.
    uint32_t ssmKeyDim() const { return ssmGroupCount * ssmStateSize; }
    uint32_t ssmValueDim() const { return ssmInnerSize; }
    uint32_t ssmConvChannels() const { return 2 * ssmKeyDim() + ssmValueDim(); }
    // Floats of one recurrent layer's state per sequence: the last
    // ssmConvKernel - 1 conv inputs and the value heads' S x S matrices.
    uint64_t ssmStateFloats() const
    {
        return static_cast<uint64_t>(ssmConvKernel - 1) * ssmConvChannels() +
               static_cast<uint64_t>(ssmTimeStepRank) * ssmStateSize * ssmStateSize;
    }
    uint32_t recurrentLayerCount() const;
    bool hasRecurrentLayers() const { return recurrentLayerCount() > 0; }
    uint32_t slidingLayerCount() const;
};

// Reads and checks the hyper-parameters of `file`.
Result<ModelConfig> loadModelConfig(const gguf::GgufFile &file);

// "llama", "qwen2", "phi3", "gemma2", "qwen3", "qwen3moe", "gemma3", "gpt-oss", "qwen35", "qwen35moe",
// "gemma4", "gemma4-assistant".
const char *architectureName(Architecture arch);

} // namespace burrow::model
