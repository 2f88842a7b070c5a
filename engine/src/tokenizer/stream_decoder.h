// Incremental detokenization for streaming: turns generated ids into text
// that is always complete UTF-8.
//
// Contract: push() returns the text that became complete with this token;
// bytes of a character split across tokens (a Chinese character, an emoji)
// are held back and appear once, whole, with the token that completes them.
// Bytes that can never become valid UTF-8 come out as U+FFFD as soon as that
// is certain (one per maximal invalid subpart); finish() returns what is
// still held back, an unfinished character becoming U+FFFD, and resets.
// The concatenation of all outputs equals utf8Sanitize(concatenation of the
// token bytes). No leading space is removed: a generated "▁Once" is " Once".
//
// Cost: O(bytes of the token) per push; holds at most 3 bytes back.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace burrow::tokenizer {

class Tokenizer;

// The UTF-8 part, independent of any vocabulary.
class Utf8StreamDecoder {
public:
    std::string push(std::string_view bytes);
    std::string finish();
    void reset() { m_pending.clear(); }
    bool hasPending() const { return !m_pending.empty(); }

private:
    std::string m_pending;   // a valid but unfinished sequence (<= 3 bytes)
};

class StreamDecoder {
public:
    // `tokenizer` must outlive the decoder. renderSpecial as in
    // Tokenizer::tokenBytes.
    explicit StreamDecoder(const Tokenizer &tokenizer, bool renderSpecial = false);
    std::string push(int32_t id);
    std::string finish() { return m_utf8.finish(); }
    void reset() { m_utf8.reset(); }
    bool hasPending() const { return m_utf8.hasPending(); }

private:
    const Tokenizer *m_tokenizer;
    bool m_renderSpecial;
    Utf8StreamDecoder m_utf8;
};

} // namespace burrow::tokenizer
