/* The C API used from plain C11: error paths, then greedy generation with
 * stories260K compared with the reference engine's output, cancel tokens
 * (before the start, from another thread, the next request unaffected) and
 * prompt building (plain text for a base model, truncation, refusal).
 *
 * usage: c_api_test MODEL.gguf REFERENCE.json
 * REFERENCE.json is ../shared/reference/generation/stories260K.0.json; the
 * expected prompt tokens, first greedy token and greedy text are read from it.
 * Exit: 0 pass, 1 fail, 77 skipped (the model or the reference is absent). */
#include "burrow/burrow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<threads.h>) && !defined(__STDC_NO_THREADS__)
#include <threads.h>
#define HAVE_C11_THREADS 1
#endif
#endif

static int g_failures = 0;

static void test_scheduler(burrow_model *model, const burrow_token *prompt, int32_t n_prompt, int32_t max_tokens,
                           const char *expected_text);

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);   \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
            ++g_failures;                                                     \
        }                                                                     \
    } while (0)

/* ---- minimal JSON reading (just what the reference file needs) ---------- */

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *data = NULL;
    size_t size = 0, cap = 0;
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (size + n + 1 > cap) {
            cap = (size + n + 1) * 2;
            char *grown = realloc(data, cap);
            if (!grown) {
                free(data);
                fclose(f);
                return NULL;
            }
            data = grown;
        }
        memcpy(data + size, chunk, n);
        size += n;
    }
    fclose(f);
    if (!data)
        data = calloc(1, 1);
    else
        data[size] = '\0';
    return data;
}

/* Points just after `"key"` and the following colon, or NULL. */
static const char *json_find_value(const char *json, const char *key)
{
    char quoted[128];
    snprintf(quoted, sizeof quoted, "\"%s\"", key);
    const char *at = strstr(json, quoted);
    if (!at)
        return NULL;
    at += strlen(quoted);
    while (*at == ' ' || *at == '\t' || *at == '\n' || *at == '\r')
        ++at;
    if (*at != ':')
        return NULL;
    ++at;
    while (*at == ' ' || *at == '\t' || *at == '\n' || *at == '\r')
        ++at;
    return at;
}

static size_t put_utf8(char *out, unsigned long cp)
{
    if (cp < 0x80) { out[0] = (char)cp; return 1; }
    if (cp < 0x800) { out[0] = (char)(0xC0 | (cp >> 6)); out[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12)); out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F)); return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18)); out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); out[3] = (char)(0x80 | (cp & 0x3F)); return 4;
}

static unsigned long read_hex4(const char *p)
{
    char hex[5] = {p[0], p[1], p[2], p[3], 0};
    return strtoul(hex, NULL, 16);
}

/* The string value of `key` (escapes decoded) in a malloc'd buffer, or NULL. */
static char *json_string(const char *json, const char *key)
{
    const char *p = json_find_value(json, key);
    if (!p || *p != '"')
        return NULL;
    ++p;
    char *out = malloc(strlen(p) * 2 + 1);   /* \uXXXX (6 bytes) never grows past 4 */
    if (!out)
        return NULL;
    size_t n = 0;
    while (*p && *p != '"') {
        if (*p != '\\') {
            out[n++] = *p++;
            continue;
        }
        ++p;
        switch (*p) {
        case 'n': out[n++] = '\n'; ++p; break;
        case 't': out[n++] = '\t'; ++p; break;
        case 'r': out[n++] = '\r'; ++p; break;
        case 'b': out[n++] = '\b'; ++p; break;
        case 'f': out[n++] = '\f'; ++p; break;
        case 'u': {
            if (strlen(p) < 5) { free(out); return NULL; }
            unsigned long cp = read_hex4(p + 1);
            p += 5;
            if (cp >= 0xD800 && cp < 0xDC00 && p[0] == '\\' && p[1] == 'u' && strlen(p) >= 6) {
                const unsigned long low = read_hex4(p + 2);
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                p += 6;
            }
            n += put_utf8(out + n, cp);
            break;
        }
        case '\0': free(out); return NULL;
        default: out[n++] = *p++; break;   /* \" \\ \/ */
        }
    }
    if (*p != '"') { free(out); return NULL; }
    out[n] = '\0';
    return out;
}

/* The integer array `key` into out[0..capacity); returns its length or -1. */
static int json_int_array(const char *json, const char *key, int *out, int capacity)
{
    const char *p = json_find_value(json, key);
    if (!p || *p != '[')
        return -1;
    ++p;
    int n = 0;
    for (;;) {
        while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t' || *p == ',')
            ++p;
        if (*p == ']')
            return n;
        char *end;
        const long value = strtol(p, &end, 10);
        if (end == p)
            return -1;
        if (n < capacity)
            out[n] = (int)value;
        ++n;
        p = end;
    }
}

/* ---- callbacks ---------------------------------------------------------- */

typedef struct {
    char text[8192];
    size_t length;
    int pieces;
    int stop_after;      /* > 0: return false after this many pieces */
    int nul_ok;          /* every piece was NUL-terminated at `length` */
} collector;

