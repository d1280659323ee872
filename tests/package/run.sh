#!/usr/bin/env bash
# The packages as a user installs them: scripts/package builds the npm packages and the wheel from
# the binary under test (again only when the binary or the packaging changed: tests/package/out/),
# then package.test.mjs runs `filebox --version`, `filebox init --agent qa`, an MCP `tools/list`
# and `filebox setup claude-code` through `npx -y filebox` (from a registry on 127.0.0.1 serving
# only the packed tarballs, into a fresh npm cache), a fresh `npm install -g` prefix, `uvx` (uv
# from PyPI, installed once into tests/package/.venv) and a fresh virtual environment (`pip
# install` of the wheel, as pipx does). Nothing is skipped: a missing tool fails the run.
#
#   FILEBOX_BIN=path/to/filebox tests/package/run.sh     (default: target/debug/filebox)
set -euo pipefail
suite=tests/package
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
use_filebox_bin
need python3 node npm npx tar
python_deps
[[ -x "$venv/bin/uvx" ]] || { echo "tests/package: uv did not install into $venv" >&2; exit 1; }

# Packaging a debug binary gzips 80 MB twice: done once per binary and packaging.
out="$here/out"
stamp="$(cat "$FILEBOX_BIN" "$repo/scripts/package" "$repo"/packaging/*.py "$repo"/packaging/npm/* \
  "$repo"/packaging/README.md "$repo"/packaging/LICENSE "$repo/Cargo.toml" "$repo/crates/filebox/Cargo.toml" \
  | sha256sum | cut -d' ' -f1)"
if [[ "$(cat "$out/.stamp" 2>/dev/null)" != "$stamp" ]]; then
  rm -f "$out/.stamp"
  bash "$repo/scripts/package" "$FILEBOX_BIN" "$out"
  echo "$stamp" > "$out/.stamp"
fi

cd "$here"
echo "== npx, npm install -g, uvx and a virtual environment"
# The interpreter itself, not a shim (pyenv's finds its versions through HOME, which the test
# replaces): uvx and the virtual environment are made from it.
python="$(python3 -c 'import sys; print(sys.executable)')"
FILEBOX_PACKAGES="$out" FILEBOX_UVX="$venv/bin/uvx" FILEBOX_PYTHON="$python" \
  node --test --test-concurrency=1 package.test.mjs
