#!/usr/bin/env bash
# The copy-heavy speculative-decoding benchmark (docs/benchmarks.md, issue 30):
# a 1.1B-shaped model scripted (burrow-cli synth --script) to repeat a text of
# 240 distinct one-token words it was shown, and that prompt. Writes
#   DIR/llama-1.1b-copy-Q4_K_M.gguf   and   DIR/copy-prompt.txt
# ("Copy this:<words>" and the newline that starts the script).
# Usage: scripts/make-copy-model.sh [DIR]   (default build/models; BURROW_CLI)
# Then:  burrow-cli bench -m DIR/llama-1.1b-copy-Q4_K_M.gguf --spec ngram -n 200 \
#            -t 2 -r 3 --spec-prompt-file DIR/copy-prompt.txt
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build/models}
cli=${BURROW_CLI:-$root/build/release/engine/tools/burrow-cli}
mkdir -p "$dir"
base=$dir/llama-1.1b-copy-vocab.gguf   # a tiny file with the 1.1B's synth vocabulary
[[ -f $base ]] || "$cli" synth --preset llama-tiny --vocab 32000 --type Q8_0 -q -o "$base"
# the words: lowercase pieces " xyz" of 4+ bytes, each its own token, first seen first
words=$(cat "$root"/docs/*.md | "$cli" tokenize -m "$base" --stdin --no-bos |
        sed -n "s/^ *[0-9]* ' \([a-z][a-z][a-z]*\)'$/\1/p" | awk 'length($0) >= 3 && !seen[$0]++' | head -n 240)
script='\n'
text=''
for w in $words; do script+=" _$w"; text+=" $w"; done
printf 'Copy this:%s\n' "$text" > "$dir/copy-prompt.txt"
out=$dir/llama-1.1b-copy-Q4_K_M.gguf
[[ -f $out ]] || "$cli" synth --preset llama-1.1b --untied --type Q4_K_M --seed 1 -q --script "$script" -o "$out"
echo "$out, $dir/copy-prompt.txt ($(echo "$words" | wc -l) words)"
