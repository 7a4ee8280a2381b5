# Shared harness for the integration tests (bash, sourced; callers run under
# `set -euo pipefail`).
#
#   . "$(dirname "$0")/../lib/common.sh"
#   test_init NAME TIMEOUT_SECONDS
#
# test_init skips the test (exit 77, ctest's SKIP_RETURN_CODE) unless it runs
# as root with /dev/fuse, makes a private work directory $WORK (also
# $CVMFS_ROOTDIR=$WORK/root, so nothing touches the real /etc or /srv), and
# installs an EXIT trap that, in this order: prints the registered logs when
# the test failed, runs the registered cleanups last-in first-out, lazily
# unmounts anything still mounted below $WORK and removes $WORK. A watchdog
# ends the test with a FAIL line after TIMEOUT_SECONDS, aborting FUSE
# connections of our own mounts first so that a hung read cannot block it.
#
# Reporting: `fail MSG` stops the test; `check_failed MSG` records a failure
# and continues (so one run lists every difference); `finish` exits 1 if any
# was recorded. Every failure line starts with "FAIL: <test>:". A test that
# exits 0 without `finish` (or `pass`) fails: it ended early.

TESTLIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SOURCE_DIR=${CVMFS_SOURCE_DIR:-$(cd "$TESTLIB_DIR/../.." && pwd)}
BIN=${CVMFS_BIN_DIR:-$SOURCE_DIR/build/bin}
readonly SKIP_CODE=77

TEST_NAME=${TEST_NAME:-$(basename "$0" .sh)}
WORK=""
_FAILURES=0
_CLEANUPS=()
_FAILURE_LOGS=()
_WATCHDOG_PID=""
_FAIL_REPORTED=0
_LAST_ERROR=""
_PASSED=0

note() { echo "--- $TEST_NAME: $*"; }
pass() {
  _PASSED=1
  echo "PASS: $TEST_NAME: $*"
}
fail() {
  echo "FAIL: $TEST_NAME: $*" >&2
  _FAIL_REPORTED=1
  exit 1
}
skip() {
  echo "SKIP: $TEST_NAME: $*" >&2
  exit "$SKIP_CODE"
}
check_failed() {
  echo "FAIL: $TEST_NAME: $*" >&2
  _FAILURES=$((_FAILURES + 1))
}
# Exits 1 if check_failed was called, else prints the PASS line.
finish() {
  [ "$_FAILURES" -eq 0 ] || fail "$_FAILURES check(s) failed"
  pass "all checks passed"
}

# expect_eq WHAT EXPECTED ACTUAL: records a failure naming both values.
expect_eq() {
  [ "$2" = "$3" ] || check_failed "$1: expected '$2', got '$3'"
}

# Runs CMD... at exit (last registered runs first). CMD is a single string
# evaluated by the shell, so quote paths inside it.
on_exit() { _CLEANUPS+=("$1"); }
# show_on_failure FILE [LINES]: prints the last LINES (100) lines of FILE, if
# it exists, when the test fails.
show_on_failure() {
  local entry
  for entry in "${_FAILURE_LOGS[@]}"; do [ "${entry#* }" != "$1" ] || return 0; done
  _FAILURE_LOGS+=("${2:-100} $1")
}

require_root_and_fuse() {
  [ "$(id -u)" -eq 0 ] || skip "needs root (mounts FUSE file systems, runs Apache)"
  [ -c /dev/fuse ] || skip "/dev/fuse is missing"
  grep -qw fuse /proc/filesystems || skip "the kernel has no FUSE support"
}

