// The ggml tensor type ids a GGUF file may name, with their block geometry.
//
// This is pure data about the file format (what the reader needs to validate
// sizes); which types the engine can compute with lives in quant/quant_traits.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace burrow {

enum class GgmlType : uint32_t {
    GGML_TYPE_F32     = 0,
    GGML_TYPE_F16     = 1,
    GGML_TYPE_Q4_0    = 2,
    GGML_TYPE_Q4_1    = 3,
    GGML_TYPE_Q5_0    = 6,
    GGML_TYPE_Q5_1    = 7,
    GGML_TYPE_Q8_0    = 8,
    GGML_TYPE_Q8_1    = 9,
    GGML_TYPE_Q2_K    = 10,
    GGML_TYPE_Q3_K    = 11,
    GGML_TYPE_Q4_K    = 12,
    GGML_TYPE_Q5_K    = 13,
    GGML_TYPE_Q6_K    = 14,
    GGML_TYPE_Q8_K    = 15,
    GGML_TYPE_IQ2_XXS = 16,
    GGML_TYPE_IQ2_XS  = 17,
    GGML_TYPE_IQ3_XXS = 18,
    GGML_TYPE_IQ1_S   = 19,
    GGML_TYPE_IQ4_NL  = 20,
    GGML_TYPE_IQ3_S   = 21,
    GGML_TYPE_IQ2_S   = 22,
    GGML_TYPE_IQ4_XS  = 23,
    GGML_TYPE_I8      = 24,
    GGML_TYPE_I16     = 25,
    GGML_TYPE_I32     = 26,
    GGML_TYPE_I64     = 27,
    GGML_TYPE_F64     = 28,
    GGML_TYPE_IQ1_M   = 29,
    GGML_TYPE_BF16    = 30,
    GGML_TYPE_TQ1_0   = 34,
    GGML_TYPE_TQ2_0   = 35,
    GGML_TYPE_MXFP4   = 39,
    GGML_TYPE_NVFP4   = 40,
    GGML_TYPE_Q1_0    = 41,
    GGML_TYPE_Q2_0    = 42,
};

inline constexpr uint32_t GGML_TYPE_ID_LIMIT = 43; // ids are < this (ggml's GGML_TYPE_COUNT, August 2026)

struct GgmlTypeInfo {
    const char *name;     // "Q4_K"; nullptr for ids that were removed from ggml
    int64_t blockSize;    // elements per block
    size_t typeSize;      // bytes per block
};

// Geometry of a type id, or nullptr when the id is unknown or was removed
// (4, 5, 31-33, 36-38, >= GGML_TYPE_ID_LIMIT).
const GgmlTypeInfo *ggmlTypeInfo(uint32_t id);
inline const GgmlTypeInfo *ggmlTypeInfo(GgmlType t) { return ggmlTypeInfo(static_cast<uint32_t>(t)); }

// "Q4_K", or "unknown type 31" for ids without a name.
std::string ggmlTypeName(uint32_t id);
inline std::string ggmlTypeName(GgmlType t) { return ggmlTypeName(static_cast<uint32_t>(t)); }

// Bytes of one row of `n` elements; false when n is not a multiple of the block
// size or the size overflows.
bool ggmlRowBytes(GgmlType t, int64_t n, size_t *out);

} // namespace burrow
