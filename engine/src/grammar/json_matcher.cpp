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

// One byte on one stack; every surviving reading is added to `out`. Each
// frame kind's step either settles the byte (STEP_DONE) or changes the
// stack and hands the same byte on (STEP_AGAIN: a frame that turned into
// another, or a finished number or literal whose parent takes the byte).
void JsonMatcher::step(Stack &s, uint8_t c, StateSet &out, int fanout) const
{
    while (!s.empty() && out.size < kMaxStacks && fanout <= 8) {
        Step next = Step::STEP_DONE;
        switch (s.back().kind) {
        case FrameKind::FRAME_VALUE: next = stepValue(s, c, out, fanout); break;
        case FrameKind::FRAME_LITERAL: next = stepLiteral(s, c, out); break;
        case FrameKind::FRAME_NUMBER: next = stepNumber(s, c, out); break;
        case FrameKind::FRAME_STRING: next = stepString(s, c, out); break;
        case FrameKind::FRAME_OBJECT: next = stepObject(s, c, out); break;
        case FrameKind::FRAME_KEY: next = stepKey(s, c, out); break;
        case FrameKind::FRAME_ANY_OBJECT: next = stepAnyObject(s, c, out); break;
        case FrameKind::FRAME_ARRAY: next = stepArray(s, c, out); break;
        }
        if (next == Step::STEP_DONE)
            return;
    }
}

// A value of the frame's node starts: its first byte picks the frame.
JsonMatcher::Step JsonMatcher::stepValue(Stack &s, uint8_t c, StateSet &out, int fanout) const
{
    Frame &f = s.back();
    const Node &n = m_graph.nodes[f.node];
    const auto open = [&](FrameKind kind, uint32_t node, uint8_t expected) {
        if (c != expected)
            return Step::STEP_DONE;
        f = frame(kind, node, 0, 0);
        out.add(s);
        return Step::STEP_DONE;
    };
    switch (n.kind) {
    case NodeKind::NODE_ANY_OF:
        for (const uint32_t b : n.branches) {
            Stack alt = s;
            alt.back() = frame(FrameKind::FRAME_VALUE, b);
            step(alt, c, out, fanout + 1);
        }
        return Step::STEP_DONE;
    case NodeKind::NODE_LITERALS:
        f = frame(FrameKind::FRAME_LITERAL, f.node, 0, 0, static_cast<uint32_t>(n.literals.size()), 0);
        return Step::STEP_AGAIN;
    case NodeKind::NODE_OBJECT: return open(FrameKind::FRAME_OBJECT, f.node, '{');
    case NodeKind::NODE_ANY_OBJECT: return open(FrameKind::FRAME_ANY_OBJECT, f.node, '{');
    case NodeKind::NODE_ARRAY: return open(FrameKind::FRAME_ARRAY, f.node, '[');
    case NodeKind::NODE_STRING: return open(FrameKind::FRAME_STRING, f.node, '"');
    case NodeKind::NODE_NUMBER:
    case NodeKind::NODE_INTEGER:
        f = frame(FrameKind::FRAME_NUMBER, f.node, NUM_START, 0);
        return Step::STEP_AGAIN;
    case NodeKind::NODE_ANY:
        if (c == '{')
            return open(FrameKind::FRAME_ANY_OBJECT, f.node, '{');
        if (c == '[')
            return open(FrameKind::FRAME_ARRAY, ANY_ARRAY, '[');
        f = frame(FrameKind::FRAME_VALUE, c == '"'                           ? m_graph.anyStringNode
                                          : (c == 't' || c == 'f' || c == 'n') ? m_graph.keywordNode
                                                                               : m_graph.anyNumberNode);
        return Step::STEP_AGAIN;
    }
    return Step::STEP_DONE;
}