# require_cmds CMD...: skips naming the missing programs.
require_cmds() {
  local missing=() c
  for c in "$@"; do command -v "$c" >/dev/null 2>&1 || missing+=("$c"); done
  [ ${#missing[@]} -eq 0 ] ||
    skip "missing ${missing[*]} (run packaging/install-deps.sh --integration)"
}

# require_bins NAME...: our own programs must have been built: a missing one
# is a failure, not a skip.
require_bins() {
  local b
  for b in "$@"; do
    [ -x "$BIN/$b" ] || fail "$BIN/$b not found; build the project or set CVMFS_BIN_DIR"
  done
}

test_init() {
  local name=$1 timeout=$2
  TEST_NAME=$name
  require_root_and_fuse
  require_cmds python3 curl getfattr setfattr findmnt mountpoint tar sha256sum openssl
  WORK=$(mktemp -d "/tmp/cvmfs-$name.XXXXXX")
  # Apache's workers run as an unprivileged user and must read the docroot.
  chmod 0755 "$WORK"
  export CVMFS_ROOTDIR=$WORK/root
  mkdir -p "$CVMFS_ROOTDIR"
  trap _testlib_exit EXIT
  # Remember what made `set -e` end the test, for the FAIL line.
  set -o errtrace
  trap '_LAST_ERROR="${BASH_SOURCE[0]##*/}:$LINENO: $BASH_COMMAND (status $?)"' ERR
  trap 'exit 143' TERM
  trap 'exit 130' INT
  _start_watchdog "$timeout"
  note "work directory $WORK, binaries from $BIN"
}

_start_watchdog() {
  local timeout=$1 main=$$
  (
    trap - EXIT TERM INT
    sleep "$timeout" &
    wait $!
    echo "FAIL: $TEST_NAME: timed out after $timeout s" >&2
    abort_fuse_below "$WORK"
    kill -TERM "$main" 2>/dev/null || true
    sleep 5
    local child
    for child in $(pgrep -P "$main" 2>/dev/null); do
      [ "$child" = "$BASHPID" ] || kill -TERM "$child" 2>/dev/null || true
    done
  ) &
  _WATCHDOG_PID=$!
}

# Mount points at or below DIR, deepest first.
mounts_below() {
  findmnt -rn -o TARGET | awk -v d="$1" 'index($0, d "/") == 1 || $0 == d' | sort -r
}

# Aborts the FUSE connection of every mount below DIR: blocked requests then
# fail with ENOTCONN instead of hanging. Best effort (needs fusectl).
abort_fuse_below() {
  local m dev
  [ -d /sys/fs/fuse/connections ] || return 0
  mountpoint -q /sys/fs/fuse/connections ||
    mount -t fusectl fusectl /sys/fs/fuse/connections 2>/dev/null || true
  while read -r m; do
    [ -n "$m" ] || continue
    dev=$(findmnt -rn -o MAJ:MIN --mountpoint "$m" 2>/dev/null | cut -d: -f2)
    [ -n "$dev" ] && [ -w "/sys/fs/fuse/connections/$dev/abort" ] &&
      echo 1 >"/sys/fs/fuse/connections/$dev/abort" 2>/dev/null || true
  done < <(mounts_below "$1")
}

_testlib_exit() {
  local status=$?
  set +e
  trap - TERM INT
  # A script that ends early with status 0 (a `return` at top level, a
  # truncated heredoc) never reached `finish`: that is no pass.
  if [ "$status" -eq 0 ] && [ "$_PASSED" -eq 0 ]; then
    echo "FAIL: $TEST_NAME: ended with status 0 before finish or pass${_LAST_ERROR:+ (last error: $_LAST_ERROR)}" >&2
    _FAIL_REPORTED=1
    status=1
  fi
  if [ "$status" -ne 0 ] && [ "$status" -ne "$SKIP_CODE" ]; then
    [ "$_FAIL_REPORTED" -eq 1 ] ||
      echo "FAIL: $TEST_NAME: exited with status $status${_LAST_ERROR:+ after $_LAST_ERROR}" >&2
    local entry lines log
    for entry in "${_FAILURE_LOGS[@]}"; do
      lines=${entry%% *} log=${entry#* }
      [ -s "$log" ] || continue
      echo "----- $TEST_NAME: last $lines lines of $log -----" >&2
      tail -n "$lines" "$log" >&2
    done
  fi
  local i
  for ((i = ${#_CLEANUPS[@]} - 1; i >= 0; i--)); do
    eval "${_CLEANUPS[i]}" || echo "$TEST_NAME: cleanup failed: ${_CLEANUPS[i]}" >&2
  done
  if [ -n "$WORK" ] && [ -d "$WORK" ]; then
    local m
    while read -r m; do
      [ -n "$m" ] || continue
      echo "$TEST_NAME: $m still mounted at exit, unmounting lazily" >&2
      umount "$m" 2>/dev/null || { abort_fuse_below "$m"; umount -l "$m"; }
    done < <(mounts_below "$WORK")
    if [ -n "$(mounts_below "$WORK")" ]; then
      echo "$TEST_NAME: leaving $WORK behind: still mounted" >&2
    else
      rm -rf "$WORK"
    fi
  fi
  if [ -n "$_WATCHDOG_PID" ]; then
    pkill -TERM -P "$_WATCHDOG_PID" 2>/dev/null
    kill -TERM "$_WATCHDOG_PID" 2>/dev/null
  fi
  exit "$status"
}

# free_port: prints a TCP port on 127.0.0.1 that nobody listens on right now.
free_port() {
  python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# wait_for TIMEOUT_SECONDS DESCRIPTION CMD...: polls CMD every 0.1 s; fails
# with DESCRIPTION if it does not succeed in time.
wait_for() {
  local timeout=$1 what=$2
  shift 2
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || fail "timed out after ${timeout}s waiting for $what"
    sleep 0.1
  done
}

# wait_pid_exit TIMEOUT PID: true once PID is gone, false on timeout.
wait_pid_exit() {
  local deadline=$((SECONDS + $1))
  while kill -0 "$2" 2>/dev/null; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.1
  done
}

sha256_of() { sha256sum <"$1" | cut -d' ' -f1; }

# expect_read_error FILE ERRNO_TEXT: reading FILE must fail and cat must name
# ERRNO_TEXT (e.g. "Input/output error", "No such file or directory").
expect_read_error() {
  local file=$1 text=$2 err rc=0
  err=$(cat -- "$file" 2>&1 >/dev/null) || rc=$?
  if [ "$rc" -eq 0 ]; then
    check_failed "reading $file succeeded, expected '$text'"
  elif [[ "$err" != *"$text"* ]]; then
    check_failed "reading $file: expected '$text', got: $err"
  fi
}

# make_random_file PATH BYTES SEED: deterministic, incompressible content
# (AES-CTR keystream of the seed), so that re-runs publish the same objects.
make_random_file() {
  local path=$1 bytes=$2 seed=$3
  # head closes the pipe early: openssl's SIGPIPE is expected.
  { openssl enc -aes-128-ctr -nosalt -pass "pass:$seed" -pbkdf2 -in /dev/zero 2>/dev/null || true; } |
    head -c "$bytes" >"$path"
  [ "$(stat -c %s "$path")" -eq "$bytes" ] || fail "could not create $bytes bytes in $path"
}

# A sorted checksum list of every regular file below DIR (paths relative).
checksum_tree() {
  (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum)
}
