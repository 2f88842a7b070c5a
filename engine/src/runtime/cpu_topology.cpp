#include "runtime/cpu_topology.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#if defined(__linux__)
#include <sched.h>
#endif

namespace burrow::runtime {

namespace {

constexpr int kMaxCpus = 4096;

bool readLong(const std::string &path, long *out)
{
    std::ifstream f(path);
    return static_cast<bool>(f >> *out);
}

std::string readLine(const std::string &path)
{
    std::ifstream f(path);
    std::string line;
    std::getline(f, line);
    return line;
}

std::vector<LogicalCpu> allowedCpus()
{
    std::vector<LogicalCpu> cpus;
#if defined(__linux__)
    cpu_set_t *set = CPU_ALLOC(kMaxCpus);
    if (!set)
        return cpus;
    const size_t size = CPU_ALLOC_SIZE(kMaxCpus);
    CPU_ZERO_S(size, set);
    if (sched_getaffinity(0, size, set) == 0) {
        for (int cpu = 0; cpu < kMaxCpus; ++cpu) {
            if (!CPU_ISSET_S(cpu, size, set))
                continue;
            LogicalCpu c;
            c.cpu = cpu;
            const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
            if (!readLong(dir + "physical_package_id", &c.package) || !readLong(dir + "core_id", &c.core))
                c.package = c.core = -1;
            cpus.push_back(c);
        }
    }
    CPU_FREE(set);
#endif
    return cpus;
}

// The CPU quota of this process's cgroup (v2 cpu.max, v1 cfs quota), 0 when none.
double cgroupQuota()
{
    std::ifstream f("/proc/self/cgroup");
    std::string line;
    while (std::getline(f, line)) {
        // "0::/path" (v2) or "N:cpu,cpuacct:/path" (v1)
        const size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
        if (b == std::string::npos)
            continue;
        const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
        if (controllers.empty()) {
            for (const std::string &file : {"/sys/fs/cgroup" + path + "/cpu.max", std::string("/sys/fs/cgroup/cpu.max")})
                if (const double q = parseCpuMax(readLine(file)); q > 0)
                    return q;
        } else if (("," + controllers + ",").find(",cpu,") != std::string::npos) {
            for (const std::string &dir : {"/sys/fs/cgroup/" + controllers + path, "/sys/fs/cgroup/" + controllers,
                                           std::string("/sys/fs/cgroup/cpu")}) {
                long quota = 0, period = 0;
                if (readLong(dir + "/cpu.cfs_quota_us", &quota) && readLong(dir + "/cpu.cfs_period_us", &period) &&
                    quota > 0 && period > 0)
                    return static_cast<double>(quota) / static_cast<double>(period);
            }
        }
    }
    return 0.0;
}

} // namespace

int physicalCoreCount(const std::vector<LogicalCpu> &allowed, double quotaCpus, unsigned hw)
{
    long count = hw == 0 ? 1 : static_cast<long>(hw);
    if (!allowed.empty()) {
        const bool topology = std::all_of(allowed.begin(), allowed.end(),
                                          [](const LogicalCpu &c) { return c.package >= 0 && c.core >= 0; });
        if (topology) {
            std::set<std::pair<long, long>> cores;
            for (const LogicalCpu &c : allowed)
                cores.insert({c.package, c.core});
            count = static_cast<long>(cores.size());
        } else {
            count = static_cast<long>(allowed.size());
        }
    }
    if (quotaCpus > 0 && std::isfinite(quotaCpus))
        count = std::min(count, static_cast<long>(std::ceil(quotaCpus)));
    return static_cast<int>(std::clamp(count, 1L, static_cast<long>(kMaxCpus)));
}

double parseCpuMax(const std::string &line)
{
    std::istringstream in(line);
    std::string quota;
    long period = 0;
    if (!(in >> quota >> period) || quota == "max" || period <= 0)
        return 0.0;
    char *end = nullptr;
    const long q = std::strtol(quota.c_str(), &end, 10);
    if (!end || *end != '\0' || q <= 0)
        return 0.0;
    return static_cast<double>(q) / static_cast<double>(period);
}

int detectPhysicalCores()
{
    return physicalCoreCount(allowedCpus(), cgroupQuota(), std::thread::hardware_concurrency());
}

} // namespace burrow::runtime
