// Burrow's engine: the one public C++ header. Qt-free.
//
// Lifetimes: a Model is the mapped, validated weights plus tokenizer and chat
// template (shared, immutable after load, usable from any thread). A Session
// owns one KV cache, scratch activations and a sampler; it is used by one
// thread at a time (cancel() may be called from any thread).
//
// Errors: every input or resource failure is a Status/Result with a message
// for a human; nothing here throws or aborts on bad input.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "burrow/status.h"

namespace burrow {

using Token = int32_t;

// How the KV cache stores keys and values (the reference's -ctk/-ctv).
//   F16:  2 bytes per element (the reference's default).
//   Q8_0: blocks of 32 elements, an F16 scale d = amax / 127 and 32 int8
//         codes round(x / d): 34 bytes per 32 elements (53% of F16). Keys
//         and values are quantized as they are written; attention computes
//         q . K with the query quantized to Q8_0 too and accumulates the
//         dequantized values in F32 (the reference's flash-attention path
//         for a quantized cache). Needs flash attention and head sizes that
//         are multiples of 32 (Session/Scheduler::create refuse otherwise).
enum class KvCacheType {
    KV_CACHE_F16,
    KV_CACHE_Q8_0,
};

// "f16" / "q8_0" (the reference's names).
inline const char *kvCacheTypeName(KvCacheType type)
{
    return type == KvCacheType::KV_CACHE_Q8_0 ? "q8_0" : "f16";
}

// What the header of a .gguf says, read without loading the weights.
struct ModelInfo {
    std::string path;
    std::string architecture;        // general.architecture ("llama", "qwen2", ...)
    std::string name;                // general.name, or the file name
    std::string fileType;            // "Q4_K_M", "F16", ... (from general.file_type, else the dominant tensor type)
    uint64_t fileSize = 0;           // bytes
    uint64_t parameterCount = 0;     // sum of tensor elements
    uint32_t contextLength = 0;      // trained context
    uint32_t embeddingLength = 0;
    uint32_t blockCount = 0;         // layers
    uint32_t headCount = 0;
    uint32_t headCountKv = 0;
    uint32_t headDim = 0;            // key length per head (of the global layers where sliding ones differ)
    uint32_t headDimSliding = 0;     // key length per head of the sliding layers when it differs (gemma4), else 0
    std::string vocabType;           // tokenizer.ggml.model ("llama", "gpt2")
    uint32_t vocabSize = 0;
    Token bosId = -1;                // -1 when absent
    Token eosId = -1;
    bool hasChatTemplate = false;
    std::string chatTemplate;        // tokenizer.chat_template ("" when absent)
    std::map<std::string, int> tensorTypeCounts;  // "Q4_K" -> 120
    uint64_t weightBytes = 0;        // bytes of tensor data

    // Mixture of experts (0 for a dense model).
    uint32_t expertCount = 0;        // experts per MoE layer ({arch}.expert_count)
    uint32_t expertUsedCount = 0;    // experts each token runs ({arch}.expert_used_count)
    // Parameters one token reads: all of them for a dense model; for a MoE
    // model the shared tensors plus expertUsedCount of expertCount experts.
    uint64_t activeParameterCount = 0;

    // Sliding-window attention (0 / 0 when the model has none).
    uint32_t slidingWindow = 0;      // positions a sliding layer sees (its KV cache holds no more)
    uint32_t slidingLayerCount = 0;  // layers that use the window

    // Recurrent layers (Gated DeltaNet, qwen35; 0 / 0 when none): they keep
    // a fixed-size state per conversation instead of keys and values.
    uint32_t recurrentLayerCount = 0;
    uint64_t recurrentStateBytes = 0;   // one conversation's state, all recurrent layers
    // A full context can be shifted (ContextOverflow::CONTEXT_OVERFLOW_SHIFT):
    // not with recurrent layers, whose state cannot forget its oldest tokens.
    bool canShiftContext() const { return recurrentLayerCount == 0; }
    // A conversation holds its state, two snapshots of it (for reusing a
    // prefix) and a copy while a prompt chunk runs (undone on cancel).
    static constexpr uint32_t kRecurrentStateCopies = 4;

    // Multi-token prediction ({arch}.nextn_predict_layers; qwen35,
    // qwen35moe): blocks after the trunk that guess the next tokens
    // (SpeculativeMode::SPECULATIVE_MTP). mtpLayerCount is what the file
    // declares (counted in blockCount); mtpDrafting whether Burrow drafts
    // with them (one block with its tensors; the reference runs one too).
    uint32_t mtpLayerCount = 0;
    bool mtpDrafting = false;

