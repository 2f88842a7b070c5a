// Burrow's model library: the GGUF models already on this computer, found in
// the folders other apps keep them in (LM Studio, Ollama, GPT4All, Jan, the
// Hugging Face hub cache), Burrow's own models folder and folders the user
// adds. Qt-free; burrow-cli models and the app's library screen use it.
//
// What counts as a model: a regular file that starts with the GGUF magic and
// whose header validates (inspectModel), whatever its name; a model split
// into parts (NAME-00001-of-00003.gguf, split.* keys) is one model. Files are
// opened in place: nothing is copied, moved or written. Vision projectors
// (mmproj) and LoRA adapters are GGUF files but not models to chat with; they
// are left out, and so are files named *.part (downloads still being written).
//
// Safety: every folder is untrusted. Walks are bounded (depth, entries per
// place), follow symbolic links to folders at most once per folder (loops end),
// skip dangling links, unreadable folders, FIFOs and devices, and never read
// more of a file than its GGUF header (a memory map touches only those pages).
// Ollama manifests are read up to 1 MiB and a digest must be 64 hex digits
// before it names a blob.
//
// Cost: a Scanner remembers what each file's header said, keyed by the file's
// resolved path, size and modification time; a rescan stats every file again
// but reads only the headers of new or changed files (ScanStats counts them).
#pragma once

#include "burrow/engine.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace burrow::library {

// Where a model was found. The order is the order of defaultPlaces(): when
// the same file is reachable from two places it is listed once, under the
// first.
enum class Source {
    SOURCE_BURROW,          // Burrow's own models folder (downloads, unpacked archives)
    SOURCE_LM_STUDIO,
    SOURCE_OLLAMA,
    SOURCE_GPT4ALL,
    SOURCE_JAN,
    SOURCE_HUGGING_FACE,    // the hub cache (models--org--repo/snapshots/REV/...)
    SOURCE_USER_FOLDER,     // a folder the user added
};

// "Burrow", "LM Studio", "Ollama", "GPT4All", "Jan", "Hugging Face", "Folder".
const char *sourceName(Source source);
// Stable ids for JSON and settings: "burrow", "lmstudio", "ollama", "gpt4all",
// "jan", "huggingface", "folder".
const char *sourceId(Source source);

// How a place keeps its models.
enum class Layout {
    LAYOUT_FILES,           // GGUF files anywhere below the folder (LM Studio, GPT4All, Jan, Burrow, user folders)
    LAYOUT_OLLAMA,          // manifests/HOST/NAMESPACE/NAME/TAG (JSON) naming blobs/sha256-HEX
    LAYOUT_HF_CACHE,        // models--ORG--REPO/snapshots/REV/FILE, symbolic links into blobs/
};

struct Place {
    Source source = Source::SOURCE_USER_FOLDER;
    std::string path;       // absolute
    Layout layout = Layout::LAYOUT_FILES;
};

// The environment the default places come from (tests and burrow-cli point
// it at a fake home). Empty values mean "not set".
struct Environment {
    std::string home;             // HOME
    std::string xdgDataHome;      // XDG_DATA_HOME (default HOME/.local/share)
    std::string xdgConfigHome;    // XDG_CONFIG_HOME (default HOME/.config)
    std::string xdgCacheHome;     // XDG_CACHE_HOME (default HOME/.cache)
    std::string hfHome;           // HF_HOME (default XDG_CACHE_HOME/huggingface)
    std::string hfHubCache;       // HF_HUB_CACHE, else the older HUGGINGFACE_HUB_CACHE (default HF_HOME/hub)
    std::string ollamaModels;     // OLLAMA_MODELS: where Ollama keeps models instead of its defaults
    // The variables of this process.
    static Environment fromProcess();
};

// Burrow's own models folder: XDG_DATA_HOME/Burrow/models (the app's data
// folder, app/storage/datafolder.h, + "/models").
std::string burrowModelsFolder(const Environment &env);

// Where the apps keep models on Linux, in Source order (folders that do not
// exist are included; a scan reports them as absent):
//   Burrow        XDG_DATA_HOME/Burrow/models
//   LM Studio     HOME/.lmstudio/models, HOME/.cache/lm-studio/models (before 0.3)
//   Ollama        OLLAMA_MODELS when set, else HOME/.ollama/models and
//                 /usr/share/ollama/.ollama/models (the system service's)
//   GPT4All       XDG_DATA_HOME/nomic.ai/GPT4All
//   Jan           XDG_DATA_HOME/Jan/data/llamacpp/models (0.6 and later),
//                 XDG_DATA_HOME/Jan/data/models, XDG_CONFIG_HOME/Jan/data/models, HOME/jan/models (older)
//   Hugging Face  HF_HUB_CACHE, else HF_HOME/hub, else XDG_CACHE_HOME/huggingface/hub
// Paths that are not absolute (an unset HOME) are left out.
std::vector<Place> defaultPlaces(const Environment &env);