static bool collect(const char *piece, size_t length, void *user_data)
{
    collector *c = user_data;
    if (piece[length] != '\0')
        c->nul_ok = 0;
    if (c->length + length < sizeof c->text) {
        memcpy(c->text + c->length, piece, length);
        c->length += length;
        c->text[c->length] = '\0';
    }
    ++c->pieces;
    return !(c->stop_after > 0 && c->pieces >= c->stop_after);
}

/* Cancels from another thread: on its third piece the callback starts a
 * thread that calls burrow_cancel() (or cancels `token` when set) and waits
 * for it. */
typedef struct {
    collector base;
    burrow_session *session;
    burrow_cancel_token *token;
} cancelling_collector;

static int cancel_now(void *arg)
{
    cancelling_collector *c = arg;
    if (c->token)
        burrow_cancel_token_cancel(c->token);
    else
        burrow_cancel(c->session);
    return 0;
}

static bool collect_then_cancel(const char *piece, size_t length, void *user_data)
{
    cancelling_collector *c = user_data;
    collect(piece, length, &c->base);
    if (c->base.pieces == 3) {
#ifdef HAVE_C11_THREADS
        thrd_t thread;
        if (thrd_create(&thread, cancel_now, c) == thrd_success)
            thrd_join(thread, NULL);
#else
        cancel_now(c);
#endif
    }
    return true;
}

typedef struct {
    int calls;
    float last;
    int cancel_at;       /* > 0: return false on this call */
} progress_log;

static bool on_progress(float progress, void *user_data)
{
    progress_log *log = user_data;
    ++log->calls;
    log->last = progress;
    return !(log->cancel_at > 0 && log->calls >= log->cancel_at);
}

/* ---- tests -------------------------------------------------------------- */

static void test_defaults(void)
{
    const burrow_sampling_params s = burrow_sampling_default();
    CHECK(s.temperature == 0.8f, "temperature %g", s.temperature);
    CHECK(s.top_k == 40, "top_k %d", s.top_k);
    CHECK(s.top_p == 0.95f, "top_p %g", s.top_p);
    CHECK(s.min_p == 0.05f, "min_p %g", s.min_p);
    CHECK(s.typical_p == 1.0f, "typical_p %g", s.typical_p);
    CHECK(s.repeat_penalty == 1.0f, "repeat_penalty %g", s.repeat_penalty);
    CHECK(s.penalty_last_n == 64, "penalty_last_n %d", s.penalty_last_n);
    CHECK(s.mirostat == 0, "mirostat %d", s.mirostat);
    CHECK(s.seed == 0xFFFFFFFFu, "seed %u", s.seed);
    const burrow_generate_params g = burrow_generate_default();
    CHECK(g.max_tokens == -1 && g.n_stop_strings == 0 && g.stop_strings == NULL, "generate defaults");
    CHECK(g.cancel == NULL && g.reasoning_syntax == BURROW_REASONING_SYNTAX_NONE && !g.starts_in_reasoning
              && g.reasoning_callback == NULL && g.reasoning_user_data == NULL,
          "generate defaults: cancel and reasoning");
    const burrow_prompt_params p = burrow_prompt_default();
    CHECK(p.chat_format != NULL && strcmp(p.chat_format, "auto") == 0, "prompt default format");
    CHECK(!p.plain_text_for_base_models && p.budget == 0 && p.truncation == BURROW_TRUNCATION_DROP_OLDEST,
          "prompt defaults");
    burrow_cancel_token *token = burrow_cancel_token_create();
    CHECK(token != NULL, "no cancel token");
    CHECK(!burrow_cancel_token_is_cancelled(token), "a new token is cancelled");
    burrow_cancel_token_cancel(token);
    CHECK(burrow_cancel_token_is_cancelled(token), "cancel did not stick");
    burrow_cancel_token_free(token);
    burrow_cancel_token_free(NULL);
    burrow_cancel_token_cancel(NULL);
    CHECK(!burrow_cancel_token_is_cancelled(NULL), "NULL token cancelled");
    CHECK(strlen(burrow_version()) > 0, "version is empty");
    CHECK(burrow_session_default().kv_cache_type == BURROW_KV_CACHE_F16, "session KV default");
    CHECK(burrow_scheduler_default().kv_cache_type == BURROW_KV_CACHE_F16, "scheduler KV default");
}

