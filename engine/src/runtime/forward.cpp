#include "runtime/forward.h"

#include "ops/attention_kernels.h"
#include "ops/delta_net.h"
#include "ops/expf.h"
#include "ops/flash_attention.h"
#include "ops/f16.h"
#include "runtime/batch_invariance.h"
#include "runtime/kv_cache.h"
#include "runtime/matmul.h"
#include "runtime/recurrent_state.h"
#include "ops/ops.h"
#include "runtime/thread_pool.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <new>

namespace burrow::runtime {

using namespace burrow::ops;   // the kernels (ops/)

namespace {

// Runs fn(t) for t < n rows of `width` elements, across the pool when the
// work is large enough.
template <typename F>
void forRows(ThreadPool &pool, int n, int64_t width, F &&fn)
{
    pool.run([&](int ith, int nth) {
        int64_t t0, t1;
        ThreadPool::split(n, ith, nth, &t0, &t1);
        for (int64_t t = t0; t < t1; ++t)
            fn(static_cast<int>(t));
    }, n > 1 ? n * width * 4 : 0);
}

// The scratch of one matmulGroup over `group` (absent matrices skipped):
// matmulTasks makes an input slot per kind of matrix (type, packing), at
// most one per matrix, so the sum bounds it.
size_t groupScratchBytes(std::initializer_list<const model::TensorView *> group, int64_t nTokens)
{
    size_t sum = 0;
    for (const model::TensorView *t : group)
        if (*t)
            sum += matmulScratchBytes(*t, nTokens);
    return sum;
}

} // namespace

Forward::Forward(const model::ModelConfig &config, const model::Weights &weights, KvCache &cache, ThreadPool &pool,
                 int maxBatch)
    : m_c(config), m_w(weights), m_cache(cache), m_pool(pool), m_maxBatch(maxBatch)
{
}

Result<std::unique_ptr<Forward>> Forward::create(const model::ModelConfig &c, const model::Weights &w,
                                                 KvCache &cache, ThreadPool &pool, int maxBatch, bool flash)
{
    if (maxBatch < 1)
        maxBatch = 1;
    const uint32_t maxDk = c.maxHeadDimK(), maxDv = c.maxHeadDimV();
    if (maxDk > static_cast<uint32_t>(kMaxFlashHeadDim) || maxDv > static_cast<uint32_t>(kMaxFlashHeadDim))
        return Status::error("forward pass: head size " + std::to_string(std::max(maxDk, maxDv)) +
                             " is larger than the attention kernels' " + std::to_string(kMaxFlashHeadDim));
    if (cache.quantized() && !flash)
        return Status::error("forward pass: a Q8_0 KV cache needs flash attention (the reference refuses a quantized "
                             "V cache without it); turn flash attention on or use the F16 cache");
    std::unique_ptr<Forward> f(new Forward(c, w, cache, pool, maxBatch));
    f->m_flash = flash;
    f->m_invariant = batchInvariant();
    const size_t B = static_cast<size_t>(maxBatch);
    const size_t nThreads = static_cast<size_t>(pool.size());
    // Scratch for the quantized activations of the largest multiply. Expert
    // products read up to min(nExpert, B k) different inputs of B k rows in
    // all (gate and up of different types: twice that).
    const int64_t routed = static_cast<int64_t>(maxBatch) * std::max<uint32_t>(1, c.nExpertUsed);
    const int64_t inputs = std::min<int64_t>(std::max<uint32_t>(1, c.nExpert), routed);
    size_t scratch = matmulScratchBytes(w.output, 1);
    for (const model::TensorView *t : model::weightMatrices(w))
        scratch = std::max(scratch, matmulScratchBytes(*t, maxBatch));
    // The groups of one input (forward's matmulGroup calls): matrices of
    // different types take a slot each, whose sum can exceed the largest
    // single matrix's (a Q2_K file's Q2_K attn_q and attn_k beside its packed
    // Q4_K attn_v wrote past the scratch before).
    for (const model::LayerWeights &L : w.layers) {
        scratch = std::max(scratch, groupScratchBytes({&L.wq, &L.wk, &L.wv}, maxBatch));
        scratch = std::max(scratch, groupScratchBytes({&L.ffnGate, &L.ffnUp}, maxBatch));
        scratch = std::max(scratch, groupScratchBytes({&L.ffnGateShexp, &L.ffnUpShexp}, maxBatch));
        scratch = std::max(scratch, groupScratchBytes({&L.wqkv, &L.attnGate}, maxBatch));
        scratch = std::max(scratch, groupScratchBytes({&L.ssmBeta, &L.ssmAlpha}, maxBatch));
    }
    for (const model::LayerWeights &L : w.layers)
        for (const auto *experts : {&L.gateExps, &L.upExps, &L.downExps})
            if (!experts->empty())
                scratch = std::max(scratch, 2 * matmulScratchBytes((*experts)[0], routed, inputs));
    try {
        f->m_x.resize(B * c.nEmbd);
        f->m_h.resize(B * c.nEmbd);
        if (c.fusedQkv)
            f->m_qkv.resize(B * (c.maxEmbdQ() + c.maxEmbdKv() + c.maxEmbdVKv()));
        if (c.attnOutputGate) {
            f->m_qg.resize(B * 2 * c.maxEmbdQ());
            f->m_attnGate.resize(B * c.maxEmbdQ());
        }
        if (c.hasRecurrentLayers()) {
            f->m_ssmQkv.resize(B * c.ssmConvChannels());
            f->m_ssmConv.resize(B * c.ssmConvChannels());
            f->m_ssmZ.resize(B * c.ssmValueDim());
            f->m_ssmCore.resize(B * c.ssmValueDim());
            f->m_ssmBeta.resize(B * c.ssmTimeStepRank);
            f->m_ssmAlpha.resize(B * c.ssmTimeStepRank);
            f->m_deltaScratch.resize(nThreads * static_cast<size_t>(deltaNetChunkScratch(static_cast<int>(c.ssmStateSize))));
        }
        if (c.nFfShexp > 0) {
            f->m_shexpGate.resize(B * c.nFfShexp);
            f->m_shexpUp.resize(B * c.nFfShexp);
            f->m_shexpOut.resize(B * c.nEmbd);
        }
        f->m_q.resize(B * c.maxEmbdQ());
        f->m_k.resize(B * c.maxEmbdKv());
        f->m_v.resize(B * c.maxEmbdVKv());
        f->m_attn.resize(B * c.maxEmbdVOut());
        f->m_out.resize(B * c.nEmbd);
        f->m_gate.resize(B * c.maxFf());
        f->m_up.resize(B * c.maxFf() * (c.fusedGateUp ? 2 : 1));
        f->m_ones.assign(std::max<size_t>(c.nEmbd, std::max(maxDk, maxDv)), 1.0f);
        f->m_rope = std::make_unique<RopeTables>(c, w.ropeFreqs ? w.ropeFreqs.f32() : nullptr);
        f->m_ropeCs.resize(static_cast<size_t>(f->m_rope->kindCount()) * B * static_cast<size_t>(f->m_rope->nRot()));
        if (c.routerInputScale) {
            f->m_ffnDense.resize(B * c.nEmbd);
            f->m_routerIn.resize(B * c.nEmbd);
        }
        if (c.nEmbdPerLayer > 0) {
            const size_t PL = static_cast<size_t>(c.nEmbdPerLayer) * c.nLayer;
            f->m_ple.resize(B * PL);
            f->m_pleToken.resize(B * PL);
            f->m_pleGate.resize(B * c.nEmbdPerLayer);
        }
        f->m_rowPos.resize(B);
        f->m_rowSeq.resize(B);
        f->m_rowList.resize(B);
        f->m_rowHeld.resize(B);
        f->m_tileBlocks.resize(B);
        if (c.isMoe()) {
            const size_t K = c.nExpertUsed, X = c.nExpert;
            f->m_router.resize(B * X);
            f->m_selExpert.resize(B * K);
            f->m_selWeight.resize(B * K);
            f->m_selRow.resize(B * K);
            f->m_expertCount.resize(X);
            f->m_expertFirst.resize(X + 1);
            if (B > 1)
                f->m_moeIn.resize(B * K * c.nEmbd);
            f->m_moeGate.resize(B * K * c.nFfExp);
            f->m_moeUp.resize(B * K * c.nFfExp);
            f->m_moeDown.resize(B * K * c.nEmbd);
            f->m_tasks.reserve(2 * X);
        }
        if (c.nLayerMtp > 0 || c.draftsFromHidden) {
            const size_t seqs = cache.sequenceCount();
            f->m_mtpH.resize(B * c.nEmbd);
            if (c.nLayerMtp > 0) {
                f->m_mtpIn.resize(B * 2 * c.nEmbd);
                f->m_mtpDraftH.resize(B * c.nEmbd);
            }
            f->m_mtpKept.resize(seqs * c.nEmbd);
            f->m_mtpSeqs.resize(seqs);
            f->m_mtpHidden.resize(B);
            f->m_mtpTokens.resize(B);
            f->m_mtpSpans.resize(B);
            if (c.nLayerMtp > 0) {
                f->m_mtpPos0.resize(B);
                f->m_mtpSettle.resize(seqs);
                f->m_mtpLagH.resize(seqs * kMtpLag * c.nEmbd);
                f->m_mtpLagTok.resize(seqs * kMtpLag);
            }
        }
        if (c.isAssistant()) {
            f->m_assistIn.resize(B * 2 * c.nEmbdTarget);
            f->m_assistH.resize(B * c.nEmbdTarget);
            f->m_mtpDraftH.resize(B * c.nEmbdTarget);
            f->m_mtpSpans.resize(B);
        }
        f->m_scratch.resize(scratch + 64);
        if (flash) {
            f->m_tileScratch.resize(nThreads * tiledScratchFloats(static_cast<int>(maxDk), static_cast<int>(maxDv)));
        } else {
            const size_t slots = nThreads * static_cast<size_t>(kMaxGroupHeads);   // query heads per attention item
            f->m_scores.resize(slots * cache.capacity());
            f->m_probs16.resize(slots * cache.capacity());
            f->m_q16.resize(slots * maxDk);
            f->m_qf.resize(slots * maxDk);
            if (maxBatch > 1) {
                f->m_blockQ.resize(nThreads * kAttentionBlockQueries * maxDk);
                f->m_blockScratch.resize(nThreads * (32 * static_cast<size_t>(cache.capacity()) + 16));
            }
        }
    } catch (const std::bad_alloc &) {
        return Status::error("forward pass: out of memory allocating activations for a batch of " +
                             std::to_string(maxBatch) + " tokens");
    }
    return f;
}

Status Forward::eval(const int32_t *tokens, int n, float *logits)
{
    BatchSpan span;
    span.seq = 0;
    span.row0 = 0;
    span.n = n;
    span.logits = logits != nullptr;
    return evalBatch(tokens, &span, 1, logits);
}

Status Forward::evalBatch(const int32_t *tokens, const BatchSpan *spans, int nSpans, float *logits)
{
    const model::ModelConfig &c = m_c;
    if (nSpans < 1)
        return Status::error("forward pass: a batch of no sequences");
    int n = 0;
    int nWanted = 0;
    for (int si = 0; si < nSpans; ++si) {
        const BatchSpan &sp = spans[si];
        if (sp.row0 != n || sp.n < 1 || sp.seq >= m_cache.sequenceCount())
            return Status::error("forward pass: span " + std::to_string(si) + " (sequence " + std::to_string(sp.seq) +
                                 ", rows " + std::to_string(sp.row0) + " + " + std::to_string(sp.n) +
                                 ") does not follow the previous one");
        for (int sj = 0; sj < si; ++sj)
            if (spans[sj].seq == sp.seq)
                return Status::error("forward pass: sequence " + std::to_string(sp.seq) + " has two spans in one batch");
        n += sp.n;
        nWanted += sp.logits ? (sp.verify ? sp.n : 1) : 0;
        if (n > m_maxBatch)
            return Status::error("forward pass: batch of " + std::to_string(n) + " tokens, expected 1.." +
                                 std::to_string(m_maxBatch));
        const uint32_t len = m_cache.length(sp.seq);
        if (static_cast<uint64_t>(len) + static_cast<uint64_t>(sp.n) > m_cache.capacity())
            return Status::error("forward pass: " + std::to_string(len + static_cast<uint64_t>(sp.n)) +
                                 " positions exceed the context of " + std::to_string(m_cache.capacity()));
    }
    for (int t = 0; t < n; ++t)
        if (tokens[t] < 0 || static_cast<uint32_t>(tokens[t]) >= c.nVocab)
            return Status::error("forward pass: token id " + std::to_string(tokens[t]) + " is outside the vocabulary (0.." +
                                 std::to_string(c.nVocab - 1) + ")");
    // Nothing kept on a failure: reservations past each length are released.
    const auto unreserve = [&](int count) {
        for (int si = 0; si < count; ++si)
            m_cache.truncate(spans[si].seq, m_cache.length(spans[si].seq));
    };
    for (int si = 0; si < nSpans; ++si) {
        const BatchSpan &sp = spans[si];
        if (Status st = m_cache.reserve(sp.seq, m_cache.length(sp.seq) + static_cast<uint32_t>(sp.n)); !st) {
            unreserve(si);
            return st;
        }
        const uint32_t pos0 = m_cache.length(sp.seq);
        for (int t = 0; t < sp.n; ++t) {
            m_rowPos[static_cast<size_t>(sp.row0 + t)] = pos0 + static_cast<uint32_t>(t);
            m_rowSeq[static_cast<size_t>(sp.row0 + t)] = sp.seq;
        }
    }

    embed(tokens, n);
    // Recurrent layers: a verification span keeps the state after each row
    // but its last (the current state); any other pass forgets kept ones.
    if (RecurrentState *rs = m_cache.recurrent())
        for (int si = 0; si < nSpans; ++si) {
            const BatchSpan &sp = spans[si];
            if (!sp.verify || !rs->beginSteps(sp.seq, m_cache.length(sp.seq), static_cast<uint32_t>(sp.n - 1)))
                rs->clearSteps(sp.seq);
        }

    // A recurrent state changes in place layer by layer: a cancel between
    // layers puts back the copy taken here (prompt chunks; a batch of single
    // tokens is short and is only cancelled before its first layer).
    RecurrentState *recurrent = m_cache.recurrent();
    bool cancelMidway = true;
    if (recurrent && m_cancelCheck) {
        bool prompt = false;
        for (int si = 0; si < nSpans; ++si)
            prompt = prompt || spans[si].n > 1;
        cancelMidway = prompt;
        for (int si = 0; si < nSpans && cancelMidway; ++si)
            cancelMidway = recurrent->backup(spans[si].seq);
    }
    const int64_t E = c.nEmbd;
    float *x = m_x.data(), *h = m_h.data();
    for (uint32_t il = 0; il < c.nLayer; ++il) {
        if (m_cancelCheck && (il == 0 || cancelMidway) && m_cancelCheck()) {
            if (recurrent)
                for (int si = 0; si < nSpans; ++si) {
                    recurrent->clearSteps(spans[si].seq);
                    if (il > 0)
                        recurrent->restore(spans[si].seq);
                }
            unreserve(nSpans);            // lengths unchanged: this batch's keys are not kept
            return Status::cancelled();
        }
        layer(il, spans, nSpans, n);
    }
    for (int si = 0; si < nSpans; ++si) {
        const uint32_t len = m_cache.length(spans[si].seq);
        m_cache.commit(spans[si].seq, len + static_cast<uint32_t>(spans[si].n),
                       std::min(spans[si].keepFrom, spans[si].verify ? len + 1 : UINT32_MAX));
    }

    if (logits && nWanted > 0) {
        // The last row of each span that wants logits (every row of a
        // verification span), normed into h [nWanted, E].
        int j = 0;
        for (int si = 0; si < nSpans; ++si)
            if (spans[si].logits)
                for (int r = spans[si].verify ? 0 : spans[si].n - 1; r < spans[si].n; ++r) {
                    const float *row = x + static_cast<int64_t>(spans[si].row0 + r) * E;
                    rmsNorm(row, m_w.outputNorm.f32(), h + static_cast<int64_t>(j) * E, E, c.rmsEps);
                    ++j;
                }
        matmul(m_pool, m_w.output, h, nWanted, logits, matmulScratch());
        if (c.finalSoftcap != 0.0f)
            for (int r = 0; r < nWanted; ++r)
                softcap(logits + static_cast<size_t>(r) * c.nVocab, c.nVocab, c.finalSoftcap);
    }
    if (hasMtp())
        mtpCatchUp(tokens, spans, nSpans);   // forward_mtp.cpp
    else if (c.draftsFromHidden)
        keepHidden(spans, nSpans, logits && nWanted > 0);   // forward_mtp.cpp
    return Status::ok();
}

// Layer il over rows [0, n) of the batch (x -> x; forward.h).
void Forward::layer(uint32_t il, const BatchSpan *spans, int nSpans, int n)
{
    const model::ModelConfig &c = m_c;
    const int64_t E = c.nEmbd;
    float *x = m_x.data(), *h = m_h.data(), *out = m_out.data();
    const model::LayerWeights &L = m_w.layers[il];

    // h = rmsnorm(x) * attn_norm                                  [n, E]
    forRows(m_pool, n, E, [&](int t) { rmsNorm(x + t * E, L.attnNorm.f32(), h + t * E, E, c.rmsEps); });
    if (c.layers[il].recurrent)
        deltaNetLayer(il, spans, nSpans, n);                       // out [n, E]
    else
        attentionBlock(il, spans, nSpans, n);                      // out [n, E]
    forRows(m_pool, n, E, [&](int t) {
        float *ot = out + t * E, *xt = x + t * E;
        if (c.postNorms)
            rmsNorm(ot, L.attnPostNorm.f32(), ot, E, c.rmsEps);
        for (int64_t i = 0; i < E; ++i)
            xt[i] += ot[i];
        rmsNorm(xt, L.ffnNorm.f32(), h + t * E, E, c.rmsEps);     // h = ffn input
    });
    ffnBlock(il, n);                                               // x += ffn
    if (c.nEmbdPerLayer > 0)
        perLayerInput(il, n);                                      // x += the layer's own input
    if (L.layerOutScale) {
        const float scale = L.layerOutScale.f32()[0];
        forRows(m_pool, n, E, [&](int t) {
            float *xt = x + t * E;
            for (int64_t i = 0; i < E; ++i)
                xt[i] *= scale;
        });
    }
}

// Token embeddings [n, E] (times embeddingScale), the RoPE angles of each
// layer kind [kinds, n, nRot] and, for per-layer inputs, each token's row of
// every layer [n, nLayer x P]:
//   ple = (rmsnorm((Wproj . x) / sqrt(E) per layer) * proj_norm + table[token] * sqrt(P)) / sqrt(2)
// (the reference's order: the products, the scale, the norm, the sum, the scale).
void Forward::embed(const int32_t *tokens, int n)
{
    const model::ModelConfig &c = m_c;
    const int64_t E = c.nEmbd;
    const int kinds = m_rope->kindCount();
    float *x = m_x.data();
    forRows(m_pool, n, E, [&](int t) {
        float *xt = x + t * E;
        dequantizeRow(m_w.tokenEmbd, tokens[t], xt);
        if (c.embeddingScale != 0.0f)
            for (int64_t i = 0; i < E; ++i)
                xt[i] *= c.embeddingScale;
        for (int kind = 0; kind < kinds; ++kind)
            m_rope->fill(static_cast<float>(m_rowPos[static_cast<size_t>(t)]), kind, ropeCs(kind, t));
    });
    if (c.nEmbdPerLayer == 0)
        return;
    const int64_t P = c.nEmbdPerLayer, PL = P * c.nLayer;
    matmul(m_pool, m_w.perLayerModelProj, x, n, m_ple.data(), matmulScratch());
    const float projScale = 1.0f / std::sqrt(static_cast<float>(E));
    const float tokenScale = std::sqrt(static_cast<float>(P));
    const float inputScale = 1.0f / std::sqrt(2.0f);
    forRows(m_pool, n, PL, [&](int t) {
        float *row = m_ple.data() + t * PL;
        float *tok = m_pleToken.data() + static_cast<size_t>(t) * PL;
        dequantizeRow(m_w.perLayerTokenEmbd, tokens[t], tok);
        for (int64_t i = 0; i < PL; ++i)
            row[i] *= projScale;
        for (uint32_t l = 0; l < c.nLayer; ++l)
            rmsNorm(row + l * P, m_w.perLayerProjNorm.f32(), row + l * P, P, c.rmsEps);
        for (int64_t i = 0; i < PL; ++i)
            row[i] = (row[i] + tok[i] * tokenScale) * inputScale;
    });
}

// Attention of layer il over the batch (h -> out): the projections, Q/K
// (and V) head norms, RoPE, the new keys and values into the cache (a layer
// sharing another's KV computes only q), attention, Wo.
void Forward::attentionBlock(uint32_t il, const BatchSpan *spans, int nSpans, int n)
{
    const model::ModelConfig &c = m_c;
    const model::LayerSpec &spec = c.layers[il];
    const model::LayerWeights &L = m_w.layers[il];
    const int64_t E = c.nEmbd, Q = c.nEmbdQ(il), KV = c.nEmbdKv(il), VKV = c.nEmbdVKv(il), VO = c.nEmbdVOut(il);
    const int nRot = static_cast<int>(spec.nRot), dk = static_cast<int>(spec.headDimK), dv = static_cast<int>(spec.headDimV);
    const int kind = m_rope->kindOf(il);
    const bool owns = c.ownsKv(il);
    uint8_t *scratch = matmulScratch();
    const float *h = m_h.data();

    // q [n, Q], k [n, KV], v [n, VKV] (gated: q and the gate from one
    // [n, 2Q] projection, head by head q | gate)
    if (c.fusedQkv) {
        const int64_t QKV = Q + KV + VKV;
        matmul(m_pool, L.wqkv, h, n, m_qkv.data(), scratch, L.bqkv ? L.bqkv.f32() : nullptr);
        forRows(m_pool, n, E, [&](int t) {
            const float *src = m_qkv.data() + t * QKV;
            std::copy(src, src + Q, m_q.data() + t * Q);
            std::copy(src + Q, src + Q + KV, m_k.data() + t * KV);
            std::copy(src + Q + KV, src + QKV, m_v.data() + t * VKV);
        });
    } else {
        MatmulJob jobs[3] = {{&L.wq, c.attnOutputGate ? m_qg.data() : m_q.data(), L.bq ? L.bq.f32() : nullptr},
                             {&L.wk, m_k.data(), L.bk ? L.bk.f32() : nullptr},
                             {&L.wv, m_v.data(), L.bv ? L.bv.f32() : nullptr}};
        const int nJobs = !owns ? 1 : L.wv ? 3 : 2;
        matmulGroup(m_pool, jobs, nJobs, h, n, scratch);
        if (owns && !L.wv)   // V = K, before the norms (gemma4's layers without attn_v)
            std::copy(m_k.begin(), m_k.begin() + static_cast<int64_t>(n) * KV, m_v.begin());
        if (c.attnOutputGate)
            forRows(m_pool, n, 2 * Q, [&](int t) {
                for (uint32_t hd = 0; hd < c.nHead; ++hd) {
                    const float *src = m_qg.data() + t * 2 * Q + static_cast<int64_t>(hd) * 2 * dk;
                    std::copy(src, src + dk, m_q.data() + t * Q + static_cast<int64_t>(hd) * dk);
                    std::copy(src + dk, src + 2 * dk, m_attnGate.data() + t * Q + static_cast<int64_t>(hd) * dk);
                }
            });
    }

    // Q/K (V) head norms, RoPE, query scale, and the new keys/values into the cache.
    const int kRot = m_cache.kRotation(kvOf(il)), vRot = m_cache.vRotation(kvOf(il));
    forRows(m_pool, n, E, [&](int t) {
        const float *cs = ropeCs(kind, t);
        float *qt = m_q.data() + t * Q, *kt = m_k.data() + t * KV, *vt = m_v.data() + t * VKV;
        if (c.qkNorm)
            for (uint32_t hd = 0; hd < c.nHead; ++hd)
                rmsNorm(qt + hd * dk, L.attnQNorm.f32(), qt + hd * dk, dk, c.rmsEps);
        ropeApply(qt, static_cast<int>(c.nHead), dk, nRot, c.ropeType, cs);
        if (c.queryScaleBeforeAttention)
            for (int64_t i = 0; i < Q; ++i)
                qt[i] *= c.queryScale;
        if (kRot > 0)   // a quantized cache's Hadamard turn (kv_cache.h)
            hadamardBlocks(qt, Q, kRot);
        if (!owns)
            return;
        if (c.qkNorm)
            for (uint32_t hd = 0; hd < spec.nHeadKv; ++hd)
                rmsNorm(kt + hd * dk, L.attnKNorm.f32(), kt + hd * dk, dk, c.rmsEps);
        if (c.vNorm)
            for (uint32_t hd = 0; hd < spec.nHeadKv; ++hd)
                rmsNorm(vt + hd * dv, m_ones.data(), vt + hd * dv, dv, c.rmsEps);
        ropeApply(kt, static_cast<int>(spec.nHeadKv), dk, nRot, c.ropeType, cs);
        const uint32_t seq = m_rowSeq[static_cast<size_t>(t)], pos = m_rowPos[static_cast<size_t>(t)];
        if (kRot > 0)
            hadamardBlocks(kt, KV, kRot);
        if (vRot > 0)
            hadamardBlocks(vt, VKV, vRot);
        m_cache.writeK(il, seq, pos, kt);
        m_cache.writeV(il, seq, pos, vt);
    });

    // m_attn [n, VO]: prompt chunks of kTileQueries or more rows in tiles,
    // every other row query by query in one dispatch (a Q8_0 cache without
    // batch invariance: every row, as the reference tiles only F16/F32 caches).
    // Batch-invariant (an F16 cache, or a Q8_0 cache on a path with a tiled
    // Q8_0 kernel): the kernel follows the position, not the chunk: rows at
    // positions < kTileQueries query by query, the others tiled
    // (attentionTiledRows).
    const bool byPosition = m_invariant && tiledCache();
    bool online = false, tiled = false;
    for (int si = 0; si < nSpans; ++si) {
        const BatchSpan &sp = spans[si];
        const uint32_t pos0 = m_rowPos[static_cast<size_t>(sp.row0)];
        if (!m_flash) {
            attentionStandard(il, sp.seq, sp.row0, sp.n, pos0);
        } else if (byPosition) {
            online = online || pos0 < static_cast<uint32_t>(kTileQueries);
            tiled = tiled || pos0 + static_cast<uint32_t>(sp.n) > static_cast<uint32_t>(kTileQueries);
        } else if (sp.n >= kTileQueries && !m_cache.quantized()) {
            attention(il, sp.seq, sp.row0, sp.n, pos0);
        } else {
            online = true;
        }
    }
    if (online)
        attentionRows(il, spans, nSpans);
    if (tiled)
        attentionTiledRows(il, spans, nSpans);
    if (vRot > 0)   // the values' turn back
        forRows(m_pool, n, VO, [&](int t) { hadamardBlocks(m_attn.data() + t * VO, VO, vRot); });

    if (c.attnOutputGate)   // attn *= sigmoid(gate) (head sizes equal: VO == Q)
        forRows(m_pool, n, Q, [&](int t) {
            float *a = m_attn.data() + t * Q;
            const float *g = m_attnGate.data() + t * Q;
            for (int64_t i = 0; i < Q; ++i)
                a[i] *= 1.0f / (1.0f + std::exp(-g[i]));
        });

    // out = attn Wo                                                    [n, E]
    matmul(m_pool, L.wo, m_attn.data(), n, m_out.data(), scratch, L.bo ? L.bo.f32() : nullptr);
}

// The feed-forward block of layer il over the batch (h = ffn input norm of
// x): dense, experts, the shared expert, or (gemma4 26B-A4B) a dense MLP and
// the experts side by side:
//   dense = rmsnorm(mlp(h)) * post_ffw_norm_1
//   moe   = rmsnorm(experts(rmsnorm(x) * pre_ffw_norm_2)) * post_ffw_norm_2,
//           routed by rmsnorm(x) / sqrt(E) * ffn_gate_inp.scale
//   out   = dense + moe
// then (post-norms) out = rmsnorm(out) * post_ffw_norm; x += out.
void Forward::ffnBlock(uint32_t il, int n)
{
    const model::ModelConfig &c = m_c;
    const model::LayerSpec &spec = c.layers[il];
    const model::LayerWeights &L = m_w.layers[il];
    const int64_t E = c.nEmbd;
    float *x = m_x.data(), *h = m_h.data(), *out = m_out.data();
    if (spec.moe && spec.denseBesideMoe) {
        denseFfn(L, il, n);                                            // out [n, E]
        const float routerScale = 1.0f / std::sqrt(static_cast<float>(E));
        forRows(m_pool, n, E, [&](int t) {
            float *ot = out + t * E, *dt = m_ffnDense.data() + t * E, *rt = m_routerIn.data() + t * E;
            const float *xt = x + t * E;
            rmsNorm(ot, L.ffnPostNorm1.f32(), dt, E, c.rmsEps);
            rmsNorm(xt, L.ffnPreNorm2.f32(), h + t * E, E, c.rmsEps);
            rmsNorm(xt, m_ones.data(), rt, E, c.rmsEps);
            const float *s = L.ffnGateInpScale.f32();
            for (int64_t i = 0; i < E; ++i)
                rt[i] = (rt[i] * routerScale) * s[i];
        });
        moeFfn(L, n, m_routerIn.data());                               // out [n, E]
        forRows(m_pool, n, E, [&](int t) {
            float *ot = out + t * E;
            const float *dt = m_ffnDense.data() + t * E;
            rmsNorm(ot, L.ffnPostNorm2.f32(), ot, E, c.rmsEps);
            for (int64_t i = 0; i < E; ++i)
                ot[i] = dt[i] + ot[i];
        });
    } else if (spec.moe) {
        moeFfn(L, n, h);
    } else {
        denseFfn(L, il, n);
    }
    if (c.nFfShexp > 0)
        sharedExpert(L, n);                                            // out += [n, E]
    forRows(m_pool, n, E, [&](int t) {
        float *ot = out + t * E, *xt = x + t * E;
        if (c.postNorms)
            rmsNorm(ot, L.ffnPostNorm.f32(), ot, E, c.rmsEps);
        for (int64_t i = 0; i < E; ++i)
            xt[i] += ot[i];
    });
}

// gemma4's per-layer input after layer il's FFN:
//   g = gelu(x Winp_gate) * ple[il]                                  [n, P]
//   x += rmsnorm(g Wproj) * post_norm                                [n, E]
void Forward::perLayerInput(uint32_t il, int n)
{
    const model::ModelConfig &c = m_c;
    const model::LayerWeights &L = m_w.layers[il];
    const int64_t E = c.nEmbd, P = c.nEmbdPerLayer, PL = P * c.nLayer;
    float *x = m_x.data(), *out = m_out.data(), *g = m_pleGate.data();
    matmul(m_pool, L.plInpGate, x, n, g, matmulScratch());
    forRows(m_pool, n, P, [&](int t) {
        float *gt = g + t * P;
        geglu(gt, m_ple.data() + t * PL + static_cast<int64_t>(il) * P, gt, P);
    });
    matmul(m_pool, L.plProj, g, n, out, matmulScratch());
    forRows(m_pool, n, E, [&](int t) {
        float *ot = out + t * E, *xt = x + t * E;
        rmsNorm(ot, L.plPostNorm.f32(), ot, E, c.rmsEps);
        for (int64_t i = 0; i < E; ++i)
            xt[i] += ot[i];
    });
}

// Gated FFN: gate [n, F] = act(h Wgate) * (h Wup); out = gate Wdown.
void Forward::denseFfn(const model::LayerWeights &L, uint32_t il, int n)
{
    const model::ModelConfig &c = m_c;
    const int64_t E = c.nEmbd, F = c.layers[il].nFf;
    uint8_t *scratch = matmulScratch();
    const float *h = m_h.data();
    if (c.fusedGateUp) {
        matmul(m_pool, L.ffnUp, h, n, m_up.data(), scratch);
        forRows(m_pool, n, E, [&](int t) {
            const float *gu = m_up.data() + t * 2 * F;
            if (c.ffnActivation == model::FfnActivation::FFN_ACTIVATION_GELU_TANH)
                geglu(gu, gu + F, m_gate.data() + t * F, F);
            else
                swiglu(gu, gu + F, m_gate.data() + t * F, F);
        });
    } else {
        const MatmulJob jobs[2] = {{&L.ffnGate, m_gate.data(), nullptr}, {&L.ffnUp, m_up.data(), nullptr}};
        matmulGroup(m_pool, jobs, 2, h, n, scratch);
        forRows(m_pool, n, E, [&](int t) {
            float *g = m_gate.data() + t * F;
            if (c.ffnActivation == model::FfnActivation::FFN_ACTIVATION_GELU_TANH)
                geglu(g, m_up.data() + t * F, g, F);
            else
                swiglu(g, m_up.data() + t * F, g, F);
        });
    }
    matmul(m_pool, L.ffnDown, m_gate.data(), n, m_out.data(), scratch);
}

// The shared expert (qwen35moe): out[t] += sigmoid(Wsg . h[t]) *
// (silu(h Wgate) * (h Wup)) Wdown.
void Forward::sharedExpert(const model::LayerWeights &L, int n)
{
    const model::ModelConfig &c = m_c;
    const int64_t E = c.nEmbd, FS = c.nFfShexp;
    uint8_t *scratch = matmulScratch();
    const float *h = m_h.data();
    const MatmulJob jobs[2] = {{&L.ffnGateShexp, m_shexpGate.data(), nullptr}, {&L.ffnUpShexp, m_shexpUp.data(), nullptr}};
    matmulGroup(m_pool, jobs, 2, h, n, scratch);
    forRows(m_pool, n, FS, [&](int t) {
        float *g = m_shexpGate.data() + t * FS;
        swiglu(g, m_shexpUp.data() + t * FS, g, FS);
    });
    matmul(m_pool, L.ffnDownShexp, m_shexpGate.data(), n, m_shexpOut.data(), scratch);
    forRows(m_pool, n, E, [&](int t) {
        const float *ht = h + t * E;
        float logit = 0.0f;
        for (int64_t i = 0; i < E; ++i)
            logit += L.ffnGateInpShexp.f32()[i] * ht[i];
        const float gate = 1.0f / (1.0f + std::exp(-logit));
        float *ot = m_out.data() + t * E;
        const float *st = m_shexpOut.data() + t * E;
        for (int64_t i = 0; i < E; ++i)
            ot[i] += st[i] * gate;
    });
}

// A Gated DeltaNet layer over the batch (h -> out):
//   qkv = h Wqkv [n, C], z = h Wgate [n, VD], beta = sigmoid(h Wbeta),
//   g = softplus(h Walpha + dt_bias) * ssm_a                   [n, value heads]
//   u = silu(causal conv of qkv with the sequence's window)    (C = q | k | v)
//   q, k per key head: L2-normed; value head hv reads key head hv % key heads
//   o = delta rule over the sequence's state, token by token   [n, VD]
//   o = rmsnorm(o per value head) * ssm_norm * silu(z); out = o Wout
// Rows of different sequences share the projections; the convolution and
// the delta rule run per sequence, in token order.
// The convolution's state after each row i < n - 1 of a verification span,
// channels [c0, c1): the last K - 1 of (the state before the span, the
// span's inputs 0..i), oldest first. Runs before causalConv moves the state.
void Forward::keepConvSteps(uint32_t il, const BatchSpan &sp, int64_t c0, int64_t c1)
{
    RecurrentState &state = *m_cache.recurrent();
    const int64_t C = m_c.ssmConvChannels();
    const int W = static_cast<int>(m_c.ssmConvKernel) - 1;
    const float *before = state.conv(il, sp.seq);
    for (int i = 0; i + 1 < sp.n; ++i) {
        float *dst = state.stepConv(il, sp.seq, static_cast<uint32_t>(i));
        for (int64_t ch = c0; ch < c1; ++ch)
            for (int j = 0; j < W; ++j) {
                const int at = i + 1 + j;   // index into (state, inputs)
                dst[ch * W + j] = at < W ? before[ch * W + at]
                                         : m_ssmQkv[static_cast<size_t>((sp.row0 + at - W) * C + ch)];
            }
    }
}

void Forward::deltaNetLayer(uint32_t il, const BatchSpan *spans, int nSpans, int n)
{
    const model::ModelConfig &c = m_c;
    const model::LayerWeights &L = m_w.layers[il];
    RecurrentState &state = *m_cache.recurrent();
    const int64_t C = c.ssmConvChannels(), KD = c.ssmKeyDim(), VD = c.ssmValueDim();
    const int NV = static_cast<int>(c.ssmTimeStepRank), NK = static_cast<int>(c.ssmGroupCount);
    const int S = static_cast<int>(c.ssmStateSize), K = static_cast<int>(c.ssmConvKernel);
    uint8_t *scratch = matmulScratch();
    const float *h = m_h.data();

    {
        const MatmulJob big[2] = {{&L.wqkv, m_ssmQkv.data(), nullptr}, {&L.attnGate, m_ssmZ.data(), nullptr}};
        matmulGroup(m_pool, big, 2, h, n, scratch);
        const MatmulJob small[2] = {{&L.ssmBeta, m_ssmBeta.data(), nullptr}, {&L.ssmAlpha, m_ssmAlpha.data(), nullptr}};
        matmulGroup(m_pool, small, 2, h, n, scratch);
    }

    // The convolution, channels across the threads, each sequence's tokens in order.
    const float *taps = L.ssmConv1d.f32();
    m_pool.run([&](int ith, int nth) {
        int64_t c0, c1;
        ThreadPool::split(C, ith, nth, &c0, &c1);
        if (c0 >= c1)
            return;
        for (int si = 0; si < nSpans; ++si) {
            const BatchSpan &sp = spans[si];
            const int64_t r0 = sp.row0;
            if (sp.verify && state.stepsCount(sp.seq) > 0)
                keepConvSteps(il, sp, c0, c1);
            causalConv(taps, state.conv(il, sp.seq), m_ssmQkv.data() + r0 * C, m_ssmConv.data() + r0 * C, sp.n, C, K, c0, c1);
        }
    }, static_cast<int64_t>(n) * C * K * 4);

    // silu, the L2 norms of the q and k heads, the decay and rate of each value head.
    const float *dtBias = L.ssmDtBias.f32(), *a = L.ssmA.f32();
    forRows(m_pool, n, C, [&](int t) {
        float *u = m_ssmConv.data() + t * C;
        for (int64_t i = 0; i < C; ++i)
            u[i] = u[i] / (1.0f + std::exp(-u[i]));
        for (int hk = 0; hk < 2 * NK; ++hk)   // q heads, then k heads
            l2Norm(u + static_cast<int64_t>(hk) * S, S, c.rmsEps);
        float *beta = m_ssmBeta.data() + static_cast<int64_t>(t) * NV;
        float *g = m_ssmAlpha.data() + static_cast<int64_t>(t) * NV;
        for (int hv = 0; hv < NV; ++hv) {
            beta[hv] = 1.0f / (1.0f + std::exp(-beta[hv]));
            const float x = g[hv] + dtBias[hv];
            const float softplus = x > 20.0f ? x : std::log1p(std::exp(x));
            g[hv] = softplus * a[hv];   // the log decay g of this step
        }
    });

    // The delta rule: items (sequence, value head), each over its tokens in
    // order: a single token by a step, more in chunks of kDeltaChunk.
    const float scale = 1.0f / std::sqrt(static_cast<float>(S));
    const int64_t items = static_cast<int64_t>(nSpans) * NV;
    m_pool.run([&](int ith, int nth) {
        float *chunkScratch = m_deltaScratch.data() + static_cast<size_t>(ith) * deltaNetChunkScratch(S);
        for (int64_t item = ith; item < items; item += nth) {
            const BatchSpan &sp = spans[item / NV];
            const int hv = static_cast<int>(item % NV), hk = hv % NK;
            float *M = state.delta(il, sp.seq) + static_cast<int64_t>(hv) * S * S;
            const auto row = [&](int t) { return m_ssmConv.data() + static_cast<int64_t>(t) * C; };
            const auto outOf = [&](int t) { return m_ssmCore.data() + static_cast<int64_t>(t) * VD + static_cast<int64_t>(hv) * S; };
            const size_t gi = static_cast<size_t>(hv);
            // Batch-invariant or verifying: every token by a step (a
            // verification keeps the state after each row but the last).
            const bool keep = sp.verify && state.stepsCount(sp.seq) > 0;
            if (sp.n == 1 || m_invariant || keep) {
                for (int t = sp.row0; t < sp.row0 + sp.n; ++t) {
                    const float *u = row(t);
                    deltaNetStep(M, u + static_cast<int64_t>(hk) * S, u + KD + static_cast<int64_t>(hk) * S,
                                 u + 2 * KD + static_cast<int64_t>(hv) * S,
                                 std::exp(m_ssmAlpha[static_cast<size_t>(t) * NV + gi]),
                                 m_ssmBeta[static_cast<size_t>(t) * NV + gi], scale, outOf(t), S);
                    if (keep && t + 1 < sp.row0 + sp.n)
                        std::copy(M, M + static_cast<int64_t>(S) * S,
                                  state.stepDelta(il, sp.seq, static_cast<uint32_t>(t - sp.row0)) +
                                      static_cast<int64_t>(hv) * S * S);
                }
                continue;
            }
            for (int t0 = sp.row0; t0 < sp.row0 + sp.n; t0 += kDeltaChunk) {
                const int len = std::min(kDeltaChunk, sp.row0 + sp.n - t0);
                const float *u = row(t0);
                deltaNetChunk(M, u + static_cast<int64_t>(hk) * S, u + KD + static_cast<int64_t>(hk) * S, C,
                              u + 2 * KD + static_cast<int64_t>(hv) * S, C,
                              m_ssmAlpha.data() + static_cast<size_t>(t0) * NV + gi,
                              m_ssmBeta.data() + static_cast<size_t>(t0) * NV + gi, NV, scale, outOf(t0), VD, len, S,
                              chunkScratch);
            }
        }
    }, static_cast<int64_t>(n) * NV * S * S * 8);

    // The gated norm of each value head, then ssm_out.
    forRows(m_pool, n, VD, [&](int t) {
        float *o = m_ssmCore.data() + static_cast<int64_t>(t) * VD;
        const float *z = m_ssmZ.data() + static_cast<int64_t>(t) * VD;
        for (int hv = 0; hv < NV; ++hv)
            rmsNorm(o + static_cast<int64_t>(hv) * S, L.ssmNorm.f32(), o + static_cast<int64_t>(hv) * S, S, c.rmsEps);
        for (int64_t i = 0; i < VD; ++i)
            o[i] *= z[i] / (1.0f + std::exp(-z[i]));
    });
    matmul(m_pool, L.ssmOut, m_ssmCore.data(), n, m_out.data(), scratch);
}

namespace {

// The k largest of v[0..nv) by value, largest first; ties go to the lower index.
void topK(const float *v, int nv, int k, int32_t *out)
{
    for (int j = 0; j < k; ++j) {
        int best = -1;
        for (int i = 0; i < nv; ++i) {
            bool taken = false;
            for (int m = 0; m < j && !taken; ++m)
                taken = out[m] == i;
            if (!taken && (best < 0 || v[i] > v[best]))
                best = i;
        }
        out[j] = best;
    }
}

// In place: p = exp(p - max) / sum (the reference's soft_max, its
// ggml_vec_soft_max_f32 on its AVX-512 build: the first n - n % 16
// exponentials by its vector e^x (ops/expf.h) summed 16 at a time as
// _mm512_reduce_add_ps, the rest by expf; the sums in double; then a
// multiply by 1/sum). 128 experts (Gemma 4 26B-A4B, Qwen3 MoE) take the
// vector part; 8 take libm's.
void softmaxInPlace(float *p, int n)
{
    float mx = -INFINITY;
    for (int i = 0; i < n; ++i)
        mx = std::max(mx, p[i]);
    double sum = 0.0;
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        float t[8], u[4];
        for (int l = 0; l < 16; ++l)
            p[i + l] = ops::vexpf(p[i + l] - mx);
        for (int l = 0; l < 8; ++l)
            t[l] = p[i + l + 8] + p[i + l];
        for (int l = 0; l < 4; ++l)
            u[l] = t[l + 4] + t[l];
        sum += (u[0] + u[2]) + (u[1] + u[3]);
    }
    for (; i < n; ++i) {
        p[i] = std::exp(p[i] - mx);
        sum += p[i];
    }
    const float inv = static_cast<float>(1.0 / sum);
    for (int i = 0; i < n; ++i)
        p[i] *= inv;
}

} // namespace

