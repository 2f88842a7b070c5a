// The forward pass: one implementation for every supported architecture; the
// differences are read from ModelConfig.
//
// eval() runs a batch of tokens at positions cache.size()..cache.size()+n-1
// through every layer (prompt: matrices of n rows, GEMM; generation: n = 1,
// GEMV), appends their keys and values to the KV cache and, when asked,
// writes the logits of the last token. evalBatch() does the same for
// several sequences at once (the scheduler's step): the rows of all of
// them go through each matrix together, attention reads per row its own
// sequence's block table.
//
// Per layer il (LayerSpec c.layers[il]), for each token (x: [nEmbd] residual stream):
//   h = rmsnorm(x) * attn_norm
//   q, k, v = h Wq (+bq), h Wk (+bk), h Wv (+bv)        (or one fused Wqkv)
//   qkNorm: each head of q and k = rmsnorm(head) * attn_q_norm / attn_k_norm
//   rope(q), rope(k) with the layer's angles (RopeTables: base, scale, YaRN)
//   q *= queryScale when queryScaleBeforeAttention
//   K, V cache [pos] = f16(k), f16(v)   (a Q8_0 cache: Q8_0(k), Q8_0(v), with q, k
//             and v first turned by the Hadamard transform of kv_cache.h, and o below
//             turned back)
//   per head: s_j = K_j . f16(q) (softcap; Q8_0: K_j . Q8_0(q)), p = softmax(s * scale + causal/window mask
//             [+ the head's sink logit]), o = sum_j p_j V_j
//   a = o Wo (+bo); (post-norm a); x += a
//   h = rmsnorm(x) * ffn_norm
//   dense:  f = (act(h Wgate) * (h Wup)) Wdown          (or fused gate|up)
//   MoE:    r = h Wrouter (+b); experts e_1..e_k and weights w_1..w_k from r
//           (ExpertGating); f = sum_j w_j * (act(h Wgate_ej (+b)) * (h Wup_ej (+b))) Wdown_ej (+b)
//   (post-norm f); x += f
// logits = (rmsnorm(x) * output_norm) Woutput (final softcap).
//
// Gated attention (attnOutputGate, qwen35): Wq gives per head q | gate; the
// attention output is multiplied by sigmoid(gate) before Wo. A shared expert
// (nFfShexp) adds sigmoid(Wsg . h) * SwiGLU_shexp(h) to the FFN output.
// A recurrent layer (LayerSpec::recurrent, qwen35's Gated DeltaNet) replaces
// the attention block (deltaNetLayer): qkv = h Wqkv, z = h Wgate, beta and
// alpha per value head; a causal conv over qkv with the sequence's window,
// silu, L2 norms of the q and k heads; the gated delta rule over the
// sequence's state (ops/delta_net.h: prompts in chunks, one token by a
// step); rmsnorm per value head * silu(z); out = that Wout. Its state lives
// in the KV cache's RecurrentState (runtime/recurrent_state.h).
//
// Per-layer sizes (LayerSpec): each layer has its own head size, KV heads,
// rotated dims and FFN width (gemma4: sliding layers heads of 256, global
// 512), so Q/K/V/attention rows are nEmbdQ(il)... of buffers sized for the
// largest layer.
//
// gemma4 (all as data in ModelConfig):
//   - vNorm: each V head = rmsnorm(head) (no weight); a layer without Wv
//     takes V = the raw K projection (before the K norm);
//   - a shared-KV layer (LayerSpec::kvLayer != il) computes q only and
//     attends over its kvLayer's cache cells (no K/V of its own);
//   - denseBesideMoe: out = rmsnorm(dense(h)) * post_ffw_norm_1 +
//     rmsnorm(experts(rmsnorm(x) * pre_ffw_norm_2)) * post_ffw_norm_2, the
//     router reading rmsnorm(x) / sqrt(E) * ffn_gate_inp.scale, each
//     expert's down output times ffn_down_exps.scale[e] before its weight;
//   - per-layer inputs (nEmbdPerLayer = P): before the first layer
//     ple = (rmsnorm((x Wplp) / sqrt(E), per layer) * norm + table[token] *
//     sqrt(P)) / sqrt(2) [n, L x P] (x: the scaled embeddings; the table is
//     read one row per token from the map); after layer il's FFN
//     x += rmsnorm((gelu(x Winp_gate) * ple[il]) Wproj) * post_norm;
//   - layer_output_scale: x *= s after the layer.
//
// Mixture of experts: a token reads only its k experts' matrices. A batch
// groups its tokens by expert (each expert's rows gathered once), and all
// experts' gate and up products run in one dispatch, then all down products.
//
// Memory: every buffer is allocated at construction for `maxBatch` tokens and
// the context size; eval() does not allocate.
#pragma once

#include "model/model_config.h"
#include "model/weights.h"
#include "runtime/matmul.h"
#include "runtime/rope_tables.h"
#include "burrow/status.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace burrow::runtime {

