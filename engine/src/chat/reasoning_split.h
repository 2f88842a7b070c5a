// Splitting a streamed reply into reasoning and answer, by the reasoning
// syntax of its chat format (burrow::ReasoningSyntax).
//
// Contract (ReasoningSplitter):
// - push(piece) takes the next bytes of the reply, in any cut (a token's
//   bytes, one byte, half a marker), and returns what can be emitted now as
//   (kind, text) parts, consecutive parts of one kind merged. It holds back
//   a tail that could still turn out to be (the start of) a marker, white
//   space whose fate depends on what follows, and an incomplete UTF-8
//   sequence at the end; finish() flushes what is held.
// - The result does not depend on how the reply is cut: the concatenated
//   reasoning and the concatenated answer are the same for any sequence of
//   push() calls with the same bytes (tested at every byte boundary).
// - Markers are removed; they belong to neither part.
// - Every emitted text ends on a UTF-8 character boundary when the input is
//   valid UTF-8 (invalid bytes are passed through, never dropped).
//
// THINK_TAGS (Qwen3, DeepSeek R1, QwQ): a reply whose first non-blank text is
// "<think>" (or that starts inside the block: ReasoningOptions::
// startsInReasoning) has reasoning up to "</think>"; the rest is the answer.
// As llama-server's "deepseek" reasoning format: the white space after
// "<think>" and before "</think>" is not part of the reasoning, the white
// space after "</think>" (the "\n\n" templates write) not part of the
// answer, and a reasoning of white space only is empty. Only the first
// block counts: "<think>" later in the answer is answer text. A reply that
// does not start with "<think>" is all answer (its white space kept).
// Unterminated reasoning at the end stays reasoning (trailing white space
// dropped).
//
// HARMONY (gpt-oss): the reply is a sequence of messages
//   [<|start|>ROLE]<|channel|>NAME[ to=..][ <|constrain|>TYPE]<|message|>BODY(<|end|>|<|return|>|<|call|>)
// The headers and terminators are markup (neither part). Bodies of the
// "final" channel (and of a header without a channel) are answer; of any
// other channel ("analysis", "commentary") reasoning, unless the header
// names a recipient (" to=functions.NAME"): that message is a tool call
// (REPLY_PART_KIND_TOOL_CALL), its part "to=RECIPIENT<|message|>" followed
// by the body (the arguments), never answer or reasoning. A reply that does
// not start with a header (<|channel|>, <|start|>, <|message|> or " to=")
// is answer. Text after a terminator that is not a new header is answer;
// white space between messages is dropped. A header without <|message|>
// within 512 bytes is given up on: from there the reply is answer as written.
//
// GEMMA4_CHANNEL (Gemma 4): "<|channel>NAME\n" opens a channel whose body
// up to "<channel|>" is reasoning (the white space after the header and
// before the close is not part of it; a header without a line break within
// 64 bytes is given up on: what follows "<|channel>" is the body). Channels
// may come anywhere in the reply (after a tool call too); the rest is
// answer, its white space after a "<channel|>" (and before a first
// "<|channel>") dropped.
// "<|tool_call>...<tool_call|>" is a tool call (REPLY_PART_KIND_TOOL_CALL),
// never answer; an unterminated one at the end stays a tool call.
//
// NONE: everything is answer (only the UTF-8 hold-back applies).
//
// Cost: O(bytes pushed) overall (each byte is scanned a bounded number of
// times: markers are short); memory: the held tail, at most a header (512
// bytes) or a run of white space inside reasoning.
#pragma once

#include "burrow/engine.h"

#include <string>
#include <string_view>
#include <vector>

