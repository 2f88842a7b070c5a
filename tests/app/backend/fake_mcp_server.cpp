// A tiny MCP server over stdio for tst_mcpclient, misbehaving on request.
// argv[1], the mode:
//   ok       answers initialize, tools/list (echo, big, huge) and tools/call:
//            echo gives its message back, big a 1 MiB text, huge a 5 MiB line
//   garbage  writes lines that are not JSON-RPC before each answer, and
//            answers tools/call with garbage only
//   die      ends (status 3, a line on stderr) when asked tools/call
//   hang     reads everything, answers nothing
//   noinit   answers nothing but writes garbage
// Plain C++: it must not depend on what it tests.
#include <cstdio>
#include <iostream>
#include <string>

namespace {

// The value of "id" in a request line (as written), "" when none.
std::string idOf(const std::string &line)
{
    const auto at = line.find("\"id\":");
    if (at == std::string::npos)
        return {};
    auto end = line.find_first_of(",}", at + 5);
    return line.substr(at + 5, end - at - 5);
}

void answer(const std::string &id, const std::string &result)
{
    std::cout << "{\"jsonrpc\":\"2.0\",\"id\":" << id << ",\"result\":" << result << "}\n" << std::flush;
}

std::string textResult(const std::string &text)
{
    return "{\"content\":[{\"type\":\"text\",\"text\":\"" + text + "\"}]}";
}

} // namespace

int main(int argc, char **argv)
{
    const std::string mode = argc > 1 ? argv[1] : "ok";
    std::string line;
    while (std::getline(std::cin, line)) {
        const std::string id = idOf(line);
        if (mode == "hang")
            continue;
        if (mode == "garbage" || mode == "noinit")
            std::cout << "this is not json\n{\"half\": \n" << std::flush;
        if (mode == "noinit" || id.empty())
            continue;
        if (line.find("\"initialize\"") != std::string::npos) {
            answer(id, "{\"protocolVersion\":\"2025-03-26\",\"capabilities\":{\"tools\":{}},"
                       "\"serverInfo\":{\"name\":\"fake\",\"version\":\"1\"}}");
        } else if (line.find("\"tools/list\"") != std::string::npos) {
            answer(id, "{\"tools\":[{\"name\":\"echo\",\"description\":\"Echoes the message\","
                       "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}}}},"
                       "{\"name\":\"big\",\"inputSchema\":{\"type\":\"object\"}},"
                       "{\"name\":\"huge\",\"inputSchema\":{\"type\":\"object\"}}]}");
        } else if (line.find("\"tools/call\"") != std::string::npos) {
            if (mode == "die") {
                std::cerr << "fake server: giving up on purpose\n" << std::flush;
                return 3;
            }
            if (mode == "garbage")
                continue;
            if (line.find("\"name\":\"big\"") != std::string::npos) {
                answer(id, textResult(std::string(1 << 20, 'x')));
            } else if (line.find("\"name\":\"huge\"") != std::string::npos) {
                answer(id, textResult(std::string(5 << 20, 'y')));
            } else {
                const auto at = line.find("\"message\":\"");
                const std::string message = at == std::string::npos ? "" : line.substr(at + 11, line.find('"', at + 11) - at - 11);
                // A notification first: a client must not take it for the answer.
                std::cout << "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n";
                answer(id, textResult("Echo: " + message));
            }
        }
    }
    return 0;
}
