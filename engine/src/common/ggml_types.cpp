#include "common/ggml_types.h"

#include "common/checked.h"

#include <array>

namespace burrow {
namespace {

constexpr std::array<GgmlTypeInfo, GGML_TYPE_ID_LIMIT> kTypes = {{
    /*  0 */ {"F32", 1, 4},
    /*  1 */ {"F16", 1, 2},
    /*  2 */ {"Q4_0", 32, 18},
    /*  3 */ {"Q4_1", 32, 20},
    /*  4 */ {nullptr, 0, 0},
    /*  5 */ {nullptr, 0, 0},
    /*  6 */ {"Q5_0", 32, 22},
    /*  7 */ {"Q5_1", 32, 24},
    /*  8 */ {"Q8_0", 32, 34},
    /*  9 */ {"Q8_1", 32, 36},
    /* 10 */ {"Q2_K", 256, 84},
    /* 11 */ {"Q3_K", 256, 110},
    /* 12 */ {"Q4_K", 256, 144},
    /* 13 */ {"Q5_K", 256, 176},
    /* 14 */ {"Q6_K", 256, 210},
    /* 15 */ {"Q8_K", 256, 292},
    /* 16 */ {"IQ2_XXS", 256, 66},
    /* 17 */ {"IQ2_XS", 256, 74},
    /* 18 */ {"IQ3_XXS", 256, 98},
    /* 19 */ {"IQ1_S", 256, 50},
    /* 20 */ {"IQ4_NL", 32, 18},
    /* 21 */ {"IQ3_S", 256, 110},
    /* 22 */ {"IQ2_S", 256, 82},
    /* 23 */ {"IQ4_XS", 256, 136},
    /* 24 */ {"I8", 1, 1},
    /* 25 */ {"I16", 1, 2},
    /* 26 */ {"I32", 1, 4},
    /* 27 */ {"I64", 1, 8},
    /* 28 */ {"F64", 1, 8},
    /* 29 */ {"IQ1_M", 256, 56},
    /* 30 */ {"BF16", 1, 2},
    /* 31 */ {nullptr, 0, 0},
    /* 32 */ {nullptr, 0, 0},
    /* 33 */ {nullptr, 0, 0},
    /* 34 */ {"TQ1_0", 256, 54},
    /* 35 */ {"TQ2_0", 256, 66},
    /* 36 */ {nullptr, 0, 0},
    /* 37 */ {nullptr, 0, 0},
    /* 38 */ {nullptr, 0, 0},
    /* 39 */ {"MXFP4", 32, 17},   // E8M0 scale byte + 16 bytes of 4-bit E2M1 codes
    /* 40 */ {"NVFP4", 64, 36},   // 4 UE4M3 scales (one per 16 values) + 32 bytes of codes
    /* 41 */ {"Q1_0", 128, 18},   // F16 scale + 128 sign bits
    /* 42 */ {"Q2_0", 64, 18},    // F16 scale + 64 2-bit codes
}};

} // namespace

const GgmlTypeInfo *ggmlTypeInfo(uint32_t id)
{
    if (id >= kTypes.size() || kTypes[id].name == nullptr)
        return nullptr;
    return &kTypes[id];
}

std::string ggmlTypeName(uint32_t id)
{
    const GgmlTypeInfo *info = ggmlTypeInfo(id);
    return info ? std::string(info->name) : "unknown type " + std::to_string(id);
}

bool ggmlRowBytes(GgmlType t, int64_t n, size_t *out)
{
    const GgmlTypeInfo *info = ggmlTypeInfo(t);
    if (!info || n < 0 || n % info->blockSize != 0)
        return false;
    return checkedMul<size_t>(static_cast<size_t>(n / info->blockSize), info->typeSize, out);
}

} // namespace burrow
