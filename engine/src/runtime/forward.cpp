#include "runtime/forward.h"

#include "ops/attention_kernels.h"
#include "ops/f16.h"
#include "runtime/kv_cache.h"
#include "runtime/matmul.h"
#include "ops/ops.h"
#include "runtime/thread_pool.h"

#include <algorithm>
#include <cmath>
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

} // namespace

Forward::Forward(const model::ModelConfig &config, const model::Weights &weights, KvCache &cache, ThreadPool &pool,
                 int maxBatch)
    : m_c(config), m_w(weights), m_cache(cache), m_pool(pool), m_maxBatch(maxBatch)
{
}

Result<std::unique_ptr<Forward>> Forward::create(const model::ModelConfig &c, const model::Weights &w,
                                                 KvCache &cache, ThreadPool &pool, int maxBatch)
{
    if (maxBatch < 1)
        maxBatch = 1;
    std::unique_ptr<Forward> f(new Forward(c, w, cache, pool, maxBatch));
    const size_t B = static_cast<size_t>(maxBatch);
    const size_t nThreads = static_cast<size_t>(pool.size());
    size_t scratch = matmulScratchBytes(w.output, 1);
    for (const model::LayerWeights &L : w.layers) {
        for (const model::TensorView *t : {&L.wq, &L.wk, &L.wv, &L.wqkv, &L.wo, &L.ffnGate, &L.ffnUp, &L.ffnDown})
            if (*t)
                scratch = std::max(scratch, matmulScratchBytes(*t, maxBatch));
    }
    try {
        f->m_x.resize(B * c.nEmbd);
        f->m_h.resize(B * c.nEmbd);
        if (c.fusedQkv)
            f->m_qkv.resize(B * (c.nEmbdQ() + c.nEmbdKv() + c.nEmbdVKv()));
        f->m_q.resize(B * c.nEmbdQ());
        f->m_k.resize(B * c.nEmbdKv());
        f->m_v.resize(B * c.nEmbdVKv());
        f->m_attn.resize(B * c.nEmbdVOut());
        f->m_out.resize(B * c.nEmbd);
        f->m_gate.resize(B * c.nFf);
        f->m_up.resize(B * c.nFf * (c.fusedGateUp ? 2 : 1));
        f->m_ropeCs.resize(B * c.nRot);
        f->m_scratch.resize(scratch + 64);
        const size_t slots = nThreads * static_cast<size_t>(kMaxGroupHeads);   // query heads per attention item
        f->m_scores.resize(slots * cache.capacity());
        f->m_probs16.resize(slots * cache.capacity());
        f->m_q16.resize(slots * c.headDimK);
        f->m_qf.resize(slots * c.headDimK);
        if (maxBatch > 1 && c.headDimK == c.headDimV && (c.headDimK == 64 || c.headDimK == 128) &&
            c.nHead / c.nHeadKv <= static_cast<uint32_t>(kAttentionBlockQueries)) {
            f->m_blockQ.resize(nThreads * kAttentionBlockQueries * c.headDimK);
            f->m_blockScratch.resize(nThreads * (32 * static_cast<size_t>(cache.capacity()) + 16));
        }
    } catch (const std::bad_alloc &) {
        return Status::error("forward pass: out of memory allocating activations for a batch of " +
                             std::to_string(maxBatch) + " tokens");
    }
    return f;
}

