// ResponseAssembler (see response_assembler.h).
#include "server/response_assembler.h"

namespace burrow::server {

ResponseAssembler::ResponseAssembler(const ApiRequest &request, ResponseIds ids, int64_t promptTokens)
    : m_endpoint(request.endpoint),
      m_stream(request.stream),
      m_includeUsage(request.includeUsage),
      m_ids(std::move(ids)),
      m_choices(static_cast<size_t>(std::max(1, request.n))),
      m_done(m_choices.size(), false),
      m_remaining(static_cast<int>(m_choices.size()))
{
    m_usage.promptTokens = promptTokens;
}

std::string ResponseAssembler::open()
{
    std::string out;
    if (m_stream && m_endpoint == Endpoint::ENDPOINT_CHAT_COMPLETIONS)
        for (size_t i = 0; i < m_choices.size(); ++i)
            out += sseEvent(chatRoleChunk(m_ids, static_cast<int>(i)));
    return out;
}

std::string ResponseAssembler::onEvent(const JobEvent &event)
{
    if (m_finished || event.choice < 0 || static_cast<size_t>(event.choice) >= m_choices.size() ||
        m_done[static_cast<size_t>(event.choice)])
        return {};
    ChoiceResult &choice = m_choices[static_cast<size_t>(event.choice)];
    const bool chat = m_endpoint == Endpoint::ENDPOINT_CHAT_COMPLETIONS;
    switch (event.kind) {
    case JobEvent::Kind::KIND_TEXT:
    case JobEvent::Kind::KIND_REASONING: {
        const bool reasoning = event.kind == JobEvent::Kind::KIND_REASONING;
        if (event.text.empty())
            return {};
        if (!m_stream) {
            (reasoning ? choice.reasoning : choice.text) += event.text;
            return {};
        }
        if (chat)
            return sseEvent(chatDeltaChunk(m_ids, event.choice, reasoning ? "reasoning_content" : "content", event.text));
        if (reasoning)
            return {};   // a completion has no place for reasoning (a plain prompt rarely opens one)
        return sseEvent(completionChunk(m_ids, event.choice, event.text, {}));
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
    choice.finishReason = finishReason(event.result.stopReason);
    m_usage.completionTokens += static_cast<int64_t>(event.result.tokens.size());
    m_usage.reasoningTokens += event.result.timings.reasoningTokens;
    m_usage.draftedTokens += event.result.timings.draftedTokens;
    m_usage.acceptedTokens += event.result.timings.acceptedTokens;
    if (event.choice == 0)
        m_usage.cachedTokens = event.result.timings.reusedTokens;
    std::string out;
    if (m_stream)
        out = sseEvent(chat ? chatFinishChunk(m_ids, event.choice, choice.finishReason)
                            : completionChunk(m_ids, event.choice, "", choice.finishReason));
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
    return m_endpoint == Endpoint::ENDPOINT_CHAT_COMPLETIONS ? chatResponse(m_ids, m_choices, m_usage)
                                                             : completionResponse(m_ids, m_choices, m_usage);
}

} // namespace burrow::server
