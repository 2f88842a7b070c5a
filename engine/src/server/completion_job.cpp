// CompletionJob: prompt building and submission (see completion_job.h).
#include "server/completion_job.h"

#include <nlohmann/json.hpp>

namespace burrow::server {

namespace {

using json = nlohmann::ordered_json;

// The request's tools as the template variable `tools`, merged into the
// chat_template_kwargs (a client's own `tools` there is replaced).
std::string kwargsWithTools(const std::string &kwargsJson, const std::string &toolsJson)
{
    json kwargs = kwargsJson.empty() ? json::object() : json::parse(kwargsJson, nullptr, false);
    if (!kwargs.is_object())
        kwargs = json::object();
    kwargs["tools"] = json::parse(toolsJson, nullptr, false);
    return kwargs.dump(-1, ' ', false, json::error_handler_t::replace);
}

// Earlier assistant turns' tool calls as the family's templates read them:
// OpenAI clients send arguments as a JSON string; most templates iterate or
// tojson an object (a string that is not a JSON object stays a string); a
// turn without text has content "" or none (chat::toolCallContentIsNone).
void toolTurnsForTemplate(std::vector<ChatMessage> &messages, chat::ToolCallSyntax syntax)
{
    const bool asObject = chat::toolCallArgumentsAsObject(syntax);
    for (ChatMessage &m : messages) {
        if (m.extraJson.find("tool_calls") == std::string::npos)
            continue;
        json extra = json::parse(m.extraJson, nullptr, false);
        if (!extra.is_object() || !extra.contains("tool_calls") || !extra["tool_calls"].is_array())
            continue;
        if (m.content.empty() && chat::toolCallContentIsNone(syntax) && !extra.contains("content"))
            extra["content"] = nullptr;
        for (json &call : extra["tool_calls"]) {
            if (!call.is_object() || !asObject)
                continue;
            json *fn = call.contains("function") && call["function"].is_object() ? &call["function"] : &call;
            if (fn->contains("arguments") && (*fn)["arguments"].is_string()) {
                json parsed = json::parse((*fn)["arguments"].get<std::string>(), nullptr, false);
                if (parsed.is_object())
                    (*fn)["arguments"] = std::move(parsed);
            }
        }
        m.extraJson = extra.dump(-1, ' ', false, json::error_handler_t::replace);
    }
}

// The schema a required / named tool call must match: {"name": const,
// "arguments": parameters}, one branch per allowed tool.
std::string toolCallSchema(const ApiRequest &request)
{
    const json tools = json::parse(request.toolsJson, nullptr, false);
    json branches = json::array();
    for (const json &tool : tools) {
        const json &fn = tool["function"];
        const std::string name = fn["name"].get<std::string>();
        if (request.toolChoice == ApiRequest::ToolChoice::TOOL_CHOICE_NAMED && name != request.toolChoiceName)
            continue;
        json params = fn.contains("parameters") && fn["parameters"].is_object() ? fn["parameters"]
                                                                                : json{{"type", "object"}};
        branches.push_back(json{{"type", "object"},
                                {"properties", json{{"name", json{{"const", name}}}, {"arguments", std::move(params)}}},
                                {"required", json::array({"name", "arguments"})}});
    }
    json schema = branches.size() == 1 ? branches[0] : json{{"anyOf", std::move(branches)}};
    return schema.dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace

std::optional<ApiError> CompletionJob::compileGrammar(const std::shared_ptr<const Model> &model, ApiRequest &request)
{
    using F = ApiRequest::ResponseFormat;
    using C = ApiRequest::ToolChoice;
    std::string schema, param;
    GrammarOptions affixes;
    if (request.toolsActive() && (request.toolChoice == C::TOOL_CHOICE_REQUIRED || request.toolChoice == C::TOOL_CHOICE_NAMED)) {
        schema = toolCallSchema(request);
        param = "tools";
        if (m_toolCallSyntax == chat::ToolCallSyntax::TOOL_CALL_SYNTAX_TAGGED) {
            affixes.prefix = "<tool_call>\n";
            affixes.suffix = "\n</tool_call>";
        } else {
            m_toolCallSyntax = chat::ToolCallSyntax::TOOL_CALL_SYNTAX_JSON;   // the constrained reply is the bare call
        }
    } else if (request.responseFormat == F::RESPONSE_FORMAT_JSON_OBJECT) {
        schema = R"({"type": "object"})";
        param = "response_format";
    } else if (request.responseFormat == F::RESPONSE_FORMAT_JSON_SCHEMA) {
        schema = request.responseSchemaJson;
        param = "response_format.json_schema.schema";
    } else {
        return std::nullopt;
    }
    auto grammar = compileJsonSchemaGrammar(model, schema, affixes);
    if (!grammar)
        return ApiError::badRequest(param + ": " + grammar.message(), param, "unsupported_schema");
    request.sampling.grammar = std::move(grammar.value());
    return std::nullopt;
}

std::variant<std::shared_ptr<CompletionJob>, ApiError> CompletionJob::prepare(std::shared_ptr<const Model> model,
                                                                              uint32_t contextSize, ApiRequest request,
                                                                              std::shared_ptr<const CancelToken> cancel)
{
    std::shared_ptr<CompletionJob> job(new CompletionJob());
    job->m_model = model;
    GenerateOptions &o = job->m_options;
    if (isChat(request.endpoint)) {
        PromptOptions p;
        p.render.enableThinking = request.enableThinking;
        p.render.reasoningEffort = request.reasoningEffort;
        p.render.kwargsJson = request.templateKwargsJson;
        job->m_toolCallSyntax = chat::toolCallSyntaxForTemplate(model->info().chatTemplate);
        toolTurnsForTemplate(request.messages, job->m_toolCallSyntax);
        if (auto error = job->compileGrammar(model, request))
            return *error;
        // A constrained reply is the JSON from its first token: no reasoning
        // block before it (thinking templates render an empty one).
        if (request.sampling.grammar && !request.enableThinking)
            p.render.enableThinking = false;
        if (request.toolsActive()) {
            p.render.kwargsJson = kwargsWithTools(request.templateKwargsJson, request.toolsJson);
            o.renderedControlTokens = chat::toolCallControlTokens(job->m_toolCallSyntax);
        }
        p.budget = 0;   // measured below, so the error names the sizes
        p.render.cancel = std::move(cancel);
        auto built = buildChatPrompt(*model, request.messages, p);
        if (!built)
            return ApiError::badRequest("messages: " + built.message(), "messages");
        job->m_prompt = std::move(built->tokens);
        o.stopStrings = built->format.stopStrings;
        o.reasoning = built->reasoning;
        if (request.sampling.grammar)
            o.reasoning = ReasoningOptions{};
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
        if (auto error = job->compileGrammar(model, request))
            return *error;
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
        if (m_request.toolsActive())
            r.options.onToolCall = piece(JobEvent::Kind::KIND_TOOL_CALL);
        if (m_request.logprobs) {
            r.sampling.logprobs = m_request.topLogprobs;
            r.sampling.recordLogprobs = true;
            const std::shared_ptr<const Model> model = m_model;
            r.onLogprobs = [self, emit, i, model](const TokenLogprobs &entry) {
                if (self->cancelled())
                    return;
                JobEvent e;
                e.kind = JobEvent::Kind::KIND_LOGPROBS;
                e.choice = i;
                e.logprob.chosen = {model->tokenBytes(entry.token), entry.logprob};
                for (const TokenLogprob &t : entry.top)
                    e.logprob.top.push_back({model->tokenBytes(t.token), t.logprob});
                emit(self, std::move(e));
            };
        }
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
