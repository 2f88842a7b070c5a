// burrow::library::Scanner: the places walked in order, each file's facts
// from the cache or its header, split parts joined to their first part, one
// entry per resolved file.
#include "burrow/library.h"

#include "library/file_facts.h"
#include "library/folder_walk.h"
#include "library/ollama_manifest.h"
#include "library/split_name.h"

#include <algorithm>
#include <dirent.h>
#include <mutex>
#include <set>
#include <sys/stat.h>
#include <unordered_map>

namespace burrow::library {

namespace {

struct CachedFacts {
    uint64_t size = 0;
    int64_t mtimeNs = 0;
    FileFacts facts;
};

using FactCache = std::unordered_map<std::string, CachedFacts>;

// A file a place offers as a model, before its facts are known.
struct Candidate {
    WalkedFile file;
    std::string name;          // what to call it (before a split suffix is taken off)
    std::string repository;
    bool namedAsModel = false; // its name or a manifest says it is a model (a non-GGUF one is reported)
    std::string realPath;
    const FileFacts *facts = nullptr;
};

std::string fileNameOf(const std::string &path)
{
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string folderOf(const std::string &path)
{
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

bool endsWithGguf(const std::string &name)
{
    if (name.size() < 5)
        return false;
    std::string tail = name.substr(name.size() - 5);
    std::transform(tail.begin(), tail.end(), tail.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return tail == ".gguf";
}

// "Llama-3.2-1B-Q4_K_M.gguf" -> "Llama-3.2-1B-Q4_K_M"; a file called just
// "model.gguf" (Jan) is named after its folder.
std::string modelNameFor(const std::string &fileName, const std::string &repository)
{
    std::string stem = endsWithGguf(fileName) ? fileName.substr(0, fileName.size() - 5) : fileName;
    std::string lower = stem;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (lower == "model" && !repository.empty())
        return fileNameOf(repository);
    return stem;
}

// Files below a plain folder: the folder below the place is the repository.
void filesCandidates(const Place &place, const WalkLimits &limits, WalkState &state, std::vector<Candidate> &out,
                     std::vector<Skipped> &skipped)
{
    std::vector<WalkedFile> files;
    walkFolder(place.path, limits, state, files, skipped);
    for (WalkedFile &f : files) {
        if (f.relative.ends_with(".part"))
            continue;   // a download still being written (Burrow's, burrow-cli synth's): not a model yet
        Candidate c;
        c.repository = folderOf(f.relative);
        c.name = modelNameFor(fileNameOf(f.relative), c.repository);
        c.namedAsModel = endsWithGguf(f.relative);
        c.file = std::move(f);
        out.push_back(std::move(c));
    }
}

// The hub cache: models--ORG--REPO/snapshots/REV/... (links into blobs/,
// which is never walked itself: every file there is reached from a snapshot).
void hubCandidates(const Place &place, const WalkLimits &limits, WalkState &state, std::vector<Candidate> &out,
                   std::vector<Skipped> &skipped)
{
    std::vector<std::string> repos;
    DIR *dir = ::opendir(place.path.c_str());
    if (!dir) {
        skipped.push_back({place.path, "cannot be read"});
        return;
    }
    while (const dirent *entry = ::readdir(dir)) {
        if (++state.entries > limits.maxEntries)
            break;
        const std::string_view name = entry->d_name;
        if (name.starts_with("models--"))
            repos.emplace_back(name);
    }
    ::closedir(dir);
    std::sort(repos.begin(), repos.end());
    for (const std::string &repo : repos) {
        std::string id = repo.substr(8);   // ORG--REPO -> ORG/REPO
        if (const size_t sep = id.find("--"); sep != std::string::npos)
            id = id.substr(0, sep) + "/" + id.substr(sep + 2);
        const std::string snapshots = place.path + "/" + repo + "/snapshots";
        std::vector<WalkedFile> files;
        walkFolder(snapshots, limits, state, files, skipped);
        for (WalkedFile &f : files) {
            Candidate c;
            c.repository = id;
            c.name = modelNameFor(fileNameOf(f.relative), std::string());
            c.namedAsModel = endsWithGguf(f.relative);
            c.file = std::move(f);
            out.push_back(std::move(c));
        }
    }
}

// Ollama: each manifest names one model blob.
void ollamaCandidates(const Place &place, const ScanLimits &scanLimits, const WalkLimits &limits, WalkState &state,
                      std::vector<Candidate> &out, std::vector<Skipped> &skipped)
{
    std::vector<WalkedFile> manifests;
    walkFolder(place.path + "/manifests", limits, state, manifests, skipped);
    for (const WalkedFile &m : manifests) {
        auto blob = ollamaModelBlob(place.path, m.path, scanLimits.maxManifestBytes);
        if (!blob) {
            skipped.push_back({m.path, blob.message()});
            continue;
        }
        struct stat st {};
        if (::stat(blob->c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
            skipped.push_back({m.path, "its model file is missing: " + *blob});
            continue;
        }
        Candidate c;
        c.file.path = *blob;
        c.file.relative = "blobs/" + fileNameOf(*blob);
        c.file.size = uint64_t(st.st_size);
        c.file.mtimeNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + int64_t(st.st_mtim.tv_nsec);
        c.name = ollamaModelName(m.relative);
        c.namedAsModel = true;
        out.push_back(std::move(c));
    }
}

} // namespace

struct Scanner::Private {
    ScanLimits limits;
    std::mutex mutex;   // one scan at a time
    FactCache cache;    // by resolved path
};

Scanner::Scanner(ScanLimits limits) : d(std::make_unique<Private>())
{
    d->limits = limits;
}

Scanner::~Scanner() = default;

ScanResult Scanner::scan(const std::vector<Place> &places)
{
    std::lock_guard<std::mutex> lock(d->mutex);
    ScanResult result;
    FactCache fresh;
    FactCounters counters;
    std::set<std::string> listed;        // resolved paths of the models listed so far
    std::set<std::string> reported;      // resolved paths of the files reported as passed over
    std::set<std::string> placesSeen;    // resolved place folders (a place given twice is walked once)
    const WalkLimits walkLimits{d->limits.maxDepth, d->limits.maxEntries};

    // The facts of `c`'s file: remembered when its size and time are the
    // same, else read (its header parsed at most once per scan).
    const auto factsOf = [&](const Candidate &c) -> const FileFacts * {
        if (auto it = fresh.find(c.realPath); it != fresh.end())
            return &it->second.facts;
        CachedFacts entry;
        auto old = d->cache.find(c.realPath);
        if (old != d->cache.end() && old->second.size == c.file.size && old->second.mtimeNs == c.file.mtimeNs)
            entry = std::move(old->second);
        else
            entry = {c.file.size, c.file.mtimeNs, readFileFacts(c.realPath, counters)};
        return &fresh.emplace(c.realPath, std::move(entry)).first->second.facts;
    };

    for (const Place &place : places) {
        PlaceReport report;
        report.place = place;
        report.exists = isFolder(place.path);
        const std::string resolvedPlace = report.exists ? resolvedPath(place.path) : std::string();
        if (!report.exists || !placesSeen.insert(resolvedPlace).second) {
            result.places.push_back(report);
            continue;
        }

        std::vector<Candidate> candidates;
        WalkState state;
        switch (place.layout) {
        case Layout::LAYOUT_FILES: filesCandidates(place, walkLimits, state, candidates, result.skipped); break;
        case Layout::LAYOUT_HF_CACHE: hubCandidates(place, walkLimits, state, candidates, result.skipped); break;
        case Layout::LAYOUT_OLLAMA:
            ollamaCandidates(place, d->limits, walkLimits, state, candidates, result.skipped);
            break;
        }

        std::unordered_map<std::string, size_t> byPath;   // path as found -> candidate
        for (size_t i = 0; i < candidates.size(); ++i) {
            Candidate &c = candidates[i];
            ++result.stats.filesSeen;
            c.realPath = resolvedPath(c.file.path);
            if (c.realPath.empty())
                continue;   // gone since the walk
            c.facts = factsOf(c);
            byPath.emplace(c.file.path, i);
        }

        std::set<size_t> partsUsed;
        for (size_t i = 0; i < candidates.size(); ++i) {
            const Candidate &c = candidates[i];
            if (!c.facts)
                continue;
            const FileFacts &facts = *c.facts;
            switch (facts.kind) {
            case FileKind::FILE_KIND_NOT_GGUF:
                if (c.namedAsModel && reported.insert(c.realPath).second)
                    result.skipped.push_back({c.file.path, "not a GGUF file"});
                continue;
            case FileKind::FILE_KIND_BROKEN:
            case FileKind::FILE_KIND_NOT_A_MODEL:
                if (reported.insert(c.realPath).second)
                    result.skipped.push_back({c.file.path, facts.error});
                continue;
            case FileKind::FILE_KIND_PART:
                continue;   // joined to its first part below, or reported after
            case FileKind::FILE_KIND_MODEL:
                break;
            }
            if (!listed.insert(c.realPath).second)
                continue;   // listed from an earlier place (or another link to it)

            FoundModel m;
            m.path = c.file.path;
            m.realPath = c.realPath;
            m.source = place.source;
            m.placePath = place.path;
            m.name = c.name;
            m.repository = c.repository;
            m.info = facts.info;
            m.sizeClass = facts.sizeLabel;
            m.totalSize = c.file.size;
            m.modifiedNs = c.file.mtimeNs;
            m.runnable = facts.runnable;
            m.runnableDetail = facts.runnableDetail;

            if (facts.splitCount > 1) {
                if (facts.splitCount > d->limits.maxParts) {
                    listed.erase(c.realPath);
                    result.skipped.push_back({c.file.path, "claims " + std::to_string(facts.splitCount) +
                                                               " parts, more than " +
                                                               std::to_string(d->limits.maxParts)});
                    continue;
                }
                m.partCount = facts.splitCount;
                const auto split = parseSplitName(fileNameOf(c.file.path));
                std::string missing;
                if (!split || split->index != 1 || split->count != facts.splitCount) {
                    missing = "parts 2 to " + std::to_string(facts.splitCount) + " (its name is not NAME-00001-of-" +
                              splitPartName("", facts.splitCount, facts.splitCount).substr(10) + ")";
                } else {
                    m.name = modelNameFor(split->prefix + ".gguf", place.layout == Layout::LAYOUT_HF_CACHE
                                                                       ? std::string() : m.repository);
                    const std::string folder = folderOf(c.file.path);
                    for (uint32_t k = 2; k <= split->count; ++k) {
                        const std::string partName = splitPartName(split->prefix, k, split->count);
                        const auto it = byPath.find(folder + "/" + partName);
                        const FileFacts *part = it == byPath.end() ? nullptr : candidates[it->second].facts;
                        if (!part || part->kind != FileKind::FILE_KIND_PART || part->splitIndex != k - 1 ||
                            part->splitCount != split->count) {
                            if (missing.empty())
                                missing = partName;
                            continue;
                        }
                        const Candidate &pc = candidates[it->second];
                        partsUsed.insert(it->second);
                        m.totalSize += pc.file.size;
                        m.modifiedNs = std::max(m.modifiedNs, pc.file.mtimeNs);
                        m.info.parameterCount += part->parameterCount;
                        m.info.weightBytes += part->weightBytes;
                    }
                }
                if (m.runnable != Runnable::RUNNABLE_ARCHITECTURE) {
                    m.runnable = missing.empty() ? Runnable::RUNNABLE_SPLIT : Runnable::RUNNABLE_MISSING_PART;
                    m.runnableDetail = missing;
                }
            }
            if (m.sizeClass.empty())
                m.sizeClass = sizeClassFor(m.info.parameterCount);
            m.whyNot = whyNotText(m.runnable, m.runnableDetail, m.partCount);
            ++report.modelCount;
            result.models.push_back(std::move(m));
        }
        for (size_t i = 0; i < candidates.size(); ++i) {
            const Candidate &c = candidates[i];
            if (c.facts && c.facts->kind == FileKind::FILE_KIND_PART && !partsUsed.count(i))
                result.skipped.push_back({c.file.path, "part " + std::to_string(c.facts->splitIndex + 1) + " of " +
                                                           std::to_string(c.facts->splitCount) +
                                                           " of a split model whose first part is not beside it"});
        }
        result.places.push_back(report);
    }

    d->cache = std::move(fresh);
    result.stats.magicReads = counters.magicReads;
    result.stats.headerReads = counters.headerReads;
    return result;
}

} // namespace burrow::library
