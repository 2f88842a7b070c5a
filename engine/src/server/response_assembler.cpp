// ResponseAssembler (see response_assembler.h).
#include "server/response_assembler.h"

#include "server/anthropic_response.h"

namespace burrow::server {

ResponseAssembler::ResponseAssembler(const ApiRequest &request, ResponseIds ids, int64_t promptTokens,
                                     chat::ToolCallSyntax syntax)
    : m_endpoint(request.endpoint),
      m_parallelToolCalls(request.parallelToolCalls),
      m_stream(request.stream),
      m_includeUsage(request.includeUsage),
      m_ids(std::move(ids)),
      m_choices(static_cast<size_t>(std::max(1, request.n))),
      m_done(m_choices.size(), false),
      m_remaining(static_cast<int>(m_choices.size()))
{
    m_usage.promptTokens = promptTokens;
    m_pendingLogprobs.resize(m_choices.size());
    for (ChoiceResult &c : m_choices)
        c.logprobs = request.logprobs;
    if (m_endpoint == Endpoint::ENDPOINT_MESSAGES)
        m_messages.resize(m_choices.size());
    if (m_endpoint == Endpoint::ENDPOINT_RESPONSES) {
        m_responses.resize(m_choices.size());
        for (ResponsesBuilder &b : m_responses)
            b.setIds(m_ids);
    }
    if (request.toolsActive() && isChat(request.endpoint)) {
        auto tools = json::parseJson(request.toolsJson, "tools");
        m_parsers.resize(m_choices.size());
        m_openCalls.resize(m_choices.size());
        chat::ToolCallParser::Options options;
        options.streamArguments = m_stream;
        for (auto &p : m_parsers)
            p.emplace(syntax, tools ? &*tools : nullptr, options);
    }
}

const std::vector<TokenLogprobText> *ResponseAssembler::takeLogprobs(int choice)
{
    m_sending.clear();
    std::swap(m_sending, m_pendingLogprobs[static_cast<size_t>(choice)]);
    return m_sending.empty() ? nullptr : &m_sending;
}

std::string ResponseAssembler::streamedCall(int index, chat::ToolCallItem &item)
{
    using Kind = chat::ToolCallItemKind;
    ChoiceResult &choice = m_choices[static_cast<size_t>(index)];
    OpenCall &open = m_openCalls[static_cast<size_t>(index)];
    const int callIndex = static_cast<int>(choice.toolCalls.size());
    if (item.kind == Kind::TOOL_CALL_ITEM_CALL_START) {
        open.open = true;
        open.skipped = !m_parallelToolCalls && !choice.toolCalls.empty();   // parallel_tool_calls: false keeps the first
        open.call = ToolCallOut{newResponseId(m_messages.empty() ? "call_" : "toolu_"), item.call.name, {}};
        if (open.skipped)
            return {};
        if (!m_responses.empty())
            return m_responses[static_cast<size_t>(index)].callStart(open.call);
        if (!m_messages.empty())
            return m_messages[static_cast<size_t>(index)].toolUseStart(open.call);
        return sseEvent(chatToolCallStartChunk(m_ids, index, callIndex, open.call));
    }
    if (!open.open || open.skipped) {
        if (item.kind == Kind::TOOL_CALL_ITEM_CALL)
            open = {};
        return {};
    }
    if (item.kind == Kind::TOOL_CALL_ITEM_CALL_ARGUMENTS) {
        if (!m_responses.empty())
            return m_responses[static_cast<size_t>(index)].callArguments(item.content);
        if (!m_messages.empty())
            return m_messages[static_cast<size_t>(index)].toolUseDelta(item.content);
        return sseEvent(chatToolCallArgumentsChunk(m_ids, index, callIndex, item.content));
    }
    // The call's end: only the count matters from here (its pieces were
    // sent). A call ended as it stands (its text follows as content) does
    // not make the finish reason "tool_calls".
    std::string out;
    if (!m_responses.empty())
        out = m_responses[static_cast<size_t>(index)].callEnd();
    else if (!m_messages.empty())
        out = m_messages[static_cast<size_t>(index)].toolUseEnd();
    if (!item.asItStands)
        choice.toolCalls.push_back(std::move(open.call));
    open = {};
    return out;
}

std::string ResponseAssembler::items(int index, std::vector<chat::ToolCallItem> &&items)
{
    ChoiceResult &choice = m_choices[static_cast<size_t>(index)];
    std::string out;
    for (chat::ToolCallItem &item : items) {
        if (m_stream && item.kind != chat::ToolCallItemKind::TOOL_CALL_ITEM_CONTENT) {
            out += streamedCall(index, item);
            continue;
        }
        if (!item.isCall) {
            if (item.content.empty())
                continue;
            if (!m_responses.empty()) {
                const std::string events = m_responses[static_cast<size_t>(index)].text(item.content);
                out += m_stream ? events : std::string();
            } else if (!m_stream)
                choice.text += item.content;
            else if (!m_messages.empty())
                out += m_messages[static_cast<size_t>(index)].text(item.content);
            else
                out += sseEvent(chatDeltaChunk(m_ids, index, "content", item.content, takeLogprobs(index)));
            continue;
        }
        if (!m_parallelToolCalls && !choice.toolCalls.empty())
            continue;   // parallel_tool_calls: false keeps the first
        ToolCallOut call{newResponseId(m_messages.empty() ? "call_" : "toolu_"), std::move(item.call.name),
                         std::move(item.call.arguments)};
        if (!m_responses.empty())
            m_responses[static_cast<size_t>(index)].call(call);   // whole: the item is what counts
        choice.toolCalls.push_back(std::move(call));
    }
    return out;
}

std::string ResponseAssembler::open()
{
    std::string out;
    if (m_stream && m_endpoint == Endpoint::ENDPOINT_CHAT_COMPLETIONS)
        for (size_t i = 0; i < m_choices.size(); ++i)
            out += sseEvent(chatRoleChunk(m_ids, static_cast<int>(i)));
    if (m_stream && !m_messages.empty())
        out += m_messages[0].start(m_ids, m_usage);
    if (m_stream && !m_responses.empty())
        out += m_responses[0].start(m_usage);
    return out;
}

// /v1/responses: one response, its items built streamed or not (the whole
// answer is the builder's response object).
std::string ResponseAssembler::onResponsesEvent(const JobEvent &event)
{
    ChoiceResult &choice = m_choices[static_cast<size_t>(event.choice)];
    ResponsesBuilder &builder = m_responses[static_cast<size_t>(event.choice)];
    auto *parser = m_parsers.empty() ? nullptr : &*m_parsers[static_cast<size_t>(event.choice)];
    const auto streamed = [&](std::string events) { return m_stream ? events : std::string(); };
    switch (event.kind) {
    case JobEvent::Kind::KIND_LOGPROBS:
        return {};
    case JobEvent::Kind::KIND_TOOL_CALL:
        return parser ? items(event.choice, parser->pushToolText(event.text)) : std::string();
    case JobEvent::Kind::KIND_REASONING:
        return streamed(builder.reasoning(event.text));
    case JobEvent::Kind::KIND_TEXT:
        if (parser)
            return items(event.choice, parser->pushAnswer(event.text));
        return streamed(builder.text(event.text));
    case JobEvent::Kind::KIND_DONE:
        break;
    }
    m_done[static_cast<size_t>(event.choice)] = true;
    --m_remaining;
    m_finished = m_remaining == 0;
    if (!event.status) {
        m_finished = true;
        m_error = ApiError::internal(event.status.message());
        return streamed(builder.fail(*m_error));
    }
    std::string out;
    if (parser)
        out = items(event.choice, parser->finish());
    choice.finishReason = finishReason(event.result.stopReason);
    m_usage.completionTokens += static_cast<int64_t>(event.result.tokens.size());
    m_usage.reasoningTokens += event.result.timings.reasoningTokens;
    m_usage.cachedTokens = event.result.timings.reusedTokens;
    return out + streamed(builder.finish(event.result.stopReason, m_usage));
}

// /v1/messages: one message (n is not part of Anthropic's API), its blocks.
std::string ResponseAssembler::onMessagesEvent(const JobEvent &event)
{
    ChoiceResult &choice = m_choices[static_cast<size_t>(event.choice)];
    MessagesStream &stream = m_messages[static_cast<size_t>(event.choice)];
    auto *parser = m_parsers.empty() ? nullptr : &*m_parsers[static_cast<size_t>(event.choice)];
    switch (event.kind) {
    case JobEvent::Kind::KIND_LOGPROBS:
        return {};
    case JobEvent::Kind::KIND_TOOL_CALL:
        return parser ? items(event.choice, parser->pushToolText(event.text)) : std::string();
    case JobEvent::Kind::KIND_REASONING:
        if (!m_stream) {
            choice.reasoning += event.text;
            return {};
        }
        return stream.thinking(event.text);
    case JobEvent::Kind::KIND_TEXT:
        if (parser)
            return items(event.choice, parser->pushAnswer(event.text));
        if (!m_stream) {
            choice.text += event.text;
            return {};
        }
        return stream.text(event.text);
    case JobEvent::Kind::KIND_DONE:
        break;
    }
    m_done[static_cast<size_t>(event.choice)] = true;
    --m_remaining;
    m_finished = m_remaining == 0;
    if (!event.status) {
        m_finished = true;
        m_error = ApiError::internal(event.status.message());
        return m_stream ? sseNamedEvent("error", anthropicErrorBody(*m_error)) : std::string();
    }
    std::string out;
    if (parser)
        out = items(event.choice, parser->finish());
    choice.finishReason = anthropicStopReason(event.result.stopReason, !choice.toolCalls.empty());
    m_usage.completionTokens += static_cast<int64_t>(event.result.tokens.size());
    m_usage.reasoningTokens += event.result.timings.reasoningTokens;
    m_usage.cachedTokens = event.result.timings.reusedTokens;
    if (m_stream)
        out += stream.finish(choice.finishReason, m_usage);
    return out;
}

std::string ResponseAssembler::onEvent(const JobEvent &event)
{
    if (m_finished || event.choice < 0 || static_cast<size_t>(event.choice) >= m_choices.size() ||
        m_done[static_cast<size_t>(event.choice)])
        return {};
    if (!m_messages.empty())
        return onMessagesEvent(event);
    if (!m_responses.empty())
        return onResponsesEvent(event);
    ChoiceResult &choice = m_choices[static_cast<size_t>(event.choice)];
    const bool chat = m_endpoint == Endpoint::ENDPOINT_CHAT_COMPLETIONS;
    auto *parser = m_parsers.empty() ? nullptr : &*m_parsers[static_cast<size_t>(event.choice)];
    std::string out;
    switch (event.kind) {
    case JobEvent::Kind::KIND_LOGPROBS:
        if (m_stream)
            m_pendingLogprobs[static_cast<size_t>(event.choice)].push_back(event.logprob);
        else
            choice.tokenLogprobs.push_back(event.logprob);
        return {};
    case JobEvent::Kind::KIND_TOOL_CALL:
        return parser ? items(event.choice, parser->pushToolText(event.text)) : std::string();
    case JobEvent::Kind::KIND_TEXT:
        if (parser)
            return items(event.choice, parser->pushAnswer(event.text));
        [[fallthrough]];
    case JobEvent::Kind::KIND_REASONING: {
        const bool reasoning = event.kind == JobEvent::Kind::KIND_REASONING;
        if (event.text.empty())
            return {};
        if (!m_stream) {
            (reasoning ? choice.reasoning : choice.text) += event.text;
            return {};
        }
        if (chat)
            return sseEvent(chatDeltaChunk(m_ids, event.choice, reasoning ? "reasoning_content" : "content", event.text,
                                           takeLogprobs(event.choice)));
        if (reasoning)
            return {};   // a completion has no place for reasoning (a plain prompt rarely opens one)
        return sseEvent(completionChunk(m_ids, event.choice, event.text, {}, takeLogprobs(event.choice)));
    }
    case JobEvent::Kind::KIND_DONE:
        break;
    }
    m_done[static_cast<size_t>(event.choice)] = true;
    --m_remaining;
    if (!event.status) {
        m_finished = true;
        m_error = ApiError::internal(event.status.message());
        return m_stream ? sseEvent(errorBody(*m_error)) : std::string();
    }
    if (parser)
        out = items(event.choice, parser->finish());
    choice.finishReason = choice.toolCalls.empty() ? finishReason(event.result.stopReason) : "tool_calls";
    m_usage.completionTokens += static_cast<int64_t>(event.result.tokens.size());
    m_usage.reasoningTokens += event.result.timings.reasoningTokens;
    m_usage.draftedTokens += event.result.timings.draftedTokens;
    m_usage.acceptedTokens += event.result.timings.acceptedTokens;
    if (event.choice == 0)
        m_usage.cachedTokens = event.result.timings.reusedTokens;
    if (m_stream)
        out += sseEvent(chat ? chatFinishChunk(m_ids, event.choice, choice.finishReason, takeLogprobs(event.choice))
                             : completionChunk(m_ids, event.choice, "", choice.finishReason, takeLogprobs(event.choice)));
    if (m_remaining == 0) {
        m_finished = true;
        if (m_stream) {
            if (m_includeUsage)
                out += sseEvent(usageChunk(m_ids, m_endpoint, m_usage));
            out += sseDone();
        }
    }
    return out;
}

std::string ResponseAssembler::body() const
{
    if (m_endpoint == Endpoint::ENDPOINT_RESPONSES)
        return m_responses[0].body();
    if (m_endpoint == Endpoint::ENDPOINT_MESSAGES)
        return messagesResponse(m_ids, m_choices[0], m_choices[0].finishReason, m_usage);
    return m_endpoint == Endpoint::ENDPOINT_CHAT_COMPLETIONS ? chatResponse(m_ids, m_choices, m_usage)
                                                             : completionResponse(m_ids, m_choices, m_usage);
}

} // namespace burrow::server