// One of a sorted set of literal texts: the candidates narrow to those whose
// next byte is c (a contiguous range); a complete one that cannot go on
// hands the byte to its parent.
JsonMatcher::Step JsonMatcher::stepLiteral(Stack &s, uint8_t c, StateSet &out) const
{
    Frame &f = s.back();
    const auto &lits = m_graph.nodes[f.node].literals;
    const uint32_t lo = f.a, hi = f.b, at = f.c;
    const auto byteAt = [&](const std::string &l) -> int { return at < l.size() ? static_cast<uint8_t>(l[at]) : -1; };
    const auto first = std::partition_point(lits.begin() + lo, lits.begin() + hi,
                                            [&](const std::string &l) { return byteAt(l) < c; });
    const auto last = std::partition_point(first, lits.begin() + hi, [&](const std::string &l) { return byteAt(l) == c; });
    if (first == last) {
        if (lo < hi && lits[lo].size() == at) {
            s.pop_back();
            return Step::STEP_AGAIN;
        }
        return Step::STEP_DONE;
    }
    f.a = static_cast<uint32_t>(first - lits.begin());
    f.b = static_cast<uint32_t>(last - lits.begin());
    ++f.c;
    if (f.b - f.a == 1 && lits[f.a].size() == f.c)
        s.pop_back();   // the only candidate, complete
    out.add(s);
    return Step::STEP_DONE;
}

// -?(0|[1-9]d{0,15})(.d{1,16})?([eE][+-]?d{1,3})? (integers without the last two).
JsonMatcher::Step JsonMatcher::stepNumber(Stack &s, uint8_t c, StateSet &out) const
{
    Frame &f = s.back();
    const bool integer = m_graph.nodes[f.node].kind == NodeKind::NODE_INTEGER;
    const auto to = [&](uint8_t phase, uint32_t digits) {
        f.phase = phase;
        f.a = digits;
        out.add(s);
        return Step::STEP_DONE;
    };
    const auto end = [&] {
        s.pop_back();
        return Step::STEP_AGAIN;
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
        return Step::STEP_DONE;
    case NUM_INT:
        if (isDigit(c) && f.a < kMaxIntDigits)
            return to(NUM_INT, f.a + 1);
        [[fallthrough]];
    case NUM_ZERO:
        if (!integer && c == '.')
            return to(NUM_DOT, 0);
        if (!integer && (c == 'e' || c == 'E'))
            return to(NUM_EXP, 0);
        return end();
    case NUM_DOT:
        return isDigit(c) ? to(NUM_FRAC, 1) : Step::STEP_DONE;
    case NUM_FRAC:
        if (isDigit(c) && f.a < kMaxFracDigits)
            return to(NUM_FRAC, f.a + 1);
        if (c == 'e' || c == 'E')
            return to(NUM_EXP, 0);
        return end();
    case NUM_EXP:
        if (c == '+' || c == '-')
            return to(NUM_EXP_SIGN, 0);
        [[fallthrough]];
    case NUM_EXP_SIGN:
        return isDigit(c) ? to(NUM_EXP_DIGITS, 1) : Step::STEP_DONE;
    case NUM_EXP_DIGITS:
        if (isDigit(c) && f.a < kMaxExpDigits)
            return to(NUM_EXP_DIGITS, f.a + 1);
        return end();
    default:
        return Step::STEP_DONE;
    }
}

// A string's body after its opening quote: escapes, UTF-8, the bounds.
JsonMatcher::Step JsonMatcher::stepString(Stack &s, uint8_t c, StateSet &out) const
{
    Frame &f = s.back();
    const Node &n = m_graph.nodes[f.node];
    // Code points are counted only against bounds: an unbounded string's
    // state stays the same character after character (one cached mask for
    // its whole body).
    const uint32_t counted = n.minCount > 0 || n.maxCount != UINT32_MAX ? 1 : 0;
    if (f.b > 0) {   // a UTF-8 continuation byte is owed
        if ((c & 0xC0) != 0x80)
            return Step::STEP_DONE;
        if (--f.b == 0)
            f.a += counted;
    } else if (f.phase == 1) {   // after '\'
        if (c == 'u') {
            f.phase = 2;
        } else if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' || c == 't') {
            f.phase = 0;
            f.a += counted;
        } else {
            return Step::STEP_DONE;
        }
    } else if (f.phase >= 2) {   // \u and its four hexadecimal digits
        if (!isHex(c))
            return Step::STEP_DONE;
        if (++f.phase == 6) {
            f.phase = 0;
            f.a += counted;
        }
    } else if (c == '"') {
        if (f.a < n.minCount)
            return Step::STEP_DONE;
        s.pop_back();
    } else {
        if (f.a >= n.maxCount || c < 0x20)
            return Step::STEP_DONE;
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
            return Step::STEP_DONE;
    }
    out.add(s);
    return Step::STEP_DONE;
}

