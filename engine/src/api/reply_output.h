// ReplyOutput: what happens to a reply's text after the token stream made it
// UTF-8 complete — the reasoning apart from the answer (when the request has
// a reasoning syntax), stop strings on the answer only, and the two
// callbacks. A stop string or a callback that says stop ends it (stopped();
// the result's stop reason is set). Used by the scheduler for each of its
// sequences (a Session's one included).
//
// Holds references to the options' callbacks and to the result: they must
// outlive it. Cost per push: the splitter's and the stop filter's work on
// the new text only.
#pragma once

#include "api/stop_strings.h"
#include "burrow/engine.h"
#include "chat/reasoning_split.h"

#include <optional>
#include <string>
#include <string_view>

namespace burrow::api {

class ReplyOutput {
public:
    ReplyOutput(const GenerateOptions &options, const TextCallback &onText, GenerateResult &result)
        : m_onText(onText), m_onReasoning(options.onReasoning), m_onToolCall(options.onToolCall), m_r(result),
          m_stops(options.stopStrings)
    {
        if (options.reasoning.syntax != ReasoningSyntax::REASONING_SYNTAX_NONE ||
            options.reasoning.startsInReasoning)
            m_splitter.emplace(options.reasoning);
    }

    bool stopped() const { return m_stopped; }
    // The text so far ends inside reasoning (for counting reasoning tokens).
    bool inReasoning() const { return m_splitter && m_splitter->inReasoning(); }

    // One token's text (UTF-8 complete).
    void push(std::string_view text)
    {
        if (m_stopped || text.empty())
            return;
        if (!m_splitter) {
            answer(text);
            return;
        }
        for (const chat::ReplyPart &part : m_splitter->push(text)) {
            route(part);
            if (m_stopped)
                return;
        }
    }

    // The end of the reply: the stream's last bytes, then what is held.
    void finish(std::string_view tail)
    {
        push(tail);
        if (m_splitter && !m_stopped) {
            for (const chat::ReplyPart &part : m_splitter->finish()) {
                route(part);
                if (m_stopped)
                    return;
            }
        }
        if (!m_stopped)
            show(m_stops.finish());
    }

private:
    void route(const chat::ReplyPart &part)
    {
        if (part.kind == chat::ReplyPartKind::REPLY_PART_KIND_REASONING)
            reasoning(part.text);
        else if (part.kind == chat::ReplyPartKind::REPLY_PART_KIND_ANSWER)
            answer(part.text);
        else
            toolCall(part.text);   // never the answer: the caller's tool-call parser reads it
    }

    void toolCall(std::string_view text)
    {
        if (text.empty())
            return;
        m_r.toolCallText += text;
        if (m_onToolCall && !m_onToolCall(text))
            stopByCallback();
    }

    void answer(std::string_view text)
    {
        bool matched = false;
        show(m_stops.push(text, &matched));
        if (matched) {
            m_r.stopReason = StopReason::STOP_REASON_STOP_STRING;
            m_stopped = true;
        }
    }

    void reasoning(std::string_view text)
    {
        if (text.empty())
            return;
        m_r.reasoning += text;
        if (m_onReasoning && !m_onReasoning(text))
            stopByCallback();
    }

    void show(const std::string &piece)
    {
        if (piece.empty() || m_stopped)
            return;
        m_r.text += piece;
        if (m_onText && !m_onText(piece))
            stopByCallback();
    }

    void stopByCallback()
    {
        m_stopped = true;
        m_r.stopReason = StopReason::STOP_REASON_CANCELLED;
    }

    const TextCallback &m_onText;
    const TextCallback &m_onReasoning;
    const TextCallback &m_onToolCall;
    GenerateResult &m_r;
    StopStringFilter m_stops;
    std::optional<chat::ReasoningSplitter> m_splitter;
    bool m_stopped = false;
};

} // namespace burrow::api