// Mixture of experts: route each token to k experts, run each expert once
// over the tokens routed to it, and sum the k outputs of each token with
// their weights (in the order of the weights, as the reference adds them).
void Forward::moeFfn(const model::LayerWeights &L, int n, const float *routerIn)
{
    const model::ModelConfig &c = m_c;
    const int X = static_cast<int>(c.nExpert), K = static_cast<int>(c.nExpertUsed);
    const int64_t E = c.nEmbd, FE = c.nFfExp;
    uint8_t *scratch = matmulScratch();
    const float *h = m_h.data();

    // Router logits [n, X] and the choice of each token.
    matmul(m_pool, L.ffnGateInp, routerIn, n, m_router.data(), scratch, L.ffnGateInpBias ? L.ffnGateInpBias.f32() : nullptr);
    float probs[512];
    for (int t = 0; t < n; ++t) {
        float *logits = m_router.data() + static_cast<size_t>(t) * X;
        int32_t *sel = m_selExpert.data() + static_cast<size_t>(t) * K;
        float *w = m_selWeight.data() + static_cast<size_t>(t) * K;
        if (c.expertGating == model::ExpertGating::EXPERT_GATING_SOFTMAX) {
            std::copy(logits, logits + X, probs);
            softmaxInPlace(probs, X);
            topK(probs, X, K, sel);
            for (int j = 0; j < K; ++j)
                w[j] = probs[sel[j]];
        } else {
            topK(logits, X, K, sel);
            for (int j = 0; j < K; ++j)
                w[j] = logits[sel[j]];
            softmaxInPlace(w, K);
        }
        if (c.expertWeightsNorm) {
            double sum = 0.0;
            for (int j = 0; j < K; ++j)
                sum += w[j];
            const float div = std::max(static_cast<float>(sum), 6.103515625e-5f);
            for (int j = 0; j < K; ++j)
                w[j] /= div;
        }
        if (c.expertWeightsScale != 0.0f && c.expertWeightsScale != 1.0f)
            for (int j = 0; j < K; ++j)
                w[j] *= c.expertWeightsScale;
    }

    // Group (token, j) pairs by expert: rows [first[e], first[e] + count[e]).
    std::fill(m_expertCount.begin(), m_expertCount.end(), 0);
    for (int i = 0; i < n * K; ++i)
        ++m_expertCount[static_cast<size_t>(m_selExpert[static_cast<size_t>(i)])];
    m_expertFirst[0] = 0;
    for (int e = 0; e < X; ++e)
        m_expertFirst[static_cast<size_t>(e) + 1] = m_expertFirst[static_cast<size_t>(e)] + m_expertCount[static_cast<size_t>(e)];
    {
        int32_t *fill = m_expertCount.data();   // reused as the fill cursor, then restored
        std::fill(m_expertCount.begin(), m_expertCount.end(), 0);
        for (int i = 0; i < n * K; ++i) {
            const int e = m_selExpert[static_cast<size_t>(i)];
            m_selRow[static_cast<size_t>(i)] = m_expertFirst[static_cast<size_t>(e)] + fill[e]++;
        }
    }
    // Inputs grouped by expert (one token: every expert reads h itself).
    const float *in = h;
    if (n > 1) {
        forRows(m_pool, n, E * K, [&](int t) {
            for (int j = 0; j < K; ++j)
                std::copy(h + t * E, h + (t + 1) * E,
                          m_moeIn.data() + static_cast<size_t>(m_selRow[static_cast<size_t>(t) * K + j]) * E);
        });
        in = m_moeIn.data();
    }
    const auto rowsOf = [&](int e) { return m_expertCount[static_cast<size_t>(e)]; };
    const auto firstOf = [&](int e) { return static_cast<int64_t>(m_expertFirst[static_cast<size_t>(e)]); };

    // gate, up [rows, FE] of every used expert, in one dispatch.
    m_tasks.clear();
    for (int e = 0; e < X; ++e) {
        if (rowsOf(e) == 0)
            continue;
        const float *xe = n > 1 ? in + firstOf(e) * E : h;
        const float *bg = L.gateExpsBias ? reinterpret_cast<const float *>(L.gateExpsBias.row(e)) : nullptr;
        const float *bu = L.upExpsBias ? reinterpret_cast<const float *>(L.upExpsBias.row(e)) : nullptr;
        m_tasks.push_back({&L.gateExps[static_cast<size_t>(e)], xe, rowsOf(e), m_moeGate.data() + firstOf(e) * FE, bg, true});
        m_tasks.push_back({&L.upExps[static_cast<size_t>(e)], xe, rowsOf(e), m_moeUp.data() + firstOf(e) * FE, bu, true});
    }
    matmulTasks(m_pool, m_tasks.data(), static_cast<int>(m_tasks.size()), scratch);

    // act(gate) * up, in place in m_moeGate                         [n k, FE]
    forRows(m_pool, n * K, FE, [&](int r) {
        float *g = m_moeGate.data() + static_cast<int64_t>(r) * FE;
        const float *u = m_moeUp.data() + static_cast<int64_t>(r) * FE;
        switch (c.ffnActivation) {
        case model::FfnActivation::FFN_ACTIVATION_GELU_TANH: geglu(g, u, g, FE); break;
        case model::FfnActivation::FFN_ACTIVATION_SWIGLU_OAI: swigluOai(g, u, g, FE); break;
        case model::FfnActivation::FFN_ACTIVATION_SILU: swiglu(g, u, g, FE); break;
        }
    });

    // down [rows, E] of every used expert, in one dispatch.
    m_tasks.clear();
    for (int e = 0; e < X; ++e) {
        if (rowsOf(e) == 0)
            continue;
        const float *bd = L.downExpsBias ? reinterpret_cast<const float *>(L.downExpsBias.row(e)) : nullptr;
        m_tasks.push_back({&L.downExps[static_cast<size_t>(e)], m_moeGate.data() + firstOf(e) * FE, rowsOf(e),
                           m_moeDown.data() + firstOf(e) * E, bd, true});
    }
    matmulTasks(m_pool, m_tasks.data(), static_cast<int>(m_tasks.size()), scratch);

    // out[t] = sum_j w_tj * down[row(t, j)], j in weight order   [n, E]
    // (an expert's output scale, ffn_down_exps.scale, is already in down:
    // the matmul applies TensorView::outScale, as the reference's mul_mat_id
    // scale before the weight).
    forRows(m_pool, n, E * K, [&](int t) {
        float *ot = m_out.data() + t * E;
        for (int j = 0; j < K; ++j) {
            const size_t tj = static_cast<size_t>(t) * K + j;
            const float wj = m_selWeight[tj];
            const float *d = m_moeDown.data() + static_cast<int64_t>(m_selRow[tj]) * E;
            if (j == 0)
                for (int64_t i = 0; i < E; ++i)
                    ot[i] = d[i] * wj;
            else
                for (int64_t i = 0; i < E; ++i)
                    ot[i] += d[i] * wj;
        }
    });
}

