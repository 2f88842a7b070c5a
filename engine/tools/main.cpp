// burrow-cli: the engine from the command line. Dispatches to the commands
// registered in cmd_*.cpp.
#include "cli_command.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#ifndef BURROW_VERSION
#define BURROW_VERSION "0.0.0"
#endif

namespace burrow::cli {

static std::map<std::string, Command> &commands()
{
    static std::map<std::string, Command> table;
    return table;
}

bool registerCommand(const Command &command)
{
    commands()[command.name] = command;
    return true;
}

} // namespace burrow::cli

static void printUsage(FILE *out)
{
    std::fprintf(out, "usage: burrow-cli COMMAND [options]\n\ncommands:\n");
    for (const auto &[name, command] : burrow::cli::commands())
        std::fprintf(out, "  %-10s %s\n", name.c_str(), command.summary);
    std::fprintf(out, "\nburrow-cli COMMAND --help shows a command's options.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        printUsage(stderr);
        return 2;
    }
    const std::string name = argv[1];
    if (name == "--help" || name == "-h" || name == "help") {
        printUsage(stdout);
        return 0;
    }
    if (name == "--version") {
        std::printf("burrow-cli %s\n", BURROW_VERSION);
        return 0;
    }
    const auto &table = burrow::cli::commands();
    const auto it = table.find(name);
    if (it == table.end()) {
        std::fprintf(stderr, "burrow-cli: unknown command '%s'\n", name.c_str());
        printUsage(stderr);
        return 2;
    }
    const std::vector<std::string> args(argv + 2, argv + argc);
    return it->second.run(args);
}
