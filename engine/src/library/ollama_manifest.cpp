#include "library/ollama_manifest.h"

#include "common/json.h"

#include <fstream>
#include <vector>

namespace burrow::library {

namespace {

constexpr std::string_view kModelMediaType = "application/vnd.ollama.image.model";
constexpr std::string_view kDefaultHost = "registry.ollama.ai";
constexpr std::string_view kDefaultNamespace = "library";

bool readBounded(const std::string &path, uint64_t maxBytes, std::string &out)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return false;
    std::vector<char> buf(64 * 1024);
    while (in) {
        in.read(buf.data(), std::streamsize(buf.size()));
        out.append(buf.data(), size_t(in.gcount()));
        if (out.size() > maxBytes)
            return false;
    }
    return !in.bad();
}

bool isHexDigest(std::string_view hex)
{
    if (hex.size() != 64)
        return false;
    for (char c : hex)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    return true;
}

} // namespace

std::string ollamaModelName(const std::string &relative)
{
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= relative.size()) {
        const size_t slash = relative.find('/', start);
        const size_t end = slash == std::string::npos ? relative.size() : slash;
        parts.push_back(relative.substr(start, end - start));
        start = end + 1;
    }
    if (parts.size() < 2)
        return relative;
    const std::string tag = parts.back();
    parts.pop_back();
    // Leave out the default host, then the default namespace after it.
    size_t first = 0;
    if (parts.size() >= 3 && parts[0] == kDefaultHost) {
        first = 1;
        if (parts[1] == kDefaultNamespace)
            first = 2;
    }
    std::string name;
    for (size_t i = first; i < parts.size(); ++i)
        name += (name.empty() ? "" : "/") + parts[i];
    return name + ":" + tag;
}

Result<std::string> ollamaModelBlob(const std::string &modelsFolder, const std::string &manifestPath,
                                    uint64_t maxBytes)
{
    std::string text;
    if (!readBounded(manifestPath, maxBytes, text))
        return Status::error("the manifest cannot be read (or is larger than " + std::to_string(maxBytes) + " bytes)");
    auto parsed = json::parseJson(text, manifestPath);
    if (!parsed)
        return Status::error("the manifest is not JSON: " + parsed.message());
    const json::JsonValue *layers = parsed->find("layers");
    if (!layers || !layers->isArray())
        return Status::error("the manifest has no layers");
    for (const json::JsonValue &layer : layers->array) {
        const json::JsonValue *mediaType = layer.find("mediaType");
        if (!mediaType || !mediaType->isString() || mediaType->string != kModelMediaType)
            continue;
        const json::JsonValue *digest = layer.find("digest");
        constexpr std::string_view prefix = "sha256:";
        if (!digest || !digest->isString() || !std::string_view(digest->string).starts_with(prefix) ||
            !isHexDigest(std::string_view(digest->string).substr(prefix.size())))
            return Status::error("the model layer's digest is not sha256 and 64 hex digits");
        return modelsFolder + "/blobs/sha256-" + digest->string.substr(prefix.size());
    }
    return Status::error("the manifest has no model layer (" + std::string(kModelMediaType) + ")");
}

} // namespace burrow::library
