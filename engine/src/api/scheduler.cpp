// burrow::Scheduler: continuous batching over the paged KV cache.
//
// One thread (the scheduler's) owns the KV cache, the forward pass, the
// samplers and every live request; other threads only touch the queue of
// new requests and the cancel list (under m_mutex) and read the stats.
//
// A live request holds `tokens`: its prompt and every token generated so
// far. `evaluated` of them are in its KV sequence (its slot); the rest wait
// to be computed: many during the prompt, one (the last sampled token) while
// generating. So a prompt, a preempted sequence being recomputed and a
// generating sequence are one mechanism, and a step is:
//
//   1. take new requests, cancels and priority changes; finish the
//      cancelled ones;
//   2. admit waiting requests into free slots by priority (higher first,
//      then first come): the slot takes the cached blocks of the longest
//      known prefix (KvCache::adoptPrefix) and computes only the rest;
//   3. build one batch: one row for every generating sequence, then prompt
//      chunks in priority order within the row budget (batchTokens; only
//      prefillTokensWhileGenerating rows while some sequence generates, so a
//      long new prompt does not stall running streams); when the KV blocks
//      run out, preempt the lowest-priority, most recently admitted sequence
//      (its blocks are released — the full ones stay cached under their
//      hash — and it waits to be recomputed, keeping its sampler and text);
//   4. one forward pass (Forward::evalBatch); register the new full blocks;
//   5. sample every sequence whose span reached its last token, and run its
//      reply through the text stream, reasoning split and stop strings
//      (ReplyOutput).
//
// A Session is this loop with one slot, stepped by its caller (drive(),
// SchedulerMode::session(): finished sequences parked for token-level prefix
// reuse, no block sharing, context shift; see session.cpp).
//
// Recurrent models (qwen35: a state per sequence, no prefix sharing): a
// finished request's slot is parked, its state and tokens kept, and a new
// request takes the free slot whose tokens it continues (a chat's next
// message) or whose snapshot it can start from (the state before a prompt's
// last token, taken as it passes: a regenerated reply), computing only the
// rest. Parked slots give their KV blocks back, least recently parked first,
// when others need them.
//
// Costs: a step is one forward pass over <= batchTokens rows; the
// bookkeeping is O(live requests) per step plus O(new blocks) hashing.
#include "api/scheduler_impl.h"

#include "api/assistant_drafter.h"
#include "api/draft_model.h"
#include "api/reply_output.h"
#include "common/thread_name.h"
#include "runtime/forward.h"
#include "runtime/kv_cache.h"
#include "runtime/recurrent_state.h"
#include "runtime/thread_pool.h"
#include "sampling/sampler.h"
#include "speculative/draft_control.h"
#include "speculative/ngram_drafter.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <tuple>
#include <unordered_set>
#include <utility>

namespace burrow::api {

namespace {

using runtime::BatchSpan;
using runtime::Forward;
using runtime::KvCache;
using runtime::ThreadPool;
using Clock = SchedulerClock;

// Most draft tokens a sequence verifies in one step (SpeculativeOptions::draftMax).
constexpr int kMaxDraft = 16;
// Most MTP drafts per step: the block is trained to guess one token ahead;
// chained further its guesses fade while each costs a layer and the output
// matrix (the reference drafts 3 by default).
constexpr int kMaxMtpDraft = 4;

double msBetween(Clock::time_point a, Clock::time_point b)
{
    return std::chrono::duration<double, std::milli>(b - a).count();
}

// Runs before `b` in the scheduler's eyes: higher priority, then earlier.
bool before(const Live &a, const Live &b)
{
    if (a.req.priority != b.req.priority)
        return a.req.priority > b.req.priority;
    return a.order < b.order;
}

} // namespace

Live::Live() = default;
Live::~Live() = default;

SchedulerImpl::SchedulerImpl() = default;

Result<std::shared_ptr<SchedulerImpl>> SchedulerImpl::create(std::shared_ptr<const ModelImpl> model,
                                                             const SchedulerOptions &options, Mode mode)
{
    const model::ModelConfig &c = model->config();
    SchedulerOptions o = options;
    if (o.parallel < 1 || o.parallel > 256)
        return Status::error("scheduler: parallel is " + std::to_string(o.parallel) + ", expected 1..256");
    if (o.batchTokens < 1 || o.batchTokens > 8192)
        return Status::error("scheduler: batchTokens is " + std::to_string(o.batchTokens) + ", expected 1..8192");
    if (o.batchTokens < o.parallel)
        return Status::error("scheduler: batchTokens " + std::to_string(o.batchTokens) +
                             " is less than parallel " + std::to_string(o.parallel) +
                             " (every generating sequence needs a row per step)");
    if (o.maxQueued < 0)
        return Status::error("scheduler: maxQueued is negative");
    o.prefillTokensWhileGenerating = std::clamp(o.prefillTokensWhileGenerating, 1, o.batchTokens);
    if (!(o.maxStepSlowdown >= 1.0f) || !(o.maxStepSlowdown <= 1000.0f))
        return Status::error("scheduler: maxStepSlowdown is " + std::to_string(o.maxStepSlowdown) + ", expected 1..1000");
    o.contextSize = o.contextSize == 0 ? c.nCtxTrain : std::min(o.contextSize, c.nCtxTrain);
    const uint64_t positions = o.kvPositions != 0 ? o.kvPositions
                                                  : static_cast<uint64_t>(o.contextSize) * static_cast<uint64_t>(o.parallel);
    if (positions < o.contextSize)
        return Status::error("scheduler: kvPositions " + std::to_string(positions) + " is less than the context size " +
                             std::to_string(o.contextSize));
    if (positions > (uint64_t{1} << 26))
        return Status::error("scheduler: kvPositions " + std::to_string(positions) + " is more than 2^26");
    o.kvPositions = static_cast<uint32_t>(positions);
    if (o.kvCacheType == KvCacheType::KV_CACHE_Q8_0 && !o.flashAttention)
        return Status::error("scheduler: kvCacheType Q8_0 needs flashAttention (a quantized V cache is only computed "
                             "with flash attention); set flashAttention or use KV_CACHE_F16");

    if (mode.shareBlocks)
        mode.shift = false;   // a sequence that shares blocks cannot move its positions
    std::shared_ptr<SchedulerImpl> s(new SchedulerImpl());
    s->m_model = std::move(model);
    s->m_options = o;
    s->m_mode = mode;
    s->m_pool = std::make_unique<ThreadPool>(o.threads > 0 ? o.threads : ThreadPool::defaultThreadCount());
    const uint32_t fullBlocks = (o.kvPositions + runtime::kKvBlockSize - 1) / runtime::kKvBlockSize;
    auto cache = KvCache::create(c, o.contextSize, static_cast<uint32_t>(o.batchTokens),
                                 static_cast<uint32_t>(o.parallel), fullBlocks, kvCellType(o.kvCacheType),
                                 mode.snapshots /* recurrent snapshots per slot: before a prompt's last token */);
    if (!cache)
        return cache.status().withContext(s->m_model->info().path);
    s->m_cache = std::move(cache.value());
    auto forward = Forward::create(c, s->m_model->weights(), *s->m_cache, *s->m_pool, o.batchTokens, o.flashAttention);
    if (!forward)
        return forward.status();
    s->m_forward = std::move(forward.value());
    SchedulerImpl *self = s.get();
    s->m_forward->setCancelCheck([self] { return self->batchCancelled(); });
    try {
        s->m_logits.assign(static_cast<size_t>(o.parallel) * (1 + kMaxDraft) * c.nVocab, 0.0f);
        s->m_batchTokens.resize(static_cast<size_t>(o.batchTokens));
    } catch (const std::bad_alloc &) {
        return Status::error("scheduler: out of memory for the logits of " + std::to_string(o.parallel) + " sequences");
    }
    for (int i = o.parallel - 1; i >= 0; --i)
        s->m_freeSlots.push_back(i);
    s->m_park = mode.parkFinished || s->m_cache->recurrent() != nullptr;
    s->m_parked.resize(static_cast<size_t>(o.parallel));
    s->m_parkedAt.assign(static_cast<size_t>(o.parallel), 0);
    s->m_stats.kvBlocksTotal = s->m_cache->pool(0).capacity();
    if (mode.threaded)
        s->m_thread = std::thread([self] { self->run(); });
    return s;
}

SchedulerImpl::~SchedulerImpl()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stopping = true;
    }
    m_stopFlag.store(true, std::memory_order_release);
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

