#!/usr/bin/env bash
# The real hosts run FileBox: Claude Code, Codex CLI, Gemini CLI and GitHub Copilot CLI from npm
# (pinned in package-lock.json, installed once per lock file into tests/hosts/node_modules; Copilot
# unpacks itself into node_modules/.cache), each without a login against a stand-in of its model
# API on 127.0.0.1 that records every request (standins.mjs). The tests
# assert what the host itself does with FileBox's MCP server, hooks and channel. A host that
# cannot be installed fails the run: nothing is skipped. The sizes the model was handed go to
# tests/hosts/out/sizes.json (or $FILEBOX_TEST_OUT).
#
#   FILEBOX_BIN=path/to/filebox tests/hosts/run.sh     (default: target/debug/filebox)
set -euo pipefail
suite=tests/hosts
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
use_filebox_bin
# `script` (util-linux) gives the interactive host its terminal.
need node npm script
npm_deps
for host in claude codex gemini copilot; do
  [[ -x "$here/node_modules/.bin/$host" ]] || { echo "tests/hosts: $host did not install" >&2; exit 1; }
done

cd "$here"
rm -f "${FILEBOX_TEST_OUT:-$here/out}/sizes.json"
echo "== Claude Code $(node_modules/.bin/claude --version)"
node --test --test-concurrency=1 claude_code.test.mjs
echo "== Codex $(node_modules/.bin/codex --version)"
node --test --test-concurrency=1 codex.test.mjs
echo "== Gemini CLI $(node_modules/.bin/gemini --version)"
node --test --test-concurrency=1 gemini.test.mjs
echo "== $(node_modules/.bin/copilot --version | head -1)"
node --test --test-concurrency=1 copilot.test.mjs
