# Helpers shared by the failover tests. Sourcing this file sources the test
# libraries they use (common, apache, client, publish, squid, toxiproxy):
#
#   here=$(cd "$(dirname "$0")" && pwd)
#   . "$here/lib_failover.sh"
#
#   fault_server_start NAME MODE      a broken origin (fault_server.py MODE:
#                                     500 | captive); sets FAULT_URL; its
#                                     request log is $WORK/fault-NAME.log
#   fault_request_count NAME [ERE]    requests it answered (matching ERE)
#   failover_config FQRN CASE SERVER_URL PROXY [KEY=VALUE...]
#                                     writes CONFIG=$WORK/CASE.conf (own
#                                     cache CACHE=$WORK/cache-CASE/FQRN,
#                                     short retries) and installs it as
#                                     config.d/FQRN.local so that
#                                     `cvmfs_talk -i FQRN` finds the mount
#   expect_xattr WHAT NAME PATH EXPECTED
#                                     user.NAME of PATH must be EXPECTED
#   expect_talk WHAT FQRN COMMAND ERE a line of `cvmfs_talk -i FQRN COMMAND`
#                                     must match ERE (skipped with a note
#                                     when cvmfs_talk is not built)
#   expect_same_content WHAT FILE SOURCE
#                                     sha256 of FILE (read now) = SOURCE's
#   host_url BASE FQRN                BASE/cvmfs/FQRN, as user.host shows it
#   talk_counter FQRN NAME            a counter of `cvmfs_talk internal affairs`
#   expect_failovers WHAT FQRN MIN    download.n_failovers >= MIN

FAILOVER_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for _lib in common apache client publish squid toxiproxy; do
  . "$FAILOVER_DIR/../lib/$_lib.sh"
done
unset _lib
FAULT_URL=""
CONFIG=""
CACHE=""
declare -A _FAULT_PIDS=()

fault_server_start() {
  local name=$1 mode=$2 port_file=$WORK/fault-$1.port log=$WORK/fault-$1.log
  rm -f "$port_file"
  python3 "$FAILOVER_DIR/fault_server.py" "$mode" "$port_file" "$log" \
    </dev/null >"$WORK/fault-$name.out" 2>&1 &
  _FAULT_PIDS[$name]=$!
  on_exit "fault_server_stop $name"
  show_on_failure "$WORK/fault-$name.out" 20
  wait_for 20 "fault server '$name' ($mode) to listen" test -s "$port_file"
  FAULT_URL=http://127.0.0.1:$(cat "$port_file")
  note "fault server '$name' answers every request with '$mode' at $FAULT_URL"
}

fault_server_stop() {
  local pid=${_FAULT_PIDS[$1]:-}
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  unset "_FAULT_PIDS[$1]"
}

fault_request_count() {
  local pattern=${2:-.}
  grep -cE -- "$pattern" "$WORK/fault-$1.log" 2>/dev/null || true
}

host_url() { echo "$1/cvmfs/$2"; }

# failover_config FQRN CASE SERVER_URL PROXY [KEY=VALUE...]: one retry with a
# short backoff keeps the failover tests fast; prefetch is off, because the
# tests decide exactly which files are cached (and which requests go where)
# when a path fails; later assignments override.
# Not to be called in a subshell: it registers the debug log for failures.
failover_config() {
  local fqrn=$1 case=$2 url=$3 proxy=$4 file=$WORK/$2.conf
  shift 4
  CONFIG=$file
  CACHE=$WORK/cache-$case/$fqrn
  test_client_config "$file" "$url" "$(repo_public_key "$fqrn")" \
    "CVMFS_HTTP_PROXY=$proxy" \
    "CVMFS_CACHE_BASE=$WORK/cache-$case" \
    "CVMFS_MAX_RETRIES=1" \
    "CVMFS_BACKOFF_INIT=1" \
    "CVMFS_BACKOFF_MAX=2" \
    "CVMFS_PREFETCH=no" \
    "$@"
  mkdir -p "$CVMFS_ROOTDIR/etc/cvmfs/config.d"
  cp "$file" "$CVMFS_ROOTDIR/etc/cvmfs/config.d/$fqrn.local"
}

expect_xattr() {
  local what=$1 name=$2 path=$3 expected=$4 got
  got=$(magic_xattr "$name" "$path" 2>&1) || got="getfattr failed: $got"
  expect_eq "$what: user.$name" "$expected" "$got"
}

talk_available() { [ -x "$BIN/cvmfs_talk" ]; }

expect_talk() {
  local what=$1 fqrn=$2 command=$3 pattern=$4 out rc=0
  if ! talk_available; then
    note "$what: $BIN/cvmfs_talk not built, not checking '$command'"
    return 0
  fi
  out=$("$BIN/cvmfs_talk" -i "$fqrn" $command 2>&1) || rc=$?
  if [ "$rc" -ne 0 ]; then
    check_failed "$what: cvmfs_talk -i $fqrn $command failed (exit $rc): $out"
  elif ! grep -qE -- "$pattern" <<<"$out"; then
    check_failed "$what: cvmfs_talk -i $fqrn $command: no line matches '$pattern' in:"$'\n'"$out"
  fi
}

expect_same_content() {
  local what=$1 file=$2 source=$3 got
  got=$(sha256_of "$file" 2>&1) || got="read failed: $got"
  expect_eq "$what: sha256 of $file" "$(sha256_of "$source")" "$got"
}

# talk_counter FQRN NAME: a counter of `cvmfs_talk internal affairs` (empty
# if cvmfs_talk is missing or the counter unknown).
talk_counter() {
  talk_available || return 0
  "$BIN/cvmfs_talk" -i "$1" internal affairs 2>/dev/null |
    awk -F'|' -v n="$2" '$1 == n { print $2 }'
}

# expect_failovers WHAT FQRN MIN: download.n_failovers is at least MIN.
expect_failovers() {
  local what=$1 fqrn=$2 min=$3 n
  talk_available || return 0
  n=$(talk_counter "$fqrn" download.n_failovers)
  [ -n "$n" ] && [ "$n" -ge "$min" ] ||
    check_failed "$what: cvmfs_talk internal affairs: download.n_failovers is '${n}', expected >= $min"
}
