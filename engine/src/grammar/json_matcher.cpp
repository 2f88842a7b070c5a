// JsonMatcher: the byte step of each frame kind (see json_matcher.h).
#include "grammar/json_matcher.h"

#include <algorithm>
#include <cstring>

namespace burrow::grammar {

namespace {

constexpr uint32_t ANY_ARRAY = UINT32_MAX;   // ARRAY frame over any values
constexpr uint32_t kMaxIntDigits = 16, kMaxFracDigits = 16, kMaxExpDigits = 3;

enum ObjectPhase : uint8_t { OBJ_START, OBJ_AFTER_VALUE, OBJ_COMMA };
enum AnyObjectPhase : uint8_t { ANYOBJ_START, ANYOBJ_KEY_DONE, ANYOBJ_AFTER_VALUE, ANYOBJ_COMMA };
enum ArrayPhase : uint8_t { ARR_START, ARR_AFTER_ITEM, ARR_COMMA };
enum NumberPhase : uint8_t { NUM_START, NUM_SIGN, NUM_INT, NUM_ZERO, NUM_DOT, NUM_FRAC, NUM_EXP, NUM_EXP_SIGN, NUM_EXP_DIGITS };

bool isDigit(uint8_t c)
{
    return c >= '0' && c <= '9';
}

bool isHex(uint8_t c)
{
    return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

Frame frame(FrameKind kind, uint32_t node, uint8_t phase = 0, uint32_t a = 0, uint32_t b = 0, uint32_t c = 0)
{
    Frame f;
    f.kind = kind;
    f.node = node;
    f.phase = phase;
    f.a = a;
    f.b = b;
    f.c = c;
    return f;
}

bool numberComplete(uint8_t phase)
{
    return phase == NUM_INT || phase == NUM_ZERO || phase == NUM_FRAC || phase == NUM_EXP_DIGITS;
}

} // namespace

Stack &StateSet::add(const Stack &s)
{
    if (size == stacks.size())
        stacks.push_back(s);
    else
        stacks[size] = s;
    return stacks[size++];
}

void StateSet::copyFrom(const StateSet &other)
{
    clear();
    for (size_t i = 0; i < other.size; ++i)
        add(other.stacks[i]);
}

void StateSet::key(std::string &out) const
{
    out.clear();
    for (size_t i = 0; i < size; ++i) {
        const Stack &s = stacks[i];
        const uint32_t n = static_cast<uint32_t>(s.size());
        out.append(reinterpret_cast<const char *>(&n), sizeof n);
        out.append(reinterpret_cast<const char *>(s.data()), s.size() * sizeof(Frame));
    }
}

JsonMatcher::JsonMatcher(const SchemaGraph &graph, uint32_t prefixNode, uint32_t suffixNode) : m_graph(graph)
{
    Stack s;
    if (suffixNode != UINT32_MAX)
        s.push_back(frame(FrameKind::FRAME_LITERAL, suffixNode, 0, 0,
                          static_cast<uint32_t>(graph.nodes[suffixNode].literals.size()), 0));
    s.push_back(frame(FrameKind::FRAME_VALUE, graph.root));
    if (prefixNode != UINT32_MAX)
        s.push_back(frame(FrameKind::FRAME_LITERAL, prefixNode, 0, 0,
                          static_cast<uint32_t>(graph.nodes[prefixNode].literals.size()), 0));
    m_initial.add(s);
}

bool JsonMatcher::pushValue(Stack &s, uint32_t node) const
{
    if (s.size() >= kMaxDepth)
        return false;
    s.push_back(frame(FrameKind::FRAME_VALUE, node));
    return true;
}

void JsonMatcher::advance(const StateSet &in, uint8_t c, StateSet &out) const
{
    out.clear();
    for (size_t i = 0; i < in.size && out.size < kMaxStacks; ++i) {
        m_work = in.stacks[i];   // reuses m_work's storage: no allocation once warm
        step(m_work, c, out, 0);
    }
    // Branches that met again (anyOf alternatives of one shape) are one.
    for (size_t i = 1; i < out.size; ++i)
        for (size_t j = 0; j < i; ++j)
            if (out.stacks[j] == out.stacks[i]) {
                std::swap(out.stacks[i], out.stacks[out.size - 1]);
                --out.size;
                --i;
                break;
            }
}

bool JsonMatcher::finishable(const Stack &s, const SchemaGraph &g)
{
    for (size_t i = s.size(); i-- > 0;) {
        const Frame &f = s[i];
        if (f.kind == FrameKind::FRAME_NUMBER && numberComplete(f.phase))
            continue;
        if (f.kind == FrameKind::FRAME_LITERAL && f.a < f.b && g.nodes[f.node].literals[f.a].size() == f.c)
            continue;
        return false;
    }
    return true;
}

bool JsonMatcher::canFinish(const StateSet &set) const
{
    for (size_t i = 0; i < set.size; ++i)
        if (finishable(set.stacks[i], m_graph))
            return true;
    return false;
}

bool JsonMatcher::inPlainString(const StateSet &set) const
{
    if (set.empty())
        return false;
    for (size_t i = 0; i < set.size; ++i) {
        const Stack &s = set.stacks[i];
        if (s.empty() || s.back().kind != FrameKind::FRAME_STRING || s.back().phase != 0 || s.back().b != 0)
            return false;
        const Node &n = m_graph.nodes[s.back().node];
        if (n.minCount != 0 || n.maxCount != UINT32_MAX)
            return false;
    }
    return true;
}

// One byte on one stack; every surviving reading is added to `out`.
void JsonMatcher::step(Stack &s, uint8_t c, StateSet &out, int fanout) const
{
    const auto &nodes = m_graph.nodes;
    while (true) {
        if (s.empty() || out.size >= kMaxStacks || fanout > 8)
            return;
        Frame &f = s.back();
        switch (f.kind) {
        case FrameKind::FRAME_VALUE: {
            const Node &n = nodes[f.node];
            switch (n.kind) {
            case NodeKind::NODE_ANY_OF:
                for (const uint32_t b : n.branches) {
                    Stack alt = s;
                    alt.back() = frame(FrameKind::FRAME_VALUE, b);
                    step(alt, c, out, fanout + 1);
                }
                return;
            case NodeKind::NODE_LITERALS:
                f = frame(FrameKind::FRAME_LITERAL, f.node, 0, 0, static_cast<uint32_t>(n.literals.size()), 0);
                continue;
            case NodeKind::NODE_OBJECT:
                if (c != '{')
                    return;
                f = frame(FrameKind::FRAME_OBJECT, f.node, OBJ_START, 0);
                out.add(s);
                return;
            case NodeKind::NODE_ANY_OBJECT:
                if (c != '{')
                    return;
                f = frame(FrameKind::FRAME_ANY_OBJECT, f.node, ANYOBJ_START);
                out.add(s);
                return;
            case NodeKind::NODE_ARRAY:
                if (c != '[')
                    return;
                f = frame(FrameKind::FRAME_ARRAY, f.node, ARR_START, 0);
                out.add(s);
                return;
            case NodeKind::NODE_STRING:
                if (c != '"')
                    return;
                f = frame(FrameKind::FRAME_STRING, f.node, 0, 0, 0);
                out.add(s);
                return;
            case NodeKind::NODE_NUMBER:
            case NodeKind::NODE_INTEGER:
                f = frame(FrameKind::FRAME_NUMBER, f.node, NUM_START, 0);
                continue;
            case NodeKind::NODE_ANY: {
                uint32_t next = m_graph.anyNumberNode;
                if (c == '{') {
                    f = frame(FrameKind::FRAME_ANY_OBJECT, f.node, ANYOBJ_START);
                    out.add(s);
                    return;
                }
                if (c == '[') {
                    f = frame(FrameKind::FRAME_ARRAY, ANY_ARRAY, ARR_START, 0);
                    out.add(s);
                    return;
                }
                if (c == '"')
                    next = m_graph.anyStringNode;
                else if (c == 't' || c == 'f' || c == 'n')
                    next = m_graph.keywordNode;
                f = frame(FrameKind::FRAME_VALUE, next);
                continue;
            }
            }
            return;
        }
        case FrameKind::FRAME_LITERAL: {
            const auto &lits = nodes[f.node].literals;
            // The candidates whose byte at f.c is c: a contiguous sub-range (sorted).
            uint32_t lo = f.a, hi = f.b;
            const auto byteAt = [&](uint32_t i) -> int {
                return f.c < lits[i].size() ? static_cast<uint8_t>(lits[i][f.c]) : -1;
            };
            const uint32_t first = static_cast<uint32_t>(
                std::partition_point(lits.begin() + lo, lits.begin() + hi,
                                     [&](const std::string &l) { return byteAt(static_cast<uint32_t>(&l - lits.data())) < c; }) -
                lits.begin());
            const uint32_t last = static_cast<uint32_t>(
                std::partition_point(lits.begin() + first, lits.begin() + hi,
                                     [&](const std::string &l) { return byteAt(static_cast<uint32_t>(&l - lits.data())) == c; }) -
                lits.begin());
            if (first == last) {
                // Not a continuation: complete here? Then the byte is the parent's.
                if (lo < hi && lits[lo].size() == f.c) {
                    s.pop_back();
                    continue;
                }
                return;
            }
            f.a = first;
            f.b = last;
            ++f.c;
            if (last - first == 1 && lits[first].size() == f.c)
                s.pop_back();   // the only candidate, complete
            out.add(s);
            return;
        }
        case FrameKind::FRAME_NUMBER: {
            const bool integer = nodes[f.node].kind == NodeKind::NODE_INTEGER;
            const auto to = [&](uint8_t phase, uint32_t digits) {
                f.phase = phase;
                f.a = digits;
                out.add(s);
            };
            switch (f.phase) {
            case NUM_START:
                if (c == '-')
                    return to(NUM_SIGN, 0);
                [[fallthrough]];
            case NUM_SIGN:
                if (c == '0')
                    return to(NUM_ZERO, 1);
                if (c >= '1' && c <= '9')
                    return to(NUM_INT, 1);
                return;
            case NUM_INT:
                if (isDigit(c) && f.a < kMaxIntDigits)
                    return to(NUM_INT, f.a + 1);
                [[fallthrough]];
            case NUM_ZERO:
                if (!integer && c == '.')
                    return to(NUM_DOT, 0);
                if (!integer && (c == 'e' || c == 'E'))
                    return to(NUM_EXP, 0);
                s.pop_back();
                continue;
            case NUM_DOT:
                if (isDigit(c))
                    return to(NUM_FRAC, 1);
                return;
            case NUM_FRAC:
                if (isDigit(c) && f.a < kMaxFracDigits)
                    return to(NUM_FRAC, f.a + 1);
                if (c == 'e' || c == 'E')
                    return to(NUM_EXP, 0);
                s.pop_back();
                continue;
            case NUM_EXP:
                if (c == '+' || c == '-')
                    return to(NUM_EXP_SIGN, 0);
                [[fallthrough]];
            case NUM_EXP_SIGN:
                if (isDigit(c))
                    return to(NUM_EXP_DIGITS, 1);
                return;
            case NUM_EXP_DIGITS:
                if (isDigit(c) && f.a < kMaxExpDigits)
                    return to(NUM_EXP_DIGITS, f.a + 1);
                s.pop_back();
                continue;
            }
            return;
        }
        case FrameKind::FRAME_STRING: {
            const Node &n = nodes[f.node];
            // Code points are counted only against bounds: an unbounded
            // string's state stays the same character after character (one
            // cached mask for its whole body).
            const uint32_t counted = n.minCount > 0 || n.maxCount != UINT32_MAX ? 1 : 0;
            if (f.b > 0) {   // a UTF-8 continuation byte is owed
                if ((c & 0xC0) != 0x80)
                    return;
                if (--f.b == 0)
                    f.a += counted;
                out.add(s);
                return;
            }
            if (f.phase == 1) {
                if (c == 'u') {
                    f.phase = 2;
                } else if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' ||
                           c == 't') {
                    f.phase = 0;
                    f.a += counted;
                } else {
                    return;
                }
                out.add(s);
                return;
            }
            if (f.phase >= 2) {
                if (!isHex(c))
                    return;
                if (++f.phase == 6) {
                    f.phase = 0;
                    f.a += counted;
                }
                out.add(s);
                return;
            }
            if (c == '"') {
                if (f.a < n.minCount)
                    return;
                s.pop_back();
                out.add(s);
                return;
            }
            if (f.a >= n.maxCount || c < 0x20)
                return;
            if (c == '\\')
                f.phase = 1;
            else if (c < 0x80)
                f.a += counted;
            else if (c >= 0xC2 && c <= 0xDF)
                f.b = 1;
            else if (c >= 0xE0 && c <= 0xEF)
                f.b = 2;
            else if (c >= 0xF0 && c <= 0xF4)
                f.b = 3;
            else
                return;
            out.add(s);
            return;
        }
        case FrameKind::FRAME_OBJECT: {
            const Node &n = nodes[f.node];
            const uint32_t count = static_cast<uint32_t>(n.properties.size());
            const bool mayClose = n.mayCloseFrom(f.a);
            if (c == '}' && f.phase != OBJ_COMMA && mayClose) {
                s.pop_back();
                out.add(s);
                return;
            }
            if (f.phase == OBJ_AFTER_VALUE) {
                if (c != ',' || f.a >= count)
                    return;
                f.phase = OBJ_COMMA;
                out.add(s);
                return;
            }
            if (c != '"' || f.a >= count || s.size() + 1 >= kMaxDepth)
                return;
            // A key: one reading per property it may name.
            const uint32_t from = f.a, to = n.lastCandidate[from], node = f.node;
            f.phase = OBJ_AFTER_VALUE;
            const size_t top = s.size() - 1;
            for (uint32_t j = from; j <= to && out.size < kMaxStacks; ++j) {
                s[top].a = j + 1;
                s.push_back(frame(FrameKind::FRAME_KEY, node, 0, j, 1));
                out.add(s);
                s.pop_back();
            }
            return;
        }
        case FrameKind::FRAME_KEY: {
            const Property &p = nodes[f.node].properties[f.a];
            if (f.b >= p.keyLiteral.size() || static_cast<uint8_t>(p.keyLiteral[f.b]) != c)
                return;
            if (++f.b == p.keyLiteral.size())
                f = frame(FrameKind::FRAME_VALUE, p.node);
            out.add(s);
            return;
        }
        case FrameKind::FRAME_ANY_OBJECT: {
            switch (f.phase) {
            case ANYOBJ_START:
            case ANYOBJ_AFTER_VALUE:
                if (c == '}') {
                    s.pop_back();
                    out.add(s);
                    return;
                }
                if (f.phase == ANYOBJ_AFTER_VALUE) {
                    if (c != ',')
                        return;
                    f.phase = ANYOBJ_COMMA;
                    out.add(s);
                    return;
                }
                [[fallthrough]];
            case ANYOBJ_COMMA:
                if (c != '"' || s.size() + 1 >= kMaxDepth)
                    return;
                f.phase = ANYOBJ_KEY_DONE;
                s.push_back(frame(FrameKind::FRAME_STRING, m_graph.anyStringNode, 0, 0, 0));
                out.add(s);
                return;
            case ANYOBJ_KEY_DONE:
                if (c != ':')
                    return;
                f.phase = ANYOBJ_AFTER_VALUE;
                if (pushValue(s, m_graph.anyNode))
                    out.add(s);
                return;
            }
            return;
        }
        case FrameKind::FRAME_ARRAY: {
            const bool any = f.node == ANY_ARRAY;
            const uint32_t minCount = any ? 0 : nodes[f.node].minCount;
            const uint32_t maxCount = any ? UINT32_MAX : nodes[f.node].maxCount;
            const uint32_t items = any ? m_graph.anyNode : nodes[f.node].items;
            if (c == ']' && f.phase != ARR_COMMA && f.a >= minCount) {
                s.pop_back();
                out.add(s);
                return;
            }
            if (f.phase == ARR_AFTER_ITEM) {
                if (c != ',' || f.a >= maxCount)
                    return;
                f.phase = ARR_COMMA;
                out.add(s);
                return;
            }
            if (f.a >= maxCount)
                return;
            f.phase = ARR_AFTER_ITEM;
            ++f.a;
            if (!pushValue(s, items))
                return;
            continue;   // the byte starts the item
        }
        }
        return;
    }
}

} // namespace burrow::grammar