// Attention of every (token, query head) of the batch over its sequence's
// keys, as the reference's flash attention computes it: a prompt chunk of at
// least kTileQueries tokens in tiles of queries (attendTiled, here), other
// rows query by query with the F16 accumulator (attendOnline, attentionRows).
// Reads the keys and values of positions first..pos through the sequence's
// block table.
void Forward::attention(uint32_t il, uint32_t seq, int row0, int n, uint32_t pos0)
{
    if (n < kTileQueries) {
        BatchSpan span;
        span.seq = seq;
        span.row0 = row0;
        span.n = n;
        attentionRows(il, &span, 1);
        return;
    }
    const model::ModelConfig &c = m_c;
    const model::LayerSpec &spec = c.layers[il];
    const int64_t Q = c.nEmbdQ(il), VO = c.nEmbdVOut(il);
    const int dk = static_cast<int>(spec.headDimK), dv = static_cast<int>(spec.headDimV);
    const int nKv = static_cast<int>(spec.nHeadKv);
    const int group = static_cast<int>(c.nHead) / nKv;
    const bool sliding = c.slidingWindow != 0 && spec.sliding;
    const uint32_t held = m_cache.firstPresent(seq, kvOf(il));
    const float *sinks = c.attnSinks ? m_w.layers[il].attnSinks.f32() : nullptr;
    const auto firstKey = [&](uint32_t pos) {
        const uint32_t w = sliding && pos + 1 > c.slidingWindow ? pos + 1 - c.slidingWindow : 0;
        return std::max(w, held);
    };
    KvView base;
    base.kStride = m_cache.kCellStride(kvOf(il));
    base.vStride = m_cache.vCellStride(kvOf(il));
    base.blocks = m_cache.table(seq, m_cache.groupOf(kvOf(il)));
    base.dk = dk;
    base.dv = dv;
    base.scale = c.queryScaleBeforeAttention ? 1.0f : c.attentionScale(il);
    base.softcap = c.attnSoftcap;
    const auto viewOf = [&](int kvHead) {
        KvView v = base;
        v.k = m_cache.kHeadCells(kvOf(il), static_cast<uint32_t>(kvHead));
        v.v = m_cache.vHeadCells(kvOf(il), static_cast<uint32_t>(kvHead));
        return v;
    };
    const int64_t span = static_cast<int64_t>(pos0) + n;   // keys per query, at most
    const int64_t work = static_cast<int64_t>(n) * c.nHead * span * (dk + dv) * 2;

    // Tiles: up to kTileCallQueries (token, head) queries of one KV head,
    // consecutive tokens times the heads of the group.
    const int tokensPerTile = std::max(1, kTileCallQueries / group);
    const int64_t tilesPerHead = (n + tokensPerTile - 1) / tokensPerTile;
    const int64_t items = tilesPerHead * nKv;
    const size_t scratchPerThread = m_tileScratch.size() / static_cast<size_t>(m_pool.size());
    m_pool.run([&](int ith, int nth) {
        float *scratch = m_tileScratch.data() + static_cast<size_t>(ith) * scratchPerThread;
        TileQuery qs[kTileCallQueries];
        // Interleaved: later tiles see more keys.
        for (int64_t item = ith; item < items; item += nth) {
            const int kvHead = static_cast<int>(item % nKv);
            const int t0 = static_cast<int>(item / nKv) * tokensPerTile;
            const int t1 = std::min(n, t0 + tokensPerTile);
            const KvView kv = viewOf(kvHead);
            int nq = 0;
            for (int t = t0; t < t1; ++t) {
                const uint32_t pos = pos0 + static_cast<uint32_t>(t);
                for (int g = 0; g < group; ++g) {
                    const int head = kvHead * group + g;
                    TileQuery &tq = qs[nq++];
                    tq.q = m_q.data() + (row0 + t) * Q + static_cast<int64_t>(head) * dk;
                    tq.out = m_attn.data() + (row0 + t) * VO + static_cast<int64_t>(head) * dv;
                    tq.first = firstKey(pos);
                    tq.last = lastKey(il, pos);
                    tq.sink = sinks ? sinks[head] : kNoSink;
                    if (nq == kTileCallQueries) {
                        attendTiled(kv, qs, nq, scratch);
                        nq = 0;
                    }
                }
            }
            if (nq > 0)
                attendTiled(kv, qs, nq, scratch);
        }
    }, work);
}

