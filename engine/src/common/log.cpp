#include "common/log.h"

#include <atomic>
#include <cstdio>
#include <mutex>

namespace burrow {
namespace {

std::mutex g_mutex;
LogCallback g_callback = nullptr;
void *g_userData = nullptr;

} // namespace

void logSetCallback(LogCallback callback, void *userData)
{
    std::lock_guard lock(g_mutex);
    g_callback = callback;
    g_userData = userData;
}

void logMessage(LogLevel level, const std::string &message)
{
    std::lock_guard lock(g_mutex);
    if (g_callback) {
        g_callback(level, message.c_str(), g_userData);
        return;
    }
    if (level >= LogLevel::LOG_LEVEL_WARN)
        std::fprintf(stderr, "burrow: %s\n", message.c_str());
}

} // namespace burrow
