#!/usr/bin/env bash
# Writes the benchmark models of the 1- and 2-bit types and NVFP4
# (docs/benchmarks.md): a 1.1B TinyLlama-shaped model (burrow-cli synth's
# llama-1.1b preset, random weights, seed 1) as an F16 base, then that base
# quantized to TQ1_0, TQ2_0, Q1_0 and Q2_0 by the reference's llama-quantize,
# and to NVFP4 by burrow-cli quantize (llama-quantize has no NVFP4).
# Usage: scripts/make-lowbit-models.sh [DIR]          (default: build/models)
# Environment: LLAMA_QUANTIZE (the reference's llama-quantize; without it the
#   four types are written by burrow-cli quantize, which writes the same
#   bytes: tests/engine/tools/tst_quantize_lowbit), BURROW_CLI (default
#   build/release/engine/tools/burrow-cli), BURROW_JOBS (threads, default all).
# Idempotent: existing files are kept (delete one to write it again). About
# 3.4 GB in all, 2.2 GB of it the F16 base; not run by CI.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build/models}
cli=${BURROW_CLI:-$root/build/release/engine/tools/burrow-cli}
threads=${BURROW_JOBS:-$(nproc)}
quantize=${LLAMA_QUANTIZE:-}

if [[ ! -x "$cli" ]]; then
    echo "make-lowbit-models.sh: $cli not found; build it first (cmake --build build/release --target burrow-cli)" >&2
    exit 1
fi
if [[ -n "$quantize" && ! -x "$quantize" ]]; then
    echo "make-lowbit-models.sh: LLAMA_QUANTIZE=$quantize is not an executable" >&2
    exit 1
fi
mkdir -p "$dir"

base=$dir/llama-1.1b-F16.gguf
if [[ ! -f "$base" ]]; then
    "$cli" synth --preset llama-1.1b --type F16 --seed 1 -t "$threads" -q -o "$base" | tail -n 1
else
    echo "kept $base"
fi

for type in TQ1_0 TQ2_0 Q1_0 Q2_0 NVFP4; do
    out=$dir/llama-1.1b-$type.gguf
    if [[ -f "$out" ]]; then
        echo "kept $out"
        continue
    fi
    if [[ -n "$quantize" && "$type" != NVFP4 ]]; then
        "$quantize" "$base" "$out.part" "$type" "$threads" > "$out.log" 2>&1 || { cat "$out.log" >&2; exit 1; }
        mv "$out.part" "$out"
        echo "$out: written by $(basename "$quantize")"
    else
        "$cli" quantize "$base" "$out" "$type" -t "$threads" -q | tail -n 1
    fi
done
echo "make-lowbit-models.sh: done, in $dir"