Result<std::unique_ptr<Live>> SchedulerImpl::prepare(Request request, GenerateResult *result)
{
    const model::ModelConfig &c = m_model->config();
    if (request.prompt.empty())
        return Status::error("the prompt is empty, expected at least one token");
    if (request.contextSize == 0 || request.contextSize > m_options.contextSize)
        request.contextSize = m_options.contextSize;
    if (request.prompt.size() > request.contextSize)
        return Status::error("the prompt has " + std::to_string(request.prompt.size()) +
                             " tokens, more than the context size of " + std::to_string(request.contextSize) +
                             " tokens");
    for (size_t i = 0; i < request.prompt.size(); ++i)
        if (request.prompt[i] < 0 || static_cast<uint32_t>(request.prompt[i]) >= c.nVocab)
            return Status::error("prompt token " + std::to_string(i) + " is " + std::to_string(request.prompt[i]) +
                                 ", outside the vocabulary (0.." + std::to_string(c.nVocab - 1) + ")");
    auto chain = sampling::Chain::create(request.sampling, c.nVocab, m_options.contextSize);
    if (!chain)
        return chain.status();
    const SpeculativeOptions &spec = request.options.speculative;
    const bool drafting = spec.mode != SpeculativeMode::SPECULATIVE_OFF && spec.draftMax > 0;
    std::shared_ptr<AssistantDrafter> assistant;
    if (drafting && spec.mode != SpeculativeMode::SPECULATIVE_NGRAM && !spec.draftModel.empty()) {
        auto named = namesAssistant(spec);
        if (!named)
            return named.status();
        if (named.value()) {
            auto bound = assistantFor(spec.draftModel);
            if (!bound)
                return bound.status();
            assistant = std::move(bound.value());
        } else if (spec.mode == SpeculativeMode::SPECULATIVE_MTP) {
            return Status::error(spec.draftModel + ": speculative decoding with MTP takes a Gemma 4 assistant file "
                                 "(gemma4-assistant) as its draft; this file is a model of its own (use draft)");
        }
    }
    const bool mtp = assistant ||
                     ((spec.mode == SpeculativeMode::SPECULATIVE_MTP || spec.mode == SpeculativeMode::SPECULATIVE_AUTO) &&
                      c.nLayerMtp > 0);
    if (spec.mode == SpeculativeMode::SPECULATIVE_MTP && !mtp && (drafting || spec.draftModel.empty()))
        return Status::error(c.draftsFromHidden
                                 ? "speculative decoding with MTP: a Gemma 4 model drafts with its assistant, a "
                                   "gemma4-assistant file named as the draft (draftModel; burrow-cli --draft FILE)"
                             : c.nextnDeclared > 0
                                 ? "speculative decoding with MTP: this file declares " + std::to_string(c.nextnDeclared) +
                                       " multi-token-prediction blocks, but Burrow drafts only with one that has its "
                                       "tensors (use auto, ngram or off)"
                                 : "speculative decoding with MTP: this model has no multi-token-prediction layers "
                                   "(use auto, ngram or off)");
    if (spec.draftMax < 0 || spec.draftMax > kMaxDraft)
        return Status::error("draftMax is " + std::to_string(spec.draftMax) + ", expected 0.." +
                             std::to_string(kMaxDraft));

    auto live = std::make_unique<Live>();
    live->assistant = std::move(assistant);
    if (spec.mode == SpeculativeMode::SPECULATIVE_DRAFT && spec.draftMax > 0 && !live->assistant) {
        if (spec.draftModel.empty())
            return Status::error("speculative decoding with a draft model needs the draft model's file (draftModel)");
        auto drafter = draftModelFor(spec.draftModel);
        if (!drafter)
            return drafter.status();
        live->drafter = std::move(drafter.value());
        if (chain.value()->canSampleAgainst()) {
            // Drafts drawn from the draft model's own distribution under the
            // request's stages (without penalties: q need not be the target's,
            // only known), with a seed of their own.
            SamplingParams dp = request.sampling;
            dp.repeatPenalty = 1.0f;
            dp.frequencyPenalty = dp.presencePenalty = 0.0f;
            dp.grammar = nullptr;
            dp.logprobs = 0;
            dp.recordLogprobs = false;
            if (dp.seed != 0xFFFFFFFFu)
                dp.seed = (dp.seed * 2654435761u + 1u) == 0xFFFFFFFFu ? 1u : dp.seed * 2654435761u + 1u;
            auto draftChain = sampling::Chain::create(dp, live->drafter->vocabSize(), m_options.contextSize);
            if (!draftChain)
                return draftChain.status();
            live->draftChain = std::move(draftChain.value());
        }
    }
    if (result)
        live->result = result;
    *live->result = GenerateResult{};
    live->chain = std::move(chain.value());
    if (spec.mode != SpeculativeMode::SPECULATIVE_OFF && spec.draftMax > 0) {
        live->spec = std::make_unique<speculative::DraftControl>(spec.draftMax);
        live->mtp = mtp;
    }
    for (Token t : request.prompt)
        live->chain->accept(t);
    live->tokens = request.prompt;
    live->promptLength = static_cast<uint32_t>(request.prompt.size());
    live->req = std::move(request);
    live->stream = m_model->newTextStream(live->req.options.renderedControlTokens);
    live->out = std::make_unique<ReplyOutput>(live->req.options, live->req.onText, *live->result);
    live->result->stopReason = StopReason::STOP_REASON_MAX_TOKENS;
    return live;
}

