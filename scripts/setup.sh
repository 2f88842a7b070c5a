#!/usr/bin/env bash
# Installs the Debian packages in scripts/packages.txt that are missing, and
# the OpenAI and Anthropic Node.js SDKs the server's tests run (tests/engine/server/sdk)
# and the MCP server the tools tests call (tests/mcp), each
# pinned in its package-lock.json, with npm ci.
# Idempotent: when everything is installed it only checks (well under a second).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
mapfile -t wanted < <(grep -vE '^\s*(#|$)' "$here/packages.txt")
# Node.js and npm for the SDK test: Debian's, unless a node is already there.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    wanted+=(nodejs npm)
fi
missing=()
for pkg in "${wanted[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done
if ((${#missing[@]} > 0)); then
    echo "setup: installing ${#missing[@]} package(s): ${missing[*]}" >&2
    sudo=""
    if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The npm packages, each again only when its lock file changed since the
# last install. A failure (no network) is not fatal: the test that needs it
# then skips and says why.
npm_ci() {   # folder, what, test
    local dir="$root/$1"
    if [[ ! -f "$dir/node_modules/.package-lock.json" || "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]]; then
        echo "setup: installing $2 (npm ci in $1)" >&2
        if ! (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2); then
            echo "setup: warning: npm ci failed; $3 will be skipped" >&2
        fi
    fi
}
npm_ci tests/engine/server/sdk "the OpenAI and Anthropic Node.js SDKs for the server tests" tst_serve_sdk
npm_ci tests/mcp "the MCP server everything for the tools tests" "tst_tools and tst_chat_mcp"
