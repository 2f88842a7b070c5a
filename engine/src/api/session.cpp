// burrow::Session: one KV cache, the forward pass's buffers, a thread pool
// and the generation loop.
//
// Generation loop, per token:
//   sample (sampling::Chain) -> end of generation? -> text stream (UTF-8
//   complete) -> reasoning splitter (when the format marks reasoning:
//   reasoning to onReasoning, answer on) -> stop-string filter on the answer
//   (holds back possible starts) -> callback -> max tokens? -> context full?
//   (stop, or shift: keep nKeep (+BOS), drop half of the rest, re-rope the
//   kept keys) -> forward one token.
// Nothing is allocated per token: the logits, activations and sampler
// buffers are sized at creation; text pieces are short strings (with a
// reasoning syntax, the splitter's parts too).
//
// Cancellation: a call stops when its request's CancelToken or
// Session::cancel() says so, checked before anything is evaluated, between
// prompt chunks, between the layers of a chunk (Forward's cancel check) and
// between generated tokens. A chunk stopped inside is not kept: the KV cache
// holds the chunks completed before it, so the next call reuses them.
#include "api/session_impl.h"

#include "runtime/forward.h"
#include "runtime/kv_cache.h"
#include "runtime/recurrent_state.h"
#include "api/reply_output.h"
#include "runtime/thread_pool.h"
#include "sampling/sampler.h"

#include <algorithm>
#include <chrono>
#include <optional>

namespace burrow {

Result<std::unique_ptr<Session>> Session::create(std::shared_ptr<const Model> model, const SessionOptions &options)
{
    auto impl = std::dynamic_pointer_cast<const api::ModelImpl>(model);
    if (!impl)
        return Status::error("Session::create: the model was not loaded with Model::load");
    auto session = api::SessionImpl::create(std::move(impl), options);
    if (!session)
        return session.status();
    return std::unique_ptr<Session>(std::move(session.value()));
}

} // namespace burrow

