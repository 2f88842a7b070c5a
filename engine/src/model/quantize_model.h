// Quantizing a model file: reads a GGUF model, gives each tensor the type its
// file type's mix says (quant_mix.h) and writes a new GGUF file, as the
// reference engine's llama-quantize does (no importance matrix):
//   - metadata copied in order, except general.quantization_version,
//     general.file_type and split.* which are dropped; then
//     general.quantization_version = 2 and general.file_type = the file
//     type's id are appended;
//   - tensors in the reference's order (model-level first, then by layer,
//     each group sorted by name), each padded to the alignment (32, or the
//     input's general.alignment);
//   - a tensor that keeps its type is copied byte for byte; any other is
//     dequantized to F32 (from F32, F16, BF16 or any type the engine reads)
//     and quantized with the reference quantizer of its new type, row by row
//     (a 3-D expert tensor [ne0, ne1, experts] as ne1 * experts rows).
// With the same quantizers as the reference, the output is byte-identical to
// llama-quantize's for the same input and file type.
//
// The file is written to `outPath + ".part"` and renamed to outPath only when
// complete; on failure the .part file is removed (gguf/gguf_stream_writer.h).
//
// Memory: one output tensor at a time plus a float chunk per thread; the
// input is memory-mapped. Cost: dominated by the quantizers (K-quants search
// scales: about 10x slower than Q8_0/Q4_0), split across `threads` by rows.
#pragma once

#include "model/quant_mix.h"
#include "common/ggml_types.h"
#include "burrow/status.h"

#include <cstdint>
#include <functional>
#include <string>

namespace burrow::model {

struct QuantizedTensorReport {
    int index = 0;                 // 0-based position in the output
    int count = 0;                 // tensors in the file
    std::string name;
    GgmlType from = GgmlType::GGML_TYPE_F32;
    GgmlType to = GgmlType::GGML_TYPE_F32;
    bool converted = false;        // false: copied unchanged
    uint64_t bytesIn = 0;
    uint64_t bytesOut = 0;
};

struct QuantizeOptions {
    int threads = 0;               // 0: all hardware threads
    // Called after each tensor is written.
    std::function<void(const QuantizedTensorReport &)> onTensor;
};

struct QuantizeSummary {
    int tensors = 0;
    int converted = 0;
    uint64_t bytesIn = 0;          // tensor data in the input
    uint64_t bytesOut = 0;         // tensor data in the output
};

Result<QuantizeSummary> quantizeModelFile(const std::string &inPath, const std::string &outPath,
                                          const QuantFileType &fileType, const QuantizeOptions &options = {});

} // namespace burrow::model
