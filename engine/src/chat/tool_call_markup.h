// The markup of the tool-call syntaxes (chat/tool_calls.h) and the helpers
// both the parser (tool_calls.cpp) and the argument streamer
// (tool_call_stream.cpp) read it with. Internal to the chat component.
#pragma once

#include "common/json.h"

#include <string>
#include <string_view>

namespace burrow::chat::markup {

inline constexpr std::string_view TAG_OPEN = "<tool_call>";
inline constexpr std::string_view TAG_CLOSE = "</tool_call>";
inline constexpr std::string_view PYTHON_TAG = "<|python_tag|>";
inline constexpr std::string_view MISTRAL_OPEN = "[TOOL_CALLS]";
inline constexpr std::string_view MISTRAL_ARGS = "[ARGS]";
inline constexpr std::string_view MISTRAL_CALL_ID = "[CALL_ID]";   // NAME[CALL_ID]ID[ARGS] (Mistral Small 3.2, Devstral)
inline constexpr std::string_view DS_CALLS_OPEN = "<｜tool▁calls▁begin｜>";
inline constexpr std::string_view DS_CALLS_CLOSE = "<｜tool▁calls▁end｜>";
inline constexpr std::string_view DS_CALL_OPEN = "<｜tool▁call▁begin｜>";
inline constexpr std::string_view DS_CALL_CLOSE = "<｜tool▁call▁end｜>";
inline constexpr std::string_view DS_SEP = "<｜tool▁sep｜>";
inline constexpr std::string_view H_MESSAGE = "<|message|>";
inline constexpr std::string_view G_QUOTE = "<|\"|>";
inline constexpr std::string_view F_OPEN = "<function=";
inline constexpr std::string_view F_CLOSE = "</function>";
inline constexpr std::string_view P_OPEN = "<parameter=";
inline constexpr std::string_view P_CLOSE = "</parameter>";

inline bool isBlank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

inline bool startsWith(std::string_view s, std::string_view p)
{
    return s.size() >= p.size() && s.compare(0, p.size(), p) == 0;
}

std::string_view trim(std::string_view s);

// Mistral's NAME[CALL_ID]ID before [ARGS]: the name (the id is dropped).
std::string_view mistralName(std::string_view head);

// Gemma 4's argument syntax -> JSON text (keys bare, strings between
// <|"|>), from s[pos] ('{', '[', a quote or a bare scalar); false when the
// value does not close within `s`.
bool gemmaValueToJson(std::string_view s, size_t &pos, std::string &out, int depth);

// The "properties" of the function `name` in an OpenAI tools array (null
// when absent), and an XML parameter's value typed by it: JSON when the
// property is not a string and the value parses, else the text. The value
// is as written between <parameter=P> and </parameter>.
const json::JsonValue *xmlProperties(const json::JsonValue &tools, std::string_view name);
json::JsonValue xmlParameterValue(const json::JsonValue *properties, const std::string &key, std::string_view value);

} // namespace burrow::chat::markup
