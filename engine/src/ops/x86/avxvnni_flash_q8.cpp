// AVX-VNNI attendTiledQ8_0 (ops/flash_attention.h; the kernel and its layout
// in flash_q8_avx2.h): the int8 products by the 256-bit vpdpbusd. Compiled
// with AVX2 + FMA + F16C + AVX-VNNI; filled only where the CPU has it.
#include "ops/x86/flash_q8_avx2.h"
#include "ops/x86/x86_kernels.h"

namespace burrow::ops::x86 {

void fillAvxVnniFlashQ8(Kernels &k)
{
    k.attendTiledQ8_0 = flash_q8_avx2::attendTiledQ8_0<true>;
}

} // namespace burrow::ops::x86
