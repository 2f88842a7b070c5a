// ToolCallReader: the public face of chat::ToolCallParser (burrow/tool_calls.h).
#include "burrow/tool_calls.h"

#include "chat/tool_calls.h"
#include "common/json.h"

namespace burrow {

namespace {

std::vector<ToolCallPiece> convert(std::vector<chat::ToolCallItem> &&items)
{
    std::vector<ToolCallPiece> out;
    out.reserve(items.size());
    for (chat::ToolCallItem &item : items) {
        ToolCallPiece piece;
        piece.isCall = item.isCall;
        piece.content = std::move(item.content);
        piece.call.name = std::move(item.call.name);
        piece.call.argumentsJson = std::move(item.call.arguments);
        out.push_back(std::move(piece));
    }
    return out;
}

} // namespace

struct ToolCallReader::Impl {
    Impl(chat::ToolCallSyntax s, const json::JsonValue *tools, size_t maxCallBytes)
        : syntax(s), parser(s, tools, maxCallBytes)
    {
    }
    chat::ToolCallSyntax syntax;
    chat::ToolCallParser parser;
};

ToolCallReader::ToolCallReader(std::string_view chatTemplate, std::string_view toolsJson, size_t maxCallBytes)
{
    const chat::ToolCallSyntax syntax = chat::toolCallSyntaxForTemplate(chatTemplate);
    json::JsonValue tools;
    bool haveTools = false;
    if (!toolsJson.empty()) {
        auto parsed = json::parseJson(toolsJson, "tools");
        if (parsed && parsed.value().isArray()) {
            tools = std::move(parsed).value();
            haveTools = true;
        }
    }
    m_impl = std::make_unique<Impl>(syntax, haveTools ? &tools : nullptr, maxCallBytes);
}

ToolCallReader::~ToolCallReader() = default;

std::vector<ToolCallPiece> ToolCallReader::pushAnswer(std::string_view piece)
{
    return convert(m_impl->parser.pushAnswer(piece));
}

std::vector<ToolCallPiece> ToolCallReader::pushToolText(std::string_view piece)
{
    return convert(m_impl->parser.pushToolText(piece));
}

std::vector<ToolCallPiece> ToolCallReader::finish()
{
    return convert(m_impl->parser.finish());
}

const char *ToolCallReader::syntaxName() const
{
    return chat::toolCallSyntaxName(m_impl->syntax);
}

std::vector<std::string> ToolCallReader::controlTokens() const
{
    return chat::toolCallControlTokens(m_impl->syntax);
}

bool ToolCallReader::argumentsAsObject() const
{
    return chat::toolCallArgumentsAsObject(m_impl->syntax);
}

bool ToolCallReader::contentIsNone() const
{
    return chat::toolCallContentIsNone(m_impl->syntax);
}

} // namespace burrow