Result<RequestId> SchedulerImpl::submit(Request request)
{
    auto live = prepare(std::move(request));
    if (!live)
        return live.status();
    RequestId id;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_stopping)
            return Status::error("the scheduler is shutting down");
        if (m_queued >= m_options.maxQueued + m_options.parallel)
            return Status::busy("the queue is full (" + std::to_string(m_queued) + " requests waiting)");
        id = m_nextId++;
        live.value()->id = id;
        live.value()->order = m_nextOrder++;
        m_incoming.push_back(std::move(live.value()));
        ++m_queued;
        ++m_stats.waiting;
    }
    m_wake.notify_all();
    return id;
}

void SchedulerImpl::cancel(RequestId id)
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_cancels.push_back(id);
        m_cancelCalls.fetch_add(1, std::memory_order_release);
    }
    m_wake.notify_all();
}

bool SchedulerImpl::cancelled(const Live &live) const
{
    return (live.req.options.cancel && live.req.options.cancel->isCancelled()) ||
           (m_externalCancel && m_externalCancel());
}

bool SchedulerImpl::batchCancelled()
{
    // Called by the thread that runs the step, between layers: m_spanLive is
    // the batch being computed. One atomic load per sequence, and a look at
    // the cancel list only when cancel() was called since the last look.
    if (m_stopFlag.load(std::memory_order_acquire))
        return true;
    if (m_spanLive.empty())
        return false;
    const uint64_t calls = m_cancelCalls.load(std::memory_order_acquire);
    std::vector<RequestId> listed;
    if (calls != m_cancelCallsSeen) {
        std::lock_guard<std::mutex> lock(m_mutex);
        listed = m_cancels;
    }
    bool all = true;
    for (const Live *l : m_spanLive)
        all = all && (cancelled(*l) || std::find(listed.begin(), listed.end(), l->id) != listed.end());
    if (!all)
        m_cancelCallsSeen = calls;   // nothing for this batch: look again only after the next cancel()
    return all;
}

void SchedulerImpl::setPriority(RequestId id, int32_t priority)
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_priorities.emplace_back(id, priority);
    }
    m_wake.notify_all();
}

SchedulerStats SchedulerImpl::stats() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_stats;
}

void SchedulerImpl::publishStats()
{
    std::lock_guard<std::mutex> lock(m_mutex);
    const runtime::BlockPool &pool = m_cache->pool(0);
    m_stats.running = static_cast<int32_t>(m_running.size());
    m_stats.waiting = static_cast<int32_t>(m_waiting.size() + m_incoming.size());
    m_stats.kvBlocksTotal = pool.capacity();
    m_stats.kvBlocksCached = pool.cachedCount();
    m_stats.kvBlocksUsed = pool.capacity() - pool.availableCount();
    m_stats.steps = m_steps;
    m_stats.preemptions = m_preemptions;
    m_stats.reusedTokens = m_reused;
    m_stats.parked = 0;
    for (const std::vector<Token> &held : m_parked)
        m_stats.parked += held.empty() ? 0 : 1;
}

void SchedulerImpl::releaseSlot(Live &live, bool park)
{
    if (live.slot < 0)
        return;
    const uint32_t seq = static_cast<uint32_t>(live.slot);
    if (park && m_park && live.evaluated > 0) {
        std::vector<Token> &held = m_parked[static_cast<size_t>(live.slot)];
        held.assign(live.tokens.begin(), live.tokens.begin() + live.evaluated);
        m_parkedAt[static_cast<size_t>(live.slot)] = ++m_parkings;
    } else {
        if (m_mode.shareBlocks)
            m_cache->publish(seq, live.tokens.data());
        m_cache->truncate(seq, 0);   // full blocks stay cached under their hash
        m_parked[static_cast<size_t>(live.slot)].clear();
    }
    m_freeSlots.push_back(live.slot);
    live.slot = -1;
    live.evaluated = 0;
}

bool SchedulerImpl::evictParked()
{
    int oldest = -1;
    for (int slot : m_freeSlots)
        if (!m_parked[static_cast<size_t>(slot)].empty() &&
            (oldest < 0 || m_parkedAt[static_cast<size_t>(slot)] < m_parkedAt[static_cast<size_t>(oldest)]))
            oldest = slot;
    if (oldest < 0)
        return false;
    m_cache->truncate(static_cast<uint32_t>(oldest), 0);
    m_parked[static_cast<size_t>(oldest)].clear();
    return true;
}

std::pair<size_t, uint32_t> SchedulerImpl::pickSlot(const Live &live) const
{
    // The most positions reused; among none, an empty slot, else the least
    // recently parked one.
    size_t best = m_freeSlots.size() - 1;
    uint32_t bestReach = 0;
    bool bestEmpty = false;
    uint64_t bestAt = UINT64_MAX;
    for (size_t i = 0; i < m_freeSlots.size(); ++i) {
        const size_t slot = static_cast<size_t>(m_freeSlots[i]);
        const std::vector<Token> &held = m_parked[slot];
        size_t common = 0;
        while (common < held.size() && common + 1 < live.tokens.size() && held[common] == live.tokens[common])
            ++common;
        const uint32_t reach = held.empty() ? 0 : m_cache->reusableLength(static_cast<uint32_t>(slot), static_cast<uint32_t>(common));
        const bool better = reach > bestReach ||
                            (reach == bestReach && reach == 0 &&
                             (held.empty() ? !bestEmpty : (!bestEmpty && m_parkedAt[slot] < bestAt)));
        if (i == 0 || better) {
            best = i;
            bestReach = reach;
            bestEmpty = held.empty();
            bestAt = held.empty() ? 0 : m_parkedAt[slot];
        }
    }
    return {best, bestReach};
}

void SchedulerImpl::eraseFinished()
{
    m_running.erase(std::remove(m_running.begin(), m_running.end(), nullptr), m_running.end());
    m_waiting.erase(std::remove(m_waiting.begin(), m_waiting.end(), nullptr), m_waiting.end());
}

