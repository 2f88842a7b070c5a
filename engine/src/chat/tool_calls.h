// Tool calls in a model's reply: which syntax a chat template's family
// writes them in, and a streaming parser that turns the reply into content
// and OpenAI-style calls ({name, arguments as a JSON object text}).
//
// Syntaxes (chosen from the template's text, the markers the reference's
// common/chat.cpp keys on):
//   TAGGED       "<tool_call>" BODY "</tool_call>", BODY either JSON
//                {"name": N, "arguments": {...}} (Qwen3, Qwen2.5, Hermes) or
//                XML "<function=N><parameter=P>VALUE</parameter></function>"
//                (Qwen3-Coder, Qwen3.5); several calls in a row.
//   HARMONY      gpt-oss: a message to a recipient. The reasoning splitter
//                keeps it apart (ReplyPartKind::REPLY_PART_KIND_TOOL_CALL);
//                its text "to=functions.N<|message|>ARGS" comes to pushToolText().
//   GEMMA4       Gemma 4: "<|tool_call>call:N{k:<|"|>v<|"|>,...}<tool_call|>";
//                the splitter keeps it apart too ("call:N{...}" to pushToolText()).
//   MISTRAL      "[TOOL_CALLS]" then a JSON array [{"name","arguments"},...]
//                or "N[ARGS]{...}" (newer Mistral templates; "N[CALL_ID]ID[ARGS]{...}"
//                in Mistral Small 3.2 / Devstral, the id dropped), to the end.
//   DEEPSEEK_V3  "<｜tool▁calls▁begin｜>" then per call
//                "<｜tool▁call▁begin｜>function<｜tool▁sep｜>N\n```json\nARGS\n```<｜tool▁call▁end｜>"
//                (V3.1: "<｜tool▁call▁begin｜>N<｜tool▁sep｜>ARGS<｜tool▁call▁end｜>").
//   JSON         a reply that is one JSON object {"name": N, "parameters" |
//                "arguments": {...}}, optionally after "<|python_tag|>"
//                (Llama 3.x; also a template that knows no tool syntax).
//
// Parser contract:
// - pushAnswer(piece) takes the next answer bytes in any cut, pushToolText()
//   the tool-call parts; each returns the items that are certain now, in
//   order: content text and complete calls. finish() returns what is held.
// - The result does not depend on the cut: the concatenated content and the
//   list of calls are the same for any split of the same bytes (tested at
//   every byte).
// - Markup never reaches the content, except as a fallback: a call whose
//   body does not parse (malformed JSON, no name), or that grows past
//   maxCallBytes, is given back as content, as written, and detection stops
//   (the rest of the reply is content).
// - White space next to a call (between the text and a call, between
//   calls, after the last) is not content; a reply without calls keeps all
//   of its own.
// - Arguments are re-serialized compactly (a JSON object text; "{}" when
//   the call has none). XML parameter values are JSON when the tool's schema
//   gives the parameter a non-string type and the value parses, else strings.
//
// Streamed arguments (ToolCallParser::Options::streamArguments; off by
// default, and then nothing above changes):
// - Each call comes as TOOL_CALL_ITEM_CALL_START (call.name, as soon as the
//   name is certain), TOOL_CALL_ITEM_CALL_ARGUMENTS pieces (content: the
//   next bytes of the arguments text, as soon as they are certain), then the
//   usual TOOL_CALL_ITEM_CALL item (isCall, the whole call) that ends it;
//   the three are contiguous, one call at a time.
// - The concatenated pieces of a call equal its `arguments` as above,
//   byte for byte (JSON bodies: canonicalized as they come, see
//   json_canon_stream.h; XML bodies: "{" with the name, then each parameter
//   once its </parameter> is read; Gemma 4 bodies: each top-level member
//   once its ',' or '}' is read). The items, adjacent pieces merged, do not
//   depend on the cut. A body the streamer cannot follow (arguments as a
//   JSON string, "arguments" before "name", a "function" wrapper) is sent
//   in one piece when the call is complete.
// - A call already started that then turns out malformed, past
//   maxCallBytes, or not what its pieces said (e.g. "arguments" given twice)
//   is ended as it stands: its TOOL_CALL_ITEM_CALL (asItStands) carries the
//   name and the arguments sent so far (not always a whole JSON object);
//   then the call's text, as written, comes as content, and detection
//   stops. So for a malformed or oversized call the content is the
//   unstreamed parse's (which gives it back as content too); for one whose
//   pieces were not its arguments, its text is content where the unstreamed
//   parse has the call. (Calls ended before it in the same held text, e.g.
//   an earlier element of a Mistral array, stand as sent.)
//
// Cost: O(bytes) per push outside a call (a marker's length held back);
// a call's body is held until it is complete (at most maxCallBytes);
// streaming reads each held byte once more (a call's head: at most 4 KiB
// read again per push until its name is certain).
#pragma once