static void test_error_paths(void)
{
    burrow_model *missing = burrow_model_load("/nonexistent-dir/missing-model.gguf", NULL, NULL);
    CHECK(missing == NULL, "a missing file loaded");
    CHECK(strstr(burrow_last_error(), "missing-model.gguf") != NULL,
          "error does not name the file: '%s'", burrow_last_error());
    printf("missing file: %s\n", burrow_last_error());
    burrow_model_free(missing);

    const char *junk_path = "c_api_test_not_a_model.gguf";
    FILE *junk = fopen(junk_path, "wb");
    if (junk) {
        fputs("this is not a GGUF file, just text long enough to have a header", junk);
        fclose(junk);
        burrow_model *bad = burrow_model_load(junk_path, NULL, NULL);
        CHECK(bad == NULL, "a text file loaded as a model");
        CHECK(strstr(burrow_last_error(), junk_path) != NULL,
              "error does not name the file: '%s'", burrow_last_error());
        burrow_model_free(bad);
        remove(junk_path);
    }

    CHECK(burrow_model_load(NULL, NULL, NULL) == NULL, "NULL path");
    CHECK(strlen(burrow_last_error()) > 0, "no error text for a NULL path");

    burrow_token tokens[4];
    CHECK(burrow_tokenize(NULL, "x", 1, tokens, 4, true, false) == -1, "tokenize without a model");
    CHECK(strstr(burrow_last_error(), "model is NULL") != NULL, "error: '%s'", burrow_last_error());
    CHECK(burrow_detokenize(NULL, tokens, 0, NULL, 0) == -1, "detokenize without a model");
    CHECK(burrow_session_create(NULL, NULL) == NULL, "session without a model");
    CHECK(burrow_generate(NULL, tokens, 0, NULL, NULL, NULL, NULL, NULL) == -1, "generate without a session");
    CHECK(strstr(burrow_last_error(), "session is NULL") != NULL, "error: '%s'", burrow_last_error());
    CHECK(burrow_evaluate(NULL, tokens, 0, NULL, 0) == -1, "evaluate without a session");
    burrow_session_free(NULL);
    burrow_model_free(NULL);
    burrow_cancel(NULL);
    const burrow_chat_message hello = {"user", "hello", NULL};
    CHECK(burrow_build_chat_prompt(NULL, &hello, 1, NULL) == NULL, "prompt without a model");
    CHECK(strstr(burrow_last_error(), "model is NULL") != NULL, "error: '%s'", burrow_last_error());
    burrow_chat_prompt_free(NULL);
    CHECK(burrow_chat_prompt_n_tokens(NULL) == -1 && burrow_chat_prompt_tokens(NULL) == NULL, "NULL prompt accessors");
}

/* Prompt building on a base model (stories260K: no template, no chat tokens). */
static void test_chat_prompt(burrow_model *model)
{
    const burrow_chat_message conv[] = {
        {"system", "You are brief.", NULL},
        {"user", "Hello there", NULL},
        {"assistant", "Hi!", NULL},
        {"user", "Tell me a story.", NULL},
    };
    burrow_prompt_params pp = burrow_prompt_default();
    pp.plain_text_for_base_models = true;
    burrow_chat_prompt *p = burrow_build_chat_prompt(model, conv, 4, &pp);
    CHECK(p != NULL, "build failed: %s", burrow_last_error());
    if (!p)
        return;
    CHECK(strcmp(burrow_chat_prompt_format(p), "plain") == 0, "format '%s'", burrow_chat_prompt_format(p));
    CHECK(strlen(burrow_chat_prompt_format_reason(p)) > 0, "no reason");
    /* Plain text: the system line, then the turns with "\n" before each later user turn. */
    const char *text = "You are brief.\nHello thereHi!\nTell me a story.";
    burrow_token expected[256];
    const int32_t n_expected = burrow_tokenize(model, text, strlen(text), expected, 256, true, false);
    const int32_t n = burrow_chat_prompt_n_tokens(p);
    CHECK(n == n_expected && memcmp(burrow_chat_prompt_tokens(p), expected, sizeof(burrow_token) * (size_t)n) == 0,
          "plain-text tokens differ (%d vs %d)", n, n_expected);
    const char *system_line = "You are brief.\n";
    CHECK(burrow_chat_prompt_keep_tokens(p) == burrow_tokenize(model, system_line, strlen(system_line), NULL, 0, true, false),
          "keep_tokens %d", burrow_chat_prompt_keep_tokens(p));
    CHECK(burrow_chat_prompt_first_message(p) == 1 && burrow_chat_prompt_dropped_messages(p) == 0, "nothing dropped");
    bool starts = true;
    CHECK(burrow_chat_prompt_reasoning(p, &starts) == BURROW_REASONING_SYNTAX_NONE && !starts, "reasoning of plain text");
    burrow_generate_params gp = burrow_generate_default();
    gp.n_keep = -5;
    burrow_chat_prompt_apply(p, &gp);
    CHECK(gp.n_keep == burrow_chat_prompt_keep_tokens(p) && gp.n_stop_strings == 0, "apply");

    /* One token less than the whole: the first exchange is left out. */
    pp.budget = (uint32_t)(n - 1);
    burrow_chat_prompt *cut = burrow_build_chat_prompt(model, conv, 4, &pp);
    CHECK(cut != NULL, "truncating build failed: %s", burrow_last_error());
    if (cut) {
        CHECK(burrow_chat_prompt_first_message(cut) == 3 && burrow_chat_prompt_dropped_messages(cut) == 2,
              "first %zu dropped %zu", burrow_chat_prompt_first_message(cut), burrow_chat_prompt_dropped_messages(cut));
        CHECK(burrow_chat_prompt_n_tokens(cut) <= n - 1, "does not fit");
        burrow_chat_prompt_free(cut);
    }
    /* Refused: the error names the sizes. */
    pp.truncation = BURROW_TRUNCATION_REFUSE;
    CHECK(burrow_build_chat_prompt(model, conv, 4, &pp) == NULL, "a refused prompt was built");
    char size_text[32];
    snprintf(size_text, sizeof size_text, "%d", n);
    CHECK(strstr(burrow_last_error(), size_text) != NULL, "error does not name %d: '%s'", n, burrow_last_error());
    pp.truncation = (burrow_truncation)7;
    CHECK(burrow_build_chat_prompt(model, conv, 4, &pp) == NULL, "a bad truncation was accepted");
    /* A forced format; an unknown one. */
    pp = burrow_prompt_default();
    pp.chat_format = "chatml";
    burrow_chat_prompt *chatml = burrow_build_chat_prompt(model, conv, 4, &pp);
    CHECK(chatml != NULL && strcmp(burrow_chat_prompt_format(chatml), "chatml") == 0, "chatml: %s", burrow_last_error());
    if (chatml) {
        burrow_chat_prompt_apply(chatml, &gp);
        CHECK(gp.n_stop_strings > 0 && gp.stop_strings != NULL && strcmp(gp.stop_strings[0], "<|im_end|>") == 0,
              "chatml stop strings");
        burrow_chat_prompt_free(chatml);
    }
    pp.chat_format = "no-such-format";
    CHECK(burrow_build_chat_prompt(model, conv, 4, &pp) == NULL, "an unknown format was accepted");
    CHECK(strstr(burrow_last_error(), "chatml") != NULL, "error does not list the formats: '%s'", burrow_last_error());
    const burrow_chat_message no_role = {NULL, "x", NULL};
    CHECK(burrow_build_chat_prompt(model, &no_role, 1, NULL) == NULL, "a NULL role was accepted");
    burrow_chat_prompt_free(p);
}

