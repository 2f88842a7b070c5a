// Reading burrow-cli options: one option at a time, its value as text or a
// number (errors printed as "burrow-cli COMMAND: ..."), and the generation
// options that `run` and `chat` share.
#pragma once

#include "burrow/engine.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace burrow::cli {

class ArgReader {
public:
    ArgReader(const char *command, const std::vector<std::string> &args) : m_command(command), m_args(args) {}

    // Moves to the next option; false after the last one.
    bool next() { return ++m_index < m_args.size(); }
    const std::string &option() const { return m_args[m_index]; }

    // The current option's value (the next argument); false, with a message, when there is none.
    bool value(std::string *out)
    {
        if (m_index + 1 >= m_args.size()) {
            std::fprintf(stderr, "burrow-cli %s: %s needs a value\n", m_command, option().c_str());
            return false;
        }
        const std::string &name = option();
        *out = m_args[++m_index];
        m_lastOption = name;
        return true;
    }
    bool integer(long *out)
    {
        std::string v;
        if (!value(&v))
            return false;
        char *end = nullptr;
        *out = std::strtol(v.c_str(), &end, 10);
        if (v.empty() || !end || *end != '\0') {
            std::fprintf(stderr, "burrow-cli %s: %s expects an integer, got '%s'\n", m_command, m_lastOption.c_str(), v.c_str());
            return false;
        }
        return true;
    }
    bool real(float *out)
    {
        std::string v;
        if (!value(&v))
            return false;
        char *end = nullptr;
        *out = std::strtof(v.c_str(), &end);
        if (v.empty() || !end || *end != '\0') {
            std::fprintf(stderr, "burrow-cli %s: %s expects a number, got '%s'\n", m_command, m_lastOption.c_str(), v.c_str());
            return false;
        }
        return true;
    }

private:
    const char *m_command;
    const std::vector<std::string> &m_args;
    size_t m_index = size_t(-1);
    std::string m_lastOption;
};

// -n, --temp, --top-k, --top-p, --min-p, --repeat-penalty, --seed, -t, -c.
struct GenerationOptions {
    long n = -1;          // tokens to generate (-1: until end of generation)
    long threads = 0;     // 0: all physical cores
    long ctx = 4096;
    long seed = -1;       // -1: random
    burrow::SamplingParams sampling;
};

// 1: the current option was a generation option and was read; 0: it is not
// one; -1: its value was bad (message printed).
inline int readGenerationOption(ArgReader &args, GenerationOptions *g)
{
    const std::string a = args.option();
    long k = 0;
    bool ok = true;
    if (a == "-n" || a == "--n-predict")
        ok = args.integer(&g->n);
    else if (a == "--temp")
        ok = args.real(&g->sampling.temperature);
    else if (a == "--top-k") {
        ok = args.integer(&k);
        g->sampling.topK = static_cast<int32_t>(k);
    } else if (a == "--top-p")
        ok = args.real(&g->sampling.topP);
    else if (a == "--min-p")
        ok = args.real(&g->sampling.minP);
    else if (a == "--repeat-penalty")
        ok = args.real(&g->sampling.repeatPenalty);
    else if (a == "--seed")
        ok = args.integer(&g->seed);
    else if (a == "-t" || a == "--threads")
        ok = args.integer(&g->threads);
    else if (a == "-c" || a == "--ctx-size")
        ok = args.integer(&g->ctx);
    else
        return 0;
    return ok ? 1 : -1;
}

} // namespace burrow::cli
