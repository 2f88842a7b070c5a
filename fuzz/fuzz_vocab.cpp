// libFuzzer entry point for vocabulary loading: any bytes through
// GgufFile::parse(); when they parse, Tokenizer::fromGguf() builds the
// tokenizer from the tokenizer.ggml.* keys (refusing bad ones with a message
// naming the file); when that succeeds, a few texts (fixed ones and the
// input's last bytes) are tokenized with and without special tokens and
// decoded back, whole and through the streaming decoder. Every id must be in
// range. A crash, sanitizer report, leak, timeout or trap here is a bug.
#include "common/mapped_file.h"
#include "gguf/gguf_reader.h"
#include "tokenizer/stream_decoder.h"
#include "tokenizer/tokenizer.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

using namespace burrow;
using namespace burrow::tokenizer;

namespace {

void exercise(const Tokenizer &tok, std::string_view text)
{
    for (const bool special : {false, true}) {
        const std::vector<int32_t> ids = tok.tokenize(text, special, special);
        for (const int32_t id : ids)
            if (id < 0 || id >= tok.size())
                __builtin_trap();   // every id is a token
        DetokenizeOptions options;
        options.renderSpecial = special;
        options.cleanSpaces = !special;
        (void)tok.detokenize(ids, options);
        StreamDecoder decoder(tok);
        for (const int32_t id : ids)
            (void)decoder.push(id);
        (void)decoder.finish();
        for (size_t i = 0; i < ids.size() && i < 8; ++i) {
            (void)tok.tokenBytes(ids[i], special);
            (void)tok.isEndOfGeneration(ids[i]);
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    auto parsed = gguf::GgufFile::parse(MappedFile::fromBytes(std::vector<uint8_t>(data, data + size), "fuzz.gguf"));
    if (!parsed)
        return 0;
    auto tok = Tokenizer::fromGguf(**parsed);
    if (!tok) {
        if (tok.message().find("fuzz.gguf") == std::string::npos)
            __builtin_trap();   // every refusal names the file
        return 0;
    }
    const Tokenizer &t = **tok;
    static const char *const kTexts[] = {
        "Hello world! It's 2026, isn't it? 12345",
        "<|im_start|>user\nHi<|im_end|>\n<|channel|>analysis<|message|>x<|end|><think>y</think>",
        "  leading  spaces\t\ttabs\n\n\nnewlines \xe2\x96\x81\xe2\x96\x81 literal",
        "\xe4\xbd\xa0\xe5\xa5\xbd \xf0\x9f\xa6\x99 na\xc3\xafve cafe\xcc\x81 \xe0\xa4\xa8\xe0\xa4\xae\xe0\xa4\xb8\xe0\xa5\x8d",
        "\xff\xfe invalid \xc3 bytes \xe4\xb8",
    };
    for (const char *text : kTexts)
        exercise(t, text);
    // The input's own tail as text: arbitrary bytes, under the fuzzer's control.
    const size_t tail = size < 256 ? size : 256;
    exercise(t, std::string_view(reinterpret_cast<const char *>(data) + size - tail, tail));
    (void)t.endOfGenerationIds();
    (void)t.eot();
    return 0;
}