// Batch-invariant flash attention over an F16 cache: every row at a
// position >= kTileQueries through attendTiled (whose result per query does
// not depend on the queries sharing a call), in one dispatch over items
// (block of up to kTileCallQueries / group consecutive rows of one span,
// KV head): a prompt's key tiles are converted once per block, a
// generating row is a block of its own (attendDecode). When every block is
// one row and they are fewer than the threads times the KV heads, each KV
// head's query heads are split in up to threads / items slices, one item
// each (a query's result does not depend on the queries sharing its call).
void Forward::attentionTiledRows(uint32_t il, const BatchSpan *spans, int nSpans)
{
    const model::ModelConfig &c = m_c;
    const model::LayerSpec &spec = c.layers[il];
    const int64_t Q = c.nEmbdQ(il), VO = c.nEmbdVOut(il);
    const int dk = static_cast<int>(spec.headDimK), dv = static_cast<int>(spec.headDimV);
    const int nKv = static_cast<int>(spec.nHeadKv);
    const int group = static_cast<int>(c.nHead) / nKv;
    const bool sliding = c.slidingWindow != 0 && spec.sliding;
    const float *sinks = c.attnSinks ? m_w.layers[il].attnSinks.f32() : nullptr;
    const int grp = m_cache.groupOf(kvOf(il));
    const int tokensPerBlock = std::max(1, kTileCallQueries / group);
    // Blocks: (span, first row, rows), listed in m_rowList as triples.
    int nBlocks = 0;
    int64_t work = 0;
    bool rowsOnly = true;
    for (int si = 0; si < nSpans; ++si) {
        const BatchSpan &sp = spans[si];
        const uint32_t pos0 = m_rowPos[static_cast<size_t>(sp.row0)];
        const int skip = pos0 >= static_cast<uint32_t>(kTileQueries) ? 0 : static_cast<int>(kTileQueries - pos0);
        for (int t0 = skip; t0 < sp.n; t0 += tokensPerBlock) {
            m_tileBlocks[static_cast<size_t>(nBlocks)] = {si, sp.row0 + t0, std::min(tokensPerBlock, sp.n - t0)};
            rowsOnly = rowsOnly && m_tileBlocks[static_cast<size_t>(nBlocks)].n == 1;
            ++nBlocks;
        }
        if (skip < sp.n)
            work += static_cast<int64_t>(sp.n - skip) * c.nHead * (pos0 + sp.n) * (dk + dv) * 2;
    }
    KvView base;
    base.kStride = m_cache.kCellStride(kvOf(il));
    base.vStride = m_cache.vCellStride(kvOf(il));
    base.dk = dk;
    base.dv = dv;
    base.scale = c.queryScaleBeforeAttention ? 1.0f : c.attentionScale(il);
    base.softcap = c.attnSoftcap;
    const bool q8 = m_cache.quantized();
    const int64_t heads = static_cast<int64_t>(nBlocks) * nKv;
    const int parts = rowsOnly && heads > 0 && heads < m_pool.size()
                          ? static_cast<int>(std::min<int64_t>(group, (m_pool.size() + heads - 1) / heads))
                          : 1;
    const int64_t items = heads * parts;
    const size_t scratchPerThread = m_tileScratch.size() / static_cast<size_t>(m_pool.size());
    m_pool.run([&](int ith, int nth) {
        float *scratch = m_tileScratch.data() + static_cast<size_t>(ith) * scratchPerThread;
        TileQuery qs[kTileCallQueries];
        for (int64_t item = ith; item < items; item += nth) {
            const TileBlock &b = m_tileBlocks[static_cast<size_t>(item / (nKv * parts))];
            const int kvHead = static_cast<int>(item / parts % nKv);
            const int part = static_cast<int>(item % parts);
            const int gBegin = part * group / parts, gEnd = (part + 1) * group / parts;
            const BatchSpan &sp = spans[b.span];
            const uint32_t held = m_cache.firstPresent(sp.seq, kvOf(il));
            KvView kv = base;
            kv.blocks = m_cache.table(sp.seq, grp);
            kv.k = m_cache.kHeadCells(kvOf(il), static_cast<uint32_t>(kvHead));
            kv.v = m_cache.vHeadCells(kvOf(il), static_cast<uint32_t>(kvHead));
            // One row (a generated token): its heads share the key range,
            // attendDecode (attendTiled's results, laid out for few queries).
            // A Q8_0 cache: attendTiledQ8_0 for both.
            const auto attend = q8 ? attendTiledQ8_0 : b.n == 1 ? attendDecode : attendTiled;
            int nq = 0;
            for (int t = b.row0; t < b.row0 + b.n; ++t) {
                const uint32_t pos = m_rowPos[static_cast<size_t>(t)];
                const uint32_t w = sliding && pos + 1 > c.slidingWindow ? pos + 1 - c.slidingWindow : 0;
                for (int g = gBegin; g < gEnd; ++g) {
                    const int head = kvHead * group + g;
                    TileQuery &tq = qs[nq++];
                    tq.q = m_q.data() + t * Q + static_cast<int64_t>(head) * dk;
                    tq.out = m_attn.data() + t * VO + static_cast<int64_t>(head) * dv;
                    tq.first = std::max(w, held);
                    tq.last = lastKey(il, pos);
                    tq.sink = sinks ? sinks[head] : kNoSink;
                    if (nq == kTileCallQueries) {
                        attend(kv, qs, nq, scratch);
                        nq = 0;
                    }
                }
            }
            if (nq > 0)
                attend(kv, qs, nq, scratch);
        }
    }, work);
}

