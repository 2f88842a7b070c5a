#!/usr/bin/env bash
# Installs what is missing, builds (incrementally) and starts Burrow.
# Arguments are passed to the app, e.g. scripts/run.sh ~/models/model.gguf
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh" release
exec "$root/build/release/app/burrow" "$@"