    // Per-layer input embeddings (gemma4 E2B/E4B; 0 / 0 when none): values
    // per layer and token, and the bytes of that table. It stays in the
    // memory-mapped file (a token reads one row), counted in weightBytes.
    uint32_t perLayerEmbeddingLength = 0;
    uint64_t perLayerEmbeddingBytes = 0;
    // Layers that reuse an earlier layer's keys and values (gemma4's shared
    // KV layers): they keep no KV cache of their own (not in kvBytesPerToken).
    uint32_t sharedKvLayerCount = 0;

    // Speculative decoding the file offers by itself, best first, as
    // --spec names them: a drafter it carries ("mtp": next-token-prediction
    // layers) before "ngram" (prompt lookup: no weights, so every file). A
    // draft model is another file beside it (checkDraftModel).
    std::vector<std::string> drafters{"ngram"};
    // A drafter only ("gemma4" for a gemma4-assistant file, Gemma 4's MTP
    // drafter; "" for a model): it cannot run by itself (Model::load refuses
    // it) but drafts for a model of that architecture, named as its draft
    // (SpeculativeOptions::draftModel under mtp, auto or draft). Its
    // drafters list is empty.
    std::string draftsFor;

    // KV cache (F16 K and V) for one position: of the full-attention layers,
    // and of the sliding-window layers (which keep at most
    // slidingWindow + kSlidingCacheSlack positions, however long the context);
    // each layer with its own head count and sizes, shared-KV layers not at all.
    uint64_t kvBytesPerToken = 0;
    uint64_t kvBytesPerTokenSliding = 0;
    // A sliding layer's cache holds its window plus one prompt chunk (the
    // keys a chunk of new tokens writes before the oldest leave the window).
    static constexpr uint32_t kSlidingCacheSlack = 512;

    // Memory for the KV cache at `nCtx` positions (F16 K and V), sliding
    // layers bounded by their window, plus the recurrent state's copies.
    // Saturates at UINT64_MAX (a hostile header may claim more than 2^64
    // bytes).
    uint64_t kvCacheBytes(uint32_t nCtx) const
    {
        uint64_t windowed = nCtx;
        if (slidingWindow != 0 && uint64_t{slidingWindow} + kSlidingCacheSlack < nCtx)
            windowed = uint64_t{slidingWindow} + kSlidingCacheSlack;
        uint64_t full = 0, sliding = 0, state = 0, sum = 0;
        if (__builtin_mul_overflow(kvBytesPerToken, uint64_t{nCtx}, &full) ||
            __builtin_mul_overflow(kvBytesPerTokenSliding, windowed, &sliding) ||
            __builtin_mul_overflow(recurrentStateBytes, uint64_t{kRecurrentStateCopies}, &state) ||
            __builtin_add_overflow(full, sliding, &sum) || __builtin_add_overflow(sum, state, &sum))
            return UINT64_MAX;
        return sum;
    }

    // The same for a cache of `type` (kvCacheBytes(nCtx) for F16; Q8_0 keeps
    // 34 bytes per 32 elements, 17/32 of the F16 bytes when every head size
    // is a multiple of 32, rounded up otherwise).
    uint64_t kvCacheBytes(uint32_t nCtx, KvCacheType type) const
    {
        const uint64_t total = kvCacheBytes(nCtx);
        if (type == KvCacheType::KV_CACHE_F16 || total == UINT64_MAX)
            return total;
        const uint64_t state = recurrentStateBytes * kRecurrentStateCopies;   // F32 either way (no overflow: in total)
        const uint64_t f16 = total - state;
        // f16 / 64 blocks of 32 elements (2 bytes each), 34 bytes per block.
        const uint64_t blocks = f16 / 64 + (f16 % 64 != 0 ? 1 : 0);
        uint64_t q8 = 0;
        if (__builtin_mul_overflow(blocks, uint64_t{34}, &q8) || __builtin_add_overflow(q8, state, &q8))
            return UINT64_MAX;
        return q8;
    }
};

// Reads and validates the header only (cheap: no weights are touched).
Result<ModelInfo> inspectModel(const std::string &path);

// The physical cores of this machine (SMT siblings counted once): what
// `threads = 0` means in SessionOptions and SchedulerOptions.
int physicalCoreCount();

struct LoadOptions {
    // Called on the loading thread with 0..1; return false to cancel the load.
    std::function<bool(float progress)> progress;
};

class Model {
public:
    // Maps, validates and prepares `path` (architecture, tensors, tokenizer).
    static Result<std::shared_ptr<Model>> load(const std::string &path, const LoadOptions &options = {});
    virtual ~Model() = default;

    virtual const ModelInfo &info() const = 0;