static void test_model(const char *model_path, const char *json)
{
    char *expected_text = json_string(json, "greedy_text");
    int expected_prompt[64], expected_greedy[1024];
    const int n_expected_prompt = json_int_array(json, "prompt_tokens", expected_prompt, 64);
    const int n_expected_greedy = json_int_array(json, "greedy_tokens", expected_greedy, 1024);
    char *prompt_text = json_string(json, "prompt");
    CHECK(expected_text != NULL && prompt_text != NULL && n_expected_prompt > 0 && n_expected_greedy > 0,
          "reference JSON is missing fields");
    if (!expected_text || !prompt_text || n_expected_prompt <= 0 || n_expected_greedy <= 0) {
        free(expected_text);
        free(prompt_text);
        return;
    }

    /* A progress callback that returns false cancels the load. */
    progress_log cancelled = {0, -1.0f, 1};
    CHECK(burrow_model_load(model_path, on_progress, &cancelled) == NULL, "a cancelled load returned a model");
    CHECK(cancelled.calls == 1, "progress called %d times after cancelling", cancelled.calls);
    CHECK(strlen(burrow_last_error()) > 0, "no error text for a cancelled load");

    progress_log progress = {0, -1.0f, 0};
    burrow_model *model = burrow_model_load(model_path, on_progress, &progress);
    CHECK(model != NULL, "load failed: %s", burrow_last_error());
    CHECK(progress.calls >= 1 && progress.last >= 0.0f && progress.last <= 1.0f,
          "progress: %d calls, last %g", progress.calls, progress.last);
    if (!model) {
        free(expected_text);
        free(prompt_text);
        return;
    }
    CHECK(strcmp(burrow_model_architecture(model), "llama") == 0, "architecture '%s'", burrow_model_architecture(model));
    const int32_t vocab = burrow_model_vocab_size(model);
    CHECK(vocab == 512, "vocab size %d", vocab);

    /* Tokenize: first ask for the count, then fill. */
    const int32_t n_prompt = burrow_tokenize(model, prompt_text, strlen(prompt_text), NULL, 0, true, false);
    CHECK(n_prompt == n_expected_prompt, "prompt has %d tokens, reference %d", n_prompt, n_expected_prompt);
    burrow_token prompt[64];
    const int32_t n_filled = burrow_tokenize(model, prompt_text, strlen(prompt_text), prompt, 64, true, false);
    CHECK(n_filled == n_prompt, "second tokenize gave %d", n_filled);
    for (int i = 0; i < n_expected_prompt && i < n_filled; ++i)
        CHECK(prompt[i] == expected_prompt[i], "prompt token %d is %d, reference %d", i, prompt[i], expected_prompt[i]);

    /* From here on the reference's own prompt tokens are used, so
     * detokenization, evaluation and generation are checked independently of
     * the tokenizer. */
    burrow_token ref_prompt[64];
    const int32_t n_ref = n_expected_prompt < 64 ? n_expected_prompt : 64;
    for (int i = 0; i < n_ref; ++i)
        ref_prompt[i] = expected_prompt[i];

    /* Detokenize: too small a buffer reports the length and writes nothing. */
    char small[4] = "abc";
    const int32_t n_text_tokens = n_ref > 1 ? n_ref - 1 : 0;   /* without BOS */
    const int64_t text_length = burrow_detokenize(model, ref_prompt + 1, n_text_tokens, small, sizeof small);
    CHECK(text_length >= (int64_t)strlen(prompt_text), "detokenized length %lld", (long long)text_length);
    CHECK(strcmp(small, "abc") == 0, "a too-small buffer was written");
    char text[256];
    CHECK(burrow_detokenize(model, ref_prompt + 1, n_text_tokens, text, sizeof text) == text_length, "length changed");
    CHECK(strstr(text, prompt_text) != NULL, "detokenized '%s', expected '%s'", text, prompt_text);
    const burrow_token invalid[2] = {1, vocab + 7};
    CHECK(burrow_detokenize(model, invalid, 2, text, sizeof text) == -1, "an invalid token detokenized");
    CHECK(strstr(burrow_last_error(), "expected an id") != NULL, "error: '%s'", burrow_last_error());

    burrow_session_params session_params = burrow_session_default();
    session_params.context_size = 256;
    session_params.threads = 1;
    /* The KV cache type: a value outside the enum is refused by name; Q8_0
     * either works or says why (stories260K's heads of 8 are too small for
     * its blocks of 32). */
    {
        burrow_session_params kv = session_params;
        kv.kv_cache_type = 7;
        CHECK(burrow_session_create(model, &kv) == NULL, "kv_cache_type 7 accepted");
        CHECK(strstr(burrow_last_error(), "kv_cache_type 7") != NULL, "error: '%s'", burrow_last_error());
        burrow_scheduler_params skv = burrow_scheduler_default();
        skv.kv_cache_type = 7;
        CHECK(burrow_scheduler_create(model, &skv) == NULL, "scheduler kv_cache_type 7 accepted");
        CHECK(strstr(burrow_last_error(), "kv_cache_type 7") != NULL, "error: '%s'", burrow_last_error());
        kv.kv_cache_type = BURROW_KV_CACHE_Q8_0;
        burrow_session *q8 = burrow_session_create(model, &kv);
        if (q8 == NULL) {
            CHECK(strstr(burrow_last_error(), "Q8_0") != NULL, "Q8_0 refused without a reason: '%s'", burrow_last_error());
            printf("Q8_0 KV cache: %s\n", burrow_last_error());
        } else {
            const burrow_token first[2] = {ref_prompt[0], ref_prompt[n_ref > 1 ? 1 : 0]};
            float *l = malloc(sizeof(float) * (size_t)vocab);
            CHECK(burrow_evaluate(q8, first, 2, l, vocab) == vocab, "Q8_0 evaluate: %s", burrow_last_error());
            free(l);
            burrow_session_free(q8);
        }
    }
    burrow_session *session = burrow_session_create(model, &session_params);
    CHECK(session != NULL, "session failed: %s", burrow_last_error());
    /* The session keeps the model alive. */
    burrow_model_free(model);
    model = NULL;
    if (!session) {
        free(expected_text);
        free(prompt_text);
        return;
    }

    /* Logits after the prompt: the argmax is the reference's first greedy token. */
    float *logits = malloc(sizeof(float) * (size_t)vocab);
    const int32_t n_logits = burrow_evaluate(session, ref_prompt, n_ref, logits, vocab);
    CHECK(n_logits == vocab, "evaluate returned %d: %s", n_logits, burrow_last_error());
    if (n_logits == vocab) {
        int best = 0;
        for (int i = 1; i < vocab; ++i)
            if (logits[i] > logits[best])
                best = i;
        CHECK(best == expected_greedy[0], "argmax %d, reference %d", best, expected_greedy[0]);
    }
    free(logits);

    /* Greedy generation tells the reference's story. */
    burrow_sampling_params greedy = burrow_sampling_default();
    greedy.temperature = 0.0f;
    greedy.seed = 42;
    burrow_generate_params options = burrow_generate_default();
    options.max_tokens = n_expected_greedy + 16;
    collector *out = calloc(1, sizeof *out);
    out->nul_ok = 1;
    burrow_generate_result result;
    memset(&result, 0xff, sizeof result);
    const int rc = burrow_generate(session, ref_prompt, n_ref, &greedy, &options, collect, out, &result);
    CHECK(rc == 0, "generate failed: %s", burrow_last_error());
    CHECK(strncmp(out->text, expected_text, strlen(expected_text)) == 0,
          "generated text\n  '%s'\ndoes not begin with the reference\n  '%s'", out->text, expected_text);
    CHECK(out->nul_ok, "a piece was not NUL-terminated");
    CHECK(result.generated_tokens >= n_expected_greedy, "generated %d tokens", result.generated_tokens);
    CHECK(result.stop_reason == BURROW_STOP_REASON_MAX_TOKENS || result.stop_reason == BURROW_STOP_REASON_END_OF_GENERATION,
          "stop reason %d", (int)result.stop_reason);
    printf("generated: %s\n", out->text);

    /* Same seed, same settings -> same text; another seed -> (here) another text. */
    {
        burrow_sampling_params seeded = burrow_sampling_default();
        seeded.temperature = 1.0f;
        seeded.top_k = 0;
        seeded.top_p = 1.0f;
        seeded.min_p = 0.0f;
        seeded.seed = 1234;
        burrow_generate_params long_run = burrow_generate_default();
        long_run.max_tokens = 48;
        collector *first = calloc(1, sizeof *first);
        collector *second = calloc(1, sizeof *second);
        collector *other = calloc(1, sizeof *other);
        CHECK(burrow_generate(session, ref_prompt, n_ref, &seeded, &long_run, collect, first, NULL) == 0,
              "seeded generate failed: %s", burrow_last_error());
        CHECK(burrow_generate(session, ref_prompt, n_ref, &seeded, &long_run, collect, second, NULL) == 0,
              "seeded generate failed: %s", burrow_last_error());
        CHECK(first->length > 0 && strcmp(first->text, second->text) == 0,
              "seed 1234 gave\n  '%s'\nthen\n  '%s'", first->text, second->text);
        seeded.seed = 98765;
        CHECK(burrow_generate(session, ref_prompt, n_ref, &seeded, &long_run, collect, other, NULL) == 0,
              "seeded generate failed: %s", burrow_last_error());
        CHECK(strcmp(first->text, other->text) != 0, "seeds 1234 and 98765 gave the same 48 tokens: '%s'", other->text);
        free(first);
        free(second);
        free(other);
    }

    /* The callback stops generation by returning false. */
    memset(out, 0, sizeof *out);
    out->nul_ok = 1;
    out->stop_after = 2;
    burrow_session_reset(session);
    const int rc_stop = burrow_generate(session, ref_prompt, n_ref, &greedy, &options, collect, out, &result);
    CHECK(rc_stop == 0, "generate failed: %s", burrow_last_error());
    CHECK(out->pieces == 2, "callback ran %d times after asking to stop at 2", out->pieces);
    CHECK(result.stop_reason == BURROW_STOP_REASON_CANCELLED, "stop reason %d", (int)result.stop_reason);

    /* burrow_cancel() from another thread takes effect within one token. */
    cancelling_collector *cancelling = calloc(1, sizeof *cancelling);
    cancelling->session = session;
    cancelling->base.nul_ok = 1;
    options.max_tokens = 200;
    const int rc_cancel = burrow_generate(session, ref_prompt, n_ref, &greedy, &options, collect_then_cancel,
                                          cancelling, &result);
    CHECK(rc_cancel == 0, "generate failed: %s", burrow_last_error());
    CHECK(result.stop_reason == BURROW_STOP_REASON_CANCELLED, "stop reason %d after cancel", (int)result.stop_reason);
    CHECK(cancelling->base.pieces <= 4, "%d pieces arrived after cancelling at the third", cancelling->base.pieces);
    free(cancelling);
    options.max_tokens = n_expected_greedy + 16;

    /* A stop string ends generation and is not shown. */
    memset(out, 0, sizeof *out);
    out->nul_ok = 1;
    const char *stops[1] = {"Lily"};
    options.stop_strings = stops;
    options.n_stop_strings = 1;
    const int rc_string = burrow_generate(session, ref_prompt, n_ref, &greedy, &options, collect, out, &result);
    CHECK(rc_string == 0, "generate failed: %s", burrow_last_error());
    if (strstr(expected_text, "Lily")) {
        CHECK(result.stop_reason == BURROW_STOP_REASON_STOP_STRING, "stop reason %d", (int)result.stop_reason);
        CHECK(strstr(out->text, "Lily") == NULL, "stop string shown: '%s'", out->text);
        CHECK(strncmp(out->text, expected_text, out->length) == 0, "text before the stop string: '%s'", out->text);
    }
    options.stop_strings = NULL;
    options.n_stop_strings = 0;

    /* Errors come back as -1 with a message: a NULL stop string, a bad token,
     * a prompt longer than the context. */
    const char *null_stop[1] = {NULL};
    options.stop_strings = null_stop;
    options.n_stop_strings = 1;
    CHECK(burrow_generate(session, ref_prompt, n_ref, &greedy, &options, collect, out, NULL) == -1, "NULL stop string accepted");
    options.stop_strings = NULL;
    options.n_stop_strings = 0;
    CHECK(burrow_generate(session, invalid, 2, &greedy, &options, collect, out, NULL) == -1, "invalid prompt token accepted");
    burrow_token *long_prompt = malloc(sizeof(burrow_token) * 600);
    long_prompt[0] = ref_prompt[0];
    for (int i = 1; i < 600; ++i)
        long_prompt[i] = n_ref > 1 ? ref_prompt[1 + i % (n_ref - 1)] : ref_prompt[0];
    const int rc_long = burrow_generate(session, long_prompt, 600, &greedy, &options, collect, out, NULL);
    CHECK(rc_long == -1, "a 600-token prompt in a %d-token context was accepted", burrow_session_context_size(session));
    CHECK(strlen(burrow_last_error()) > 0, "no error text for a too-long prompt");
    free(long_prompt);

    /* A cancel token: cancelled before the start, nothing is evaluated. */
    {
        burrow_cancel_token *stop = burrow_cancel_token_create();
        burrow_cancel_token_cancel(stop);
        burrow_generate_params cancelled = burrow_generate_default();
        cancelled.cancel = stop;
        memset(out, 0, sizeof *out);
        burrow_session_reset(session);
        CHECK(burrow_generate(session, ref_prompt, n_ref, &greedy, &cancelled, collect, out, &result) == 0,
              "generate failed: %s", burrow_last_error());
        CHECK(result.stop_reason == BURROW_STOP_REASON_CANCELLED, "stop reason %d", (int)result.stop_reason);
        CHECK(result.prompt_tokens == 0 && result.generated_tokens == 0 && out->pieces == 0,
              "a cancelled token evaluated %d prompt tokens, generated %d", result.prompt_tokens, result.generated_tokens);
        burrow_cancel_token_free(stop);
    }
    /* ... from another thread during the reply: stops within a token. */
    {
        cancelling_collector *tc = calloc(1, sizeof *tc);
        tc->token = burrow_cancel_token_create();
        burrow_generate_params cancelled = burrow_generate_default();
        cancelled.cancel = tc->token;
        cancelled.max_tokens = 200;
        CHECK(burrow_generate(session, ref_prompt, n_ref, &greedy, &cancelled, collect_then_cancel, tc, &result) == 0,
              "generate failed: %s", burrow_last_error());
        CHECK(result.stop_reason == BURROW_STOP_REASON_CANCELLED, "stop reason %d", (int)result.stop_reason);
        CHECK(tc->base.pieces <= 4, "%d pieces after cancelling at the third", tc->base.pieces);
        burrow_cancel_token_free(tc->token);
        free(tc);
    }
    /* The next request, without a token, tells the reference's story again. */
    memset(out, 0, sizeof *out);
    CHECK(burrow_generate(session, ref_prompt, n_ref, &greedy, &options, collect, out, &result) == 0,
          "generate failed: %s", burrow_last_error());
    CHECK(strncmp(out->text, expected_text, strlen(expected_text)) == 0, "after a cancel: '%s'", out->text);
    CHECK(result.reasoning_tokens == 0 && result.reasoning_ms == 0.0, "reasoning timings without reasoning");
    /* Speculative decoding: n-gram drafts give the same story (the engine is
     * batch-invariant), counted in the result; off drafts nothing; a bad
     * mode is refused. */
    {
        burrow_generate_params spec = burrow_generate_default();
        CHECK(spec.speculative == BURROW_SPECULATIVE_AUTO && spec.draft_max == 8, "speculative defaults");
        spec.speculative = BURROW_SPECULATIVE_NGRAM;
        spec.max_tokens = options.max_tokens;
        memset(out, 0, sizeof *out);
        burrow_session_reset(session);
        CHECK(burrow_generate(session, ref_prompt, n_ref, &greedy, &spec, collect, out, &result) == 0,
              "generate failed: %s", burrow_last_error());
        CHECK(strncmp(out->text, expected_text, strlen(expected_text)) == 0, "with n-gram drafts: '%s'", out->text);
        CHECK(result.accepted_tokens >= 0 && result.accepted_tokens <= result.drafted_tokens, "drafts %d, accepted %d",
              result.drafted_tokens, result.accepted_tokens);
        spec.speculative = BURROW_SPECULATIVE_OFF;
        memset(out, 0, sizeof *out);
        burrow_session_reset(session);
        CHECK(burrow_generate(session, ref_prompt, n_ref, &greedy, &spec, collect, out, &result) == 0,
              "generate failed: %s", burrow_last_error());
        CHECK(strncmp(out->text, expected_text, strlen(expected_text)) == 0, "without drafts: '%s'", out->text);
        CHECK(result.drafted_tokens == 0, "%d drafts with speculative decoding off", result.drafted_tokens);
        /* A draft model (the model's own file: every greedy draft is
         * accepted): the same story; none named, refused. */
        spec.speculative = BURROW_SPECULATIVE_DRAFT;
        spec.draft_model = model_path;
        memset(out, 0, sizeof *out);
        burrow_session_reset(session);
        CHECK(burrow_generate(session, ref_prompt, n_ref, &greedy, &spec, collect, out, &result) == 0,
              "generate with a draft model failed: %s", burrow_last_error());
        CHECK(strncmp(out->text, expected_text, strlen(expected_text)) == 0, "with a draft model: '%s'", out->text);
        CHECK(result.drafted_tokens > 0 && result.accepted_tokens == result.drafted_tokens,
              "drafted by itself: %d drafts, %d accepted", result.drafted_tokens, result.accepted_tokens);
        spec.draft_model = NULL;
        CHECK(burrow_generate(session, ref_prompt, n_ref, &greedy, &spec, collect, out, NULL) == -1,
              "a draft model without its file accepted");
        spec.speculative = (burrow_speculative_mode)7;
        CHECK(burrow_generate(session, ref_prompt, n_ref, &greedy, &spec, collect, out, NULL) == -1, "speculative 7 accepted");
        spec.speculative = BURROW_SPECULATIVE_NGRAM;
        spec.draft_max = 99;
        CHECK(burrow_generate(session, ref_prompt, n_ref, &greedy, &spec, collect, out, NULL) == -1, "draft_max 99 accepted");
    }
    /* A bad reasoning syntax is refused. */
    {
        burrow_generate_params bad = burrow_generate_default();
        bad.reasoning_syntax = (burrow_reasoning_syntax)9;
        CHECK(burrow_generate(session, ref_prompt, n_ref, &greedy, &bad, collect, out, NULL) == -1,
              "reasoning_syntax 9 accepted");
    }
    {
        burrow_model *again = burrow_model_load(model_path, NULL, NULL);   /* `model` was freed above */
        CHECK(again != NULL, "reload failed: %s", burrow_last_error());
        if (again) {
            test_chat_prompt(again);
            test_scheduler(again, ref_prompt, n_ref, n_expected_greedy, expected_text);
        }
        burrow_model_free(again);
    }

    burrow_cancel(session);   /* harmless when idle */
    burrow_session_free(session);
    free(out);
    free(expected_text);
    free(prompt_text);
}

