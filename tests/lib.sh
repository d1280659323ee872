# Shared set-up for the client suites' run.sh scripts (sourced, not run): find the binary under
# test, require tools, and install each suite's Python and npm packages idempotently (again only
# when requirements.txt or package-lock.json changed). Every failure is loud: nothing is skipped.
#
#   suite=tests/xyz; source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

here="$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

# FILEBOX_BIN (default target/debug/filebox) as an absolute path, exported for the tests.
use_filebox_bin() {
  export FILEBOX_BIN="$(realpath "${FILEBOX_BIN:-$repo/target/debug/filebox}")"
  [[ -x "$FILEBOX_BIN" ]] || { echo "$suite: no filebox binary at $FILEBOX_BIN (cargo build -p filebox)" >&2; exit 1; }
}

# Each named command on PATH, or a clear error.
need() {
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "$suite: $tool is missing" >&2; exit 1; }
  done
}

# A venv in $here/.venv with requirements.txt installed, once per its content.
python_deps() {
  venv="$here/.venv"
  local stamp="$venv/.requirements.sha256" want
  want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
  if [[ ! -x "$venv/bin/python" || "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
    echo "$want" > "$stamp"
  fi
}

# `npm ci` in $here when package-lock.json changed since the last install.
npm_deps() {
  local stamp="$here/node_modules/.package-lock.sha256" want
  want="$(sha256sum "$here/package-lock.json" | cut -d' ' -f1)"
  if [[ "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
    (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$want" > "$stamp"
  fi
}