void SchedulerImpl::finish(std::unique_ptr<Live> &live, const Status &status)
{
    Live &l = *live;
    if (!l.started && l.promptStart != Clock::time_point{}) {
        // Ended during its prompt (cancelled, failed): what was computed so far.
        const int32_t reused = l.result->timings.reusedTokens;
        l.result->timings.promptTokens = std::max(0, static_cast<int32_t>(std::min(l.evaluated, l.promptLength)) - reused);
        l.result->timings.promptMs = msBetween(l.promptStart, Clock::now());
    }
    releaseSlot(l, status.isOk());
    if (status.isOk()) {
        l.out->finish(l.stream->finish());
        const Clock::time_point now = Clock::now();
        l.result->timings.generatedTokens = static_cast<int32_t>(l.result->tokens.size());
        l.result->timings.generateMs = l.started ? msBetween(l.generateStart, now) : 0.0;
    }
    if (l.req.onDone)
        l.req.onDone(*l.result, status);
    live.reset();
}

void SchedulerImpl::takeNew(std::vector<std::unique_ptr<Live>> &incoming, std::vector<RequestId> &cancels,
                            std::vector<std::pair<RequestId, int32_t>> &priorities)
{
    for (auto &l : incoming)
        m_waiting.push_back(std::move(l));
    incoming.clear();
    for (const auto &[id, priority] : priorities)   // in call order: the last one for an id wins
        for (auto *list : {&m_running, &m_waiting})
            for (auto &l : *list)
                if (l && l->id == id)
                    l->req.priority = priority;
    priorities.clear();
    if (cancels.empty())
        return;
    const std::unordered_set<RequestId> ids(cancels.begin(), cancels.end());
    cancels.clear();
    for (auto *list : {&m_running, &m_waiting})
        for (auto &l : *list)
            if (l && ids.count(l->id)) {
                l->result->stopReason = StopReason::STOP_REASON_CANCELLED;
                finish(l, Status::ok());
            }
}

void SchedulerImpl::admit()
{
    while (!m_freeSlots.empty() && !m_waiting.empty()) {
        auto best = m_waiting.begin();
        for (auto it = m_waiting.begin(); it != m_waiting.end(); ++it)
            if (before(**it, **best))
                best = it;
        // Admission control: with others running, wait until the blocks for
        // its whole prompt (and a first token) are available, so admitting
        // it does not just preempt someone in the next step.
        if (!m_running.empty()) {
            const uint64_t need = ((*best)->tokens.size() + 1 + runtime::kKvBlockSize - 1) / runtime::kKvBlockSize;
            while (m_cache->pool(0).availableCount() < need && evictParked()) {
            }
            if (m_cache->pool(0).availableCount() < need)
                break;
        }
        std::unique_ptr<Live> live = std::move(*best);
        m_waiting.erase(best);
        size_t pick = m_freeSlots.size() - 1;
        uint32_t reach = 0;
        if (m_park)
            std::tie(pick, reach) = pickSlot(*live);
        live->slot = m_freeSlots[pick];
        m_freeSlots.erase(m_freeSlots.begin() + static_cast<std::ptrdiff_t>(pick));
        live->admittedAt = ++m_admissions;
        const uint32_t seq = static_cast<uint32_t>(live->slot);
        if (m_park) {
            m_cache->truncate(seq, reach);   // the parked sequence's shared prefix (a state: or its snapshot), or nothing
            m_parked[static_cast<size_t>(live->slot)].clear();
            live->evaluated = m_cache->length(seq);
        }
        if (live->evaluated == 0)
            m_forward->mtpForget(seq);   // an adopted prefix's blocks carry no MTP state of this sequence's
        if (live->evaluated == 0 && m_mode.shareBlocks)
            live->evaluated = m_cache->adoptPrefix(seq, live->tokens.data(), static_cast<uint32_t>(live->tokens.size()));
        m_reused += live->evaluated;
        if (live->reportProgress) {
            live->promptStart = Clock::now();
            live->result->timings.reusedTokens = static_cast<int32_t>(live->evaluated);
            if (live->req.onPromptProgress)
                live->req.onPromptProgress(0, static_cast<int32_t>(live->promptLength - live->evaluated));
        }
        m_running.push_back(std::move(live));
    }
}

void SchedulerImpl::preempt(Live &victim)
{
    ++m_preemptions;
    releaseSlot(victim);
    for (auto &l : m_running)
        if (l.get() == &victim) {
            m_waiting.push_back(std::move(l));
            break;
        }
    eraseFinished();
}

bool SchedulerImpl::sampleNext(Live &l, const float *logits, const DraftGuess *guess)
{
    const GenerateOptions &o = l.req.options;
    GenerateResult &r = *l.result;
    const Token drawn = std::exchange(l.drawn, -1);   // drawTokens's, for these logits
    if (!l.started) {
        l.started = true;
        l.generateStart = Clock::now();
        r.timings.promptMs = msBetween(l.promptStart, l.generateStart);
        r.timings.promptTokens = static_cast<int32_t>(l.promptLength) - r.timings.reusedTokens;
    }
    if (o.maxTokens >= 0 && static_cast<int32_t>(r.tokens.size()) >= o.maxTokens) {
        r.stopReason = StopReason::STOP_REASON_MAX_TOKENS;
        return false;
    }
    const Token token = drawn >= 0                                             ? drawn
                        : guess && guess->q && l.chain->canSampleAgainst() ? l.chain->sampleAgainst(logits, guess->token,
                                                                                                     guess->q, guess->nq)
                                                                           : l.chain->sample(logits);
    l.chain->accept(token);
    if (!l.req.ignoreEndOfGeneration && m_model->isEndOfGeneration(token)) {
        r.stopReason = StopReason::STOP_REASON_END_OF_GENERATION;
        return false;
    }
    r.tokens.push_back(token);
    if (l.req.onToken)
        l.req.onToken(static_cast<int32_t>(r.tokens.size()));
    if (l.chain->recordsLogprobs()) {
        r.logprobs.push_back(l.chain->lastLogprobs());
        if (l.req.onLogprobs)
            l.req.onLogprobs(r.logprobs.back());
    }
    const bool wasReasoning = l.out->inReasoning();
    l.out->push(l.stream->push(token));
    if (wasReasoning || l.out->inReasoning()) {
        ++r.timings.reasoningTokens;
        r.timings.reasoningMs = msBetween(l.generateStart, Clock::now());
    }
    if (l.out->stopped())
        return false;
    if (o.maxTokens >= 0 && static_cast<int32_t>(r.tokens.size()) >= o.maxTokens) {
        r.stopReason = StopReason::STOP_REASON_MAX_TOKENS;
        return false;
    }
    if (l.tokens.size() >= l.req.contextSize) {
        // The new token has no position left: shift (drop half of the
        // sequence after nKeep) or stop.
        const bool shifted = o.overflow == ContextOverflow::CONTEXT_OVERFLOW_SHIFT &&
                             (m_mode.shift ? shiftInPlace(l) : shiftByRecompute(l));
        if (!shifted) {
            r.stopReason = StopReason::STOP_REASON_CONTEXT_FULL;
            return false;
        }
    }
    l.tokens.push_back(token);
    return true;
}

