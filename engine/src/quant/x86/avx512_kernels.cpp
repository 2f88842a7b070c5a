// Avx512 kernels (compiled with their own instruction-set flags; see x86_kernels.h).
#include "quant/x86/x86_kernels.h"

namespace burrow::quant::x86 {

void fillAvx512(TypeTraits *rows)
{
    (void)rows;
}

} // namespace burrow::quant::x86
