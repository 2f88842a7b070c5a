// Per-tensor scale tensors (`<matrix>.scale`, `<matrix>.input_scale`), as
// files quantized to NVFP4 by 2026 tools carry them ("scale2": one float per
// matrix, or per expert for the 3-D expert tensors). The reference engine
// (llama.cpp build 9749) loads them for every matrix that has one and
// multiplies the matrix's outputs by `.scale` (ggml_mul after the matrix
// multiply, before any bias of the attention projections and experts); it
// loads `.input_scale` and never uses it. Which outputs it scales depends on
// the architecture's graph: attention projections (q, k, v, qkv, output, the
// DeltaNet projections) always; the dense FFN and shared expert only where
// ModelConfig::ffnScales, the experts only where ModelConfig::expertScales;
// the output matrix only when it is NVFP4 (and then not tied to the
// embeddings). Burrow does the same: a scale the reference ignores is read,
// checked and ignored.
//
// Refused, naming the tensor: a scale that is not F32 of shape [1] ([n_expert]
// for expert tensors), not finite, of a matrix the model does not have, or
// that the reference would not load (output.scale of a non-NVFP4 or tied
// output, any other name).
#pragma once

#include "burrow/status.h"
#include "model/weights.h"

namespace burrow::gguf { class GgufFile; }

namespace burrow::model {

// Sets TensorView::outScale of the matrices whose `.scale` the reference
// applies; call once every matrix is bound (the end of loadWeights).
Status bindWeightScales(const gguf::GgufFile &file, const ModelConfig &config, Weights &weights);

} // namespace burrow::model
