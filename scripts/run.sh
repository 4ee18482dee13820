#!/usr/bin/env bash
# run.sh — the README's first command: installs what is missing, builds the web
# page and serves it on localhost.
#   scripts/run.sh [--port N]      (default 8080; or LAB_PORT=N)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
port="${LAB_PORT:-8080}"
if [ "${1:-}" = "--port" ]; then port="${2:?--port needs a number}"; fi
case "$port" in ''|*[!0-9]*) echo "run.sh: --port '$port' is not a number" >&2; exit 2 ;; esac

"$here/scripts/install-deps.sh" web
"$here/scripts/build.sh" web
echo
echo "Attention Lab is served at  http://localhost:$port/   (Ctrl+C stops)"
echo
exec python3 "$here/scripts/serve.py" --port "$port" "$here/build/web/page"
