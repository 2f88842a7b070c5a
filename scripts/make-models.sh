#!/usr/bin/env bash
# Writes the benchmark models (docs/benchmarks.md) with burrow-cli synth:
#   llama-1.1b and llama-3b (random weights in Llama shapes) in Q4_K_M, Q5_K_M,
#   Q6_K, Q8_0, Q4_0 and IQ4_XS; qwen3moe-1b (64 experts, 8 active) and
#   dense-for-qwen3moe-1b (a dense qwen3 of its active size) in Q4_K_M;
#   qwen35-1b (Gated DeltaNet beside attention) and its all-recurrent and
#   all-attention twins in Q4_K_M; llama-1.1b-32k and llama-3b-32k (the same
#   shapes with a trained context of 32768, for long prompts) in Q4_K_M.
#   Only when BURROW_MODELS names them: gemma4-e4b-Q4_K_M (2.7 GiB) and
#   gemma4-26b-a4b-Q4_K_M (15.1 GiB), Gemma 4's E4B and 26B-A4B shapes
#   (trained context 32768), and their 1 B kin gemma4-e-1b-Q4_K_M and
#   gemma4moe-1b-Q4_K_M.
# Usage: scripts/make-models.sh [DIR]          (default: build/models)
# Environment: BURROW_CLI (default build/release/engine/tools/burrow-cli),
#   BURROW_JOBS (threads, default: all), BURROW_MODELS (a space-separated
#   subset of the names below, e.g. "llama-1.1b-Q4_K_M qwen3moe-1b-Q4_K_M").
# Idempotent: a file that exists with the size burrow-cli synth --dry-run
# gives for it is kept; anything else (missing, partial, another size) is
# written again. About 21 GB in all; not run by CI. Prints each file, its size
# and the time it took (wall clock, and CPU time over all threads).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build/models}
cli=${BURROW_CLI:-$root/build/release/engine/tools/burrow-cli}
threads=${BURROW_JOBS:-$(nproc)}
seed=1

if [[ ! -x "$cli" ]]; then
    echo "make-models.sh: $cli not found; build it first (cmake --build build/release --target burrow-cli)" >&2
    exit 1
fi
mkdir -p "$dir"

# name preset type [synth options]
models=()
for preset in llama-1.1b llama-3b; do
    for type in Q4_K_M Q5_K_M Q6_K Q8_0 Q4_0 IQ4_XS; do
        models+=("$preset-$type $preset $type")
    done
done
models+=("qwen3moe-1b-Q4_K_M qwen3moe-1b Q4_K_M")
models+=("dense-for-qwen3moe-1b-Q4_K_M dense-for-qwen3moe-1b Q4_K_M")
for preset in qwen35-1b qwen35-1b-recurrent qwen35-1b-attention; do
    models+=("$preset-Q4_K_M $preset Q4_K_M")
done
for preset in llama-1.1b llama-3b; do
    models+=("$preset-32k-Q4_K_M $preset Q4_K_M --ctx 32768")
done

# Made only when BURROW_MODELS names them (not in the 21 GB above).
optional=()
for preset in gemma4-e4b gemma4-26b-a4b gemma4-e-1b gemma4moe-1b; do
    optional+=("$preset-Q4_K_M $preset Q4_K_M")
done
if [[ -n "${BURROW_MODELS:-}" ]]; then
    models+=("${optional[@]}")
fi

mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }

made=0 kept=0
for entry in "${models[@]}"; do
    read -r name preset type extra <<<"$entry"
    if [[ -n "${BURROW_MODELS:-}" && " $BURROW_MODELS " != *" $name "* ]]; then
        continue
    fi
    file=$dir/$name.gguf
    args=(synth --preset "$preset" --type "$type" --seed "$seed")
    if [[ -n "${extra:-}" ]]; then
        read -r -a more <<<"$extra"
        args+=("${more[@]}")
    fi
    want=$("$cli" "${args[@]}" --dry-run | awk '$1 == "file_size" { print $2 }')
    if [[ -f "$file" && $(stat -c %s "$file") == "$want" ]]; then
        printf '%-36s kept     %9s MiB\n' "$name.gguf" "$(mib "$want")"
        kept=$((kept + 1))
        continue
    fi
    # synth's summary: "FILE: ARCH TYPE, N tensors, P parameters (A active), S MiB, W s (C s CPU)"
    summary=$("$cli" "${args[@]}" -t "$threads" -q -o "$file" | tail -n 1)
    printf '%-36s written  %s\n' "$name.gguf" "${summary#*: }"
    made=$((made + 1))
done
echo "make-models.sh: $made written, $kept kept, in $dir"
