// Where the apps keep their models (defaultPlaces), the names of the
// sources, and a parameter count as a size class.
#include "burrow/library.h"

#include "library/folder_walk.h"

#include <cstdio>
#include <cstdlib>
#include <dirent.h>

namespace burrow::library {

namespace {

std::string env(const char *name)
{
    const char *v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

bool absolute(const std::string &path)
{
    return !path.empty() && path[0] == '/';
}

// An XDG base folder: the variable when it is absolute (the spec ignores
// relative ones), else HOME + fallback ("" without a HOME).
std::string xdgFolder(const std::string &value, const std::string &home, const char *fallback)
{
    if (absolute(value))
        return value;
    return absolute(home) ? home + fallback : std::string();
}

} // namespace

const char *sourceName(Source source)
{
    switch (source) {
    case Source::SOURCE_BURROW: return "Burrow";
    case Source::SOURCE_LM_STUDIO: return "LM Studio";
    case Source::SOURCE_OLLAMA: return "Ollama";
    case Source::SOURCE_GPT4ALL: return "GPT4All";
    case Source::SOURCE_JAN: return "Jan";
    case Source::SOURCE_HUGGING_FACE: return "Hugging Face";
    case Source::SOURCE_USER_FOLDER: return "Folder";
    }
    return "Folder";
}

const char *sourceId(Source source)
{
    switch (source) {
    case Source::SOURCE_BURROW: return "burrow";
    case Source::SOURCE_LM_STUDIO: return "lmstudio";
    case Source::SOURCE_OLLAMA: return "ollama";
    case Source::SOURCE_GPT4ALL: return "gpt4all";
    case Source::SOURCE_JAN: return "jan";
    case Source::SOURCE_HUGGING_FACE: return "huggingface";
    case Source::SOURCE_USER_FOLDER: return "folder";
    }
    return "folder";
}

Environment Environment::fromProcess()
{
    Environment e;
    e.home = env("HOME");
    e.xdgDataHome = env("XDG_DATA_HOME");
    e.xdgConfigHome = env("XDG_CONFIG_HOME");
    e.xdgCacheHome = env("XDG_CACHE_HOME");
    e.hfHome = env("HF_HOME");
    e.hfHubCache = env("HF_HUB_CACHE");
    if (e.hfHubCache.empty())
        e.hfHubCache = env("HUGGINGFACE_HUB_CACHE");
    e.ollamaModels = env("OLLAMA_MODELS");
    return e;
}

std::string burrowModelsFolder(const Environment &e)
{
    const std::string data = xdgFolder(e.xdgDataHome, e.home, "/.local/share");
    return data.empty() ? std::string() : data + "/Burrow/models";
}

std::vector<Place> defaultPlaces(const Environment &e)
{
    const std::string &home = e.home;
    const std::string data = xdgFolder(e.xdgDataHome, home, "/.local/share");
    const std::string config = xdgFolder(e.xdgConfigHome, home, "/.config");
    const std::string cache = xdgFolder(e.xdgCacheHome, home, "/.cache");
    const bool haveHome = absolute(home);

    std::vector<Place> places;
    const auto add = [&](Source source, const std::string &path, Layout layout = Layout::LAYOUT_FILES) {
        if (absolute(path))
            places.push_back({source, path, layout});
    };
    add(Source::SOURCE_BURROW, burrowModelsFolder(e));
    if (haveHome) {
        add(Source::SOURCE_LM_STUDIO, home + "/.lmstudio/models");
        add(Source::SOURCE_LM_STUDIO, home + "/.cache/lm-studio/models");
    }
    if (absolute(e.ollamaModels)) {
        add(Source::SOURCE_OLLAMA, e.ollamaModels, Layout::LAYOUT_OLLAMA);
    } else {
        if (haveHome)
            add(Source::SOURCE_OLLAMA, home + "/.ollama/models", Layout::LAYOUT_OLLAMA);
        add(Source::SOURCE_OLLAMA, "/usr/share/ollama/.ollama/models", Layout::LAYOUT_OLLAMA);
    }
    if (!data.empty())
        add(Source::SOURCE_GPT4ALL, data + "/nomic.ai/GPT4All");
    if (!data.empty()) {
        add(Source::SOURCE_JAN, data + "/Jan/data/llamacpp/models");
        add(Source::SOURCE_JAN, data + "/Jan/data/models");
    }
    if (!config.empty())
        add(Source::SOURCE_JAN, config + "/Jan/data/models");
    if (haveHome)
        add(Source::SOURCE_JAN, home + "/jan/models");
    std::string hub;
    if (absolute(e.hfHubCache))
        hub = e.hfHubCache;
    else if (absolute(e.hfHome))
        hub = e.hfHome + "/hub";
    else if (!cache.empty())
        hub = cache + "/huggingface/hub";
    add(Source::SOURCE_HUGGING_FACE, hub, Layout::LAYOUT_HF_CACHE);
    return places;
}

Place userPlace(const std::string &path)
{
    Place place{Source::SOURCE_USER_FOLDER, path, Layout::LAYOUT_FILES};
    if (isFolder(path + "/manifests") && isFolder(path + "/blobs")) {
        place.layout = Layout::LAYOUT_OLLAMA;
        return place;
    }
    // A hub cache: models--ORG--REPO folders at the top (one readdir).
    if (DIR *dir = ::opendir(path.c_str())) {
        while (const dirent *entry = ::readdir(dir)) {
            if (std::string_view(entry->d_name).starts_with("models--") && isFolder(path + "/" + entry->d_name)) {
                place.layout = Layout::LAYOUT_HF_CACHE;
                break;
            }
        }
        ::closedir(dir);
    }
    return place;
}

std::string sizeClassFor(uint64_t n)
{
    char buf[32];
    const auto scaled = [&](double value, const char *unit) {
        // One decimal below 10 ("1.1B", "3.8B"), none above ("13B", "135M").
        if (value < 9.95)
            std::snprintf(buf, sizeof buf, "%.1f%s", value, unit);
        else
            std::snprintf(buf, sizeof buf, "%.0f%s", value, unit);
        std::string s(buf);
        if (const size_t dot = s.find(".0"); dot != std::string::npos && dot + 2 < s.size() && (s[dot + 2] < '0' || s[dot + 2] > '9'))
            s.erase(dot, 2);   // "7.0B" -> "7B"
        return s;
    };
    if (n >= 1000000000ull)
        return scaled(double(n) / 1e9, "B");
    if (n >= 1000000ull)
        return scaled(double(n) / 1e6, "M");
    if (n >= 1000ull)
        return scaled(double(n) / 1e3, "K");
    return std::to_string(n);
}

} // namespace burrow::library
