#include "runtime/rope_tables.h"

#include <algorithm>
#include <cmath>

namespace burrow::runtime {

namespace {

// The reference's ggml_rope_yarn_corr_dim (float, as it computes it).
float corrDim(int nDims, uint32_t origCtx, float nRot, float base)
{
    return static_cast<float>(nDims) * std::log(static_cast<float>(origCtx) / (nRot * 2.0f * static_cast<float>(M_PI))) /
           (2.0f * std::log(base));
}

} // namespace

RopeTables::RopeTables(const model::ModelConfig &c, const float *factors)
    : m_nRot(static_cast<int>(c.maxNRot())), m_extFactor(c.yarnExtFactor), m_mscale(c.ropeAttnFactor)
{
    m_layerKind.resize(c.layers.size());   // the trunk and an MTP block
    for (uint32_t il = 0; il < c.layers.size(); ++il) {
        const model::LayerSpec &l = c.layers[il];
        const int nRot = static_cast<int>(l.nRot);
        const float *f = l.ropeFactors ? factors : nullptr;
        int kind = -1;
        for (size_t k = 0; k < m_kinds.size(); ++k)
            if (m_kinds[k].base == l.ropeFreqBase && m_kinds[k].scale == l.ropeFreqScale && m_kinds[k].nRot == nRot &&
                m_kinds[k].factors == f)
                kind = static_cast<int>(k);
        if (kind < 0) {
            Kind k;
            k.base = l.ropeFreqBase;
            k.scale = l.ropeFreqScale;
            k.nRot = nRot;
            k.factors = f;
            if (m_extFactor != 0.0f) {
                const float start = std::floor(corrDim(nRot, c.yarnOrigCtx, c.yarnBetaFast, k.base));
                const float end = std::ceil(corrDim(nRot, c.yarnOrigCtx, c.yarnBetaSlow, k.base));
                k.corrLow = std::max(0.0f, start);
                k.corrHigh = std::min(static_cast<float>(nRot - 1), end);
            }
            kind = static_cast<int>(m_kinds.size());
            m_kinds.push_back(k);
        }
        m_layerKind[il] = kind;
    }
    if (m_kinds.empty())
        m_kinds.push_back(Kind{c.ropeFreqBase, c.ropeFreqScale, static_cast<int>(c.nRot), factors, 0.0f, 0.0f});
    const uint32_t *sec = c.ropeSections;
    const uint32_t sectDims = sec[0] + sec[1] + sec[2] + sec[3];
    if (sectDims > 0) {
        m_still.assign(static_cast<size_t>(m_nRot / 2), 0);
        for (uint32_t i = 0; i < m_still.size(); ++i) {
            const uint32_t sector = i % sectDims;
            const bool positioned = (sector % 3 == 1 && sector < 3 * sec[1]) || (sector % 3 == 2 && sector < 3 * sec[2]) ||
                                    (sector % 3 == 0 && sector < 3 * sec[0]);
            m_still[i] = positioned ? 0 : 1;
        }
    }
}

void RopeTables::fill(float pos, int kind, float *cs, bool withMagnitude) const
{
    const Kind &k = m_kinds[static_cast<size_t>(kind)];
    const int nRot = k.nRot;
    const float thetaScale = std::pow(k.base, -2.0f / static_cast<float>(nRot));
    float mscale = withMagnitude ? m_mscale : 1.0f;
    if (m_extFactor != 0.0f && withMagnitude)
        mscale *= 1.0f + 0.1f * std::log(1.0f / k.scale);
    float theta = pos;
    for (int i0 = 0; i0 < nRot; i0 += 2) {
        const float ff = k.factors ? k.factors[i0 / 2] : 1.0f;
        const float extrap = !m_still.empty() && m_still[static_cast<size_t>(i0 / 2)] ? 0.0f : theta / ff;
        const float interp = k.scale * extrap;
        float t = interp;
        if (m_extFactor != 0.0f) {
            const float y = static_cast<float>(i0 / 2 - k.corrLow) / std::max(0.001f, k.corrHigh - k.corrLow);
            const float ramp = (1.0f - std::min(1.0f, std::max(0.0f, y))) * m_extFactor;
            t = interp * (1.0f - ramp) + extrap * ramp;
        }
        cs[i0] = std::cos(t) * mscale;
        cs[i0 + 1] = std::sin(t) * mscale;
        theta *= thetaScale;
    }
}

} // namespace burrow::runtime