    // Tokenizer. addSpecial: BOS (and EOS) as the vocabulary says;
    // parseSpecial: control tokens written in the text become their token.
    virtual std::vector<Token> tokenize(std::string_view text, bool addSpecial, bool parseSpecial) const = 0;
    // Raw bytes of one token (may be an incomplete UTF-8 sequence).
    virtual std::string tokenBytes(Token token) const = 0;
    // Whole-sequence detokenization (complete text).
    virtual std::string detokenize(const std::vector<Token> &tokens) const = 0;
    virtual bool isEndOfGeneration(Token token) const = 0;
    virtual uint32_t vocabSize() const = 0;
};

struct ChatMessage {
    std::string role;     // "system", "user", "assistant", "tool", ...
    std::string content;
    // The model's reasoning behind an assistant turn ("" when none). Templates
    // see it as both `reasoning_content` (Qwen3, DeepSeek) and `thinking`
    // (gpt-oss), unless extraJson sets those names itself.
    std::string reasoning;
    // Every other field the message carries, as one JSON object text ("" for
    // none): {"tool_calls": [...], "name": "get_weather"}. The template sees
    // each field as written; a field named here wins over the ones above.
    std::string extraJson;
};

// How a model's replies mark their reasoning (decided by its chat format).
enum class ReasoningSyntax {
    REASONING_SYNTAX_NONE,          // the whole reply is the answer
    REASONING_SYNTAX_THINK_TAGS,    // "<think>" reasoning "</think>" before the answer (Qwen3, DeepSeek R1)
    REASONING_SYNTAX_HARMONY,       // gpt-oss channels: "analysis" is reasoning, "final" the answer
    // Gemma 4: "<|channel>thought\n" reasoning "<channel|>" before the answer;
    // tool calls "<|tool_call>call:NAME{...}<tool_call|>" are kept out of the answer
    REASONING_SYNTAX_GEMMA4_CHANNEL,
};

// What the generation loop needs to split a reply into reasoning and answer.
struct ReasoningOptions {
    ReasoningSyntax syntax = ReasoningSyntax::REASONING_SYNTAX_NONE;
    // The prompt already opened the reasoning block (a generation prompt
    // that ends in "<think>\n"): the reply starts as reasoning.
    bool startsInReasoning = false;
};

// The chat format a model uses: its own Jinja template, or a known fallback.
struct ChatFormat {
    std::string name;              // "template" for the model's own, else "chatml", "llama3", ...
    std::vector<std::string> stopStrings;  // texts that end an assistant turn
    std::string reason;            // why this format, for a human ("the model has no chat template; ...")
    // A fallback (no usable template) recognised by the vocabulary's chat
    // tokens (<|im_start|>, <|eot_id|>, [INST], ...), not guessed from the
    // architecture: the model was evidently tuned for chat. An app may treat
    // a model without a template and without such tokens as a base model.
    bool fromVocabulary = false;
    // The whole conversation as plain text for the model to continue (no
    // chat format): what a base model gets under buildChatPrompt's
    // plainTextForBaseModels. name is then "plain".
    bool plainText = false;
    // How replies in this format mark reasoning.
    ReasoningSyntax reasoning = ReasoningSyntax::REASONING_SYNTAX_NONE;
    // The template reads these variables, so a user setting for them has an
    // effect (a settings panel shows the switch only then).
    bool readsEnableThinking = false;     // Qwen3's enable_thinking
    bool readsReasoningEffort = false;    // gpt-oss's reasoning_effort ("low", "medium", "high")
};

// The names RenderOptions::chatFormat accepts, in a stable order: "auto" (the
// model's own template; when it has none or it does not parse, a known format
// picked from its vocabulary and architecture), then the built-in formats
// "chatml", "llama2", "llama3", "gemma", "phi3", "mistral", "zephyr".
std::vector<std::string> chatFormatNames();

class CancelToken;

struct RenderOptions {
    bool addGenerationPrompt = false;   // end with the header of an assistant turn
    // One of chatFormatNames(), case-insensitive ("" means "auto"; "llama-3",
    // "phi-3", ... are accepted too). A built-in format replaces the model's
    // template; the stop strings are then that format's end-of-turn markers
    // plus the texts of the vocabulary's EOS and EOT tokens.
    std::string chatFormat = "auto";
    // Template variables beyond messages / add_generation_prompt / bos_token
    // / eos_token, as one JSON object text ("" for none), e.g.
    // {"enable_thinking": false, "reasoning_effort": "high"}.
    std::string kwargsJson;
    // Typed shortcuts for the two variables a chat app sets; applied on top
    // of kwargsJson when set.
    std::optional<bool> enableThinking;
    std::string reasoningEffort;          // "" = the template's default
    // Stops a template render that is still running (the user pressed Stop,
    // a client left, the server stops): the call returns Status::cancelled()
    // within a few thousand template steps. Null: only the template's own
    // limits end it (docs/chat-templates.md lists them).
    std::shared_ptr<const CancelToken> cancel;
};

// Renders a conversation with the model's chat template (or the fallback
// format it picks, or the format `options.chatFormat` forces). The returned
// text is tokenized with parseSpecial = true. A BOS the template writes at the
// start is left out when the vocabulary adds BOS itself, so
// tokenize(text, addSpecial = true, parseSpecial = true) gives exactly one.
// Errors: an unknown format name (the message lists the valid ones), a
// template error. Cost: "auto" reuses the format parsed once per model; a
// forced format is parsed on its first use and kept.
Result<std::string> renderChat(const Model &model, const std::vector<ChatMessage> &messages,
                               const RenderOptions &options, ChatFormat *formatUsed = nullptr);
// The same with the model's own choice ("auto").
Result<std::string> renderChat(const Model &model, const std::vector<ChatMessage> &messages,
                               bool addGenerationPrompt, ChatFormat *formatUsed = nullptr);

// The format renderChat() uses for `chatFormat` (a name as in RenderOptions),
// without rendering: e.g. to show which format "auto" picks for a model.
Result<ChatFormat> chatFormatFor(const Model &model, const std::string &chatFormat = "auto");
// The same, as buildChatPrompt() decides it: with plainTextForBaseModels,
// "auto" on a model with neither a chat template nor chat tokens in its
// vocabulary (a base model) gives the plain-text format. This is the one
// answer to "which format, and why" that a user interface shows.
Result<ChatFormat> chatFormatFor(const Model &model, const std::string &chatFormat, bool plainTextForBaseModels);
// The same decision from a file's header, without loading it (a model card
// before the load). Reads metadata only; costs a copy of the vocabulary's
// token texts and a parse of the template.
Result<ChatFormat> chatFormatFor(const std::string &path, const std::string &chatFormat, bool plainTextForBaseModels);

// ---- prompt building --------------------------------------------------------

enum class Truncation {
    // Keep the system messages at the start and the newest turns; drop whole
    // exchanges from the oldest (the kept part starts with a user message).
    TRUNCATION_DROP_OLDEST,
    // Refuse (an error naming the sizes) when the conversation does not fit.
    TRUNCATION_REFUSE,
};

struct PromptOptions {
    // Format and template variables (addGenerationPrompt is always on: the
    // reply continues after the prompt).
    RenderOptions render;
    // "auto" on a base model renders plain text (see chatFormatFor).
    bool plainTextForBaseModels = false;
    // Most tokens the prompt may have: the context minus the room kept for
    // the reply. 0: no limit.
    uint32_t budget = 0;
    Truncation truncation = Truncation::TRUNCATION_DROP_OLDEST;
    // The first exchange (the first user message after the system messages
    // and the messages up to the next user message) is kept like the system
    // messages: TRUNCATION_DROP_OLDEST drops what follows it, and keepTokens
    // covers it (a context shift keeps it). What a chat whose context policy
    // is "shift" wants: the task it was given and the first answer stay.
    bool keepFirstExchange = false;
};

struct ChatPrompt {
    std::vector<Token> tokens;       // ready for Session::generate (BOS as the vocabulary wants)
    // Leading tokens of the system prompt, and of the first exchange with
    // keepFirstExchange (GenerateOptions::nKeep).
    int32_t keepTokens = 0;
    // messages[firstMessage..] are in the prompt, with the leading system
    // messages and the keptMessages messages after them (the first exchange,
    // with keepFirstExchange; else 0); the messages between those and
    // firstMessage were left out. With nothing left out, firstMessage is the
    // number of leading system messages (plus keptMessages) and
    // droppedMessages is 0.
    size_t firstMessage = 0;
    size_t droppedMessages = 0;
    size_t keptMessages = 0;
    ChatFormat format;               // what rendered it and why; its stopStrings end the reply
    ReasoningOptions reasoning;      // for GenerateOptions::reasoning
};

// Renders `messages` (oldest first; the reply continues after the last) in
// the chosen format, tokenizes, and fits the result into options.budget.
// Cost: the template is rendered once for the whole conversation; when it
// does not fit, the cut is found from per-message token counts and the kept
// part is rendered once more (when that estimate is off, the neighbouring
// cut is rendered too: at most 1 + the number of user messages renders).
// Errors: an unknown format, a template error, no messages, a conversation
// that does not fit (TRUNCATION_REFUSE, or when even the system prompt and
// the last user message exceed the budget; the message names the sizes).
Result<ChatPrompt> buildChatPrompt(const Model &model, const std::vector<ChatMessage> &messages,
                                   const PromptOptions &options);

// ---- constrained output ------------------------------------------------------

// A compiled constraint on a reply (opaque, immutable, shareable between
// requests on the model it was compiled for): the sampler only draws tokens
// that keep the reply a prefix of a text the grammar accepts, and an
// end-of-generation token only once the text is complete.
class Grammar;

struct GrammarOptions {
    // Fixed texts around the JSON value (e.g. "<tool_call>\n" and "\n</tool_call>").
    std::string prefix;
    std::string suffix;
};

// Compiles a JSON schema (see docs/server.md for the keywords; "{}" or
// "true": any JSON value; {"type": "object"}: any object) into a grammar over
// `model`'s vocabulary. Errors name the keyword that is not supported or the
// bound that was passed ("schema.properties.a: 'pattern' is not supported").
// Cost: O(schema); the model's vocabulary index is built on first use
// (a sort of its token texts) and kept while the model lives.
Result<std::shared_ptr<const Grammar>> compileJsonSchemaGrammar(const std::shared_ptr<const Model> &model,
                                                                std::string_view schemaJson,
                                                                const GrammarOptions &options = {});

struct SamplingParams {
    float temperature = 0.8f;        // <= 0: greedy
    int32_t topK = 40;               // <= 0: off
    float topP = 0.95f;              // 1: off
    float minP = 0.05f;              // 0: off
    float typicalP = 1.0f;           // 1: off
    float repeatPenalty = 1.0f;      // 1: off
    int32_t penaltyLastN = 64;       // tokens considered by the penalties (-1: whole context)
    float frequencyPenalty = 0.0f;
    float presencePenalty = 0.0f;
    int32_t mirostat = 0;            // 0 off, 2 = mirostat v2
    float mirostatTau = 5.0f;
    float mirostatEta = 0.1f;
    uint32_t seed = 0xFFFFFFFFu;     // 0xFFFFFFFF: random
    // Null: no constraint. Else every sampled token keeps the reply inside
    // the grammar (a token it refuses is replaced by a draw from the allowed
    // ones, with the same stages).
    std::shared_ptr<const Grammar> grammar;
    // > 0: the sampler records, per generated token, its log-probability and
    // this many most likely alternatives (GenerateResult::logprobs), from the
    // distribution it drew from. At most 20.
    int32_t logprobs = 0;
    bool recordLogprobs = false;     // the chosen token's log-probability even when logprobs is 0
};

// Cancels one request: cancel() from any thread; the request holding the
// token stops at its next check (between the layers of a prompt chunk and
// between generated tokens) with STOP_REASON_CANCELLED. A cancelled token
// stays cancelled, and each request has its own, so a cancel never leaks
// into a later request; a request given an already cancelled token stops
// before evaluating anything.
class CancelToken {
public:
    void cancel() noexcept { m_cancelled.store(true, std::memory_order_release); }
    bool isCancelled() const noexcept { return m_cancelled.load(std::memory_order_acquire); }

private:
    std::atomic<bool> m_cancelled{false};
};

enum class ContextOverflow {
    CONTEXT_OVERFLOW_STOP,           // stop generating when the context is full (STOP_REASON_CONTEXT_FULL)
    CONTEXT_OVERFLOW_SHIFT,          // keep nKeep tokens, drop half of the rest, go on
                                     // (not for models with recurrent layers, ModelInfo::canShiftContext():
                                     // their state cannot drop tokens, so they stop as with STOP)
};

// Receives UTF-8-complete pieces of text; return false to stop.
using TextCallback = std::function<bool(std::string_view piece)>;

// Speculative decoding: tokens guessed cheaply (drafts) are checked by the
// model in the same batched pass as the next token, so one pass can yield
// several tokens. Exact: the reply is token for token the one without
// drafts (greedy, and sampled with the same seed), because every position's
// logits are computed bit for bit alike in a verification pass (the engine
// is batch-invariant) and each draft is accepted only when the sampler
// chain, run as without drafts, picks it.
enum class SpeculativeMode {
    SPECULATIVE_AUTO,    // the best drafter the file allows: MTP where it has a block, else n-gram
    SPECULATIVE_NGRAM,   // prompt lookup: continuations copied from the conversation so far
    SPECULATIVE_OFF,
    SPECULATIVE_MTP,     // the file's multi-token-prediction block (ModelInfo::mtpDrafting), or Gemma 4's
                         // assistant file named in draftModel (ModelInfo::draftsFor); an error without either
    SPECULATIVE_DRAFT,   // a smaller model with the same vocabulary (SpeculativeOptions::draftModel)
};

struct SpeculativeOptions {
    SpeculativeMode mode = SpeculativeMode::SPECULATIVE_AUTO;
    // Most draft tokens per step (0..16; 0: off). The length adapts per
    // request to its recent acceptance, down to none.
    int32_t draftMax = 8;
    // A Gemma 4 assistant (a gemma4-assistant .gguf: ModelInfo::draftsFor is
    // "gemma4") under MTP, AUTO or DRAFT: Gemma 4's MTP drafter, loaded by
    // the first request that names it and kept until one names another. It
    // has no KV cache of its own: it reads the model's, and the model's last
    // hidden state; greedy drafts of its argmax, verified as any drafts
    // (exact). Refused when the model is not the Gemma 4 it was made for.
    // SPECULATIVE_DRAFT: the draft model's .gguf. Loaded by the first request
    // that names it (on the submitting thread) and kept beside the model
    // with its own KV cache (the scheduler's context x parallel positions)
    // until a request names another; refused (the request fails) when its
    // vocabulary is not the model's (checkDraftModel). Greedy requests
    // draft its argmax; sampled ones (temperature > 0, no mirostat, no
    // grammar) draw drafts from its distribution q and verify them with
    // the speculative-sampling rule: the reply has the model's distribution
    // exactly, but a seed no longer gives the same draw as without drafts.
    std::string draftModel;
};

// Whether the .gguf at draftPath can draft for `model`: read from its header
// and vocabulary without loading its weights; compared as the reference
// compares them (tokenizer kind, BOS/EOS, sizes within 128, every token's
// text from id 5 on). Its ModelInfo, for the memory it will take (its
// fileSize mapped, kvCacheBytes(context) per sequence); an error naming the
// first difference otherwise.
Result<ModelInfo> checkDraftModel(const Model &model, const std::string &draftPath);
// The same from the model's file (its header and vocabulary only).
Result<ModelInfo> checkDraftModel(const std::string &modelPath, const std::string &draftPath);

struct GenerateOptions {
    int32_t maxTokens = -1;          // -1: until end of generation or the context is full (reasoning counts)
    std::vector<std::string> stopStrings;
    ContextOverflow overflow = ContextOverflow::CONTEXT_OVERFLOW_SHIFT;
    int32_t nKeep = 0;               // tokens kept at the start on a shift (BOS is always kept)
    // This request's cancel token (null: only Session::cancel() stops it).
    std::shared_ptr<const CancelToken> cancel;
    // Splits the reply into reasoning and answer: the answer goes to the
    // text callback and GenerateResult::text, the reasoning (without its
    // markers) to onReasoning (may be null) and GenerateResult::reasoning.
    // Stop strings apply to the answer only.
    ReasoningOptions reasoning;
    TextCallback onReasoning;
    // Tool calls the reasoning syntax keeps apart (Gemma 4's "<|tool_call>",
    // harmony messages to a recipient): their text, markers removed as
    // chat/reasoning_split.h says, to this callback (may be null) and
    // GenerateResult::toolCallText; never to the answer or the reasoning.
    TextCallback onToolCall;
    // Control tokens whose text the reply shows (the reference's "preserved
    // tokens": "<|python_tag|>", "[TOOL_CALLS]", ...), so a tool-call parser
    // sees them; other control tokens stay invisible. Texts that are not a
    // control token of the vocabulary are ignored.
    std::vector<std::string> renderedControlTokens;
    SpeculativeOptions speculative;
};

enum class StopReason {
    STOP_REASON_END_OF_GENERATION,
    STOP_REASON_MAX_TOKENS,
    STOP_REASON_STOP_STRING,
    STOP_REASON_CANCELLED,           // cancel() or the callback returned false
    STOP_REASON_CONTEXT_FULL,
};

struct Timings {
    int32_t promptTokens = 0;        // tokens actually computed for the prompt (after prefix reuse)
    int32_t reasoningTokens = 0;     // generated tokens that were reasoning (included in generatedTokens)
    double reasoningMs = 0;          // time from the first generated token to the end of the reasoning
    int32_t reusedTokens = 0;        // prompt tokens taken from the KV cache
    double promptMs = 0;
    int32_t generatedTokens = 0;
    double generateMs = 0;
    int32_t draftedTokens = 0;       // draft tokens verified (speculative decoding)
    int32_t acceptedTokens = 0;      // of them, accepted (each saved one forward pass)
    double promptTokensPerSecond() const { return promptMs > 0 ? promptTokens * 1000.0 / promptMs : 0; }
    double generateTokensPerSecond() const { return generateMs > 0 ? generatedTokens * 1000.0 / generateMs : 0; }
};

// One generated token's log-probability under the distribution the sampler
// drew it from, and the most likely alternatives there (SamplingParams::logprobs).
struct TokenLogprob {
    Token token = 0;
    float logprob = 0.0f;
};
struct TokenLogprobs {
    Token token = 0;
    float logprob = 0.0f;
    std::vector<TokenLogprob> top;   // most likely first
};

struct GenerateResult {
    StopReason stopReason = StopReason::STOP_REASON_END_OF_GENERATION;
    std::vector<Token> tokens;       // generated tokens; filled as they come: in the text callbacks it
                                     // holds every token generated so far (a caller's live count)
    std::string text;                // the answer: the text the callback received, concatenated
    std::string reasoning;           // the reasoning, without its markers ("" when none)
    std::string toolCallText;        // GenerateOptions::onToolCall's pieces, concatenated
    std::vector<TokenLogprobs> logprobs;   // per generated token, when SamplingParams asked for them
    Timings timings;
};

struct SessionOptions {
    uint32_t contextSize = 4096;     // clamped to the model's trained context
    int32_t threads = 0;             // 0: all physical cores
    // Attention computed as the reference engine does with flash attention
    // (its default since 2025: an online softmax with an F16 accumulator for
    // generation and short prompts, F32 tiles for long prompts), or as it does
    // without (F16 probabilities). Both within float rounding of exact
    // attention; the choice decides which of the reference's rounding Burrow
    // reproduces (its `-fa on|off`).
    bool flashAttention = true;
    // KV cache storage (see KvCacheType). Q8_0 halves the cache's memory; it
    // needs flashAttention (create() fails with a message naming both
    // options otherwise, as the reference does with -fa off -ctv q8_0).
    KvCacheType kvCacheType = KvCacheType::KV_CACHE_F16;
};

// Prompt progress: tokens done, tokens total.
using ProgressCallback = std::function<void(int32_t done, int32_t total)>;

class Session {
public:
    // Allocates the KV cache (fails with a message when memory is short).
    static Result<std::unique_ptr<Session>> create(std::shared_ptr<const Model> model, const SessionOptions &options = {});
    virtual ~Session() = default;

