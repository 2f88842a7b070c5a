#!/usr/bin/env bash
# Fuzzes the GGUF reader for SECONDS (default 60) with libFuzzer on one worker.
# Usage: scripts/fuzz.sh [SECONDS]     (after scripts/build.sh fuzz)
#
# Seed corpus, rebuilt every run in build/fuzz/fuzz-work/seeds:
#   - valid and corrupt files written by gguf_seed_corpus;
#   - the first 4 KiB and 64 KiB of every .gguf in ../shared (when present);
#   - the kept crash inputs in tests/engine/gguf/data/gguf-crashes/.
# The corpus the fuzzer grows is kept in build/fuzz/fuzz-work/corpus between
# runs. A crash exits non-zero and leaves its input in build/fuzz/crashes/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
tree="$root/build/fuzz"
fuzzer="$tree/fuzz/fuzz_gguf_reader"
seedgen="$tree/fuzz/gguf_seed_corpus"
if [[ ! -f "$tree/build.ninja" ]]; then
    echo "fuzz.sh: $tree is not configured; run scripts/build.sh fuzz first" >&2
    exit 2
fi
# Brings the two fuzz targets up to date (a no-op after scripts/build.sh fuzz).
cmake --build "$tree" --target fuzz_gguf_reader gguf_seed_corpus >/dev/null

work="$tree/fuzz-work"
seeds="$work/seeds"
corpus="$work/corpus"
crashes="$tree/crashes"
rm -rf "$seeds"
mkdir -p "$seeds" "$corpus" "$crashes"

"$seedgen" "$seeds" >/dev/null
shared="$root/../shared"
if [[ -d "$shared" ]]; then
    while IFS= read -r -d '' file; do
        name=$(basename "$file" .gguf)
        head -c 4096 "$file" >"$seeds/shared-$name-4k.gguf"
        head -c 65536 "$file" >"$seeds/shared-$name-64k.gguf"
    done < <(find "$shared" -name '*.gguf' -type f -print0)
fi
if [[ -d "$root/tests/engine/gguf/data/gguf-crashes" ]]; then
    find "$root/tests/engine/gguf/data/gguf-crashes" -type f -name "*.gguf" -exec cp {} "$seeds/" \;
fi
echo "fuzz.sh: $(ls "$seeds" | wc -l) seed files; fuzzing for $seconds s"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
log="$work/fuzz.log"
status=0
"$fuzzer" "$corpus" "$seeds" \
    -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$crashes/" -print_final_stats=1 >"$log" 2>&1 || status=$?
tail -n 20 "$log"
if [[ $status -ne 0 ]]; then
    echo "fuzz.sh: the fuzzer failed (exit $status); inputs in $crashes, full log in $log" >&2
    exit 1
fi
echo "fuzz.sh: no crash in $seconds s"
