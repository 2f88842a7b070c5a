// burrow::buildChatPrompt(): a conversation, a chat format, a budget and a
// truncation policy in; the prompt's tokens and what was left out come out.
// The app, burrow-cli chat, the C API and the server all build prompts here.
//
// Rendering: a chat format renders with renderChat() (generation prompt on)
// and is tokenized with addSpecial and parseSpecial (renderChat() leaves out
// a BOS text the vocabulary adds itself); plain text (a base model) is the
// leading system messages, each followed by "\n", then the other messages
// joined with a "\n" before every user message but the first kept one,
// tokenized with BOS and without special-token parsing.
//
// Truncation (TRUNCATION_DROP_OLDEST): the leading system messages stay
// (with keepFirstExchange, the first exchange after them too: "the lead");
// the kept part after the lead starts at a user message ("a cut"); the
// newest cut that keeps most is wanted. The whole conversation is rendered once; when it is over
// the budget, the cut is estimated from per-message token counts (each
// message's content tokenized alone, plus the conversation's average
// template overhead per message) and the kept part is rendered once more.
// When that estimate was off the next cut forward (still over) or back
// (within a few tokens of fitting) is rendered, and so on. Renders: two in
// the common case, at most 1 + the number of user messages.
#include "burrow/engine.h"
#include "chat/reasoning_split.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace burrow {

namespace {

bool isSystem(const ChatMessage &m)
{
    return m.role == "system";
}

struct Rendered {
    std::string text;
    std::vector<Token> tokens;
};

// Renders "the lead (messages[0, nLead)) + messages[first..]" of one
// conversation in one format: the text and its tokens.
class PromptRenderer {
public:
    PromptRenderer(const Model &model, const std::vector<ChatMessage> &messages, size_t nLead,
                   const ChatFormat &format, const RenderOptions &render)
        : m_model(model), m_messages(messages), m_nLead(nLead), m_format(format), m_render(render)
    {
        m_render.addGenerationPrompt = true;
    }

    Result<Rendered> render(size_t first) const
    {
        Rendered out;
        if (m_format.plainText) {
            out.text = plainText(first);
            out.tokens = m_model.tokenize(out.text, true, false);
            return out;
        }
        std::vector<ChatMessage> kept(m_messages.begin(), m_messages.begin() + static_cast<std::ptrdiff_t>(m_nLead));
        kept.insert(kept.end(), m_messages.begin() + static_cast<std::ptrdiff_t>(first), m_messages.end());
        auto text = renderChat(m_model, kept, m_render);
        if (!text)
            return text.status();
        out.text = std::move(text.value());
        out.tokens = m_model.tokenize(out.text, true, true);
        return out;
    }

    // The tokens of the lead alone (no generation prompt); empty when
    // there is none or its render fails (a template that wants a user turn).
    std::vector<Token> leadTokens() const
    {
        if (m_nLead == 0)
            return {};
        if (m_format.plainText) {
            const std::string text = plainText(m_messages.size());
            return text.empty() ? std::vector<Token>() : m_model.tokenize(text, true, false);
        }
        RenderOptions options = m_render;
        options.addGenerationPrompt = false;
        const std::vector<ChatMessage> system(m_messages.begin(),
                                              m_messages.begin() + static_cast<std::ptrdiff_t>(m_nLead));
        auto text = renderChat(m_model, system, options);
        if (!text)
            return {};
        return m_model.tokenize(text.value(), true, true);
    }

    // Tokens of message i's content alone (the estimate's unit).
    size_t contentTokens(size_t i) const
    {
        return m_model.tokenize(m_messages[i].content, false, !m_format.plainText).size();
    }

private:
    std::string plainText(size_t first) const
    {
        std::string text;
        size_t i = 0;
        for (; i < m_nLead && isSystem(m_messages[i]); ++i) {
            if (!m_messages[i].content.empty()) {
                text += m_messages[i].content;
                text += '\n';
            }
        }
        for (const size_t exchange = i; i < m_nLead; ++i) {   // a kept first exchange
            if (m_messages[i].role == "user" && i > exchange)
                text += '\n';
            text += m_messages[i].content;
        }
        for (size_t i = first; i < m_messages.size(); ++i) {
            if (m_messages[i].role == "user" && (i > first || (m_nLead > 0 && !isSystem(m_messages[m_nLead - 1]))))
                text += '\n';
            text += m_messages[i].content;
        }
        return text;
    }

    const Model &m_model;
    const std::vector<ChatMessage> &m_messages;
    size_t m_nLead;
    const ChatFormat &m_format;
    RenderOptions m_render;
};

size_t commonPrefix(const std::vector<Token> &a, const std::vector<Token> &b)
{
    size_t n = 0;
    while (n < a.size() && n < b.size() && a[n] == b[n])
        ++n;
    return n;
}

std::string budgetWords(uint32_t budget)
{
    return std::to_string(budget) + " tokens (the context minus the room kept for the reply)";
}

} // namespace

