// ToolCallStreamer: the part of ToolCallParser (tool_calls.h) that streams
// a held call's name and arguments before the call is complete
// (ToolCallParser::Options::streamArguments). The parser gives it the held
// text as it grows (advance) and the parse of it once complete
// (endCapture); it writes the CALL_START / CALL_ARGUMENTS / CALL items.
//
// Contract (the header's "Streamed arguments" in tool_calls.h):
// - What advance() emits depends only on the bytes, not on the cut: every
//   decision waits until the bytes settle it, and a head (the bytes before
//   a call's arguments) is given up at 4 KiB whatever the cut.
// - endCapture() emits what the streamed items still lack so that each
//   call's pieces concatenate to its parsed arguments, and returns true; or,
//   when the capture did not parse or its calls are not what was streamed,
//   ends the open call as it stands and returns false (the parser gives the
//   capture back as content).
// Cost: each held byte read once (a head: again per push, at most 4 KiB).
#pragma once

#include "chat/json_canon_stream.h"
#include "chat/tool_calls.h"
#include "common/json.h"

#include <string>
#include <string_view>
#include <vector>

namespace burrow::chat {

class ToolCallStreamer {
public:
    ToolCallStreamer(ToolCallSyntax syntax, const json::JsonValue &tools);

    // `held`: the capture's text so far, from its first byte (the opening
    // marker, or the start of the tool text); it only grows until endCapture().
    void advance(std::string_view held, std::vector<ToolCallItem> &out);
    bool endCapture(bool parsed, const std::vector<ToolCall> &calls, std::vector<ToolCallItem> &out);
    // Whether a call of the current capture was started.
    bool started() const { return m_open || !m_ended.empty(); }

private:
    enum class Phase { PHASE_HEAD, PHASE_JSON, PHASE_XML, PHASE_GEMMA, PHASE_TAIL, PHASE_OFF };
    enum class Head { HEAD_WAIT, HEAD_NONE, HEAD_FOUND };

    Head head(std::string_view s, size_t &pos, std::string &name, Phase &body);
    Head jsonCallHead(std::string_view s, size_t &pos, std::string &name);
    void start(std::string name, Phase body, std::vector<ToolCallItem> &out);
    void piece(std::string text, std::vector<ToolCallItem> &out);
    bool jsonBody(std::string_view held, std::vector<ToolCallItem> &out);
    bool xmlBody(std::string_view held, std::vector<ToolCallItem> &out);
    bool gemmaBody(std::string_view held, std::vector<ToolCallItem> &out);
    bool tail(std::string_view held);
    void reset();

    ToolCallSyntax m_syntax;
    json::JsonValue m_tools;
    Phase m_phase = Phase::PHASE_HEAD;
    size_t m_pos = 0;              // bytes of the capture read
    bool m_first = true;           // the next head is the capture's first
    bool m_inArray = false;        // the calls are a JSON array's elements
    bool m_open = false;           // m_current started and not ended
    ToolCall m_current;            // the open call: its name and the pieces sent
    std::vector<ToolCall> m_ended; // calls of this capture ended before it did
    JsonCanonStream m_canon;       // PHASE_JSON: the arguments; PHASE_TAIL: the call object's rest
    bool m_tailObject = false;     // PHASE_TAIL is reading the call object's rest
    bool m_firstMember = true;     // XML / Gemma: no member sent yet
    size_t m_scan = 0;             // XML / Gemma: where the next search starts
    int m_depth = 0;               // Gemma: nesting inside the arguments
    bool m_quoted = false;         // Gemma: inside <|"|> quotes
};

} // namespace burrow::chat
