// Who may talk to the server: the checks every request passes before it is
// routed. Pure functions over header values (untrusted text), so they are
// tested without a socket.
//
// - Host (DNS rebinding): a web page on evil.example whose name is made to
//   resolve to 127.0.0.1 reaches the server with "Host: evil.example". Only
//   IP literals, localhost (and *.localhost), this machine's name (and
//   NAME.local) and the names the operator lists are accepted.
// - Origin (CORS): a browser request carries Origin; it is refused unless
//   the origin is listed (--cors-origin; "*" lists every origin). Requests
//   without Origin (curl, SDKs) pass.
// - Bearer key: "Authorization: Bearer KEY", compared in constant time.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace burrow::server {

// `host`: the Host header's value ("localhost:8080", "[::1]:8080").
// `allowedHosts`: extra names (exact, case-insensitive), ".example.org" for
// a domain and its subdomains, or "*" for any. `machineName`: gethostname().
bool hostAllowed(std::string_view host, const std::vector<std::string> &allowedHosts, std::string_view machineName);

// `origin` exactly as listed (scheme://host[:port], case-insensitive), or "*" listed.
bool originAllowed(std::string_view origin, const std::vector<std::string> &corsOrigins);

// The Authorization header carries "Bearer `key`" (the scheme's case does
// not matter). Time depends on the lengths only, not on where they differ.
bool bearerMatches(std::string_view authorization, std::string_view key);
// A bare key header (Anthropic's "x-api-key: KEY"), compared in constant time.
bool keyMatches(std::string_view value, std::string_view key);

// a == b in time that depends only on the lengths.
bool constantTimeEquals(std::string_view a, std::string_view b);

// This machine's host name ("" when unknown), lower case.
std::string machineHostName();

} // namespace burrow::server