// A declared object: '}' once no required property is left, ',' between
// properties, a key naming one of the properties it may name next.
JsonMatcher::Step JsonMatcher::stepObject(Stack &s, uint8_t c, StateSet &out) const
{
    Frame &f = s.back();
    const Node &n = m_graph.nodes[f.node];
    const uint32_t count = static_cast<uint32_t>(n.properties.size());
    if (c == '}' && f.phase != OBJ_COMMA && n.mayCloseFrom(f.a)) {
        s.pop_back();
        out.add(s);
        return Step::STEP_DONE;
    }
    if (f.phase == OBJ_AFTER_VALUE) {
        if (c == ',' && f.a < count) {
            f.phase = OBJ_COMMA;
            out.add(s);
        }
        return Step::STEP_DONE;
    }
    if (c != '"' || f.a >= count || s.size() + 1 >= kMaxDepth)
        return Step::STEP_DONE;
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
    return Step::STEP_DONE;
}

// A property's key literal ("\"name\":"), then its value.
JsonMatcher::Step JsonMatcher::stepKey(Stack &s, uint8_t c, StateSet &out) const
{
    Frame &f = s.back();
    const Property &p = m_graph.nodes[f.node].properties[f.a];
    if (f.b >= p.keyLiteral.size() || static_cast<uint8_t>(p.keyLiteral[f.b]) != c)
        return Step::STEP_DONE;
    if (++f.b == p.keyLiteral.size())
        f = frame(FrameKind::FRAME_VALUE, p.node);
    out.add(s);
    return Step::STEP_DONE;
}

// Any object: string keys, any values.
JsonMatcher::Step JsonMatcher::stepAnyObject(Stack &s, uint8_t c, StateSet &out) const
{
    Frame &f = s.back();
    if ((f.phase == ANYOBJ_START || f.phase == ANYOBJ_AFTER_VALUE) && c == '}') {
        s.pop_back();
        out.add(s);
    } else if (f.phase == ANYOBJ_AFTER_VALUE) {
        if (c == ',') {
            f.phase = ANYOBJ_COMMA;
            out.add(s);
        }
    } else if (f.phase == ANYOBJ_START || f.phase == ANYOBJ_COMMA) {
        if (c == '"' && s.size() + 1 < kMaxDepth) {
            f.phase = ANYOBJ_KEY_DONE;
            s.push_back(frame(FrameKind::FRAME_STRING, m_graph.anyStringNode, 0, 0, 0));
            out.add(s);
        }
    } else if (c == ':') {   // ANYOBJ_KEY_DONE
        f.phase = ANYOBJ_AFTER_VALUE;
        if (pushValue(s, m_graph.anyNode))
            out.add(s);
    }
    return Step::STEP_DONE;
}

// An array: items of the node's schema (any values for ANY_ARRAY) within
// minItems / maxItems.
JsonMatcher::Step JsonMatcher::stepArray(Stack &s, uint8_t c, StateSet &out) const
{
    Frame &f = s.back();
    const bool any = f.node == ANY_ARRAY;
    const uint32_t minCount = any ? 0 : m_graph.nodes[f.node].minCount;
    const uint32_t maxCount = any ? UINT32_MAX : m_graph.nodes[f.node].maxCount;
    const uint32_t items = any ? m_graph.anyNode : m_graph.nodes[f.node].items;
    if (c == ']' && f.phase != ARR_COMMA && f.a >= minCount) {
        s.pop_back();
        out.add(s);
        return Step::STEP_DONE;
    }
    if (f.phase == ARR_AFTER_ITEM) {
        if (c == ',' && f.a < maxCount) {
            f.phase = ARR_COMMA;
            out.add(s);
        }
        return Step::STEP_DONE;
    }
    if (f.a >= maxCount)
        return Step::STEP_DONE;
    f.phase = ARR_AFTER_ITEM;
    ++f.a;
    return pushValue(s, items) ? Step::STEP_AGAIN : Step::STEP_DONE;   // the byte starts the item
}

} // namespace burrow::grammar