int SchedulerImpl::planDraft(Live &l, int maxTokens)
{
    if (l.drafter) {   // drafted before the batch was built (draftWithModels)
        l.draft.resize(std::min(l.draft.size(), static_cast<size_t>(std::max(0, maxTokens))));
        return static_cast<int>(l.draft.size());
    }
    if (l.mtp) {   // drafted before the batch (draftMtp); cut to the rows left
        if (l.draft.size() > static_cast<size_t>(std::max(0, maxTokens)))
            l.draft.resize(static_cast<size_t>(std::max(0, maxTokens)));
        return static_cast<int>(l.draft.size());
    }
    l.draft.clear();
    const int k0 = draftLimit(l, maxTokens);
    if (k0 <= 0)
        return 0;
    l.draft.resize(static_cast<size_t>(k0));
    const int k = speculative::draftNgram(l.tokens.data(), l.tokens.size(), k0, l.draft.data());
    l.draft.resize(static_cast<size_t>(k));
    return k;
}

void SchedulerImpl::draftMtp(const std::vector<Live *> &order)
{
    if (!m_forward->hasMtp() && !m_model->config().draftsFromHidden)
        return;
    std::vector<runtime::MtpDraft> &drafts = m_mtpDrafts;   // kept: a step allocates nothing once grown
    std::vector<Live *> &owners = m_mtpOwners;
    drafts.clear();
    owners.clear();
    for (Live *l : order) {
        if (!l->mtp || !l->spec || l->slot < 0)
            continue;
        l->draft.clear();
        if (!l->started || l->remaining() != 1)
            continue;
        const uint32_t seq = static_cast<uint32_t>(l->slot);
        if (!m_forward->mtpReady(seq)) {
            l->mtp = false;   // its block state cannot be completed: n-gram lookup from now on
            continue;
        }
        const int k = draftLimit(*l, kMaxMtpDraft);
        if (k <= 0)
            continue;
        l->draft.resize(static_cast<size_t>(k));
        runtime::MtpDraft d;
        d.seq = seq;
        d.token = l->tokens[l->evaluated];
        d.count = k;
        d.out = l->draft.data();
        d.hidden = m_forward->keptHidden(seq);
        drafts.push_back(d);
        owners.push_back(l);
    }
    // The MTP block's drafts in one run; an assistant's (one file, as a rule)
    // in one run per file, its requests moved to the front in turn.
    size_t done = 0;
    while (done < drafts.size()) {
        AssistantDrafter *a = owners[done]->assistant.get();
        size_t end = done + 1;
        for (size_t i = end; i < drafts.size(); ++i)
            if (owners[i]->assistant.get() == a) {
                std::swap(drafts[i], drafts[end]);
                std::swap(owners[i], owners[end]);
                ++end;
            }
        const int n = static_cast<int>(end - done);
        const Status st = a ? a->draft(drafts.data() + done, n, m_logits.data())
                            : m_forward->mtpDraft(drafts.data() + done, n, m_logits.data());
        for (size_t i = done; i < end; ++i)
            owners[i]->draft.resize(st ? static_cast<size_t>(drafts[i].drafted) : 0);
        done = end;
    }
}

int SchedulerImpl::draftLimit(Live &l, int maxTokens)
{
    int k = std::min({l.spec->allowance(), maxTokens, kMaxDraft});
    // Room: every draft and the token after them without a context shift,
    // and no draft past the reply's last token.
    const int64_t room = static_cast<int64_t>(std::min(l.req.contextSize, m_cache->capacity())) -
                         static_cast<int64_t>(l.tokens.size()) - 1;
    k = static_cast<int>(std::min<int64_t>(k, room));
    const int32_t maxTokensOpt = l.req.options.maxTokens;
    if (maxTokensOpt >= 0)
        k = std::min(k, maxTokensOpt - static_cast<int32_t>(l.result->tokens.size()) - 1);
    return std::max(k, 0);
}

Result<bool> SchedulerImpl::namesAssistant(const SpeculativeOptions &spec)
{
    {
        std::lock_guard<std::mutex> lock(m_draftMutex);
        if (m_assistant && m_assistant->path() == spec.draftModel)
            return true;
    }
    auto info = inspectModel(spec.draftModel);
    if (!info)
        return info.status();
    return info.value().architecture == "gemma4-assistant";   // by its header: a broken one is refused when loaded
}

Result<std::shared_ptr<AssistantDrafter>> SchedulerImpl::assistantFor(const std::string &path)
{
    std::lock_guard<std::mutex> lock(m_draftMutex);
    if (m_assistant && m_assistant->path() == path)
        return m_assistant;
    auto loaded = ModelImpl::load(path, {});
    if (!loaded)
        return loaded.status();
    auto made = AssistantDrafter::create(std::move(loaded.value()), *m_model, *m_cache, *m_pool,
                                         static_cast<uint32_t>(m_options.parallel), m_options.flashAttention);
    if (!made)
        return made.status();
    m_assistant = std::shared_ptr<AssistantDrafter>(std::move(made.value()));
    return m_assistant;
}

Result<std::shared_ptr<DraftModel>> SchedulerImpl::draftModelFor(const std::string &path)
{
    std::lock_guard<std::mutex> lock(m_draftMutex);
    if (m_draftModel && m_draftModel->path() == path)
        return m_draftModel;
    auto loaded = ModelImpl::load(path, {});
    if (!loaded)
        return loaded.status();
    auto made = DraftModel::create(std::move(loaded.value()), *m_model, m_options.contextSize,
                                   static_cast<uint32_t>(m_options.parallel), m_options.batchTokens, *m_pool,
                                   m_options.flashAttention, kvCellType(m_options.kvCacheType));
    if (!made)
        return made.status();
    m_draftModel = std::shared_ptr<DraftModel>(std::move(made.value()));
    return m_draftModel;
}

void SchedulerImpl::draftWithModels()
{
    std::vector<DraftModel::Job> jobs;
    std::vector<DraftModel *> owners;   // per job
    for (auto &r : m_running) {
        Live *l = r.get();
        if (!l || !l->drafter)
            continue;
        l->draft.clear();
        if (l->slot < 0 || !l->spec || !l->started || l->remaining() != 1)
            continue;
        const int k = draftLimit(*l, m_options.batchTokens - 1);
        if (k <= 0)
            continue;
        DraftModel::Job job;
        job.slot = static_cast<uint32_t>(l->slot);
        job.tokens = &l->tokens;
        job.want = k;
        job.chain = l->draftChain.get();
        job.out = &l->draft;
        job.q = &l->draftQ;
        jobs.push_back(job);
        owners.push_back(l->drafter.get());
    }
    const auto stopping = [this] { return m_stopFlag.load(std::memory_order_acquire); };
    while (!jobs.empty()) {   // one model's jobs at a time (usually all of them)
        DraftModel *model = owners.front();
        std::vector<DraftModel::Job> mine;
        for (size_t i = 0; i < jobs.size();)
            if (owners[i] == model) {
                mine.push_back(jobs[i]);
                jobs.erase(jobs.begin() + static_cast<std::ptrdiff_t>(i));
                owners.erase(owners.begin() + static_cast<std::ptrdiff_t>(i));
            } else {
                ++i;
            }
        model->draft(mine, stopping);
    }
}

