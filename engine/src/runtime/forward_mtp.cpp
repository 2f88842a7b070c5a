// The multi-token-prediction block of the forward pass (runtime/forward.h,
// "MTP"): the catch-up over a pass's rows and the chained drafts. As the
// reference's graph_mtp (src/models/qwen35.cpp, qwen35moe.cpp) and its
// draft loop (common/speculative.cpp, common_speculative_impl_draft_mtp):
// the block reads (token p, H(p - 1)), its input is eh_proj over the
// concatenation enorm(embedding) | hnorm(hidden) (embedding first), then one
// gated-attention block with keys and values of its own and the trunk's FFN;
// a draft is the argmax of its logits (the reference's draft sampler is a
// top-10 whose first candidate it takes), chained through the block's own
// normed output.
#include "runtime/forward.h"

#include "ops/ops.h"
#include "runtime/kv_cache.h"
#include "runtime/matmul.h"
#include "runtime/draft_rows.h"
#include "runtime/thread_pool.h"

#include <algorithm>
#include <cstring>

namespace burrow::runtime {

using namespace burrow::ops;

bool Forward::mtpReady(uint32_t seq) const
{
    if ((!hasMtp() && !m_c.draftsFromHidden) || seq >= m_mtpSeqs.size())
        return false;
    const MtpSeq &m = m_mtpSeqs[seq];
    const uint32_t len = m_cache.length(seq);
    // (Rows waiting for the block count: mtpDraft runs them first.)
    return len > 0 && m.valid + static_cast<uint32_t>(m.lag) >= len && m.hiddenPos == len - 1;
}

void Forward::mtpForget(uint32_t seq)
{
    if (seq < m_mtpSeqs.size())
        m_mtpSeqs[seq] = MtpSeq{};
}

void Forward::mtpRollback(uint32_t seq, uint32_t length)
{
    if (seq >= m_mtpSeqs.size())
        return;
    MtpSeq &m = m_mtpSeqs[seq];
    // Waiting rows past the new end go; H(length - 1) is waiting row
    // length - valid's, when that row was waiting.
    const float *waiting = m.lag > 0 && length >= m.valid && length - m.valid < static_cast<uint32_t>(m.lag)
                               ? lagHidden(seq, static_cast<int>(length - m.valid)) : nullptr;
    m.lag = length > m.valid ? static_cast<int32_t>(std::min<uint32_t>(static_cast<uint32_t>(m.lag), length - m.valid)) : 0;
    m.valid = std::min(m.valid, length);
    if (length == 0 || m.hiddenPos == length - 1)
        return;
    m.hiddenPos = UINT32_MAX;
    if (waiting) {
        const int64_t E = m_c.nEmbd;
        std::copy(waiting, waiting + E, m_mtpKept.data() + static_cast<size_t>(seq) * E);
        m.hiddenPos = length - 1;
        return;
    }
    if (m.pass == m_passes && length - 1 >= m.pos0 && length - 1 < m.pos0 + static_cast<uint32_t>(m.n)) {
        const int64_t E = m_c.nEmbd;
        const float *row = m_mtpH.data() + (m.row0 + static_cast<int64_t>(length - 1 - m.pos0)) * E;
        std::copy(row, row + E, m_mtpKept.data() + static_cast<size_t>(seq) * E);
        m.hiddenPos = length - 1;
    }
}

const float *Forward::keptHidden(uint32_t seq) const
{
    if (!mtpReady(seq))
        return nullptr;
    return m_mtpKept.data() + static_cast<size_t>(seq) * m_c.nEmbd;
}

void Forward::keepHidden(const BatchSpan *spans, int nSpans, bool computed)
{
    const int64_t E = m_c.nEmbd;
    ++m_passes;
    int j = 0;   // the span's first normed row in m_h
    for (int si = 0; si < nSpans; ++si) {
        const BatchSpan &sp = spans[si];
        MtpSeq &m = m_mtpSeqs[sp.seq];
        const int first = computed && sp.logits ? (sp.verify ? 0 : sp.n - 1) : sp.n;
        const int rows = sp.n - first;
        const uint32_t pos0 = m_rowPos[static_cast<size_t>(sp.row0)];
        if (!sp.mtp || rows == 0) {   // the sequence moved on without its H
            m.hiddenPos = UINT32_MAX;
            m.valid = std::min(m.valid, pos0);
            j += rows;
            continue;
        }
        for (int r = 0; r < rows; ++r) {
            const float *src = m_h.data() + static_cast<int64_t>(j + r) * E;
            std::copy(src, src + E, m_mtpH.data() + static_cast<int64_t>(sp.row0 + first + r) * E);
        }
        const float *last = m_h.data() + static_cast<int64_t>(j + rows - 1) * E;
        std::copy(last, last + E, m_mtpKept.data() + static_cast<size_t>(sp.seq) * E);
        m.pass = m_passes;
        m.row0 = sp.row0;
        m.pos0 = pos0;
        m.n = sp.n;
        m.hiddenPos = pos0 + static_cast<uint32_t>(sp.n) - 1;
        m.valid = m.hiddenPos + 1;   // no block keys to complete
        j += rows;
    }
}

void Forward::mtpBlock(const int32_t *tokens, const float *const *hidden, const BatchSpan *spans, int nSpans, int n)
{
    const model::ModelConfig &c = m_c;
    const uint32_t il = c.mtpLayer();
    const model::LayerWeights &L = m_w.layers[il];
    const model::TensorView &embd = L.nextnEmbedTokens ? L.nextnEmbedTokens : m_w.tokenEmbd;
    const int64_t E = c.nEmbd;
    const int kind = m_rope->kindOf(il);
    float *x = m_x.data(), *h = m_h.data(), *out = m_out.data(), *in = m_mtpIn.data();
    // in = rmsnorm(embd(t)) * enorm | rmsnorm(hidden) * hnorm      [n, 2E]
    forEachDraftRow(m_pool, n, 2 * E, [&](int t) {
        float *row = in + t * 2 * E;
        dequantizeRow(embd, tokens[t], x + t * E);
        rmsNorm(x + t * E, L.nextnEnorm.f32(), row, E, c.rmsEps);
        if (hidden[t])
            rmsNorm(hidden[t], L.nextnHnorm.f32(), row + E, E, c.rmsEps);
        else
            std::fill(row + E, row + 2 * E, 0.0f);   // rmsnorm of a zero state
        m_rope->fill(static_cast<float>(m_rowPos[static_cast<size_t>(t)]), kind, ropeCs(kind, t));
    });
    // x = eh_proj . in                                              [n, E]
    matmul(m_pool, L.nextnEhProj, in, n, x, matmulScratch());
    // The block: attention (its keys and values at m_rowPos), then the FFN.
    forEachDraftRow(m_pool, n, E, [&](int t) { rmsNorm(x + t * E, L.attnNorm.f32(), h + t * E, E, c.rmsEps); });
    attentionBlock(il, spans, nSpans, n);
    forEachDraftRow(m_pool, n, E, [&](int t) {
        float *ot = out + t * E, *xt = x + t * E;
        if (c.postNorms)
            rmsNorm(ot, L.attnPostNorm.f32(), ot, E, c.rmsEps);
        for (int64_t i = 0; i < E; ++i)
            xt[i] += ot[i];
        rmsNorm(xt, L.ffnNorm.f32(), h + t * E, E, c.rmsEps);
    });
    ffnBlock(il, n);
}

void Forward::mtpCatchUp(const int32_t *tokens, const BatchSpan *spans, int nSpans)
{
    const model::ModelConfig &c = m_c;
    const int64_t E = c.nEmbd;
    ++m_passes;
    // H of every row of an mtp span (orig rows), before the block reuses m_x;
    // the spans' first positions (m_rowPos is rewritten below).
    bool any = false;
    for (int si = 0; si < nSpans; ++si) {
        const BatchSpan &sp = spans[si];
        MtpSeq &m = m_mtpSeqs[sp.seq];
        const uint32_t pos0 = m_rowPos[static_cast<size_t>(sp.row0)];
        m_mtpPos0[static_cast<size_t>(si)] = pos0;
        if (!sp.mtp) {   // the block's keys from here on are not computed, nor H kept
            m.valid = std::min(m.valid, pos0);
            m.lag = 0;
            if (m.hiddenPos != UINT32_MAX && m.hiddenPos + 1 > pos0)
                m.hiddenPos = UINT32_MAX;
            continue;
        }
        any = true;
        forEachDraftRow(m_pool, sp.n, E, [&](int t) {
            const int64_t r = sp.row0 + t;
            rmsNorm(m_x.data() + r * E, m_w.outputNorm.f32(), m_mtpH.data() + r * E, E, c.rmsEps);
        });
    }
    if (!any)
        return;
    // Spans whose rows may wait join their sequence's waiting rows (token p
    // and H(p - 1)); the others' waiting rows run first, in one pass.
    int nSettle = 0;
    for (int si = 0; si < nSpans; ++si) {
        const BatchSpan &sp = spans[si];
        if (!sp.mtp)
            continue;
        MtpSeq &m = m_mtpSeqs[sp.seq];
        const uint32_t pos0 = m_mtpPos0[static_cast<size_t>(si)];
        const bool joins = m.valid + static_cast<uint32_t>(m.lag) == pos0;
        if (sp.mtpLater && joins && m.lag + sp.n <= std::min(kMtpLag, m_maxBatch)) {
            const float *kept = m_mtpKept.data() + static_cast<size_t>(sp.seq) * E;
            const bool hasPrev = pos0 > 0 && m.hiddenPos == pos0 - 1;   // (always, once rows wait)
            if (m.lag == 0)
                m.lagFromZero = !hasPrev;
            for (int t = 0; t < sp.n; ++t) {
                const int i = m.lag + t;
                m_mtpLagTok[static_cast<size_t>(sp.seq) * kMtpLag + static_cast<size_t>(i)] = tokens[sp.row0 + t];
                float *dst = lagHidden(sp.seq, i);
                if (t > 0) {
                    const float *src = m_mtpH.data() + static_cast<int64_t>(sp.row0 + t - 1) * E;
                    std::copy(src, src + E, dst);
                } else if (hasPrev) {
                    std::copy(kept, kept + E, dst);
                } else {   // no H before the first row: the block reads 0 (lagFromZero)
                    std::fill(dst, dst + E, 0.0f);
                }
            }
            m.lag += sp.n;
            m.pass = m_passes;
            m.row0 = sp.row0;
            m.pos0 = pos0;
            m.n = sp.n;
            const float *last = m_mtpH.data() + static_cast<int64_t>(sp.row0 + sp.n - 1) * E;
            std::copy(last, last + E, m_mtpKept.data() + static_cast<size_t>(sp.seq) * E);
            m.hiddenPos = pos0 + static_cast<uint32_t>(sp.n) - 1;
            continue;
        }
        if (m.lag > 0 && joins && static_cast<size_t>(nSettle) < m_mtpSettle.size())
            m_mtpSettle[static_cast<size_t>(nSettle++)] = sp.seq;
        else
            m.lag = 0;   // not followed by this span: the keys stay incomplete
    }
    if (nSettle > 0)
        mtpSettle(m_mtpSettle.data(), nSettle);
    // Compact the other mtp spans' rows to the front (rows only move down):
    // the block's token, the hidden row it reads, position and sequence.
    int n = 0, nm = 0;
    for (int si = 0; si < nSpans; ++si) {
        const BatchSpan &sp = spans[si];
        MtpSeq &m = m_mtpSeqs[sp.seq];
        if (!sp.mtp || m.lag > 0)   // (a span that joined its waiting rows)
            continue;
        const uint32_t pos0 = m_mtpPos0[static_cast<size_t>(si)];
        const float *kept = m_mtpKept.data() + static_cast<size_t>(sp.seq) * E;
        for (int t = 0; t < sp.n; ++t) {
            const int r = sp.row0 + t;
            m_mtpTokens[static_cast<size_t>(n + t)] = tokens[r];
            m_mtpHidden[static_cast<size_t>(n + t)] =
                t > 0 ? m_mtpH.data() + static_cast<int64_t>(r - 1) * E
                      : (pos0 > 0 && m.hiddenPos == pos0 - 1 ? kept : nullptr);
            m_rowPos[static_cast<size_t>(n + t)] = pos0 + static_cast<uint32_t>(t);
            m_rowSeq[static_cast<size_t>(n + t)] = sp.seq;
        }
        BatchSpan &ms = m_mtpSpans[static_cast<size_t>(nm++)];
        ms = sp;
        ms.row0 = n;
        // Bookkeeping: keys complete on, H of the span's last row kept
        // (copied after the block: m_mtpH rows stay until the next pass).
        if (m.valid >= pos0)
            m.valid = pos0 + static_cast<uint32_t>(sp.n);
        m.pass = m_passes;
        m.row0 = sp.row0;
        m.pos0 = pos0;
        m.n = sp.n;
        n += sp.n;
    }
    if (nm == 0)
        return;
    mtpBlock(m_mtpTokens.data(), m_mtpHidden.data(), m_mtpSpans.data(), nm, n);
    for (int si = 0; si < nSpans; ++si) {
        const BatchSpan &sp = spans[si];
        if (!sp.mtp || m_mtpSeqs[sp.seq].pass != m_passes || m_mtpSeqs[sp.seq].lag > 0)
            continue;
        MtpSeq &m = m_mtpSeqs[sp.seq];
        const float *last = m_mtpH.data() + static_cast<int64_t>(sp.row0 + sp.n - 1) * E;
        std::copy(last, last + E, m_mtpKept.data() + static_cast<size_t>(sp.seq) * E);
        m.hiddenPos = m.pos0 + static_cast<uint32_t>(sp.n) - 1;
    }
}

void Forward::mtpSettle(const uint32_t *seqs, int nSeqs)
{
    int i = 0;
    while (i < nSeqs) {
        // As many sequences as maxBatch rows hold (kMtpLag <= maxBatch: at least one).
        int n = 0, nm = 0;
        for (; i < nSeqs; ++i) {
            const uint32_t seq = seqs[i];
            MtpSeq &m = m_mtpSeqs[seq];
            if (m.lag <= 0)
                continue;
            if (n + m.lag > m_maxBatch && nm > 0)
                break;
            for (int t = 0; t < m.lag; ++t) {
                m_mtpTokens[static_cast<size_t>(n + t)] = m_mtpLagTok[static_cast<size_t>(seq) * kMtpLag + static_cast<size_t>(t)];
                m_mtpHidden[static_cast<size_t>(n + t)] = t == 0 && m.lagFromZero ? nullptr : lagHidden(seq, t);
                m_rowPos[static_cast<size_t>(n + t)] = m.valid + static_cast<uint32_t>(t);
                m_rowSeq[static_cast<size_t>(n + t)] = seq;
            }
            BatchSpan &ms = m_mtpSpans[static_cast<size_t>(nm++)];
            ms = BatchSpan{};
            ms.seq = seq;
            ms.row0 = n;
            ms.n = m.lag;
            ms.mtp = true;
            n += m.lag;
        }
        if (nm == 0)
            return;
        mtpBlock(m_mtpTokens.data(), m_mtpHidden.data(), m_mtpSpans.data(), nm, n);
        for (int s = 0; s < nm; ++s) {
            MtpSeq &m = m_mtpSeqs[m_mtpSpans[static_cast<size_t>(s)].seq];
            m.valid += static_cast<uint32_t>(m.lag);
            m.lag = 0;
            m.lagFromZero = false;
        }
    }
}

Status Forward::mtpDraft(MtpDraft *drafts, int nDrafts, float *logits)
{
    const model::ModelConfig &c = m_c;
    if (!hasMtp())
        return Status::error("forward pass: this model has no multi-token-prediction block");
    if (nDrafts < 0 || nDrafts > m_maxBatch)
        return Status::error("forward pass: " + std::to_string(nDrafts) + " drafts, expected 0.." +
                             std::to_string(m_maxBatch));
    const int64_t E = c.nEmbd, V = c.nVocab;
    const uint32_t il = c.mtpLayer();
    const model::LayerWeights &L = m_w.layers[il];
    const model::TensorView &headNorm = L.nextnSharedHeadNorm ? L.nextnSharedHeadNorm : m_w.outputNorm;
    const model::TensorView &head = L.nextnSharedHeadHead ? L.nextnSharedHeadHead : m_w.output;
    int steps = 0;
    for (int i = 0; i < nDrafts; ++i) {
        MtpDraft &d = drafts[i];
        d.drafted = 0;
        const uint32_t len = d.seq < m_cache.sequenceCount() ? m_cache.length(d.seq) : 0;
        if (d.count <= 0 || !mtpReady(d.seq) || d.token < 0 || static_cast<uint32_t>(d.token) >= c.nVocab ||
            len + static_cast<uint32_t>(d.count) > m_cache.capacity() || !m_cache.reserve(d.seq, len + static_cast<uint32_t>(d.count)))
            d.count = 0;
        steps = std::max(steps, d.count);
    }
    // Rows still waiting for the block (BatchSpan::mtpLater) run first.
    int nSettle = 0;
    for (int i = 0; i < nDrafts && static_cast<size_t>(nSettle) < m_mtpSettle.size(); ++i)
        if (drafts[i].count > 0 && m_mtpSeqs[drafts[i].seq].lag > 0)
            m_mtpSettle[static_cast<size_t>(nSettle++)] = drafts[i].seq;
    if (nSettle > 0)
        mtpSettle(m_mtpSettle.data(), nSettle);
    for (int step = 0; step < steps; ++step) {
        // The sequences still drafting, one row each: the token drafted
        // last (first the sampled one) and the hidden state before it.
        int n = 0;
        for (int i = 0; i < nDrafts; ++i) {
            const MtpDraft &d = drafts[i];
            if (step >= d.count)
                continue;
            const size_t r = static_cast<size_t>(n);
            m_mtpTokens[r] = step == 0 ? d.token : d.out[step - 1];
            m_mtpHidden[r] = step == 0 ? m_mtpKept.data() + static_cast<size_t>(d.seq) * E
                                       : m_mtpDraftH.data() + static_cast<size_t>(i) * E;
            m_rowPos[r] = m_cache.length(d.seq) + static_cast<uint32_t>(step);
            m_rowSeq[r] = d.seq;
            BatchSpan &sp = m_mtpSpans[r];
            sp = BatchSpan{};
            sp.seq = d.seq;
            sp.row0 = n;
            sp.n = 1;
            ++n;
        }
        // (The block reads the hidden rows, m_mtpDraftH among them, before
        // this step writes its own there.)
        mtpBlock(m_mtpTokens.data(), m_mtpHidden.data(), m_mtpSpans.data(), n, n);
        // h' = rmsnorm(x) * head norm; logits = head . h'; the argmax.
        float *hOut = m_h.data();
        forEachDraftRow(m_pool, n, E, [&](int t) { rmsNorm(m_x.data() + t * E, headNorm.f32(), hOut + t * E, E, c.rmsEps); });
        matmul(m_pool, head, hOut, n, logits, matmulScratch());
        if (c.finalSoftcap != 0.0f)
            for (int r = 0; r < n; ++r)
                softcap(logits + static_cast<size_t>(r) * V, c.nVocab, c.finalSoftcap);
        int r = 0;
        for (int i = 0; i < nDrafts; ++i) {
            MtpDraft &d = drafts[i];
            if (step >= d.count)
                continue;
            d.out[step] = draftArgmax(logits + static_cast<size_t>(r) * V, V);
            d.drafted = step + 1;
            std::copy(hOut + r * E, hOut + (r + 1) * E, m_mtpDraftH.data() + static_cast<size_t>(i) * E);
            ++r;
        }
    }
    return Status::ok();
}

} // namespace burrow::runtime
