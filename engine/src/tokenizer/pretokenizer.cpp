#include "tokenizer/pretokenizer.h"

#include "common/log.h"
#include "tokenizer/utf8.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <cstring>
#include <map>

namespace burrow::tokenizer {

namespace {

// ---- The expressions (facts from the reference engine's table) ----------

// GPT-2: contractions, letters, digits, other symbols, trailing spaces.
constexpr const char *RE_GPT2 =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))";
// Llama 3 (tiktoken cl100k style). The reference writes the case-insensitive
// contractions as explicit classes; digits in groups of at most three.
constexpr const char *RE_LLAMA3 =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
// Qwen 2: as Llama 3 with single digits.
constexpr const char *RE_QWEN2 =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
// Qwen 3.5: Qwen 2 with [\p{L}\p{M}]+ words and [^\s\p{L}\p{M}\p{N}]+ symbols.
constexpr const char *RE_QWEN35 =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr const char *RE_GPT4O =
    R"([^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr const char *RE_PORO = R"( ?[^(\s|.,!?…。，、।۔،)]+)";

struct RegexSet {
    const char *name;
    std::vector<std::string> expressions;
};

const std::vector<RegexSet> &regexSets()
{
    static const std::vector<RegexSet> sets = {
        {"default", {R"([\p{P}\$\+<=>\^~\|]+)", RE_GPT2, R"(\p{N}+)", R"([0-9][0-9][0-9])"}},
        {"llama3", {RE_LLAMA3}},
        {"gpt2", {RE_GPT2}},
        {"qwen2", {RE_QWEN2}},
        // Digits split one by one, then GPT-2.
        {"starcoder", {R"(\p{N})", RE_GPT2}},
        {"falcon", {R"([\p{P}\$\+<=>\^~\|`]+)", RE_GPT2, R"([0-9][0-9][0-9])"}},
        {"deepseek-coder", {"[\r\n]", R"(\s?\p{L}+)", R"(\s?\p{P}+)", "[一-龥ࠀ-一가-퟿]+", R"(\p{N})"}},
        // The reference runs expressions without \p{..} through std::wregex
        // after replacing every non-ASCII white space character by U+000B, so
        // U+3000 (ideographic space) can only ever match \s, never the
        // class range "　-。" of the original expression; hence "、-。" here.
        {"deepseek-llm",
         {"[\r\n]",
          "\\s?["
          "A-Za-z\\x{B5}\\x{C0}-\\x{D6}\\x{D8}-\\x{F6}\\x{F8}-\\x{1BA}\\x{1BC}-\\x{1BF}\\x{1C4}-\\x{293}"
          "\\x{295}-\\x{2AF}\\x{370}-\\x{373}\\x{376}\\x{377}\\x{37B}-\\x{37D}\\x{37F}\\x{386}\\x{388}"
          "-\\x{38A}\\x{38C}\\x{38E}-\\x{3A1}\\x{3A3}-\\x{3F5}\\x{3F7}-\\x{481}\\x{48A}-\\x{52F}\\x{531}"
          "-\\x{556}\\x{10A0}-\\x{10C5}\\x{13A0}-\\x{13F5}\\x{13F8}-\\x{13FD}\\x{1C90}-\\x{1CBA}\\x{1CBD}"
          "-\\x{1CBF}\\x{1D00}-\\x{1D2B}\\x{1D6B}-\\x{1D77}\\x{1D79}-\\x{1D9A}\\x{1E00}-\\x{1F15}\\x{1F18}"
          "-\\x{1F1D}\\x{1F20}-\\x{1F45}\\x{1F48}-\\x{1F4D}\\x{1F50}-\\x{1F57}\\x{1F59}\\x{1F5B}\\x{1F5D}"
          "\\x{1F5F}-\\x{1F7D}\\x{1F80}-\\x{1FB4}\\x{1FB6}-\\x{1FBC}\\x{1FBE}\\x{1FC2}-\\x{1FC4}\\x{1FC6}"
          "-\\x{1FCC}\\x{1FD0}-\\x{1FD3}\\x{1FD6}-\\x{1FDB}\\x{1FE0}-\\x{1FEC}\\x{1FF2}-\\x{1FF4}\\x{1FF6}"
          "-\\x{1FFC}\\x{2102}\\x{2107}\\x{210A}-\\x{2113}\\x{2115}\\x{2119}-\\x{211D}\\x{2124}\\x{2126}"
          "\\x{2128}\\x{212A}-\\x{212D}\\x{212F}-\\x{2134}\\x{2139}\\x{213C}-\\x{213F}\\x{2145}-\\x{2149}"
          "\\x{214E}\\x{2183}\\x{2184}\\x{2C00}-\\x{2C7B}\\x{2C7E}-\\x{2CE4}\\x{2CEB}-\\x{2CEE}\\x{2CF2}"
          "\\x{2CF3}\\x{A640}-\\x{A66D}\\x{A680}-\\x{A69B}\\x{A722}-\\x{A76F}\\x{A771}-\\x{A787}\\x{A78B}"
          "-\\x{A78E}\\x{AB70}-\\x{ABBF}\\x{FB00}-\\x{FB06}\\x{FB13}-\\x{FB17}\\x{FF21}-\\x{FF3A}\\x{FF41}"
          "-\\x{FF5A}\\x{10400}-\\x{1044F}\\x{104B0}-\\x{104D3}\\x{104D8}-\\x{104FB}\\x{10C80}-\\x{10CB2}"
          "\\x{10CC0}-\\x{10CF2}\\x{118A0}-\\x{118DF}\\x{1E900}-\\x{1E943}"
          "]+",
          "\\s?[!-/:-~！-／：-～‘-‟、-。]+",
          R"(\s+$)",
          "[一-龥ࠀ-一가-퟿]+",
          R"(\p{N}+)"}},
        // The reference runs this set's third expression on text whose
        // characters are collapsed to their category, and its table of ASCII
        // symbols (\p{S}) lacks '~': for it, '~' is neither punctuation nor
        // symbol. Hence the explicit '~' / (?!~) below.
        {"deepseek-v3",
         {R"(\p{N}{1,3})", "[一-龥぀-ゟ゠-ヿ]+",
          "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|(?:~|[^\r\n\\p{L}\\p{P}\\p{S}])?[\\p{L}\\p{M}]+| ?(?:(?!~)[\\p{P}\\p{S}])+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"}},
        // Qwen 3.5: as Qwen 2 with combining marks part of words and never of
        // the symbol runs.
        {"qwen35", {RE_QWEN35}},
        // o200k (gpt-oss, Phi-4-mini, Llama 4), as the reference adapted it:
        // the case classes become look-aheads, so every letter that is not
        // ASCII counts as both cases, and the original's \p{M} is gone
        // (combining marks split words).
        {"gpt4o", {RE_GPT4O}},
        {"poro", {RE_PORO}},
        {"viking", {RE_PORO, R"(\p{N})"}},
        {"tekken",
         {R"([^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)"}},
        // Gemma 4: spaces are already '▁'; only runs of line breaks are cut
        // from the rest (merges never cross a '\n').
        {"gemma4", {R"([^\n]+|[\n]+)"}},
        {"chameleon",
         {R"(<sentinel:[0-9]+>)", R"((IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z)", R"(([\t\n]|    |  ))", R"(\p{N})",
          R"([\p{P}!-/:-@\[-`{-~])", RE_GPT2}},
    };
    return sets;
}

