// SIMD kernels of ops/ for x86-64. Each fill function sets, in a dispatch
// table already filled with the scalar kernels (generic/), the entries its
// file has a faster kernel for. The AVX2 fills (AVX2 + FMA + F16C) run for
// the AVX2 and the AVX-512 path, then the AVX-512 fills (F/BW/VL + VNNI) for
// the AVX-512 path. Each file is compiled with its instruction set, so a fill
// function may only run once the CPU is known to support it
// (quant::cpuPathSupported).
//
// Every SIMD kernel matches its scalar twin up to float summation order and
// the polynomial exp (tests name the tolerances).
#pragma once

#include "ops/kernels.h"

namespace burrow::ops::x86 {

void fillAvx2Elementwise(Kernels &k);     // rmsNorm, swiglu, f32ToF16Row
void fillAvx2Attention(Kernels &k);       // attendHead, attendHeads, attendBlock (8 queries)
void fillAvx512Elementwise(Kernels &k);   // rmsNorm, swiglu
void fillAvx512Attention(Kernels &k);     // attendHead, attendHeads (grouped), attendBlock (16 queries)
void fillAvx2Flash(Kernels &k);           // attendOnline, attendTiled (head sizes multiple of 8)
void fillAvx512Flash(Kernels &k);         // attendOnline, attendTiled
void fillAvx2Decode(Kernels &k);          // attendDecode (8 queries; head sizes multiple of 16)
void fillAvx512Decode(Kernels &k);        // attendDecode (16 queries; head sizes multiple of 16)
void fillAvx2FlashQ8(Kernels &k);        // attendTiledQ8_0 (vpmaddubsw; a Q8_0 cache's head sizes, multiples of 32)
void fillAvxVnniFlashQ8(Kernels &k);      // the same with AVX-VNNI (the CPU's avx_vnni; quant::avxVnniAllowed)
void fillAvx512FlashQ8(Kernels &k);       // attendTiledQ8_0 (VNNI; a Q8_0 cache's head sizes, multiples of 32)
void fillAvx2DeltaNet(Kernels &k);        // deltaNetStep, deltaNetChunk (state sizes multiple of 8)
void fillAvx512DeltaNet(Kernels &k);      // deltaNetStep, deltaNetChunk (state sizes multiple of 16)

} // namespace burrow::ops::x86
