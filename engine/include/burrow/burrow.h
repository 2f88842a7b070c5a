/* Burrow's engine as a C API (C99/C11 and C++), for embedding from other
 * languages. It wraps the C++ API in burrow/engine.h.
 *
 * Handles are opaque. A burrow_model is immutable after loading and may be
 * shared by any number of sessions and threads. A burrow_session (one KV
 * cache, one sampler) is used by one thread at a time; only burrow_cancel()
 * may be called on it from another thread. A burrow_cancel_token stops the
 * one request it is given to, from any thread.
 *
 * Compatibility: structs only grow at their end; take them from their
 * burrow_*_default() function so new fields get their defaults.
 *
 * Errors: functions that can fail return NULL or a negative value; the text of
 * the error is then burrow_last_error() on the same thread. Nothing here
 * throws, aborts or calls exit() on bad input.
 *
 * Strings are UTF-8. Lifetimes: a session keeps its model alive, so
 * burrow_model_free() may be called while sessions still use the model; the
 * memory goes when the last of them is freed.
 */
#ifndef BURROW_H
#define BURROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t burrow_token;
typedef struct burrow_model burrow_model;
typedef struct burrow_session burrow_session;
typedef struct burrow_cancel_token burrow_cancel_token;
typedef struct burrow_chat_prompt burrow_chat_prompt;

/* "0.1.0" */
const char *burrow_version(void);

/* Text of the last error on this thread ("" when none). Valid until the next
 * failing call on this thread; successful calls do not clear it. */
const char *burrow_last_error(void);

/* ---- models ------------------------------------------------------------- */

/* Called on the loading thread with progress in 0..1; return false to cancel. */
typedef bool (*burrow_progress_callback)(float progress, void *user_data);

/* Maps and validates a .gguf file. NULL on failure (the error names the file).
 * `progress` may be NULL. */
burrow_model *burrow_model_load(const char *path, burrow_progress_callback progress, void *user_data);
/* NULL is a no-op. */
void burrow_model_free(burrow_model *model);

/* general.architecture, e.g. "llama"; owned by the model. */
const char *burrow_model_architecture(const burrow_model *model);
int32_t burrow_model_vocab_size(const burrow_model *model);
/* Trained context length. */
int32_t burrow_model_context_length(const burrow_model *model);
/* -1 when the vocabulary has none. */
burrow_token burrow_model_bos(const burrow_model *model);
burrow_token burrow_model_eos(const burrow_model *model);
bool burrow_model_is_end_of_generation(const burrow_model *model, burrow_token token);

/* ---- tokenizer ---------------------------------------------------------- */

/* Tokenizes text[0..text_length). add_special: BOS (and EOS) as the
 * vocabulary says; parse_special: control tokens written in the text become
 * their token. Writes at most `capacity` tokens and returns how many the text
 * has (call again with a larger buffer when that is > capacity); -1 on error. */
int32_t burrow_tokenize(const burrow_model *model, const char *text, size_t text_length,
                        burrow_token *tokens, int32_t capacity, bool add_special, bool parse_special);

/* Writes the text of tokens[0..n_tokens) and a NUL when length < capacity
 * (nothing otherwise). Returns the length in bytes without the NUL (call
 * again with capacity > length when it did not fit); -1 on error (a token id
 * outside the vocabulary). */
int64_t burrow_detokenize(const burrow_model *model, const burrow_token *tokens, int32_t n_tokens,
                          char *text, size_t capacity);

/* ---- sessions ----------------------------------------------------------- */

/* What the KV cache stores: F16 (the default), or Q8_0 (17/32 of the
 * memory, within the quantized tolerance of F16; see docs/models.md). */
typedef enum burrow_kv_cache_type {
    BURROW_KV_CACHE_F16 = 0,
    BURROW_KV_CACHE_Q8_0 = 1,
} burrow_kv_cache_type;

