// The C API (burrow/burrow.h) over the C++ engine (burrow/engine.h).
//
// Every entry point runs its body through guarded(): a Status error or any
// exception becomes the thread-local last-error text and the documented
// failure value, so nothing unwinds into C callers.
#include "burrow/burrow.h"

#include <algorithm>
#include <cstdint>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "burrow/engine.h"

struct burrow_model {
    std::shared_ptr<burrow::Model> model;
};

struct burrow_session {
    std::shared_ptr<burrow::Model> model;      // keeps the weights alive after burrow_model_free()
    std::unique_ptr<burrow::Session> session;
    std::string piece;                          // NUL-terminated copy handed to the text callback
};

struct burrow_cancel_token {
    std::shared_ptr<burrow::CancelToken> token = std::make_shared<burrow::CancelToken>();
};

// One request's output, filled on the scheduler thread, pulled by the
// caller. Shared by the caller's handle and the request's callbacks, so
// either may go first.
struct StreamState {
    struct Piece {
        burrow_stream_part part;
        std::string text;
    };
    std::mutex mutex;
    std::condition_variable cv;
    std::deque<Piece> pieces;
    size_t offset = 0;                          // into pieces.front()
    bool done = false;
    burrow::GenerateResult result;
    burrow::Status status;
    std::shared_ptr<burrow::CancelToken> cancel = std::make_shared<burrow::CancelToken>();
};

struct burrow_stream {
    std::shared_ptr<StreamState> state;
    std::weak_ptr<burrow::Scheduler> scheduler;   // for burrow_stream_set_priority (gone: a no-op)
    burrow::RequestId id = 0;
};

struct burrow_scheduler {
    std::shared_ptr<burrow::Scheduler> scheduler;
};

struct burrow_chat_prompt {
    burrow::ChatPrompt prompt;
    std::vector<const char *> stopStrings;     // into prompt.format.stopStrings
};

namespace {

thread_local std::string t_lastError;

void setError(std::string message) { t_lastError = std::move(message); }

// The value a caller stored in a C enum field, read as its bytes: a C caller
// may store any int there, and loading an out-of-range value through the C++
// enum type is undefined (UBSan: "not a valid value"). Compare the result with
// the enumerators before converting.
template <typename E>
int rawEnum(const E &field) noexcept
{
    static_assert(sizeof(E) == sizeof(int), "C enums are int-sized on our targets");
    int value = 0;
    std::memcpy(&value, &field, sizeof value);
    return value;
}

// Runs `body`; on an exception records it and returns `failure`.
template <typename T, typename Body>
T guarded(const char *function, T failure, Body &&body) noexcept
{
    try {
        return body();
    } catch (const std::bad_alloc &) {
        setError(std::string(function) + ": out of memory");
    } catch (const std::exception &e) {
        setError(std::string(function) + ": " + e.what());
    } catch (...) {
        setError(std::string(function) + ": unknown internal error");
    }
    return failure;
}

template <typename Body>
void guardedVoid(const char *function, Body &&body) noexcept
{
    guarded<int>(function, 0, [&] { body(); return 0; });
}

burrow::SamplingParams toSampling(const burrow_sampling_params &c)
{
    burrow::SamplingParams p;
    p.temperature = c.temperature;
    p.topK = c.top_k;
    p.topP = c.top_p;
    p.minP = c.min_p;
    p.typicalP = c.typical_p;
    p.repeatPenalty = c.repeat_penalty;
    p.penaltyLastN = c.penalty_last_n;
    p.frequencyPenalty = c.frequency_penalty;
    p.presencePenalty = c.presence_penalty;
    p.mirostat = c.mirostat;
    p.mirostatTau = c.mirostat_tau;
    p.mirostatEta = c.mirostat_eta;
    p.seed = c.seed;
    return p;
}

burrow_stop_reason toC(burrow::StopReason reason)
{
    switch (reason) {
    case burrow::StopReason::STOP_REASON_END_OF_GENERATION: return BURROW_STOP_REASON_END_OF_GENERATION;
    case burrow::StopReason::STOP_REASON_MAX_TOKENS: return BURROW_STOP_REASON_MAX_TOKENS;
    case burrow::StopReason::STOP_REASON_STOP_STRING: return BURROW_STOP_REASON_STOP_STRING;
    case burrow::StopReason::STOP_REASON_CANCELLED: return BURROW_STOP_REASON_CANCELLED;
    case burrow::StopReason::STOP_REASON_CONTEXT_FULL: return BURROW_STOP_REASON_CONTEXT_FULL;
    }
    return BURROW_STOP_REASON_END_OF_GENERATION;
}

burrow::ReasoningSyntax toReasoning(burrow_reasoning_syntax syntax)
{
    switch (syntax) {
    case BURROW_REASONING_SYNTAX_THINK_TAGS: return burrow::ReasoningSyntax::REASONING_SYNTAX_THINK_TAGS;
    case BURROW_REASONING_SYNTAX_HARMONY: return burrow::ReasoningSyntax::REASONING_SYNTAX_HARMONY;
    case BURROW_REASONING_SYNTAX_GEMMA4_CHANNEL: return burrow::ReasoningSyntax::REASONING_SYNTAX_GEMMA4_CHANNEL;
    case BURROW_REASONING_SYNTAX_NONE: break;
    }
    return burrow::ReasoningSyntax::REASONING_SYNTAX_NONE;
}

burrow_reasoning_syntax toC(burrow::ReasoningSyntax syntax)
{
    switch (syntax) {
    case burrow::ReasoningSyntax::REASONING_SYNTAX_THINK_TAGS: return BURROW_REASONING_SYNTAX_THINK_TAGS;
    case burrow::ReasoningSyntax::REASONING_SYNTAX_HARMONY: return BURROW_REASONING_SYNTAX_HARMONY;
    case burrow::ReasoningSyntax::REASONING_SYNTAX_GEMMA4_CHANNEL: return BURROW_REASONING_SYNTAX_GEMMA4_CHANNEL;
    case burrow::ReasoningSyntax::REASONING_SYNTAX_NONE: break;
    }
    return BURROW_REASONING_SYNTAX_NONE;
}

bool checkTokens(const char *function, const burrow::Model &model, const burrow_token *tokens, int32_t n)
{
    if (n < 0) {
        setError(std::string(function) + ": token count is " + std::to_string(n) + ", expected >= 0");
        return false;
    }
    if (n > 0 && tokens == nullptr) {
        setError(std::string(function) + ": tokens is NULL with a count of " + std::to_string(n));
        return false;
    }
    const int64_t vocab = model.vocabSize();
    for (int32_t i = 0; i < n; ++i) {
        if (tokens[i] < 0 || tokens[i] >= vocab) {
            setError(std::string(function) + ": token " + std::to_string(i) + " is " + std::to_string(tokens[i])
                     + ", expected an id in [0, " + std::to_string(vocab) + ")");
            return false;
        }
    }
    return true;
}

} // namespace

