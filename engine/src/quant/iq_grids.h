// The lattice codebooks of the i-quants IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS,
// IQ2_S, IQ3_XXS and IQ3_S (format facts of the GGUF file format: the
// reference engine's ggml-common.h holds the same points) and their sign
// tables. Pure data, built at compile time from a compact encoding
// (iq_grids.cpp); every table is 64-byte aligned for the SIMD kernels.
//
// A grid point is a group of 8 (IQ1, IQ2) or 4 (IQ3) unsigned magnitudes
// (IQ1: the signed values -1, 0, 1), byte j of the integer = element j of
// the group (little-endian), so a point can be loaded as bytes.
#pragma once

#include <array>
#include <cstdint>

namespace burrow::quant {

// IQ2 magnitudes are 8, 25 or 43; IQ3_XXS 4, 12, ..., 52, 62; IQ3_S the odd 1..15.
extern const std::array<uint64_t, 256> kIq2xxsGrid;
extern const std::array<uint64_t, 512> kIq2xsGrid;
extern const std::array<uint64_t, 1024> kIq2sGrid;
extern const std::array<uint32_t, 256> kIq3xxsGrid;
extern const std::array<uint32_t, 512> kIq3sGrid;
// The IQ3 points in 16 bits, for look-ups from registers: nibble j holds
// element j as its level's index (IQ3_XXS; kIq3xxsLevelBytes maps it) or as
// its magnitude (IQ3_S).
extern const std::array<uint16_t, 256> kIq3xxsNibbles;
extern const std::array<uint16_t, 512> kIq3sNibbles;
extern const std::array<uint8_t, 8> kIq3xxsLevelBytes;
// IQ1_S and IQ1_M share one grid of 2048 points, bytes int8 -1, 0 or 1.
extern const std::array<uint64_t, 2048> kIq1sGrid;

// The "even" sign codes of IQ2_XXS, IQ2_XS and IQ3_XXS: a 7-bit field s
// gives the 8 sign bits s | parity(s) << 7 (an even number of minus signs);
// bit j set = element j negative.
extern const std::array<uint8_t, 128> kIqEvenSigns;
// The same as 8 bytes of +1 / -1 (byte j = -1 when bit j of kIqEvenSigns[s]
// is set), for multiplying activations by signs (vpsignb).
extern const std::array<uint64_t, 128> kIqEvenSignBytes;

// The shift that moves IQ1_S / IQ1_M values off zero: element = grid +- 1/8.
inline constexpr float kIq1Delta = 0.125f;

} // namespace burrow::quant
