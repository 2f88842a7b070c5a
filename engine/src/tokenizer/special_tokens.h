// Cutting special tokens out of text before tokenization, as the reference
// engine's tokenizer_st_partition does.
//
// Contract: the vocabulary's CONTROL, USER_DEFINED and UNKNOWN tokens are
// taken longest first; each one's occurrences (left to right, not
// overlapping) are cut out of the text pieces that are still raw text. With
// parseSpecial off, CONTROL and UNKNOWN tokens are skipped (USER_DEFINED ones
// are still cut out: that is how Hugging Face tokenizers treat added tokens).
// A token with lstrip/rstrip also removes the ASCII white space on that side.
// The concatenation of the fragments is the text, minus stripped spaces.
//
// Cost: O(#special tokens x text) substring searches in the worst case; a
// token absent from the text costs one search.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace burrow::tokenizer {

struct Vocab;

struct Fragment {
    int32_t token = -1;     // >= 0: a special token; -1: raw text
    size_t offset = 0;      // raw text: [offset, offset + length) of the input
    size_t length = 0;
};

std::vector<Fragment> partitionSpecialTokens(const Vocab &vocab, std::string_view text, bool parseSpecial);

} // namespace burrow::tokenizer
