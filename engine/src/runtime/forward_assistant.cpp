// The gemma4 assistant's drafting pass (runtime/forward.h, "Assistant"): this
// Forward's model is a gemma4-assistant file whose layers read the target's
// KV cache. As the reference's graph (src/models/gemma4-assistant.cpp) and
// its draft loop for a drafter sharing the target's memory
// (common/speculative.cpp, common_speculative_impl_draft_mtp with
// is_mem_shared): the first step reads the last sampled token with the
// target's hidden state of the position before it, each later step the
// previous draft with the assistant's own next hidden state, every step at
// the sampled token's position; a draft is the argmax of the logits (the
// reference's draft sampler is a top-10 whose first candidate it takes).
#include "runtime/forward.h"

#include "ops/ops.h"
#include "runtime/kv_cache.h"
#include "runtime/matmul.h"
#include "runtime/draft_rows.h"
#include "runtime/thread_pool.h"

#include <algorithm>
#include <cmath>

namespace burrow::runtime {

using namespace burrow::ops;

Status Forward::assistantDraft(const model::TensorView &targetEmbd, MtpDraft *drafts, int nDrafts, float *logits)
{
    const model::ModelConfig &c = m_c;
    if (!c.isAssistant())
        return Status::error("forward pass: this model is not a Gemma 4 assistant");
    if (nDrafts < 0 || nDrafts > m_maxBatch)
        return Status::error("forward pass: " + std::to_string(nDrafts) + " drafts, expected 0.." +
                             std::to_string(m_maxBatch));
    const int64_t E = c.nEmbd, Et = c.nEmbdTarget, V = c.nVocab;
    if (!targetEmbd || targetEmbd.ne0 != Et || targetEmbd.ne1 < V)
        return Status::error("forward pass: the target's token embeddings are not " + std::to_string(Et) + " wide");
    const float embdScale = std::sqrt(static_cast<float>(Et));
    const int kinds = m_rope->kindCount();
    int steps = 0;
    for (int i = 0; i < nDrafts; ++i) {
        MtpDraft &d = drafts[i];
        d.drafted = 0;
        const bool ok = d.count > 0 && d.out && d.hidden && d.seq < m_cache.sequenceCount() &&
                        m_cache.length(d.seq) > 0 && d.token >= 0 && static_cast<uint32_t>(d.token) < c.nVocab;
        if (!ok)
            d.count = 0;
        steps = std::max(steps, d.count);
    }
    float *in = m_assistIn.data(), *hOut = m_h.data();
    for (int step = 0; step < steps; ++step) {
        // One row per sequence still drafting: the token drafted last (first
        // the sampled one) and the hidden state before it, at position P.
        int n = 0;
        for (int i = 0; i < nDrafts; ++i) {
            const MtpDraft &d = drafts[i];
            if (step >= d.count)
                continue;
            const size_t r = static_cast<size_t>(n);
            const int32_t token = step == 0 ? d.token : d.out[step - 1];
            const float *hidden = step == 0 ? d.hidden : m_mtpDraftH.data() + static_cast<size_t>(i) * Et;
            float *row = in + static_cast<int64_t>(n) * 2 * Et;
            dequantizeRow(targetEmbd, token, row);
            for (int64_t k = 0; k < Et; ++k)
                row[k] *= embdScale;
            std::copy(hidden, hidden + Et, row + Et);
            m_rowPos[r] = m_cache.length(d.seq);
            m_rowSeq[r] = d.seq;
            BatchSpan &sp = m_mtpSpans[r];
            sp = BatchSpan{};
            sp.seq = d.seq;
            sp.row0 = n;
            sp.n = 1;
            ++n;
        }
        forEachDraftRow(m_pool, n, E, [&](int t) {
            for (int kind = 0; kind < kinds; ++kind)
                m_rope->fill(static_cast<float>(m_rowPos[static_cast<size_t>(t)]), kind, ropeCs(kind, t));
        });
        // x = pre_projection . in, then the layers over the target's cache.
        matmul(m_pool, m_w.nextnProjPre, in, n, m_x.data(), matmulScratch());
        for (uint32_t il = 0; il < c.nLayer; ++il)
            layer(il, m_mtpSpans.data(), n, n);
        // hn = rmsnorm(x) * output_norm; logits = token_embd . hn; h' = post_projection . hn.
        forEachDraftRow(m_pool, n, E, [&](int t) { rmsNorm(m_x.data() + t * E, m_w.outputNorm.f32(), hOut + t * E, E, c.rmsEps); });
        matmul(m_pool, m_w.output, hOut, n, logits, matmulScratch());
        matmul(m_pool, m_w.nextnProjPost, hOut, n, m_assistH.data(), matmulScratch());
        int r = 0;
        for (int i = 0; i < nDrafts; ++i) {
            MtpDraft &d = drafts[i];
            if (step >= d.count)
                continue;
            d.out[step] = draftArgmax(logits + static_cast<size_t>(r) * V, V);
            d.drafted = step + 1;
            const float *h = m_assistH.data() + static_cast<int64_t>(r) * Et;
            std::copy(h, h + Et, m_mtpDraftH.data() + static_cast<size_t>(i) * Et);
            ++r;
        }
    }
    return Status::ok();
}

} // namespace burrow::runtime
