#!/usr/bin/env bash
# A user's programs against `filebox serve`: a Python JSON-RPC client (httpx) and a Node one
# (plain fetch). Installs what it needs idempotently (a venv in tests/hub/.venv) and fails
# loudly if a client cannot be had: nothing is skipped.
#
#   FILEBOX_BIN=path/to/filebox tests/hub/run.sh     (default: target/debug/filebox)
set -euo pipefail
suite=tests/hub
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
use_filebox_bin
need python3 node
python_deps

cd "$here"
echo "== Python JSON-RPC client (httpx) against filebox serve"
"$venv/bin/python" -m pytest -q -p no:cacheprovider
echo "== Node JSON-RPC client (fetch) against filebox serve"
node --test hub_client.test.mjs
