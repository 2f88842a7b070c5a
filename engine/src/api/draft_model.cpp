#include "api/draft_model.h"

#include "api/assistant_drafter.h"
#include "model/model_config.h"

#include "runtime/forward.h"
#include "runtime/kv_cache.h"
#include "runtime/recurrent_state.h"
#include "sampling/sampler.h"
#include "speculative/vocab_match.h"
#include "tokenizer/tokenizer.h"

#include <algorithm>

namespace burrow::api {

using runtime::BatchSpan;

DraftModel::~DraftModel() = default;

Result<std::unique_ptr<DraftModel>> DraftModel::create(std::shared_ptr<const ModelImpl> draft, const ModelImpl &target,
                                                       uint32_t contextSize, uint32_t slots, int maxBatch,
                                                       runtime::ThreadPool &pool, bool flash, GgmlType cellType)
{
    const std::string &path = draft->info().path;
    if (!draft->tokenizer() || !target.tokenizer())
        return Status::error(path + ": a draft model and the model need a vocabulary each");
    if (Status s = speculative::checkDraftVocabulary(*target.tokenizer(), *draft->tokenizer()); !s)
        return s.withContext(path);
    const model::ModelConfig &c = draft->config();
    std::unique_ptr<DraftModel> d(new DraftModel());
    d->m_targetVocab = target.config().nVocab;
    d->m_maxBatch = std::max(1, maxBatch);
    const uint32_t ctx = std::min(contextSize, c.nCtxTrain);
    // One recurrent snapshot per slot: the state before its drafts, so a
    // rejected draft rewinds there.
    auto cache = runtime::KvCache::create(c, ctx, static_cast<uint32_t>(d->m_maxBatch), slots, 0, cellType, 1);
    if (!cache)
        return cache.status().withContext(path + " (draft model)");
    d->m_cache = std::move(cache.value());
    auto forward = runtime::Forward::create(c, draft->weights(), *d->m_cache, pool, d->m_maxBatch, flash);
    if (!forward)
        return forward.status().withContext(path + " (draft model)");
    d->m_forward = std::move(forward.value());
    try {
        d->m_held.resize(slots);
        d->m_logits.resize(static_cast<size_t>(slots) * c.nVocab);
        d->m_rows.resize(static_cast<size_t>(d->m_maxBatch));
    } catch (const std::bad_alloc &) {
        return Status::error(path + ": out of memory for the draft model's logits");
    }
    d->m_model = std::move(draft);
    return d;
}

uint64_t DraftModel::kvBytes() const
{
    return m_cache->bytes();
}

uint32_t DraftModel::reconcile(uint32_t slot, const std::vector<Token> &tokens)
{
    std::vector<Token> &held = m_held[slot];
    // Never the sequence's last token: its logits are what a draft starts from.
    const size_t limit = std::min(held.size(), tokens.size() - 1);
    size_t common = 0;
    while (common < limit && held[common] == tokens[common])
        ++common;
    const uint32_t keep = m_cache->reusableLength(slot, static_cast<uint32_t>(common));
    m_cache->truncate(slot, keep);
    held.resize(m_cache->length(slot));
    return m_cache->length(slot);
}

bool DraftModel::pick(Job &job, const float *logits)
{
    const size_t nVocab = m_model->config().nVocab;
    Token t = 0;
    if (job.chain) {
        t = job.chain->sample(logits);
        const sampling::CandidateArray &c = job.chain->candidates();
        const size_t i = job.out->size();
        if (job.q->size() <= i)
            job.q->resize(i + 1);
        (*job.q)[i].assign(c.data, c.data + c.size);
    } else {
        t = static_cast<Token>(std::max_element(logits, logits + nVocab) - logits);
    }
    // A token the model does not have ends the draft before it; an end of
    // generation ends it after it.
    if (t < 0 || static_cast<uint32_t>(t) >= m_targetVocab)
        return false;
    job.out->push_back(t);
    return !m_model->isEndOfGeneration(t);
}

void DraftModel::draft(std::vector<Job> &jobs, const std::function<bool()> &cancelled)
{
    const size_t nVocab = m_model->config().nVocab;
    std::vector<BatchSpan> spans;
    std::vector<Job *> rowJob;   // per span
    // Catch-up: each sequence's tokens the cache does not hold yet, the
    // last row's logits wanted where it gets that far in this pass.
    int rows = 0;
    for (Job &j : jobs) {
        j.out->clear();
        const std::vector<Token> &t = *j.tokens;
        if (t.empty() || t.size() + static_cast<size_t>(j.want) > m_cache->capacity() || j.want <= 0)
            continue;
        const uint32_t have = reconcile(j.slot, t);
        const int need = static_cast<int>(t.size() - have);
        const int n = std::min(need, m_maxBatch - rows);
        if (n <= 0)
            continue;
        BatchSpan sp;
        sp.seq = j.slot;
        sp.row0 = rows;
        sp.n = n;
        sp.logits = n == need;
        std::copy(t.begin() + have, t.begin() + have + n, m_rows.begin() + rows);
        spans.push_back(sp);
        rowJob.push_back(sp.logits ? &j : nullptr);
        rows += n;
    }
    bool going = !spans.empty();
    while (going) {
        if (cancelled && cancelled())
            return;
        if (!m_forward->evalBatch(m_rows.data(), spans.data(), static_cast<int>(spans.size()), m_logits.data()))
            return;   // nothing kept: every held list still matches its cache
        for (const BatchSpan &sp : spans)
            m_held[sp.seq].insert(m_held[sp.seq].end(), m_rows.begin() + sp.row0, m_rows.begin() + sp.row0 + sp.n);
        if (runtime::RecurrentState *rs = m_cache->recurrent())
            for (size_t i = 0; i < spans.size(); ++i)
                if (rowJob[i] && rowJob[i]->out->empty())   // after the catch-up: the state before the drafts
                    rs->snapshot(spans[i].seq, m_cache->length(spans[i].seq));
        // Each sequence with logits picks its next draft; those that want
        // more go on in the next pass, one row each.
        std::vector<BatchSpan> next;
        std::vector<Job *> nextJob;
        int row = 0, wanted = 0;
        for (size_t i = 0; i < spans.size(); ++i) {
            Job *j = rowJob[i];
            if (!j)
                continue;
            const float *logits = m_logits.data() + static_cast<size_t>(wanted++) * nVocab;
            if (!pick(*j, logits) || static_cast<int>(j->out->size()) >= j->want)
                continue;
            BatchSpan sp;
            sp.seq = j->slot;
            sp.row0 = row;
            sp.n = 1;
            sp.logits = true;
            sp.keepFrom = static_cast<uint32_t>(j->tokens->size());   // a rejected draft rolls back to here
            m_rows[static_cast<size_t>(row++)] = j->out->back();
            next.push_back(sp);
            nextJob.push_back(j);
        }
        spans.swap(next);
        rowJob.swap(nextJob);
        going = !spans.empty();
    }
}

} // namespace burrow::api

