// Known chat formats and the choice between a model's own template and a
// fallback.
//
// A model without tokenizer.chat_template, or whose template does not parse,
// gets a known format chosen from its special tokens first (the vocabulary
// says more than the architecture: a Llama-architecture fine-tune often uses
// ChatML), then from its architecture, and ChatML when nothing matches. The
// choice says which format was used and why. A user may force a format by
// name.
//
// Stop strings: the texts that end an assistant turn: the known end-of-turn
// markers written in the template text (or the fallback's), plus the texts of
// the vocabulary's EOS and EOT tokens.
//
// The API is independent of the tokenizer: the vocabulary is a predicate
// "does a token with exactly this text exist".
#pragma once

#include "burrow/engine.h"
#include "chat/chat_template.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace burrow::chat {

enum class ChatFormatKind {
    CHAT_FORMAT_KIND_MODEL,     // the model's own template
    CHAT_FORMAT_KIND_CHATML,
    CHAT_FORMAT_KIND_LLAMA2,
    CHAT_FORMAT_KIND_LLAMA3,
    CHAT_FORMAT_KIND_GEMMA,
    CHAT_FORMAT_KIND_PHI3,
    CHAT_FORMAT_KIND_MISTRAL,
    CHAT_FORMAT_KIND_ZEPHYR,
};

// "model", "chatml", "llama2", "llama3", "gemma", "phi3", "mistral", "zephyr".
const char *chatFormatName(ChatFormatKind kind);
// Case-insensitive; also accepts "llama-2", "llama-3", "phi-3". nullopt when unknown.
std::optional<ChatFormatKind> chatFormatFromName(std::string_view name);
// The Jinja text of a built-in format (empty for CHAT_FORMAT_KIND_MODEL).
std::string_view builtinTemplateText(ChatFormatKind kind);
// Every built-in format, in a stable order (for --help and settings lists).
std::vector<ChatFormatKind> builtinChatFormats();

using VocabLookup = std::function<bool(std::string_view tokenText)>;

struct ChatFormatInputs {
    std::string architecture;     // general.architecture ("llama", "qwen2", "gemma2", ...)
    std::string templateText;     // tokenizer.chat_template; empty when absent
    VocabLookup vocabHas;         // may be null: then the vocabulary is not consulted
    std::string eosText;          // text of the EOS token (added to the stop strings when non-empty)
    std::string eotText;          // text of the EOT token (tokenizer.ggml.eot_token_id), likewise
    std::optional<ChatFormatKind> forced;   // the user's choice, if any
};

struct ChatFormatChoice {
    ChatFormatKind kind = ChatFormatKind::CHAT_FORMAT_KIND_CHATML;
    std::string name;             // chatFormatName(kind)
    std::string reason;           // human-readable: why this format
    bool byVocabulary = false;    // a fallback recognised by the vocabulary's chat tokens
    ChatTemplate chatTemplate;    // ready to render
    std::vector<std::string> stopStrings;
    // The model's own template only (built-in formats: NONE / false).
    ReasoningSyntax reasoning = ReasoningSyntax::REASONING_SYNTAX_NONE;   // reasoningSyntaxOf(its text)
    bool readsEnableThinking = false;     // it reads `enable_thinking`
    bool readsReasoningEffort = false;    // it reads `reasoning_effort`
};

// How replies in a template's format mark their reasoning, judged from its
// text: HARMONY when it writes gpt-oss's channel markup ("<|channel|>" and
// "<|message|>"), GEMMA4_CHANNEL when it writes Gemma 4's ("<|channel>" and
// "<channel|>"), THINK_TAGS when it deals in "<think>" or "</think>"
// (Qwen3, QwQ, DeepSeek R1 and its distills), else NONE. O(template).
ReasoningSyntax reasoningSyntaxOf(std::string_view templateText);

// The fallback format for a model by its vocabulary and architecture (never MODEL).
// `why` receives a short explanation ("vocabulary has <|im_start|>");
// `byVocabulary` whether the vocabulary's chat tokens decided it (false when
// it is a guess by architecture, or the ChatML default).
ChatFormatKind detectFallbackFormat(const std::string &architecture, const VocabLookup &vocabHas, std::string *why = nullptr,
                                    bool *byVocabulary = nullptr);

// The texts that end an assistant turn for this template text: markers from
// <|im_end|>, <|eot_id|>, <|eom_id|>, <end_of_turn>, <|end|>,
// <|END_OF_TURN_TOKEN|>, <｜end▁of▁sentence｜>, <|endoftext|>, <|end_of_text|>,
// </s>, <turn|> (Gemma 4) that appear in it, then eosText and eotText (empty ones skipped, no
// duplicates). A harmony template (gpt-oss) ends a reply with <|return|> or
// <|call|>, never with <|end|>, which only ends a channel: those two replace it.
std::vector<std::string> stopStringsFor(std::string_view templateText, const std::string &eosText,
                                        const std::string &eotText = {});

// Picks the model's template when it parses, else a fallback (or the forced format).
// Fails only if a built-in template fails to parse (a programming error).
Result<ChatFormatChoice> chooseChatFormat(const ChatFormatInputs &inputs);

} // namespace burrow::chat
