// The bound of a connection's read buffer (server.cpp, and the HTTP fuzz
// target that reads requests as a connection does).
#pragma once

#include "burrow/server.h"

#include <cstddef>

namespace burrow::server {

// A whole request header (maxHeaderBytes) and a chunked body's trailer must
// fit in the buffer, and a read that needs more fails
// (http::error::buffer_overflow, answered 431), so no field ever reaches
// Boost.Beast's own limit of 65,534 bytes (past which it throws).
inline size_t readBufferBytes(const ServerLimits &limits)
{
    const size_t wanted = limits.maxHeaderBytes + 8192;
    return wanted < 16384 ? 16384 : wanted > (56u << 10) ? (56u << 10) : wanted;
}

} // namespace burrow::server