/* The scheduler from C: three streams of the same greedy request read at
 * once from this thread; each tells the reference's story. A cancelled
 * stream ends as cancelled; a scheduler freed first leaves its streams
 * readable. */
static void test_scheduler(burrow_model *model, const burrow_token *prompt, int32_t n_prompt, int32_t max_tokens,
                           const char *expected_text)
{
    burrow_scheduler_params sp = burrow_scheduler_default();
    CHECK(sp.parallel == 4 && sp.context_size == 4096 && sp.batch_tokens == 512 && sp.max_queued == 64,
          "scheduler defaults");
    sp.context_size = 256;
    sp.parallel = 2;
    sp.threads = 2;
    burrow_scheduler *sch = burrow_scheduler_create(model, &sp);
    CHECK(sch != NULL, "scheduler: %s", burrow_last_error());
    if (!sch)
        return;
    burrow_sampling_params greedy = burrow_sampling_default();
    greedy.temperature = 0.0f;
    burrow_generate_params gp = burrow_generate_default();
    gp.max_tokens = max_tokens;
    enum { N = 3 };
    burrow_stream *streams[N];
    char *texts[N];
    size_t lengths[N];
    bool busy = true;
    for (int i = 0; i < N; ++i) {
        streams[i] = burrow_scheduler_submit(sch, prompt, n_prompt, &greedy, &gp, 0, &busy);
        CHECK(streams[i] != NULL && !busy, "submit %d: %s", i, burrow_last_error());
        texts[i] = calloc(1, 65536);
        lengths[i] = 0;
    }
    for (int i = 0; i < N; ++i) {
        if (!streams[i])
            continue;
        char piece[7];   /* small: long pieces continue in the next read */
        burrow_stream_part part = BURROW_STREAM_PART_REASONING;
        int32_t n;
        while ((n = burrow_stream_read(streams[i], piece, sizeof piece, 60000, &part)) > 0) {
            CHECK(part == BURROW_STREAM_PART_ANSWER, "a story has no reasoning");
            CHECK(n < (int32_t)sizeof piece && piece[n] == '\0', "piece of %d bytes not terminated", n);
            if (lengths[i] + (size_t)n < 65535) {
                memcpy(texts[i] + lengths[i], piece, (size_t)n);
                lengths[i] += (size_t)n;
            }
        }
        CHECK(n == 0, "stream %d ended with %d: %s", i, n, burrow_last_error());
        burrow_generate_result r;
        CHECK(burrow_stream_result(streams[i], &r) == 0, "result: %s", burrow_last_error());
        CHECK(strncmp(texts[i], expected_text, strlen(expected_text)) == 0, "stream %d: '%s'", i, texts[i]);
        CHECK(r.generated_tokens > 0 && r.generated_tokens <= max_tokens, "stream %d: %d tokens", i, r.generated_tokens);
        burrow_stream_free(streams[i]);
        free(texts[i]);
    }
    /* Cancelled, then the scheduler freed before the stream. */
    {
        burrow_generate_params longer = burrow_generate_default();
        longer.max_tokens = 100000;
        burrow_stream *s = burrow_scheduler_submit(sch, prompt, n_prompt, &greedy, &longer, 0, NULL);
        CHECK(s != NULL, "submit: %s", burrow_last_error());
        char piece[64];
        CHECK(burrow_stream_read(s, piece, sizeof piece, 60000, NULL) > 0, "no first piece");
        burrow_generate_result r;
        CHECK(burrow_stream_result(s, &r) == -1, "a running stream has a result");
        burrow_stream_set_priority(s, 7);   /* accepted while it runs (tst_scheduler checks the order) */
        burrow_stream_cancel(s);
        while (burrow_stream_read(s, piece, sizeof piece, 60000, NULL) > 0) {
        }
        CHECK(burrow_stream_result(s, &r) == 0 && r.stop_reason == BURROW_STOP_REASON_CANCELLED,
              "cancelled stream: %d", (int)r.stop_reason);
        burrow_stream *t = burrow_scheduler_submit(sch, prompt, n_prompt, &greedy, &longer, 0, NULL);
        burrow_scheduler_free(sch);
        burrow_stream_set_priority(t, 3);   /* its scheduler is gone: a no-op */
        if (t) {
            while (burrow_stream_read(t, piece, sizeof piece, 60000, NULL) > 0) {
            }
            CHECK(burrow_stream_result(t, &r) == 0 && r.stop_reason == BURROW_STOP_REASON_CANCELLED,
                  "a stream outliving its scheduler: %d", (int)r.stop_reason);
        }
        burrow_stream_free(t);
        burrow_stream_free(s);
    }
    CHECK(burrow_scheduler_submit(NULL, prompt, n_prompt, NULL, NULL, 0, NULL) == NULL, "NULL scheduler accepted");
    burrow_stream_free(NULL);
    burrow_stream_set_priority(NULL, 1);
    burrow_scheduler_free(NULL);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s MODEL.gguf REFERENCE.json\n", argv[0]);
        return 1;
    }
    test_defaults();
    test_error_paths();

    char *json = read_file(argv[2]);
    FILE *model_file = fopen(argv[1], "rb");
    if (!json || !model_file) {
        if (model_file)
            fclose(model_file);
        free(json);
        if (g_failures)
            return 1;
        printf("SKIP: %s or %s is absent (../shared fixtures)\n", argv[1], argv[2]);
        return 77;
    }
    fclose(model_file);

    test_model(argv[1], json);
    free(json);

    if (g_failures) {
        fprintf(stderr, "%d check(s) failed\n", g_failures);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
