#include "tokenizer/utf8.h"
#include "common/utf8.h"

namespace burrow::tokenizer {

namespace {

bool isContinuation(uint8_t b) { return (b & 0xC0) == 0x80; }

} // namespace

Utf8Sequence utf8Decode(std::string_view text, size_t pos)
{
    Utf8Sequence seq;
    if (pos >= text.size())
        return seq;  // INVALID, length 0: caller bug, but harmless

    const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[pos + i]); };
    const uint8_t b0 = byte(0);
    const size_t avail = text.size() - pos;

    if (b0 < 0x80) {
        seq.status = Utf8Status::UTF8_STATUS_VALID;
        seq.codepoint = b0;
        seq.length = 1;
        return seq;
    }

    size_t need = 0;
    uint32_t cp = 0;
    // Allowed range of the second byte (Unicode table 3-7), which rules out
    // overlongs, surrogates and values above U+10FFFF.
    uint8_t lo = 0x80, hi = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        need = 2;
        cp = b0 & 0x1F;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        need = 3;
        cp = b0 & 0x0F;
        if (b0 == 0xE0)
            lo = 0xA0;
        else if (b0 == 0xED)
            hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        need = 4;
        cp = b0 & 0x07;
        if (b0 == 0xF0)
            lo = 0x90;
        else if (b0 == 0xF4)
            hi = 0x8F;
    } else {
        seq.status = Utf8Status::UTF8_STATUS_INVALID;
        seq.length = 1;
        return seq;
    }

    size_t i = 1;
    for (; i < need; ++i) {
        if (i >= avail) {
            seq.status = Utf8Status::UTF8_STATUS_INCOMPLETE;
            seq.length = i;
            return seq;
        }
        const uint8_t b = byte(i);
        const bool ok = (i == 1) ? (b >= lo && b <= hi) : isContinuation(b);
        if (!ok) {
            seq.status = Utf8Status::UTF8_STATUS_INVALID;
            seq.length = i;
            return seq;
        }
        cp = (cp << 6) | (b & 0x3F);
    }
    seq.status = Utf8Status::UTF8_STATUS_VALID;
    seq.codepoint = cp;
    seq.length = need;
    return seq;
}

void utf8Append(std::string &out, uint32_t cp)
{
    appendUtf8(out, cp);
}

size_t utf8LengthFromLeadByte(uint8_t lead)
{
    static constexpr uint8_t lookup[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
    return lookup[lead >> 4];
}

bool utf8IsValid(std::string_view text)
{
    size_t pos = 0;
    while (pos < text.size()) {
        // Fast path for ASCII.
        if (static_cast<uint8_t>(text[pos]) < 0x80) {
            ++pos;
            continue;
        }
        const Utf8Sequence seq = utf8Decode(text, pos);
        if (seq.status != Utf8Status::UTF8_STATUS_VALID)
            return false;
        pos += seq.length;
    }
    return true;
}

std::string utf8Sanitize(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    size_t pos = 0;
    while (pos < text.size()) {
        const Utf8Sequence seq = utf8Decode(text, pos);
        if (seq.status == Utf8Status::UTF8_STATUS_VALID)
            out.append(text.substr(pos, seq.length));
        else
            utf8Append(out, UTF8_REPLACEMENT_CHARACTER);
        pos += seq.length;
    }
    return out;
}

} // namespace burrow::tokenizer
