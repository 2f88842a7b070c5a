// Host, Origin and API-key checks (see http_guard.h).
#include "server/http_guard.h"

#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

namespace burrow::server {

namespace {

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char &c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool isIpv4(const std::string &s)
{
    in_addr a{};
    return inet_pton(AF_INET, s.c_str(), &a) == 1;
}

bool isIpv6(const std::string &s)
{
    in6_addr a{};
    return inet_pton(AF_INET6, s.c_str(), &a) == 1;
}

bool validPort(std::string_view p)
{
    return !p.empty() && p.size() <= 5 && std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; });
}

} // namespace

bool hostAllowed(std::string_view host, const std::vector<std::string> &allowedHosts, std::string_view machineName)
{
    if (host.empty() || host.size() > 255)
        return false;
    std::string name;
    if (host.front() == '[') {
        // [IPv6]:port
        const size_t close = host.find(']');
        if (close == std::string_view::npos)
            return false;
        const std::string_view rest = host.substr(close + 1);
        if (!rest.empty() && (rest.front() != ':' || !validPort(rest.substr(1))))
            return false;
        return isIpv6(std::string(host.substr(1, close - 1)));
    }
    const size_t colon = host.find(':');
    if (colon != std::string_view::npos) {
        if (!validPort(host.substr(colon + 1)))
            return false;
        name = lower(host.substr(0, colon));
    } else {
        name = lower(host);
    }
    if (!name.empty() && name.back() == '.')
        name.pop_back();
    if (name.empty())
        return false;
    if (isIpv4(name) || name == "localhost" || endsWith(name, ".localhost"))
        return true;
    const std::string machine = lower(machineName);
    if (!machine.empty() && (name == machine || name == machine + ".local"))
        return true;
    for (const std::string &entry : allowedHosts) {
        const std::string e = lower(entry);
        if (e == "*" || e == name)
            return true;
        if (e.size() > 1 && e.front() == '.' && (endsWith(name, e) || name == e.substr(1)))
            return true;
    }
    return false;
}

bool originAllowed(std::string_view origin, const std::vector<std::string> &corsOrigins)
{
    const std::string o = lower(origin);
    for (const std::string &entry : corsOrigins) {
        const std::string e = lower(entry);
        if (e == "*" || (!o.empty() && e == o))
            return true;
    }
    return false;
}

bool constantTimeEquals(std::string_view a, std::string_view b)
{
    // Every byte of the longer string is visited; the result is folded
    // without branches on the contents.
    const size_t n = std::max(a.size(), b.size());
    unsigned diff = a.size() == b.size() ? 0u : 1u;
    for (size_t i = 0; i < n; ++i) {
        const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
        const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
        diff |= static_cast<unsigned>(x ^ y);
    }
    return diff == 0;
}

bool bearerMatches(std::string_view authorization, std::string_view key)
{
    if (key.empty())
        return false;
    if (authorization.size() < 7 || lower(authorization.substr(0, 7)) != "bearer ")
        return false;
    std::string_view token = authorization.substr(7);
    while (!token.empty() && token.front() == ' ')
        token.remove_prefix(1);
    while (!token.empty() && (token.back() == ' ' || token.back() == '\t'))
        token.remove_suffix(1);
    return constantTimeEquals(token, key);
}

bool keyMatches(std::string_view value, std::string_view key)
{
    if (key.empty())
        return false;
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
        value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
        value.remove_suffix(1);
    return constantTimeEquals(value, key);
}

std::string machineHostName()
{
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0)
        return {};
    return lower(buf);
}

} // namespace burrow::server