typedef struct burrow_session_params {
    uint32_t context_size; /* positions in the KV cache; clamped to the trained context (default 4096) */
    int32_t threads;       /* 0: all physical cores */
    int32_t kv_cache_type;   /* a burrow_kv_cache_type (default F16); another value fails the create */
} burrow_session_params;

burrow_session_params burrow_session_default(void);

/* Allocates the KV cache; NULL on failure (e.g. not enough memory).
 * `params` may be NULL for the defaults. */
burrow_session *burrow_session_create(burrow_model *model, const burrow_session_params *params);
/* NULL is a no-op. Must not race with a running burrow_generate(). */
void burrow_session_free(burrow_session *session);
/* Forgets the KV cache. */
void burrow_session_reset(burrow_session *session);
int32_t burrow_session_context_size(const burrow_session *session);

/* ---- sampling ----------------------------------------------------------- */

/* See docs/sampling.md. Stage order: penalties, top-k, typical, top-p,
 * min-p, temperature, then a seeded draw; temperature <= 0 is greedy. */
typedef struct burrow_sampling_params {
    float temperature;        /* 0.8; <= 0: greedy (argmax) */
    int32_t top_k;            /* 40; <= 0: off */
    float top_p;              /* 0.95; 1: off */
    float min_p;              /* 0.05; 0: off */
    float typical_p;          /* 1.0 (off) */
    float repeat_penalty;     /* 1.0 (off) */
    int32_t penalty_last_n;   /* 64; -1: whole context, 0: penalties off */
    float frequency_penalty;  /* 0 */
    float presence_penalty;   /* 0 */
    int32_t mirostat;         /* 0 off, 1 or 2 (mirostat replaces the stages above) */
    float mirostat_tau;       /* 5.0 */
    float mirostat_eta;       /* 0.1 */
    uint32_t seed;            /* 0xFFFFFFFF: random */
} burrow_sampling_params;

burrow_sampling_params burrow_sampling_default(void);

/* ---- generation --------------------------------------------------------- */

typedef enum burrow_context_overflow {
    BURROW_CONTEXT_OVERFLOW_STOP = 0,   /* stop when the context is full */
    BURROW_CONTEXT_OVERFLOW_SHIFT = 1,  /* keep n_keep tokens, drop half of the rest, go on */
} burrow_context_overflow;

/* Receives each UTF-8-complete piece of generated text: `piece` is
 * NUL-terminated and `length` bytes long (without the NUL); it is valid only
 * during the call. Return true to go on, false to stop. */
typedef bool (*burrow_text_callback)(const char *piece, size_t length, void *user_data);

/* How a model's replies mark their reasoning (see burrow_chat_prompt_reasoning). */
typedef enum burrow_reasoning_syntax {
    BURROW_REASONING_SYNTAX_NONE = 0,        /* the whole reply is the answer */
    BURROW_REASONING_SYNTAX_THINK_TAGS = 1,  /* "<think>" reasoning "</think>" answer (Qwen3, DeepSeek R1) */
    BURROW_REASONING_SYNTAX_HARMONY = 2,     /* gpt-oss channels: "analysis" reasoning, "final" answer */
    BURROW_REASONING_SYNTAX_GEMMA4_CHANNEL = 3, /* Gemma 4: "<|channel>thought\n" reasoning "<channel|>" answer */
} burrow_reasoning_syntax;

/* Speculative decoding: draft tokens verified in one pass with the next
 * token; the reply is the same token for token as without (see
 * docs/architecture.md). */
typedef enum burrow_speculative_mode {
    BURROW_SPECULATIVE_AUTO = 0,        /* the best drafter the file allows: MTP where it has a block, else n-gram */
    BURROW_SPECULATIVE_NGRAM = 1,       /* prompt lookup: continuations copied from the conversation */
    BURROW_SPECULATIVE_OFF = 2,
    BURROW_SPECULATIVE_MTP = 3,         /* the file's multi-token-prediction block (qwen35), or Gemma 4's
                                           assistant named in draft_model; an error without either */
    BURROW_SPECULATIVE_DRAFT = 4,       /* a smaller model with the same vocabulary (draft_model) */
} burrow_speculative_mode;