namespace burrow::chat {

enum class ReplyPartKind {
    REPLY_PART_KIND_REASONING,
    REPLY_PART_KIND_ANSWER,
    // A tool call's text, kept out of the answer and the reasoning, for the
    // tool-call parser (chat/tool_calls.h): Gemma 4 "call:NAME{...}" (its
    // markers removed), harmony "to=functions.NAME<|message|>{...}".
    REPLY_PART_KIND_TOOL_CALL,
};

struct ReplyPart {
    ReplyPartKind kind = ReplyPartKind::REPLY_PART_KIND_ANSWER;
    std::string text;
};

class ReasoningSplitter {
public:
    explicit ReasoningSplitter(const ReasoningOptions &options = {});

    // The next bytes of the reply -> what can be emitted now (may be empty).
    std::vector<ReplyPart> push(std::string_view piece);
    // The end of the reply: everything still held, by the same rules.
    // After finish(), push() starts nothing new (it returns nothing).
    std::vector<ReplyPart> finish();

    // The bytes pushed so far end inside a reasoning block: <think> or the
    // body of a reasoning channel (for counting reasoning tokens as they
    // come; a harmony header counts as not reasoning).
    bool inReasoning() const;
    // A reasoning block was seen and has ended (the answer has begun).
    bool reasoningEnded() const { return m_reasoningEnded; }

    const ReasoningOptions &options() const { return m_options; }

private:
    enum class State {
        STATE_START,             // nothing decided yet
        STATE_THINK_LEAD,        // inside <think>, white space after it is skipped
        STATE_THINK,             // inside <think>
        STATE_AFTER_THINK,       // after </think>: white space is skipped
        STATE_HARMONY_HEADER,    // a harmony header, up to <|message|>
        STATE_HARMONY_BODY,      // a harmony message body of kind m_bodyKind
        STATE_HARMONY_BETWEEN,   // after a terminator
        STATE_ANSWER,            // the rest is answer
        STATE_CHANNEL_START,     // Gemma 4: nothing decided yet (white space before a channel is dropped)
        STATE_CHANNEL_ANSWER,    // Gemma 4: answer, watching for channels and tool calls
        STATE_CHANNEL_NAME,      // Gemma 4: after "<|channel>", up to the line break
        STATE_CHANNEL_LEAD,      // Gemma 4: a channel body, white space after the header skipped
        STATE_CHANNEL_BODY,      // Gemma 4: a channel body (reasoning), up to "<channel|>"
        STATE_CHANNEL_AFTER,     // Gemma 4: after "<channel|>": white space is skipped
        STATE_TOOL_CALL,         // Gemma 4: after "<|tool_call>", up to "<tool_call|>"
        STATE_DONE,              // finish() was called
    };

    void process(bool final, std::vector<ReplyPart> &out);
    bool harmonyHeader(bool final, std::vector<ReplyPart> &out);
    // The GEMMA4_CHANNEL states; false when m_state is not one of them.
    bool processChannels(bool final, std::vector<ReplyPart> &out);
    void emit(ReplyPartKind kind, std::string_view text, std::vector<ReplyPart> &out);

    ReasoningOptions m_options;
    State m_state = State::STATE_START;
    ReplyPartKind m_bodyKind = ReplyPartKind::REPLY_PART_KIND_ANSWER;
    bool m_reasoningEnded = false;
    std::string m_pending;   // bytes received and not yet emitted or dropped
};

// Whether a rendered prompt ends inside an open reasoning block, so that the
// reply starts as reasoning (ReasoningOptions::startsInReasoning):
// THINK_TAGS: the last "<think>" is followed by white space only (Qwen3-2507
// Thinking's generation prompt "<|im_start|>assistant\n<think>\n");
// HARMONY: the prompt ends in "<|message|>" after a header whose channel is
// not "final" ("<|channel|>analysis<|message|>"); GEMMA4_CHANNEL: the last
// "<|channel>" is not closed by a "<channel|>"; NONE: false.
bool promptEndsInReasoning(ReasoningSyntax syntax, std::string_view prompt);

// ReasoningOptions for a reply to `prompt` in a format with `syntax`.
ReasoningOptions reasoningOptionsFor(ReasoningSyntax syntax, std::string_view prompt);

} // namespace burrow::chat
