#!/usr/bin/env bash
# The human channel's page end to end: Chromium (Debian's, driven by npm playwright-core) on
# `filebox serve`, with a Python MCP client (PyPI `mcp`) asking. Installs what it needs
# idempotently (chromium with apt-get, `npm ci` here, a venv in tests/human/.venv) and fails
# loudly if anything cannot be had: nothing is skipped. Screenshots and the latency figures go
# to tests/human/out/ (or $FILEBOX_TEST_OUT).
#
#   FILEBOX_BIN=path/to/filebox tests/human/run.sh     (default: target/debug/filebox)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
export FILEBOX_BIN="$(realpath "${FILEBOX_BIN:-$repo/target/debug/filebox}")"
[[ -x "$FILEBOX_BIN" ]] || { echo "tests/human: no filebox binary at $FILEBOX_BIN (cargo build -p filebox)" >&2; exit 1; }

if ! command -v chromium >/dev/null; then
  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
fi
command -v chromium >/dev/null || { echo "tests/human: chromium did not install" >&2; exit 1; }

venv="$here/.venv"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [[ ! -x "$venv/bin/python" || "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
  echo "$want" > "$stamp"
fi

lockstamp="$here/node_modules/.package-lock.sha256"
wantlock="$(sha256sum "$here/package-lock.json" | cut -d' ' -f1)"
if [[ "$(cat "$lockstamp" 2>/dev/null)" != "$wantlock" ]]; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$wantlock" > "$lockstamp"
fi

cd "$here"
echo "== the page in Chromium, a Python MCP client asking"
node --test --test-concurrency=1 page.test.mjs
echo "== Connect RPC (SrvAgentAssist), JSON and binary codecs"
node --test --test-concurrency=1 connect.test.mjs
