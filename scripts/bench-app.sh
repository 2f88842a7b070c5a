#!/usr/bin/env bash
# The app's generation speed beside `burrow-cli run` on the same model and
# settings (greedy, repeat penalty 1, 2 threads, context 4096: the app's default), and the GUI
# thread's CPU while the reply streams (docs/benchmarks.md, "The app").
# Runs the app in a real window under Xvfb (`burrow --bench`), each run with
# a fresh data folder.
#   scripts/bench-app.sh [MODEL] [TOKENS] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BURROW_BUILD:-build/release}
model=${1:-../shared/models/bench/llama-155M-Q4_K_M.gguf}
tokens=${2:-256}
runs=${3:-3}
prompt=${BURROW_BENCH_PROMPT:-Once upon a time}
[ -f "$model" ] || { echo "bench-app: no model at $model" >&2; exit 2; }
command -v xvfb-run >/dev/null || { echo "bench-app: xvfb-run is needed" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for run in $(seq "$runs"); do
    cli=$("$build/engine/tools/burrow-cli" run -m "$model" -p "$prompt" -n "$tokens" -t 2 -c 4096 \
          --temp 0 --repeat-penalty 1 --no-display-prompt 2>&1 >/dev/null | grep '^generation:' || true)
    echo "run $run cli: $cli"
    echo "$cli" | sed -n 's/.*(\([0-9.]*\) tokens\/s).*/\1/p' >> "$tmp/cli"
    app=$(XDG_DATA_HOME="$tmp/data$run" XDG_CONFIG_HOME="$tmp/config$run" XDG_RUNTIME_DIR="$tmp" \
          QT_QUICK_CONTROLS_STYLE=Fusion xvfb-run -a -s "-screen 0 1280x800x24" \
          "$build/app/burrow" --bench "$prompt" --bench-tokens "$tokens" "$model" 2>/dev/null | grep '^{' || true)
    echo "run $run app: $app"
    echo "$app" | sed -n 's/.*"tokens_per_second": \([0-9.]*\).*/\1/p' >> "$tmp/app"
done
# Medians of the alternating rounds, and the app's speed as a share of the CLI's.
median() { sort -g "$1" | awk '{v[NR]=$1} END {if (NR==0) print 0; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
c=$(median "$tmp/cli"); a=$(median "$tmp/app")
awk -v c="$c" -v a="$a" -v n="$runs" 'BEGIN {printf "median of %d rounds: cli %.1f tokens/s, app %.1f tokens/s, app/cli %.3f\n", n, c, a, (c > 0 ? a / c : 0)}'
