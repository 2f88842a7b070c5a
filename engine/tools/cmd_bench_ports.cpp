// burrow-cli bench-ports [--iterations N]
// What the Q8_0 dot-product recipes cost on this core, measured with the
// instructions themselves (inline assembly, registers only, so no compiler
// or memory effect enters): the steps Burrow's packed Q8_0 tiles take per 64
// products, the same products in the reference's generic C order, the steps
// of the reference's x86 prompt kernel (llamafile's tinyBLAS, which llama.cpp
// runs for Q8_0 prompts on x86) and of ik_llama.cpp's, and the clock under
// each vector width. docs/benchmarks.md ("What bounds the remaining prompt
// targets") reads these as ceilings: two engines that keep the same float
// steps cannot differ in speed by more than the ratio of their recipes' costs.
//
// Each recipe runs 4 to 8 independent chains per loop iteration (enough to
// hide every latency on the cores measured) for N iterations; the cost is
// wall time per 64 products, best of 5. x86-64 only; the AVX-512 rows need
// AVX-512 VNNI, the AVX2 rows AVX2 + FMA.
#include "cli_command.h"

#include "quant/cpu_features.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using namespace burrow;

void printHelp(FILE *out)
{
    std::fprintf(out,
                 "usage: burrow-cli bench-ports [--iterations N]\n\n"
                 "Times the Q8_0 dot-product recipes of Burrow's packed tiles, of the\n"
                 "reference's x86 prompt kernel and of ik_llama.cpp's on this core (inline\n"
                 "assembly, registers only): nanoseconds per 64 products, best of 5 runs of N\n"
                 "loop iterations (default 20000000), and the clock beside scalar, 256-bit\n"
                 "and 512-bit work.\n");
}

// The options into iterations; -1 to go on, else the exit code (0 after
// --help, 2 on a usage error, with the message printed).
int parseArgs(const std::vector<std::string> &args, long &iterations)
{
    iterations = 20000000;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--help" || args[i] == "-h") {
            printHelp(stdout);
            return 0;
        }
        std::string bad = args[i];
        if (args[i] == "--iterations" && i + 1 < args.size()) {
            bad += " " + args[++i];
            try {
                iterations = std::stol(args[i]);
            } catch (...) {
                iterations = 0;
            }
            if (iterations >= 1000 && iterations <= 2000000000)
                continue;
        }
        std::fprintf(stderr, "bench-ports: bad argument '%s' (--iterations takes 1000 ... 2000000000)\n", bad.c_str());
        printHelp(stderr);
        return 2;
    }
    return -1;
}

#if defined(__x86_64__)

alignas(64) int32_t gData[64] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};

using Loop = void (*)(long iterations);

// One recipe: its loop and the products one iteration computes.
struct Recipe {
    const char *name;
    Loop loop;
    double productsPerIteration;
};

double bestSeconds(Loop loop, long iterations)
{
    double best = 1e30;
    for (int run = 0; run < 5; ++run) {
        const auto t0 = std::chrono::steady_clock::now();
        loop(iterations);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        best = s < best ? s : best;
    }
    return best;
}

