#!/usr/bin/env bash
# Claude Code interop with real npm `proper-lockfile`: installs it idempotently (npm ci in
# tests/bridges when the lock file changed) and runs the Node tests against `filebox`.
#
#   FILEBOX_BIN=path/to/filebox tests/bridges/run.sh     (default: target/debug/filebox)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
export FILEBOX_BIN="$(realpath "${FILEBOX_BIN:-$repo/target/debug/filebox}")"
[[ -x "$FILEBOX_BIN" ]] || { echo "tests/bridges: no filebox binary at $FILEBOX_BIN (cargo build -p filebox)" >&2; exit 1; }
command -v npm >/dev/null && command -v node >/dev/null || { echo "tests/bridges: node/npm are missing" >&2; exit 1; }

lockstamp="$here/node_modules/.package-lock.sha256"
wantlock="$(sha256sum "$here/package-lock.json" | cut -d' ' -f1)"
if [[ "$(cat "$lockstamp" 2>/dev/null)" != "$wantlock" ]]; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$wantlock" > "$lockstamp"
fi

cd "$here"
echo "== Claude Code team inbox: proper-lockfile writers against FileBox"
node --test --test-reporter=spec concurrency.test.mjs
