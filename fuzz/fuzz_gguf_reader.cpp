// libFuzzer entry point: any bytes through GgufFile::parse(); when they parse,
// every key is read through the typed getters, every tensor's first and last
// data byte is touched, and inspectGguf() derives the model facts. A crash,
// sanitizer report, leak or timeout here is a reader bug.
#include "gguf/gguf_reader.h"
#include "api/model_info.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

using namespace burrow;
using namespace burrow::gguf;

namespace {

void readEveryKey(const GgufFile &f)
{
    std::string s;
    uint32_t u32 = 0;
    uint64_t u64 = 0;
    int64_t i64 = 0;
    float f32 = 0;
    bool b = false;
    std::vector<std::string> strings;
    std::vector<float> floats;
    std::vector<int32_t> ints;
    for (const KeyValue &kv : f.metadata()) {
        const std::string key(kv.key);
        (void)f.getString(key, s);
        (void)f.getU32(key, u32);
        (void)f.getU64(key, u64);
        (void)f.getI64(key, i64);
        (void)f.getF32(key, f32);
        (void)f.getBool(key, b);
        (void)f.getStringArray(key, strings);
        (void)f.getF32Array(key, floats);
        (void)f.getI32Array(key, ints);
        if (f.find(key) != &kv)
            __builtin_trap(); // keys are unique, so lookup finds this entry
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    auto parsed = GgufFile::parse(MappedFile::fromBytes(std::vector<uint8_t>(data, data + size), "fuzz.gguf"));
    if (!parsed) {
        if (parsed.message().rfind("fuzz.gguf: ", 0) != 0)
            __builtin_trap(); // every message names the file
        return 0;
    }
    const GgufFile &f = **parsed;
    readEveryKey(f);
    volatile uint8_t sink = 0;
    for (const TensorInfo &t : f.tensors()) {
        if (t.nBytes == 0 || t.data < f.fileData() || t.data + t.nBytes > f.fileData() + f.fileSize())
            __builtin_trap();
        sink = sink + t.data[0] + t.data[t.nBytes - 1];
        if (f.tensor(t.name) != &t)
            __builtin_trap();
    }
    auto info = burrow::api::inspectGguf(f);
    if (info)
        sink = sink + static_cast<uint8_t>(info->vocabSize);
    (void)sink;
    return 0;
}
