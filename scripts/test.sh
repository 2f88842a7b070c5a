#!/usr/bin/env bash
# Installs what is missing, builds and runs every test:
#   1. the Release tree: engine, app and QML tests (CTest);
#   2. the sanitizer tree: engine tests under AddressSanitizer + UBSan;
#   3. a short libFuzzer pass over the GGUF reader, the chat-template
#      interpreter, vocabulary loading and the server's request reading
#      (BURROW_FUZZ_SECONDS in all, default 90: 22 s each).
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
    echo "== fuzzing the GGUF reader, chat templates, vocabularies and server requests for ${BURROW_FUZZ_SECONDS:-90} s"
    "$root/scripts/build.sh" fuzz
    "$root/scripts/fuzz.sh" "${BURROW_FUZZ_SECONDS:-90}"
fi
echo "== all tests passed"
