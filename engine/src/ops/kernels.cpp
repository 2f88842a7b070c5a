#include "ops/kernels.h"

#include "ops/generic/generic_kernels.h"
#include "quant/cpu_features.h"
#ifdef BURROW_OPS_X86
#include "ops/x86/x86_kernels.h"
#endif

namespace burrow::ops {

namespace {

using quant::CpuPath;

constexpr int kPaths = 3;   // CpuPath's values, in order

// The scalar kernels, then (only for a path this CPU supports, since the fill
// functions are compiled with the path's instruction set) the SIMD ones.
Kernels build(CpuPath path)
{
    Kernels k;
    k.path = path;
    k.rmsNorm = generic::rmsNorm;
    k.swiglu = generic::swiglu;
    k.swigluOai = generic::swigluOai;
    k.geglu = generic::geglu;
    k.f32ToF16Row = generic::f32ToF16Row;
    k.attendHead = generic::attendHead;
    k.attendHeads = generic::attendHeads;
    k.attendOnline = generic::attendOnline;
    k.attendTiled = generic::attendTiled;
    k.attendOnlineQ8_0 = generic::attendOnlineQ8_0;
    k.deltaNetStep = generic::deltaNetStep;
    k.deltaNetChunk = generic::deltaNetChunk;
    if (!quant::cpuPathSupported(path)) {
        k.attendDecode = k.attendTiled;
        return k;
    }
#ifdef BURROW_OPS_X86
    if (path == CpuPath::CPU_PATH_AVX2 || path == CpuPath::CPU_PATH_AVX512) {
        x86::fillAvx2Elementwise(k);
        x86::fillAvx2Attention(k);
        x86::fillAvx2Flash(k);
        x86::fillAvx2DeltaNet(k);
        x86::fillAvx2Decode(k);
        if (quant::avxVnniAllowed())
            x86::fillAvxVnniFlashQ8(k);
        else
            x86::fillAvx2FlashQ8(k);
    }
    if (path == CpuPath::CPU_PATH_AVX512) {
        x86::fillAvx512Elementwise(k);
        x86::fillAvx512Attention(k);
        x86::fillAvx512Flash(k);
        x86::fillAvx512DeltaNet(k);
        x86::fillAvx512Decode(k);
        x86::fillAvx512FlashQ8(k);
    }
#endif
    if (!k.attendDecode)
        k.attendDecode = k.attendTiled;
    return k;
}

struct Tables {
    Kernels byPath[kPaths];
};

const Tables &tables()
{
    static const Tables t = [] {
        Tables init;
        for (int p = 0; p < kPaths; ++p)
            init.byPath[p] = build(static_cast<CpuPath>(p));
        return init;
    }();
    return t;
}

} // namespace

const Kernels &kernels()
{
    return tables().byPath[static_cast<int>(quant::activeCpuPath())];
}

} // namespace burrow::ops
