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
// MTP (multi-token prediction: qwen35's nextn block, the reference's
// graph_mtp; runtime/forward_mtp.cpp). The block at layer M = nLayer guesses
// the token after next from a token and the trunk's hidden state before it:
//   g(p) = MTP(token p, H(p - 1)), H = rmsnorm(x_last) * output_norm (the
//   trunk's normed final state; H(-1) = 0)
//   MTP(t, h): u = eh_proj . (rmsnorm(embd(t)) * enorm | rmsnorm(h) * hnorm);
//   u then goes through a gated-attention block of the trunk's kind (its own
//   keys and values at position p in the KV cache, layer M) and the trunk's
//   FFN; h' = rmsnorm(u) * shared_head_norm (else output_norm);
//   logits = shared_head_head (else the output matrix) . h'.
// A span with `mtp` runs the block after the trunk over its rows (catch-up:
// token p with H(p - 1) of the same pass, or for its first row the H kept
// from the sequence's previous pass), which writes the block's keys and
// values; no logits. mtpDraft then chains the block from the last sampled
// token t at position P = length: d1 = argmax MTP(t, H(P - 1)) at P, d2 =
// argmax MTP(d1, h'1) at P + 1, ... (writing keys at P.., which the next
// pass's catch-up overwrites with the verified tokens'). Per sequence the
// forward pass keeps H of its last position and how far the block's keys are
// complete; a position whose H(p - 1) was not kept (a sequence resumed from
// a recurrent snapshot) gets H = 0, as the reference's first position.
//
// Hidden states for a drafter outside the model (ModelConfig::
// draftsFromHidden, gemma4): a span with `mtp` keeps H = rmsnorm(x) *
// output_norm of its logits rows (every row of a verification pass), the
// sequence's last one kept as for MTP; mtpReady, mtpRollback and mtpForget
// work as above, keptHidden(seq) gives H of position length - 1.
//
// Assistant (gemma4-assistant, ModelConfig::nEmbdTarget = Et > 0; the
// reference's src/models/gemma4-assistant.cpp and the draft loop of its
// common/speculative.cpp for a drafter that shares the target's memory).
// This Forward runs the assistant's layers over the TARGET's KV cache
// (every layer foreignKv: queries only, the keys of positions < p). From
// the last sampled token t at P = length(seq) and the target's H(P - 1):
//   in = target_embd[t] * sqrt(Et) | h                              [2 Et]
//   x = pre_projection . in; the layers at position P               [E]
//   hn = rmsnorm(x) * output_norm; d = argmax(token_embd . hn)
//   h' = post_projection . hn                                       [Et]
// then d2 from (d, h'), all at the same position P (the assistant writes no
// keys: every step reads the target's 0..P-1). Nothing of the target is
// written; the drafts are verified by the target as any others.
//
// Memory: every buffer is allocated at construction for `maxBatch` tokens and
// the context size; eval() does not allocate.
#pragma once

#include "common/cache_line.h"
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
    // Also run the model's multi-token-prediction block over these rows
    // (ModelConfig::nLayerMtp; "MTP" below): its keys and values for the
    // span's positions, so the sequence can draft (Forward::mtpDraft).
    bool mtp = false;
    // With mtp: the sequence drafts nothing in the next step (its drafts are
    // backed off), so the block's rows may wait. H and the tokens are kept;
    // the block runs over the waiting rows in one pass before the sequence
    // drafts next (mtpDraft), in a pass without mtpLater, or when
    // Forward::kMtpLag rows wait: a backed-off sequence reads the block's
    // weights once per kMtpLag tokens instead of once per token. The keys
    // written are the same (the block's rows are batch-invariant).
    bool mtpLater = false;
};

// One sequence's MTP draft (Forward::mtpDraft): from `token`, the last
// sampled one (at position length(seq)), up to `count` guessed tokens into `out`.
struct MtpDraft {
    uint32_t seq = 0;
    int32_t token = 0;
    int count = 0;
    int32_t *out = nullptr;
    int drafted = 0;   // set by mtpDraft: tokens written (0: none)
    // assistantDraft: the target's hidden state H(length - 1) (Et floats,
    // the target's Forward::keptHidden(seq)).
    const float *hidden = nullptr;
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