class KvCache;
class ThreadPool;

// One sequence's part of a batch: rows [row0, row0 + n) of the batch are its
// next n tokens, at positions length(seq).. of the KV cache.
struct BatchSpan {
    uint32_t seq = 0;
    int32_t row0 = 0;
    int32_t n = 0;
    bool logits = false;       // the logits of its last row are wanted
    // A verification pass (speculative decoding: the last sampled token and
    // n - 1 draft tokens): with `logits`, the logits of every row; the
    // sliding layers keep the keys position row 0 + 1 needs, and recurrent
    // layers keep the state after every row (RecurrentState::beginSteps),
    // so the caller may truncate the sequence back to any position of it.
    bool verify = false;
    // The sliding layers also keep the keys position keepFrom needs (a
    // draft model's passes, rolled back to where its drafts began).
    uint32_t keepFrom = UINT32_MAX;
};

class Forward {
public:
    // flash: attention as the reference computes it with flash attention
    // (its default; ops/flash_attention.h), else as without (F16
    // probabilities; ops/attention_kernels.h). A Q8_0 cache needs flash
    // (an error otherwise).
    static Result<std::unique_ptr<Forward>> create(const model::ModelConfig &config, const model::Weights &weights,
                                                   KvCache &cache, ThreadPool &pool, int maxBatch, bool flash = true);

    int maxBatch() const { return m_maxBatch; }

    // tokens: n ids (0 < n <= maxBatch, cache.size() + n <= capacity, each < nVocab).
    // logits: nVocab floats for the last token, or null.
    // Returns Status::cancelled() when the cancel check says so before a
    // layer; the cache size is then unchanged (the batch is not kept).
    Status eval(const int32_t *tokens, int n, float *logits);

    // Several sequences in one pass: spans cover rows 0..total-1 in order
    // (total <= maxBatch), one span per sequence. Each weight is read once
    // for all rows; attention of a row reads its own sequence's blocks.
    // logits: nVocab floats per span with `logits` set (n rows of them for
    // a `verify` span), in span order (null when none is). On an error or a cancel nothing is kept (every
    // sequence's length is unchanged, reserved blocks are released).
    Status evalBatch(const int32_t *tokens, const BatchSpan *spans, int nSpans, float *logits);

    // Read before every layer of eval() (null: never cancelled). Must be
    // cheap (an atomic load); called on the thread that calls eval().
    void setCancelCheck(std::function<bool()> check) { m_cancelCheck = std::move(check); }

private:
    Forward(const model::ModelConfig &config, const model::Weights &weights, KvCache &cache, ThreadPool &pool,
            int maxBatch);
    void embed(const int32_t *tokens, int n);   // -> m_x, the RoPE tables, m_ple
    void attentionBlock(uint32_t layer, const BatchSpan *spans, int nSpans, int n);   // m_h -> m_out
    void ffnBlock(uint32_t layer, int n);           // m_h (ffn input) -> x += ffn
    void perLayerInput(uint32_t layer, int n);      // x += the layer's per-layer input (gemma4)
    // Attention of rows [row0, row0 + n) of one sequence (positions pos0..).
    void attention(uint32_t layer, uint32_t seq, int row0, int n, uint32_t pos0);
    void attentionStandard(uint32_t layer, uint32_t seq, int row0, int n, uint32_t pos0);
    // Generation rows of many sequences (one query each), one dispatch.
    void attentionRows(uint32_t layer, const BatchSpan *spans, int nSpans);
    // Batch-invariant, F16 cache: the rows at positions >= kTileQueries, tiled.
    void attentionTiledRows(uint32_t layer, const BatchSpan *spans, int nSpans);
    void denseFfn(const model::LayerWeights &L, uint32_t layer, int n);   // m_h -> m_out
    void sharedExpert(const model::LayerWeights &L, int n);   // m_out += shared expert of m_h
    void deltaNetLayer(uint32_t layer, const BatchSpan *spans, int nSpans, int n);   // m_h -> m_out
    void keepConvSteps(uint32_t layer, const BatchSpan &span, int64_t c0, int64_t c1);
    // m_h -> m_out, routed by router(routerIn) (routerIn == m_h but for gemma4).
    void moeFfn(const model::LayerWeights &L, int n, const float *routerIn);
    float *ropeCs(int kind, int t)
    {
        return m_ropeCs.data() + (static_cast<size_t>(kind) * m_maxBatch + static_cast<size_t>(t)) * m_rope->nRot();
    }

    const model::ModelConfig &m_c;
    const model::Weights &m_w;
    KvCache &m_cache;
    ThreadPool &m_pool;
    int m_maxBatch = 0;
    std::function<bool()> m_cancelCheck;

