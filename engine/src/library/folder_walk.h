// A bounded, loop-safe walk over a folder tree for the model library.
//
// Contract: every regular file below `root` (symbolic links followed) is
// reported once per path it is reached by, in name order within a folder;
// folders reached twice (a link back up the tree, two links to one folder)
// are entered once; names starting with '.' are passed over (hidden folders,
// lock files, partial downloads). FIFOs, sockets and devices are ignored.
// Unreadable folders, dangling links, link loops and the limits being
// reached are reported in `skipped` and never stop the walk elsewhere.
//
// Cost: one stat per entry, one opendir per folder; at most
// limits.maxEntries entries and limits.maxDepth levels below `root`.
#pragma once

#include "burrow/library.h"

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace burrow::library {

struct WalkedFile {
    std::string path;       // root + "/" + relative (links not resolved)
    std::string relative;   // below root ("a/b/file.gguf")
    uint64_t size = 0;
    int64_t mtimeNs = 0;
};

struct WalkLimits {
    uint32_t maxDepth = 8;
    uint64_t maxEntries = 50000;
};

// What a walk carries from folder to folder: the folders entered (device,
// inode) and the entries counted. One per place, so a place's limits and
// loop check cover every walk made in it.
struct WalkState {
    std::set<std::pair<uint64_t, uint64_t>> visited;
    uint64_t entries = 0;
    bool stopped = false;   // maxEntries was reached (reported once)
};

void walkFolder(const std::string &root, const WalkLimits &limits, WalkState &state, std::vector<WalkedFile> &files,
                std::vector<Skipped> &skipped);

// The kind of `path` after following links: a folder, a regular file, or
// neither (missing, dangling, a device...).
bool isFolder(const std::string &path);

// `path` with every link and "." / ".." resolved ("" when it cannot be).
std::string resolvedPath(const std::string &path);

} // namespace burrow::library
