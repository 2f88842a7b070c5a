// How many threads the engine uses by default: one per physical core this
// process may run on.
//
// A second hardware thread (SMT sibling) on a core adds little to the
// engine's work (memory-bound matrix products, the core's vector units
// already busy) and costs a wake-up per operation; a core the process may
// not use (sched_setaffinity, taskset, a cgroup cpuset) or a CPU quota
// (cgroup cpu.max, docker --cpus) only adds threads that wait for each other.
//
// Rule: the distinct (package, core) pairs among the CPUs in the process's
// affinity mask (Linux sysfs topology), capped by the cgroup CPU quota
// rounded up; without topology, the CPUs of the mask; without a mask, the
// hardware threads (std::thread::hardware_concurrency); at least 1.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace burrow::runtime {

// One logical CPU the process may run on, with its place in the topology
// (package and core ids from sysfs; -1 when unknown).
struct LogicalCpu {
    int cpu = 0;
    long package = -1;
    long core = -1;
};

// The pure part of the rule: `allowed` are the CPUs of the affinity mask
// (empty: unknown), `quotaCpus` the cgroup quota in CPUs (0: none), `hw` the
// hardware thread count (0: unknown). Cost: O(n log n).
int physicalCoreCount(const std::vector<LogicalCpu> &allowed, double quotaCpus, unsigned hw);

// The CPU quota of a cgroup v2 `cpu.max` line ("max 100000" -> 0, "150000
// 100000" -> 1.5) or 0 for anything else.
double parseCpuMax(const std::string &line);

// The rule on this machine (sysfs, sched_getaffinity, /proc/self/cgroup);
// read once per call (cheap: a few small files). At least 1.
int detectPhysicalCores();

} // namespace burrow::runtime
