// UTF-8 helpers shared by the tokenizers and the streaming decoder.
//
// Contract: nothing here trusts its input. Decoding is strict (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF); an invalid sequence
// is reported, never read past the end of the buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace burrow::tokenizer {

inline constexpr uint32_t UTF8_REPLACEMENT_CHARACTER = 0xFFFD;

enum class Utf8Status {
    UTF8_STATUS_VALID,       // a complete, valid sequence
    UTF8_STATUS_INCOMPLETE,  // a valid prefix cut off by the end of the buffer
    UTF8_STATUS_INVALID,     // can never become valid; `length` bytes are the maximal invalid subpart
};

struct Utf8Sequence {
    Utf8Status status = Utf8Status::UTF8_STATUS_INVALID;
    uint32_t codepoint = 0;  // when VALID
    size_t length = 0;       // bytes consumed (>= 1 unless the buffer is empty)
};

// Decodes the sequence starting at text[pos] (pos < text.size()). For INVALID,
// `length` is the maximal subpart to replace with one U+FFFD (Unicode's
// "substitution of maximal subparts" practice); for INCOMPLETE it is the
// number of bytes present. O(1).
Utf8Sequence utf8Decode(std::string_view text, size_t pos);

// Appends the UTF-8 encoding of `codepoint` (must be <= 0x10FFFF).
void utf8Append(std::string &out, uint32_t codepoint);

// Length of the sequence a lead byte announces, from its high nibble only
// (0x0-0xB -> 1, 0xC-0xD -> 2, 0xE -> 3, 0xF -> 4). This is how the reference
// SentencePiece tokenizer cuts text into symbols, valid or not.
size_t utf8LengthFromLeadByte(uint8_t lead);

// True when the whole text is valid UTF-8. O(n).
bool utf8IsValid(std::string_view text);

// Replaces every invalid sequence with U+FFFD (an incomplete tail too). O(n).
std::string utf8Sanitize(std::string_view text);

} // namespace burrow::tokenizer
