// IQ3_S as the reference's llama-quantize writes it without an importance
// matrix (quantize_iq3_s with blocks of 32): per 32 elements the signs are
// split off, 19 candidate scales are tried (grid levels from the
// magnitudes, an off-grid group of 4 replaced by its best neighbour among
// the grid points at the three smallest distances), the best by weighted
// least squares kept and refined once; then the 8 scales are coded in 4
// bits against the super-block's f16 d. Its float steps are the reference
// library's (plain single-precision operations in this order, no fused
// multiply-adds: the file is compiled with -ffp-contract=off), so the bytes
// are the same.
//
// The reference also advances its output pointers only for sub-blocks that
// are not all zero, so a zero sub-block shifts the next one's codes into
// its place; this is reproduced (the same bytes), not corrected.
#include "quant/generic/iq_kernels.h"

#include "quant/iq_grids.h"
#include "quant/quant_blocks.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

namespace burrow::quant::generic {

namespace {

constexpr int kMaxQ = 8;        // levels 0..7 (grid values 2l + 1)
constexpr int kBlock = 32;      // elements per sub-block
constexpr int kGroups = kBlock / 4;

// The 4 levels (0..7) of grid point j.
std::array<int, 4> levelsOf(int j)
{
    std::array<int, 4> l{};
    for (int i = 0; i < 4; ++i)
        l[static_cast<size_t>(i)] = ((kIq3sGrid[static_cast<size_t>(j)] >> (8 * i)) & 0xff) / 2;
    return l;
}

// map[u] for the 4096 level patterns u (3 bits per element): the grid index
// of a pattern on the grid, else -(offset + 1) of its neighbour list in
// `neighbours` (a count, then the grid points at the 3 smallest squared
// distances, nearest first, ties by index).
struct Iq3sTables {
    std::array<int, 4096> map{};
    std::vector<uint16_t> neighbours;
};

Iq3sTables buildTables()
{
    Iq3sTables t;
    t.map.fill(-1);
    for (int j = 0; j < 512; ++j) {
        const std::array<int, 4> l = levelsOf(j);
        t.map[static_cast<size_t>(l[0] | (l[1] << 3) | (l[2] << 6) | (l[3] << 9))] = j;
    }
    std::vector<std::pair<int, int>> dist(512);
    for (int u = 0; u < 4096; ++u) {
        if (t.map[static_cast<size_t>(u)] >= 0)
            continue;
        for (int j = 0; j < 512; ++j) {
            const std::array<int, 4> l = levelsOf(j);
            int d2 = 0;
            for (int i = 0; i < 4; ++i) {
                const int diff = (2 * l[static_cast<size_t>(i)] + 1) - (2 * ((u >> (3 * i)) & 7) + 1);
                d2 += diff * diff;
            }
            dist[static_cast<size_t>(j)] = {d2, j};
        }
        std::sort(dist.begin(), dist.end());
        const size_t start = t.neighbours.size();
        t.map[static_cast<size_t>(u)] = -static_cast<int>(start) - 1;
        t.neighbours.push_back(0);
        int have = 1, d2 = dist[0].first;
        for (const auto &[d, j] : dist) {
            if (d > d2) {
                if (have == 3)
                    break;
                d2 = d;
                ++have;
            }
            t.neighbours.push_back(static_cast<uint16_t>(j));
        }
        t.neighbours[start] = static_cast<uint16_t>(t.neighbours.size() - start - 1);
    }
    return t;
}

const Iq3sTables &tables()
{
    static const Iq3sTables t = buildTables();
    return t;
}

// The neighbour of least weighted squared error (scale * grid - x); its
// levels into L, its grid index returned.
int bestNeighbour(const uint16_t *nb, const float *xval, const float *weight, float scale, int8_t *L)
{
    float best = 3.402823466e+38f;
    int index = nb[1];
    for (int j = 1; j <= nb[0]; ++j) {
        const uint32_t g = kIq3sGrid[nb[j]];
        float d2 = 0;
        for (int i = 0; i < 4; ++i) {
            const float diff = scale * static_cast<float>((g >> (8 * i)) & 0xff) - xval[i];
            d2 += weight[i] * diff * diff;
        }
        if (d2 < best) {
            best = d2;
            index = nb[j];
        }
    }
    const std::array<int, 4> l = levelsOf(index);
    for (int i = 0; i < 4; ++i)
        L[i] = static_cast<int8_t>(l[static_cast<size_t>(i)]);
    return index;
}

int clampLevel(float v, int hi) { return std::max(0, std::min(hi, nearestInt(v))); }

int patternOf(const int8_t *L) { return L[0] | (L[1] << 3) | (L[2] << 6) | (L[3] << 9); }

// Levels of the 8 groups of a sub-block at inverse scale id; off-grid groups
// replaced by their best neighbour at `scale`; onGrid[k] says which were on it.
void levelsAt(const Iq3sTables &t, float id, float scale, const float *xval, const float *waux, int8_t *L, bool *onGrid)
{
    for (int k = 0; k < kGroups; ++k) {
        for (int i = 0; i < 4; ++i)
            L[4 * k + i] = static_cast<int8_t>(clampLevel(0.5f * (id * xval[4 * k + i] - 1), kMaxQ - 1));
        const int m = t.map[static_cast<size_t>(patternOf(L + 4 * k))];
        onGrid[k] = m >= 0;
        if (m < 0)
            bestNeighbour(t.neighbours.data() + (-m - 1), xval + 4 * k, waux + 4 * k, scale, L + 4 * k);
    }
}

void sums(const float *weight, const float *xval, const int8_t *L, float *sumqx, float *sumq2)
{
    *sumqx = 0;
    *sumq2 = 0;
    for (int i = 0; i < kBlock; ++i) {
        const float w = weight[i], q = static_cast<float>(2 * L[i] + 1);
        *sumqx += w * xval[i] * q;
        *sumq2 += w * q * q;
    }
}

// One sub-block: its levels L, sign bytes and scale (the reference's search).
float quantizeSubBlock(const Iq3sTables &t, const float *xb, int8_t *L, uint8_t *signs)
{
    float weight[kBlock], waux[kBlock], xval[kBlock];
    for (int i = 0; i < kBlock; ++i) {
        weight[i] = xb[i] * xb[i];
        waux[i] = std::sqrt(weight[i]);
    }
    for (int k = 0; k < kBlock / 8; ++k) {
        uint8_t s = 0;
        for (int i = 0; i < 8; ++i) {
            if (xb[8 * k + i] >= 0) {
                xval[8 * k + i] = xb[8 * k + i];
            } else {
                xval[8 * k + i] = -xb[8 * k + i];
                s = static_cast<uint8_t>(s | (1 << i));
            }
        }
        signs[k] = s;
    }
    float max = xval[0];
    for (int i = 1; i < kBlock; ++i)
        max = max > xval[i] ? max : xval[i];
    std::memset(L, 0, kBlock);
    if (max == 0)
        return -1;   // all zero: nothing written (see the file comment)
    float best = 0, scale = max / static_cast<float>(2 * kMaxQ - 1);
    bool onGrid[kGroups] = {};
    for (int is = -9; is <= 9; ++is) {
        const float id = (static_cast<float>(2 * kMaxQ - 1) + static_cast<float>(is) * 0.2f) / max;
        int8_t Laux[kBlock];
        bool onGridAux[kGroups];
        levelsAt(t, id, 1 / id, xval, waux, Laux, onGridAux);
        float sumqx, sumq2;
        sums(weight, xval, Laux, &sumqx, &sumq2);
        if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
            scale = sumqx / sumq2;
            best = scale * sumqx;
            std::memcpy(L, Laux, kBlock);
            std::memcpy(onGrid, onGridAux, sizeof onGrid);
        }
    }
    if (std::count(onGrid, onGrid + kGroups, false) > 0 && scale > 0) {
        bool unused[kGroups];
        levelsAt(t, 1 / scale, scale, xval, waux, L, unused);
        float sumqx, sumq2;
        sums(weight, xval, L, &sumqx, &sumq2);
        if (sumq2 > 0)
            scale = sumqx / sumq2;
    }
    if (scale < 0) {
        scale = -scale;
        for (int k = 0; k < kBlock / 8; ++k)
            signs[k] = static_cast<uint8_t>(~signs[k]);
    }
    return scale;
}

} // namespace

