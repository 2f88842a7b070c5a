// Checks of the fields of quantized blocks that can hold values outside
// their type's range, run once over a weight tensor at load so a hostile or
// damaged file is refused with the tensor's name instead of computing
// garbage (the sizes themselves are checked by the GGUF reader).
//
//   Q1_0, Q2_0, TQ1_0, TQ2_0  the F16 scale d is finite (not Inf or NaN;
//                             the reference's tensor validation refuses
//                             those too)
//   TQ2_0                     every 2-bit code is 0, 1 or 2 (ternary: the
//                             reference's quantizer never writes 3)
//   NVFP4                     every UE4M3 scale byte is below 0x7f (0x7f is
//                             E4M3's NaN, bit 7 a sign an unsigned scale
//                             cannot have)
// Other types: nothing to check (every bit pattern is a value).
//
// Cost: one pass over the tensor's bytes (TQ2_0, the scales of the others),
// 8 bytes at a time.
#pragma once

#include "common/ggml_types.h"
#include "burrow/status.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace burrow::quant {

// True when `type` has fields checkBlocks looks at.
bool hasBlockChecks(GgmlType type);

// ok, or an error naming the tensor, the first bad block (counted from the
// tensor's start) and what is wrong with it. `bytes` is a whole number of
// blocks.
Status checkBlocks(GgmlType type, const uint8_t *data, size_t bytes, std::string_view tensorName);

} // namespace burrow::quant
