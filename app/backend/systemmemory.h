// How much memory the machine can give a new model right now.
#pragma once

#include <QtGlobal>

namespace SystemMemory {
// MemAvailable from /proc/meminfo in bytes; 0 when unknown (not Linux).
quint64 availableBytes();
}
