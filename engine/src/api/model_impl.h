// The implementation of burrow::Model: the mapped file, its ModelConfig and
// Weights (views into the map) and the tokenizer. Immutable after load();
// shared by every Session of the model.
#pragma once

#include "burrow/engine.h"
#include "common/ggml_types.h"
#include "common/streamed_memory.h"
#include "gguf/gguf_reader.h"
#include "model/model_config.h"
#include "model/weights.h"
#include "quant/packed.h"

#include <memory>
#include <mutex>
#include <vector>

namespace burrow::tokenizer { class Tokenizer; }

namespace burrow::api {

struct ChatState;

// Turns generated tokens into UTF-8-complete text pieces (bytes of a
// character split across tokens are held until the character is complete).
class TokenTextStream {
public:
    virtual ~TokenTextStream() = default;
    virtual std::string push(Token token) = 0;
    // What is still held at the end (incomplete sequences as U+FFFD).
    virtual std::string finish() = 0;
};

class ModelImpl final : public Model {
public:
    static Result<std::shared_ptr<ModelImpl>> load(const std::string &path, const LoadOptions &options);
    ~ModelImpl() override;

    const ModelInfo &info() const override { return m_info; }
    std::vector<Token> tokenize(std::string_view text, bool addSpecial, bool parseSpecial) const override;
    std::string tokenBytes(Token token) const override;
    std::string detokenize(const std::vector<Token> &tokens) const override;
    bool isEndOfGeneration(Token token) const override;
    uint32_t vocabSize() const override { return m_config.nVocab; }

    const model::ModelConfig &config() const { return m_config; }
    const model::Weights &weights() const { return m_weights; }
    const gguf::GgufFile &file() const { return *m_file; }
    // Null when the file has no usable vocabulary.
    const tokenizer::Tokenizer *tokenizer() const { return m_tokenizer.get(); }
    // BOS id when the vocabulary adds one to prompts, else -1.
    Token addedBos() const;
    // The chat format (chosen and parsed on first use; thread-safe).
    Result<std::shared_ptr<const ChatState>> chatState() const;
    // A new streaming decoder (one per generation); the control tokens
    // named (GenerateOptions::renderedControlTokens) are shown as their text.
    std::unique_ptr<TokenTextStream> newTextStream(const std::vector<std::string> &renderedControlTokens = {}) const;

private:
    ModelImpl();   // defined where tokenizer::Tokenizer is complete
    Status loadTokenizer();

    std::unique_ptr<gguf::GgufFile> m_file;
    model::ModelConfig m_config;
    model::Weights m_weights;
    StreamedArray<uint8_t> m_packedArena;                          // their bytes (runtime/weight_packing.h)
    std::vector<std::unique_ptr<quant::PackedMatrix>> m_packed;   // packed copies the weights point to
    ModelInfo m_info;
    std::unique_ptr<tokenizer::Tokenizer> m_tokenizer;
    mutable std::once_flag m_chatOnce;
    mutable std::shared_ptr<const ChatState> m_chat;
    mutable Status m_chatStatus;
};

// The KV cell type of a public KvCacheType (runtime::KvCache::create).
inline GgmlType kvCellType(KvCacheType type)
{
    return type == KvCacheType::KV_CACHE_Q8_0 ? GgmlType::GGML_TYPE_Q8_0 : GgmlType::GGML_TYPE_F16;
}

} // namespace burrow::api
