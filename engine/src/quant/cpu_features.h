// Run-time CPU feature detection and the choice of kernel path.
//
// The trait table (quant_traits.h) is filled for one CpuPath. By default that
// is the best path this CPU and OS support; the environment variable
// BURROW_CPU_PATH=scalar|avx2|avx512 (read once, at first use) or
// setCpuPath() force another one, so tests can run every path.
#pragma once

namespace burrow::quant {

struct CpuFeatures {
    bool avx2 = false;
    bool fma = false;
    bool f16c = false;
    bool avx512f = false;
    bool avx512bw = false;
    bool avx512vl = false;
    bool avx512vnni = false;
    bool avx512bf16 = false;
    bool avxvnni = false;     // the VEX-encoded (256-bit) VNNI
    bool amxInt8 = false;     // AMX tiles + int8 tile products, with the tile state enabled in XCR0
    bool intel = false;       // the vendor string is GenuineIntel (tuning only: see its users)
    // Tuning, measured per vendor (docs/benchmarks.md), each overridable by
    // an environment variable set to 0 or 1 to measure a new machine:
    bool fastGather = false;      // vpgather pays over scalar loads (Intel; BURROW_FAST_GATHER)
    bool streamPrefetch = false;  // one-token kernels prefetch their stream ahead (Intel; BURROW_STREAM_PREFETCH)
    bool nearTilePrefetch = false; // packed tiles prefetch one Q4_K super-block ahead, not two (Intel; BURROW_NEAR_TILE_PREFETCH)
};

// AVX-VNNI for the avx2 path's int8 kernels: the CPU's avx_vnni, unless
// BURROW_AVX_VNNI=0 (read once; to compare the two on one machine).
bool avxVnniAllowed();

// What the CPU and the OS (saved register state, via xgetbv) support.
// Detected once; all false on non-x86 builds.
const CpuFeatures &cpuFeatures();

// True when AMX-INT8 can be used by this process: the CPU has it, the OS
// saves the tile state, and (Linux) the kernel granted this process the tile
// data permission (arch_prctl ARCH_REQ_XCOMP_PERM, asked once, on the first
// call). False where the request is refused: the VNNI kernels run instead.
bool amxUsable();

enum class CpuPath {
    CPU_PATH_SCALAR,   // generic/ kernels, the reference twins
    CPU_PATH_AVX2,     // AVX2 + FMA + F16C
    CPU_PATH_AVX512,   // AVX-512 F/BW/VL + VNNI (on top of the AVX2 set)
};

const char *cpuPathName(CpuPath path);                 // "scalar", "avx2", "avx512"
bool cpuPathFromName(const char *name, CpuPath *out);  // false for unknown names

// True when this build has the path's kernels and the CPU can run them.
bool cpuPathSupported(CpuPath path);
// The fastest supported path.
CpuPath bestCpuPath();

// The path the trait table is filled for.
CpuPath activeCpuPath();
// Re-fills the trait table for `path`; false (table unchanged) when the path is
// not supported. Not thread-safe against concurrent kernel calls: call it
// before computing (tests, start-up), never while a matrix multiply runs.
bool setCpuPath(CpuPath path);

} // namespace burrow::quant
