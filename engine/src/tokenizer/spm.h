// SentencePiece (BPE-by-score) tokenization of one piece of text, as the
// reference engine's llm_tokenizer_spm does it.
//
// Contract: `text` already has its spaces written as U+2581 '▁' (and the
// space prefix added by the caller). The text is cut into symbols of one
// UTF-8 character each (by lead byte, so invalid bytes never fail); the
// adjacent pair whose concatenation is the highest-scoring token is merged
// first (ties: leftmost), until no pair forms a token. A final symbol that is
// not a token is written as byte tokens <0xHH> (or the single-byte token,
// else the unknown token, else nothing).
//
// Cost: O(n log n) in the text length (a heap of candidate pairs).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace burrow::tokenizer {

struct Vocab;

void spmTokenize(const Vocab &vocab, std::string_view text, std::vector<int32_t> &out);

} // namespace burrow::tokenizer
