// GPT-2 style byte-level encoding: every byte 0..255 is shown as one printable
// Unicode character, so that a byte-level BPE vocabulary can spell any byte
// sequence with ordinary text tokens.
//
// The map: bytes '!'..'~', 0xA1..0xAC and 0xAE..0xFF stand for themselves
// (as code points); the remaining 68 bytes, in increasing order, become
// U+0100, U+0101, ... (so ' ' is U+0120 'Ġ' and '\n' is U+010A 'Ċ').
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace burrow::tokenizer {

// UTF-8 of the character standing for `byte`. O(1), table lookup.
std::string_view byteLevelEncodeByte(uint8_t byte);

// Appends the byte-level encoding of every byte of `bytes` to `out`.
void byteLevelEncode(std::string_view bytes, std::string &out);

// The byte `codepoint` stands for, or -1 when it is not one of the 256
// characters of the map. O(1).
int byteLevelDecodeCodepoint(uint32_t codepoint);

} // namespace burrow::tokenizer
