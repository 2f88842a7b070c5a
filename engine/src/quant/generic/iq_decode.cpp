// Decoding of the lattice i-quants' super-blocks into integers (iq_kernels.h):
// the grid points with their signs, the scale of each 16 elements and, for
// IQ1, the sign of each group's shift. Shared by the scalar dot products and
// the prompt path's conversion to int8 tiles.
#include "quant/generic/iq_kernels.h"

#include "quant/iq_grids.h"
#include "quant/quant_blocks.h"

#include <cstring>

namespace burrow::quant::generic {

namespace {

inline uint32_t loadU32(const void *p)
{
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// 8 magnitudes (bytes of `point`) with the sign bits `signs` (bit j: element j negative).
inline void putSigned8(int8_t *w, uint64_t point, uint8_t signs)
{
    for (int j = 0; j < 8; ++j) {
        const int v = static_cast<int>((point >> (8 * j)) & 0xff);
        w[j] = static_cast<int8_t>(((signs >> j) & 1) ? -v : v);
    }
}

void decodeIQ2_XXS(const void *block, IqSuperBlock *out)
{
    const auto *x = static_cast<const BlockIQ2_XXS *>(block);
    out->d = fp16ToFp32(x->d);
    std::memset(out->shift, 0, sizeof out->shift);
    for (int ib = 0; ib < 8; ++ib) {
        const uint32_t idx = loadU32(x->qs + 4 * ib), ss = loadU32(x->qs + 4 * ib + 2);
        const auto s = static_cast<uint8_t>(2 * (ss >> 28) + 1);
        out->scale[2 * ib] = out->scale[2 * ib + 1] = s;
        for (int l = 0; l < 4; ++l)
            putSigned8(out->w + 32 * ib + 8 * l, kIq2xxsGrid[(idx >> (8 * l)) & 0xff], kIqEvenSigns[(ss >> (7 * l)) & 127]);
    }
}

void decodeIQ2_XS(const void *block, IqSuperBlock *out)
{
    const auto *x = static_cast<const BlockIQ2_XS *>(block);
    out->d = fp16ToFp32(x->d);
    std::memset(out->shift, 0, sizeof out->shift);
    for (int ib = 0; ib < 8; ++ib) {
        out->scale[2 * ib] = static_cast<uint8_t>(2 * (x->scales[ib] & 0xf) + 1);
        out->scale[2 * ib + 1] = static_cast<uint8_t>(2 * (x->scales[ib] >> 4) + 1);
        for (int l = 0; l < 4; ++l) {
            const uint16_t q = x->qs[4 * ib + l];
            putSigned8(out->w + 32 * ib + 8 * l, kIq2xsGrid[q & 511], kIqEvenSigns[q >> 9]);
        }
    }
}

void decodeIQ2_S(const void *block, IqSuperBlock *out)
{
    const auto *x = static_cast<const BlockIQ2_S *>(block);
    out->d = fp16ToFp32(x->d);
    std::memset(out->shift, 0, sizeof out->shift);
    const uint8_t *signs = x->qs + QK_K / 8;
    for (int ib = 0; ib < 8; ++ib) {
        out->scale[2 * ib] = static_cast<uint8_t>(2 * (x->scales[ib] & 0xf) + 1);
        out->scale[2 * ib + 1] = static_cast<uint8_t>(2 * (x->scales[ib] >> 4) + 1);
        for (int l = 0; l < 4; ++l) {
            putSigned8(out->w + 32 * ib + 8 * l, kIq2sGrid[iq2sPointIndex(*x, ib, l)], signs[4 * ib + l]);
        }
    }
}

void decodeIQ3_XXS(const void *block, IqSuperBlock *out)
{
    const auto *x = static_cast<const BlockIQ3_XXS *>(block);
    out->d = fp16ToFp32(x->d);
    std::memset(out->shift, 0, sizeof out->shift);
    for (int ib = 0; ib < 8; ++ib) {
        const uint32_t ss = loadU32(x->qs + QK_K / 4 + 4 * ib);
        const auto s = static_cast<uint8_t>(2 * (ss >> 28) + 1);
        out->scale[2 * ib] = out->scale[2 * ib + 1] = s;
        for (int l = 0; l < 4; ++l) {
            const uint64_t point = kIq3xxsGrid[x->qs[8 * ib + 2 * l]]
                                 | static_cast<uint64_t>(kIq3xxsGrid[x->qs[8 * ib + 2 * l + 1]]) << 32;
            putSigned8(out->w + 32 * ib + 8 * l, point, kIqEvenSigns[(ss >> (7 * l)) & 127]);
        }
    }
}

void decodeIQ3_S(const void *block, IqSuperBlock *out)
{
    const auto *x = static_cast<const BlockIQ3_S *>(block);
    out->d = fp16ToFp32(x->d);
    std::memset(out->shift, 0, sizeof out->shift);
    for (int ib = 0; ib < 8; ++ib) {
        const auto s = static_cast<uint8_t>(2 * ((x->scales[ib / 2] >> (4 * (ib % 2))) & 0xf) + 1);
        out->scale[2 * ib] = out->scale[2 * ib + 1] = s;
        for (int l = 0; l < 4; ++l) {
            const unsigned lo = x->qs[8 * ib + 2 * l] | (((x->qh[ib] >> (2 * l)) & 1u) << 8);
            const unsigned hi = x->qs[8 * ib + 2 * l + 1] | (((x->qh[ib] >> (2 * l + 1)) & 1u) << 8);
            const uint64_t point = kIq3sGrid[lo] | static_cast<uint64_t>(kIq3sGrid[hi]) << 32;
            putSigned8(out->w + 32 * ib + 8 * l, point, x->signs[4 * ib + l]);
        }
    }
}

void decodeIQ1_S(const void *block, IqSuperBlock *out)
{
    const auto *x = static_cast<const BlockIQ1_S *>(block);
    out->d = fp16ToFp32(x->d);
    for (int ib = 0; ib < 8; ++ib) {
        const unsigned qh = x->qh[ib];
        out->scale[2 * ib] = out->scale[2 * ib + 1] = static_cast<uint8_t>(2 * ((qh >> 12) & 7) + 1);
        const auto shift = static_cast<int8_t>((qh & 0x8000u) ? -1 : 1);
        for (int l = 0; l < 4; ++l) {
            const uint64_t point = kIq1sGrid[iq1sPointIndex(*x, ib, l)];
            std::memcpy(out->w + 32 * ib + 8 * l, &point, 8);
            out->shift[4 * ib + l] = shift;
        }
    }
}

void decodeIQ1_M(const void *block, IqSuperBlock *out)
{
    const auto *x = static_cast<const BlockIQ1_M *>(block);
    uint16_t sc[4];
    std::memcpy(sc, x->scales, 8);
    const auto dBits = static_cast<fp16_t>((sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) | ((sc[2] >> 4) & 0x0f00) | (sc[3] & 0xf000));
    out->d = fp16ToFp32(dBits);
    for (int ib = 0; ib < 8; ++ib) {
        out->scale[2 * ib] = static_cast<uint8_t>(2 * ((sc[ib / 2] >> (6 * (ib % 2))) & 7) + 1);
        out->scale[2 * ib + 1] = static_cast<uint8_t>(2 * ((sc[ib / 2] >> (6 * (ib % 2) + 3)) & 7) + 1);
        for (int l = 0; l < 4; ++l) {
            const unsigned nib = (x->qh[2 * ib + l / 2] >> (4 * (l % 2))) & 0xfu;
            const uint64_t point = kIq1sGrid[x->qs[4 * ib + l] | ((nib & 7u) << 8)];
            std::memcpy(out->w + 32 * ib + 8 * l, &point, 8);
            out->shift[4 * ib + l] = static_cast<int8_t>((nib & 8u) ? -1 : 1);
        }
    }
}

} // namespace

IqDecodeFn iqDecoder(GgmlType type)
{
    switch (type) {
    case GgmlType::GGML_TYPE_IQ2_XXS: return decodeIQ2_XXS;
    case GgmlType::GGML_TYPE_IQ2_XS: return decodeIQ2_XS;
    case GgmlType::GGML_TYPE_IQ2_S: return decodeIQ2_S;
    case GgmlType::GGML_TYPE_IQ3_XXS: return decodeIQ3_XXS;
    case GgmlType::GGML_TYPE_IQ3_S: return decodeIQ3_S;
    case GgmlType::GGML_TYPE_IQ1_S: return decodeIQ1_S;
    case GgmlType::GGML_TYPE_IQ1_M: return decodeIQ1_M;
    default: return nullptr;
    }
}

bool isIqLatticeType(GgmlType type)
{
    return iqDecoder(type) != nullptr;
}

float iqFinalScale(GgmlType type)
{
    switch (type) {
    case GgmlType::GGML_TYPE_IQ2_XXS:
    case GgmlType::GGML_TYPE_IQ2_XS:
    case GgmlType::GGML_TYPE_IQ2_S: return 0.125f;
    case GgmlType::GGML_TYPE_IQ3_XXS: return 0.25f;
    default: return 1.0f;
    }
}

} // namespace burrow::quant::generic
