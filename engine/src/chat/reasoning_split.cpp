// ReasoningSplitter: a small state machine over the bytes not yet emitted
// (m_pending). Each state either consumes a prefix of m_pending (emitting or
// dropping it) and moves on, or waits for more bytes because what is there
// could still become a marker.
#include "chat/reasoning_split.h"

#include <algorithm>
#include <initializer_list>

namespace burrow::chat {

namespace {

constexpr std::string_view THINK_OPEN = "<think>";
constexpr std::string_view THINK_CLOSE = "</think>";

constexpr std::string_view H_START = "<|start|>";
constexpr std::string_view H_CHANNEL = "<|channel|>";
constexpr std::string_view H_MESSAGE = "<|message|>";
constexpr std::string_view H_TO = " to=";
constexpr std::string_view H_END = "<|end|>";
constexpr std::string_view H_RETURN = "<|return|>";
constexpr std::string_view H_CALL = "<|call|>";

constexpr size_t HARMONY_HEADER_LIMIT = 512;

constexpr std::string_view G_CHANNEL_OPEN = "<|channel>";
constexpr std::string_view G_CHANNEL_CLOSE = "<channel|>";
constexpr std::string_view G_TOOL_OPEN = "<|tool_call>";
constexpr std::string_view G_TOOL_CLOSE = "<tool_call|>";
constexpr size_t GEMMA4_HEADER_LIMIT = 64;

// The white space llama-server's parsers skip (C isspace in the C locale).
bool isBlank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

size_t countLeadingBlank(std::string_view s)
{
    size_t i = 0;
    while (i < s.size() && isBlank(s[i]))
        ++i;
    return i;
}

size_t lengthWithoutTrailingBlank(std::string_view s)
{
    size_t n = s.size();
    while (n > 0 && isBlank(s[n - 1]))
        --n;
    return n;
}

bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

// `s` is a proper prefix of `marker` (more bytes could complete it).
bool isProperPrefixOf(std::string_view s, std::string_view marker)
{
    return s.size() < marker.size() && marker.compare(0, s.size(), s) == 0;
}

// Length of the longest suffix of `s` that is a proper prefix of one of the
// markers (the part to hold back: it may become a marker).
size_t heldMarkerTail(std::string_view s, std::initializer_list<std::string_view> markers)
{
    size_t best = 0;
    for (const std::string_view m : markers) {
        const size_t most = std::min(s.size(), m.size() - 1);
        for (size_t k = most; k > best; --k)
            if (s.compare(s.size() - k, k, m, 0, k) == 0) {
                best = k;
                break;
            }
    }
    return best;
}

// Length of an incomplete UTF-8 sequence at the end of `s` (0 when the last
// character is complete, or when the tail is invalid anyway: invalid bytes
// are not held).
size_t incompleteUtf8Tail(std::string_view s)
{
    const size_t n = s.size();
    for (size_t back = 1; back <= 3 && back <= n; ++back) {
        const auto c = static_cast<unsigned char>(s[n - back]);
        if ((c & 0xC0) == 0x80)
            continue;   // a continuation byte: look further back
        size_t need = 0;
        if (c >= 0xC2 && c <= 0xDF)
            need = 2;
        else if (c >= 0xE0 && c <= 0xEF)
            need = 3;
        else if (c >= 0xF0 && c <= 0xF4)
            need = 4;
        return need > back ? back : 0;
    }
    return 0;
}

// Earliest occurrence of any marker in `s`: position and which (npos when none).
struct Found {
    size_t at = std::string_view::npos;
    std::string_view marker;
};

Found findFirst(std::string_view s, std::initializer_list<std::string_view> markers)
{
    Found best;
    for (const std::string_view m : markers) {
        const size_t at = s.find(m);
        if (at != std::string_view::npos && (best.at == std::string_view::npos || at < best.at)) {
            best.at = at;
            best.marker = m;
        }
    }
    return best;
}

// The channel a harmony header names ("analysis", "final", ...; "" when none).
std::string_view headerChannel(std::string_view header)
{
    const size_t at = header.rfind(H_CHANNEL);
    if (at == std::string_view::npos)
        return {};
    std::string_view rest = header.substr(at + H_CHANNEL.size());
    size_t end = 0;
    while (end < rest.size() && !isBlank(rest[end]) && rest[end] != '<')
        ++end;
    return rest.substr(0, end);
}

// The recipient a harmony header names (" to=functions.get_weather": 
// "functions.get_weather"; "" when none).
std::string_view headerRecipient(std::string_view header)
{
    const size_t at = header.find(H_TO);
    if (at == std::string_view::npos)
        return {};
    std::string_view rest = header.substr(at + H_TO.size());
    size_t end = 0;
    while (end < rest.size() && !isBlank(rest[end]) && rest[end] != '<')
        ++end;
    return rest.substr(0, end);
}

ReplyPartKind kindOfHeader(std::string_view header)
{
    if (!headerRecipient(header).empty())
        return ReplyPartKind::REPLY_PART_KIND_TOOL_CALL;
    const std::string_view channel = headerChannel(header);
    return channel.empty() || channel == "final" ? ReplyPartKind::REPLY_PART_KIND_ANSWER
                                                 : ReplyPartKind::REPLY_PART_KIND_REASONING;
}

} // namespace

ReasoningSplitter::ReasoningSplitter(const ReasoningOptions &options) : m_options(options)
{
    switch (options.syntax) {
    case ReasoningSyntax::REASONING_SYNTAX_NONE:
        m_state = State::STATE_ANSWER;
        break;
    case ReasoningSyntax::REASONING_SYNTAX_THINK_TAGS:
        m_state = options.startsInReasoning ? State::STATE_THINK_LEAD : State::STATE_START;
        break;
    case ReasoningSyntax::REASONING_SYNTAX_HARMONY:
        if (options.startsInReasoning) {
            m_state = State::STATE_HARMONY_BODY;
            m_bodyKind = ReplyPartKind::REPLY_PART_KIND_REASONING;
        } else {
            m_state = State::STATE_START;
        }
        break;
    case ReasoningSyntax::REASONING_SYNTAX_GEMMA4_CHANNEL:
        m_state = options.startsInReasoning ? State::STATE_CHANNEL_LEAD : State::STATE_CHANNEL_START;
        break;
    }
}

bool ReasoningSplitter::inReasoning() const
{
    return m_state == State::STATE_THINK_LEAD || m_state == State::STATE_THINK || m_state == State::STATE_CHANNEL_NAME ||
           m_state == State::STATE_CHANNEL_LEAD || m_state == State::STATE_CHANNEL_BODY ||
           (m_state == State::STATE_HARMONY_BODY && m_bodyKind == ReplyPartKind::REPLY_PART_KIND_REASONING);
}

void ReasoningSplitter::emit(ReplyPartKind kind, std::string_view text, std::vector<ReplyPart> &out)
{
    if (text.empty())
        return;
    if (!out.empty() && out.back().kind == kind)
        out.back().text.append(text);
    else
        out.push_back({kind, std::string(text)});
}

std::vector<ReplyPart> ReasoningSplitter::push(std::string_view piece)
{
    std::vector<ReplyPart> out;
    if (m_state == State::STATE_DONE)
        return out;
    m_pending.append(piece);
    process(false, out);
    return out;
}

std::vector<ReplyPart> ReasoningSplitter::finish()
{
    std::vector<ReplyPart> out;
    if (m_state == State::STATE_DONE)
        return out;
    process(true, out);
    m_pending.clear();
    m_state = State::STATE_DONE;
    return out;
}

void ReasoningSplitter::process(bool final, std::vector<ReplyPart> &out)
{
    using Kind = ReplyPartKind;
    const bool harmony = m_options.syntax == ReasoningSyntax::REASONING_SYNTAX_HARMONY;
    // Consumes n bytes of m_pending (emitted or dropped by the caller).
    auto consume = [&](size_t n) { m_pending.erase(0, n); };

    while (true) {
        if (processChannels(final, out))
            return;
        const std::string_view p = m_pending;
        switch (m_state) {
        default:   // STATE_DONE; Gemma 4's states are processChannels' (it waits in them)
            return;

        case State::STATE_START: {
            if (!harmony) {
                const size_t blank = countLeadingBlank(p);
                const std::string_view rest = p.substr(blank);
                if (startsWith(rest, THINK_OPEN)) {
                    consume(blank + THINK_OPEN.size());
                    m_state = State::STATE_THINK_LEAD;
                    continue;
                }
                if (!final && isProperPrefixOf(rest, THINK_OPEN))
                    return;   // white space and/or part of "<think>": wait
                m_state = State::STATE_ANSWER;   // the leading white space stays the answer's
                continue;
            }
            if (startsWith(p, H_CHANNEL) || startsWith(p, H_START) || startsWith(p, H_MESSAGE) ||
                startsWith(p, H_TO)) {
                m_state = State::STATE_HARMONY_HEADER;
                continue;
            }
            if (!final && (isProperPrefixOf(p, H_CHANNEL) || isProperPrefixOf(p, H_START) ||
                           isProperPrefixOf(p, H_MESSAGE) || isProperPrefixOf(p, H_TO)))
                return;
            m_state = State::STATE_HARMONY_BODY;
            m_bodyKind = Kind::REPLY_PART_KIND_ANSWER;
            continue;
        }

        case State::STATE_THINK_LEAD: {
            const size_t blank = countLeadingBlank(p);
            consume(blank);
            if (m_pending.empty())
                return;
            m_state = State::STATE_THINK;
            continue;
        }

        case State::STATE_THINK: {
            const size_t close = p.find(THINK_CLOSE);
            if (close != std::string_view::npos) {
                emit(Kind::REPLY_PART_KIND_REASONING, p.substr(0, lengthWithoutTrailingBlank(p.substr(0, close))), out);
                consume(close + THINK_CLOSE.size());
                m_reasoningEnded = true;
                m_state = State::STATE_AFTER_THINK;
                continue;
            }
            if (final) {
                emit(Kind::REPLY_PART_KIND_REASONING, p.substr(0, lengthWithoutTrailingBlank(p)), out);
                consume(p.size());
                return;
            }
            // Hold: a possible "</think>" start, the white space before it,
            // an incomplete character.
            size_t keep = p.size() - heldMarkerTail(p, {THINK_CLOSE});
            keep = lengthWithoutTrailingBlank(p.substr(0, keep));
            keep -= incompleteUtf8Tail(p.substr(0, keep));
            emit(Kind::REPLY_PART_KIND_REASONING, p.substr(0, keep), out);
            consume(keep);
            return;
        }

        case State::STATE_AFTER_THINK: {
            consume(countLeadingBlank(p));
            if (m_pending.empty())
                return;
            m_state = State::STATE_ANSWER;
            continue;
        }

        case State::STATE_ANSWER: {
            const size_t keep = final ? p.size() : p.size() - incompleteUtf8Tail(p);
            emit(Kind::REPLY_PART_KIND_ANSWER, p.substr(0, keep), out);
            consume(keep);
            return;
        }

        case State::STATE_HARMONY_HEADER:
            if (harmonyHeader(final, out))
                continue;
            return;

        case State::STATE_HARMONY_BODY: {
            const Found f = findFirst(p, {H_END, H_RETURN, H_CALL, H_START, H_CHANNEL});
            if (f.at != std::string_view::npos) {
                emit(m_bodyKind, p.substr(0, f.at), out);
                if (m_bodyKind == Kind::REPLY_PART_KIND_REASONING)
                    m_reasoningEnded = true;
                if (f.marker == H_START || f.marker == H_CHANNEL) {
                    consume(f.at);   // a new header without a terminator
                    m_state = State::STATE_HARMONY_HEADER;
                } else {
                    consume(f.at + f.marker.size());
                    m_state = State::STATE_HARMONY_BETWEEN;
                }
                continue;
            }
            size_t keep = p.size();
            if (!final) {
                keep -= heldMarkerTail(p, {H_END, H_RETURN, H_CALL, H_START, H_CHANNEL});
                keep -= incompleteUtf8Tail(p.substr(0, keep));
            }
            emit(m_bodyKind, p.substr(0, keep), out);
            consume(keep);
            return;
        }

        case State::STATE_HARMONY_BETWEEN: {
            const size_t blank = countLeadingBlank(p);
            const std::string_view rest = p.substr(blank);
            if (startsWith(rest, H_START) || startsWith(rest, H_CHANNEL)) {
                consume(blank);
                m_state = State::STATE_HARMONY_HEADER;
                continue;
            }
            if (rest.empty() || (!final && (isProperPrefixOf(rest, H_START) || isProperPrefixOf(rest, H_CHANNEL)))) {
                if (final)
                    consume(p.size());
                return;
            }
            consume(blank);
            m_state = State::STATE_HARMONY_BODY;
            m_bodyKind = Kind::REPLY_PART_KIND_ANSWER;
            continue;
        }
        }
    }
}

// STATE_HARMONY_HEADER: up to <|message|> (then the body, of the header's
// kind: a message to a recipient opens its tool-call part with
// "to=RECIPIENT<|message|>"), or given up on past HARMONY_HEADER_LIMIT.
// True: go on with the next state; false: wait for more bytes.
bool ReasoningSplitter::harmonyHeader(bool final, std::vector<ReplyPart> &out)
{
    using Kind = ReplyPartKind;
    const std::string_view p = m_pending;
    const size_t message = p.find(H_MESSAGE);
    if (message != std::string_view::npos && message + H_MESSAGE.size() <= HARMONY_HEADER_LIMIT) {
        m_bodyKind = kindOfHeader(p.substr(0, message));
        if (m_bodyKind == Kind::REPLY_PART_KIND_TOOL_CALL) {
            std::string head = "to=";
            head.append(headerRecipient(p.substr(0, message)));
            head.append(H_MESSAGE);
            emit(Kind::REPLY_PART_KIND_TOOL_CALL, head, out);
        }
        m_pending.erase(0, message + H_MESSAGE.size());
        m_state = State::STATE_HARMONY_BODY;
        return true;
    }
    if (p.size() >= HARMONY_HEADER_LIMIT) {
        // Not a header after all: the markup is broken, so the rest of the
        // reply is written as it is, as answer.
        m_state = State::STATE_ANSWER;
        return true;
    }
    if (final)
        m_pending.clear();   // an unfinished header is markup
    return false;
}

// Gemma 4's states: runs them until one has to wait for more bytes (returns
// true), or returns false at once when m_state is not one of them.
bool ReasoningSplitter::processChannels(bool final, std::vector<ReplyPart> &out)
{
    using Kind = ReplyPartKind;
    auto consume = [&](size_t n) { m_pending.erase(0, n); };
    while (true) {
        const std::string_view p = m_pending;
        switch (m_state) {
        case State::STATE_CHANNEL_START: {
            const size_t blank = countLeadingBlank(p);
            const std::string_view rest = p.substr(blank);
            if (startsWith(rest, G_CHANNEL_OPEN)) {
                consume(blank);
                m_state = State::STATE_CHANNEL_ANSWER;
                continue;
            }
            if (!final && isProperPrefixOf(rest, G_CHANNEL_OPEN))
                return true;   // white space and/or part of "<|channel>": wait
            m_state = State::STATE_CHANNEL_ANSWER;   // the leading white space stays the answer's
            continue;
        }
        case State::STATE_CHANNEL_ANSWER: {
            // An unmatched <channel|> (Gemma 4 may end its answer with one, as
            // the reference's parser notes) is dropped, never shown.
            const Found f = findFirst(p, {G_CHANNEL_OPEN, G_TOOL_OPEN, G_CHANNEL_CLOSE});
            if (f.at != std::string_view::npos) {
                emit(Kind::REPLY_PART_KIND_ANSWER, p.substr(0, f.at), out);
                consume(f.at + f.marker.size());
                if (f.marker != G_CHANNEL_CLOSE)
                    m_state = f.marker == G_TOOL_OPEN ? State::STATE_TOOL_CALL : State::STATE_CHANNEL_NAME;
                continue;
            }
            size_t keep = p.size();
            if (!final) {
                keep -= heldMarkerTail(p, {G_CHANNEL_OPEN, G_TOOL_OPEN, G_CHANNEL_CLOSE});
                keep -= incompleteUtf8Tail(p.substr(0, keep));
            }
            emit(Kind::REPLY_PART_KIND_ANSWER, p.substr(0, keep), out);
            consume(keep);
            return true;
        }
        case State::STATE_CHANNEL_NAME: {
            const size_t lineBreak = p.find('\n');
            const size_t close = p.find(G_CHANNEL_CLOSE);
            if (lineBreak != std::string_view::npos && lineBreak < close && lineBreak < GEMMA4_HEADER_LIMIT) {
                consume(lineBreak + 1);   // the channel's name ("thought") and its line break
                m_state = State::STATE_CHANNEL_LEAD;
                continue;
            }
            if (close != std::string_view::npos || p.size() >= GEMMA4_HEADER_LIMIT || final) {
                m_state = State::STATE_CHANNEL_LEAD;   // no header: the body starts right away
                continue;
            }
            return true;
        }
        case State::STATE_CHANNEL_LEAD:
            consume(countLeadingBlank(p));
            if (m_pending.empty()) {
                if (final)
                    m_state = State::STATE_CHANNEL_BODY;
                return true;
            }
            m_state = State::STATE_CHANNEL_BODY;
            continue;
        case State::STATE_CHANNEL_BODY: {
            const size_t close = p.find(G_CHANNEL_CLOSE);
            if (close != std::string_view::npos) {
                emit(Kind::REPLY_PART_KIND_REASONING, p.substr(0, lengthWithoutTrailingBlank(p.substr(0, close))), out);
                consume(close + G_CHANNEL_CLOSE.size());
                m_reasoningEnded = true;
                m_state = State::STATE_CHANNEL_AFTER;
                continue;
            }
            size_t keep = p.size();
            if (!final) {
                keep -= heldMarkerTail(p, {G_CHANNEL_CLOSE});
                keep = lengthWithoutTrailingBlank(p.substr(0, keep));
                keep -= incompleteUtf8Tail(p.substr(0, keep));
            } else {
                keep = lengthWithoutTrailingBlank(p);
            }
            emit(Kind::REPLY_PART_KIND_REASONING, p.substr(0, keep), out);
            consume(final ? p.size() : keep);
            return true;
        }
        case State::STATE_CHANNEL_AFTER:
            consume(countLeadingBlank(p));
            if (m_pending.empty())
                return true;
            m_state = State::STATE_CHANNEL_ANSWER;
            continue;
        case State::STATE_TOOL_CALL: {
            const size_t close = p.find(G_TOOL_CLOSE);
            if (close != std::string_view::npos) {
                emit(Kind::REPLY_PART_KIND_TOOL_CALL, p.substr(0, close), out);
                consume(close + G_TOOL_CLOSE.size());
                m_state = State::STATE_CHANNEL_ANSWER;
                continue;
            }
            size_t keep = p.size();
            if (!final) {
                keep -= heldMarkerTail(p, {G_TOOL_CLOSE});
                keep -= incompleteUtf8Tail(p.substr(0, keep));
            }
            emit(Kind::REPLY_PART_KIND_TOOL_CALL, p.substr(0, keep), out);
            consume(keep);
            return true;
        }
        default:
            return false;
        }
    }
}

bool promptEndsInReasoning(ReasoningSyntax syntax, std::string_view prompt)
{
    switch (syntax) {
    case ReasoningSyntax::REASONING_SYNTAX_NONE:
        return false;
    case ReasoningSyntax::REASONING_SYNTAX_GEMMA4_CHANNEL: {
        const size_t open = prompt.rfind(G_CHANNEL_OPEN);
        return open != std::string_view::npos && prompt.find(G_CHANNEL_CLOSE, open) == std::string_view::npos;
    }
    case ReasoningSyntax::REASONING_SYNTAX_THINK_TAGS: {
        const size_t open = prompt.rfind(THINK_OPEN);
        if (open == std::string_view::npos)
            return false;
        const std::string_view rest = prompt.substr(open + THINK_OPEN.size());
        return countLeadingBlank(rest) == rest.size();
    }
    case ReasoningSyntax::REASONING_SYNTAX_HARMONY: {
        if (prompt.size() < H_MESSAGE.size() || prompt.substr(prompt.size() - H_MESSAGE.size()) != H_MESSAGE)
            return false;
        const std::string_view before = prompt.substr(0, prompt.size() - H_MESSAGE.size());
        // The header: back to the previous "<|start|>" (or the start).
        size_t from = before.rfind(H_START);
        from = from == std::string_view::npos ? 0 : from;
        const std::string_view header = before.substr(from);
        if (header.find(H_MESSAGE) != std::string_view::npos || header.find(H_END) != std::string_view::npos)
            return false;
        return kindOfHeader(header) == ReplyPartKind::REPLY_PART_KIND_REASONING;
    }
    }
    return false;
}

ReasoningOptions reasoningOptionsFor(ReasoningSyntax syntax, std::string_view prompt)
{
    ReasoningOptions options;
    options.syntax = syntax;
    options.startsInReasoning = promptEndsInReasoning(syntax, prompt);
    return options;
}

} // namespace burrow::chat