// The loops. Register roles are fixed per block: sources that no chain
// writes (weights, scales, ones) and per-chain temporaries and accumulators.
// Every vector register a loop touches is named as clobbered (registers 16-31
// only in functions compiled for AVX-512).
// Registers start at zero: garbage could hold subnormal floats, whose
// microcode assists would be timed instead of the recipe.
#define ZERO16TO31 "vpxord %%zmm16, %%zmm16, %%zmm16\n""vpxord %%zmm17, %%zmm17, %%zmm17\n""vpxord %%zmm18, %%zmm18, %%zmm18\n""vpxord %%zmm19, %%zmm19, %%zmm19\n""vpxord %%zmm20, %%zmm20, %%zmm20\n""vpxord %%zmm21, %%zmm21, %%zmm21\n""vpxord %%zmm22, %%zmm22, %%zmm22\n""vpxord %%zmm23, %%zmm23, %%zmm23\n""vpxord %%zmm24, %%zmm24, %%zmm24\n""vpxord %%zmm25, %%zmm25, %%zmm25\n""vpxord %%zmm26, %%zmm26, %%zmm26\n""vpxord %%zmm27, %%zmm27, %%zmm27\n""vpxord %%zmm28, %%zmm28, %%zmm28\n""vpxord %%zmm29, %%zmm29, %%zmm29\n""vpxord %%zmm30, %%zmm30, %%zmm30\n""vpxord %%zmm31, %%zmm31, %%zmm31\n"
#define BURROW_ASM_LOOP(body)                                                                                            \
    asm volatile("vzeroall\n1:\n" body "dec %0\njnz 1b\n"                                                                       \
                 : "+r"(n)                                                                                            \
                 : "r"(gData)                                                                                         \
                 : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",        \
                   "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15")
#define BURROW_ASM_LOOP512(body)                                                                                         \
    asm volatile("vzeroall\n" ZERO16TO31 "1:\n" body "dec %0\njnz 1b\n"                                                                       \
                 : "+r"(n)                                                                                            \
                 : "r"(gData)                                                                                         \
                 : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",        \
                   "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20",     \
                   "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31")

// Burrow's Q8_0 tile step on AVX-512 (packed_avx512.cpp q8_0Tile): per 16 rows
// x 4 codes and token, the run's start (the activation side's -128 x run sum)
// and the activation run broadcast from memory, one vpdpbusd, the lane's
// conversion and its fused multiply-add; once per block (8 runs) the token's
// d_w x d_a. 8 chains = one block of one token: 512 products.
#define Q8T(i, t, u)                                                                                                     \
    "vpbroadcastd " #i "*4(%1), %%zmm" #t "\n"                                                                          \
    "vpbroadcastd 64+" #i "*4(%1), %%zmm" #u "\n"                                                                       \
    "vpdpbusd %%zmm" #u ", %%zmm30, %%zmm" #t "\n"                                                                       \
    "vcvtdq2ps %%zmm" #t ", %%zmm" #t "\n"                                                                              \
    "vfmadd231ps %%zmm" #t ", %%zmm29, %%zmm" #i "\n"
__attribute__((target("avx512f"))) void q8Burrow512(long n)
{
    BURROW_ASM_LOOP512("vmulps 128(%1)%{1to16%}, %%zmm28, %%zmm29\n" Q8T(0, 8, 16) Q8T(1, 9, 17) Q8T(2, 10, 18)
                           Q8T(3, 11, 19) Q8T(4, 12, 20) Q8T(5, 13, 21) Q8T(6, 14, 22) Q8T(7, 15, 23));
}

// The same products in the reference's generic C order (one integer per
// block and row, one float step per 32 products): per 16 rows and token, 8
// vpdpbusd into one register, then the conversion, d_w x d_a and the fused
// multiply-add. 8 chains = 8 blocks: 4096 products.
#define Q8G(i, t, d)                                                                                                     \
    "vpbroadcastd " #i "*4(%1), %%zmm" #t "\n"                                                                          \
    "vpdpbusd 64(%1)%{1to16%}, %%zmm30, %%zmm" #t "\n"                                                                   \
    "vpdpbusd 68(%1)%{1to16%}, %%zmm31, %%zmm" #t "\n"                                                                   \
    "vpdpbusd 72(%1)%{1to16%}, %%zmm30, %%zmm" #t "\n"                                                                   \
    "vpdpbusd 76(%1)%{1to16%}, %%zmm31, %%zmm" #t "\n"                                                                   \
    "vpdpbusd 80(%1)%{1to16%}, %%zmm30, %%zmm" #t "\n"                                                                   \
    "vpdpbusd 84(%1)%{1to16%}, %%zmm31, %%zmm" #t "\n"                                                                   \
    "vpdpbusd 88(%1)%{1to16%}, %%zmm30, %%zmm" #t "\n"                                                                   \
    "vpdpbusd 92(%1)%{1to16%}, %%zmm31, %%zmm" #t "\n"                                                                   \
    "vcvtdq2ps %%zmm" #t ", %%zmm" #t "\n"                                                                              \
    "vmulps 128(%1)%{1to16%}, %%zmm28, %%zmm" #d "\n"                                                                   \
    "vfmadd231ps %%zmm" #t ", %%zmm" #d ", %%zmm" #i "\n"
__attribute__((target("avx512f"))) void q8Generic512(long n)
{
    BURROW_ASM_LOOP512(Q8G(0, 8, 16) Q8G(1, 9, 17) Q8G(2, 10, 18) Q8G(3, 11, 19) Q8G(4, 12, 20) Q8G(5, 13, 21) Q8G(6, 14, 22)
                           Q8G(7, 15, 23));
}

// ik_llama.cpp's Q8_0 prompt step on AVX-512 (iqk mul_mat_q8_0_r8_q8_2, its
// rows repacked 8 at a time, +127 to unsigned): per 16 rows, token and block
// the token's two 16-byte halves broadcast, 8 x (vpshufd, vpdpbusd) into one
// integer per row, its conversion, d_w x d_a and the fused multiply-add,
// and the fused multiply-add of its offset term; the weights' +127 is made
// once per block for all tokens (left out, to its favour). One integer a
// block: not the reference's float steps. 4 chains: 2048 products.
#define Q8IK(i, a, b, z, o)                                                                                              \
    "vbroadcasti32x4 (%1), %%zmm" #a "\n"                                                                               \
    "vbroadcasti32x4 16(%1), %%zmm" #b "\n"                                                                             \
    "vpxord %%zmm" #z ", %%zmm" #z ", %%zmm" #z "\n"                                                                    \
    "vpshufd $0x00, %%zmm" #a ", %%zmm20\n vpdpbusd %%zmm20, %%zmm24, %%zmm" #z "\n"                                   \
    "vpshufd $0x55, %%zmm" #a ", %%zmm21\n vpdpbusd %%zmm21, %%zmm25, %%zmm" #z "\n"                                   \
    "vpshufd $0xaa, %%zmm" #a ", %%zmm20\n vpdpbusd %%zmm20, %%zmm26, %%zmm" #z "\n"                                   \
    "vpshufd $0xff, %%zmm" #a ", %%zmm21\n vpdpbusd %%zmm21, %%zmm27, %%zmm" #z "\n"                                   \
    "vpshufd $0x00, %%zmm" #b ", %%zmm20\n vpdpbusd %%zmm20, %%zmm28, %%zmm" #z "\n"                                   \
    "vpshufd $0x55, %%zmm" #b ", %%zmm21\n vpdpbusd %%zmm21, %%zmm29, %%zmm" #z "\n"                                   \
    "vpshufd $0xaa, %%zmm" #b ", %%zmm20\n vpdpbusd %%zmm20, %%zmm30, %%zmm" #z "\n"                                   \
    "vpshufd $0xff, %%zmm" #b ", %%zmm21\n vpdpbusd %%zmm21, %%zmm31, %%zmm" #z "\n"                                   \
    "vcvtdq2ps %%zmm" #z ", %%zmm" #z "\n"                                                                              \
    "vmulps 128(%1)%{1to16%}, %%zmm23, %%zmm22\n"                                                                       \
    "vfmadd231ps %%zmm" #z ", %%zmm22, %%zmm" #i "\n"                                                                   \
    "vfmadd231ps 132(%1)%{1to16%}, %%zmm23, %%zmm" #o "\n"
__attribute__((target("avx512f"))) void q8Ik512(long n)
{
    BURROW_ASM_LOOP512(Q8IK(0, 8, 9, 4, 16) Q8IK(1, 10, 11, 5, 17) Q8IK(2, 12, 13, 6, 18) Q8IK(3, 14, 15, 7, 19));
}

// The reference's Q8_0 prompt step with AVX-512 VL + VNNI (llamafile's
// tinyBLAS_Q0_AVX, gemm4xN): per row, token and 32-code block, the token's
// codes signed by the row's (vpsignb), vpdpbusd from zero, the conversion,
// the block's d_w x d_a picked out of a vector (vshufps) and the fused
// multiply-add; |A| is shared by the tokens of a row. 6 chains: 192 products.
#define Q8R(i, s, z, d)                                                                                                  \
    "vpsignb %%ymm12, %%ymm13, %%ymm" #s "\n"                                                                           \
    "vpxord %%ymm" #z ", %%ymm" #z ", %%ymm" #z "\n"                                                                    \
    "vpdpbusd %%ymm" #s ", %%ymm14, %%ymm" #z "\n"                                                                       \
    "vcvtdq2ps %%ymm" #z ", %%ymm" #z "\n"                                                                              \
    "vshufps $0, %%ymm15, %%ymm15, %%ymm" #d "\n"                                                                       \
    "vfmadd231ps %%ymm" #z ", %%ymm" #d ", %%ymm" #i "\n"
__attribute__((target("avx512f"))) void q8Reference256Vnni(long n)
{
    BURROW_ASM_LOOP512(Q8R(0, 6, 16, 22) Q8R(1, 7, 17, 23) Q8R(2, 8, 18, 24) Q8R(3, 9, 19, 25) Q8R(4, 10, 20, 26)
                           Q8R(5, 11, 21, 27));
}

// Burrow's Q8_0 tile step on AVX2 without VNNI (packed_avx2.cpp
// q8_0HalfSigned): per 8 rows x 4 codes and token, the activation run
// broadcast, signed by the weights (vpsignb), times |w| (vpmaddubsw), pairs
// to int32 (vpmaddwd), the conversion and the fused multiply-add. 6 chains:
// 192 products.
#define Q8A(i, t, off)                                                                                                   \
    "vpbroadcastd " #off "(%1), %%ymm" #t "\n"                                                                          \
    "vpsignb %%ymm12, %%ymm" #t ", %%ymm" #t "\n"                                                                        \
    "vpmaddubsw %%ymm" #t ", %%ymm13, %%ymm" #t "\n"                                                                     \
    "vpmaddwd %%ymm14, %%ymm" #t ", %%ymm" #t "\n"                                                                       \
    "vcvtdq2ps %%ymm" #t ", %%ymm" #t "\n"                                                                              \
    "vfmadd231ps %%ymm" #t ", %%ymm15, %%ymm" #i "\n"
void q8Burrow256(long n)
{
    BURROW_ASM_LOOP(Q8A(0, 6, 0) Q8A(1, 7, 4) Q8A(2, 8, 8) Q8A(3, 9, 12) Q8A(4, 10, 16) Q8A(5, 11, 20));
}

// The reference's Q8_0 prompt step on AVX2 without VNNI (tinyBLAS_Q0_AVX's
// updot: vpmaddubsw then vpmaddwd with ones): per row, token and block the
// codes signed, the pair products and sums, the conversion, the scale picked
// out (vshufps) and the fused multiply-add. 4 chains: 128 products.
#define Q8RA(i, t, d)                                                                                                    \
    "vpsignb %%ymm12, %%ymm13, %%ymm" #t "\n"                                                                           \
    "vpmaddubsw %%ymm" #t ", %%ymm14, %%ymm" #t "\n"                                                                     \
    "vpmaddwd %%ymm15, %%ymm" #t ", %%ymm" #t "\n"                                                                       \
    "vcvtdq2ps %%ymm" #t ", %%ymm" #t "\n"                                                                              \
    "vshufps $0, %%ymm15, %%ymm15, %%ymm" #d "\n"                                                                       \
    "vfmadd231ps %%ymm" #t ", %%ymm" #d ", %%ymm" #i "\n"
void q8Reference256(long n)
{
    BURROW_ASM_LOOP(Q8RA(0, 4, 8) Q8RA(1, 5, 9) Q8RA(2, 6, 10) Q8RA(3, 7, 11));
}

// The clock: a chain of 64 dependent scalar adds (one cycle each) beside
// nothing, beside 256-bit work and beside 512-bit work (both kept below what
// the vector ports can issue, so the chain sets the pace).
#define ADD8 "add %%rax, %%rax\nadd %%rax, %%rax\nadd %%rax, %%rax\nadd %%rax, %%rax\n" \
             "add %%rax, %%rax\nadd %%rax, %%rax\nadd %%rax, %%rax\nadd %%rax, %%rax\n"
#define CLOCK_LOOP(body)                                                                                                 \
    asm volatile("xor %%eax, %%eax\nvzeroall\n1:\n" ADD8 ADD8 ADD8 ADD8 ADD8 ADD8 ADD8 ADD8 body "dec %0\njnz 1b\n"             \
                 : "+r"(n)                                                                                            \
                 :                                                                                                    \
                 : "cc", "rax", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7")
void clockScalar(long n) { CLOCK_LOOP(""); }
#define V256(r) "vfmadd231ps %%ymm7, %%ymm7, %%ymm" #r "\n"
void clock256(long n) { CLOCK_LOOP(V256(0) V256(1) V256(2) V256(3) V256(4) V256(5) V256(0) V256(1) V256(2) V256(3) V256(4) V256(5)); }
#define V512(r) "vpdpbusd %%zmm7, %%zmm7, %%zmm" #r "\n"
void clock512(long n) { CLOCK_LOOP(V512(0) V512(1) V512(2) V512(3) V512(4) V512(5) V512(0) V512(1) V512(2) V512(3) V512(4) V512(5)); }

int run(const std::vector<std::string> &args)
{
    long iterations = 0;
    const int usage = parseArgs(args, iterations);
    if (usage >= 0)
        return usage;
    const quant::CpuFeatures &cpu = quant::cpuFeatures();
    if (!cpu.avx2 || !cpu.fma) {
        std::fprintf(stderr, "bench-ports: this CPU has no AVX2 + FMA; nothing to time\n");
        return 1;
    }
    const bool avx512 = cpu.avx512f && cpu.avx512bw && cpu.avx512vl && cpu.avx512vnni;

    // Clocks first: the recipes' cycles below use the clock of their width.
    const long clockIterations = iterations / 8 > 1000 ? iterations / 8 : 1000;
    const auto ghz = [&](Loop loop) { return 64.0 * clockIterations / bestSeconds(loop, clockIterations) * 1e-9; };
    const double gScalar = ghz(clockScalar), g256 = ghz(clock256), g512 = avx512 ? ghz(clock512) : 0.0;
    std::printf("clock (GHz): scalar %.2f, beside 256-bit work %.2f", gScalar, g256);
    if (avx512)
        std::printf(", beside 512-bit work %.2f", g512);
    std::printf("\n\n%-58s %12s %14s\n", "recipe", "ns / 64 prod", "cycles / 64");

    std::vector<std::pair<Recipe, double>> rows;   // recipe, its clock
    if (avx512) {
        rows.push_back({{"Q8_0 AVX-512, Burrow's tile (8 lanes a row)", q8Burrow512, 512}, g512});
        rows.push_back({{"Q8_0 AVX-512, one integer a block (generic C order)", q8Generic512, 4096}, g512});
        rows.push_back({{"Q8_0 AVX-512 VL + VNNI, the reference (tinyBLAS)", q8Reference256Vnni, 192}, g256});
        rows.push_back({{"Q8_0 AVX-512, ik_llama.cpp (q8_0_r8, one integer a block)", q8Ik512, 2048}, g512});
    }
    rows.push_back({{"Q8_0 AVX2, Burrow's tile (8 lanes a row)", q8Burrow256, 192}, g256});
    rows.push_back({{"Q8_0 AVX2, the reference (tinyBLAS)", q8Reference256, 128}, g256});
    for (const auto &[recipe, clock] : rows) {
        const double ns = bestSeconds(recipe.loop, iterations) * 1e9 / iterations / recipe.productsPerIteration * 64.0;
        std::printf("%-58s %12.3f %14.2f\n", recipe.name, ns, ns * clock);
    }
    return 0;
}

#else

int run(const std::vector<std::string> &args)
{
    long iterations = 0;
    const int usage = parseArgs(args, iterations);
    if (usage >= 0)
        return usage;
    std::fprintf(stderr, "bench-ports: x86-64 only\n");
    return 1;
}

#endif

} // namespace

BURROW_CLI_COMMAND(bench_ports, "bench-ports", "time the Q8_0 dot-product recipes on this core", run);
