// Keeps an accumulator's chain of integer adds in program order. GCC
// otherwise reassociates the adds of a tile (integer addition is
// associative), computes every product of the block first and spills them
// to the stack: measured 15-25 % slower per tile (packed_avx2.cpp) and
// 25-37 % (the AVX2 lattice tiles, iq_tiles_avx2.cpp). Costs no
// instruction: an empty asm that claims to change the register.
// Include only from translation units compiled with AVX2 (or later) flags.
#pragma once

#include <immintrin.h>

namespace burrow::quant::x86 {
namespace {

inline __m256i inOrder(__m256i v)
{
    asm("" : "+x"(v));
    return v;
}

} // namespace
} // namespace burrow::quant::x86