void quantizeRowIQ3_S(const float *src, void *dst, int64_t n)
{
    const Iq3sTables &t = tables();
    auto *y = static_cast<BlockIQ3_S *>(dst);
    for (int64_t ibl = 0; ibl < n / QK_K; ++ibl, src += QK_K) {
        BlockIQ3_S &b = y[ibl];
        std::memset(&b, 0, sizeof b);
        uint8_t *qs = b.qs, *signs = b.signs;
        float scales[QK_K / kBlock] = {};
        float maxScale = 0;
        for (int ib = 0; ib < QK_K / kBlock; ++ib) {
            int8_t L[kBlock];
            uint8_t blockSigns[kBlock / 8];
            const float scale = quantizeSubBlock(t, src + kBlock * ib, L, blockSigns);
            if (scale < 0)
                continue;
            for (int k = 0; k < kGroups; ++k) {
                const int index = t.map[static_cast<size_t>(patternOf(L + 4 * k))];   // on the grid by construction
                qs[k] = static_cast<uint8_t>(index & 255);
                b.qh[(ib * kGroups + k) / 8] = static_cast<uint8_t>(b.qh[(ib * kGroups + k) / 8] | ((index >> 8) << ((ib * kGroups + k) % 8)));
            }
            qs += kGroups;
            std::memcpy(signs, blockSigns, sizeof blockSigns);
            signs += sizeof blockSigns;
            scales[ib] = scale;
            maxScale = maxScale > scale ? maxScale : scale;
        }
        if (maxScale == 0)
            continue;
        const float d = maxScale / 31;
        b.d = fp32ToFp16(d * 1.033f);
        const float id = 1 / d;
        for (int ib = 0; ib < QK_K / kBlock; ib += 2) {
            const int l1 = clampLevel(0.5f * (id * scales[ib] - 1), 15);
            const int l2 = clampLevel(0.5f * (id * scales[ib + 1] - 1), 15);
            b.scales[ib / 2] = static_cast<uint8_t>(l1 | (l2 << 4));
        }
    }
}

} // namespace burrow::quant::generic