bool SchedulerImpl::verifyDrafts(Live &l, uint32_t seq, const float *logits)
{
    // Row i's logits are those after tokens[evaluated + i]. A draft is kept
    // when the chain, sampling as it would without drafts, picks it: for a
    // drafter whose guess is one token (q a point mass) that is the
    // speculative-sampling rule (accept with probability p(draft), else a
    // token from p without the draft, renormalised), and it draws the same
    // random numbers as plain decoding, so a seeded reply is the same too.
    // A draft model's sampled draft comes with its q: the chain applies the
    // rule with it (Chain::sampleAgainst; the same distribution, other draws).
    const size_t nVocab = m_model->config().nVocab;
    const int k = static_cast<int>(l.draft.size());
    l.evaluated += 1;
    int accepted = 0;
    bool going = true;
    for (int i = 0; i <= k && going; ++i) {
        DraftGuess guess;
        if (i < k && l.draftChain && static_cast<size_t>(i) < l.draftQ.size()) {
            guess.token = l.draft[static_cast<size_t>(i)];
            guess.q = l.draftQ[static_cast<size_t>(i)].data();
            guess.nq = l.draftQ[static_cast<size_t>(i)].size();
        }
        going = sampleNext(l, logits + static_cast<size_t>(i) * nVocab, guess.q ? &guess : nullptr);
        // (A drafted end of generation the model agrees with ends the reply: accepted too.)
        if (!going && i < k && l.result->stopReason == StopReason::STOP_REASON_END_OF_GENERATION &&
            l.chain->candidates().selectedToken() == l.draft[static_cast<size_t>(i)])
            ++accepted;
        if (!going || i == k || l.tokens.back() != l.draft[static_cast<size_t>(i)])
            break;
        ++accepted;
        ++l.evaluated;
        if (cancelled(l)) {   // stop within a token: the accepted draft waits as the pending token
            --l.evaluated;
            break;
        }
    }
    m_cache->truncate(seq, l.evaluated);   // the rejected drafts' keys (and a recurrent state's steps)
    l.evaluated = m_cache->length(seq);    // (0 only if a recurrent state kept no steps: computed again)
    m_forward->mtpRollback(seq, l.evaluated);   // the MTP block's hidden state of the last accepted position
    l.result->timings.draftedTokens += k;
    l.result->timings.acceptedTokens += accepted;
    l.spec->record(k, accepted);
    l.draft.clear();
    return going;
}

bool SchedulerImpl::shiftInPlace(Live &l)
{
    const uint32_t dropped = shiftSequence(static_cast<uint32_t>(l.slot), l.tokens, l.evaluated, l.req.options.nKeep);
    l.evaluated -= dropped;
    return dropped > 0;
}

uint32_t SchedulerImpl::shiftKeep(const std::vector<Token> &tokens, uint32_t length, int32_t nKeep) const
{
    uint32_t keep = static_cast<uint32_t>(std::max(nKeep, 0));
    const Token bos = m_model->addedBos();
    if (bos >= 0 && length > 0 && tokens[0] == bos)
        keep = std::max<uint32_t>(keep, 1);
    return std::min(keep, length);
}

bool SchedulerImpl::shiftByRecompute(Live &l)
{
    // A recurrent state cannot forget its oldest tokens.
    if (m_cache->recurrent() || l.slot < 0)
        return false;
    const uint32_t length = static_cast<uint32_t>(l.tokens.size());
    const uint32_t keep = shiftKeep(l.tokens, length, l.req.options.nKeep);
    const uint32_t discard = (length - keep) / 2;
    if (discard == 0)
        return false;
    // The kept head stays in the cache up to its last whole block (a block
    // may be shared with other sequences: it is never written again, so the
    // cut is at a block boundary) and as far as the sliding layers still
    // hold it; the rest is computed again behind it.
    const uint32_t seq = static_cast<uint32_t>(l.slot);
    const uint32_t kept = m_cache->reusableLength(seq, keep / runtime::kKvBlockSize * runtime::kKvBlockSize);
    m_cache->truncate(seq, kept);
    l.tokens.erase(l.tokens.begin() + keep, l.tokens.begin() + keep + discard);
    l.evaluated = m_cache->length(seq);
    return true;
}

uint32_t SchedulerImpl::shiftSequence(uint32_t seq, std::vector<Token> &tokens, uint32_t length, int32_t nKeep)
{
    // A recurrent state cannot drop its oldest tokens; shared blocks cannot move.
    if (!m_mode.shift || m_cache->recurrent() || length != m_cache->length(seq) || length > tokens.size())
        return 0;
    // Keep the first nKeep tokens (BOS always), drop half of the rest.
    const uint32_t keep = shiftKeep(tokens, length, nKeep);
    const uint32_t discard = (length - keep) / 2;
    if (discard == 0)
        return 0;
    const model::Weights &w = m_model->weights();
    m_cache->removeAndShift(seq, keep, keep + discard, w.ropeFreqs ? w.ropeFreqs.f32() : nullptr, *m_pool);
    tokens.erase(tokens.begin() + keep, tokens.begin() + keep + discard);
    return discard;
}

bool SchedulerImpl::shiftParked(int32_t nKeep)
{
    std::vector<Token> &held = m_parked[0];
    return !held.empty() && shiftSequence(0, held, static_cast<uint32_t>(held.size()), nKeep) > 0;
}

void SchedulerImpl::forgetParked()
{
    for (size_t slot = 0; slot < m_parked.size(); ++slot)
        if (!m_parked[slot].empty()) {
            m_cache->truncate(static_cast<uint32_t>(slot), 0);
            m_parked[slot].clear();
        }
}