Status Forward::eval(const int32_t *tokens, int n, float *logits)
{
    const model::ModelConfig &c = m_c;
    const uint32_t pos0 = m_cache.size();
    if (n < 1 || n > m_maxBatch)
        return Status::error("forward pass: batch of " + std::to_string(n) + " tokens, expected 1.." +
                             std::to_string(m_maxBatch));
    if (static_cast<uint64_t>(pos0) + n > m_cache.capacity())
        return Status::error("forward pass: " + std::to_string(pos0 + n) + " positions exceed the context of " +
                             std::to_string(m_cache.capacity()));
    for (int t = 0; t < n; ++t)
        if (tokens[t] < 0 || static_cast<uint32_t>(tokens[t]) >= c.nVocab)
            return Status::error("forward pass: token id " + std::to_string(tokens[t]) + " is outside the vocabulary (0.." +
                                 std::to_string(c.nVocab - 1) + ")");

    const int64_t E = c.nEmbd, Q = c.nEmbdQ(), KV = c.nEmbdKv(), VKV = c.nEmbdVKv(), F = c.nFf;
    uint8_t *scratch = m_scratch.data();
    float *x = m_x.data(), *h = m_h.data(), *out = m_out.data();

    // Embeddings [n, E] (and RoPE tables [n, nRot]).
    forRows(m_pool, n, E, [&](int t) {
        float *xt = x + t * E;
        dequantizeRow(m_w.tokenEmbd, tokens[t], xt);
        if (c.embeddingScale != 0.0f)
            for (int64_t i = 0; i < E; ++i)
                xt[i] *= c.embeddingScale;
        ropeCache(static_cast<float>(pos0 + t), static_cast<int>(c.nRot), c.ropeFreqBase, c.ropeFreqScale,
                  m_w.ropeFreqs ? m_w.ropeFreqs.f32() : nullptr, m_ropeCs.data() + static_cast<size_t>(t) * c.nRot);
    });

    for (uint32_t il = 0; il < c.nLayer; ++il) {
        if (m_cancelCheck && m_cancelCheck())
            return Status::cancelled();   // cache size still pos0: this batch's keys are not kept
        const model::LayerWeights &L = m_w.layers[il];

        // h = rmsnorm(x) * attn_norm                                  [n, E]
        forRows(m_pool, n, E, [&](int t) { rmsNorm(x + t * E, L.attnNorm.f32(), h + t * E, E, c.rmsEps); });

        // q [n, Q], k [n, KV], v [n, VKV]
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
            const MatmulJob jobs[3] = {{&L.wq, m_q.data(), L.bq ? L.bq.f32() : nullptr},
                                       {&L.wk, m_k.data(), L.bk ? L.bk.f32() : nullptr},
                                       {&L.wv, m_v.data(), L.bv ? L.bv.f32() : nullptr}};
            matmulGroup(m_pool, jobs, 3, h, n, scratch);
        }

        // RoPE, query scale, and the new keys/values into the cache (F16).
        forRows(m_pool, n, E, [&](int t) {
            const float *cs = m_ropeCs.data() + static_cast<size_t>(t) * c.nRot;
            float *qt = m_q.data() + t * Q, *kt = m_k.data() + t * KV;
            ropeApply(qt, static_cast<int>(c.nHead), static_cast<int>(c.headDimK), static_cast<int>(c.nRot), c.ropeType, cs);
            ropeApply(kt, static_cast<int>(c.nHeadKv), static_cast<int>(c.headDimK), static_cast<int>(c.nRot), c.ropeType, cs);
            if (c.queryScaleBeforeAttention)
                for (int64_t i = 0; i < Q; ++i)
                    qt[i] *= c.queryScale;
            f32ToF16Row(kt, m_cache.k(il, pos0 + t), KV);
            f32ToF16Row(m_v.data() + t * VKV, m_cache.v(il, pos0 + t), VKV);
        });

        attention(il, n, pos0);                                        // m_attn [n, VO]

        // x += post_norm(attn Wo)                                     [n, E]
        matmul(m_pool, L.wo, m_attn.data(), n, out, scratch, L.bo ? L.bo.f32() : nullptr);
        forRows(m_pool, n, E, [&](int t) {
            float *ot = out + t * E, *xt = x + t * E;
            if (c.postNorms)
                rmsNorm(ot, L.attnPostNorm.f32(), ot, E, c.rmsEps);
            for (int64_t i = 0; i < E; ++i)
                xt[i] += ot[i];
            rmsNorm(xt, L.ffnNorm.f32(), h + t * E, E, c.rmsEps);     // h = ffn input
        });

        // Gated FFN: gate [n, F] = act(h Wgate) * (h Wup); out = gate Wdown
        if (c.fusedGateUp) {
            matmul(m_pool, L.ffnUp, h, n, m_up.data(), scratch);
            forRows(m_pool, n, E, [&](int t) {
                const float *gu = m_up.data() + t * 2 * F;
                if (c.ffnActivation == model::FfnActivation::FFN_ACTIVATION_SILU)
                    swiglu(gu, gu + F, m_gate.data() + t * F, F);
                else
                    geglu(gu, gu + F, m_gate.data() + t * F, F);
            });
        } else {
            const MatmulJob jobs[2] = {{&L.ffnGate, m_gate.data(), nullptr}, {&L.ffnUp, m_up.data(), nullptr}};
            matmulGroup(m_pool, jobs, 2, h, n, scratch);
            forRows(m_pool, n, E, [&](int t) {
                float *g = m_gate.data() + t * F;
                if (c.ffnActivation == model::FfnActivation::FFN_ACTIVATION_SILU)
                    swiglu(g, m_up.data() + t * F, g, F);
                else
                    geglu(g, m_up.data() + t * F, g, F);
            });
        }
        matmul(m_pool, L.ffnDown, m_gate.data(), n, out, scratch);
        forRows(m_pool, n, E, [&](int t) {
            float *ot = out + t * E, *xt = x + t * E;
            if (c.postNorms)
                rmsNorm(ot, L.ffnPostNorm.f32(), ot, E, c.rmsEps);
            for (int64_t i = 0; i < E; ++i)
                xt[i] += ot[i];
        });
    }
    m_cache.setSize(pos0 + static_cast<uint32_t>(n));

    if (logits) {
        const float *last = x + static_cast<int64_t>(n - 1) * E;
        rmsNorm(last, m_w.outputNorm.f32(), h, E, c.rmsEps);
        matmul(m_pool, m_w.output, h, 1, logits, scratch);
        if (c.finalSoftcap != 0.0f)
            softcap(logits, c.nVocab, c.finalSoftcap);
    }
    return Status::ok();
}

