// burrow-cli info MODEL [--json]: what a .gguf file says about itself, read
// from the header only (see docs/cli.md for every field and JSON key).
#include "cli_command.h"
#include "cli_format.h"

#include "burrow/engine.h"
#include "common/json.h"

#include <cinttypes>
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace {

constexpr uint32_t kInfoReferenceContext = 4096;

void printHelp(FILE *out)
{
    std::fprintf(out,
                 "usage: burrow-cli info MODEL [--json] [--draft DRAFT]\n\n"
                 "Prints what the GGUF file MODEL says about itself: architecture, size,\n"
                 "weight types, dimensions, vocabulary, and the memory needed for the\n"
                 "weights and for the KV cache. Reads the header only.\n\n"
                 "options:\n"
                 "  --json     print one JSON object (keys documented in docs/cli.md)\n"
                 "  --draft DRAFT  also check DRAFT as its draft model (the same vocabulary)\n"
                 "             and print the memory it takes beside it\n"
                 "  -h, --help show this help\n\n"
                 "exit status: 0 ok, 1 the file was refused (message on stderr), 2 usage error\n");
}

using burrow::cli::humanBytes;
using burrow::json::jsonString;

// Saturating product for memory figures (a hostile header may ask for more
// than 2^64 bytes; the figure then reads as the maximum).
uint64_t kvBytes(const burrow::ModelInfo &info, uint32_t nCtx)
{
    return info.kvCacheBytes(nCtx);
}

std::string humanCount(uint64_t n)
{
    char buf[64];
    if (n >= 1000000000ull)
        std::snprintf(buf, sizeof buf, "%.2f B", static_cast<double>(n) / 1e9);
    else if (n >= 1000000ull)
        std::snprintf(buf, sizeof buf, "%.2f M", static_cast<double>(n) / 1e6);
    else if (n >= 1000ull)
        std::snprintf(buf, sizeof buf, "%.1f K", static_cast<double>(n) / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%" PRIu64, n);
    return buf;
}

std::string tokenIdJson(burrow::Token id) { return id < 0 ? "null" : std::to_string(id); }

void printJson(const burrow::ModelInfo &info, const std::optional<burrow::ModelInfo> &draft)
{
    int tensorCount = 0;
    std::string types = "{";
    for (const auto &[type, count] : info.tensorTypeCounts) {
        if (types.size() > 1)
            types += ", ";
        types += jsonString(type) + ": " + std::to_string(count);
        tensorCount += count;
    }
    types += "}";
    std::printf("{\n");
    std::printf("  \"path\": %s,\n", jsonString(info.path).c_str());
    std::printf("  \"architecture\": %s,\n", jsonString(info.architecture).c_str());
    std::printf("  \"name\": %s,\n", jsonString(info.name).c_str());
    std::printf("  \"file_type\": %s,\n", jsonString(info.fileType).c_str());
    std::printf("  \"file_size\": %" PRIu64 ",\n", info.fileSize);
    std::printf("  \"parameter_count\": %" PRIu64 ",\n", info.parameterCount);
    std::printf("  \"active_parameter_count\": %" PRIu64 ",\n", info.activeParameterCount);
    std::printf("  \"expert_count\": %u,\n", info.expertCount);
    std::printf("  \"expert_used_count\": %u,\n", info.expertUsedCount);
    std::printf("  \"sliding_window\": %u,\n", info.slidingWindow);
    std::printf("  \"sliding_layer_count\": %u,\n", info.slidingLayerCount);
    std::printf("  \"recurrent_layer_count\": %u,\n", info.recurrentLayerCount);
    std::printf("  \"recurrent_state_bytes\": %" PRIu64 ",\n", info.recurrentStateBytes);
    std::printf("  \"shared_kv_layers\": %u,\n", info.sharedKvLayerCount);
    std::printf("  \"mtp_layer_count\": %u,\n", info.mtpLayerCount);
    std::printf("  \"mtp_drafting\": %s,\n", info.mtpDrafting ? "true" : "false");
    std::printf("  \"per_layer_embedding_length\": %u,\n", info.perLayerEmbeddingLength);
    std::printf("  \"per_layer_embedding_bytes\": %" PRIu64 ",\n", info.perLayerEmbeddingBytes);
    std::printf("  \"tensor_count\": %d,\n", tensorCount);
    std::printf("  \"tensor_types\": %s,\n", types.c_str());
    std::printf("  \"context_length\": %u,\n", info.contextLength);
    std::printf("  \"embedding_length\": %u,\n", info.embeddingLength);
    std::printf("  \"block_count\": %u,\n", info.blockCount);
    std::printf("  \"head_count\": %u,\n", info.headCount);
    std::printf("  \"head_count_kv\": %u,\n", info.headCountKv);
    std::printf("  \"head_dim\": %u,\n", info.headDim);
    std::printf("  \"head_dim_sliding\": %u,\n", info.headDimSliding ? info.headDimSliding : info.headDim);
    std::printf("  \"vocab_type\": %s,\n", jsonString(info.vocabType).c_str());
    std::printf("  \"vocab_size\": %u,\n", info.vocabSize);
    std::printf("  \"bos_token_id\": %s,\n", tokenIdJson(info.bosId).c_str());
    std::printf("  \"eos_token_id\": %s,\n", tokenIdJson(info.eosId).c_str());
    std::printf("  \"has_chat_template\": %s,\n", info.hasChatTemplate ? "true" : "false");
    std::printf("  \"weight_bytes\": %" PRIu64 ",\n", info.weightBytes);
    std::printf("  \"kv_cache_bytes_per_token\": %" PRIu64 ",\n", info.kvBytesPerToken);
    std::printf("  \"kv_cache_bytes_per_token_sliding\": %" PRIu64 ",\n", info.kvBytesPerTokenSliding);
    std::printf("  \"kv_cache_bytes_trained_context\": %" PRIu64 ",\n", kvBytes(info, info.contextLength));
    std::printf("  \"kv_cache_bytes_4096\": %" PRIu64 ",\n", kvBytes(info, kInfoReferenceContext));
    std::string drafters;
    for (const std::string &d : info.drafters)
        drafters += (drafters.empty() ? "" : ", ") + jsonString(d);
    std::printf("  \"drafters\": [%s]", drafters.c_str());
    if (!info.draftsFor.empty())
        std::printf(",\n  \"drafts_for\": %s", jsonString(info.draftsFor).c_str());
    if (draft)
        std::printf(",\n  \"draft_model\": {\"path\": %s, \"file_size\": %" PRIu64 ", \"kv_cache_bytes_4096\": %" PRIu64 "}",
                    jsonString(draft->path).c_str(), draft->fileSize, kvBytes(*draft, kInfoReferenceContext));
    std::printf("\n}\n");
}

void printText(const burrow::ModelInfo &info, const std::optional<burrow::ModelInfo> &draft)
{
    int tensorCount = 0;
    std::string types;
    for (const auto &[type, count] : info.tensorTypeCounts) {
        types += (types.empty() ? "" : ", ") + type + ": " + std::to_string(count);
        tensorCount += count;
    }
    auto id = [](burrow::Token t) { return t < 0 ? std::string("none") : std::to_string(t); };
    std::printf("path:              %s\n", info.path.c_str());
    std::printf("architecture:      %s\n", info.architecture.c_str());
    std::printf("name:              %s\n", info.name.c_str());
    std::printf("file type:         %s\n", info.fileType.empty() ? "unknown" : info.fileType.c_str());
    std::printf("file size:         %s (%" PRIu64 " bytes)\n", humanBytes(info.fileSize).c_str(), info.fileSize);
    std::printf("parameters:        %s (%" PRIu64 ")\n", humanCount(info.parameterCount).c_str(), info.parameterCount);
    if (info.expertCount > 0) {
        std::printf("experts:           %u experts, %u active\n", info.expertCount, info.expertUsedCount);
        std::printf("active parameters: %s per token\n", humanCount(info.activeParameterCount).c_str());
    }
    std::printf("tensors:           %d (%s)\n", tensorCount, types.empty() ? "none" : types.c_str());
    std::printf("context length:    %u\n", info.contextLength);
    std::printf("embedding length:  %u\n", info.embeddingLength);
    std::printf("layers:            %u\n", info.blockCount);
    std::printf("heads:             %u\n", info.headCount);
    std::printf("KV heads:          %u\n", info.headCountKv);
    if (info.headDimSliding > 0 && info.headDimSliding != info.headDim)
        std::printf("head dimension:    %u (global layers), %u (sliding layers)\n", info.headDim, info.headDimSliding);
    else
        std::printf("head dimension:    %u\n", info.headDim);
    if (info.slidingWindow > 0)
        std::printf("sliding window:    %u positions on %u of %u layers\n", info.slidingWindow, info.slidingLayerCount,
                    info.blockCount);
    if (info.sharedKvLayerCount > 0)
        std::printf("shared KV layers:  the last %u of %u layers reuse earlier layers' keys and values (no KV cache of "
                    "their own)\n", info.sharedKvLayerCount, info.blockCount);
    if (info.perLayerEmbeddingLength > 0)
        std::printf("per-layer embedding: %u per layer (%" PRIu64 " per token), %s, read from the mapped file one row "
                    "per token\n", info.perLayerEmbeddingLength,
                    static_cast<uint64_t>(info.perLayerEmbeddingLength) * info.blockCount,
                    humanBytes(info.perLayerEmbeddingBytes).c_str());
    if (info.recurrentLayerCount > 0)
        std::printf("recurrent layers:  %u of %u (Gated DeltaNet), state %s per conversation\n", info.recurrentLayerCount,
                    info.blockCount, humanBytes(info.recurrentStateBytes).c_str());
    if (info.mtpLayerCount > 0)
        std::printf("MTP layers:        %u (%s)\n", info.mtpLayerCount,
                    info.mtpDrafting ? "drafts for speculative decoding: --spec mtp"
                                     : "not used: Burrow drafts with one block that has its tensors");
    std::printf("vocabulary:        %s, %u tokens\n", info.vocabType.empty() ? "none" : info.vocabType.c_str(),
                info.vocabSize);
    std::printf("BOS / EOS ids:     %s / %s\n", id(info.bosId).c_str(), id(info.eosId).c_str());
    std::printf("chat template:     %s\n", info.hasChatTemplate ? "yes" : "no");
    std::printf("memory, weights:   %s\n", humanBytes(info.weightBytes).c_str());
    std::printf("memory, KV cache:  %s at the trained context (%u tokens), %s at %u tokens (F16)\n",
                humanBytes(kvBytes(info, info.contextLength)).c_str(), info.contextLength,
                humanBytes(kvBytes(info, kInfoReferenceContext)).c_str(), kInfoReferenceContext);
    std::string drafters;
    for (const std::string &d : info.drafters)
        drafters += (drafters.empty() ? "" : ", ") + d;
    if (!info.draftsFor.empty())
        std::printf("speculative:       a drafter only: Gemma 4's assistant, for a %s model (--spec mtp --draft "
                    "THIS); it does not run by itself\n", info.draftsFor.c_str());
    else if (info.architecture == "gemma4")
        std::printf("speculative:       %s, Gemma 4's assistant file (--spec mtp --draft FILE), or a draft model "
                    "with the same vocabulary (--spec)\n", drafters.c_str());
    else
        std::printf("speculative:       %s, or a draft model with the same vocabulary (--spec)\n", drafters.c_str());
    if (draft && !draft->draftsFor.empty())
        std::printf("draft model:       %s, Gemma 4's assistant for this model; beside it: %s of weights, no KV "
                    "cache of its own\n", draft->name.c_str(), humanBytes(draft->fileSize).c_str());
    else if (draft)
        std::printf("draft model:       %s, the same vocabulary; beside the model: %s of weights + %s of KV cache at "
                    "%u tokens (F16)\n",
                    draft->name.c_str(), humanBytes(draft->fileSize).c_str(),
                    humanBytes(kvBytes(*draft, std::min(kInfoReferenceContext, draft->contextLength))).c_str(),
                    std::min(kInfoReferenceContext, draft->contextLength));
}

int runInfo(const std::vector<std::string> &args)
{
    bool json = false;
    std::string path, draftPath;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        if (a == "--json") {
            json = true;
        } else if (a == "--draft") {
            if (i + 1 >= args.size()) {
                std::fprintf(stderr, "burrow-cli info: --draft needs a value\n");
                return 2;
            }
            draftPath = args[++i];
        } else if (a == "-h" || a == "--help") {
            printHelp(stdout);
            return 0;
        } else if (!a.empty() && a[0] == '-') {
            std::fprintf(stderr, "burrow-cli info: unknown option '%s'\n", a.c_str());
            printHelp(stderr);
            return 2;
        } else if (path.empty()) {
            path = a;
        } else {
            std::fprintf(stderr, "burrow-cli info: one MODEL expected, got '%s' too\n", a.c_str());
            return 2;
        }
    }
    if (path.empty()) {
        printHelp(stderr);
        return 2;
    }
    burrow::Result<burrow::ModelInfo> info = burrow::inspectModel(path);
    if (!info) {
        std::fprintf(stderr, "burrow-cli info: %s\n", info.message().c_str());
        return 1;
    }
    std::optional<burrow::ModelInfo> draft;
    if (!draftPath.empty()) {
        auto checked = burrow::checkDraftModel(path, draftPath);
        if (!checked) {
            std::fprintf(stderr, "burrow-cli info: %s\n", checked.message().c_str());
            return 1;
        }
        draft = std::move(checked.value());
    }
    if (json)
        printJson(*info, draft);
    else
        printText(*info, draft);
    return 0;
}

} // namespace

BURROW_CLI_COMMAND(info, "info", "show what a .gguf model file says about itself", runInfo);