extern "C" {

const char *burrow_version(void) { return BURROW_VERSION; }

const char *burrow_last_error(void) { return t_lastError.c_str(); }

// ---- models -----------------------------------------------------------------

burrow_model *burrow_model_load(const char *path, burrow_progress_callback progress, void *user_data)
{
    return guarded<burrow_model *>("burrow_model_load", nullptr, [&]() -> burrow_model * {
        if (path == nullptr) {
            setError("burrow_model_load: path is NULL");
            return nullptr;
        }
        burrow::LoadOptions options;
        if (progress != nullptr)
            options.progress = [progress, user_data](float value) { return progress(value, user_data); };
        auto loaded = burrow::Model::load(path, options);
        if (!loaded) {
            // The message must say which file failed, whatever layer produced it.
            std::string message = loaded.message();
            if (message.find(path) == std::string::npos)
                message = std::string(path) + ": " + message;
            setError(std::move(message));
            return nullptr;
        }
        auto *handle = new burrow_model;
        handle->model = std::move(loaded).value();
        return handle;
    });
}

void burrow_model_free(burrow_model *model)
{
    guardedVoid("burrow_model_free", [&] { delete model; });
}

const char *burrow_model_architecture(const burrow_model *model)
{
    return guarded<const char *>("burrow_model_architecture", "", [&]() -> const char * {
        if (model == nullptr) {
            setError("burrow_model_architecture: model is NULL");
            return "";
        }
        return model->model->info().architecture.c_str();
    });
}

int32_t burrow_model_vocab_size(const burrow_model *model)
{
    if (model == nullptr) {
        setError("burrow_model_vocab_size: model is NULL");
        return -1;
    }
    return static_cast<int32_t>(model->model->vocabSize());
}

int32_t burrow_model_context_length(const burrow_model *model)
{
    if (model == nullptr) {
        setError("burrow_model_context_length: model is NULL");
        return -1;
    }
    return static_cast<int32_t>(model->model->info().contextLength);
}

burrow_token burrow_model_bos(const burrow_model *model)
{
    return model == nullptr ? -1 : model->model->info().bosId;
}

burrow_token burrow_model_eos(const burrow_model *model)
{
    return model == nullptr ? -1 : model->model->info().eosId;
}

bool burrow_model_is_end_of_generation(const burrow_model *model, burrow_token token)
{
    return guarded<bool>("burrow_model_is_end_of_generation", false, [&] {
        if (model == nullptr || token < 0 || static_cast<int64_t>(token) >= model->model->vocabSize())
            return false;
        return model->model->isEndOfGeneration(token);
    });
}

// ---- tokenizer --------------------------------------------------------------

int32_t burrow_tokenize(const burrow_model *model, const char *text, size_t text_length,
                        burrow_token *tokens, int32_t capacity, bool add_special, bool parse_special)
{
    return guarded<int32_t>("burrow_tokenize", -1, [&]() -> int32_t {
        if (model == nullptr) {
            setError("burrow_tokenize: model is NULL");
            return -1;
        }
        if (text == nullptr && text_length > 0) {
            setError("burrow_tokenize: text is NULL with a length of " + std::to_string(text_length));
            return -1;
        }
        if (capacity < 0 || (capacity > 0 && tokens == nullptr)) {
            setError("burrow_tokenize: capacity is " + std::to_string(capacity)
                     + (tokens == nullptr ? " with tokens NULL" : "") + ", expected >= 0 and a buffer");
            return -1;
        }
        const std::string_view view(text == nullptr ? "" : text, text_length);
        const std::vector<burrow::Token> result = model->model->tokenize(view, add_special, parse_special);
        if (result.size() > static_cast<size_t>(INT32_MAX)) {
            setError("burrow_tokenize: the text has more than 2^31 tokens");
            return -1;
        }
        const size_t written = std::min(result.size(), static_cast<size_t>(capacity));
        if (written > 0)
            std::memcpy(tokens, result.data(), written * sizeof(burrow_token));
        return static_cast<int32_t>(result.size());
    });
}

int64_t burrow_detokenize(const burrow_model *model, const burrow_token *tokens, int32_t n_tokens,
                          char *text, size_t capacity)
{
    return guarded<int64_t>("burrow_detokenize", -1, [&]() -> int64_t {
        if (model == nullptr) {
            setError("burrow_detokenize: model is NULL");
            return -1;
        }
        if (!checkTokens("burrow_detokenize", *model->model, tokens, n_tokens))
            return -1;
        if (capacity > 0 && text == nullptr) {
            setError("burrow_detokenize: text is NULL with a capacity of " + std::to_string(capacity));
            return -1;
        }
        const std::string result =
            model->model->detokenize(std::vector<burrow::Token>(tokens, tokens + n_tokens));
        if (result.size() < capacity) {
            std::memcpy(text, result.data(), result.size());
            text[result.size()] = '\0';
        }
        return static_cast<int64_t>(result.size());
    });
}

// ---- sessions ---------------------------------------------------------------

namespace {

// The C enum as the engine's; false (and the error set) for a value outside it.
// (An int32_t field, not the enum: a C caller may store any number there,
// and loading it as the enum would be undefined in C++.)
bool toKvCacheType(const char *where, int32_t in, burrow::KvCacheType *out)
{
    if (in == BURROW_KV_CACHE_F16) {
        *out = burrow::KvCacheType::KV_CACHE_F16;
        return true;
    }
    if (in == BURROW_KV_CACHE_Q8_0) {
        *out = burrow::KvCacheType::KV_CACHE_Q8_0;
        return true;
    }
    setError(std::string(where) + ": kv_cache_type " + std::to_string(in) +
             " is not BURROW_KV_CACHE_F16 (0) or BURROW_KV_CACHE_Q8_0 (1)");
    return false;
}

} // namespace

burrow_session_params burrow_session_default(void)
{
    const burrow::SessionOptions defaults;
    burrow_session_params params;
    params.context_size = defaults.contextSize;
    params.threads = defaults.threads;
    params.kv_cache_type = BURROW_KV_CACHE_F16;
    return params;
}

burrow_session *burrow_session_create(burrow_model *model, const burrow_session_params *params)
{
    return guarded<burrow_session *>("burrow_session_create", nullptr, [&]() -> burrow_session * {
        if (model == nullptr) {
            setError("burrow_session_create: model is NULL");
            return nullptr;
        }
        const burrow_session_params p = params != nullptr ? *params : burrow_session_default();
        burrow::SessionOptions options;
        options.contextSize = p.context_size;
        options.threads = p.threads;
        if (!toKvCacheType("burrow_session_create", p.kv_cache_type, &options.kvCacheType))
            return nullptr;
        auto created = burrow::Session::create(model->model, options);
        if (!created) {
            setError("burrow_session_create: " + created.message());
            return nullptr;
        }
        auto *handle = new burrow_session;
        handle->model = model->model;
        handle->session = std::move(created).value();
        return handle;
    });
}

void burrow_session_free(burrow_session *session)
{
    guardedVoid("burrow_session_free", [&] { delete session; });
}

void burrow_session_reset(burrow_session *session)
{
    guardedVoid("burrow_session_reset", [&] {
        if (session != nullptr)
            session->session->reset();
    });
}

int32_t burrow_session_context_size(const burrow_session *session)
{
    if (session == nullptr) {
        setError("burrow_session_context_size: session is NULL");
        return -1;
    }
    return static_cast<int32_t>(session->session->contextSize());
}

// ---- sampling ---------------------------------------------------------------

burrow_sampling_params burrow_sampling_default(void)
{
    const burrow::SamplingParams d;
    burrow_sampling_params p;
    p.temperature = d.temperature;
    p.top_k = d.topK;
    p.top_p = d.topP;
    p.min_p = d.minP;
    p.typical_p = d.typicalP;
    p.repeat_penalty = d.repeatPenalty;
    p.penalty_last_n = d.penaltyLastN;
    p.frequency_penalty = d.frequencyPenalty;
    p.presence_penalty = d.presencePenalty;
    p.mirostat = d.mirostat;
    p.mirostat_tau = d.mirostatTau;
    p.mirostat_eta = d.mirostatEta;
    p.seed = d.seed;
    return p;
}

// ---- generation -------------------------------------------------------------

burrow_generate_params burrow_generate_default(void)
{
    const burrow::GenerateOptions d;
    burrow_generate_params p;
    p.max_tokens = d.maxTokens;
    p.stop_strings = nullptr;
    p.n_stop_strings = 0;
    p.overflow = d.overflow == burrow::ContextOverflow::CONTEXT_OVERFLOW_STOP ? BURROW_CONTEXT_OVERFLOW_STOP
                                                                             : BURROW_CONTEXT_OVERFLOW_SHIFT;
    p.n_keep = d.nKeep;
    p.cancel = nullptr;
    p.reasoning_syntax = BURROW_REASONING_SYNTAX_NONE;
    p.starts_in_reasoning = false;
    p.reasoning_callback = nullptr;
    p.reasoning_user_data = nullptr;
    p.speculative = BURROW_SPECULATIVE_AUTO;
    p.draft_max = d.speculative.draftMax;
    p.draft_model = nullptr;
    return p;
}

namespace {

// The C generate parameters as GenerateOptions (without the callbacks);
// false with the error set when a field is invalid.
bool toOptions(const char *fn, const burrow_generate_params &p, burrow::GenerateOptions *out)
{
    out->maxTokens = p.max_tokens;
    out->nKeep = p.n_keep;
    const int overflow = rawEnum(p.overflow);
    if (overflow == BURROW_CONTEXT_OVERFLOW_STOP)
        out->overflow = burrow::ContextOverflow::CONTEXT_OVERFLOW_STOP;
    else if (overflow == BURROW_CONTEXT_OVERFLOW_SHIFT)
        out->overflow = burrow::ContextOverflow::CONTEXT_OVERFLOW_SHIFT;
    else {
        setError(std::string(fn) + ": overflow is " + std::to_string(overflow)
                 + ", expected BURROW_CONTEXT_OVERFLOW_STOP or _SHIFT");
        return false;
    }
    if (p.n_stop_strings > 0 && p.stop_strings == nullptr) {
        setError(std::string(fn) + ": stop_strings is NULL with n_stop_strings " + std::to_string(p.n_stop_strings));
        return false;
    }
    for (size_t i = 0; i < p.n_stop_strings; ++i) {
        if (p.stop_strings[i] == nullptr) {
            setError(std::string(fn) + ": stop_strings[" + std::to_string(i) + "] is NULL");
            return false;
        }
        out->stopStrings.emplace_back(p.stop_strings[i]);
    }
    const int syntax = rawEnum(p.reasoning_syntax);
    if (syntax != BURROW_REASONING_SYNTAX_NONE && syntax != BURROW_REASONING_SYNTAX_THINK_TAGS
        && syntax != BURROW_REASONING_SYNTAX_HARMONY && syntax != BURROW_REASONING_SYNTAX_GEMMA4_CHANNEL) {
        setError(std::string(fn) + ": reasoning_syntax is " + std::to_string(syntax)
                 + ", expected a BURROW_REASONING_SYNTAX_ value");
        return false;
    }
    if (p.cancel != nullptr)
        out->cancel = p.cancel->token;
    const int spec = rawEnum(p.speculative);
    if (spec != BURROW_SPECULATIVE_AUTO && spec != BURROW_SPECULATIVE_NGRAM && spec != BURROW_SPECULATIVE_OFF &&
        spec != BURROW_SPECULATIVE_DRAFT) {
        setError(std::string(fn) + ": speculative is " + std::to_string(spec)
                 + ", expected a BURROW_SPECULATIVE_ value");
        return false;
    }
    out->speculative.mode = spec == BURROW_SPECULATIVE_NGRAM ? burrow::SpeculativeMode::SPECULATIVE_NGRAM
                            : spec == BURROW_SPECULATIVE_OFF ? burrow::SpeculativeMode::SPECULATIVE_OFF
                            : spec == BURROW_SPECULATIVE_DRAFT ? burrow::SpeculativeMode::SPECULATIVE_DRAFT
                                                               : burrow::SpeculativeMode::SPECULATIVE_AUTO;
    out->speculative.draftMax = p.draft_max;
    if (p.draft_model != nullptr)
        out->speculative.draftModel = p.draft_model;
    out->reasoning.syntax = toReasoning(p.reasoning_syntax);
    out->reasoning.startsInReasoning = p.starts_in_reasoning;
    return true;
}

void toC(const burrow::GenerateResult &generated, burrow_generate_result *result)
{
    result->stop_reason = toC(generated.stopReason);
    result->generated_tokens = generated.timings.generatedTokens;
    result->prompt_tokens = generated.timings.promptTokens;
    result->reused_tokens = generated.timings.reusedTokens;
    result->prompt_ms = generated.timings.promptMs;
    result->generate_ms = generated.timings.generateMs;
    result->reasoning_tokens = generated.timings.reasoningTokens;
    result->reasoning_ms = generated.timings.reasoningMs;
    result->drafted_tokens = generated.timings.draftedTokens;
    result->accepted_tokens = generated.timings.acceptedTokens;
}

} // namespace

int burrow_generate(burrow_session *session, const burrow_token *prompt, int32_t n_prompt,
                    const burrow_sampling_params *sampling, const burrow_generate_params *params,
                    burrow_text_callback callback, void *user_data, burrow_generate_result *result)
{
    return guarded<int>("burrow_generate", -1, [&]() -> int {
        if (session == nullptr) {
            setError("burrow_generate: session is NULL");
            return -1;
        }
        if (!checkTokens("burrow_generate", *session->model, prompt, n_prompt))
            return -1;

        const burrow_generate_params p = params != nullptr ? *params : burrow_generate_default();
        burrow::GenerateOptions options;
        if (!toOptions("burrow_generate", p, &options))
            return -1;
        if (p.reasoning_callback != nullptr) {
            options.onReasoning = [session, p](std::string_view piece) {
                session->piece.assign(piece.data(), piece.size());
                return p.reasoning_callback(session->piece.c_str(), session->piece.size(), p.reasoning_user_data);
            };
        }

        const burrow::SamplingParams samplingParams =
            sampling != nullptr ? toSampling(*sampling) : burrow::SamplingParams{};

        burrow::TextCallback onText = [session, callback, user_data](std::string_view piece) {
            if (callback == nullptr)
                return true;
            session->piece.assign(piece.data(), piece.size());   // NUL-terminated for C
            return callback(session->piece.c_str(), session->piece.size(), user_data);
        };

        burrow::GenerateResult generated;
        const std::vector<burrow::Token> tokens(prompt, prompt + n_prompt);
        const burrow::Status status = session->session->generate(tokens, samplingParams, options, onText, &generated);
        if (result != nullptr)
            toC(generated, result);
        if (!status) {
            setError("burrow_generate: " + status.message());
            return -1;
        }
        return 0;
    });
}

int32_t burrow_evaluate(burrow_session *session, const burrow_token *prompt, int32_t n_prompt,
                        float *logits, int32_t capacity)
{
    return guarded<int32_t>("burrow_evaluate", -1, [&]() -> int32_t {
        if (session == nullptr) {
            setError("burrow_evaluate: session is NULL");
            return -1;
        }
        if (!checkTokens("burrow_evaluate", *session->model, prompt, n_prompt))
            return -1;
        if (capacity < 0 || (capacity > 0 && logits == nullptr)) {
            setError("burrow_evaluate: capacity is " + std::to_string(capacity) + ", expected >= 0 and a buffer");
            return -1;
        }
        std::vector<float> out;
        const burrow::Status status =
            session->session->evaluate(std::vector<burrow::Token>(prompt, prompt + n_prompt), &out);
        if (!status) {
            setError("burrow_evaluate: " + status.message());
            return -1;
        }
        const size_t written = std::min(out.size(), static_cast<size_t>(capacity));
        if (written > 0)
            std::memcpy(logits, out.data(), written * sizeof(float));
        return static_cast<int32_t>(out.size());
    });
}

void burrow_cancel(burrow_session *session)
{
    guardedVoid("burrow_cancel", [&] {
        if (session != nullptr)
            session->session->cancel();
    });
}

// ---- cancel tokens ----------------------------------------------------------

burrow_cancel_token *burrow_cancel_token_create(void)
{
    return guarded<burrow_cancel_token *>("burrow_cancel_token_create", nullptr,
                                          [] { return new burrow_cancel_token; });
}

void burrow_cancel_token_cancel(burrow_cancel_token *token)
{
    if (token != nullptr)
        token->token->cancel();   // one atomic store: no allocation, no lock
}

bool burrow_cancel_token_is_cancelled(const burrow_cancel_token *token)
{
    return token != nullptr && token->token->isCancelled();
}

void burrow_cancel_token_free(burrow_cancel_token *token)
{
    guardedVoid("burrow_cancel_token_free", [&] { delete token; });
}

// ---- prompt building --------------------------------------------------------

burrow_prompt_params burrow_prompt_default(void)
{
    const burrow::PromptOptions d;
    burrow_prompt_params p;
    p.chat_format = "auto";
    p.plain_text_for_base_models = d.plainTextForBaseModels;
    p.budget = d.budget;
    p.truncation = BURROW_TRUNCATION_DROP_OLDEST;
    return p;
}

burrow_chat_prompt *burrow_build_chat_prompt(const burrow_model *model, const burrow_chat_message *messages,
                                             size_t n_messages, const burrow_prompt_params *params)
{
    return guarded<burrow_chat_prompt *>("burrow_build_chat_prompt", nullptr, [&]() -> burrow_chat_prompt * {
        if (model == nullptr) {
            setError("burrow_build_chat_prompt: model is NULL");
            return nullptr;
        }
        if (n_messages > 0 && messages == nullptr) {
            setError("burrow_build_chat_prompt: messages is NULL with n_messages " + std::to_string(n_messages));
            return nullptr;
        }
        const burrow_prompt_params p = params != nullptr ? *params : burrow_prompt_default();
        burrow::PromptOptions options;
        options.render.chatFormat = p.chat_format != nullptr ? p.chat_format : "auto";
        options.plainTextForBaseModels = p.plain_text_for_base_models;
        options.budget = p.budget;
        const int truncation = rawEnum(p.truncation);
        if (truncation == BURROW_TRUNCATION_DROP_OLDEST)
            options.truncation = burrow::Truncation::TRUNCATION_DROP_OLDEST;
        else if (truncation == BURROW_TRUNCATION_REFUSE)
            options.truncation = burrow::Truncation::TRUNCATION_REFUSE;
        else {
            setError("burrow_build_chat_prompt: truncation is " + std::to_string(truncation)
                     + ", expected BURROW_TRUNCATION_DROP_OLDEST or _REFUSE");
            return nullptr;
        }
        std::vector<burrow::ChatMessage> conversation;
        conversation.reserve(n_messages);
        for (size_t i = 0; i < n_messages; ++i) {
            const burrow_chat_message &m = messages[i];
            if (m.role == nullptr) {
                setError("burrow_build_chat_prompt: messages[" + std::to_string(i) + "].role is NULL");
                return nullptr;
            }
            burrow::ChatMessage converted;
            converted.role = m.role;
            converted.content = m.content != nullptr ? m.content : "";
            converted.reasoning = m.reasoning != nullptr ? m.reasoning : "";
            conversation.push_back(std::move(converted));
        }
        auto built = burrow::buildChatPrompt(*model->model, conversation, options);
        if (!built) {
            setError("burrow_build_chat_prompt: " + built.message());
            return nullptr;
        }
        if (built->tokens.size() > static_cast<size_t>(INT32_MAX)) {
            setError("burrow_build_chat_prompt: the prompt has more than 2^31 tokens");
            return nullptr;
        }
        auto *handle = new burrow_chat_prompt;
        handle->prompt = std::move(built).value();
        for (const std::string &stop : handle->prompt.format.stopStrings)
            handle->stopStrings.push_back(stop.c_str());
        return handle;
    });
}

void burrow_chat_prompt_free(burrow_chat_prompt *prompt)
{
    guardedVoid("burrow_chat_prompt_free", [&] { delete prompt; });
}

const burrow_token *burrow_chat_prompt_tokens(const burrow_chat_prompt *prompt)
{
    return prompt == nullptr ? nullptr : prompt->prompt.tokens.data();
}

int32_t burrow_chat_prompt_n_tokens(const burrow_chat_prompt *prompt)
{
    return prompt == nullptr ? -1 : static_cast<int32_t>(prompt->prompt.tokens.size());
}

int32_t burrow_chat_prompt_keep_tokens(const burrow_chat_prompt *prompt)
{
    return prompt == nullptr ? 0 : prompt->prompt.keepTokens;
}

size_t burrow_chat_prompt_first_message(const burrow_chat_prompt *prompt)
{
    return prompt == nullptr ? 0 : prompt->prompt.firstMessage;
}

size_t burrow_chat_prompt_dropped_messages(const burrow_chat_prompt *prompt)
{
    return prompt == nullptr ? 0 : prompt->prompt.droppedMessages;
}

const char *burrow_chat_prompt_format(const burrow_chat_prompt *prompt)
{
    return prompt == nullptr ? "" : prompt->prompt.format.name.c_str();
}

const char *burrow_chat_prompt_format_reason(const burrow_chat_prompt *prompt)
{
    return prompt == nullptr ? "" : prompt->prompt.format.reason.c_str();
}

burrow_reasoning_syntax burrow_chat_prompt_reasoning(const burrow_chat_prompt *prompt, bool *starts_in_reasoning)
{
    if (starts_in_reasoning != nullptr)
        *starts_in_reasoning = prompt != nullptr && prompt->prompt.reasoning.startsInReasoning;
    return prompt == nullptr ? BURROW_REASONING_SYNTAX_NONE : toC(prompt->prompt.reasoning.syntax);
}

void burrow_chat_prompt_apply(const burrow_chat_prompt *prompt, burrow_generate_params *params)
{
    if (prompt == nullptr || params == nullptr)
        return;
    params->stop_strings = prompt->stopStrings.empty() ? nullptr : prompt->stopStrings.data();
    params->n_stop_strings = prompt->stopStrings.size();
    params->n_keep = prompt->prompt.keepTokens;
    params->reasoning_syntax = toC(prompt->prompt.reasoning.syntax);
    params->starts_in_reasoning = prompt->prompt.reasoning.startsInReasoning;
}

} // extern "C"

