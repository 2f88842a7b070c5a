// The RoPE angles of a model, per kind of layer: layers differ in base and
// frequency scale (gemma3's sliding layers use rope.freq_base_swa unscaled,
// its global layers the file's linear scaling), in rotated dims and in
// whether rope_freqs divides their angles (gemma4: sliding layers turn 64
// dims without factors, global layers 128 with the "proportional" factors),
// and YaRN (gpt-oss) blends interpolated and extrapolated angles and scales
// their magnitude.
//
// For dimension pair i < nRot/2 at position p (the reference's
// ggml_rope_cache_init / rope_yarn, step by step in float):
//   theta_extrap = p * base^(-2i/nRot) / factors[i]   (theta advanced by repeated multiplication)
//   theta_interp = scale * theta_extrap
//   YaRN (extFactor != 0): ramp = (1 - clamp((i - low) / max(0.001, high - low), 0, 1)) * extFactor,
//       theta = theta_interp (1 - ramp) + theta_extrap ramp, mscale *= 1 + 0.1 ln(1 / scale)
//   cs[2i] = cos(theta) mscale, cs[2i + 1] = sin(theta) mscale
// with low/high the correction dims floor/ceil(nRot ln(origCtx / (2 pi beta)) / (2 ln base))
// for beta_fast and beta_slow, clamped to [0, nRot - 1], and mscale the
// model's ropeAttnFactor.
//
// Multi-section RoPE of text tokens (ModelConfig::ropeSections, qwen35's
// IMROPE): pair i's section is i % sum(sections), interleaved as the
// reference's ggml_mrope_cache_init assigns them (sector % 3 == 1 below
// 3 s1: h, % 3 == 2 below 3 s2: w, % 3 == 0 below 3 s0: t, else the fourth);
// t, h and w are the token's position, the fourth is 0, so those pairs get
// theta 0 (cos = mscale, sin = 0).
//
// A rotation by a position difference (context shift) uses the same angles
// with magnitude 1: theta is linear in p, so rotating a roped key by the
// angles of -d moves it to p - d exactly (up to rounding).
#pragma once

#include "model/model_config.h"

#include <cstdint>
#include <vector>

namespace burrow::runtime {

class RopeTables {
public:
    // factors: the model's rope_freqs (nRot/2 divisors) or null.
    RopeTables(const model::ModelConfig &config, const float *factors);

    // Kinds of layers with different angles (1 or 2 for the supported models).
    int kindCount() const { return static_cast<int>(m_kinds.size()); }
    int kindOf(uint32_t layer) const { return m_layerKind[layer]; }
    // The largest rotated dims of any kind (the stride of a table of cs rows).
    int nRot() const { return m_nRot; }
    int nRot(int kind) const { return m_kinds[static_cast<size_t>(kind)].nRot; }

    // cs: nRot(kind) floats (cos, sin per pair) at `pos` for layers of `kind`.
    // withMagnitude false: unit magnitude (a pure rotation, for shifts).
    void fill(float pos, int kind, float *cs, bool withMagnitude = true) const;

private:
    struct Kind {
        float base = 10000.0f;
        float scale = 1.0f;
        int nRot = 0;
        const float *factors = nullptr;   // rope_freqs, or null
        float corrLow = 0.0f, corrHigh = 0.0f;
    };
    std::vector<Kind> m_kinds;
    std::vector<int> m_layerKind;
    int m_nRot = 0;
    float m_extFactor = 0.0f;
    float m_mscale = 1.0f;
    std::vector<uint8_t> m_still;   // per pair: 1 when its angle is that of position 0 (sections)
};

} // namespace burrow::runtime
