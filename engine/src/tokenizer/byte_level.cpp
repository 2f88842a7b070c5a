#include "tokenizer/byte_level.h"

#include "tokenizer/utf8.h"

#include <array>

namespace burrow::tokenizer {

namespace {

struct ByteLevelTables {
    std::array<std::string, 256> encode;   // byte -> UTF-8 of its character
    std::array<int16_t, 512> decode;       // code point (< 0x200) -> byte, -1 if none

    ByteLevelTables()
    {
        decode.fill(-1);
        std::array<uint32_t, 256> cp{};
        std::array<bool, 256> direct{};
        for (int b = 0; b < 256; ++b)
            direct[b] = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
        uint32_t next = 256;
        for (int b = 0; b < 256; ++b)
            cp[b] = direct[b] ? static_cast<uint32_t>(b) : next++;
        for (int b = 0; b < 256; ++b) {
            utf8Append(encode[b], cp[b]);
            decode[cp[b]] = static_cast<int16_t>(b);
        }
    }
};

const ByteLevelTables &tables()
{
    static const ByteLevelTables t;
    return t;
}

} // namespace

std::string_view byteLevelEncodeByte(uint8_t byte)
{
    return tables().encode[byte];
}

void byteLevelEncode(std::string_view bytes, std::string &out)
{
    const auto &t = tables();
    for (const char c : bytes)
        out += t.encode[static_cast<uint8_t>(c)];
}

int byteLevelDecodeCodepoint(uint32_t codepoint)
{
    if (codepoint >= 512)
        return -1;
    return tables().decode[codepoint];
}

} // namespace burrow::tokenizer