    // ---- MTP (see above) --------------------------------------------------
    bool hasMtp() const { return m_c.nLayerMtp > 0; }
    // Most block rows a sequence keeps waiting (BatchSpan::mtpLater); its
    // tokens and H take kMtpLag x (nEmbd + 1) x 4 bytes per sequence.
    static constexpr int kMtpLag = 16;
    // seq can draft: the block's keys are complete for [0, length) and H of
    // position length - 1 is kept.
    bool mtpReady(uint32_t seq) const;
    // Forget what is kept for seq (a slot given to another sequence).
    void mtpForget(uint32_t seq);
    // After seq was truncated to `length` (a verification pass's rejected
    // drafts): keep H of position length - 1 from the last pass when that
    // pass computed it.
    void mtpRollback(uint32_t seq, uint32_t length);
    // Drafts for several sequences at once (each mtpReady), step by step
    // (one batched pass of the block per step). Reserves the KV blocks of the
    // draft positions; a sequence whose blocks cannot be had drafts nothing.
    // logits: scratch of nDrafts x nVocab floats.
    Status mtpDraft(MtpDraft *drafts, int nDrafts, float *logits);
    // H of position length(seq) - 1 when mtpReady(seq) (draftsFromHidden or
    // an MTP block), else null.
    const float *keptHidden(uint32_t seq) const;

