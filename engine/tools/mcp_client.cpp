#include "mcp_client.h"

#include <cerrno>
#include <cstdio>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace burrow::cli {

namespace {

using json = nlohmann::json;

long long nowMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

bool readMcpConfig(const std::string &path, std::vector<McpServerConfig> *servers, std::string *error)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 20)) {
        *error = path + ": not a readable file of at most 1 MiB";
        return false;
    }
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const json doc = json::parse(text.str(), nullptr, false);
    if (!doc.is_object() || !doc.contains("mcpServers") || !doc["mcpServers"].is_object()) {
        *error = path + ": expected {\"mcpServers\": {\"name\": {\"command\": ..., \"args\": [...]}}}";
        return false;
    }
    for (const auto &[name, s] : doc["mcpServers"].items()) {
        McpServerConfig c;
        c.name = name;
        if (!s.is_object()) {
            *error = path + ": mcpServers." + name + " is not an object";
            return false;
        }
        if (s.contains("url") && s["url"].is_string()) {
            c.url = s["url"].get<std::string>();
        } else if (s.contains("command") && s["command"].is_string() && !s["command"].get<std::string>().empty()) {
            c.command = s["command"].get<std::string>();
            if (s.contains("args") && s["args"].is_array())
                for (const json &a : s["args"])
                    if (a.is_string())
                        c.args.push_back(a.get<std::string>());
            if (s.contains("env") && s["env"].is_object())
                for (const auto &[k, v] : s["env"].items())
                    if (v.is_string())
                        c.env.emplace_back(k, v.get<std::string>());
        } else {
            *error = path + ": mcpServers." + name + " has neither a command nor a url";
            return false;
        }
        if (s.contains("timeout")) {
            if (!s["timeout"].is_number() || s["timeout"].get<double>() < 1 || s["timeout"].get<double>() > 600) {
                *error = path + ": mcpServers." + name + ".timeout is seconds, 1..600";
                return false;
            }
            c.timeoutMs = static_cast<int>(s["timeout"].get<double>() * 1000);
        }
        servers->push_back(std::move(c));
    }
    if (servers->empty()) {
        *error = path + ": mcpServers lists no server";
        return false;
    }
    return true;
}

McpStdioClient::~McpStdioClient()
{
    stop();
}

void McpStdioClient::stop()
{
    if (m_in >= 0)
        ::close(m_in);
    if (m_out >= 0)
        ::close(m_out);
    m_in = m_out = -1;
    if (m_pid > 0) {
        ::kill(m_pid, SIGTERM);
        int status = 0;
        for (int i = 0; i < 50 && ::waitpid(m_pid, &status, WNOHANG) == 0; ++i)
            ::usleep(20000);
        if (::waitpid(m_pid, &status, WNOHANG) == 0) {
            ::kill(m_pid, SIGKILL);
            ::waitpid(m_pid, &status, 0);
        }
    }
    m_pid = -1;
}

bool McpStdioClient::start(std::string *error)
{
    const int timeoutMs = m_config.timeoutMs > 0 ? m_config.timeoutMs : 20000;
    if (!m_config.url.empty()) {
        *error = "the server \"" + m_config.name + "\" is a URL; burrow-cli speaks to stdio servers only (the app speaks both)";
        return false;
    }
    std::signal(SIGPIPE, SIG_IGN);   // a server that ended makes a write fail, not this process
    int toChild[2], fromChild[2];
    if (::pipe(toChild) != 0 || ::pipe(fromChild) != 0) {
        *error = std::string("cannot make a pipe: ") + std::strerror(errno);
        return false;
    }
    std::vector<std::string> argv{m_config.command};
    argv.insert(argv.end(), m_config.args.begin(), m_config.args.end());
    m_pid = ::fork();
    if (m_pid == 0) {
        ::dup2(toChild[0], 0);
        ::dup2(fromChild[1], 1);
        const int devnull = ::open("/dev/null", O_WRONLY);
        if (devnull >= 0)
            ::dup2(devnull, 2);   // its log would mix with the chat
        for (int fd : {toChild[0], toChild[1], fromChild[0], fromChild[1]})
            ::close(fd);
        for (const auto &[k, v] : m_config.env)
            ::setenv(k.c_str(), v.c_str(), 1);
        std::vector<char *> raw;
        for (std::string &a : argv)
            raw.push_back(a.data());
        raw.push_back(nullptr);
        ::execvp(raw[0], raw.data());
        ::_exit(127);
    }
    ::close(toChild[0]);
    ::close(fromChild[1]);
    m_in = toChild[1];
    m_out = fromChild[0];
    if (m_pid < 0) {
        *error = std::string("cannot start a process: ") + std::strerror(errno);
        return false;
    }
    json result;
    const json init{{"protocolVersion", "2025-03-26"},
                    {"capabilities", json::object()},
                    {"clientInfo", {{"name", "burrow-cli"}, {"version", "1"}}}};
    if (!request("initialize", init, &result, error, timeoutMs))
        return false;
    if (!send(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, error))
        return false;
    if (!request("tools/list", json::object(), &result, error, timeoutMs))
        return false;
    m_tools = json::array();
    if (result.contains("tools") && result["tools"].is_array())
        for (const json &t : result["tools"])
            if (t.is_object() && t.contains("name") && t["name"].is_string() && m_tools.size() < 256)
                m_tools.push_back(t);
    return true;
}