Result<ChatPrompt> buildChatPrompt(const Model &model, const std::vector<ChatMessage> &messages,
                                   const PromptOptions &options)
{
    if (messages.empty())
        return Status::error("buildChatPrompt: the conversation has no messages");
    auto format = chatFormatFor(model, options.render.chatFormat, options.plainTextForBaseModels);
    if (!format)
        return format.status();

    size_t nSystem = 0;
    while (nSystem < messages.size() && isSystem(messages[nSystem]))
        ++nSystem;
    // The lead: the system messages, and the first exchange when it is kept
    // and a later user message follows it (else nothing could be dropped).
    size_t nLead = nSystem;
    if (options.keepFirstExchange && nSystem < messages.size()) {
        size_t next = nSystem + 1;
        while (next < messages.size() && messages[next].role != "user")
            ++next;
        if (next < messages.size())
            nLead = next;
    }
    const PromptRenderer renderer(model, messages, nLead, format.value(), options.render);

    ChatPrompt out;
    out.format = format.value();
    out.firstMessage = nLead;
    out.keptMessages = nLead - nSystem;
    const uint32_t budget = options.budget;
    const auto fits = [&](const Rendered &r) { return budget == 0 || r.tokens.size() <= budget; };

    auto full = renderer.render(nLead);
    if (!full)
        return full.status();
    if (!fits(full.value())) {
        const size_t fullSize = full->tokens.size();
        if (options.truncation == Truncation::TRUNCATION_REFUSE)
            return Status::error("the conversation has " + std::to_string(fullSize) +
                                 " tokens, more than the budget of " + budgetWords(budget));
        // The cuts: every user message after the leading system ones but the first.
        std::vector<size_t> cuts;
        for (size_t i = nLead + 1; i < messages.size(); ++i)
            if (messages[i].role == "user")
                cuts.push_back(i);
        if (cuts.empty())
            return Status::error("the message is too long: the prompt has " + std::to_string(fullSize) +
                                 " tokens, more than the budget of " + budgetWords(budget) +
                                 "; shorten it (or the system prompt), or choose a larger context");

        // Estimate: what dropping messages [nLead, cut) saves.
        std::vector<size_t> content(messages.size());
        size_t contentSum = 0;
        for (size_t i = 0; i < messages.size(); ++i) {
            content[i] = renderer.contentTokens(i);
            contentSum += content[i];
        }
        const double overhead =
            fullSize > contentSum ? double(fullSize - contentSum) / double(messages.size()) : 0.0;
        std::vector<double> estimate(cuts.size());   // estimated prompt tokens when cutting at cuts[c]
        {
            double saved = 0;
            size_t i = nLead;
            for (size_t c = 0; c < cuts.size(); ++c) {
                for (; i < cuts[c]; ++i)
                    saved += double(content[i]) + overhead;
                estimate[c] = double(fullSize) - saved;
            }
        }
        size_t c = 0;
        while (c + 1 < cuts.size() && estimate[c] > double(budget))
            ++c;

        std::optional<size_t> fitting;   // the cut index that fits, once found
        Rendered kept;
        auto first = renderer.render(cuts[c]);
        if (!first)
            return first.status();
        if (fits(first.value())) {
            fitting = c;
            kept = std::move(first.value());
            // Keep more when the estimate was pessimistic: a cut further back
            // is tried while its estimate is within a few tokens per message.
            while (*fitting > 0) {
                const size_t back = *fitting - 1;
                // From the exact size of this render, plus the estimated
                // size of the messages the earlier cut would add back.
                const double predicted = double(kept.tokens.size()) + estimate[back] - estimate[*fitting];
                const double slack = 2.0 * double(cuts[*fitting] - cuts[back]) + 2.0;
                if (predicted - double(budget) > slack)
                    break;
                auto more = renderer.render(cuts[back]);
                if (!more)
                    return more.status();
                if (!fits(more.value()))
                    break;
                fitting = back;
                kept = std::move(more.value());
            }
        } else {
            size_t lastSize = first->tokens.size();
            for (size_t next = c + 1; next < cuts.size(); ++next) {
                auto later = renderer.render(cuts[next]);
                if (!later)
                    return later.status();
                lastSize = later->tokens.size();
                if (fits(later.value())) {
                    fitting = next;
                    kept = std::move(later.value());
                    break;
                }
            }
            if (!fitting)
                return Status::error("the last message is too long: with the system prompt it takes " +
                                     std::to_string(lastSize) + " tokens, more than the budget of " +
                                     budgetWords(budget) +
                                     "; shorten it (or the system prompt), or choose a larger context");
        }
        out.firstMessage = cuts[*fitting];
        out.droppedMessages = out.firstMessage - nLead;
        full = std::move(kept);
    }
    // The reply starts inside reasoning when the prompt opened the block.
    out.reasoning = chat::reasoningOptionsFor(out.format.reasoning, full->text);
    out.tokens = std::move(full->tokens);
    // The lead's tokens (the system part, with keepFirstExchange the first
    // exchange too), as far as the prompt begins with them (a template may
    // fold the system prompt into the first user turn).
    out.keepTokens = static_cast<int32_t>(commonPrefix(renderer.leadTokens(), out.tokens));
    return out;
}

} // namespace burrow
