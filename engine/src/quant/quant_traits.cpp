#include "quant/quant_traits.h"

#include "common/log.h"
#include "quant/cpu_features.h"
#include "quant/generic/generic_kernels.h"
#include "quant/generic/lowbit_kernels.h"
#include "quant/generic/iq_kernels.h"
#ifdef BURROW_QUANT_X86
#include "quant/x86/iq_simd.h"
#include "quant/x86/x86_kernels.h"
#include "quant/x86/x86_lowbit.h"
#endif

#include <array>
#include <cstdlib>
#include <mutex>
#include <string>

namespace burrow::quant {

namespace {

using T = GgmlType;

struct Table {
    std::array<TypeTraits, GGML_TYPE_ID_LIMIT> rows{};
    std::array<bool, GGML_TYPE_ID_LIMIT> present{};
    CpuPath path = CpuPath::CPU_PATH_SCALAR;
};

constexpr T kWeightTypes[] = {
    T::GGML_TYPE_F32, T::GGML_TYPE_F16, T::GGML_TYPE_BF16, T::GGML_TYPE_Q4_0, T::GGML_TYPE_Q4_1,
    T::GGML_TYPE_Q5_0, T::GGML_TYPE_Q5_1, T::GGML_TYPE_Q8_0, T::GGML_TYPE_Q2_K, T::GGML_TYPE_Q3_K,
    T::GGML_TYPE_Q4_K, T::GGML_TYPE_Q5_K, T::GGML_TYPE_Q6_K, T::GGML_TYPE_IQ4_NL, T::GGML_TYPE_IQ4_XS,
    T::GGML_TYPE_MXFP4,
    T::GGML_TYPE_TQ1_0, T::GGML_TYPE_TQ2_0, T::GGML_TYPE_Q1_0, T::GGML_TYPE_Q2_0, T::GGML_TYPE_NVFP4,
    // the lattice i-quants (generic/iq_kernels.h)
    T::GGML_TYPE_IQ1_S, T::GGML_TYPE_IQ1_M, T::GGML_TYPE_IQ2_XXS, T::GGML_TYPE_IQ2_XS, T::GGML_TYPE_IQ2_S,
    T::GGML_TYPE_IQ3_XXS, T::GGML_TYPE_IQ3_S,
};

// A row; dot may be null (activation-only formats), multi is its loop
// fallback (SIMD fills replace both).
void setRowWith(Table &t, T type, DequantizeRowFn deq, QuantizeRowFn q, VecDotFn dot, VecDotMultiFn multi,
                T dotType, VecDotFn gemm = nullptr, VecDotMultiFn multiGemm = nullptr)
{
    const GgmlTypeInfo *info = ggmlTypeInfo(type);
    const auto id = static_cast<size_t>(type);
    const bool isActivation = type == T::GGML_TYPE_F32 || type == T::GGML_TYPE_F16 || type == T::GGML_TYPE_BF16
                           || type == T::GGML_TYPE_Q8_0 || type == T::GGML_TYPE_Q8_1 || type == T::GGML_TYPE_Q8_K;
    t.rows[id] = TypeTraits{type, info->name, info->blockSize, info->typeSize, deq, q, dot, dotType,
                            isActivation ? q : nullptr, multi, gemm ? gemm : dot, multiGemm ? multiGemm : multi};
    t.present[id] = true;
}

template <VecDotFn Dot>
void setRow(Table &t, T type, DequantizeRowFn deq, QuantizeRowFn q, T dotType)
{
    setRowWith(t, type, deq, q, Dot, vecDotMultiLoop<Dot>, dotType);
}

template <VecDotFn Dot, VecDotFn Gemm>
void setRowGemm(Table &t, T type, DequantizeRowFn deq, QuantizeRowFn q, T dotType)
{
    setRowWith(t, type, deq, q, Dot, vecDotMultiLoop<Dot>, dotType, Gemm, vecDotMultiLoop<Gemm>);
}

void setActivationRow(Table &t, T type, DequantizeRowFn deq, QuantizeRowFn q)
{
    setRowWith(t, type, deq, q, nullptr, nullptr, type);
}

void fill(Table &t, CpuPath path)
{
    namespace g = generic;
    setRowGemm<g::vecDotF32, g::vecDotF32Gemm>(t, T::GGML_TYPE_F32, g::dequantizeRowF32, g::quantizeRowF32, T::GGML_TYPE_F32);
    setRowGemm<g::vecDotF16, g::vecDotF16Gemm>(t, T::GGML_TYPE_F16, g::dequantizeRowF16, g::quantizeRowF16, T::GGML_TYPE_F16);
    setRowGemm<g::vecDotBF16, g::vecDotBF16Gemm>(t, T::GGML_TYPE_BF16, g::dequantizeRowBF16, g::quantizeRowBF16, T::GGML_TYPE_BF16);
    setRow<g::vecDotQ4_0Q8_0>(t, T::GGML_TYPE_Q4_0, g::dequantizeRowQ4_0, g::quantizeRowQ4_0, T::GGML_TYPE_Q8_0);
    setRow<g::vecDotQ4_1Q8_1>(t, T::GGML_TYPE_Q4_1, g::dequantizeRowQ4_1, g::quantizeRowQ4_1, T::GGML_TYPE_Q8_1);
    setRow<g::vecDotQ5_0Q8_0>(t, T::GGML_TYPE_Q5_0, g::dequantizeRowQ5_0, g::quantizeRowQ5_0, T::GGML_TYPE_Q8_0);
    setRow<g::vecDotQ5_1Q8_1>(t, T::GGML_TYPE_Q5_1, g::dequantizeRowQ5_1, g::quantizeRowQ5_1, T::GGML_TYPE_Q8_1);
    setRow<g::vecDotQ8_0Q8_0>(t, T::GGML_TYPE_Q8_0, g::dequantizeRowQ8_0, g::quantizeRowQ8_0, T::GGML_TYPE_Q8_0);
    setActivationRow(t, T::GGML_TYPE_Q8_1, g::dequantizeRowQ8_1, g::quantizeRowQ8_1);
    setRowGemm<g::vecDotQ2_KQ8_K, g::vecDotQ2_KQ8_KGemm>(t, T::GGML_TYPE_Q2_K, g::dequantizeRowQ2_K, nullptr, T::GGML_TYPE_Q8_K);
    setRow<g::vecDotQ3_KQ8_K>(t, T::GGML_TYPE_Q3_K, g::dequantizeRowQ3_K, nullptr, T::GGML_TYPE_Q8_K);
    setRowGemm<g::vecDotQ4_KQ8_K, g::vecDotQ4_KQ8_KGemm>(t, T::GGML_TYPE_Q4_K, g::dequantizeRowQ4_K, g::quantizeRowQ4_K, T::GGML_TYPE_Q8_K);
    setRow<g::vecDotQ5_KQ8_K>(t, T::GGML_TYPE_Q5_K, g::dequantizeRowQ5_K, g::quantizeRowQ5_K, T::GGML_TYPE_Q8_K);
    setRow<g::vecDotQ6_KQ8_K>(t, T::GGML_TYPE_Q6_K, g::dequantizeRowQ6_K, g::quantizeRowQ6_K, T::GGML_TYPE_Q8_K);
    setActivationRow(t, T::GGML_TYPE_Q8_K, g::dequantizeRowQ8_K, g::quantizeRowQ8_K);
    setRow<g::vecDotIQ4_NLQ8_0>(t, T::GGML_TYPE_IQ4_NL, g::dequantizeRowIQ4_NL, g::quantizeRowIQ4_NL, T::GGML_TYPE_Q8_0);
    setRow<g::vecDotIQ4_XSQ8_K>(t, T::GGML_TYPE_IQ4_XS, g::dequantizeRowIQ4_XS, g::quantizeRowIQ4_XS, T::GGML_TYPE_Q8_K);
    setRow<g::vecDotMXFP4Q8_0>(t, T::GGML_TYPE_MXFP4, g::dequantizeRowMXFP4, g::quantizeRowMXFP4, T::GGML_TYPE_Q8_0);
    // 1- and 2-bit types and NVFP4 (generic/lowbit_kernels.h)
    setRow<g::vecDotTQ1_0Q8_K>(t, T::GGML_TYPE_TQ1_0, g::dequantizeRowTQ1_0, g::quantizeRowTQ1_0, T::GGML_TYPE_Q8_K);
    setRow<g::vecDotTQ2_0Q8_K>(t, T::GGML_TYPE_TQ2_0, g::dequantizeRowTQ2_0, g::quantizeRowTQ2_0, T::GGML_TYPE_Q8_K);
    setRow<g::vecDotQ1_0Q8_0>(t, T::GGML_TYPE_Q1_0, g::dequantizeRowQ1_0, g::quantizeRowQ1_0, T::GGML_TYPE_Q8_0);
    setRow<g::vecDotQ2_0Q8_0>(t, T::GGML_TYPE_Q2_0, g::dequantizeRowQ2_0, g::quantizeRowQ2_0, T::GGML_TYPE_Q8_0);
    setRow<g::vecDotNVFP4Q8_0>(t, T::GGML_TYPE_NVFP4, g::dequantizeRowNVFP4, g::quantizeRowNVFP4, T::GGML_TYPE_Q8_0);
    // The lattice i-quants: dot partner Q8_K, as the reference's CPU type traits.
    setRow<g::vecDotIQ2_XXSQ8_K>(t, T::GGML_TYPE_IQ2_XXS, g::dequantizeRowIQ2_XXS, nullptr, T::GGML_TYPE_Q8_K);
    setRow<g::vecDotIQ2_XSQ8_K>(t, T::GGML_TYPE_IQ2_XS, g::dequantizeRowIQ2_XS, nullptr, T::GGML_TYPE_Q8_K);
    setRow<g::vecDotIQ2_SQ8_K>(t, T::GGML_TYPE_IQ2_S, g::dequantizeRowIQ2_S, nullptr, T::GGML_TYPE_Q8_K);
    setRow<g::vecDotIQ3_XXSQ8_K>(t, T::GGML_TYPE_IQ3_XXS, g::dequantizeRowIQ3_XXS, nullptr, T::GGML_TYPE_Q8_K);
    setRow<g::vecDotIQ3_SQ8_K>(t, T::GGML_TYPE_IQ3_S, g::dequantizeRowIQ3_S, g::quantizeRowIQ3_S, T::GGML_TYPE_Q8_K);
    setRow<g::vecDotIQ1_SQ8_K>(t, T::GGML_TYPE_IQ1_S, g::dequantizeRowIQ1_S, nullptr, T::GGML_TYPE_Q8_K);
    setRow<g::vecDotIQ1_MQ8_K>(t, T::GGML_TYPE_IQ1_M, g::dequantizeRowIQ1_M, nullptr, T::GGML_TYPE_Q8_K);

#ifdef BURROW_QUANT_X86
    if (path == CpuPath::CPU_PATH_AVX2 || path == CpuPath::CPU_PATH_AVX512) {
        x86::fillAvx2(t.rows.data());
        x86::fillAvx2Lowbit(t.rows.data());
        x86::fillAvx2Iq(t.rows.data());
    }
    if (path == CpuPath::CPU_PATH_AVX512) {
        x86::fillAvx512(t.rows.data());
        x86::fillAvx512Lowbit(t.rows.data());
        x86::fillAvx512Iq(t.rows.data());
    }
#endif
    t.path = path;
}

CpuPath initialPath()
{
    CpuPath path = bestCpuPath();
    if (const char *env = std::getenv("BURROW_CPU_PATH"); env && *env) {
        CpuPath wanted;
        if (!cpuPathFromName(env, &wanted))
            logMessage(LogLevel::LOG_LEVEL_WARN, std::string("BURROW_CPU_PATH='") + env
                       + "' is not one of scalar, avx2, avx512; using " + cpuPathName(path));
        else if (!cpuPathSupported(wanted))
            logMessage(LogLevel::LOG_LEVEL_WARN, std::string("BURROW_CPU_PATH=") + env
                       + " is not supported by this CPU or build; using " + cpuPathName(path));
        else
            path = wanted;
    }
    return path;
}

Table &table()
{
    static Table t = [] {
        Table init;
        fill(init, initialPath());
        return init;
    }();
    return t;
}

} // namespace

int64_t gemmFormTokens(GgmlType type, int64_t K, int64_t nTokens, bool expertRows)
{
    if (expertRows || nTokens < 2)
        return 0;
    switch (type) {
    case T::GGML_TYPE_Q4_K:
    case T::GGML_TYPE_Q2_K: return nTokens - nTokens % 4;
    case T::GGML_TYPE_F32:
    case T::GGML_TYPE_F16: return K % 16 == 0 ? nTokens : 0;
    case T::GGML_TYPE_BF16: return K % 32 == 0 ? nTokens : 0;
    default: return 0;
    }
}

const TypeTraits *typeTraits(GgmlType type)
{
    const auto id = static_cast<size_t>(type);
    Table &t = table();
    if (id >= t.rows.size() || !t.present[id])
        return nullptr;
    return &t.rows[id];
}

bool isSupportedWeightType(GgmlType type)
{
    for (T w : kWeightTypes)
        if (w == type)
            return true;
    return false;
}

const char *supportedWeightTypesText()
{
    return "F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS, MXFP4, "
           "TQ1_0, TQ2_0, Q1_0, Q2_0, NVFP4, IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S";
}

Status checkWeightType(GgmlType type, std::string_view tensorName)
{
    if (isSupportedWeightType(type))
        return Status::ok();
    return Status::error("tensor '" + std::string(tensorName) + "' has type " + ggmlTypeName(type)
                         + ", which Burrow cannot compute with (supported: " + supportedWeightTypesText() + ")");
}

CpuPath activeCpuPath()
{
    return table().path;
}

bool setCpuPath(CpuPath path)
{
    if (!cpuPathSupported(path))
        return false;
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    fill(table(), path);
    return true;
}

} // namespace burrow::quant
