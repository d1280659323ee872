#!/usr/bin/env bash
# Claude Code interop with real npm `proper-lockfile`: installs it idempotently (npm ci in
# tests/bridges when the lock file changed) and runs the Node tests against `filebox`.
#
#   FILEBOX_BIN=path/to/filebox tests/bridges/run.sh     (default: target/debug/filebox)
set -euo pipefail
suite=tests/bridges
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
use_filebox_bin
need node npm
npm_deps

cd "$here"
echo "== Claude Code team inbox: proper-lockfile writers against FileBox"
node --test --test-reporter=spec concurrency.test.mjs