bool Forward::tiledCache() const
{
    return !m_cache.quantized() || hasTiledQ8_0();
}

// The rows of the spans shorter than kTileQueries, or batch invariant the
// rows at positions below it (a Q8_0 cache: attendOnlineQ8_0; all rows
// where tiledCache() is false), one query at a time:
// items (row, KV head, chunk of its query heads) over all of them in one
// dispatch, so a batch of many generating sequences costs one fork/join.
void Forward::attentionRows(uint32_t il, const BatchSpan *spans, int nSpans)
{
    const model::ModelConfig &c = m_c;
    const model::LayerSpec &spec = c.layers[il];
    const int64_t Q = c.nEmbdQ(il), VO = c.nEmbdVOut(il);
    const int dk = static_cast<int>(spec.headDimK), dv = static_cast<int>(spec.headDimV);
    const int64_t nKv = spec.nHeadKv;
    const int group = static_cast<int>(c.nHead / spec.nHeadKv);
    const bool sliding = c.slidingWindow != 0 && spec.sliding;
    const float *sinks = c.attnSinks ? m_w.layers[il].attnSinks.f32() : nullptr;
    const int grp = m_cache.groupOf(kvOf(il));
    const bool q8 = m_cache.quantized();
    const bool byPosition = m_invariant && tiledCache();
    // Rows to do, with their sequence's lowest held key.
    int nRows = 0;
    int64_t keys = 0;
    for (int si = 0; si < nSpans; ++si) {
        const BatchSpan &sp = spans[si];
        if (sp.n >= kTileQueries && !q8 && !m_invariant)   // tiled (attention())
            continue;
        const uint32_t held = m_cache.firstPresent(sp.seq, kvOf(il));
        for (int t = 0; t < sp.n; ++t) {
            if (byPosition && m_rowPos[static_cast<size_t>(sp.row0 + t)] >= static_cast<uint32_t>(kTileQueries))
                break;   // tiled (attentionTiledRows)
            m_rowList[static_cast<size_t>(nRows)] = sp.row0 + t;
            m_rowHeld[static_cast<size_t>(nRows)] = held;
            keys += m_rowPos[static_cast<size_t>(sp.row0 + t)] + 1;
            ++nRows;
        }
    }
    KvView base;
    base.kStride = m_cache.kCellStride(kvOf(il));
    base.vStride = m_cache.vCellStride(kvOf(il));
    base.dk = dk;
    base.dv = dv;
    base.scale = c.queryScaleBeforeAttention ? 1.0f : c.attentionScale(il);
    base.softcap = c.attnSoftcap;
    const int chunks = (group + kMaxOnlineHeads - 1) / kMaxOnlineHeads;
    const int64_t items = static_cast<int64_t>(nRows) * nKv * chunks;
    const int64_t work = keys * group * nKv * (dk + dv) * 2;
    m_pool.run([&](int ith, int nth) {
        for (int64_t item = ith; item < items; item += nth) {
            const int r = static_cast<int>(item / (nKv * chunks));
            const int rest = static_cast<int>(item % (nKv * chunks));
            const int kvHead = rest / chunks;
            const int head0 = kvHead * group + (rest % chunks) * kMaxOnlineHeads;
            const int nh = std::min(kMaxOnlineHeads, (kvHead + 1) * group - head0);
            const int t = m_rowList[static_cast<size_t>(r)];
            const uint32_t pos = m_rowPos[static_cast<size_t>(t)];
            const uint32_t w = sliding && pos + 1 > c.slidingWindow ? pos + 1 - c.slidingWindow : 0;
            const uint32_t first = std::max(w, m_rowHeld[static_cast<size_t>(r)]);
            KvView v = base;
            v.blocks = m_cache.table(m_rowSeq[static_cast<size_t>(t)], grp);
            v.k = m_cache.kHeadCells(kvOf(il), static_cast<uint32_t>(kvHead));
            v.v = m_cache.vHeadCells(kvOf(il), static_cast<uint32_t>(kvHead));
            const float *qp[kMaxOnlineHeads];
            float *op[kMaxOnlineHeads];
            for (int g = 0; g < nh; ++g) {
                qp[g] = m_q.data() + t * Q + static_cast<int64_t>(head0 + g) * dk;
                op[g] = m_attn.data() + t * VO + static_cast<int64_t>(head0 + g) * dv;
            }
            if (q8)
                attendOnlineQ8_0(v, first, lastKey(il, pos), nh, qp, op, sinks ? sinks + head0 : nullptr);
            else
                attendOnline(v, first, lastKey(il, pos), nh, qp, op, sinks ? sinks + head0 : nullptr);
        }
    }, work);
}

