#include "library/file_facts.h"

#include "api/model_info.h"
#include "gguf/gguf_reader.h"
#include "model/architectures.h"
#include "model/model_config.h"
#include "model/weights.h"
#include "tokenizer/tokenizer.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace burrow::library {

namespace {

// True when the file starts with the GGUF magic. O_NONBLOCK: a FIFO put in
// place of the file after it was seen as regular does not block the open.
bool startsWithGgufMagic(const std::string &path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return false;
    struct stat st {};
    char magic[4] = {};
    bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (ok) {
        ssize_t got = 0;
        do {
            got = ::pread(fd, magic, sizeof magic, 0);
        } while (got < 0 && errno == EINTR);
        ok = got == ssize_t(sizeof magic) && magic[0] == 'G' && magic[1] == 'G' && magic[2] == 'U' && magic[3] == 'F';
    }
    ::close(fd);
    return ok;
}

// Whether Burrow can run the model in `file` (header `info`): the checks of
// Model::load before any weight is read.
void judge(const gguf::GgufFile &file, const ModelInfo &info, FileFacts &facts)
{
    if (!model::findArchitecture(info.architecture)) {
        facts.runnable = Runnable::RUNNABLE_ARCHITECTURE;
        facts.runnableDetail = info.architecture;
        return;
    }
    if (facts.splitCount > 1) {
        facts.runnable = Runnable::RUNNABLE_SPLIT;   // the parts are checked by the scanner
        return;
    }
    auto config = model::loadModelConfig(file);
    if (!config) {
        facts.runnable = Runnable::RUNNABLE_SETTINGS;
        facts.runnableDetail = config.message();
        return;
    }
    if (auto weights = model::loadWeights(file, config.value()); !weights) {
        facts.runnable = Runnable::RUNNABLE_WEIGHTS;
        facts.runnableDetail = weights.message();
        return;
    }
    if (file.find("tokenizer.ggml.tokens")) {
        if (auto tokenizer = tokenizer::Tokenizer::fromGguf(file); !tokenizer) {
            facts.runnable = Runnable::RUNNABLE_TOKENIZER;
            facts.runnableDetail = tokenizer.message();
            return;
        }
    }
}

} // namespace

FileFacts readFileFacts(const std::string &path, FactCounters &counters)
{
    FileFacts facts;
    ++counters.magicReads;
    if (!startsWithGgufMagic(path))
        return facts;

    ++counters.headerReads;
    auto opened = gguf::GgufFile::open(path);
    if (!opened) {
        facts.kind = FileKind::FILE_KIND_BROKEN;
        facts.error = opened.message();
        return facts;
    }
    const gguf::GgufFile &file = **opened;
    const auto broken = [&](const Status &s) {
        facts.kind = FileKind::FILE_KIND_BROKEN;
        facts.error = s.message();
        return facts;
    };
    if (Status s = file.getOptionalU32("split.no", facts.splitIndex); !s)
        return broken(s);
    if (Status s = file.getOptionalU32("split.count", facts.splitCount); !s)
        return broken(s);
    for (const gguf::TensorInfo &t : file.tensors()) {
        facts.parameterCount += uint64_t(t.nElements);   // bounded by the file's bytes (validated)
        facts.weightBytes += t.nBytes;
    }
    if (facts.splitIndex > 0) {
        facts.kind = FileKind::FILE_KIND_PART;
        return facts;
    }

    std::string type, architecture;
    if (Status s = file.getOptionalString("general.type", type); !s)
        return broken(s);
    if (Status s = file.getOptionalString("general.architecture", architecture); !s)
        return broken(s);
    facts.kind = FileKind::FILE_KIND_NOT_A_MODEL;
    if (type == "mmproj" || architecture == "clip") {
        facts.error = "a vision projector (mmproj), used beside a model";
        return facts;
    }
    if (type == "adapter") {
        facts.error = "a LoRA adapter, used on top of a model";
        return facts;
    }
    if (file.tensors().empty()) {
        facts.error = "holds no weights (a vocabulary only)";
        return facts;
    }

    auto info = api::inspectGguf(file);
    if (!info)
        return broken(info.status());
    facts.kind = FileKind::FILE_KIND_MODEL;
    facts.info = std::move(info.value());
    if (Status s = file.getOptionalString("general.size_label", facts.sizeLabel); !s)
        facts.sizeLabel.clear();   // a label of another type is ignored: the count stands in
    judge(file, facts.info, facts);
    return facts;
}

std::string whyNotText(Runnable runnable, const std::string &detail, uint32_t partCount)
{
    switch (runnable) {
    case Runnable::RUNNABLE_YES:
        return std::string();
    case Runnable::RUNNABLE_ARCHITECTURE:
        return "the '" + detail + "' architecture is not supported yet";
    case Runnable::RUNNABLE_SPLIT:
        return "split into " + std::to_string(partCount) +
               " files; Burrow opens single-file models only (llama-gguf-split --merge joins them)";
    case Runnable::RUNNABLE_MISSING_PART:
        return "a part of this split model is missing: " + detail;
    case Runnable::RUNNABLE_SETTINGS:
        return "its settings are not supported: " + detail;
    case Runnable::RUNNABLE_WEIGHTS:
        return "its weights cannot be used: " + detail;
    case Runnable::RUNNABLE_TOKENIZER:
        return "its tokenizer is not supported: " + detail;
    }
    return std::string();
}

} // namespace burrow::library