struct PreEntry {
    const char *pre;
    const char *regexSet;
    bool ignoreMerges;
    bool addBos;
    bool cleanSpaces;
    bool noBos;
};

// `tokenizer.ggml.pre` -> behaviour, as the reference's load() maps them.
constexpr PreEntry PRE_TABLE[] = {
    {"default", "default", false, false, true, false},
    {"llama3", "llama3", true, true, true, false},
    {"llama-v3", "llama3", true, true, true, false},
    {"llama-bpe", "llama3", true, true, true, false},
    {"falcon3", "llama3", true, true, true, false},
    {"dbrx", "llama3", false, false, true, false},
    {"smaug-bpe", "llama3", false, false, true, false},
    {"chatglm-bpe", "llama3", false, false, true, true},
    {"deepseek-llm", "deepseek-llm", false, false, false, false},
    {"deepseek-coder", "deepseek-coder", false, false, false, false},
    {"deepseek-v3", "deepseek-v3", false, false, false, false},
    {"falcon", "falcon", false, false, true, false},
    {"mpt", "gpt2", false, false, true, false},
    {"olmo", "gpt2", false, false, true, false},
    {"jais", "gpt2", false, false, true, false},
    {"gpt-2", "gpt2", false, false, true, false},
    {"phi-2", "gpt2", false, false, true, false},
    {"jina-es", "gpt2", false, false, true, false},
    {"jina-de", "gpt2", false, false, true, false},
    {"gigachat", "gpt2", false, false, true, false},
    {"jina-v1-en", "gpt2", false, false, true, false},
    {"jina-v2-es", "gpt2", false, false, true, false},
    {"jina-v2-de", "gpt2", false, false, true, false},
    {"jina-v2-code", "gpt2", false, false, true, false},
    {"roberta-bpe", "gpt2", false, false, true, false},
    {"starcoder", "starcoder", false, false, true, false},
    {"refact", "starcoder", false, false, true, false},
    {"command-r", "starcoder", false, false, false, false},
    {"smollm", "starcoder", false, false, false, false},
    {"codeshell", "starcoder", false, false, true, false},
    {"exaone", "starcoder", false, false, true, false},
    {"minerva-7b", "starcoder", false, false, true, false},
    {"qwen2", "qwen2", false, false, false, false},
    {"kormo", "qwen2", false, false, false, false},
    {"qwen35", "qwen35", false, false, false, false},
    {"gpt-4o", "gpt4o", false, false, false, false},
    {"llama4", "gpt4o", false, false, false, false},
    {"kanana2", "gpt4o", false, false, false, false},
    {"glm4", "llama3", false, false, true, true},
    {"exaone4", "gpt2", false, false, true, false},
    {"falcon-h1", "llama3", true, true, true, false},
    {"pixtral", "llama3", true, true, true, false},
    {"lfm2", "llama3", true, true, true, false},
    {"deepseek-r1-qwen", "qwen2", false, false, false, false},
    {"stablelm2", "qwen2", false, false, true, false},
    {"megrez", "qwen2", false, false, true, false},
    {"poro-chat", "poro", false, false, false, false},
    {"bloom", "poro", false, false, true, false},
    {"gpt3-finnish", "poro", false, false, true, false},
    {"viking", "viking", false, false, false, false},
    {"tekken", "tekken", true, true, false, false},
    {"chameleon", "chameleon", false, true, false, false},
    {"gemma4", "gemma4", false, true, true, false},
};