    // ---- Assistant (see above; this Forward's model is the assistant) -------
    // Drafts for several sequences of the target's cache at once, step by
    // step (one pass of the assistant per step); targetEmbd: the target's
    // token_embd (Et wide), each draft's `hidden` the target's H. logits:
    // scratch of nDrafts x nVocab floats. Sequences with length 0, no
    // hidden state or a token outside the vocabulary draft nothing.
    Status assistantDraft(const model::TensorView &targetEmbd, MtpDraft *drafts, int nDrafts, float *logits);

private:
    Forward(const model::ModelConfig &config, const model::Weights &weights, KvCache &cache, ThreadPool &pool,
            int maxBatch);
    void embed(const int32_t *tokens, int n);   // -> m_x, the RoPE tables, m_ple
    // Layer il over rows [0, n) of m_x (x -> x): attention or the recurrent
    // block, the FFN, the per-layer input, the output scale.
    void layer(uint32_t il, const BatchSpan *spans, int nSpans, int n);
    // The cache layer whose keys layer il reads (il, which the cache maps to
    // a shared layer's source; a foreignKv layer: its kvLayer), and the last
    // position a query at pos sees there (pos; a foreignKv layer: pos - 1).
    uint32_t kvOf(uint32_t il) const { return m_c.layers[il].foreignKv ? m_c.layers[il].kvLayer : il; }
    uint32_t lastKey(uint32_t il, uint32_t pos) const { return m_c.layers[il].foreignKv ? pos - 1 : pos; }
    // draftsFromHidden: keep H of the mtp spans' logits rows (normed into
    // m_h by evalBatch, nWanted of them in span order).
    void keepHidden(const BatchSpan *spans, int nSpans, bool computed);
    void attentionBlock(uint32_t layer, const BatchSpan *spans, int nSpans, int n);   // m_h -> m_out
    void ffnBlock(uint32_t layer, int n);           // m_h (ffn input) -> x += ffn
    void perLayerInput(uint32_t layer, int n);      // x += the layer's per-layer input (gemma4)
    // Attention of rows [row0, row0 + n) of one sequence (positions pos0..).
    void attention(uint32_t layer, uint32_t seq, int row0, int n, uint32_t pos0);
    void attentionStandard(uint32_t layer, uint32_t seq, int row0, int n, uint32_t pos0);
    // Generation rows of many sequences (one query each), one dispatch.
    void attentionRows(uint32_t layer, const BatchSpan *spans, int nSpans);
    // Batch-invariant: the rows at positions >= kTileQueries, tiled
    // (attendDecode / attendTiled; a Q8_0 cache attendTiledQ8_0).
    void attentionTiledRows(uint32_t layer, const BatchSpan *spans, int nSpans);
    // Whether this cache's rows from kTileQueries on run tiled when batch
    // invariant: an F16 cache always, a Q8_0 cache where the CPU path has a
    // tiled Q8_0 kernel (ops::hasTiledQ8_0; else attendOnlineQ8_0 for all).
    bool tiledCache() const;
    void denseFfn(const model::LayerWeights &L, uint32_t layer, int n);   // m_h -> m_out
    void sharedExpert(const model::LayerWeights &L, int n);   // m_out += shared expert of m_h
    void deltaNetLayer(uint32_t layer, const BatchSpan *spans, int nSpans, int n);   // m_h -> m_out
    void keepConvSteps(uint32_t layer, const BatchSpan &span, int64_t c0, int64_t c1);
    // m_h -> m_out, routed by router(routerIn) (routerIn == m_h but for gemma4).
    void moeFfn(const model::LayerWeights &L, int n, const float *routerIn);
    // MTP (forward_mtp.cpp). Rows [0, n) of m_x from (token, hidden) pairs
    // through the block, keys and values written at m_rowPos (spans: one per
    // sequence, rows compacted).
    void mtpBlock(const int32_t *tokens, const float *const *hidden, const BatchSpan *spans, int nSpans, int n);
    // After the trunk of evalBatch: H of the mtp spans' rows, then the block
    // over them (catch-up).
    void mtpCatchUp(const int32_t *tokens, const BatchSpan *spans, int nSpans);
    // The block over the waiting rows of the listed sequences (mtpLater), in
    // one pass (or one per sequence past maxBatch rows); their keys are then
    // complete to their length.
    void mtpSettle(const uint32_t *seqs, int nSeqs);
    // Waiting row i of seq: its token, and H of the position before it.
    float *lagHidden(uint32_t seq, int i)
    {
        return m_mtpLagH.data() + (static_cast<size_t>(seq) * kMtpLag + static_cast<size_t>(i)) * m_c.nEmbd;
    }
    struct MtpSeq {
        uint32_t valid = 0;            // the block's keys are right for positions [0, valid)
        int32_t lag = 0;               // then positions [valid, valid + lag) wait for the block
        bool lagFromZero = false;      // the first waiting row's H(p - 1) is 0 (no H was kept)
        uint32_t hiddenPos = UINT32_MAX;   // position of `hidden` (UINT32_MAX: none)
        uint64_t pass = 0;             // the last pass with an mtp span of this sequence
        int32_t row0 = 0;              // its rows in m_mtpH and first position
        uint32_t pos0 = 0;
        int32_t n = 0;
    };
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
    std::vector<uint8_t> m_scratch;        // quantized activations for matmul (64 bytes more: see matmulScratch)
    // m_scratch from its first 64-byte line: matmul's contract (its slots
    // are 64-byte aligned from there, so the kernels' vector loads of the
    // activations never split across two lines).
    uint8_t *matmulScratch()
    {
        return alignToLine(m_scratch.data());
    }
    // MTP (empty without an MTP block): H of the last pass's rows [B, E], the
    // block's input (enorm | hnorm) [B, 2E], the drafts' hidden rows [B, E],
    // the kept H per sequence [seqs, E] and its bookkeeping.
    std::vector<float> m_mtpH;
    std::vector<float> m_mtpIn;
    std::vector<float> m_mtpDraftH;
    std::vector<float> m_mtpKept;
    std::vector<MtpSeq> m_mtpSeqs;
    std::vector<const float *> m_mtpHidden;   // [B] the hidden row each block row reads
    std::vector<int32_t> m_mtpTokens;         // [B] the token each block row reads
    std::vector<BatchSpan> m_mtpSpans;        // [B]
    std::vector<uint32_t> m_mtpPos0;          // [B] first position of each span of the pass
    std::vector<uint32_t> m_mtpSettle;        // [seqs] the sequences mtpSettle runs
    std::vector<float> m_mtpLagH;             // [seqs, kMtpLag, E] H before each waiting row
    std::vector<int32_t> m_mtpLagTok;         // [seqs, kMtpLag] each waiting row's token
    // Assistant: its input rows [B, 2 Et] and next hidden states [B, Et]
    // (m_mtpDraftH: [B, Et] by draft).
    std::vector<float> m_assistIn;
    std::vector<float> m_assistH;
    uint64_t m_passes = 0;
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
