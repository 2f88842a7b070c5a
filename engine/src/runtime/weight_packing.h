// Repacks a model's matrices into the 16-row interleaved layout of
// quant/packed.h when the CPU path has packed kernels for their type
// (quant::packedKernelsActive: AVX-512 VNNI, or AVX2 for 4/6-bit codes), and
// points each TensorView at its packed copy. The original rows stay mapped
// (embedding lookups and other CPU paths read them); the pages of packed
// matrices are handed back to the kernel (madvise), so resident memory does
// not double. Off when BURROW_PACK=0 is set in the environment.
//
// Cost: one pass over the packed weights at load, on up to 8 threads (one
// matrix each at a time); the packed copy is about the size of the original
// (Q4_K: +2.8 %, Q6_K: +1 %). All packed matrices share one allocation
// (`arena`, on huge pages: common/streamed_memory.h), so that even the small
// matrices of a mixture's experts are read through 2 MiB pages; where that
// one allocation fails each matrix gets its own.
#pragma once

#include "burrow/status.h"
#include "common/streamed_memory.h"
#include "model/weights.h"
#include "quant/packed.h"

#include <functional>
#include <memory>
#include <vector>

namespace burrow::runtime {

// progress(0..1) may return false to cancel (the status then says so).
Status packWeights(model::Weights &weights, std::vector<std::unique_ptr<quant::PackedMatrix>> &store,
                   StreamedArray<uint8_t> &arena, const std::function<bool(float)> &progress);

} // namespace burrow::runtime
