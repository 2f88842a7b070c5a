// Scalar dequantization of the lattice i-quants: the float expressions of the
// reference's dequantize_row_iq* term by term (block scale per 32 or 16
// elements, then times the grid value, then the sign), so the floats are the
// reference's bit for bit. Compiled with -ffp-contract=off.
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

// dst[j] = (db * magnitude j) * (+-1) for the 8 bytes of `point`.
inline void put8(float *dst, float db, uint64_t point, uint8_t signs)
{
    for (int j = 0; j < 8; ++j) {
        const float v = db * static_cast<float>((point >> (8 * j)) & 0xff);
        dst[j] = ((signs >> j) & 1) ? -v : v;
    }
}

} // namespace

void dequantizeRowIQ2_XXS(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockIQ2_XXS *>(src);
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const float d = fp16ToFp32(x[i].d);
        for (int ib = 0; ib < 8; ++ib) {
            const uint32_t idx = loadU32(x[i].qs + 4 * ib), ss = loadU32(x[i].qs + 4 * ib + 2);
            const float db = d * (0.5f + static_cast<float>(ss >> 28)) * 0.25f;
            for (int l = 0; l < 4; ++l, dst += 8)
                put8(dst, db, kIq2xxsGrid[(idx >> (8 * l)) & 0xff], kIqEvenSigns[(ss >> (7 * l)) & 127]);
        }
    }
}

void dequantizeRowIQ2_XS(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockIQ2_XS *>(src);
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const float d = fp16ToFp32(x[i].d);
        for (int ib = 0; ib < 8; ++ib) {
            const float db[2] = {d * (0.5f + static_cast<float>(x[i].scales[ib] & 0xf)) * 0.25f,
                                 d * (0.5f + static_cast<float>(x[i].scales[ib] >> 4)) * 0.25f};
            for (int l = 0; l < 4; ++l, dst += 8) {
                const uint16_t q = x[i].qs[4 * ib + l];
                put8(dst, db[l / 2], kIq2xsGrid[q & 511], kIqEvenSigns[q >> 9]);
            }
        }
    }
}

void dequantizeRowIQ2_S(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockIQ2_S *>(src);
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const float d = fp16ToFp32(x[i].d);
        const uint8_t *signs = x[i].qs + QK_K / 8;
        for (int ib = 0; ib < 8; ++ib) {
            const float db[2] = {d * (0.5f + static_cast<float>(x[i].scales[ib] & 0xf)) * 0.25f,
                                 d * (0.5f + static_cast<float>(x[i].scales[ib] >> 4)) * 0.25f};
            for (int l = 0; l < 4; ++l, dst += 8) {
                put8(dst, db[l / 2], kIq2sGrid[iq2sPointIndex(x[i], ib, l)], signs[4 * ib + l]);
            }
        }
    }
}

void dequantizeRowIQ3_XXS(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockIQ3_XXS *>(src);
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const float d = fp16ToFp32(x[i].d);
        for (int ib = 0; ib < 8; ++ib) {
            const uint32_t ss = loadU32(x[i].qs + QK_K / 4 + 4 * ib);
            const float db = d * (0.5f + static_cast<float>(ss >> 28)) * 0.5f;
            for (int l = 0; l < 4; ++l, dst += 8) {
                const uint64_t point = kIq3xxsGrid[x[i].qs[8 * ib + 2 * l]]
                                     | static_cast<uint64_t>(kIq3xxsGrid[x[i].qs[8 * ib + 2 * l + 1]]) << 32;
                put8(dst, db, point, kIqEvenSigns[(ss >> (7 * l)) & 127]);
            }
        }
    }
}

void dequantizeRowIQ3_S(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockIQ3_S *>(src);
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const float d = fp16ToFp32(x[i].d);
        for (int ib = 0; ib < 8; ++ib) {
            // (the reference multiplies by the int 1 + 2s, converted to float)
            const float db = d * static_cast<float>(1 + 2 * ((x[i].scales[ib / 2] >> (4 * (ib % 2))) & 0xf));
            for (int l = 0; l < 4; ++l, dst += 8) {
                const unsigned lo = x[i].qs[8 * ib + 2 * l] | (((x[i].qh[ib] >> (2 * l)) & 1u) << 8);
                const unsigned hi = x[i].qs[8 * ib + 2 * l + 1] | (((x[i].qh[ib] >> (2 * l + 1)) & 1u) << 8);
                put8(dst, db, kIq3sGrid[lo] | static_cast<uint64_t>(kIq3sGrid[hi]) << 32, x[i].signs[4 * ib + l]);
            }
        }
    }
}

void dequantizeRowIQ1_S(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockIQ1_S *>(src);
    for (int64_t i = 0; i < n / QK_K; ++i) {
        const float d = fp16ToFp32(x[i].d);
        for (int ib = 0; ib < 8; ++ib) {
            const unsigned qh = x[i].qh[ib];
            const float dl = d * static_cast<float>(2 * ((qh >> 12) & 7) + 1);
            const float delta = (qh & 0x8000u) ? -kIq1Delta : kIq1Delta;
            for (int l = 0; l < 4; ++l, dst += 8) {
                const uint64_t point = kIq1sGrid[iq1sPointIndex(x[i], ib, l)];
                for (int j = 0; j < 8; ++j)
                    dst[j] = dl * (static_cast<float>(static_cast<int8_t>(point >> (8 * j))) + delta);
            }
        }
    }
}

void dequantizeRowIQ1_M(const void *src, float *dst, int64_t n)
{
    const auto *x = static_cast<const BlockIQ1_M *>(src);
    for (int64_t i = 0; i < n / QK_K; ++i) {
        uint16_t sc[4];
        std::memcpy(sc, x[i].scales, 8);
        const auto dBits = static_cast<fp16_t>((sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) | ((sc[2] >> 4) & 0x0f00) | (sc[3] & 0xf000));
        const float d = fp16ToFp32(dBits);
        for (int ib = 0; ib < 8; ++ib) {
            const float dl[2] = {d * static_cast<float>(2 * ((sc[ib / 2] >> (6 * (ib % 2))) & 7) + 1),
                                 d * static_cast<float>(2 * ((sc[ib / 2] >> (6 * (ib % 2) + 3)) & 7) + 1)};
            for (int l = 0; l < 4; ++l, dst += 8) {
                const unsigned nib = (x[i].qh[2 * ib + l / 2] >> (4 * (l % 2))) & 0xfu;
                const uint64_t point = kIq1sGrid[x[i].qs[4 * ib + l] | ((nib & 7u) << 8)];
                const float delta = (nib & 8u) ? -kIq1Delta : kIq1Delta;
                for (int j = 0; j < 8; ++j)
                    dst[j] = dl[l / 2] * (static_cast<float>(static_cast<int8_t>(point >> (8 * j))) + delta);
            }
        }
    }
}

} // namespace burrow::quant::generic