#include "common/json.h"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace burrow::chat {

enum class ToolCallSyntax {
    TOOL_CALL_SYNTAX_JSON,
    TOOL_CALL_SYNTAX_TAGGED,
    TOOL_CALL_SYNTAX_HARMONY,
    TOOL_CALL_SYNTAX_GEMMA4,
    TOOL_CALL_SYNTAX_MISTRAL,
    TOOL_CALL_SYNTAX_DEEPSEEK_V3,
};

// The syntax of a template's family (JSON when it names none of the markers).
ToolCallSyntax toolCallSyntaxForTemplate(std::string_view templateSource);
const char *toolCallSyntaxName(ToolCallSyntax syntax);   // "tagged", "harmony", ...
// Control tokens the reply must show for the parser to see them
// (GenerateOptions::renderedControlTokens).
std::vector<std::string> toolCallControlTokens(ToolCallSyntax syntax);
// Whether the family's templates read an earlier call's arguments as an
// object (most: "arguments | tojson", "arguments | items") rather than the
// string OpenAI clients send (DeepSeek V3 concatenates it as text).
bool toolCallArgumentsAsObject(ToolCallSyntax syntax);
// Whether an assistant turn that calls tools without text must have content
// none for the family's templates (DeepSeek V3 tests `content is none`)
// rather than "" (most read it as a string: `'<think>' in content`).
bool toolCallContentIsNone(ToolCallSyntax syntax);

struct ToolCall {
    std::string name;
    std::string arguments;   // a JSON object, compact
};

enum class ToolCallItemKind {
    TOOL_CALL_ITEM_CONTENT,
    TOOL_CALL_ITEM_CALL,            // isCall: a whole call (streamed: the end of one)
    TOOL_CALL_ITEM_CALL_START,      // streamed only: call.name
    TOOL_CALL_ITEM_CALL_ARGUMENTS,  // streamed only: content is the next piece of the arguments
};

struct ToolCallItem {
    bool isCall = false;
    std::string content;     // !isCall
    ToolCall call;           // isCall
    ToolCallItemKind kind = ToolCallItemKind::TOOL_CALL_ITEM_CONTENT;   // set with isCall for a call
    bool asItStands = false;   // streamed: a call ended as it stands (see "Streamed arguments")
};

class ToolCallStreamer;

class ToolCallParser {
public:
    // `tools`: the request's tools array (OpenAI shape; may be null), for
    // the types of XML parameters.
    ToolCallParser(ToolCallSyntax syntax, const json::JsonValue *tools = nullptr, size_t maxCallBytes = 1 << 20);
    struct Options {
        size_t maxCallBytes = 1 << 20;
        bool streamArguments = false;   // see "Streamed arguments" above
    };
    ToolCallParser(ToolCallSyntax syntax, const json::JsonValue *tools, Options options);
    ~ToolCallParser();
    ToolCallParser(const ToolCallParser &other);
    ToolCallParser &operator=(const ToolCallParser &other);
    ToolCallParser(ToolCallParser &&) noexcept;
    ToolCallParser &operator=(ToolCallParser &&) noexcept;

    std::vector<ToolCallItem> pushAnswer(std::string_view piece);
    std::vector<ToolCallItem> pushToolText(std::string_view piece);
    std::vector<ToolCallItem> finish();

private:
    enum class State { STATE_START, STATE_CONTENT, STATE_CALL, STATE_PLAIN, STATE_DONE };

    void processAnswer(bool final, std::vector<ToolCallItem> &out);
    void processToolText(bool final, std::vector<ToolCallItem> &out);
    // Parses a held call body (markers included as captured); false: not a call.
    bool parseCalls(std::string_view captured, std::vector<ToolCall> &calls) const;
    bool parseXmlFunction(std::string_view body, ToolCall &call) const;
    void content(std::string_view text, std::vector<ToolCallItem> &out);
    void call(ToolCall &&c, std::vector<ToolCallItem> &out);
    void giveBack(std::vector<ToolCallItem> &out);
    // Streaming: the held call's calls (parsed) or its failure, to the
    // streamer; false: give the call back as content.
    bool endCapture(bool parsed, std::vector<ToolCall> &calls, std::vector<ToolCallItem> &out);

    ToolCallSyntax m_syntax;
    json::JsonValue m_tools;
    size_t m_maxCallBytes;
    State m_state = State::STATE_START;
    std::string m_pending;    // answer bytes not yet decided
    std::string m_captured;   // the call being held (markers included)
    std::string m_toolText;   // pushToolText() bytes not yet parsed
    bool m_toolTextPlain = false;
    std::string m_blank;      // white space after the last content, held (see content())
    bool m_sawCall = false;
    std::unique_ptr<ToolCallStreamer> m_streamer;   // Options::streamArguments only
};

} // namespace burrow::chat