    // Activations, row-major, one row per token of the batch.
    std::vector<float> m_x;        // [B, nEmbd] residual stream
    std::vector<float> m_h;        // [B, nEmbd] normed input of a block
    std::vector<float> m_qkv;      // [B, nEmbdQ + nEmbdKv + nEmbdVKv] fused projection output
    std::vector<float> m_qg;       // [B, 2 nEmbdQ] gated attention: per head query | gate
    std::vector<float> m_attnGate; // [B, nEmbdQ] the gates
    // Gated DeltaNet layers.
    std::vector<float> m_ssmQkv;   // [B, ssmConvChannels] the projection before the convolution
    std::vector<float> m_ssmConv;  // [B, ssmConvChannels] after it (silu, q and k heads L2-normed)
    std::vector<float> m_ssmZ;     // [B, ssmValueDim] the output gate
    std::vector<float> m_ssmCore;  // [B, ssmValueDim] the delta rule's output
    std::vector<float> m_ssmBeta;  // [B, value heads] rates
    std::vector<float> m_ssmAlpha; // [B, value heads] alpha, then the log decays g
    std::vector<float> m_deltaScratch;   // per thread: deltaNetChunkScratch(S) floats
    // The shared expert.
    std::vector<float> m_shexpGate;   // [B, nFfShexp]
    std::vector<float> m_shexpUp;     // [B, nFfShexp]
    std::vector<float> m_shexpOut;    // [B, nEmbd]
    // Per-layer sizes: rows hold the largest layer's (maxEmbdQ(), ...);
    // a layer uses the first nEmbdQ(il) floats of each row.
    std::vector<float> m_q;        // [B, nEmbdQ]
    std::vector<float> m_k;        // [B, nEmbdKv]
    std::vector<float> m_v;        // [B, nEmbdVKv]
    std::vector<float> m_attn;     // [B, nEmbdVOut] attention output (heads concatenated)
    std::vector<float> m_out;      // [B, nEmbd] block output before the residual add
    std::vector<float> m_gate;     // [B, nFf]
    std::vector<float> m_up;       // [B, nFf] or [B, 2 nFf] when fused
    std::vector<float> m_ropeCs;   // [kinds, B, nRot] cos/sin per layer kind and token
    std::vector<float> m_ones;     // [max(nEmbd, head size)] 1.0: the weight of a weightless RMS norm
    // gemma4: the dense MLP's output beside the experts and the router input [B, nEmbd];
    // per-layer inputs [B, nLayer x P], the table rows [B, nLayer x P], the gate [B, P].
    std::vector<float> m_ffnDense;
    std::vector<float> m_routerIn;
    std::vector<float> m_ple;
    std::vector<float> m_pleToken;
    std::vector<float> m_pleGate;
    std::vector<uint32_t> m_rowPos;     // [B] position of each row
    std::vector<uint32_t> m_rowSeq;     // [B] sequence of each row
    std::vector<int32_t> m_rowList;     // [B] rows attentionRows() does
    std::vector<uint32_t> m_rowHeld;    // [B] their sequence's lowest held key (sliding layers)
    struct TileBlock {
        int span, row0, n;
    };
    std::vector<TileBlock> m_tileBlocks;   // [B] attentionTiledRows' blocks of rows
    std::unique_ptr<RopeTables> m_rope;
    // Mixture of experts (empty for dense models); k = nExpertUsed.
    std::vector<float> m_router;   // [B, nExpert] router logits
    std::vector<int32_t> m_selExpert;   // [B, k] the chosen experts per token, in weight order
    std::vector<float> m_selWeight;     // [B, k] their weights
    std::vector<int32_t> m_selRow;      // [B, k] row of (token, j) in the expert-grouped buffers
    std::vector<int32_t> m_expertCount; // [nExpert] tokens routed to each expert
    std::vector<int32_t> m_expertFirst; // [nExpert + 1] first grouped row of each expert
    std::vector<float> m_moeIn;    // [B k, nEmbd] inputs grouped by expert (batches of more than one token)
    std::vector<float> m_moeGate;  // [B k, nFfExp]
    std::vector<float> m_moeUp;    // [B k, nFfExp]
    std::vector<float> m_moeDown;  // [B k, nEmbd]
    std::vector<MatmulTask> m_tasks;    // [2 nExpert]
    std::vector<uint8_t> m_scratch;        // quantized activations for matmul
    bool m_flash = true;
    bool m_invariant = true;   // runtime/batch_invariance.h, fixed at creation
    // Flash attention, per thread: the scratch of a tile of prompt queries (attendTiled).
    std::vector<float> m_tileScratch;
    // Standard attention, per thread and query head of an attention item
    // (kMaxGroupHeads): scores [capacity], probabilities as F16 [capacity],
    // query as F16 [headDimK] and back as float [headDimK]; prompt blocks of
    // queries (attendBlock): 16 queries and 32 floats per cached position.
    std::vector<float> m_scores;
    std::vector<uint16_t> m_probs16;
    std::vector<uint16_t> m_q16;
    std::vector<float> m_qf;
    std::vector<float> m_blockQ;
    std::vector<float> m_blockScratch;
};

} // namespace burrow::runtime
