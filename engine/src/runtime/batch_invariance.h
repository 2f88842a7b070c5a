// Batch invariance: the logits of a position are bit-identical whether it is
// computed alone, in a prompt chunk, in a verification pass of draft tokens,
// or batched with other sequences (so a reply never depends on what else the
// engine is doing, and speculative decoding cannot change an answer).
//
// Every output element keeps one reduction order whatever the batch:
//   - matrix multiplies take one form per type for all rows: Q4_K and F32
//     their batch forms (vecDotGemm: the reference's prompt forms; F32 for
//     the expert routers, whose choices a rounding difference can flip),
//     every other type its one-token form (vecDot: the reference's
//     generation form);
//     packed and tiled kernels included (bit-identical to those per row);
//     activation rows are quantized one by one already;
//   - flash attention chooses its kernel by the query's position, not by
//     the chunk: positions below kTileQueries (64) through the one-query
//     kernel (attendOnline, F16 accumulator: what the reference computes
//     for generation and for prompts shorter than 64), positions from 64 on
//     through attendTiled (F32 accumulators, the reference's kernel for long
//     prompt chunks; its result per query does not depend on the queries
//     sharing a call, the key tiles being aligned to absolute positions; a
//     single row's heads through attendDecode, attendTiled's bits). A
//     Q8_0 cache: the same by position, attendOnlineQ8_0 below 64 and
//     attendTiledQ8_0 from 64 on, where the CPU path has the tiled Q8_0
//     kernel (ops::hasTiledQ8_0; else attendOnlineQ8_0 for every query);
//   - attention without flash runs every (token, KV head) through
//     attendHeads (no multi-query attendBlock);
//   - Gated DeltaNet layers advance their state one token at a time
//     (deltaNetStep), never in chunks;
//   - norms, RoPE, routing and the experts' weighted sums are per row.
//
// The opt-out (BURROW_BATCH_INVARIANT=0 in the environment, or
// setBatchInvariant(false)) restores the reference engine's choice of forms
// per batch size (with it, every fixture's prompt logits and greedy tokens
// are the reference's: tst_parity_reference_forms): Q4_K / Q2_K / F32 / F16 / BF16 multiplies of several rows
// in the reference's batch-kernel form, the tiled flash kernel for every
// row of a prompt chunk of 64 rows or more and the one-query kernel for
// every other row, prompts without flash through attendBlock, DeltaNet
// prompts in chunks. It is faster on prompts without flash (attendBlock)
// and on qwen35 prompts (chunked DeltaNet); results then move by float
// rounding with the batch, so a reply may change with what else the engine
// is doing, and speculative decoding is no longer exact.
#pragma once

namespace burrow::runtime {

// Process-wide; read once from BURROW_BATCH_INVARIANT (default on).
bool batchInvariant();
// Tests and benchmarks; not thread-safe against a running forward pass.
void setBatchInvariant(bool on);

} // namespace burrow::runtime
