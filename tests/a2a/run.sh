#!/usr/bin/env bash
# The official A2A SDKs against `filebox serve`: the Python `a2a-sdk` client (card resolution,
# send, get, list, stream, cancel, the 0.3 method names, the README's example) and the
# `@a2a-js/sdk` client (a send and a stream); and an `a2a-sdk` server as the remote end of a
# `filebox send` (remote_agent.py, test_a2a_remote.py). Installs what it needs idempotently (a venv in
# tests/a2a/.venv, `npm ci` from the lockfile) and fails loudly if a client cannot be had.
#
#   FILEBOX_BIN=path/to/filebox tests/a2a/run.sh     (default: target/debug/filebox)
set -euo pipefail
suite=tests/a2a
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
use_filebox_bin
need python3 node npm
python_deps
npm_deps

cd "$here"
echo "== Python a2a-sdk client against filebox serve, and an a2a-sdk server as the remote of a send"
"$venv/bin/python" -m pytest -q -p no:cacheprovider
echo "== @a2a-js/sdk client against filebox serve"
node --test a2a_client.test.mjs
