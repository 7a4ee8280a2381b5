# What the suite's unit tests (test/bench/*_test.sh) share; sourced after
# they set `name`. Gives `here`, a work directory `work` removed on exit,
# `check WHAT COMMAND...` (counts a failure, goes on) and `check_done`
# (the verdict and exit status).
here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
work=$(mktemp -d "/tmp/cvmfs-bench-$name.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
check() {  # check WHAT COMMAND...
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $name: $what" >&2; fails=$((fails + 1)); fi
}
check_done() {
  [ "$fails" -eq 0 ] || exit 1
  echo "PASS: $name"
}