    // Evaluates `prompt` (the whole conversation so far: the longest prefix
    // shared with the previous call is reused from the KV cache), then samples
    // until a stop condition. Errors (prompt longer than the context, ...)
    // come back as a Status.
    virtual Status generate(const std::vector<Token> &prompt, const SamplingParams &sampling,
                            const GenerateOptions &options, const TextCallback &onText,
                            GenerateResult *result, const ProgressCallback &onPromptProgress = {}) = 0;

    // Logits for the next token after evaluating `prompt` (with prefix reuse).
    // Stopped by cancel(): Status::cancelled() (isCancelled()).
    virtual Status evaluate(const std::vector<Token> &prompt, std::vector<float> *logits) = 0;

    // Thread-safe: the generate() or evaluate() running now stops at its next
    // check (see CancelToken); no effect on later calls. Prefer a
    // CancelToken per request (GenerateOptions::cancel), which also covers a
    // request that has not started yet.
    virtual void cancel() = 0;
    // Forget the KV cache.
    virtual void reset() = 0;

    virtual uint32_t contextSize() const = 0;
    virtual const std::vector<Token> &cachedTokens() const = 0;  // what the KV cache holds
};


// ---- many requests at once: the scheduler ---------------------------------
//
// A Scheduler serves many requests over one model from its own thread: each
// step builds one batch from one token of every generating sequence plus
// chunks of waiting prompts within a token budget (chunked prefill), runs one
// forward pass over it (each weight read once for all its rows; attention per
// row over its own sequence's KV blocks) and samples every sequence with its
// own sampler, stop strings, text stream and reasoning split. The KV cache is
// paged (blocks of 16 positions, shared between sequences whose prompts start
// alike; freed blocks stay cached until the space is needed). When blocks run
// out, the lowest-priority, most recently admitted sequence is preempted: its
// blocks are freed and it is recomputed later from its cached prefix; the
// caller sees only a delay.
//
// Callbacks run on the scheduler thread, one request's in order; they must
// be quick (copy the text, signal a waiter). A callback returning false
// cancels its request. onDone is called exactly once per accepted request
// (also when cancelled or failed) and is the last call for it.

struct SchedulerOptions {
    uint32_t contextSize = 4096;     // positions per sequence at most (clamped to the model's trained context)
    int32_t parallel = 4;            // sequences generating at once (more requests wait in the queue)
    // KV cache positions in all (shared by the sequences); 0: contextSize * parallel.
    uint32_t kvPositions = 0;
    int32_t batchTokens = 512;       // rows per forward pass (generating tokens + prompt chunks)
    // Prompt rows per pass while some sequence is generating, at most: bounds
    // the time between its tokens while a long new prompt is evaluated. Within
    // it, the scheduler takes as many rows as keep a step under
    // maxStepSlowdown times a generation-only step (measured as it runs).
    int32_t prefillTokensWhileGenerating = 64;
    float maxStepSlowdown = 2.5f;
    int32_t threads = 0;             // 0: all physical cores
    bool flashAttention = true;
    KvCacheType kvCacheType = KvCacheType::KV_CACHE_F16;   // as SessionOptions::kvCacheType
    int32_t maxQueued = 64;          // waiting requests beyond which submit() refuses (busy)
};

struct Request {
    std::vector<Token> prompt;       // the whole conversation (a cached prefix is reused)
    SamplingParams sampling;
    // maxTokens, stop strings, reasoning, cancel; overflow and nKeep: what a
    // full context does. SHIFT keeps nKeep tokens (BOS always), drops half of
    // the rest and computes the kept tail again at its new positions (a
    // sequence may share its blocks with others, so they are not moved), then
    // goes on; STOP, or a model that cannot shift, ends the reply with
    // STOP_REASON_CONTEXT_FULL.
    GenerateOptions options;
    // Positions this request may use, prompt and reply (0, or more than
    // SchedulerOptions::contextSize: that). A chat whose context is smaller
    // than the scheduler's.
    uint32_t contextSize = 0;
    int32_t priority = 0;            // higher runs first; equal: first come, first served
    bool ignoreEndOfGeneration = false;   // generate through end-of-generation tokens (benchmarks)
    TextCallback onText;             // answer pieces (UTF-8 complete)
    // After each generated token (answer or reasoning), before its text (if
    // any) reaches onText / options.onReasoning: the tokens generated so
    // far. The text callbacks see pieces, not tokens (a piece may hold
    // several tokens, or wait for the next one); this is the count. Optional.
    std::function<void(int32_t generated)> onToken;
    // With SamplingParams::logprobs / recordLogprobs: each generated token's
    // entry, right after onToken. Optional.
    std::function<void(const TokenLogprobs &entry)> onLogprobs;
    ProgressCallback onPromptProgress;
    // The end: the result (stop reason, tokens, text, reasoning, timings)
    // and Status::ok(), or an error (the prompt is too long, ...).
    std::function<void(const GenerateResult &result, const Status &status)> onDone;
};

using RequestId = uint64_t;

struct SchedulerStats {
    int32_t running = 0;             // sequences holding KV blocks (generating or evaluating their prompt)
    int32_t waiting = 0;             // queued, not started (or preempted)
    uint32_t kvBlocksTotal = 0;      // full-attention blocks of 16 positions
    uint32_t kvBlocksUsed = 0;       // referenced by a sequence
    uint32_t kvBlocksCached = 0;     // free but still holding a known prefix
    uint64_t steps = 0;              // forward passes so far
    uint64_t preemptions = 0;
    uint64_t reusedTokens = 0;       // prompt positions taken from cached blocks (or a kept recurrent state)
    // Recurrent models (qwen35): finished sequences kept, state and blocks
    // (counted in kvBlocksUsed), for a request that continues one; their
    // blocks are given back when others need them.
    int32_t parked = 0;
};

class Scheduler {
public:
    static Result<std::shared_ptr<Scheduler>> create(std::shared_ptr<const Model> model,
                                                     const SchedulerOptions &options = {});
    // Cancels what is left and joins the thread (onDone is called for each).
    virtual ~Scheduler() = default;

    // Queues a request. Errors without queuing (onDone is not called): the
    // queue is full (Status::busy(): retry later), the prompt is empty, longer
    // than contextSize or has a token outside the vocabulary, bad sampling.
    virtual Result<RequestId> submit(Request request) = 0;
    // Thread-safe; the request stops within one step (STOP_REASON_CANCELLED).
    // Unknown or finished ids are ignored.
    virtual void cancel(RequestId id) = 0;
    // Thread-safe; from the next step the request runs at `priority` (its
    // place in the queue, among the prompt chunks, and as a preemption
    // victim): e.g. the chat the user switched to rises above the others.
    // Unknown or finished ids are ignored.
    virtual void setPriority(RequestId id, int32_t priority) = 0;
    virtual SchedulerStats stats() const = 0;
    virtual const SchedulerOptions &options() const = 0;
};

} // namespace burrow