// Scores, softmax and the weighted sum of values for every (token, head) of
// the batch. Reads keys and values of positions 0..pos from the cache.
void Forward::attention(uint32_t il, int n, uint32_t pos0)
{
    const model::ModelConfig &c = m_c;
    const int64_t Q = c.nEmbdQ(), VO = c.nEmbdVOut();
    const int dk = static_cast<int>(c.headDimK), dv = static_cast<int>(c.headDimV);
    const int group = static_cast<int>(c.nHead / c.nHeadKv);
    const float scale = c.queryScaleBeforeAttention ? 1.0f : c.attentionScale();
    const bool swa = c.slidingWindow != 0 && c.swaLayers[il];
    const uint32_t capacity = m_cache.capacity();
    const float *f16 = f16Table();

    // Prompts: blocks of consecutive tokens x the query heads of one KV head
    // (up to 16 queries on AVX-512, 8 on AVX2) per work item, each key and value row converted once
    // for all of them (attendBlock).
    const int blockQueries = attendBlockQueries(dk);
    if (n > 1 && !m_blockQ.empty() && c.attnSoftcap == 0.0f && group <= blockQueries) {
        const int tokensPerBlock = blockQueries / group;
        const int64_t blocks = (n + tokensPerBlock - 1) / tokensPerBlock;
        const int64_t items = blocks * c.nHeadKv;
        auto work = [&](int ith, int nth) {
            float *qBuf = m_blockQ.data() + static_cast<size_t>(ith) * kAttentionBlockQueries * dk;
            float *scratch = m_blockScratch.data() + static_cast<size_t>(ith) * (32 * static_cast<size_t>(capacity) + 16);
            uint16_t *q16 = m_q16.data() + static_cast<size_t>(ith) * kMaxGroupHeads * dk;
            // Interleaved: later blocks see more keys (see below).
            for (int64_t item = ith; item < items; item += nth) {
                const int blk = static_cast<int>(item / c.nHeadKv), kvHead = static_cast<int>(item % c.nHeadKv);
                const int t0 = blk * tokensPerBlock, t1 = std::min(n, t0 + tokensPerBlock);
                AttentionBlock b;
                b.k = m_cache.k(il, 0) + static_cast<size_t>(kvHead) * dk;
                b.kStride = static_cast<size_t>(c.nEmbdKv());
                b.v = m_cache.v(il, 0) + static_cast<size_t>(kvHead) * dv;
                b.vStride = static_cast<size_t>(c.nEmbdVKv());
                b.d = dk;
                b.scale = scale;
                for (int t = t0; t < t1; ++t) {
                    const uint32_t pos = pos0 + static_cast<uint32_t>(t);
                    const uint32_t first = swa && pos + 1 > c.slidingWindow ? pos + 1 - c.slidingWindow : 0;
                    for (int g = 0; g < group; ++g) {
                        const int head = kvHead * group + g;
                        float *qf = qBuf + static_cast<size_t>(b.nq) * dk;
                        // The query as halves (the reference converts it for the F16 K.Q product).
                        f32ToF16Row(m_q.data() + t * Q + static_cast<int64_t>(head) * dk, q16, dk);
                        for (int d = 0; d < dk; ++d)
                            qf[d] = f16[q16[d]];
                        b.q[b.nq] = qf;
                        b.out[b.nq] = m_attn.data() + t * VO + static_cast<int64_t>(head) * dv;
                        b.first[b.nq] = first;
                        b.last[b.nq] = pos;
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
    const int64_t items = static_cast<int64_t>(n) * c.nHeadKv * chunks;
    AttentionHead base;
    base.kStride = static_cast<size_t>(c.nEmbdKv());
    base.vStride = static_cast<size_t>(c.nEmbdVKv());
    base.dk = dk;
    base.dv = dv;
    base.scale = scale;
    base.softcap = c.attnSoftcap;
    auto work = [&](int ith, int nth) {
        const size_t slot = static_cast<size_t>(ith) * kMaxGroupHeads;
        float *scores = m_scores.data() + slot * capacity;
        uint16_t *probs = m_probs16.data() + slot * capacity;
        uint16_t *q16 = m_q16.data() + slot * dk;
        float *qf = m_qf.data() + slot * dk;
        // Interleaved, not contiguous: with the causal mask later tokens see
        // more keys, so contiguous halves would leave one thread with ~3/4 of
        // a prompt's work.
        for (int64_t item = ith; item < items; item += nth) {
            const int t = static_cast<int>(item / (static_cast<int64_t>(c.nHeadKv) * chunks));
            const int rest = static_cast<int>(item % (static_cast<int64_t>(c.nHeadKv) * chunks));
            const int kvHead = rest / chunks;
            const int head0 = kvHead * group + (rest % chunks) * kMaxGroupHeads;
            const int nh = std::min(kMaxGroupHeads, (kvHead + 1) * group - head0);
            const uint32_t pos = pos0 + static_cast<uint32_t>(t);
            AttentionHead ah = base;
            ah.k = m_cache.k(il, 0) + static_cast<size_t>(kvHead) * dk;
            ah.v = m_cache.v(il, 0) + static_cast<size_t>(kvHead) * dv;
            // Visible keys: j in [first, pos].
            ah.first = swa && pos + 1 > c.slidingWindow ? pos + 1 - c.slidingWindow : 0;
            ah.last = pos;
            const float *qp[kMaxGroupHeads];
            float *op[kMaxGroupHeads];
            for (int g = 0; g < nh; ++g) {
                // The query as halves (the reference converts it for the F16 K.Q product).
                f32ToF16Row(m_q.data() + t * Q + static_cast<int64_t>(head0 + g) * dk, q16 + g * dk, dk);
                for (int d = 0; d < dk; ++d)
                    qf[g * dk + d] = f16[q16[g * dk + d]];
                qp[g] = qf + g * dk;
                op[g] = m_attn.data() + t * VO + static_cast<int64_t>(head0 + g) * dv;
            }
            attendHeads(ah, nh, qp, op, scores, capacity, probs, capacity);
        }
    };
    const int64_t span = static_cast<int64_t>(pos0) + n;   // keys per item, at most
    m_pool.run(work, static_cast<int64_t>(n) * c.nHead * span * (dk + dv) * 2);
}

} // namespace burrow::runtime
