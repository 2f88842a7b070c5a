// inspectModel() on an already parsed file (the fuzzer and the model loader
// use it without mapping the file twice).
#pragma once

#include "burrow/engine.h"
#include "gguf/gguf_reader.h"

namespace burrow::api {

// The ModelInfo facts of `file` (header only). Errors name the file and key.
Result<ModelInfo> inspectGguf(const gguf::GgufFile &file);

} // namespace burrow::api
