// Reading a whole file for burrow-cli (templates, message lists, contexts):
// one bounded read, so an option naming a huge file fails instead of
// filling memory.
#pragma once

#include <cstddef>
#include <fstream>
#include <limits>
#include <string>

namespace burrow::cli {

// The bytes of `path` into `out`. False when it cannot be opened or read,
// or holds more than `maxBytes` (then `out` is left empty). Cost: one
// pass, at most maxBytes + 1 bytes read.
inline bool readWholeFile(const std::string &path, std::string &out,
                          size_t maxBytes = std::numeric_limits<size_t>::max() - 1)
{
    out.clear();
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return false;
    char buf[65536];
    while (in) {
        in.read(buf, sizeof buf);
        out.append(buf, static_cast<size_t>(in.gcount()));
        if (out.size() > maxBytes) {
            out.clear();
            return false;
        }
    }
    if (in.bad()) {
        out.clear();
        return false;
    }
    return true;
}

} // namespace burrow::cli
