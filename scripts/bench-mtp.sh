#!/usr/bin/env bash
# MTP drafting (issue 30, docs/benchmarks.md): tokens/s with and without
# drafts from a qwen35 file's multi-token-prediction block, acceptance, and
# the same for llama.cpp's MTP mode (--spec-type draft-mtp) on the same files.
# Two files of the qwen35-1b shape with one MTP block (burrow-cli synth --mtp 1):
#   qwen35-1b-mtp-Q4_K_M.gguf         random weights: the block's guesses are
#                                     almost never right (what drafting costs)
#   qwen35-1b-mtp-script-Q4_K_M.gguf  scripted (synth --script): the model and
#                                     the block both follow a 702-piece script
#                                     (a..z, aa..zz), so every draft is right
#                                     (the most drafting can give)
# No trained qwen35 file with an MTP block is in ../shared; where one is at
# hand, pass it as MODEL (then only it is measured, with PROMPT).
# Burrow: burrow-cli bench --spec mtp (greedy, -n N tokens, off and mtp
# alternating, REPS times after a warm-up; it also checks both replies are the
# same tokens). llama.cpp: two llama-server processes on the same file
# (--spec-type draft-mtp --spec-draft-n-max 3, its default, and none), a
# warm-up request each, then REPS greedy /completion requests alternating
# between them; predicted_per_second, draft_n and draft_n_accepted from the
# replies' timings.
# Usage: scripts/bench-mtp.sh [DIR]      (default: build/models; the files are
#        written there when missing)
# Environment: BURROW_CLI (default build/release/engine/tools/burrow-cli),
#   LLAMA_BIN (default /work/ref/llama.cpp/build/bin), THREADS (2), N (128),
#   REPS (5), PRESET (qwen35-1b), SYNTH_ARGS (more synth options, e.g.
#   "--vocab 32000" for a quick check with PRESET=qwen35-tiny), MODEL and
#   PROMPT (one file of your own).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build/models}
cli=${BURROW_CLI:-$root/build/release/engine/tools/burrow-cli}
llama=${LLAMA_BIN:-/work/ref/llama.cpp/build/bin}
threads=${THREADS:-2}
n=${N:-128}
reps=${REPS:-5}
preset=${PRESET:-qwen35-1b}

if [[ ! -x "$cli" ]]; then
    echo "bench-mtp.sh: $cli not found; build it first (cmake --build build/release --target burrow-cli)" >&2
    exit 1
fi
mkdir -p "$dir"

script='\n'
for a in {a..z}; do script+=" $a"; done
for a in {a..z}; do for b in {a..z}; do script+=" $a$b"; done; done
scriptPrompt=$'Once upon a time\n'   # ends with the trigger piece, the newline byte

# name extra-synth-args...
write() {
    local file=$dir/$1.gguf
    shift
    if [[ ! -f "$file" ]]; then
        # shellcheck disable=SC2086
        "$cli" synth --preset "$preset" --mtp 1 --type Q4_K_M --seed 1 ${SYNTH_ARGS:-} "$@" -q -o "$file" | tail -n 1
    fi
}

runs=()
if [[ -n "${MODEL:-}" ]]; then
    runs+=("$MODEL|${PROMPT:-Once upon a time}")
else
    write "$preset-mtp-Q4_K_M"
    write "$preset-mtp-script-Q4_K_M" --untied --script "$script"
    runs+=("$dir/$preset-mtp-Q4_K_M.gguf|Once upon a time")
    runs+=("$dir/$preset-mtp-script-Q4_K_M.gguf|$scriptPrompt")
fi

server() {   # file port spec-type -> pid
    "$llama/llama-server" -m "$1" -t "$threads" -c $((n + 512)) -np 1 --port "$2" --spec-type "$3" \
        --spec-draft-n-max 3 --no-warmup >"$dir/llama-server-$2.log" 2>&1 &
    echo $!
}
ready() {
    for _ in $(seq 1 120); do
        curl -s "http://127.0.0.1:$1/health" | grep -q ok && return 0
        sleep 1
    done
    return 1
}
complete() {   # port prompt -> "tps drafted accepted"
    python3 - "$1" "$2" "$n" <<'EOF'
import json, sys, urllib.request
port, prompt, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
body = json.dumps({"prompt": prompt, "n_predict": n, "temperature": 0, "cache_prompt": False}).encode()
req = urllib.request.Request(f"http://127.0.0.1:{port}/completion", body, {"Content-Type": "application/json"})
t = json.load(urllib.request.urlopen(req))["timings"]
print(f'{t["predicted_per_second"]:.2f} {t.get("draft_n", 0)} {t.get("draft_n_accepted", 0)}')
EOF
}

for run in "${runs[@]}"; do
    file=${run%%|*}
    prompt=${run#*|}
    echo "== $file"
    echo "-- Burrow (burrow-cli bench --spec mtp, $threads threads)"
    "$cli" bench -m "$file" --spec mtp -n "$n" -t "$threads" -r "$reps" --spec-prompt "$prompt"
    if [[ ! -x "$llama/llama-server" ]]; then
        echo "-- llama.cpp: $llama/llama-server not found (LLAMA_BIN)"
        continue
    fi
    echo "-- llama.cpp (llama-server, --spec-type draft-mtp vs none, $threads threads)"
    pidMtp=$(server "$file" 18791 draft-mtp)
    pidOff=$(server "$file" 18792 none)
    trap 'kill $pidMtp $pidOff 2>/dev/null || true' EXIT
    ready 18791 && ready 18792
    complete 18791 "$prompt" >/dev/null
    complete 18792 "$prompt" >/dev/null
    off=() mtp=() drafted=0 accepted=0
    for _ in $(seq 1 "$reps"); do
        read -r t _ _ <<<"$(complete 18792 "$prompt")"
        off+=("$t")
        read -r t d a <<<"$(complete 18791 "$prompt")"
        mtp+=("$t")
        drafted=$((drafted + d))
        accepted=$((accepted + a))
    done
    kill "$pidMtp" "$pidOff"
    wait "$pidMtp" "$pidOff" 2>/dev/null || true
    trap - EXIT
    python3 - "${off[*]}" "${mtp[*]}" "$drafted" "$accepted" <<'EOF'
import statistics as s, sys
off = [float(x) for x in sys.argv[1].split()]
mtp = [float(x) for x in sys.argv[2].split()]
d, a = int(sys.argv[3]), int(sys.argv[4])
sd = lambda v: s.stdev(v) if len(v) > 1 else 0.0
print("| off t/s | mtp t/s | speed-up | drafted | accepted |")
print("| ---: | ---: | ---: | ---: | ---: |")
print(f"| {s.mean(off):.2f} ± {sd(off):.2f} | {s.mean(mtp):.2f} ± {sd(mtp):.2f} | {s.mean(mtp) / s.mean(off):.3f}× | {d} | {a} ({100.0 * a / d if d else 0:.0f} %) |")
EOF
done
