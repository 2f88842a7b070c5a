// burrow-cli serve -m MODEL [--host 127.0.0.1] [--port 8080] [--parallel N]
// [--ctx-size N] [-t THREADS] [--api-key KEY] ...: an OpenAI-compatible HTTP
// server (engine/src/server) over a Scheduler on MODEL, until SIGINT or
// SIGTERM. The first line on stdout is "listening on URL" (with --port 0 it
// names the port chosen); one line per request goes to stderr.
#include "cli_args.h"
#include "cli_command.h"

#include "burrow/engine.h"
#include "burrow/server.h"

#include <csignal>
#include <cstdio>
#include <fstream>
#include <pthread.h>
#include <string>
#include <vector>

namespace {

using namespace burrow::cli;

void printHelp(FILE *out)
{
    std::fprintf(out,
                 "usage: burrow-cli serve -m MODEL [--host ADDR] [--port N] [--parallel N] [-c CTX] [-t THREADS]\n"
                 "                        [--api-key KEY | --api-key-file FILE] [--cors-origin ORIGIN]...\n"
                 "                        [--allowed-host NAME]... [--alias NAME] [--max-queued N] [-fa on|off]\n"
                 "                        [-ctk f16|q8_0 -ctv f16|q8_0]\n\n"
                 "Serves MODEL over an OpenAI-compatible HTTP API (GET /v1/models, POST /v1/chat/completions,\n"
                 "POST /v1/completions, GET /health) until Ctrl+C. Several requests are generated at\n"
                 "once (--parallel); more wait in a queue (--max-queued), and beyond that the server\n"
                 "answers 503 with Retry-After. docs/server.md has the fields, limits and defaults.\n\n"
                 "options:\n"
                 "  -m, --model MODEL       the .gguf file\n"
                 "  --host ADDR             the address to listen on (default 127.0.0.1: this machine only;\n"
                 "                          0.0.0.0 or a LAN address needs --api-key or --allow-no-key)\n"
                 "  --port N                the port (default 8080; 0: any free port, shown on stdout)\n"
                 "  --parallel N            requests generated at once, and the largest n (default 4)\n"
                 "  -c, --ctx-size N        context per request: prompt and reply (default 4096, at most the model's)\n"
                 "  -t, --threads N         threads (default: the physical cores)\n"
                 "  -fa, --flash-attn on|off  attention as the reference computes it with or without flash attention\n"
                 "%s%s"
                 "  --api-key KEY           require \"Authorization: Bearer KEY\" (all endpoints but /health)\n"
                 "  --api-key-file FILE     the same, the key read from FILE's first line (kept out of ps)\n"
                 "  --allow-no-key          listen beyond loopback without a key\n"
                 "  --cors-origin ORIGIN    let web pages from ORIGIN call the API (repeatable; * for any);\n"
                 "                          requests from other origins are refused (403)\n"
                 "  --allowed-host NAME     accept Host: NAME (repeatable; .example.org for a domain; * for any);\n"
                 "                          IP addresses, localhost and this machine's name always pass\n"
                 "  --alias NAME            the model's id in /v1/models (default: the file name without .gguf)\n"
                 "  --max-queued N          requests waiting beyond --parallel before 503 (default 64)\n"
                 "  --timeout SECONDS       to send a whole request, and idle time on a kept-alive connection (default 30)\n"
                 "  --keep-alive SECONDS    \": keep-alive\" on a silent stream after this long (default 5; 0: never)\n"
                 "  --quiet                 no line per request on stderr\n"
                 "  -h, --help              show this help\n\n"
                 "exit status: 0 stopped by a signal, 1 failed (message on stderr), 2 usage error\n",
                 kCacheTypeHelp, kSpeculativeHelp);
}

bool isLoopback(const std::string &host)
{
    return host.rfind("127.", 0) == 0 || host == "::1" || host == "localhost";
}

int runServe(const std::vector<std::string> &args)
{
    std::string modelPath, host = "127.0.0.1", keyFile;
    long port = 8080, parallel = 4, maxQueued = 64;
    float timeout = 30, keepAlive = 5;
    bool allowNoKey = false, quiet = false;
    burrow::server::ServerOptions options;
    GenerationOptions gen;
    ArgReader reader("serve", args);
    while (reader.next()) {
        const std::string &a = reader.option();
        std::string v;
        if (a == "-t" || a == "--threads" || a == "-c" || a == "--ctx-size" || a == "-fa" || a == "--flash-attn" ||
            isCacheTypeOption(a) || a == "--spec" || a == "--draft-max" || a == "--draft") {
            if (readGenerationOption(reader, &gen) < 0)
                return 2;
        } else if (a == "-h" || a == "--help") {
            printHelp(stdout);
            return 0;
        } else if (a == "-m" || a == "--model") {
            if (!reader.value(&modelPath)) return 2;
        } else if (a == "--host") {
            if (!reader.value(&host)) return 2;
        } else if (a == "--port") {
            if (!reader.integer(&port)) return 2;
        } else if (a == "--parallel" || a == "-np") {
            if (!reader.integer(&parallel)) return 2;
        } else if (a == "--max-queued") {
            if (!reader.integer(&maxQueued)) return 2;
        } else if (a == "--api-key") {
            if (!reader.value(&options.apiKey)) return 2;
        } else if (a == "--api-key-file") {
            if (!reader.value(&keyFile)) return 2;
        } else if (a == "--allow-no-key") {
            allowNoKey = true;
        } else if (a == "--cors-origin") {
            if (!reader.value(&v)) return 2;
            options.corsOrigins.push_back(v);
        } else if (a == "--allowed-host") {
            if (!reader.value(&v)) return 2;
            options.allowedHosts.push_back(v);
        } else if (a == "--alias") {
            if (!reader.value(&options.modelId)) return 2;
        } else if (a == "--timeout") {
            if (!reader.real(&timeout)) return 2;
        } else if (a == "--keep-alive") {
            if (!reader.real(&keepAlive)) return 2;
        } else if (a == "--quiet") {
            quiet = true;
        } else {
            std::fprintf(stderr, "burrow-cli serve: unknown option '%s'\n", a.c_str());
            printHelp(stderr);
            return 2;
        }
    }
    if (modelPath.empty()) {
        std::fprintf(stderr, "burrow-cli serve: -m MODEL is required\n");
        printHelp(stderr);
        return 2;
    }
    if (!checkGenerationOptions("serve", &gen))
        return 2;
    if (port < 0 || port > 65535 || parallel < 1 || parallel > 256 || maxQueued < 0 || maxQueued > 100000 ||
        !(timeout > 0 && timeout <= 3600) || !(keepAlive >= 0 && keepAlive <= 3600)) {
        std::fprintf(stderr, "burrow-cli serve: --port must be 0..65535, --parallel 1..256, --max-queued 0..100000,\n"
                             "  --timeout 0..3600 (above 0) and --keep-alive 0..3600 seconds\n");
        return 2;
    }
    if (!keyFile.empty()) {
        std::ifstream in(keyFile);
        if (!in || !std::getline(in, options.apiKey)) {
            std::fprintf(stderr, "burrow-cli serve: cannot read the key from %s\n", keyFile.c_str());
            return 1;
        }
        while (!options.apiKey.empty() && (options.apiKey.back() == '\r' || options.apiKey.back() == ' '))
            options.apiKey.pop_back();
        if (options.apiKey.empty()) {
            std::fprintf(stderr, "burrow-cli serve: %s holds an empty key\n", keyFile.c_str());
            return 1;
        }
    }
    if (!isLoopback(host) && options.apiKey.empty() && !allowNoKey) {
        std::fprintf(stderr, "burrow-cli serve: --host %s lets other machines in; give --api-key KEY "
                             "(or --allow-no-key to serve without one)\n", host.c_str());
        return 2;
    }
    options.host = host == "localhost" ? "127.0.0.1" : host;
    options.port = static_cast<uint16_t>(port);
    options.maxChoices = static_cast<int32_t>(parallel);
    options.limits.requestTimeoutSeconds = timeout;
    options.keepAliveSeconds = keepAlive;
    options.speculative = gen.speculative;
    if (!quiet)
        options.log = [](std::string_view line) {
            std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()), line.data());
        };

    // SIGINT / SIGTERM are taken by sigwait below; every thread started
    // from here on inherits the blocked mask.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);

    auto model = burrow::Model::load(modelPath);
    if (!model) {
        std::fprintf(stderr, "burrow-cli serve: %s\n", model.message().c_str());
        return 1;
    }
    burrow::SchedulerOptions so;
    so.contextSize = static_cast<uint32_t>(gen.ctx);
    so.parallel = static_cast<int32_t>(parallel);
    so.threads = static_cast<int32_t>(gen.threads);
    so.flashAttention = gen.flashAttention;
    so.kvCacheType = gen.kvCacheType;
    so.maxQueued = static_cast<int32_t>(maxQueued);
    auto scheduler = burrow::Scheduler::create(model.value(), so);
    if (!scheduler) {
        std::fprintf(stderr, "burrow-cli serve: %s\n", scheduler.message().c_str());
        return 1;
    }
    if (!burrow::cli::reportDraftModel("serve", *model.value(), gen.speculative, scheduler.value()->options().contextSize,
                                       static_cast<uint32_t>(parallel), gen.kvCacheType))
        return 1;
    auto server = burrow::server::Server::start(model.value(), scheduler.value(), options);
    if (!server) {
        std::fprintf(stderr, "burrow-cli serve: %s\n", server.message().c_str());
        return 1;
    }
    std::printf("listening on %s\n", server.value()->url().c_str());
    std::fflush(stdout);
    const burrow::SchedulerOptions &used = scheduler.value()->options();
    std::fprintf(stderr,
                 "burrow-cli serve: model '%s', %u positions per request, %ld at once, KV cache %s %.1f MiB, %s\n",
                 server.value()->modelId().c_str(), used.contextSize, parallel, burrow::kvCacheTypeName(used.kvCacheType),
                 static_cast<double>(model.value()->info().kvCacheBytes(used.kvPositions, used.kvCacheType)) / (1 << 20),
                 options.apiKey.empty() ? "no API key" : "API key required");
    int received = 0;
    sigwait(&signals, &received);
    std::fprintf(stderr, "burrow-cli serve: stopping (%s)\n", received == SIGINT ? "SIGINT" : "SIGTERM");
    server.value().reset();      // closes the connections, cancels their requests
    scheduler.value().reset();   // joins the scheduler thread
    return 0;
}

} // namespace

BURROW_CLI_COMMAND(serve, "serve", "an OpenAI-compatible HTTP server for the model (chat and completions)", runServe);