// ---- the scheduler ----------------------------------------------------------

burrow_scheduler_params burrow_scheduler_default(void)
{
    const burrow::SchedulerOptions d;
    burrow_scheduler_params p;
    p.context_size = d.contextSize;
    p.parallel = d.parallel;
    p.kv_positions = d.kvPositions;
    p.batch_tokens = d.batchTokens;
    p.threads = d.threads;
    p.max_queued = d.maxQueued;
    p.kv_cache_type = BURROW_KV_CACHE_F16;
    return p;
}

burrow_scheduler *burrow_scheduler_create(burrow_model *model, const burrow_scheduler_params *params)
{
    return guarded<burrow_scheduler *>("burrow_scheduler_create", nullptr, [&]() -> burrow_scheduler * {
        if (model == nullptr) {
            setError("burrow_scheduler_create: model is NULL");
            return nullptr;
        }
        const burrow_scheduler_params p = params != nullptr ? *params : burrow_scheduler_default();
        burrow::SchedulerOptions o;
        o.contextSize = p.context_size;
        o.parallel = p.parallel;
        o.kvPositions = p.kv_positions;
        o.batchTokens = p.batch_tokens;
        o.threads = p.threads;
        o.maxQueued = p.max_queued;
        if (!toKvCacheType("burrow_scheduler_create", p.kv_cache_type, &o.kvCacheType))
            return nullptr;
        auto s = burrow::Scheduler::create(model->model, o);
        if (!s) {
            setError("burrow_scheduler_create: " + s.status().message());
            return nullptr;
        }
        auto *out = new burrow_scheduler;
        out->scheduler = std::move(s.value());
        return out;
    });
}

