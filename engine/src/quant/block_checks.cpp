#include "quant/block_checks.h"

#include "quant/lowbit_blocks.h"

#include <cstring>
#include <string>

namespace burrow::quant {

namespace {

std::string hex(unsigned v, int digits)
{
    static const char kDigits[] = "0123456789abcdef";
    std::string s(static_cast<size_t>(digits), '0');
    for (int i = digits - 1; i >= 0; --i, v >>= 4)
        s[static_cast<size_t>(i)] = kDigits[v & 15];
    return "0x" + s;
}

Status bad(std::string_view tensorName, GgmlType type, size_t block, const std::string &what)
{
    return Status::error("tensor '" + std::string(tensorName) + "' (" + ggmlTypeName(type) + "): block " +
                         std::to_string(block) + " " + what);
}

// The F16 scale at `offset` of each block: Inf and NaN have all exponent bits set.
Status checkHalfScales(GgmlType type, const uint8_t *data, size_t nBlocks, size_t blockBytes, size_t offset,
                       std::string_view name)
{
    for (size_t b = 0; b < nBlocks; ++b) {
        uint16_t h;
        std::memcpy(&h, data + b * blockBytes + offset, 2);
        if ((h & 0x7c00u) == 0x7c00u)
            return bad(name, type, b, "has a scale that is not a finite number (F16 " + hex(h, 4) + ")");
    }
    return Status::ok();
}

// A 2-bit code 3 in any of the 8 bytes: both bits of a pair set.
bool hasCode3(uint64_t v) { return (v & (v >> 1) & 0x5555555555555555ull) != 0; }

Status checkTernaryCodes(const uint8_t *data, size_t nBlocks, std::string_view name)
{
    for (size_t b = 0; b < nBlocks; ++b) {
        const uint8_t *qs = data + b * sizeof(BlockTQ2_0);
        for (size_t k = 0; k < QK_K / 4; k += 8) {
            uint64_t v;
            std::memcpy(&v, qs + k, 8);
            if (hasCode3(v))
                return bad(name, GgmlType::GGML_TYPE_TQ2_0, b, "holds the code 3, which is not a ternary value (0, 1, 2)");
        }
    }
    return Status::ok();
}

Status checkUe4m3Scales(const uint8_t *data, size_t nBlocks, std::string_view name)
{
    for (size_t b = 0; b < nBlocks; ++b) {
        const uint8_t *d = data + b * sizeof(BlockNVFP4);
        for (int s = 0; s < QK_NVFP4 / QK_NVFP4_SUB; ++s)
            if (d[s] >= 0x7f)
                return bad(name, GgmlType::GGML_TYPE_NVFP4, b,
                           "has the scale byte " + hex(d[s], 2) + ", which is not a UE4M3 value (" +
                               (d[s] == 0x7f ? "the NaN code" : "sign bit set") + ")");
    }
    return Status::ok();
}

} // namespace

bool hasBlockChecks(GgmlType type)
{
    switch (type) {
    case GgmlType::GGML_TYPE_Q1_0:
    case GgmlType::GGML_TYPE_Q2_0:
    case GgmlType::GGML_TYPE_TQ1_0:
    case GgmlType::GGML_TYPE_TQ2_0:
    case GgmlType::GGML_TYPE_NVFP4: return true;
    default: return false;
    }
}

Status checkBlocks(GgmlType type, const uint8_t *data, size_t bytes, std::string_view tensorName)
{
    const GgmlTypeInfo *info = ggmlTypeInfo(type);
    if (!info || !hasBlockChecks(type))
        return Status::ok();
    const size_t nBlocks = bytes / info->typeSize;
    switch (type) {
    case GgmlType::GGML_TYPE_Q1_0:
    case GgmlType::GGML_TYPE_Q2_0: return checkHalfScales(type, data, nBlocks, info->typeSize, 0, tensorName);
    case GgmlType::GGML_TYPE_TQ1_0:
        return checkHalfScales(type, data, nBlocks, info->typeSize, offsetof(BlockTQ1_0, d), tensorName);
    case GgmlType::GGML_TYPE_TQ2_0:
        if (Status s = checkHalfScales(type, data, nBlocks, info->typeSize, offsetof(BlockTQ2_0, d), tensorName); !s)
            return s;
        return checkTernaryCodes(data, nBlocks, tensorName);
    case GgmlType::GGML_TYPE_NVFP4: return checkUe4m3Scales(data, nBlocks, tensorName);
    default: return Status::ok();
    }
}

} // namespace burrow::quant
