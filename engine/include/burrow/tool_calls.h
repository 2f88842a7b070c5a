// Tool calls in a model's reply, for an app that hosts tools itself (the
// desktop app's MCP tools, burrow-cli chat --mcp): the reader the server
// uses for `tool_calls` (one syntax per family, chosen from the model's chat
// template), behind a small public face.
//
// Use: render the prompt with the tools as the template variable `tools`
// (RenderOptions::kwargsJson: {"tools": [OpenAI function tools]}), pass
// controlTokens() as GenerateOptions::renderedControlTokens, feed the answer
// pieces to pushAnswer() and GenerateOptions::onToolCall's pieces to
// pushToolText(), then finish(). Content comes back without the calls'
// markup; a call that does not parse comes back as content, as written.
// Cost: O(bytes) per push; a call is held until complete (≤ maxCallBytes).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace burrow {

class Model;

struct ToolCallRequest {
    std::string name;
    std::string argumentsJson;   // a JSON object, compact ("{}" when none)
};

struct ToolCallPiece {
    bool isCall = false;
    std::string content;         // !isCall: answer text
    ToolCallRequest call;        // isCall
};

class ToolCallReader {
public:
    // `chatTemplate`: the model's template source (ModelInfo::chatTemplate),
    // which names the family's syntax. `toolsJson`: the tools array (OpenAI
    // shape; "" for none), for the types of XML parameters.
    ToolCallReader(std::string_view chatTemplate, std::string_view toolsJson, size_t maxCallBytes = 1 << 20);
    ~ToolCallReader();
    ToolCallReader(const ToolCallReader &) = delete;
    ToolCallReader &operator=(const ToolCallReader &) = delete;

    std::vector<ToolCallPiece> pushAnswer(std::string_view piece);
    std::vector<ToolCallPiece> pushToolText(std::string_view piece);
    std::vector<ToolCallPiece> finish();

    // The syntax's name ("tagged", "harmony", "json", ...).
    const char *syntaxName() const;
    // Control tokens the reply must show for the reader to see the calls.
    std::vector<std::string> controlTokens() const;
    // Earlier calls go back to the template with arguments as a JSON object
    // (most families) rather than the JSON text (DeepSeek V3); an assistant
    // turn of calls only has content none rather than "" (DeepSeek V3).
    bool argumentsAsObject() const;
    bool contentIsNone() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace burrow
