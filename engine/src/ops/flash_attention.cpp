#include "ops/flash_attention.h"
#include "ops/generic/generic_kernels.h"
#include "ops/kernels.h"

namespace burrow::ops {

void attendOnline(const KvView &kv, uint32_t first, uint32_t last, int nHeads, const float *const *q,
                  float *const *out, const float *sinks)
{
    kernels().attendOnline(kv, first, last, nHeads, q, out, sinks);
}

void attendOnlineQ8_0(const KvView &kv, uint32_t first, uint32_t last, int nHeads, const float *const *q,
                      float *const *out, const float *sinks)
{
    kernels().attendOnlineQ8_0(kv, first, last, nHeads, q, out, sinks);
}

void attendOnlineQ8_0Scalar(const KvView &kv, uint32_t first, uint32_t last, int nHeads, const float *const *q,
                            float *const *out, const float *sinks)
{
    generic::attendOnlineQ8_0(kv, first, last, nHeads, q, out, sinks);
}

void attendTiledQ8_0(const KvView &kv, const TileQuery *queries, int nq, float *scratch)
{
    const auto kernel = kernels().attendTiledQ8_0;
    (kernel ? kernel : generic::attendTiledQ8_0)(kv, queries, nq, scratchLine(scratch));
}

void attendTiledQ8_0Scalar(const KvView &kv, const TileQuery *queries, int nq, float *scratch)
{
    generic::attendTiledQ8_0(kv, queries, nq, scratchLine(scratch));
}

bool hasTiledQ8_0()
{
    return kernels().attendTiledQ8_0 != nullptr;
}

size_t tiledScratchFloats(int dk, int dv)
{
    // keys and values of a tile as floats, the accumulators, the queries
    // transposed, the scores of a tile (x86/avx512_flash.cpp's layout; the
    // other kernels use a prefix of it).
    const size_t k = static_cast<size_t>(dk), v = static_cast<size_t>(dv);
    // 16 more: the kernels start their layout on a 64-byte line (scratchLine).
    return kTileKeys * (k + v) + kTileCallQueries * v + k * kTileCallQueries + kTileKeys * kTileCallQueries + 16;
}

void attendTiled(const KvView &kv, const TileQuery *queries, int nq, float *scratch)
{
    kernels().attendTiled(kv, queries, nq, scratchLine(scratch));
}

void attendDecode(const KvView &kv, const TileQuery *queries, int nq, float *scratch)
{
    bool shared = nq <= kernels().attendDecodeQueries && kv.dk % 16 == 0 && kv.dv % 16 == 0;
    for (int i = 1; i < nq && shared; ++i)
        shared = queries[i].first == queries[0].first && queries[i].last == queries[0].last;
    if (shared)
        kernels().attendDecode(kv, queries, nq, scratchLine(scratch));
    else
        kernels().attendTiled(kv, queries, nq, scratchLine(scratch));
}

} // namespace burrow::ops