namespace burrow::api {

namespace {

constexpr int kMaxBatch = 512;   // prompt tokens per forward pass (the reference's n_ubatch)

double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

SessionImpl::SessionImpl() = default;
SessionImpl::~SessionImpl() = default;

Result<std::unique_ptr<SessionImpl>> SessionImpl::create(std::shared_ptr<const ModelImpl> model,
                                                         const SessionOptions &options)
{
    if (!model)
        return Status::error("Session::create: no model");
    const model::ModelConfig &c = model->config();
    uint32_t nCtx = options.contextSize == 0 ? c.nCtxTrain : std::min(options.contextSize, c.nCtxTrain);
    std::unique_ptr<SessionImpl> s(new SessionImpl());
    s->m_model = std::move(model);
    const int threads = options.threads > 0 ? options.threads : ThreadPool::defaultThreadCount();
    s->m_pool = std::make_unique<ThreadPool>(threads);
    if (options.kvCacheType == KvCacheType::KV_CACHE_Q8_0 && !options.flashAttention)
        return Status::error("Session::create: kvCacheType Q8_0 needs flashAttention (a quantized V cache is only "
                             "computed with flash attention); set flashAttention or use KV_CACHE_F16");
    auto cache = KvCache::create(c, nCtx, std::min<uint32_t>(kMaxBatch, nCtx), 1, 0, kvCellType(options.kvCacheType));
    if (!cache)
        return cache.status().withContext(s->m_model->info().path);
    s->m_cache = std::move(cache.value());
    auto forward = Forward::create(c, s->m_model->weights(), *s->m_cache, *s->m_pool,
                                   static_cast<int>(std::min<uint32_t>(kMaxBatch, nCtx)), options.flashAttention);
    if (!forward)
        return forward.status();
    s->m_forward = std::move(forward.value());
    SessionImpl *self = s.get();
    s->m_forward->setCancelCheck([self] { return self->cancelRequested(); });
    s->m_logits.assign(c.nVocab, 0.0f);
    s->m_tokens.reserve(nCtx);
    return s;
}

uint32_t SessionImpl::contextSize() const
{
    return m_cache->capacity();
}

void SessionImpl::reset()
{
    m_cache->setSize(0);
    m_tokens.clear();
}

class SessionImpl::CallScope {
public:
    CallScope(SessionImpl &s, const CancelToken *request) : m_s(s)
    {
        std::lock_guard<std::mutex> lock(m_s.m_callMutex);
        m_s.m_busy = true;
        m_s.m_cancel.store(false, std::memory_order_release);
        m_s.m_requestCancel = request;
    }
    ~CallScope()
    {
        std::lock_guard<std::mutex> lock(m_s.m_callMutex);
        m_s.m_busy = false;
        m_s.m_cancel.store(false, std::memory_order_release);
        m_s.m_requestCancel = nullptr;
    }
    CallScope(const CallScope &) = delete;
    CallScope &operator=(const CallScope &) = delete;

private:
    SessionImpl &m_s;
};

void SessionImpl::cancel()
{
    std::lock_guard<std::mutex> lock(m_callMutex);
    if (m_busy)
        m_cancel.store(true, std::memory_order_release);
}

bool SessionImpl::cancelRequested() const
{
    return m_cancel.load(std::memory_order_acquire) || (m_requestCancel && m_requestCancel->isCancelled());
}

Status SessionImpl::checkPrompt(const std::vector<Token> &prompt) const
{
    if (prompt.empty())
        return Status::error("the prompt is empty, expected at least one token");
    if (prompt.size() > m_cache->capacity())
        return Status::error("the prompt has " + std::to_string(prompt.size()) +
                             " tokens, more than the context size of " + std::to_string(m_cache->capacity()) +
                             " tokens");
    const uint32_t nVocab = m_model->config().nVocab;
    for (size_t i = 0; i < prompt.size(); ++i)
        if (prompt[i] < 0 || static_cast<uint32_t>(prompt[i]) >= nVocab)
            return Status::error("prompt token " + std::to_string(i) + " is " + std::to_string(prompt[i]) +
                                 ", outside the vocabulary (0.." + std::to_string(nVocab - 1) + ")");
    return Status::ok();
}

Status SessionImpl::evalPrompt(const std::vector<Token> &prompt, Timings *timings,
                               const ProgressCallback &onProgress)
{
    if (Status s = checkPrompt(prompt); !s)
        return s;
    if (cancelRequested())
        return Status::cancelled();   // before anything is evaluated (the cache is untouched)
    // Reuse the longest common prefix; at least the last token is recomputed
    // (its logits are needed).
    size_t keep = 0;
    while (keep < m_tokens.size() && keep < prompt.size() && m_tokens[keep] == prompt[keep])
        ++keep;
    keep = std::min(keep, prompt.size() - 1);
    // (A sliding-window layer may no longer hold the keys that position `keep`
    // needs; a recurrent state is only had at its length and its snapshots.)
    keep = m_cache->reusableLength(0, static_cast<uint32_t>(keep));
    // Recurrent layers: the state before the prompt's last token is kept (a
    // snapshot), so the same prompt again (a regenerated reply) or one that
    // changes only after it (an edited last message) starts from there.
    runtime::RecurrentState *recurrent = m_cache->recurrent();
    m_cache->setSize(static_cast<uint32_t>(keep));
    m_tokens.resize(keep);

    const auto t0 = std::chrono::steady_clock::now();
    const int total = static_cast<int>(prompt.size() - keep);
    int done = 0;
    const auto noteTimings = [&] {
        if (timings) {
            timings->promptTokens = done;
            timings->reusedTokens = static_cast<int32_t>(keep);
            timings->promptMs = msSince(t0);
        }
    };
    if (onProgress)
        onProgress(0, total);
    while (done < total) {
        if (cancelRequested()) {
            noteTimings();
            return Status::cancelled();
        }
        int n = std::min(total - done, m_forward->maxBatch());
        if (recurrent && done + n == total && n > 1)
            --n;   // the last token alone, after a snapshot of the state before it
        if (recurrent && done == total - 1)
            recurrent->snapshot(0, m_cache->size());
        const bool last = done + n == total;
        const Token *batch = prompt.data() + keep + done;
        if (Status s = m_forward->eval(batch, n, last ? m_logits.data() : nullptr); !s) {
            m_tokens.resize(m_cache->size());   // the cache holds what was computed before the failure
            noteTimings();
            return s;
        }
        m_tokens.insert(m_tokens.end(), batch, batch + n);
        done += n;
        if (onProgress)
            onProgress(done, total);
    }
    noteTimings();
    return Status::ok();
}

Status SessionImpl::evaluate(const std::vector<Token> &prompt, std::vector<float> *logits)
{
    CallScope call(*this, nullptr);
    if (Status s = evalPrompt(prompt, nullptr, {}); !s)
        return s;
    if (logits)
        *logits = m_logits;
    return Status::ok();
}

bool SessionImpl::shiftContext(int32_t nKeep)
{
    // A recurrent state cannot drop its oldest tokens: no shift (the reply
    // ends with STOP_REASON_CONTEXT_FULL).
    if (m_cache->recurrent())
        return false;
    // Keep the first nKeep tokens (BOS always), drop half of the rest.
    const uint32_t size = m_cache->size();
    uint32_t keep = static_cast<uint32_t>(std::max(nKeep, 0));
    const Token bos = m_model->addedBos();
    if (bos >= 0 && !m_tokens.empty() && m_tokens[0] == bos)
        keep = std::max<uint32_t>(keep, 1);
    keep = std::min(keep, size);
    const uint32_t left = size - keep;
    const uint32_t discard = left / 2;
    if (discard == 0)
        return false;
    const model::Weights &w = m_model->weights();
    m_cache->removeAndShift(keep, keep + discard, w.ropeFreqs ? w.ropeFreqs.f32() : nullptr, *m_pool);
    m_tokens.erase(m_tokens.begin() + keep, m_tokens.begin() + keep + discard);
    return true;
}

Status SessionImpl::generate(const std::vector<Token> &prompt, const SamplingParams &sampling,
                             const GenerateOptions &options, const TextCallback &onText, GenerateResult *result,
                             const ProgressCallback &onPromptProgress)
{
    CallScope call(*this, options.cancel.get());
    GenerateResult local;
    GenerateResult &r = result ? *result : local;
    r = GenerateResult{};

    auto chain = sampling::Chain::create(sampling, m_model->config().nVocab, m_cache->capacity());
    if (!chain)
        return chain.status();
    if (Status s = evalPrompt(prompt, &r.timings, onPromptProgress); !s) {
        if (s.isCancelled()) {
            r.stopReason = StopReason::STOP_REASON_CANCELLED;
            return Status::ok();
        }
        return s;
    }
    for (Token t : prompt)
        chain.value()->accept(t);
    // Reserved up front so the loop does not grow them token by token.
    const size_t expected = options.maxTokens >= 0 ? static_cast<size_t>(options.maxTokens) : m_cache->capacity();
    r.tokens.reserve(std::min<size_t>(expected, 1u << 16));
    r.text.reserve(std::min<size_t>(expected * 8, 1u << 20));

    std::unique_ptr<TokenTextStream> stream = m_model->newTextStream();
    ReplyOutput out(options, onText, r);

    const auto t0 = std::chrono::steady_clock::now();
    r.stopReason = StopReason::STOP_REASON_MAX_TOKENS;
    for (;;) {
        if (options.maxTokens >= 0 && static_cast<int32_t>(r.tokens.size()) >= options.maxTokens) {
            r.stopReason = StopReason::STOP_REASON_MAX_TOKENS;
            break;
        }
        if (cancelRequested()) {
            r.stopReason = StopReason::STOP_REASON_CANCELLED;
            break;
        }
        const Token token = chain.value()->sample(m_logits.data());
        chain.value()->accept(token);
        if (m_model->isEndOfGeneration(token)) {
            r.stopReason = StopReason::STOP_REASON_END_OF_GENERATION;
            break;
        }
        r.tokens.push_back(token);
        // A token is reasoning when the reply is inside the reasoning
        // before or after it (so the markers count as reasoning).
        const bool wasReasoning = out.inReasoning();
        out.push(stream->push(token));
        if (wasReasoning || out.inReasoning()) {
            ++r.timings.reasoningTokens;
            r.timings.reasoningMs = msSince(t0);
        }
        if (out.stopped())
            break;   // a stop string matched or a callback asked to stop (reason set)
        if (options.maxTokens >= 0 && static_cast<int32_t>(r.tokens.size()) >= options.maxTokens) {
            r.stopReason = StopReason::STOP_REASON_MAX_TOKENS;
            break;
        }
        if (m_cache->size() >= m_cache->capacity()) {
            if (options.overflow == ContextOverflow::CONTEXT_OVERFLOW_STOP || !shiftContext(options.nKeep)) {
                r.stopReason = StopReason::STOP_REASON_CONTEXT_FULL;
                break;
            }
        }
        if (Status s = m_forward->eval(&token, 1, m_logits.data()); !s) {
            m_tokens.resize(m_cache->size());
            if (!s.isCancelled())
                return s;
            r.stopReason = StopReason::STOP_REASON_CANCELLED;   // the token was shown but not evaluated
            break;
        }
        m_tokens.push_back(token);
    }
    out.finish(stream->finish());
    r.timings.generatedTokens = static_cast<int32_t>(r.tokens.size());
    r.timings.generateMs = msSince(t0);
    return Status::ok();
}

} // namespace burrow::api