struct CodeDeleter {
    void operator()(pcre2_code *c) const { pcre2_code_free(c); }
};
struct MatchDataDeleter {
    void operator()(pcre2_match_data *m) const { pcre2_match_data_free(m); }
};
struct MatchContextDeleter {
    void operator()(pcre2_match_context *m) const { pcre2_match_context_free(m); }
};
struct JitStackDeleter {
    void operator()(pcre2_jit_stack *s) const { pcre2_jit_stack_free(s); }
};

// A piece of the text being split: [offset, offset + length). `raw` pieces
// (single invalid UTF-8 bytes) are passed through untouched.
struct Piece {
    size_t offset;
    size_t length;
    bool raw;
};

} // namespace

Result<PreTokenizerInfo> lookupPreTokenizer(std::string_view pre)
{
    std::string_view key = pre;
    if (key.empty()) {
        logMessage(LogLevel::LOG_LEVEL_WARN,
                   "tokenizer: no tokenizer.ggml.pre in the file; using the 'default' pre-tokenizer "
                   "(text may be split differently from how the model was trained)");
        key = "default";
    }
    for (const PreEntry &e : PRE_TABLE) {
        if (key == e.pre) {
            PreTokenizerInfo info;
            info.name = std::string(pre);
            info.regexSet = e.regexSet;
            info.ignoreMerges = e.ignoreMerges;
            info.addBos = e.addBos;
            info.cleanSpaces = e.cleanSpaces;
            info.noBos = e.noBos;
            return info;
        }
    }
    return Status::error("unknown pre-tokenizer '" + std::string(pre) +
                         "' (tokenizer.ggml.pre); this vocabulary needs a pre-tokenizer Burrow does not know");
}

std::vector<std::string> knownPreTokenizers()
{
    std::vector<std::string> names;
    for (const PreEntry &e : PRE_TABLE)
        names.emplace_back(e.pre);
    return names;
}

struct PreTokenizer::Private {
    std::vector<std::string> expressions;
    std::vector<std::unique_ptr<pcre2_code, CodeDeleter>> codes;
};

PreTokenizer::PreTokenizer() : d(std::make_unique<Private>()) {}
PreTokenizer::~PreTokenizer() = default;

