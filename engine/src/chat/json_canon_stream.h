// JsonCanonStream: one JSON value read in pieces, written back compactly as
// its bytes come: what json::toJsonString(parseJson(text)) writes, in the
// longest prefix the bytes so far make certain. Used to stream a tool call's
// arguments as the model writes them (chat/tool_calls.h).
//
// Contract:
// - feed() takes the next bytes in any cut and appends the output that is
//   certain now; the concatenated output does not depend on the cut.
// - Output rules (those of json.cpp's writer): white space outside strings
//   dropped; string bytes written as appendJsonString writes them, escapes
//   decoded first (a \u escape, or a surrogate pair, once whole); a number
//   or literal once a byte after it ends it, as parse-then-write gives it
//   ("1.50" -> "1.5", "1e2" -> "100").
// - For a valid value without repeated keys the whole output equals
//   toJsonString(parseJson(text)) (a repeated key keeps its last value
//   there, here both are written: the caller compares).
// - A syntax error, nesting past json::JSON_MAX_DEPTH or a number out of
//   range sets failed(): nothing more is read or written.
// - feed() stops reading at the byte after the value's end (done()); the
//   bytes it did not read are left to the caller (consumed() counts).
// Cost: O(bytes); holds at most one escape or scalar token and the nesting.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace burrow::chat {

class JsonCanonStream {
public:
    // Reading starts inside an object whose key and value were read, at
    // the ',' or '}' that follows (a call object's tail after its
    // arguments); the output is written as usual.
    static JsonCanonStream afterObjectMember();

    // Reads from the start of `bytes`; returns the count it read (all of
    // them unless the value ended or failed inside).
    size_t feed(std::string_view bytes, std::string &out);
    bool done() const { return m_done; }
    bool failed() const { return m_failed; }
    size_t consumed() const { return m_consumed; }

private:
    enum class Expect { EXPECT_VALUE, EXPECT_KEY_OR_CLOSE, EXPECT_VALUE_OR_CLOSE, EXPECT_KEY, EXPECT_COLON,
                        EXPECT_COMMA_OR_CLOSE };

    bool step(char c, std::string &out);
    bool stringByte(char c, std::string &out);
    bool flushScalar(std::string &out);
    void valueEnded();

    std::vector<char> m_stack;   // '{' or '[' per open container
    Expect m_expect = Expect::EXPECT_VALUE;
    bool m_inString = false;
    std::string m_escape;        // an escape being read, backslash included
    std::string m_scalar;        // a number or literal being read
    bool m_done = false;
    bool m_failed = false;
    size_t m_consumed = 0;
};

} // namespace burrow::chat
