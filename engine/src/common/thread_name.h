// Names the calling thread as `top -H`, `ps -L`, debuggers and profilers
// show it (Linux: at most 15 characters, longer names are cut). The engine's
// threads are "burrow-sched" (a scheduler's loop) and "burrow-pool" (the
// forward pass's workers); measurements that split an app's CPU time between
// the engine and everything else go by these names (app/chat/replybench.cpp).
#pragma once

#if defined(__linux__)
#include <pthread.h>
#include <cstring>
#endif

namespace burrow::common {

inline void setCurrentThreadName(const char *name)
{
#if defined(__linux__)
    char cut[16] = {};
    std::strncpy(cut, name, sizeof cut - 1);
    pthread_setname_np(pthread_self(), cut);
#else
    (void)name;
#endif
}

} // namespace burrow::common
