// ResponsesBuilder (see responses_response.h).
#include "server/responses_response.h"

#include "server/anthropic_response.h"

namespace burrow::server {

namespace {

using Json = nlohmann::ordered_json;

std::string dump(const Json &j)
{
    return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Json usageJson(const Usage &u)
{
    return Json{{"input_tokens", u.promptTokens},
                {"input_tokens_details", Json{{"cached_tokens", u.cachedTokens}}},
                {"output_tokens", u.completionTokens},
                {"output_tokens_details", Json{{"reasoning_tokens", u.reasoningTokens}}},
                {"total_tokens", u.promptTokens + u.completionTokens}};
}

Json outputText(const std::string &text)
{
    return Json{{"type", "output_text"}, {"text", text}, {"annotations", Json::array()}, {"logprobs", Json::array()}};
}

} // namespace

Json ResponsesBuilder::response() const
{
    Json r;
    r["id"] = m_ids.id;
    r["object"] = "response";
    r["created_at"] = m_ids.created;
    r["status"] = m_status;
    r["error"] = m_error;
    r["incomplete_details"] = m_incomplete;
    r["model"] = m_ids.model;
    r["output"] = m_output;
    r["parallel_tool_calls"] = true;
    r["previous_response_id"] = nullptr;
    r["store"] = false;
    r["text"] = Json{{"format", Json{{"type", "text"}}}};
    r["tool_choice"] = "auto";
    r["tools"] = Json::array();
    r["truncation"] = "disabled";
    r["usage"] = m_usage;
    r["metadata"] = Json::object();
    return r;
}

std::string ResponsesBuilder::event(const char *type, Json payload)
{
    Json e;
    e["type"] = type;
    e["sequence_number"] = m_sequence++;
    for (auto it = payload.begin(); it != payload.end(); ++it)
        e[it.key()] = std::move(it.value());
    return sseNamedEvent(type, dump(e));
}

std::string ResponsesBuilder::start(const Usage &usage)
{
    (void)usage;
    std::string out = event("response.created", Json{{"response", response()}});
    return out + event("response.in_progress", Json{{"response", response()}});
}

std::string ResponsesBuilder::close()
{
    if (m_open == Item::ITEM_NONE)
        return {};
    std::string out;
    Json item;
    if (m_open == Item::ITEM_FUNCTION_CALL) {
        out += event("response.function_call_arguments.done", Json{{"item_id", m_itemId},
                                                                  {"output_index", m_outputIndex},
                                                                  {"name", m_callName},
                                                                  {"arguments", m_text}});
        item = Json{{"id", m_itemId}, {"type", "function_call"}, {"status", "completed"},
                    {"arguments", m_text}, {"call_id", m_callId}, {"name", m_callName}};
    } else if (m_open == Item::ITEM_REASONING) {
        out += event("response.reasoning_text.done",
                     Json{{"item_id", m_itemId}, {"output_index", m_outputIndex}, {"content_index", 0}, {"text", m_text}});
        item = Json{{"id", m_itemId},
                    {"type", "reasoning"},
                    {"summary", Json::array()},
                    {"content", Json::array({Json{{"type", "reasoning_text"}, {"text", m_text}}})}};
    } else {
        out += event("response.output_text.done", Json{{"item_id", m_itemId},
                                                      {"output_index", m_outputIndex},
                                                      {"content_index", 0},
                                                      {"text", m_text},
                                                      {"logprobs", Json::array()}});
        out += event("response.content_part.done", Json{{"item_id", m_itemId},
                                                       {"output_index", m_outputIndex},
                                                       {"content_index", 0},
                                                       {"part", outputText(m_text)}});
        item = Json{{"id", m_itemId},
                    {"type", "message"},
                    {"status", "completed"},
                    {"role", "assistant"},
                    {"content", Json::array({outputText(m_text)})}};
    }
    out += event("response.output_item.done", Json{{"output_index", m_outputIndex}, {"item", item}});
    m_output.push_back(std::move(item));
    m_open = Item::ITEM_NONE;
    m_text.clear();
    return out;
}

std::string ResponsesBuilder::open(Item kind)
{
    if (m_open == kind)
        return {};
    std::string out = close();
    m_open = kind;
    ++m_outputIndex;
    if (kind == Item::ITEM_REASONING) {
        m_itemId = newResponseId("rs_");
        return out + event("response.output_item.added",
                           Json{{"output_index", m_outputIndex},
                                {"item", Json{{"id", m_itemId}, {"type", "reasoning"}, {"summary", Json::array()}}}});
    }
    m_itemId = newResponseId("msg_");
    out += event("response.output_item.added",
                 Json{{"output_index", m_outputIndex},
                      {"item", Json{{"id", m_itemId}, {"type", "message"}, {"status", "in_progress"},
                                    {"role", "assistant"}, {"content", Json::array()}}}});
    return out + event("response.content_part.added", Json{{"item_id", m_itemId},
                                                          {"output_index", m_outputIndex},
                                                          {"content_index", 0},
                                                          {"part", outputText("")}});
}

std::string ResponsesBuilder::reasoning(std::string_view text)
{
    if (text.empty())
        return {};
    std::string out = open(Item::ITEM_REASONING);
    m_text.append(text);
    return out + event("response.reasoning_text.delta", Json{{"item_id", m_itemId},
                                                            {"output_index", m_outputIndex},
                                                            {"content_index", 0},
                                                            {"delta", std::string(text)}});
}

std::string ResponsesBuilder::text(std::string_view text)
{
    if (text.empty())
        return {};
    std::string out = open(Item::ITEM_MESSAGE);
    m_text.append(text);
    return out + event("response.output_text.delta", Json{{"item_id", m_itemId},
                                                          {"output_index", m_outputIndex},
                                                          {"content_index", 0},
                                                          {"delta", std::string(text)},
                                                          {"logprobs", Json::array()}});
}

std::string ResponsesBuilder::call(const ToolCallOut &c)
{
    std::string out = callStart(c);
    out += callArguments(c.arguments);
    return out + callEnd();
}

std::string ResponsesBuilder::callStart(const ToolCallOut &c)
{
    std::string out = close();
    ++m_outputIndex;
    m_open = Item::ITEM_FUNCTION_CALL;
    m_itemId = newResponseId("fc_");
    m_callId = c.id;
    m_callName = c.name;
    m_text.clear();
    Json item{{"id", m_itemId}, {"type", "function_call"}, {"status", "in_progress"},
              {"arguments", ""}, {"call_id", c.id}, {"name", c.name}};
    return out + event("response.output_item.added", Json{{"output_index", m_outputIndex}, {"item", item}});
}

std::string ResponsesBuilder::callArguments(std::string_view piece)
{
    if (m_open != Item::ITEM_FUNCTION_CALL || piece.empty())
        return {};
    m_text.append(piece);
    return event("response.function_call_arguments.delta",
                 Json{{"item_id", m_itemId}, {"output_index", m_outputIndex}, {"delta", std::string(piece)}});
}

std::string ResponsesBuilder::callEnd()
{
    return m_open == Item::ITEM_FUNCTION_CALL ? close() : std::string();
}

std::string ResponsesBuilder::finish(StopReason reason, const Usage &usage)
{
    std::string out = close();
    m_usage = usageJson(usage);
    const bool cut = reason == StopReason::STOP_REASON_MAX_TOKENS || reason == StopReason::STOP_REASON_CONTEXT_FULL;
    m_status = cut ? "incomplete" : "completed";
    if (cut)
        m_incomplete = Json{{"reason", "max_output_tokens"}};
    return out + event(cut ? "response.incomplete" : "response.completed", Json{{"response", response()}});
}

std::string ResponsesBuilder::fail(const ApiError &error)
{
    m_status = "failed";
    m_error = Json{{"code", "server_error"}, {"message", error.message}};
    return event("response.failed", Json{{"response", response()}});
}

std::string ResponsesBuilder::body() const
{
    return dump(response());
}

} // namespace burrow::server
