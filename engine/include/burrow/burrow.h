/* Burrow's engine as a C API (C99/C11 and C++), for embedding from other
 * languages. It wraps the C++ API in burrow/engine.h.
 *
 * Handles are opaque. A burrow_model is immutable after loading and may be
 * shared by any number of sessions and threads. A burrow_session (one KV
 * cache, one sampler) is used by one thread at a time; only burrow_cancel()
 * may be called on it from another thread.
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

typedef struct burrow_session_params {
    uint32_t context_size; /* positions in the KV cache; clamped to the trained context (default 4096) */
    int32_t threads;       /* 0: all physical cores */
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

typedef struct burrow_generate_params {
    int32_t max_tokens;                 /* -1 (default): until end of generation or a full context */
    const char *const *stop_strings;    /* n_stop_strings NUL-terminated UTF-8 strings; may be NULL */
    size_t n_stop_strings;
    burrow_context_overflow overflow;   /* default SHIFT */
    int32_t n_keep;                     /* default 0 (BOS is always kept) */
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
} burrow_generate_result;

/* Receives each UTF-8-complete piece of generated text: `piece` is
 * NUL-terminated and `length` bytes long (without the NUL); it is valid only
 * during the call. Return true to go on, false to stop. */
typedef bool (*burrow_text_callback)(const char *piece, size_t length, void *user_data);

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

/* Thread-safe: a running burrow_generate() on this session returns within one
 * token with BURROW_STOP_REASON_CANCELLED. */
void burrow_cancel(burrow_session *session);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BURROW_H */
