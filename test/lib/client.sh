# Mounting repositories with our cvmfs2 in the integration tests (sourced
# after common.sh).
#
#   write_client_config FILE KEY=VALUE...     shell-quoted parameter file
#   test_client_config FILE URL PUBKEY [KEY=VALUE...]
#                                             the defaults every test uses
#   mount_repo FQRN MOUNTPOINT CONFIG[:CONFIG...] [FUSE_OPTIONS]
#   unmount_repo MOUNTPOINT                   also waits for the daemon to exit
#   magic_xattr NAME PATH                     value of user.NAME
#
# Mounts are unmounted at exit (registered with on_exit). cvmfs2 daemonizes;
# its output goes to a file so that a daemon holding our stdout open can
# neither block the test nor ctest.

_MOUNT_SEQ=0
declare -A _MOUNT_PIDS=()

# write_client_config FILE KEY=VALUE...: later assignments win, as in the
# shell semantics of CVMFS configuration files.
write_client_config() {
  local file=$1 kv
  shift
  : >"$file"
  for kv in "$@"; do
    local key=${kv%%=*} value=${kv#*=}
    printf "%s='%s'\n" "$key" "${value//\'/\'\\\'\'}" >>"$file"
  done
}

# test_client_config FILE SERVER_URL PUBLIC_KEY [KEY=VALUE...]: a private
# (non-shared) cache in $WORK/cache, catalog ownership, short timeouts and the
# debug log $WORK/debug.log (printed when the test fails). Extra assignments
# override the defaults.
test_client_config() {
  local file=$1 url=$2 key=$3
  shift 3
  write_client_config "$file" \
    "CVMFS_SERVER_URL=$url" \
    "CVMFS_HTTP_PROXY=DIRECT" \
    "CVMFS_CACHE_BASE=$WORK/cache" \
    "CVMFS_SHARED_CACHE=no" \
    "CVMFS_QUOTA_LIMIT=2000" \
    "CVMFS_PUBLIC_KEY=$key" \
    "CVMFS_CLAIM_OWNERSHIP=no" \
    "CVMFS_KCACHE_TIMEOUT=60" \
    "CVMFS_TIMEOUT=5" \
    "CVMFS_TIMEOUT_DIRECT=5" \
    "CVMFS_DEBUGLOG=$WORK/debug.log" \
    "$@"
  show_on_failure "$WORK/debug.log"
}

# The private cache directory of FQRN (CVMFS_SHARED_CACHE=no).
cache_dir_of() { echo "$WORK/cache/$1"; }

# mount_repo FQRN MOUNTPOINT CONFIGS [FUSE_OPTIONS]: fails the test with
# cvmfs2's output when the mount does not come up.
mount_repo() {
  local fqrn=$1 mnt=$2 config=$3 extra=${4:-}
  local opts="config=$config" out rc=0
  [ -z "$extra" ] || opts+=",$extra"
  _MOUNT_SEQ=$((_MOUNT_SEQ + 1))
  out=$WORK/mount-$_MOUNT_SEQ.out
  mkdir -p "$mnt"
  "$BIN/cvmfs2" -o "$opts" "$fqrn" "$mnt" </dev/null >"$out" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    fail "mounting $fqrn on $mnt failed (cvmfs2 exit $rc): $(cat "$out")"
  fi
  mountpoint -q "$mnt" || fail "cvmfs2 exited 0 but $mnt is not a mount point: $(cat "$out")"
  on_exit "unmount_repo $(printf %q "$mnt")"
  _MOUNT_PIDS[$mnt]=$(magic_xattr pid "$mnt" 2>/dev/null || true)
  note "mounted $fqrn on $mnt (daemon pid ${_MOUNT_PIDS[$mnt]:-unknown})"
}

# mount_repo_expect_failure FQRN MOUNTPOINT CONFIGS: the mount must fail
# with a message; prints the message.
mount_repo_expect_failure() {
  local fqrn=$1 mnt=$2 config=$3 out rc=0
  mkdir -p "$mnt"
  out=$("$BIN/cvmfs2" -o "config=$config" "$fqrn" "$mnt" </dev/null 2>&1) || rc=$?
  if [ "$rc" -eq 0 ]; then
    on_exit "unmount_repo $(printf %q "$mnt")"
    fail "mounting $fqrn on $mnt succeeded but should have failed"
  fi
  [ -n "$out" ] || check_failed "failed mount of $fqrn printed no message"
  echo "$out"
}

# unmount_repo MOUNTPOINT: a no-op if not mounted. Waits for the daemon to
# exit so that its cache is consistent and unlocked afterwards.
unmount_repo() {
  local mnt=$1 pid
  mountpoint -q "$mnt" || return 0
  pid=${_MOUNT_PIDS[$mnt]:-}
  if ! umount "$mnt" 2>/dev/null && ! fusermount3 -u "$mnt" 2>/dev/null; then
    echo "$TEST_NAME: $mnt is busy, aborting its FUSE connection" >&2
    abort_fuse_below "$mnt"
    umount -l "$mnt" || return 1
  fi
  [ -n "$pid" ] || return 0
  if ! wait_pid_exit 30 "$pid"; then
    echo "$TEST_NAME: cvmfs2 (pid $pid) still running 30 s after unmounting $mnt" >&2
    kill -TERM "$pid" 2>/dev/null
    wait_pid_exit 10 "$pid" || kill -KILL "$pid" 2>/dev/null
    return 1
  fi
}

magic_xattr() {
  getfattr --absolute-names --only-values -n "user.$1" "$2"
}

# The cache file of an object, given its hex hash (as user.hash shows it).
cache_object_path() {
  local cache=$1 hash=$2
  echo "$cache/${hash:0:2}/${hash:2}"
}