void Forward::attentionStandard(uint32_t il, uint32_t seq, int row0, int n, uint32_t pos0)
{
    const model::ModelConfig &c = m_c;
    const model::LayerSpec &spec = c.layers[il];
    const int64_t Q = c.nEmbdQ(il), VO = c.nEmbdVOut(il);
    const int dk = static_cast<int>(spec.headDimK), dv = static_cast<int>(spec.headDimV);
    const int64_t nKv = spec.nHeadKv;
    const int group = static_cast<int>(c.nHead / spec.nHeadKv);
    const float scale = c.queryScaleBeforeAttention ? 1.0f : c.attentionScale(il);
    const bool swa = c.slidingWindow != 0 && spec.sliding;
    const uint32_t capacity = m_cache.capacity();
    const float *f16 = f16Table();
    const uint32_t held = m_cache.firstPresent(seq, kvOf(il));
    const int32_t *table = m_cache.table(seq, m_cache.groupOf(kvOf(il)));
    const float *sinks = c.attnSinks ? m_w.layers[il].attnSinks.f32() : nullptr;
    const auto firstKey = [&](uint32_t pos) {
        const uint32_t w = swa && pos + 1 > c.slidingWindow ? pos + 1 - c.slidingWindow : 0;
        return std::max(w, held);
    };


    // Prompts: blocks of consecutive tokens x the query heads of one KV head
    // (up to 16 queries on AVX-512, 8 on AVX2) per work item, each key and value row converted once
    // for all of them (attendBlock).
    const int blockQueries = attendBlockQueries(dk);
    if (n > 1 && !m_invariant && !m_blockQ.empty() && c.attnSoftcap == 0.0f && group <= blockQueries && dk == dv && (dk == 64 || dk == 128)) {
        const int tokensPerBlock = blockQueries / group;
        const int64_t blocks = (n + tokensPerBlock - 1) / tokensPerBlock;
        const int64_t items = blocks * nKv;
        auto work = [&](int ith, int nth) {
            float *qBuf = m_blockQ.data() + static_cast<size_t>(ith) * kAttentionBlockQueries * dk;
            float *scratch = m_blockScratch.data() + static_cast<size_t>(ith) * (32 * static_cast<size_t>(capacity) + 16);
            uint16_t *q16 = m_q16.data() + static_cast<size_t>(ith) * kMaxGroupHeads * c.maxHeadDimK();
            // Interleaved: later blocks see more keys (see below).
            for (int64_t item = ith; item < items; item += nth) {
                const int blk = static_cast<int>(item / nKv), kvHead = static_cast<int>(item % nKv);
                const int t0 = blk * tokensPerBlock, t1 = std::min(n, t0 + tokensPerBlock);
                AttentionBlock b;
                b.k = m_cache.kHeadCells(kvOf(il), static_cast<uint32_t>(kvHead));
                b.kStride = m_cache.kCellStride(kvOf(il));
                b.v = m_cache.vHeadCells(kvOf(il), static_cast<uint32_t>(kvHead));
                b.vStride = m_cache.vCellStride(kvOf(il));
                b.blocks = table;
                b.d = dk;
                b.scale = scale;
                for (int t = t0; t < t1; ++t) {
                    const uint32_t pos = pos0 + static_cast<uint32_t>(t);
                    const uint32_t first = firstKey(pos);
                    for (int g = 0; g < group; ++g) {
                        const int head = kvHead * group + g;
                        float *qf = qBuf + static_cast<size_t>(b.nq) * dk;
                        // The query as halves (the reference converts it for the F16 K.Q product).
                        f32ToF16Row(m_q.data() + (row0 + t) * Q + static_cast<int64_t>(head) * dk, q16, dk);
                        for (int d = 0; d < dk; ++d)
                            qf[d] = f16[q16[d]];
                        b.q[b.nq] = qf;
                        b.out[b.nq] = m_attn.data() + (row0 + t) * VO + static_cast<int64_t>(head) * dv;
                        b.first[b.nq] = first;
                        b.last[b.nq] = lastKey(il, pos);
                        b.sink[b.nq] = sinks ? sinks[head] : kNoSink;
                        ++b.nq;
                    }
                }
                attendBlock(b, scratch);
            }
        };
        const int64_t span = static_cast<int64_t>(pos0) + n;
        m_pool.run(work, static_cast<int64_t>(n) * c.nHead * span * (dk + dv) * 2);
        return;
    }

    // Work items: (token, KV head, chunk of up to kMaxGroupHeads query heads
    // sharing that KV head), so each key/value row is converted once per chunk.
    const int chunks = (group + kMaxGroupHeads - 1) / kMaxGroupHeads;
    const int64_t items = static_cast<int64_t>(n) * nKv * chunks;
    AttentionHead base;
    base.kStride = m_cache.kCellStride(kvOf(il));
    base.vStride = m_cache.vCellStride(kvOf(il));
    base.blocks = table;
    base.dk = dk;
    base.dv = dv;
    base.scale = scale;
    base.softcap = c.attnSoftcap;
    auto work = [&](int ith, int nth) {
        const size_t slot = static_cast<size_t>(ith) * kMaxGroupHeads;
        float *scores = m_scores.data() + slot * capacity;
        uint16_t *probs = m_probs16.data() + slot * capacity;
        uint16_t *q16 = m_q16.data() + slot * c.maxHeadDimK();
        float *qf = m_qf.data() + slot * c.maxHeadDimK();
        // Interleaved, not contiguous: with the causal mask later tokens see
        // more keys, so contiguous halves would leave one thread with ~3/4 of
        // a prompt's work.
        for (int64_t item = ith; item < items; item += nth) {
            const int t = static_cast<int>(item / (nKv * chunks));
            const int rest = static_cast<int>(item % (nKv * chunks));
            const int kvHead = rest / chunks;
            const int head0 = kvHead * group + (rest % chunks) * kMaxGroupHeads;
            const int nh = std::min(kMaxGroupHeads, (kvHead + 1) * group - head0);
            const uint32_t pos = pos0 + static_cast<uint32_t>(t);
            AttentionHead ah = base;
            ah.k = m_cache.kHeadCells(kvOf(il), static_cast<uint32_t>(kvHead));
            ah.v = m_cache.vHeadCells(kvOf(il), static_cast<uint32_t>(kvHead));
            // Visible keys: j in [first, pos].
            ah.first = firstKey(pos);
            ah.last = lastKey(il, pos);
            const float *qp[kMaxGroupHeads];
            float *op[kMaxGroupHeads];
            for (int g = 0; g < nh; ++g) {
                // The query as halves (the reference converts it for the F16 K.Q product).
                f32ToF16Row(m_q.data() + (row0 + t) * Q + static_cast<int64_t>(head0 + g) * dk, q16 + g * dk, dk);
                for (int d = 0; d < dk; ++d)
                    qf[g * dk + d] = f16[q16[g * dk + d]];
                qp[g] = qf + g * dk;
                op[g] = m_attn.data() + (row0 + t) * VO + static_cast<int64_t>(head0 + g) * dv;
            }
            attendHeads(ah, nh, qp, op, scores, capacity, probs, capacity, sinks ? sinks + head0 : nullptr);
        }
    };
    const int64_t span = static_cast<int64_t>(pos0) + n;   // keys per item, at most
    m_pool.run(work, static_cast<int64_t>(n) * c.nHead * span * (dk + dv) * 2);
}

} // namespace burrow::runtime