namespace burrow {

namespace {

// The model config of `file` with its vocabulary size (from token_embd).
Result<model::ModelConfig> configWithVocab(const gguf::GgufFile &file)
{
    auto config = model::loadModelConfig(file);
    if (!config)
        return config.status();
    if (const gguf::TensorInfo *embd = file.tensor("token_embd.weight"); embd && embd->nDims == 2)
        config.value().nVocab = static_cast<uint32_t>(embd->ne[1]);
    return config;
}

Result<ModelInfo> checkAgainst(const tokenizer::Tokenizer &target, const gguf::GgufFile &targetFile,
                               const std::string &draftPath)
{
    auto info = inspectModel(draftPath);
    if (!info)
        return info.status();
    auto file = gguf::GgufFile::open(draftPath);
    if (!file)
        return file.status();
    const bool assistant = !info.value().draftsFor.empty();
    if (assistant) {   // Gemma 4's assistant: it must fit this model (sizes, layers), not only its vocabulary
        auto a = configWithVocab(*file.value());
        auto t = configWithVocab(targetFile);
        if (!a)
            return a.status();
        if (!t)
            return t.status();
        if (Status s = api::AssistantDrafter::checkPair(a.value(), t.value()); !s)
            return s.withContext(draftPath);
        if (!file.value()->find("tokenizer.ggml.tokens"))
            return info;   // no vocabulary of its own: the sizes agree
    }
    auto vocab = tokenizer::Tokenizer::fromGguf(*file.value());
    if (!vocab)
        return vocab.status().withContext(draftPath);
    if (Status s = speculative::checkDraftVocabulary(target, *vocab.value()); !s)
        return s.withContext(draftPath);
    return info;
}

} // namespace

Result<ModelInfo> checkDraftModel(const Model &model, const std::string &draftPath)
{
    const auto *target = dynamic_cast<const api::ModelImpl *>(&model);
    if (!target || !target->tokenizer())
        return Status::error("checkDraftModel: the model was not loaded with Model::load or has no vocabulary");
    return checkAgainst(*target->tokenizer(), target->file(), draftPath);
}

Result<ModelInfo> checkDraftModel(const std::string &modelPath, const std::string &draftPath)
{
    auto file = gguf::GgufFile::open(modelPath);
    if (!file)
        return file.status();
    auto vocab = tokenizer::Tokenizer::fromGguf(*file.value());
    if (!vocab)
        return vocab.status().withContext(modelPath);
    return checkAgainst(*vocab.value(), *file.value(), draftPath);
}

} // namespace burrow
