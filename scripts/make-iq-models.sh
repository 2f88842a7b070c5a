#!/usr/bin/env bash
# Writes the benchmark models of the lattice i-quants (docs/benchmarks.md):
# llama-1.1b (random weights, Llama shape) in IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS,
# IQ2_S, IQ2_M, IQ3_XXS, IQ3_S and IQ3_M, each with the reference quantizer's
# own per-tensor mixture. burrow-cli cannot write these types, so they come
# from the reference engine's tools, built outside the repository:
#   1. burrow-cli synth writes the F32 base (4.1 GiB; kept);
#   2. llama-imatrix computes an importance matrix over this repository's
#      docs/*.md (the IQ1, IQ2 and IQ3_XXS quantizers refuse to run without
#      one; for random weights any text will do);
#   3. llama-quantize --imatrix writes each type.
# Usage: LLAMA_BIN=/path/to/llama.cpp/build/bin scripts/make-iq-models.sh [DIR]
#        (default DIR: build/models). BURROW_CLI, BURROW_JOBS as make-models.sh;
#        BURROW_IQ_TYPES: a space-separated subset of the types above;
#        BURROW_IQ_BASE: an existing base file to start from instead of the
#        F32 one (e.g. the F16 of make-lowbit-models.sh: half the reads);
#        LLAMA_QUANTIZE_ARGS: options passed to llama-quantize before its
#        arguments (with ik_llama.cpp's quantizer, whose default mixtures
#        use its own types that other engines cannot read: e.g.
#        "--custom-q attn_v=q4_K,attn_output=iq2_xxs").
# Idempotent: files that exist are kept (delete one to make it again).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build/models}
cli=${BURROW_CLI:-$root/build/release/engine/tools/burrow-cli}
threads=${BURROW_JOBS:-$(nproc)}
types=${BURROW_IQ_TYPES:-"IQ1_S IQ1_M IQ2_XXS IQ2_XS IQ2_S IQ2_M IQ3_XXS IQ3_S IQ3_M"}
bin=${LLAMA_BIN:?set LLAMA_BIN to the bin folder of the reference build (llama-imatrix, llama-quantize)}

for tool in "$cli" "$bin/llama-imatrix" "$bin/llama-quantize"; do
    if [[ ! -x "$tool" ]]; then
        echo "make-iq-models.sh: $tool not found" >&2
        exit 1
    fi
done
mkdir -p "$dir"

base=${BURROW_IQ_BASE:-$dir/llama-1.1b-F32.gguf}
if [[ ! -f "$base" ]]; then
    "$cli" synth --preset llama-1.1b --type F32 --seed 1 -t "$threads" -q -o "$base"
fi

imatrix=$dir/llama-1.1b.imatrix.gguf
if [[ ! -f "$imatrix" ]]; then
    text=$dir/imatrix-text.txt
    cat "$root"/docs/*.md > "$text"
    "$bin/llama-imatrix" -m "$base" -f "$text" -o "$imatrix" -c 512 --chunks 4 -t "$threads" --no-ppl
fi

for type in $types; do
    out=$dir/llama-1.1b-$type.gguf
    if [[ -f "$out" ]]; then
        echo "$(basename "$out") kept"
        continue
    fi
    # shellcheck disable=SC2086 # the options are words
    "$bin/llama-quantize" ${LLAMA_QUANTIZE_ARGS:-} --imatrix "$imatrix" "$base" "$out.part" "$type" "$threads" > "$out.log" 2>&1
    mv "$out.part" "$out"
    echo "$(basename "$out") written ($(du -h "$out" | cut -f1))"
done
