// The AVX2 multiply of the lattice i-quants', Q2_K's and Q3_K's prompt
// tiles on CPUs with AVX-VNNI (iq_tiles_avx2_multiply.h; this file is
// compiled with the AVX2 flags and -mavxvnni). The tiles are converted by
// iq_tiles_avx2.cpp.
#include "quant/x86/iq_simd.h"

#include "quant/x86/iq_tiles_avx2_multiply.h"

namespace burrow::quant::x86 {

void iqTileMultiplyAvxVnni(GgmlType type, const uint8_t *tile, int64_t K, int rows, const PackedActivation &act,
                           int64_t t0, int64_t t1, float *y, size_t ldy)
{
    multiplyTileAvx2(type, tile, K, rows, act, t0, t1, y, ldy);
}

} // namespace burrow::quant::x86