bool SchedulerImpl::step()
{
    // Cancel tokens of the requests themselves.
    for (auto *list : {&m_running, &m_waiting})
        for (auto &l : *list)
            if (l && cancelled(*l)) {
                l->result->stopReason = StopReason::STOP_REASON_CANCELLED;
                finish(l, Status::ok());
            }
    eraseFinished();
    admit();
    if (m_running.empty())
        return false;

    draftWithModels();
    // Decode rows first (every generating sequence), then prompt chunks, each
    // group in priority order.
    std::vector<Live *> &order = m_order;   // kept: a step allocates nothing once it has grown
    order.clear();
    for (auto &l : m_running)
        order.push_back(l.get());
    // (before() is a total order: submission numbers are unique, so a plain
    // sort is stable here and needs no buffer.)
    std::sort(order.begin(), order.end(), [](const Live *a, const Live *b) {
        const bool da = a->remaining() == 1 && a->started, db = b->remaining() == 1 && b->started;
        if (da != db)
            return da;
        return before(*a, *b);
    });
    int nGenerating = 0;
    for (const Live *l : order)
        nGenerating += l->started && l->remaining() == 1;
    int budget = m_options.batchTokens;
    int prefillBudget = m_options.batchTokens;
    if (nGenerating > 0) {
        prefillBudget = m_options.prefillTokensWhileGenerating;
        if (m_decodeMs > 0 && m_rowMs > 0) {
            const double rows = (m_options.maxStepSlowdown - 1.0) * m_decodeMs / m_rowMs;
            prefillBudget = static_cast<int>(std::clamp(rows, 1.0, static_cast<double>(prefillBudget)));
        }
    }

    draftMtp(order);
    m_spans.clear();
    m_spanLive.clear();
    int rows = 0;
    for (size_t i = 0; i < order.size(); ++i) {
        Live *l = order[i];
        if (l->slot < 0)
            continue;   // preempted below in this step
        const bool decode = l->started && l->remaining() == 1;
        int n = static_cast<int>(std::min<uint32_t>(l->remaining(), static_cast<uint32_t>(budget)));
        if (!decode)
            n = std::min(n, prefillBudget);
        // A generating sequence verifies its drafts in this pass (1 + k rows).
        // Beside other generating sequences an n-gram draft row costs about
        // what an accepted token saves (the step runs for the others anyway),
        // so there only a sequence whose last drafts were all accepted drafts
        // (155M bench model, server, 4 streams: 1110 -> 1372 t/s; one stream
        // unchanged).
        if (decode && l->spec && (nGenerating == 1 || l->drafter || l->mtp || l->spec->onStreak()))
            n += planDraft(*l, budget - 1);
        else
            l->draft.clear();
        // A recurrent state is snapshot before the prompt's last token: that
        // token goes in a step of its own.
        if (m_cache->recurrent() && !l->started && n > 1 && l->evaluated + static_cast<uint32_t>(n) == l->promptLength)
            --n;
        if (n <= 0)
            continue;
        const uint32_t seq = static_cast<uint32_t>(l->slot);
        // Blocks for its rows, preempting the newest lowest-priority sequence
        // (not one already in this batch) when none are left; parked slots
        // give theirs back first.
        bool alone = false;
        while (!m_cache->reserve(seq, l->evaluated + static_cast<uint32_t>(n))) {
            if (!l->draft.empty()) {   // drafts go first
                l->draft.clear();
                n = 1;
                continue;
            }
            if (evictParked())
                continue;
            Live *victim = nullptr;
            for (auto &r : m_running) {
                if (!r || r->slot < 0 || std::find(m_spanLive.begin(), m_spanLive.end(), r.get()) != m_spanLive.end())
                    continue;
                if (!victim || r->req.priority < victim->req.priority ||
                    (r->req.priority == victim->req.priority && r->admittedAt > victim->admittedAt))
                    victim = r.get();
            }
            if (victim == nullptr) {
                n = 0;   // the others are in this batch: wait for them to finish
                break;
            }
            if (victim == l) {
                alone = m_spans.empty() && m_running.size() == 1;
                if (!alone)
                    preempt(*l);
                n = 0;
                break;
            }
            preempt(*victim);
        }
        if (alone) {
            for (auto &r : m_running)
                if (r.get() == l)
                    finish(r, Status::error("the KV cache (" + std::to_string(m_options.kvPositions) +
                                            " positions) cannot hold this request"));
            continue;
        }
        if (n <= 0 || l->slot < 0)
            continue;
        if (m_cache->length(seq) + static_cast<uint32_t>(n) > m_cache->capacity())
            continue;
        BatchSpan span;
        span.seq = seq;
        span.row0 = rows;
        span.n = n;
        span.verify = !l->draft.empty();
        span.mtp = l->mtp;
        span.mtpLater = l->mtp && !span.verify && l->spec && l->spec->waiting();   // backed off: no draft next step
        span.logits = span.verify || l->evaluated + static_cast<uint32_t>(n) == l->tokens.size();
        if (span.verify) {
            m_batchTokens[static_cast<size_t>(rows)] = l->tokens[l->evaluated];
            std::copy(l->draft.begin(), l->draft.end(), m_batchTokens.begin() + rows + 1);
        } else {
            std::copy(l->tokens.begin() + l->evaluated, l->tokens.begin() + l->evaluated + n, m_batchTokens.begin() + rows);
        }
        m_spans.push_back(span);
        m_spanLive.push_back(l);
        rows += n;
        budget -= n;
        if (!decode)
            prefillBudget -= n;
        if (budget <= 0)
            break;
    }
    if (m_spans.empty()) {
        eraseFinished();
        return !m_running.empty() || !m_waiting.empty();
    }

    const Clock::time_point t0 = Clock::now();
    const Status st = m_forward->evalBatch(m_batchTokens.data(), m_spans.data(), static_cast<int>(m_spans.size()),
                                           m_logits.data());
    ++m_steps;
    if (st && nGenerating > 0) {
        int decodeRows = 0, promptRows = 0;
        for (size_t i = 0; i < m_spans.size(); ++i)
            (m_spanLive[i]->started && (m_spans[i].n == 1 || m_spans[i].verify) && m_spans[i].logits ? decodeRows
                                                                                                   : promptRows) +=
                m_spans[i].n;
        const double ms = msBetween(t0, Clock::now());
        constexpr double kAlpha = 0.2;
        if (promptRows == 0)
            m_decodeMs = m_decodeMs == 0 ? ms : (1 - kAlpha) * m_decodeMs + kAlpha * ms;
        else if (m_decodeMs > 0) {
            const double perRow = std::max(0.0, ms - m_decodeMs) / promptRows;
            m_rowMs = m_rowMs == 0 ? perRow : (1 - kAlpha) * m_rowMs + kAlpha * perRow;
        }
    }
    if (!st) {
        if (st.isCancelled() && m_stopFlag.load(std::memory_order_acquire))
            return true;   // shutting down
        // Cancelled between layers (every sequence of the batch was): nothing
        // of this batch is kept; each ends with what it had before it.
        for (auto &l : m_running)
            for (Live *b : m_spanLive)
                if (l && l.get() == b) {
                    if (st.isCancelled())
                        l->result->stopReason = StopReason::STOP_REASON_CANCELLED;
                    finish(l, st.isCancelled() ? Status::ok() : st);
                }
        m_spanLive.clear();
        eraseFinished();
        return true;
    }
    afterPass();
    m_spanLive.clear();   // the forward pass's cancel check reads it only during a pass
    eraseFinished();
    return true;
}