typedef struct burrow_generate_params {
    int32_t max_tokens;                 /* -1 (default): until end of generation or a full context */
    const char *const *stop_strings;    /* n_stop_strings NUL-terminated UTF-8 strings; may be NULL */
    size_t n_stop_strings;
    burrow_context_overflow overflow;   /* default SHIFT */
    int32_t n_keep;                     /* default 0 (BOS is always kept) */
    /* This request's cancel token (default NULL: only burrow_cancel()). */
    const burrow_cancel_token *cancel;
    /* Splits the reply into reasoning and answer (default NONE: all answer).
     * The answer goes to the text callback, the reasoning (without its
     * markers) to reasoning_callback (default NULL: not streamed). Stop
     * strings apply to the answer only. */
    burrow_reasoning_syntax reasoning_syntax;
    bool starts_in_reasoning;           /* the prompt opened the reasoning block (default false) */
    burrow_text_callback reasoning_callback;
    void *reasoning_user_data;
    burrow_speculative_mode speculative; /* default AUTO */
    int32_t draft_max;                  /* most draft tokens per step, 0..16 (default 8; 0: none) */
    /* BURROW_SPECULATIVE_DRAFT: the draft model's .gguf path (UTF-8; default
     * NULL). Loaded by the first request that names it and kept beside the
     * model; a file whose vocabulary differs fails the request. A Gemma 4
     * assistant (gemma4-assistant file) here drafts under MTP, AUTO or
     * DRAFT for the Gemma 4 model it fits (else the request fails). */
    const char *draft_model;
} burrow_generate_params;

burrow_generate_params burrow_generate_default(void);

typedef enum burrow_stop_reason {
    BURROW_STOP_REASON_END_OF_GENERATION = 0,
    BURROW_STOP_REASON_MAX_TOKENS = 1,
    BURROW_STOP_REASON_STOP_STRING = 2,
    BURROW_STOP_REASON_CANCELLED = 3,   /* burrow_cancel() or the callback returned false */
    BURROW_STOP_REASON_CONTEXT_FULL = 4,
} burrow_stop_reason;

typedef struct burrow_generate_result {
    burrow_stop_reason stop_reason;
    int32_t generated_tokens;
    int32_t prompt_tokens;              /* prompt tokens computed (after prefix reuse) */
    int32_t reused_tokens;              /* prompt tokens taken from the KV cache */
    double prompt_ms;
    double generate_ms;
    int32_t reasoning_tokens;           /* generated tokens that were reasoning */
    double reasoning_ms;                /* from the first generated token to the end of the reasoning */
    int32_t drafted_tokens;             /* draft tokens verified (speculative decoding) */
    int32_t accepted_tokens;            /* of them, accepted */
} burrow_generate_result;

/* Evaluates prompt[0..n_prompt) (the whole conversation so far; the prefix
 * shared with the previous call is reused from the KV cache), then samples
 * until a stop condition, streaming text to `callback` (may be NULL).
 * `sampling` and `params` may be NULL for the defaults; `result` may be NULL.
 * Returns 0, or -1 on error (e.g. a prompt longer than the context). */
int burrow_generate(burrow_session *session, const burrow_token *prompt, int32_t n_prompt,
                    const burrow_sampling_params *sampling, const burrow_generate_params *params,
                    burrow_text_callback callback, void *user_data, burrow_generate_result *result);

/* Logits for the next token after prompt[0..n_prompt) (with prefix reuse).
 * Writes min(vocab size, capacity) floats; returns the vocabulary size, or -1. */
int32_t burrow_evaluate(burrow_session *session, const burrow_token *prompt, int32_t n_prompt,
                        float *logits, int32_t capacity);

/* Thread-safe: a running burrow_generate() or burrow_evaluate() on this
 * session stops at its next check (between the layers of a prompt chunk,
 * between tokens): generate returns 0 with BURROW_STOP_REASON_CANCELLED,
 * evaluate -1. No effect on later calls (a cancel while idle is lost; use a
 * burrow_cancel_token to cancel a request that has not started yet). */
