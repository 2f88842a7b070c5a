// burrow-cli subcommands register themselves here: one file per command
// (cmd_<name>.cpp) with a BURROW_CLI_COMMAND at the bottom.
//
// Contract: a command returns the process exit code (0 ok, 1 refused/failed,
// 2 usage error) and prints errors to stderr.
#pragma once

#include <string>
#include <vector>

namespace burrow::cli {

using CommandFn = int (*)(const std::vector<std::string> &args); // args after the command name

struct Command {
    const char *name;
    const char *summary;   // one line for `burrow-cli --help`
    CommandFn run;
};

bool registerCommand(const Command &command);

} // namespace burrow::cli

#define BURROW_CLI_COMMAND(ident, name, summary, fn) \
    static const bool burrow_cli_registered_##ident = ::burrow::cli::registerCommand({name, summary, fn})
