// Engine logging goes through one callback the host sets (the app routes it to
// its Q_LOGGING_CATEGORY, the CLI to stderr). Default: warnings and errors to stderr.
#pragma once

#include <string>

namespace burrow {

enum class LogLevel { LOG_LEVEL_DEBUG, LOG_LEVEL_INFO, LOG_LEVEL_WARN, LOG_LEVEL_ERROR };

using LogCallback = void (*)(LogLevel level, const char *message, void *userData);

// Thread-safe; pass nullptr to restore the default.
void logSetCallback(LogCallback callback, void *userData);
void logMessage(LogLevel level, const std::string &message);

} // namespace burrow