const std::vector<std::string> &PreTokenizer::expressions() const { return d->expressions; }

Result<std::unique_ptr<PreTokenizer>> PreTokenizer::create(const std::string &regexSet)
{
    const auto &sets = regexSets();
    const auto it = std::find_if(sets.begin(), sets.end(), [&](const RegexSet &s) { return regexSet == s.name; });
    if (it == sets.end())
        return Status::error("pre-tokenizer: unknown expression set '" + regexSet + "'");

    std::unique_ptr<PreTokenizer> p(new PreTokenizer());
    for (const std::string &expr : it->expressions) {
        int errorCode = 0;
        PCRE2_SIZE errorOffset = 0;
        pcre2_code *code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(expr.data()), expr.size(),
                                         PCRE2_UTF | PCRE2_UCP | PCRE2_DOLLAR_ENDONLY, &errorCode, &errorOffset,
                                         nullptr);
        if (!code) {
            PCRE2_UCHAR message[256];
            pcre2_get_error_message(errorCode, message, sizeof message);
            return Status::error("pre-tokenizer '" + regexSet + "': expression '" + expr + "' does not compile at " +
                                 std::to_string(errorOffset) + ": " + reinterpret_cast<const char *>(message));
        }
        // JIT is an optimisation; the interpreter gives the same matches.
        (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
        p->d->codes.emplace_back(code);
        p->d->expressions.push_back(expr);
    }
    return p;
}

void PreTokenizer::split(std::string_view text, std::vector<std::string_view> &words) const
{
    if (text.empty())
        return;

    // Valid stretches and single invalid bytes.
    std::vector<Piece> pieces;
    {
        size_t pos = 0, runStart = 0;
        while (pos < text.size()) {
            if (static_cast<uint8_t>(text[pos]) < 0x80) {
                ++pos;
                continue;
            }
            const Utf8Sequence seq = utf8Decode(text, pos);
            if (seq.status == Utf8Status::UTF8_STATUS_VALID) {
                pos += seq.length;
                continue;
            }
            if (pos > runStart)
                pieces.push_back({runStart, pos - runStart, false});
            pieces.push_back({pos, 1, true});
            ++pos;
            runStart = pos;
        }
        if (pos > runStart)
            pieces.push_back({runStart, pos - runStart, false});
    }

    std::unique_ptr<pcre2_match_context, MatchContextDeleter> context(pcre2_match_context_create(nullptr));
    std::unique_ptr<pcre2_jit_stack, JitStackDeleter> jitStack(pcre2_jit_stack_create(32 * 1024, 4 * 1024 * 1024, nullptr));
    if (context && jitStack)
        pcre2_jit_stack_assign(context.get(), nullptr, jitStack.get());

    std::vector<Piece> next;
    for (const auto &code : d->codes) {
        std::unique_ptr<pcre2_match_data, MatchDataDeleter> match(
            pcre2_match_data_create_from_pattern(code.get(), nullptr));
        if (!match)
            break;  // out of memory: leave the pieces as they are
        next.clear();
        next.reserve(pieces.size() * 2);
        for (const Piece &piece : pieces) {
            if (piece.raw) {
                next.push_back(piece);
                continue;
            }
            const auto *subject = reinterpret_cast<PCRE2_SPTR>(text.data() + piece.offset);
            size_t start = 0, last = 0;
            while (start < piece.length) {
                const int rc = pcre2_match(code.get(), subject, piece.length, start, PCRE2_NO_UTF_CHECK,
                                           match.get(), context.get());
                if (rc < 0)
                    break;  // no (further) match; an error leaves the rest as one piece
                const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(match.get());
                const size_t ms = ov[0], me = ov[1];
                if (me <= ms) {
                    // Empty match (none of the table's expressions has one):
                    // step over one character.
                    if (ms >= piece.length)
                        break;
                    start = ms + utf8LengthFromLeadByte(static_cast<uint8_t>(subject[ms]));
                    continue;
                }
                if (ms > last)
                    next.push_back({piece.offset + last, ms - last, false});
                next.push_back({piece.offset + ms, me - ms, false});
                last = start = me;
            }
            if (last < piece.length)
                next.push_back({piece.offset + last, piece.length - last, false});
        }
        pieces.swap(next);
    }

    words.reserve(words.size() + pieces.size());
    for (const Piece &piece : pieces)
        words.push_back(text.substr(piece.offset, piece.length));
}

} // namespace burrow::tokenizer
