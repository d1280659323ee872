#!/usr/bin/env bash
# The human channel's page end to end: Chromium (Debian's, driven by npm playwright-core) on
# `filebox serve`, with a Python MCP client (PyPI `mcp`) asking, and a raw JSON-RPC channel
# session relaying permission prompts. Installs what it needs
# idempotently (chromium with apt-get, `npm ci` here, a venv in tests/human/.venv) and fails
# loudly if anything cannot be had: nothing is skipped. Screenshots and the latency figures go
# to tests/human/out/ (or $FILEBOX_TEST_OUT).
#
#   FILEBOX_BIN=path/to/filebox tests/human/run.sh     (default: target/debug/filebox)
set -euo pipefail
suite=tests/human
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
use_filebox_bin

if ! command -v chromium >/dev/null; then
  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
fi
need chromium python3 node npm
python_deps
npm_deps

cd "$here"
echo "== the page in Chromium, a Python MCP client asking"
node --test --test-concurrency=1 page.test.mjs
echo "== the waiting questions: loading, order, answers shown, the tab's title, notifications"
node --test --test-concurrency=1 waiting.test.mjs
echo "== reading mail: tables, plain titles, unread and urgent marks, the reader's header"
node --test --test-concurrency=1 reading.test.mjs
echo "== permission prompts relayed by a channel session, answered on the page"
node --test --test-concurrency=1 permission.test.mjs
echo "== hostile attachments: none runs as the page, clicked or opened in a tab"
node --test --test-concurrency=1 attachment.test.mjs
echo "== Connect RPC (SrvAgentAssist), JSON and binary codecs"
node --test --test-concurrency=1 connect.test.mjs
echo "== Agent Assistant's own clients: connect-node, and the origin's human client at /ws"
node --test --test-concurrency=1 assistant.test.mjs
