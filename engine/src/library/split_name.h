// The file names of a split GGUF model, as the reference's gguf-split
// writes them: PREFIX-00001-of-00003.gguf ... PREFIX-00003-of-00003.gguf
// (five digits each, 1-based). The parts are told apart by their split.no
// header key; the names only say where the siblings are.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace burrow::library {

struct SplitName {
    std::string prefix;     // "Qwen3-30B-A3B-Q4_K_M"
    uint32_t index = 0;     // 1-based
    uint32_t count = 0;
};

// The parts of `fileName` (no folder), or nothing when it is not a part's name.
std::optional<SplitName> parseSplitName(std::string_view fileName);
// PREFIX-0000I-of-0000N.gguf
std::string splitPartName(const std::string &prefix, uint32_t index, uint32_t count);

} // namespace burrow::library
