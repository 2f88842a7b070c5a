// Ollama's models folder: manifests/HOST/NAMESPACE/NAME/TAG are JSON
// (a Docker-style image manifest) whose layers name blobs by digest; the
// layer of media type application/vnd.ollama.image.model is the GGUF file,
// at blobs/sha256-HEX.
#pragma once

#include "burrow/status.h"

#include <cstdint>
#include <string>

namespace burrow::library {

// "registry.ollama.ai/library/llama3.2/latest" -> "llama3.2:latest";
// "registry.ollama.ai/someone/model/q4" -> "someone/model:q4";
// "hf.co/org/repo/Q4_K_M" -> "hf.co/org/repo:Q4_K_M". `relative` is the
// manifest's path below manifests/.
std::string ollamaModelName(const std::string &relative);

// The model blob the manifest at `manifestPath` names: MODELS/blobs/sha256-HEX.
// Errors: the file is larger than maxBytes or unreadable, not JSON, has no
// model layer, or a digest that is not "sha256:" and 64 hex digits (nothing
// else may reach the path).
Result<std::string> ollamaModelBlob(const std::string &modelsFolder, const std::string &manifestPath,
                                    uint64_t maxBytes);

} // namespace burrow::library
