// What one file is, for the model library: not GGUF, a GGUF file whose
// header does not validate, a model (its header facts and whether Burrow
// can run it), a later part of a split model, or a GGUF file that is not a
// model to chat with (a vision projector, a LoRA adapter, a vocabulary).
//
// Cost: readFileFacts() reads the first 4 bytes; for a GGUF file it maps the
// file and parses the header (metadata and tensor infos, never tensor data),
// then checks the architecture, hyper-parameters, tensors and vocabulary the
// way Model::load does, without loading anything.
#pragma once

#include "burrow/library.h"

#include <cstdint>
#include <string>

namespace burrow::library {

enum class FileKind {
    FILE_KIND_NOT_GGUF,     // does not start with "GGUF" (or cannot be opened)
    FILE_KIND_BROKEN,       // starts with "GGUF" but the header does not validate (error says why)
    FILE_KIND_MODEL,        // a model, or the first part of a split one
    FILE_KIND_PART,         // part 2..n of a split model (split.no > 0)
    FILE_KIND_NOT_A_MODEL,  // a projector, an adapter or a vocabulary (error says which)
};

struct FileFacts {
    FileKind kind = FileKind::FILE_KIND_NOT_GGUF;
    std::string error;            // BROKEN / NOT_A_MODEL: why
    ModelInfo info;               // MODEL
    std::string sizeLabel;        // MODEL: general.size_label ("" when absent)
    uint32_t splitIndex = 0;      // split.no (0: the first part, or not split)
    uint32_t splitCount = 0;      // split.count (0 or 1: not split)
    uint64_t parameterCount = 0;  // this file's tensors (PART; MODEL has info.parameterCount)
    uint64_t weightBytes = 0;
    Runnable runnable = Runnable::RUNNABLE_YES;   // MODEL, not yet judged for split models
    std::string runnableDetail;
};

struct FactCounters {
    uint64_t magicReads = 0;
    uint64_t headerReads = 0;
};

// The facts of the regular file `path`.
FileFacts readFileFacts(const std::string &path, FactCounters &counters);

// One English sentence for a runnable state ("" for RUNNABLE_YES).
std::string whyNotText(Runnable runnable, const std::string &detail, uint32_t partCount);

} // namespace burrow::library