void burrow_scheduler_free(burrow_scheduler *scheduler)
{
    delete scheduler;   // the last owner joins the thread; streams hold their own reference
}

burrow_stream *burrow_scheduler_submit(burrow_scheduler *scheduler, const burrow_token *prompt, int32_t n_prompt,
                                       const burrow_sampling_params *sampling, const burrow_generate_params *params,
                                       int32_t priority, bool *busy)
{
    if (busy != nullptr)
        *busy = false;
    return guarded<burrow_stream *>("burrow_scheduler_submit", nullptr, [&]() -> burrow_stream * {
        if (scheduler == nullptr) {
            setError("burrow_scheduler_submit: scheduler is NULL");
            return nullptr;
        }
        if (n_prompt < 0 || (n_prompt > 0 && prompt == nullptr)) {
            setError("burrow_scheduler_submit: prompt is NULL or n_prompt " + std::to_string(n_prompt) + " < 0");
            return nullptr;
        }
        const burrow_generate_params p = params != nullptr ? *params : burrow_generate_default();
        burrow::Request r;
        if (!toOptions("burrow_scheduler_submit", p, &r.options))
            return nullptr;
        r.options.overflow = burrow::ContextOverflow::CONTEXT_OVERFLOW_STOP;   // as burrow.h promises
        r.prompt.assign(prompt, prompt + n_prompt);
        r.sampling = sampling != nullptr ? toSampling(*sampling) : burrow::SamplingParams{};
        r.priority = priority;
        auto state = std::make_shared<StreamState>();
        // The caller's cancel token, if any, is checked at every piece; the
        // stream's own is the request's.
        std::shared_ptr<const burrow::CancelToken> callerToken = r.options.cancel;
        r.options.cancel = state->cancel;
        const auto push = [state, callerToken](burrow_stream_part part, std::string_view text) {
            std::lock_guard<std::mutex> lock(state->mutex);
            state->pieces.push_back({part, std::string(text)});
            state->cv.notify_all();
            return !(callerToken && callerToken->isCancelled());
        };
        r.onText = [push](std::string_view t) { return push(BURROW_STREAM_PART_ANSWER, t); };
        r.options.onReasoning = [push](std::string_view t) { return push(BURROW_STREAM_PART_REASONING, t); };
        r.onDone = [state](const burrow::GenerateResult &res, const burrow::Status &st) {
            std::lock_guard<std::mutex> lock(state->mutex);
            state->result = res;
            state->status = st;
            state->done = true;
            state->cv.notify_all();
        };
        auto id = scheduler->scheduler->submit(std::move(r));
        if (!id) {
            if (busy != nullptr)
                *busy = id.status().isBusy();
            setError("burrow_scheduler_submit: " + id.status().message());
            return nullptr;
        }
        auto *stream = new burrow_stream;
        stream->state = std::move(state);
        stream->scheduler = scheduler->scheduler;
        stream->id = id.value();
        return stream;
    });
}

