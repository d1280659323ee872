# The steps of scripts/test-all (sourced, not run): each runs to its end whatever the others did,
# and `summary` closes the run with one line of counts, naming the failed steps on the line
# before it, and fails when any step failed.
#
#   step NAME COMMAND...     run COMMAND; record NAME as passed or failed
#   gate NAME COMMAND...     the same, but a failure ends the run here (what follows needs it)
#   summary                  "test-all: 9 passed, 1 failed"; exit 1 if any failed

passed=()
failed=()

step() {
  local name=$1 status=0
  shift
  echo "test-all: == $name"
  "$@" || status=$?
  if [[ $status -eq 0 ]]; then
    passed+=("$name")
  else
    echo "test-all: $name failed (exit $status)" >&2
    failed+=("$name")
  fi
}

gate() {
  step "$@"
  if [[ " ${failed[*]} " == *" $1 "* ]]; then
    echo "test-all: the steps after $1 need it: not run" >&2
    summary
  fi
}

summary() {
  # The counts stand alone on the last line (a CI reads "N passed, N failed" there).
  if [[ ${#failed[@]} -gt 0 ]]; then
    echo "test-all: failed: ${failed[*]}"
  fi
  echo "test-all: ${#passed[@]} passed, ${#failed[@]} failed"
  [[ ${#failed[@]} -eq 0 ]] || exit 1
  exit 0
}
