// Matching bytes against a compiled schema (json_schema.h), one byte at a
// time: a set of alternative stacks (anyOf and optional properties branch;
// a number or an enum value that could end or go on keeps both readings
// until the next byte decides).
//
// A Stack's frames, bottom to top: what is still to come after the value
// being written. Frame kinds and their fields:
//   VALUE(node)               a value of `node` is next (nothing read yet)
//   OBJECT(node, phase, a)    inside a declared object: a = first property
//                             index a key may still name
//   KEY(node, a, b)           the key literal of property a, b bytes read
//   ANY_OBJECT(phase)         inside any object
//   ARRAY(node, phase, a)     a = items so far
//   STRING(node, phase, a, b) a = code points so far, b = UTF-8 bytes still
//                             owed; phase 0 plain, 1 after '\', 2..5 \u digits
//   NUMBER(node, phase, a)    a = digits in the current part
//   LITERAL(node, a, b, c)    candidates literals[a..b), c bytes read
//
// Bounds: a stack is at most kMaxDepth frames (deeper nesting is not
// accepted, so even any-JSON output closes), a set at most kMaxStacks
// stacks (further branches are dropped). Cost per byte: O(stacks × depth).
// A matcher is used by one thread at a time (advance() reuses a scratch stack).
#pragma once

#include "grammar/json_schema.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace burrow::grammar {

enum class FrameKind : uint8_t {
    FRAME_VALUE,
    FRAME_OBJECT,
    FRAME_KEY,
    FRAME_ANY_OBJECT,
    FRAME_ARRAY,
    FRAME_STRING,
    FRAME_NUMBER,
    FRAME_LITERAL,
};

struct Frame {
    uint32_t node = 0;
    FrameKind kind = FrameKind::FRAME_VALUE;
    uint8_t phase = 0;
    uint16_t pad = 0;
    uint32_t a = 0, b = 0, c = 0;
    bool operator==(const Frame &o) const
    {
        return node == o.node && kind == o.kind && phase == o.phase && a == o.a && b == o.b && c == o.c;
    }
};

using Stack = std::vector<Frame>;

constexpr size_t kMaxDepth = 32;
constexpr size_t kMaxStacks = 64;

// A set of stacks whose storage is reused (no allocation once warm).
struct StateSet {
    std::vector<Stack> stacks;
    size_t size = 0;
    void clear() { size = 0; }
    bool empty() const { return size == 0; }
    Stack &add(const Stack &s);
    void copyFrom(const StateSet &other);
    // The set as bytes (a cache key); equal sets written in the same order give equal keys.
    void key(std::string &out) const;
};

class JsonMatcher {
public:
    // `graph` must outlive the matcher.
    explicit JsonMatcher(const SchemaGraph &graph, uint32_t prefixNode = UINT32_MAX, uint32_t suffixNode = UINT32_MAX);

    const StateSet &initial() const { return m_initial; }
    // Every reading of `in` advanced by byte c, into `out` (cleared first).
    void advance(const StateSet &in, uint8_t c, StateSet &out) const;
    // Some reading is complete (the output may end here).
    bool canFinish(const StateSet &set) const;
    // Every reading is inside the body of a string without bounds (no
    // escape or UTF-8 sequence under way): a plain byte (plainStringByte)
    // leaves the set exactly as it is. The trie walk's shortcut.
    bool inPlainString(const StateSet &set) const;
    static bool plainStringByte(uint8_t c) { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\'; }

private:
    // Consumes `s` (its frames are rewritten).
    void step(Stack &s, uint8_t c, StateSet &out, int fanout) const;
    enum class Step { STEP_DONE, STEP_AGAIN };
    Step stepValue(Stack &s, uint8_t c, StateSet &out, int fanout) const;
    Step stepLiteral(Stack &s, uint8_t c, StateSet &out) const;
    Step stepNumber(Stack &s, uint8_t c, StateSet &out) const;
    Step stepString(Stack &s, uint8_t c, StateSet &out) const;
    Step stepObject(Stack &s, uint8_t c, StateSet &out) const;
    Step stepKey(Stack &s, uint8_t c, StateSet &out) const;
    Step stepAnyObject(Stack &s, uint8_t c, StateSet &out) const;
    Step stepArray(Stack &s, uint8_t c, StateSet &out) const;
    bool pushValue(Stack &s, uint32_t node) const;
    static bool finishable(const Stack &s, const SchemaGraph &g);

    const SchemaGraph &m_graph;
    StateSet m_initial;
    mutable Stack m_work;   // advance()'s copy of the stack it steps (one thread per matcher)
};

} // namespace burrow::grammar