void SchedulerImpl::drawTokens()
{
    const size_t nVocab = m_model->config().nVocab;
    m_draws.clear();
    int wanted = 0;
    for (size_t i = 0; i < m_spans.size(); ++i) {
        const BatchSpan &sp = m_spans[i];
        Live *l = m_spanLive[i];
        if (sp.verify) {   // its rows are sampled one after another (verifyDrafts)
            wanted += sp.n;
            continue;
        }
        if (!sp.logits)
            continue;
        const float *logits = m_logits.data() + static_cast<size_t>(wanted++) * nVocab;
        // sampleNext draws nothing for a reply at its length; a grammar's
        // state stays on this thread.
        const int32_t maxTokens = l->req.options.maxTokens;
        if (l->chain->constraint() || (maxTokens >= 0 && static_cast<int32_t>(l->result->tokens.size()) >= maxTokens))
            continue;
        m_draws.emplace_back(l, logits);
    }
    if (m_draws.size() < 2)
        return;   // one draw: sampleNext makes it
    // Always on the pool (a model's vocabulary is tens of thousands: each
    // draw is at least one pass over its row; the workers are still
    // spinning from the forward pass, so the dispatch costs little).
    const int64_t count = static_cast<int64_t>(m_draws.size());
    m_pool->run([this, count](int ith, int nth) {
        int64_t begin = 0, end = 0;
        ThreadPool::split(count, ith, nth, &begin, &end);
        for (int64_t d = begin; d < end; ++d) {
            Live *l = m_draws[static_cast<size_t>(d)].first;
            l->drawn = l->chain->sample(m_draws[static_cast<size_t>(d)].second);
        }
    });
}

void SchedulerImpl::afterPass()
{
    drawTokens();
    const auto finishLive = [this](const Live *l) {
        for (auto &r : m_running)
            if (r.get() == l) {
                finish(r, Status::ok());
                break;
            }
    };
    int wanted = 0;
    const size_t nVocab = m_model->config().nVocab;
    for (size_t i = 0; i < m_spans.size(); ++i) {
        Live *l = m_spanLive[i];
        const BatchSpan &sp = m_spans[i];
        if (sp.verify) {
            const float *logits = m_logits.data() + static_cast<size_t>(wanted) * nVocab;
            wanted += sp.n;
            const bool going = verifyDrafts(*l, sp.seq, logits);
            if (m_mode.shareBlocks)
                m_cache->publish(sp.seq, l->tokens.data());
            if (!going)
                finishLive(l);
            continue;
        }
        l->evaluated += static_cast<uint32_t>(sp.n);
        if (m_mode.shareBlocks)
            m_cache->publish(sp.seq, l->tokens.data());
        if (m_cache->recurrent() && !l->started && l->evaluated + 1 == l->promptLength)
            m_cache->recurrent()->snapshot(sp.seq, l->evaluated);
        if (l->reportProgress && l->req.onPromptProgress) {
            const uint32_t done = std::min(l->evaluated, l->promptLength) - static_cast<uint32_t>(l->result->timings.reusedTokens);
            l->req.onPromptProgress(static_cast<int32_t>(done),
                                    static_cast<int32_t>(l->promptLength) - l->result->timings.reusedTokens);
        }
        if (!sp.logits)
            continue;
        l->reportProgress = false;
        const float *logits = m_logits.data() + static_cast<size_t>(wanted++) * nVocab;
        if (l->logitsOut && !l->started)
            l->logitsOut->assign(logits, logits + nVocab);
        if (!sampleNext(*l, logits))
            finishLive(l);
    }
}

void SchedulerImpl::takeQueued()
{
    std::vector<std::unique_ptr<Live>> incoming;
    std::vector<RequestId> cancels;
    std::vector<std::pair<RequestId, int32_t>> priorities;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        incoming.swap(m_incoming);
        cancels.swap(m_cancels);
        priorities.swap(m_priorities);
    }
    takeNew(incoming, cancels, priorities);
    eraseFinished();
}

Status SchedulerImpl::drive(Request request, GenerateResult *result, std::vector<float> *logitsOut)
{
    bool done = false;
    auto onDone = std::move(request.onDone);
    request.onDone = [&done, &onDone](const GenerateResult &r, const Status &status) {
        done = true;
        if (onDone)
            onDone(r, status);
    };
    auto prepared = prepare(std::move(request), result);
    if (!prepared)
        return prepared.status();
    std::unique_ptr<Live> live = std::move(prepared.value());
    live->logitsOut = logitsOut;
    const Live *mine = live.get();
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        live->id = m_nextId++;
        live->order = m_nextOrder++;
    }
    m_waiting.push_back(std::move(live));
    while (!done) {
        takeQueued();
        if (!step() && !done) {
            // Nothing can run and it is not done: cannot happen with one
            // caller; end it rather than spin.
            for (auto *list : {&m_running, &m_waiting})
                for (auto &l : *list)
                    if (l && l.get() == mine)
                        finish(l, Status::error("the request could not be scheduled"));
            eraseFinished();
            if (!done)
                break;
        }
    }
    publishStats();
    return Status::ok();
}

void SchedulerImpl::run()
{
    common::setCurrentThreadName("burrow-sched");
    std::vector<std::unique_ptr<Live>> incoming;
    std::vector<RequestId> cancels;
    std::vector<std::pair<RequestId, int32_t>> priorities;
    for (;;) {
        bool stopping;
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            m_wake.wait(lock, [&] {
                return m_stopping || !m_incoming.empty() || !m_cancels.empty() || !m_running.empty() ||
                       !m_waiting.empty();
            });
            stopping = m_stopping;
            incoming.swap(m_incoming);
            cancels.swap(m_cancels);
            priorities.swap(m_priorities);
        }
        takeNew(incoming, cancels, priorities);
        eraseFinished();
        if (stopping) {
            for (auto *list : {&m_running, &m_waiting})
                for (auto &l : *list)
                    if (l) {
                        l->result->stopReason = StopReason::STOP_REASON_CANCELLED;
                        finish(l, Status::ok());
                    }
            m_running.clear();
            m_waiting.clear();
            publishStats();
            return;
        }
        step();
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_queued = static_cast<int32_t>(m_waiting.size() + m_running.size() + m_incoming.size());
        }
        publishStats();
    }
}

} // namespace burrow::api

namespace burrow {

Result<std::shared_ptr<Scheduler>> Scheduler::create(std::shared_ptr<const Model> model, const SchedulerOptions &options)
{
    auto impl = std::dynamic_pointer_cast<const api::ModelImpl>(model);
    if (!impl)
        return Status::error("Scheduler::create: the model was not loaded with Model::load");
    auto s = api::SchedulerImpl::create(std::move(impl), options);
    if (!s)
        return s.status();
    return std::shared_ptr<Scheduler>(std::move(s.value()));
}

} // namespace burrow
