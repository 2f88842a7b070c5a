// CompletionJob: prompt building and submission (see completion_job.h).
#include "server/completion_job.h"

namespace burrow::server {

std::variant<std::shared_ptr<CompletionJob>, ApiError> CompletionJob::prepare(std::shared_ptr<const Model> model,
                                                                              uint32_t contextSize, ApiRequest request,
                                                                              std::shared_ptr<const CancelToken> cancel)
{
    std::shared_ptr<CompletionJob> job(new CompletionJob());
    job->m_model = model;
    GenerateOptions &o = job->m_options;
    if (request.endpoint == Endpoint::ENDPOINT_CHAT_COMPLETIONS) {
        PromptOptions p;
        p.render.enableThinking = request.enableThinking;
        p.render.reasoningEffort = request.reasoningEffort;
        p.render.kwargsJson = request.templateKwargsJson;
        p.budget = 0;   // measured below, so the error names the sizes
        p.render.cancel = std::move(cancel);
        auto built = buildChatPrompt(*model, request.messages, p);
        if (!built)
            return ApiError::badRequest("messages: " + built.message(), "messages");
        job->m_prompt = std::move(built->tokens);
        o.stopStrings = built->format.stopStrings;
        o.reasoning = built->reasoning;
        o.nKeep = built->keepTokens;
    } else {
        // No token of any vocabulary is this long: a prompt with more bytes
        // than this cannot fit, and is refused without spending seconds on
        // tokenizing it (tokenizing is the one step a stop cannot cut short).
        constexpr size_t MAX_BYTES_PER_TOKEN = 256;
        if (request.prompt.size() / MAX_BYTES_PER_TOKEN >= contextSize)
            return ApiError::badRequest("the prompt has " + std::to_string(request.prompt.size()) +
                                            " bytes: more tokens than this server's context holds (" +
                                            std::to_string(contextSize) + ", prompt and reply together)",
                                        "prompt", "context_length_exceeded");
        job->m_prompt = model->tokenize(request.prompt, true, true);
    }
    if (job->m_prompt.empty())
        return ApiError::badRequest("the prompt is empty", request.endpoint == Endpoint::ENDPOINT_COMPLETIONS ? "prompt" : "messages");
    if (job->m_prompt.size() >= contextSize)
        return ApiError::badRequest("the prompt has " + std::to_string(job->m_prompt.size()) +
                                        " tokens; this server's context holds " + std::to_string(contextSize) +
                                        " (prompt and reply together)",
                                    request.endpoint == Endpoint::ENDPOINT_COMPLETIONS ? "prompt" : "messages",
                                    "context_length_exceeded");
    for (const std::string &s : request.stop)
        o.stopStrings.push_back(s);
    o.maxTokens = request.maxTokens;
    o.overflow = ContextOverflow::CONTEXT_OVERFLOW_STOP;
    job->m_request = std::move(request);
    return job;
}

std::optional<ApiError> CompletionJob::submit(Scheduler &scheduler, int32_t priority, JobSink sink)
{
    m_scheduler = &scheduler;
    m_sink = std::move(sink);
    std::vector<RequestId> ids;
    // The callbacks hold the job (its cancel flag and sink); the scheduler
    // drops them after onDone.
    const std::shared_ptr<CompletionJob> self = shared_from_this();
    const auto emit = [](const std::shared_ptr<CompletionJob> &job, JobEvent &&e) {
        if (!job->m_abandoned.load(std::memory_order_acquire))
            job->m_sink(std::move(e));
    };
    for (int32_t i = 0; i < m_request.n; ++i) {
        Request r;
        r.prompt = m_prompt;
        r.sampling = m_request.sampling;
        // Choices differ by seed (seed + i) when a seed was given.
        if (r.sampling.seed != 0xFFFFFFFFu && i > 0)
            r.sampling.seed =
                static_cast<uint32_t>((uint64_t{r.sampling.seed} + static_cast<uint64_t>(i)) % 0xFFFFFFFFull);
        r.options = m_options;
        r.priority = priority;
        const auto piece = [self, emit, i](JobEvent::Kind kind) {
            return [self, emit, i, kind](std::string_view text) {
                if (self->cancelled())
                    return false;
                JobEvent e;
                e.kind = kind;
                e.choice = i;
                e.text.assign(text);
                emit(self, std::move(e));
                return true;
            };
        };
        r.onText = piece(JobEvent::Kind::KIND_TEXT);
        r.options.onReasoning = piece(JobEvent::Kind::KIND_REASONING);
        r.onDone = [self, emit, i](const GenerateResult &result, const Status &status) {
            JobEvent e;
            e.kind = JobEvent::Kind::KIND_DONE;
            e.choice = i;
            e.result = result;
            e.status = status;
            emit(self, std::move(e));
        };
        auto submitted = scheduler.submit(std::move(r));
        if (!submitted) {
            // Nothing of this job may stay queued: the earlier choices are
            // cancelled and their events dropped.
            m_abandoned.store(true, std::memory_order_release);
            m_cancelled.store(true, std::memory_order_release);
            for (RequestId id : ids)
                scheduler.cancel(id);
            if (submitted.status().isBusy())
                return ApiError::busy("the server is busy (" + submitted.message() + "); retry shortly");
            return ApiError::badRequest(submitted.message());
        }
        ids.push_back(submitted.value());
        std::lock_guard lock(m_mutex);
        m_ids.push_back(submitted.value());
    }
    if (cancelled())
        cancel();   // a cancel that came while submitting
    return std::nullopt;
}

void CompletionJob::cancel()
{
    m_cancelled.store(true, std::memory_order_release);
    std::vector<RequestId> ids;
    {
        std::lock_guard lock(m_mutex);
        ids = m_ids;
    }
    if (m_scheduler)
        for (RequestId id : ids)
            m_scheduler->cancel(id);
}

} // namespace burrow::server