bool McpStdioClient::call(const std::string &name, const json &arguments, std::string *text, bool *isError,
                          std::string *error)
{
    const int timeoutMs = m_config.timeoutMs > 0 ? m_config.timeoutMs : 60000;
    json result;
    if (!request("tools/call", json{{"name", name}, {"arguments", arguments}}, &result, error, timeoutMs))
        return false;
    text->clear();
    if (result.contains("content") && result["content"].is_array())
        for (const json &c : result["content"]) {
            if (!c.is_object())
                continue;
            if (!text->empty())
                *text += "\n";
            if (c.value("type", "") == "text" && c.contains("text") && c["text"].is_string())
                *text += c["text"].get<std::string>();
            else
                *text += "[" + c.value("type", std::string("unknown")) + " content, not shown]";
        }
    *isError = result.value("isError", false);
    return true;
}

bool McpStdioClient::send(const json &message, std::string *error)
{
    if (m_in < 0) {
        *error = "the tool server \"" + m_config.name + "\" is not running";
        return false;
    }
    const std::string line = message.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    size_t done = 0;
    while (done < line.size()) {
        const ssize_t n = ::write(m_in, line.data() + done, line.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            *error = ended();
            return false;
        }
        done += size_t(n);
    }
    return true;
}

std::string McpStdioClient::ended()
{
    std::string why = "the tool server \"" + m_config.name + "\" ended";
    int status = 0;
    // Its output closed: it is ending; its status, within half a second.
    pid_t done = 0;
    for (int i = 0; m_pid > 0 && i < 50 && (done = ::waitpid(m_pid, &status, WNOHANG)) == 0; ++i)
        ::usleep(10000);
    if (m_pid > 0 && done == m_pid) {
        m_pid = -1;
        if (WIFEXITED(status))
            why += " (exit status " + std::to_string(WEXITSTATUS(status)) + (WEXITSTATUS(status) == 127 ? ": could it be started?" : "") + ")";
        else if (WIFSIGNALED(status))
            why += " (signal " + std::to_string(WTERMSIG(status)) + ")";
    }
    stop();
    return why;
}

bool McpStdioClient::readLine(std::string *line, long long deadlineMs, std::string *error)
{
    for (;;) {
        const size_t end = m_buffer.find('\n');
        if (end != std::string::npos) {
            *line = m_buffer.substr(0, end);
            m_buffer.erase(0, end + 1);
            return true;
        }
        if (m_buffer.size() > MaxMessageBytes) {
            *error = "the tool server \"" + m_config.name + "\" sent a message over 4 MiB; it was stopped";
            stop();
            return false;
        }
        const long long left = deadlineMs - nowMs();
        if (m_out < 0) {
            *error = "the tool server \"" + m_config.name + "\" is not running";
            return false;
        }
        if (left <= 0)
            return false;   // the caller names the timeout
        pollfd p{m_out, POLLIN, 0};
        const int ready = ::poll(&p, 1, int(std::min<long long>(left, 1000)));
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            continue;
        char chunk[65536];
        const ssize_t n = ::read(m_out, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            *error = ended();
            return false;
        }
        m_buffer.append(chunk, size_t(n));
    }
}

bool McpStdioClient::request(const std::string &method, const json &params, json *result, std::string *error,
                             int timeoutMs)
{
    const long long id = m_nextId++;
    if (!send(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}, error))
        return false;
    const long long deadline = nowMs() + timeoutMs;
    std::string garbage;
    std::string line;
    for (;;) {
        error->clear();
        if (!readLine(&line, deadline, error)) {
            if (error->empty()) {
                char seconds[32];
                std::snprintf(seconds, sizeof seconds, "%g", timeoutMs / 1000.0);
                *error = "the tool server \"" + m_config.name + "\" did not answer " + method + " within " + seconds + " s";
                if (!garbage.empty())
                    *error += " (it wrote text that is not a JSON-RPC message: \"" + garbage + "\")";
            }
            return false;
        }
        const json message = json::parse(line, nullptr, false);
        if (!message.is_object()) {
            if (garbage.empty())
                garbage = line.substr(0, 80);
            continue;
        }
        if (!message.contains("id") || message.contains("method") || message["id"] != id)
            continue;   // a notification, or a request of the server's
        if (message.contains("error")) {
            const json &e = message["error"];
            *error = "the tool server refused: " +
                     (e.is_object() && e.contains("message") && e["message"].is_string() ? e["message"].get<std::string>().substr(0, 500)
                                                                                       : std::string("(no message)"));
            return false;
        }
        *result = message.contains("result") && message["result"].is_object() ? message["result"] : json::object();
        return true;
    }
}

} // namespace burrow::cli
