// BPE tokenization of one piece of text, as the reference engine's
// llm_tokenizer_bpe does it.
//
// Contract: the pre-tokenizer cuts the text into words; each word's bytes are
// spelled with the byte-level characters (byte_level.h); with ignoreMerges a
// word that is a whole token is taken as is; otherwise the word starts as one
// symbol per character and the adjacent pair with the lowest merge rank is
// merged first (ties: leftmost) until no pair has a rank. A final symbol that
// is not a token is written as the tokens of its single bytes where those
// exist (the reference's behaviour; normally unreachable).
// Gemma 4 (Vocab::rawUtf8): the text arrives with spaces already '▁'; the
// symbols are its UTF-8 characters as they are (no byte-level map), a word
// of line breaks only that is a token is taken whole, and a final symbol
// that is not a token is written as its bytes' <0xHH> tokens.
//
// Cost: O(n log n) per word (a heap of candidate pairs), linear overall.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace burrow::tokenizer {

struct Vocab;
class PreTokenizer;

void bpeTokenize(const Vocab &vocab, const PreTokenizer &pre, std::string_view text, std::vector<int32_t> &out);

} // namespace burrow::tokenizer