void burrow_cancel(burrow_session *session);

/* ---- cancel tokens ------------------------------------------------------ */

/* One per request (burrow_generate_params.cancel): burrow_cancel_token_cancel()
 * from any thread stops the request holding it at its next check (a request
 * given an already cancelled token evaluates nothing). A cancelled token stays
 * cancelled; make a new one for the next request. NULL on out of memory. */
burrow_cancel_token *burrow_cancel_token_create(void);
/* Thread-safe and async-signal-safe (may be called from a signal handler). */
void burrow_cancel_token_cancel(burrow_cancel_token *token);
bool burrow_cancel_token_is_cancelled(const burrow_cancel_token *token);
/* NULL is a no-op. Not while a request that holds it runs. */
void burrow_cancel_token_free(burrow_cancel_token *token);

/* ---- prompt building ---------------------------------------------------- */

typedef struct burrow_chat_message {
    const char *role;       /* "system", "user", "assistant", "tool", ... */
    const char *content;    /* UTF-8; NULL is "" */
    const char *reasoning;  /* an assistant turn's reasoning; NULL or "" for none */
} burrow_chat_message;

typedef enum burrow_truncation {
    /* Keep the leading system messages and the newest turns; drop whole
     * exchanges from the oldest (the kept part starts with a user message). */
    BURROW_TRUNCATION_DROP_OLDEST = 0,
    /* Fail (the error names the sizes) when the conversation does not fit. */
    BURROW_TRUNCATION_REFUSE = 1,
} burrow_truncation;

typedef struct burrow_prompt_params {
    const char *chat_format;            /* "auto" (default; NULL is "auto"), or a built-in format name */
    bool plain_text_for_base_models;    /* "auto" on a base model: plain text (default false) */
    uint32_t budget;                    /* most tokens the prompt may have; 0 (default): no limit */
    burrow_truncation truncation;       /* default DROP_OLDEST */
} burrow_prompt_params;

burrow_prompt_params burrow_prompt_default(void);

/* Renders messages[0..n_messages) (oldest first; the reply continues after
 * the last) in the chosen chat format, tokenizes and fits the result into
 * params->budget (see burrow::buildChatPrompt in engine.h). `params` may be
 * NULL for the defaults. NULL on error: an unknown format, a template error,
 * a conversation that does not fit. Free with burrow_chat_prompt_free(). */
burrow_chat_prompt *burrow_build_chat_prompt(const burrow_model *model, const burrow_chat_message *messages,
                                             size_t n_messages, const burrow_prompt_params *params);
/* NULL is a no-op. */
void burrow_chat_prompt_free(burrow_chat_prompt *prompt);

/* The prompt's tokens (valid while `prompt` lives) and their count. */
const burrow_token *burrow_chat_prompt_tokens(const burrow_chat_prompt *prompt);
int32_t burrow_chat_prompt_n_tokens(const burrow_chat_prompt *prompt);
/* Leading tokens of the system prompt (for burrow_generate_params.n_keep). */
int32_t burrow_chat_prompt_keep_tokens(const burrow_chat_prompt *prompt);
/* messages[first..] are in the prompt, with the leading system messages;
 * `dropped` non-system messages before it were left out (0: none). */
size_t burrow_chat_prompt_first_message(const burrow_chat_prompt *prompt);
size_t burrow_chat_prompt_dropped_messages(const burrow_chat_prompt *prompt);
/* The format that rendered it ("template", "chatml", ..., "plain") and why,
 * for a human; owned by the prompt. */
const char *burrow_chat_prompt_format(const burrow_chat_prompt *prompt);
const char *burrow_chat_prompt_format_reason(const burrow_chat_prompt *prompt);
/* How the reply marks its reasoning; *starts_in_reasoning (may be NULL):
 * the prompt ends inside an open reasoning block. */