int32_t burrow_stream_read(burrow_stream *stream, char *buf, size_t capacity, int32_t timeout_ms,
                           burrow_stream_part *part)
{
    return guarded<int32_t>("burrow_stream_read", -1, [&]() -> int32_t {
        if (stream == nullptr || (capacity > 0 && buf == nullptr) || capacity == 0) {
            setError("burrow_stream_read: stream or buf is NULL, or capacity is 0");
            return -1;
        }
        StreamState &st = *stream->state;
        std::unique_lock<std::mutex> lock(st.mutex);
        const auto ready = [&] { return !st.pieces.empty() || st.done; };
        if (timeout_ms < 0)
            st.cv.wait(lock, ready);
        else if (!st.cv.wait_for(lock, std::chrono::milliseconds(timeout_ms), ready))
            return -2;
        if (st.pieces.empty()) {
            if (!st.status) {
                setError("burrow_stream_read: " + st.status.message());
                return -1;
            }
            return 0;
        }
        StreamState::Piece &piece = st.pieces.front();
        // Leave room for the NUL when the rest fits; never more than INT32_MAX.
        const size_t left = piece.text.size() - st.offset;
        size_t n = std::min(left, capacity);
        if (n == capacity && n > 1 && left >= capacity)
            n = capacity - 1;
        n = std::min<size_t>(n, 1u << 30);
        std::memcpy(buf, piece.text.data() + st.offset, n);
        if (n < capacity)
            buf[n] = '\0';
        if (part != nullptr)
            *part = piece.part;
        st.offset += n;
        if (st.offset == piece.text.size()) {
            st.pieces.pop_front();
            st.offset = 0;
        }
        return static_cast<int32_t>(n);
    });
}

int burrow_stream_result(const burrow_stream *stream, burrow_generate_result *result)
{
    return guarded<int>("burrow_stream_result", -1, [&]() -> int {
        if (stream == nullptr) {
            setError("burrow_stream_result: stream is NULL");
            return -1;
        }
        StreamState &st = *stream->state;
        std::lock_guard<std::mutex> lock(st.mutex);
        if (!st.done) {
            setError("burrow_stream_result: the request has not ended yet");
            return -1;
        }
        if (!st.status) {
            setError("burrow_stream_result: " + st.status.message());
            return -1;
        }
        if (result != nullptr)
            toC(st.result, result);
        return 0;
    });
}

void burrow_stream_set_priority(burrow_stream *stream, int32_t priority)
{
    if (stream == nullptr)
        return;
    if (auto scheduler = stream->scheduler.lock())
        scheduler->setPriority(stream->id, priority);
}

void burrow_stream_cancel(burrow_stream *stream)
{
    if (stream != nullptr)
        stream->state->cancel->cancel();
}

void burrow_stream_free(burrow_stream *stream)
{
    if (stream == nullptr)
        return;
    stream->state->cancel->cancel();
    delete stream;
}
