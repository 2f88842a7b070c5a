// The tile set-up of the AMX-INT8 kernels (packed_amx.cpp): one palette-1
// configuration.
// Internal linkage (static inline): include it only from translation units
// compiled with -mamx-tile -mamx-int8, and call it only where
// cpu_features.h amxUsable() holds.
//
// Tiles: 0-3 C (16 rows x 16 int32), 4 and 5 A (16 tokens by 32 elements,
// 32 bytes), 6 and 7 B (32 elements of 16 weight rows in the VNNI layout,
// 8 rows of [16 rows][4 bytes]). A step loads each A and B tile once and
// runs up to four products from them.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace burrow::quant::x86 {

// ldtilecfg's 64-byte operand (palette 1).
struct alignas(64) AmxTileConfig {
    uint8_t palette = 1;
    uint8_t startRow = 0;
    uint8_t reserved[14] = {};
    uint16_t colsb[16] = {};
    uint8_t rows[16] = {};
};

static inline void amxConfigureTiles()
{
    AmxTileConfig cfg;
    for (int t : {0, 1, 2, 3}) {
        cfg.rows[t] = 16;
        cfg.colsb[t] = 64;
    }
    for (int t : {4, 5}) {
        cfg.rows[t] = 16;
        cfg.colsb[t] = 32;
    }
    for (int t : {6, 7}) {
        cfg.rows[t] = 8;
        cfg.colsb[t] = 64;
    }
    _tile_loadconfig(&cfg);
}

// Configures the tiles for a call and releases the tile state when it ends
// (the OS then saves none of it).
struct AmxTileScope {
    AmxTileScope() { amxConfigureTiles(); }
    ~AmxTileScope() { _tile_release(); }
    AmxTileScope(const AmxTileScope &) = delete;
    AmxTileScope &operator=(const AmxTileScope &) = delete;
};

} // namespace burrow::quant::x86
