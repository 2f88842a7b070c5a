#!/usr/bin/env bash
# The app's generation speed beside `burrow-cli run` on the same model and
# settings (greedy, repeat penalty 1, 2 threads, context 2048), and the GUI
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
    cli=$("$build/engine/tools/burrow-cli" run -m "$model" -p "$prompt" -n "$tokens" -t 2 -c 2048 \
          --temp 0 --repeat-penalty 1 --no-display-prompt 2>&1 >/dev/null | grep '^generation:' || true)
    echo "run $run cli: $cli"
    app=$(XDG_DATA_HOME="$tmp/data$run" XDG_CONFIG_HOME="$tmp/config$run" XDG_RUNTIME_DIR="$tmp" \
          QT_QUICK_CONTROLS_STYLE=Fusion xvfb-run -a -s "-screen 0 1280x800x24" \
          "$build/app/burrow" --bench "$prompt" --bench-tokens "$tokens" "$model" 2>/dev/null | grep '^{' || true)
    echo "run $run app: $app"
done
