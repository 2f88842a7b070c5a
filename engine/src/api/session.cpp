// burrow::Session: one conversation's generation, as a view over the
// scheduler (api/scheduler_impl.h, Mode::session()): one sequence slot, a
// KV cache for the whole context, steps driven on the calling thread, so
// callbacks run there and nothing else is started but the thread pool.
//
// What the view adds to the scheduler's loop (scheduler.cpp): the finished
// sequence stays in its slot (parked), so the next call reuses the longest
// prefix it shares with the new prompt, token by token (a recurrent state:
// at its length or its snapshots); a full context is shifted
// (ContextOverflow::CONTEXT_OVERFLOW_SHIFT: keep nKeep tokens and BOS, drop
// half of the rest, re-rope the kept keys) unless the request says stop.
//
// Cancellation: a call stops when its request's CancelToken or
// Session::cancel() says so, checked before anything is evaluated, between
// prompt chunks, between the layers of a chunk (the forward pass's cancel
// check) and between generated tokens. A chunk stopped inside is not kept:
// the KV cache holds the chunks completed before it, so the next call reuses
// them.
#include "api/session_impl.h"

#include "api/scheduler_impl.h"
#include "runtime/thread_pool.h"

#include <algorithm>

namespace burrow {

int physicalCoreCount()
{
    return runtime::ThreadPool::defaultThreadCount();
}

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

constexpr uint32_t kMaxBatch = 512;   // prompt tokens per forward pass (the reference's n_ubatch)

} // namespace

SessionImpl::SessionImpl() = default;
SessionImpl::~SessionImpl() = default;

Result<std::unique_ptr<SessionImpl>> SessionImpl::create(std::shared_ptr<const ModelImpl> model,
                                                         const SessionOptions &options)
{
    if (!model)
        return Status::error("Session::create: no model");
    if (options.kvCacheType == KvCacheType::KV_CACHE_Q8_0 && !options.flashAttention)
        return Status::error("Session::create: kvCacheType Q8_0 needs flashAttention (a quantized V cache is only "
                             "computed with flash attention); set flashAttention or use KV_CACHE_F16");
    const uint32_t train = model->config().nCtxTrain;
    const uint32_t nCtx = options.contextSize == 0 ? train : std::min(options.contextSize, train);
    SchedulerOptions o;
    o.contextSize = nCtx;
    o.parallel = 1;
    o.kvPositions = nCtx;
    o.batchTokens = static_cast<int32_t>(std::max<uint32_t>(1, std::min(kMaxBatch, nCtx)));
    o.prefillTokensWhileGenerating = o.batchTokens;
    o.threads = options.threads;
    o.flashAttention = options.flashAttention;
    o.kvCacheType = options.kvCacheType;
    o.maxQueued = 0;
    auto scheduler = SchedulerImpl::create(model, o, SchedulerImpl::Mode::session());
    if (!scheduler)
        return scheduler.status();
    std::unique_ptr<SessionImpl> s(new SessionImpl());
    s->m_scheduler = std::move(scheduler.value());
    SessionImpl *self = s.get();
    s->m_scheduler->setExternalCancel([self] { return self->cancelRequested(); });
    return s;
}

uint32_t SessionImpl::contextSize() const
{
    return m_scheduler->contextSize();
}

const std::vector<Token> &SessionImpl::cachedTokens() const
{
    return m_scheduler->heldTokens();
}

const runtime::KvCache &SessionImpl::kvCache() const
{
    return m_scheduler->kvCache();
}

void SessionImpl::reset()
{
    m_scheduler->forgetParked();
}

bool SessionImpl::shiftContext(int32_t nKeep)
{
    return m_scheduler->shiftParked(nKeep);
}

class SessionImpl::CallScope {
public:
    explicit CallScope(SessionImpl &s) : m_s(s)
    {
        std::lock_guard<std::mutex> lock(m_s.m_callMutex);
        m_s.m_busy = true;
        m_s.m_cancel.store(false, std::memory_order_release);
    }
    ~CallScope()
    {
        std::lock_guard<std::mutex> lock(m_s.m_callMutex);
        m_s.m_busy = false;
        m_s.m_cancel.store(false, std::memory_order_release);
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

Status SessionImpl::evaluate(const std::vector<Token> &prompt, std::vector<float> *logits)
{
    CallScope call(*this);
    Request request;
    request.prompt = prompt;
    request.options.maxTokens = 0;
    Status status = Status::ok();
    GenerateResult result;
    request.onDone = [&status](const GenerateResult &, const Status &st) { status = st; };
    std::vector<float> out;
    if (Status s = m_scheduler->drive(std::move(request), &result, logits ? &out : nullptr); !s)
        return s;
    if (!status)
        return status;
    if (result.stopReason == StopReason::STOP_REASON_CANCELLED)
        return Status::cancelled();
    if (logits)
        *logits = std::move(out);
    return Status::ok();
}

Status SessionImpl::generate(const std::vector<Token> &prompt, const SamplingParams &sampling,
                             const GenerateOptions &options, const TextCallback &onText, GenerateResult *result,
                             const ProgressCallback &onPromptProgress)
{
    CallScope call(*this);
    GenerateResult local;
    Request request;
    request.prompt = prompt;
    request.sampling = sampling;
    request.options = options;
    request.onText = onText;
    request.onPromptProgress = onPromptProgress;
    Status status = Status::ok();
    request.onDone = [&status](const GenerateResult &, const Status &st) { status = st; };
    // The reply is written into the caller's result as it grows.
    if (Status s = m_scheduler->drive(std::move(request), result ? result : &local); !s)
        return s;
    return status;
}

} // namespace burrow::api
