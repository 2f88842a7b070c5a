// burrow-cli tokenize -m MODEL [--ids] [--no-bos] [--special] (-p TEXT | -f FILE | --stdin)
// Text -> token ids with the model's own tokenizer (see docs/cli.md).
#include "cli_command.h"

#include "gguf/gguf_reader.h"
#include "tokenizer/tokenizer.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace {

void printHelp(FILE *out)
{
    std::fprintf(out,
                 "usage: burrow-cli tokenize -m MODEL [--ids] [--no-bos] [--special] (-p TEXT | -f FILE | --stdin)\n\n"
                 "Tokenizes text with the vocabulary of the GGUF file MODEL (a whole model or a\n"
                 "vocabulary-only file) and prints the tokens, one per line: id, then the\n"
                 "token's bytes in quotes (non-printable bytes as \\xNN).\n\n"
                 "options:\n"
                 "  -m, --model MODEL  the GGUF file\n"
                 "  -p, --prompt TEXT  the text to tokenize\n"
                 "  -f, --file FILE    read the text from FILE (bytes as they are)\n"
                 "  --stdin            read the text from standard input\n"
                 "  --ids              print only the ids, on one line, separated by spaces\n"
                 "  --no-bos           do not add BOS (default: added when the vocabulary says so)\n"
                 "  --special          parse special tokens written in the text (<|im_start|>)\n"
                 "  -h, --help         show this help\n\n"
                 "exit status: 0 ok, 1 the file was refused or unreadable (message on stderr), 2 usage error\n");
}

// A piece for humans: printable ASCII and valid UTF-8 as is, the rest escaped.
std::string printable(const std::string &bytes)
{
    std::string out;
    for (size_t i = 0; i < bytes.size();) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        if (c == '\\') {
            out += "\\\\";
            ++i;
        } else if (c == '\n') {
            out += "\\n";
            ++i;
        } else if (c == '\t') {
            out += "\\t";
            ++i;
        } else if (c == '\r') {
            out += "\\r";
            ++i;
        } else if (c >= 0x20 && c < 0x7F) {
            out += static_cast<char>(c);
            ++i;
        } else {
            // Keep a complete, valid multi-byte sequence; escape anything else.
            size_t need = 0;
            if (c >= 0xC2 && c <= 0xDF)
                need = 2;
            else if (c >= 0xE0 && c <= 0xEF)
                need = 3;
            else if (c >= 0xF0 && c <= 0xF4)
                need = 4;
            bool ok = need > 0 && i + need <= bytes.size();
            for (size_t k = 1; ok && k < need; ++k)
                ok = (static_cast<unsigned char>(bytes[i + k]) & 0xC0) == 0x80;
            if (ok) {
                out.append(bytes, i, need);
                i += need;
            } else {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\x%02X", c);
                out += buf;
                ++i;
            }
        }
    }
    return out;
}

int runTokenize(const std::vector<std::string> &args)
{
    std::string model, text, file;
    bool haveText = false, fromStdin = false, idsOnly = false, noBos = false, special = false;
    int sources = 0;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string &a = args[i];
        auto value = [&](const char *name) -> const std::string * {
            if (i + 1 >= args.size()) {
                std::fprintf(stderr, "burrow-cli tokenize: %s needs a value\n", name);
                return nullptr;
            }
            return &args[++i];
        };
        if (a == "-h" || a == "--help") {
            printHelp(stdout);
            return 0;
        } else if (a == "-m" || a == "--model") {
            const std::string *v = value(a.c_str());
            if (!v)
                return 2;
            model = *v;
        } else if (a == "-p" || a == "--prompt") {
            const std::string *v = value(a.c_str());
            if (!v)
                return 2;
            text = *v;
            haveText = true;
            ++sources;
        } else if (a == "-f" || a == "--file") {
            const std::string *v = value(a.c_str());
            if (!v)
                return 2;
            file = *v;
            ++sources;
        } else if (a == "--stdin") {
            fromStdin = true;
            ++sources;
        } else if (a == "--ids") {
            idsOnly = true;
        } else if (a == "--no-bos") {
            noBos = true;
        } else if (a == "--special") {
            special = true;
        } else {
            std::fprintf(stderr, "burrow-cli tokenize: unknown option '%s'\n", a.c_str());
            printHelp(stderr);
            return 2;
        }
    }
    if (model.empty() || sources != 1) {
        std::fprintf(stderr, "burrow-cli tokenize: need -m MODEL and exactly one of -p TEXT, -f FILE, --stdin\n");
        printHelp(stderr);
        return 2;
    }

    if (!file.empty()) {
        std::ifstream in(file, std::ios::binary);
        if (!in) {
            std::fprintf(stderr, "burrow-cli tokenize: cannot read '%s'\n", file.c_str());
            return 1;
        }
        text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        if (in.bad()) {
            std::fprintf(stderr, "burrow-cli tokenize: error reading '%s'\n", file.c_str());
            return 1;
        }
    } else if (fromStdin) {
        std::ostringstream buffer;
        buffer << std::cin.rdbuf();
        text = buffer.str();
    }
    (void)haveText;

    auto gguf = burrow::gguf::GgufFile::open(model);
    if (!gguf) {
        std::fprintf(stderr, "burrow-cli tokenize: %s\n", gguf.message().c_str());
        return 1;
    }
    auto tokenizer = burrow::tokenizer::Tokenizer::fromGguf(*gguf.value());
    if (!tokenizer) {
        std::fprintf(stderr, "burrow-cli tokenize: %s\n", tokenizer.message().c_str());
        return 1;
    }
    const burrow::tokenizer::Tokenizer &tok = *tokenizer.value();

    std::vector<int32_t> ids = tok.tokenize(text, /*addSpecial=*/!noBos, special);
    // --no-bos only concerns BOS: EOS is still added when the vocabulary asks for it.
    if (noBos && tok.addEos())
        ids.push_back(tok.eos());

    std::string out;
    if (idsOnly) {
        for (size_t i = 0; i < ids.size(); ++i) {
            if (i)
                out += ' ';
            out += std::to_string(ids[i]);
        }
        out += '\n';
    } else {
        for (const int32_t id : ids) {
            char buf[16];
            std::snprintf(buf, sizeof buf, "%6d", id);
            out += buf;
            out += " '";
            out += printable(tok.tokenBytes(id, /*renderSpecial=*/true));
            out += "'\n";
        }
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return std::fflush(stdout) == 0 ? 0 : 1;
}

} // namespace

BURROW_CLI_COMMAND(tokenize, "tokenize", "text -> token ids with a model's tokenizer", runTokenize);