// A folder the user adds, with the layout its contents show: an Ollama
// models folder (manifests/ and blobs/), a hub cache (models--*/ folders),
// else plain files.
Place userPlace(const std::string &path);

// Whether Burrow can run a model, and if not, the kind of reason.
enum class Runnable {
    RUNNABLE_YES,
    RUNNABLE_ARCHITECTURE,   // general.architecture is not one Burrow runs yet (detail: the name)
    RUNNABLE_SPLIT,          // split into parts; Burrow opens single-file models only
    RUNNABLE_MISSING_PART,   // a part of a split model is missing (detail: its file name)
    RUNNABLE_SETTINGS,       // hyper-parameters Burrow does not support (detail: the engine's message)
    RUNNABLE_WEIGHTS,        // a tensor is missing, misshapen or of a type Burrow cannot compute with (detail: the message)
    RUNNABLE_TOKENIZER,      // the vocabulary's kind is not supported (detail: the message)
};

struct FoundModel {
    std::string path;         // the file to open (the first part of a split model), as found (links not resolved)
    std::string realPath;     // the same with every link resolved (what identifies it)
    Source source = Source::SOURCE_USER_FOLDER;
    std::string placePath;    // the place it was found in
    // What to call it: Ollama's "name:tag" ("namespace/name:tag" outside the
    // library namespace, "host/namespace/name:tag" for another registry);
    // otherwise the file name without ".gguf" (and without the part suffix),
    // or the folder's name when the file is just "model.gguf" (Jan).
    std::string name;
    // "publisher/repo" (LM Studio), "org/repo" (Hugging Face); for other
    // places the folder below the place ("" at its top).
    std::string repository;
    ModelInfo info;           // the header (of the first part; parameterCount and weightBytes of all parts)
    std::string sizeClass;    // general.size_label when present ("8B", "8x7B"), else from the parameter count ("1.1B", "260K")
    uint64_t totalSize = 0;   // bytes of all parts
    int64_t modifiedNs = 0;   // the newest modification time of its parts (ns since the epoch)
    uint32_t partCount = 1;
    Runnable runnable = Runnable::RUNNABLE_YES;
    std::string runnableDetail;   // see Runnable
    // One English sentence: "" when runnable, else why not
    // ("the 'mamba' architecture is not supported yet").
    std::string whyNot;

    bool canRun() const { return runnable == Runnable::RUNNABLE_YES; }
};

// What a scan passed over, and why: unreadable folders, dangling links,
// symbolic link loops, files with a GGUF magic and a broken header, Ollama
// manifests that cannot be used, limits reached.
struct Skipped {
    std::string path;
    std::string reason;
};

struct PlaceReport {
    Place place;
    bool exists = false;      // the folder is there (and is a folder)
    uint32_t modelCount = 0;  // models listed under it
};

struct ScanStats {
    uint64_t filesSeen = 0;       // regular files looked at (stat)
    uint64_t magicReads = 0;      // files whose first bytes were read (new or changed ones)
    uint64_t headerReads = 0;     // GGUF headers parsed (new or changed ones)
};

struct ScanResult {
    std::vector<FoundModel> models;   // place order, then path order
    std::vector<Skipped> skipped;
    std::vector<PlaceReport> places;
    ScanStats stats;
};

struct ScanLimits {
    uint32_t maxDepth = 8;            // folders below a place's top
    uint64_t maxEntries = 50000;      // directory entries visited per place
    uint64_t maxManifestBytes = 1u << 20;
    uint32_t maxParts = 256;          // parts of a split model
};

// "7B", "1.1B", "135M", "260K": a parameter count as models are named.
std::string sizeClassFor(uint64_t parameterCount);

class Scanner {
public:
    explicit Scanner(ScanLimits limits = {});
    ~Scanner();
    Scanner(const Scanner &) = delete;
    Scanner &operator=(const Scanner &) = delete;

    // Lists the models under `places` (in that order; a file already listed
    // from an earlier place is not listed again). Never fails: what cannot
    // be read is in ScanResult::skipped. Thread-safe: concurrent calls run
    // one after the other. The cache keeps the facts of the files seen in
    // this scan only (a removed file is forgotten).
    ScanResult scan(const std::vector<Place> &places);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace burrow::library
