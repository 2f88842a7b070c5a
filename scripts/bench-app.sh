#!/usr/bin/env bash
# The app's generation speed beside `burrow-cli run` on the same model and
# settings (greedy, repeat penalty 1, 2 threads, context 4096 clamped to the
# model's trained length, as the app's automatic context is), and the GUI
# thread's CPU while the reply streams (docs/benchmarks.md, "The app").
# Runs the app in a real window under one Xvfb (`burrow --bench`), each run
# with a fresh data folder, and reports what drawing costs beside the engine:
# the CPU of the app's threads other than the engine's (GUI, render thread,
# llvmpipe) and of the X server, per second of generation.
#   scripts/bench-app.sh [MODEL] [TOKENS] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BURROW_BUILD:-build/release}
model=${1:-../shared/models/bench/llama-155M-Q4_K_M.gguf}
tokens=${2:-256}
runs=${3:-3}
prompt=${BURROW_BENCH_PROMPT:-Once upon a time}
[ -f "$model" ] || { echo "bench-app: no model at $model" >&2; exit 2; }
command -v Xvfb >/dev/null || { echo "bench-app: Xvfb is needed (apt install xvfb)" >&2; exit 2; }
tmp=$(mktemp -d)
display=:$(( 90 + RANDOM % 100 ))
Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; rm -rf "$tmp"' EXIT
sleep 1
kill -0 $xvfb 2>/dev/null || { echo "bench-app: Xvfb did not start on $display" >&2; exit 2; }
# The X server's CPU so far, in ms (utime + stime of /proc/PID/stat, in clock ticks).
xcpu() { awk -v hz="$(getconf CLK_TCK)" '{sub(/.*\) /, ""); print ($12 + $13) * 1000 / hz}' "/proc/$xvfb/stat"; }
for run in $(seq "$runs"); do
    cli=$("$build/engine/tools/burrow-cli" run -m "$model" -p "$prompt" -n "$tokens" -t 2 -c 4096 \
          --temp 0 --repeat-penalty 1 --no-display-prompt 2>&1 >/dev/null | grep '^generation:' || true)
    echo "run $run cli: $cli"
    echo "$cli" | sed -n 's/.*(\([0-9.]*\) tokens\/s).*/\1/p' >> "$tmp/cli"
    x0=$(xcpu)
    app=$(DISPLAY=$display XDG_DATA_HOME="$tmp/data$run" XDG_CONFIG_HOME="$tmp/config$run" XDG_RUNTIME_DIR="$tmp" \
          QT_QUICK_CONTROLS_STYLE=Fusion QT_QPA_PLATFORM=xcb \
          "$build/app/burrow" --bench "$prompt" --bench-tokens "$tokens" "$model" 2>/dev/null | grep '^{' || true)
    x1=$(xcpu)
    echo "run $run app: $app"
    echo "run $run X server: $(awk -v a="$x0" -v b="$x1" 'BEGIN {print b - a}') ms CPU (app start to quit)"
    echo "$app" | sed -n 's/.*"tokens_per_second": \([0-9.]*\).*/\1/p' >> "$tmp/app"
    # Drawing's CPU per second of generation: the app's non-engine threads.
    echo "$app" | sed -n 's/.*"generate_ms": \([0-9.]*\).*"other_cpu_ms": \([0-9.]*\).*/\2 \1/p' |
        awk '{ if ($2 > 0) print $1 / $2 * 1000 }' >> "$tmp/other"
done
# Medians of the alternating rounds, and the app's speed as a share of the CLI's.
median() { sort -g "$1" | awk '{v[NR]=$1} END {if (NR==0) print 0; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
c=$(median "$tmp/cli"); a=$(median "$tmp/app")
o=$(median "$tmp/other")
awk -v c="$c" -v a="$a" -v n="$runs" -v o="$o" 'BEGIN {printf "median of %d rounds: cli %.1f tokens/s, app %.1f tokens/s, app/cli %.3f; the app'"'"'s non-engine threads %.0f ms CPU per second of generation\n", n, c, a, (c > 0 ? a / c : 0), o}'
