#include "quant/cpu_features.h"

#include <cstdlib>

#include <cstdint>
#include <cstring>
#include <initializer_list>

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define BURROW_QUANT_HAVE_CPUID 1
#endif

namespace burrow::quant {

namespace {

#ifdef BURROW_QUANT_HAVE_CPUID
uint64_t readXcr0()
{
    uint32_t eax = 0, edx = 0;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return (static_cast<uint64_t>(edx) << 32) | eax;
}
#endif

CpuFeatures detect()
{
    CpuFeatures f;
#ifdef BURROW_QUANT_HAVE_CPUID
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid(0, &a, &b, &c, &d))   // vendor: EBX, EDX, ECX = "Genu" "ineI" "ntel"
        f.intel = b == 0x756e6547u && d == 0x49656e69u && c == 0x6c65746eu;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return f;
    const bool osxsave = (c >> 27) & 1;
    const bool avx = (c >> 28) & 1;
    const bool fma = (c >> 12) & 1;
    const bool f16c = (c >> 29) & 1;
    if (!osxsave || !avx)
        return f;
    const uint64_t xcr0 = readXcr0();
    const bool ymmState = (xcr0 & 0x6) == 0x6;     // SSE + AVX state
    const bool zmmState = (xcr0 & 0xe6) == 0xe6;   // + opmask, ZMM_Hi256, Hi16_ZMM
    if (!ymmState)
        return f;
    unsigned maxLeaf = __get_cpuid_max(0, nullptr);
    if (maxLeaf < 7)
        return f;
    __cpuid_count(7, 0, a, b, c, d);
    f.avx2 = (b >> 5) & 1;
    f.fma = fma;
    f.f16c = f16c;
    if (zmmState) {
        f.avx512f = (b >> 16) & 1;
        f.avx512bw = (b >> 30) & 1;
        f.avx512vl = (b >> 31) & 1;
        f.avx512vnni = (c >> 11) & 1;
    }
    // AMX-TILE (EDX 24) and AMX-INT8 (EDX 25), the OS saving XTILECFG and
    // XTILEDATA (XCR0 bits 17, 18).
    f.amxInt8 = ((d >> 24) & 1) && ((d >> 25) & 1) && (xcr0 & 0x60000) == 0x60000;
    unsigned a1 = 0, b1 = 0, c1 = 0, d1 = 0;
    __cpuid_count(7, 1, a1, b1, c1, d1);
    f.avxvnni = (a1 >> 4) & 1;
    if (zmmState)
        f.avx512bf16 = (a1 >> 5) & 1;
#endif
    const auto tuning = [](const char *name, bool fallback) {
        const char *env = std::getenv(name);
        return env && *env ? std::strcmp(env, "0") != 0 : fallback;
    };
    f.fastGather = tuning("BURROW_FAST_GATHER", f.intel);
    f.streamPrefetch = tuning("BURROW_STREAM_PREFETCH", f.intel);
    f.nearTilePrefetch = tuning("BURROW_NEAR_TILE_PREFETCH", f.intel);
    return f;
}

} // namespace

const CpuFeatures &cpuFeatures()
{
    static const CpuFeatures features = detect();
    return features;
}

bool avxVnniAllowed()
{
    static const bool allowed = [] {
        const char *env = std::getenv("BURROW_AVX_VNNI");
        return cpuFeatures().avxvnni && !(env && std::strcmp(env, "0") == 0);
    }();
    return allowed;
}

bool amxUsable()
{
    static const bool usable = [] {
        if (!cpuFeatures().amxInt8)
            return false;
#if defined(__linux__) && defined(BURROW_QUANT_HAVE_CPUID)
        // The tile data is a dynamically enabled state: each process asks once.
        constexpr long kArchReqXcompPerm = 0x1023;
        constexpr long kXfeatureXtiledata = 18;
        return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
#else
        return false;
#endif
    }();
    return usable;
}

const char *cpuPathName(CpuPath path)
{
    switch (path) {
    case CpuPath::CPU_PATH_SCALAR: return "scalar";
    case CpuPath::CPU_PATH_AVX2: return "avx2";
    case CpuPath::CPU_PATH_AVX512: return "avx512";
    }
    return "unknown";
}

bool cpuPathFromName(const char *name, CpuPath *out)
{
    if (!name)
        return false;
    for (CpuPath p : {CpuPath::CPU_PATH_SCALAR, CpuPath::CPU_PATH_AVX2, CpuPath::CPU_PATH_AVX512}) {
        if (std::strcmp(name, cpuPathName(p)) == 0) {
            *out = p;
            return true;
        }
    }
    return false;
}

bool cpuPathSupported(CpuPath path)
{
    const CpuFeatures &f = cpuFeatures();
    switch (path) {
    case CpuPath::CPU_PATH_SCALAR:
        return true;
    case CpuPath::CPU_PATH_AVX2:
#ifdef BURROW_QUANT_X86
        return f.avx2 && f.fma && f.f16c;
#else
        return false;
#endif
    case CpuPath::CPU_PATH_AVX512:
#ifdef BURROW_QUANT_X86
        return f.avx2 && f.fma && f.f16c && f.avx512f && f.avx512bw && f.avx512vl && f.avx512vnni;
#else
        return false;
#endif
    }
    return false;
}

CpuPath bestCpuPath()
{
    if (cpuPathSupported(CpuPath::CPU_PATH_AVX512))
        return CpuPath::CPU_PATH_AVX512;
    if (cpuPathSupported(CpuPath::CPU_PATH_AVX2))
        return CpuPath::CPU_PATH_AVX2;
    return CpuPath::CPU_PATH_SCALAR;
}

} // namespace burrow::quant
