#!/usr/bin/env bash
# Configures (once) and builds a tree. Usage: scripts/build.sh [TREE] [cmake args...]
#   TREE: release (default; build/release) | asan (build/asan: engine + its
#   tests under AddressSanitizer and UBSan) | fuzz (build/fuzz: clang, libFuzzer)
# Re-running only rebuilds what changed (Ninja + ccache).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tree=${1:-release}
shift || true
jobs=${BURROW_JOBS:-$(nproc)}
case "$tree" in
    release) dir="$root/build/release"; args=(-DCMAKE_BUILD_TYPE=Release) ;;
    debug)   dir="$root/build/debug";   args=(-DCMAKE_BUILD_TYPE=Debug) ;;
    asan)    dir="$root/build/asan";    args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DBURROW_ENGINE_ONLY=ON
                                              "-DBURROW_SANITIZE=address,undefined") ;;
    fuzz)    dir="$root/build/fuzz";    args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DBURROW_ENGINE_ONLY=ON
                                              -DBURROW_BUILD_TESTS=OFF -DBURROW_FUZZ=ON
                                              -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++) ;;
    *) echo "build.sh: unknown tree '$tree' (release, debug, asan, fuzz)" >&2; exit 2 ;;
esac
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
# Paths below the checkout are hashed relative to it, so a second clone (CI's)
# reuses what this one compiled.
export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1
if [[ ! -f "$dir/build.ninja" ]]; then
    cmake -S "$root" -B "$dir" -G Ninja "${args[@]}" "$@" >/dev/null
fi
cmake --build "$dir" -j "$jobs"