burrow_reasoning_syntax burrow_chat_prompt_reasoning(const burrow_chat_prompt *prompt, bool *starts_in_reasoning);

/* Sets what the prompt decides in `params`: stop_strings / n_stop_strings
 * (the format's, owned by the prompt: keep it alive while generating),
 * n_keep, reasoning_syntax and starts_in_reasoning. Other fields stay. */
void burrow_chat_prompt_apply(const burrow_chat_prompt *prompt, burrow_generate_params *params);

/* ---- many requests at once: the scheduler ----------------------------------
 * A scheduler serves many requests over one model from its own thread
 * (continuous batching over a paged KV cache; see docs/architecture.md).
 * Each request's output is a stream the caller pulls from any thread. */

typedef struct burrow_scheduler burrow_scheduler;
typedef struct burrow_stream burrow_stream;

typedef struct burrow_scheduler_params {
    uint32_t context_size;   /* positions per sequence at most (default 4096) */
    int32_t parallel;        /* sequences generating at once (default 4) */
    uint32_t kv_positions;   /* KV cache positions in all; 0 (default): context_size * parallel */
    int32_t batch_tokens;    /* rows per forward pass (default 512) */
    int32_t threads;         /* 0: all physical cores */
    int32_t max_queued;      /* waiting requests beyond which submit fails as busy (default 64) */
    int32_t kv_cache_type;   /* a burrow_kv_cache_type (default F16); another value fails the create */
} burrow_scheduler_params;

burrow_scheduler_params burrow_scheduler_default(void);
/* NULL on failure (burrow_last_error()). `params` may be NULL. The model may
 * be freed after this; the scheduler keeps it alive. */
burrow_scheduler *burrow_scheduler_create(burrow_model *model, const burrow_scheduler_params *params);
/* Cancels what is left, waits for the thread; streams stay readable (they
 * end as cancelled) until freed. NULL is a no-op. */
void burrow_scheduler_free(burrow_scheduler *scheduler);

/* Queues a request: prompt[0..n_prompt), the sampling and generate
 * parameters (NULL for defaults; the callbacks in `params` are not used:
 * read the stream instead; overflow SHIFT acts as STOP), a priority (higher
 * first). NULL on error; *busy (may be NULL) is set true when the queue is
 * full and the same call may succeed later. */
burrow_stream *burrow_scheduler_submit(burrow_scheduler *scheduler, const burrow_token *prompt, int32_t n_prompt,
                                       const burrow_sampling_params *sampling, const burrow_generate_params *params,
                                       int32_t priority, bool *busy);

typedef enum burrow_stream_part {
    BURROW_STREAM_PART_ANSWER = 0,
    BURROW_STREAM_PART_REASONING = 1,
} burrow_stream_part;

/* Waits up to timeout_ms (< 0: without limit) for the next piece of text and
 * copies up to `capacity` bytes of it into buf (NUL-terminated when there is
 * room; a longer piece continues in the next call). Returns the byte count
 * (> 0) and sets *part (may be NULL); 0 at the end (then
 * burrow_stream_result); -2 on a timeout; -1 on an error (the request failed:
 * burrow_last_error()). */
int32_t burrow_stream_read(burrow_stream *stream, char *buf, size_t capacity, int32_t timeout_ms,
                           burrow_stream_part *part);
/* After the end: the stop reason and timings; 0, or -1 when not ended yet or failed. */
int burrow_stream_result(const burrow_stream *stream, burrow_generate_result *result);
/* Thread-safe; the request stops within one scheduler step. */
void burrow_stream_cancel(burrow_stream *stream);
/* Thread-safe; the request runs at `priority` from the next scheduler step
 * (queue order, prompt chunks, preemption). No effect once it has ended or
 * its scheduler is freed; NULL is a no-op. */
void burrow_stream_set_priority(burrow_stream *stream, int32_t priority);
/* Cancels the request if still running. NULL is a no-op. */
void burrow_stream_free(burrow_stream *stream);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BURROW_H */
