// The MCP client of `burrow-cli chat --mcp CONFIG`: Qt-free, stdio only
// (the server is a program; JSON-RPC 2.0, one message per line each way).
// The config is the common {"mcpServers": {"name": {"command", "args",
// "env"} | {"url"}}} file; a "url" server is refused with a message (the
// desktop app speaks streamable HTTP too).
//
// Bounds: a message (a line) ≤ 4 MiB, startup (initialize + tools/list)
// ≤ 20 s, a call ≤ 60 s (a server's "timeout", in seconds, sets both); lines that are not JSON-RPC are skipped; a server
// that ends, hangs, or sends more is reported with a sentence and not
// waited on again. Blocking (the CLI has nothing else to do meanwhile).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace burrow::cli {

struct McpServerConfig {
    std::string name;
    std::string command;
    std::vector<std::string> args;
    std::vector<std::pair<std::string, std::string>> env;
    std::string url;   // set: a streamable-HTTP server (refused here)
    int timeoutMs = 0; // "timeout" (seconds, 1..600) for startup and each call; 0: 20 s and 60 s
};

// Reads CONFIG (at most 1 MiB); false with `error` naming what is wrong.
bool readMcpConfig(const std::string &path, std::vector<McpServerConfig> *servers, std::string *error);

class McpStdioClient {
public:
    static constexpr size_t MaxMessageBytes = 4u << 20;

    explicit McpStdioClient(McpServerConfig config) : m_config(std::move(config)) {}
    ~McpStdioClient();
    McpStdioClient(const McpStdioClient &) = delete;
    McpStdioClient &operator=(const McpStdioClient &) = delete;

    const McpServerConfig &config() const { return m_config; }
    // Starts the program, initializes, lists the tools.
    bool start(std::string *error);
    // tools/list's tools ([{name, description, inputSchema}]).
    const nlohmann::json &tools() const { return m_tools; }
    // tools/call: the text of the result (its text parts), isError as the
    // server says; false with `error` when the call itself failed.
    bool call(const std::string &name, const nlohmann::json &arguments, std::string *text, bool *isError,
              std::string *error);

private:
    bool request(const std::string &method, const nlohmann::json &params, nlohmann::json *result, std::string *error,
                 int timeoutMs);
    bool send(const nlohmann::json &message, std::string *error);
    // The next line from the server before `deadlineMs` (steady clock).
    bool readLine(std::string *line, long long deadlineMs, std::string *error);
    std::string ended();
    void stop();

    McpServerConfig m_config;
    nlohmann::json m_tools = nlohmann::json::array();
    pid_t m_pid = -1;
    int m_in = -1;    // the server's stdin
    int m_out = -1;   // the server's stdout
    std::string m_buffer;
    long long m_nextId = 1;
};

} // namespace burrow::cli
