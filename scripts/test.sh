#!/usr/bin/env bash
# Installs what is missing, builds and runs every test:
#   1. the Release tree: engine, app and QML tests (CTest);
#   2. the sanitizer tree: engine tests under AddressSanitizer + UBSan;
#   3. a short libFuzzer pass over the GGUF reader, the chat-template
#      interpreter (with its time and memory bounds), vocabulary loading,
#      the server's request bodies and its HTTP request path (Beast's parser)
#      (BURROW_FUZZ_SECONDS in all, default 90: 18 s each). The SQLite open
#      path is covered by a Qt Test over generated damaged, locked, read-only
#      and full-disk files (tst_storeopen, in the release tree's tests).
# Idempotent; a second run only rebuilds what changed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
jobs=${BURROW_JOBS:-$(nproc)}
export QT_QPA_PLATFORM=offscreen

echo "== release build and tests"
"$root/scripts/build.sh" release
ctest --test-dir "$root/build/release" --output-on-failure -j "$jobs" --timeout 600

echo "== engine tests under AddressSanitizer + UndefinedBehaviorSanitizer"
"$root/scripts/build.sh" asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$root/build/asan" --output-on-failure -j "$jobs" --timeout 1200 -L engine

if [[ -f "$root/fuzz/CMakeLists.txt" ]]; then
    echo "== fuzzing the GGUF reader, chat templates, vocabularies, server requests, HTTP and JSON schemas for ${BURROW_FUZZ_SECONDS:-90} s"
    "$root/scripts/build.sh" fuzz
    "$root/scripts/fuzz.sh" "${BURROW_FUZZ_SECONDS:-90}"
fi
echo "== all tests passed"
