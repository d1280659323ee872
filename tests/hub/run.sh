#!/usr/bin/env bash
# A user's programs against `filebox serve`: a Python JSON-RPC client (httpx) and a Node one
# (plain fetch). Installs what it needs idempotently (a venv in tests/hub/.venv) and fails
# loudly if a client cannot be had: nothing is skipped.
#
#   FILEBOX_BIN=path/to/filebox tests/hub/run.sh     (default: target/debug/filebox)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
export FILEBOX_BIN="$(realpath "${FILEBOX_BIN:-$repo/target/debug/filebox}")"
[[ -x "$FILEBOX_BIN" ]] || { echo "tests/hub: no filebox binary at $FILEBOX_BIN (cargo build -p filebox)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "tests/hub: python3 is missing" >&2; exit 1; }
command -v node >/dev/null || { echo "tests/hub: node is missing" >&2; exit 1; }

venv="$here/.venv"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [[ ! -x "$venv/bin/python" || "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
  echo "$want" > "$stamp"
fi

cd "$here"
echo "== Python JSON-RPC client (httpx) against filebox serve"
"$venv/bin/python" -m pytest -q -p no:cacheprovider
echo "== Node JSON-RPC client (fetch) against filebox serve"
node --test hub_client.test.mjs
