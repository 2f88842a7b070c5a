#include "library/folder_walk.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <sys/stat.h>

namespace burrow::library {

namespace {

int64_t mtimeOf(const struct stat &st)
{
    return int64_t(st.st_mtim.tv_sec) * 1000000000 + int64_t(st.st_mtim.tv_nsec);
}

std::string errnoText(int error)
{
    return std::strerror(error);
}

// Why `path` could not be followed (stat failed with `error`): a loop, a
// dangling link, or the system's reason.
std::string unreachableReason(const std::string &path, int error)
{
    if (error == ELOOP)
        return "a symbolic link loop";
    struct stat link {};
    if (error == ENOENT && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
        return "a dangling symbolic link";
    return "cannot be read: " + errnoText(error);
}

// Sorted names in `folder` (without "." and hidden names); false when the
// folder cannot be opened (`error` set).
bool listFolder(const std::string &folder, std::vector<std::string> &names, int &error)
{
    DIR *dir = ::opendir(folder.c_str());
    if (!dir) {
        error = errno;
        return false;
    }
    while (const dirent *entry = ::readdir(dir)) {
        if (entry->d_name[0] == '.')
            continue;
        names.emplace_back(entry->d_name);
    }
    ::closedir(dir);
    std::sort(names.begin(), names.end());
    return true;
}

void walk(const std::string &root, const std::string &relative, uint32_t depth, const WalkLimits &limits,
          WalkState &state, std::vector<WalkedFile> &files, std::vector<Skipped> &skipped)
{
    const std::string folder = relative.empty() ? root : root + "/" + relative;
    std::vector<std::string> names;
    int error = 0;
    if (!listFolder(folder, names, error)) {
        skipped.push_back({folder, "cannot be read: " + errnoText(error)});
        return;
    }
    for (const std::string &name : names) {
        if (state.stopped)
            return;
        if (++state.entries > limits.maxEntries) {
            state.stopped = true;
            skipped.push_back({root, "stopped after " + std::to_string(limits.maxEntries) + " entries"});
            return;
        }
        const std::string rel = relative.empty() ? name : relative + "/" + name;
        const std::string path = root + "/" + rel;
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0) {
            skipped.push_back({path, unreachableReason(path, errno)});
            continue;
        }
        if (S_ISREG(st.st_mode)) {
            files.push_back({path, rel, uint64_t(st.st_size), mtimeOf(st)});
        } else if (S_ISDIR(st.st_mode)) {
            if (!state.visited.insert({uint64_t(st.st_dev), uint64_t(st.st_ino)}).second)
                continue;   // entered already (a link back up, or a second link to it)
            if (depth + 1 > limits.maxDepth) {
                skipped.push_back({path, "deeper than " + std::to_string(limits.maxDepth) + " folders"});
                continue;
            }
            walk(root, rel, depth + 1, limits, state, files, skipped);
        }
    }
}

} // namespace

void walkFolder(const std::string &root, const WalkLimits &limits, WalkState &state, std::vector<WalkedFile> &files,
                std::vector<Skipped> &skipped)
{
    struct stat st {};
    if (::stat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        return;
    if (!state.visited.insert({uint64_t(st.st_dev), uint64_t(st.st_ino)}).second)
        return;
    walk(root, std::string(), 0, limits, state, files, skipped);
}

bool isFolder(const std::string &path)
{
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string resolvedPath(const std::string &path)
{
    char *resolved = ::realpath(path.c_str(), nullptr);
    if (!resolved)
        return std::string();
    std::string out(resolved);
    std::free(resolved);
    return out;
}

} // namespace burrow::library
