# The real CernVM-FS 2.12 client and swissknife in the integration tests
# (sourced after common.sh and client.sh), from the tarball in
# $CVMFS_REFERENCE_DIR (default: $SOURCE_DIR/../shared/reference, see its
# README.md).
#
#   real_cvmfs_private_etc "$@"   first thing in a script, before test_init:
#                                 if the machine has an /etc/cvmfs, re-runs
#                                 the script in a private mount namespace
#                                 with an empty /etc/cvmfs (the real client
#                                 always reads /etc/cvmfs/default.conf etc.)
#   real_cvmfs_init               unpacks the tarball into $WORK/real; sets
#                                 REAL_BIN; skips (77) if there is no
#                                 tarball, fails if a library is missing
#   real_client_config FILE URL PUBKEY [KEY=VALUE...]
#                                 a private cache ($WORK/real-cache), no
#                                 Geo API, no shared cache, short timeouts,
#                                 the debug log $WORK/real-debug.log
#   real_mount FQRN MOUNTPOINT CONFIG   mounts with real-cvmfs2 (allow_other);
#                                 unmounted at exit
#   real_unmount MOUNTPOINT       fusermount3 -u, else umount -l; waits for
#                                 the real daemon to exit
#   real_swissknife ARGS...       runs real-cvmfs_swissknife
#
# The real tools are never started from /usr/bin: only from the tarball.

REAL_BIN=""
REAL_CACHE=""
declare -A _REAL_MOUNT_PIDS=()
_REAL_MOUNT_SEQ=0
# What the real client needs at run time (Debian 12 names; the reference's
# README says "libcares2" for what Debian calls libc-ares2).
REAL_CVMFS_PACKAGES="libfuse3-3 libcurl4 libc-ares2 libpacparser1 libsqlite3-0 libleveldb1d
libprotobuf-lite32 libuuid1 libsnappy1v5 libssl3"

real_cvmfs_private_etc() {
  [ -d /etc/cvmfs ] || return 0
  [ -z "${_REAL_CVMFS_PRIVATE_ETC:-}" ] || {
    # In the private namespace: hide the machine's configuration.
    mount -t tmpfs -o size=1m,mode=0755 real-cvmfs-etc /etc/cvmfs ||
      fail "could not hide /etc/cvmfs in the private mount namespace"
    return 0
  }
  [ "$(id -u)" -eq 0 ] || return 0 # test_init skips
  command -v unshare >/dev/null || skip "/etc/cvmfs exists and unshare is missing to hide it"
  echo "--- $TEST_NAME: /etc/cvmfs exists: running in a private mount namespace without it"
  _REAL_CVMFS_PRIVATE_ETC=1 exec unshare -m --propagation private bash "$0" "$@"
}

real_cvmfs_init() {
  local ref=${CVMFS_REFERENCE_DIR:-$SOURCE_DIR/../shared/reference}
  local tarball=$ref/cvmfs-2.12-real-debian12-amd64.tar.xz
  [ -f "$tarball" ] ||
    skip "the real CVMFS 2.12 tarball $tarball is absent (set CVMFS_REFERENCE_DIR)"
  if [ -d /etc/cvmfs ] && [ -n "$(ls -A /etc/cvmfs)" ]; then
    fail "/etc/cvmfs is not empty: call real_cvmfs_private_etc before test_init"
  fi
  mkdir -p "$WORK/real"
  tar -xJf "$tarball" -C "$WORK/real" || fail "could not unpack $tarball"
  REAL_BIN=$WORK/real/cvmfs-2.12-real/bin
  local lib=$WORK/real/cvmfs-2.12-real/lib missing
  missing=$(LD_LIBRARY_PATH=$lib ldd "$REAL_BIN/cvmfs_swissknife" "$lib/libcvmfs_fuse3.so" \
    "$REAL_BIN/cvmfs2" 2>&1 | awk '/not found/ { print $1 }' | sort -u | tr '\n' ' ')
  [ -z "$missing" ] || fail "the real CVMFS tools miss the libraries ${missing}; install" \
    "$(echo $REAL_CVMFS_PACKAGES) (packaging/install-deps.sh --integration)"
  REAL_CACHE=$WORK/real-cache
  mkdir -p "$REAL_CACHE"
  note "real CVMFS: $("$REAL_BIN/real-cvmfs2" --version 2>&1 | head -n 1)"
}

real_client_config() {
  local file=$1 url=$2 key=$3
  shift 3
  write_client_config "$file" \
    "CVMFS_SERVER_URL=$url" \
    "CVMFS_HTTP_PROXY=DIRECT" \
    "CVMFS_PUBLIC_KEY=$key" \
    "CVMFS_CACHE_BASE=$REAL_CACHE" \
    "CVMFS_SHARED_CACHE=no" \
    "CVMFS_RELOAD_SOCKETS=$REAL_CACHE" \
    "CVMFS_USE_GEOAPI=no" \
    "CVMFS_CLAIM_OWNERSHIP=no" \
    "CVMFS_QUOTA_LIMIT=2000" \
    "CVMFS_TIMEOUT=5" \
    "CVMFS_TIMEOUT_DIRECT=5" \
    "CVMFS_MAX_RETRIES=1" \
    "CVMFS_SYSLOG_LEVEL=3" \
    "CVMFS_DEBUGLOG=$WORK/real-debug.log" \
    "$@"
  show_on_failure "$WORK/real-debug.log" 60
}

# The real client's control socket and cache directory of FQRN.
real_cache_dir_of() { echo "$REAL_CACHE/$1"; }

real_mount() {
  local fqrn=$1 mnt=$2 config=$3 out rc=0
  _REAL_MOUNT_SEQ=$((_REAL_MOUNT_SEQ + 1))
  out=$WORK/real-mount-$_REAL_MOUNT_SEQ.out
  mkdir -p "$mnt"
  "$REAL_BIN/real-cvmfs2" -o "config=$config,allow_other" "$fqrn" "$mnt" \
    </dev/null >"$out" 2>&1 || rc=$?
  [ "$rc" -eq 0 ] || fail "real cvmfs2: mounting $fqrn on $mnt failed (exit $rc): $(cat "$out")"
  mountpoint -q "$mnt" || fail "real cvmfs2 exited 0 but $mnt is not a mount point: $(cat "$out")"
  on_exit "real_unmount $(printf %q "$mnt")"
  _REAL_MOUNT_PIDS[$mnt]=$(getfattr --absolute-names --only-values -n user.pid "$mnt" 2>/dev/null || true)
  note "real cvmfs2 mounted $fqrn on $mnt (revision $(real_xattr revision "$mnt"), pid ${_REAL_MOUNT_PIDS[$mnt]:-unknown})"
}

real_xattr() { getfattr --absolute-names --only-values -n "user.$1" "$2" 2>/dev/null; }

real_unmount() {
  local mnt=$1 pid
  mountpoint -q "$mnt" || return 0
  pid=${_REAL_MOUNT_PIDS[$mnt]:-}
  if ! fusermount3 -u "$mnt" 2>/dev/null && ! umount "$mnt" 2>/dev/null; then
    echo "$TEST_NAME: $mnt is busy, aborting its FUSE connection" >&2
    abort_fuse_below "$mnt"
    umount -l "$mnt" || return 1
  fi
  [ -n "$pid" ] || return 0
  if ! wait_pid_exit 30 "$pid"; then
    echo "$TEST_NAME: real cvmfs2 (pid $pid) still running 30 s after unmounting $mnt" >&2
    kill -KILL "$pid" 2>/dev/null
    return 1
  fi
}

real_swissknife() { "$REAL_BIN/real-cvmfs_swissknife" "$@"; }

# mask_dir_nlink < LISTING: the link count of directories replaced by "-".
# The real 2.12 client shows the catalog's 2 + subdirectories, while the
# fixtures' expected*.tsv (and our client, which follows them) show 1.
mask_dir_nlink() { awk -F'\t' -v OFS='\t' '$2 == "d" { $7 = "-" } { print }'; }

# compare_listing_to LABEL EXPECTED_TSV ROOT [compare_listings.py options]:
# lists ROOT and records a failure naming each differing path; directory
# link counts are not compared (see mask_dir_nlink).
compare_listing_to() {
  local label=$1 expected=$2 root=$3 out
  shift 3
  out=$WORK/listing-${label//[^A-Za-z0-9_.-]/_}
  if ! python3 "$TESTLIB_DIR/listing.py" "$root" >"$out.raw" 2>"$out.err"; then
    check_failed "$label: listing $root failed: $(head -n 5 "$out.err")"
    return 1
  fi
  mask_dir_nlink <"$out.raw" >"$out.actual"
  mask_dir_nlink <"$expected" >"$out.expected"
  if python3 "$TESTLIB_DIR/compare_listings.py" "$@" "$out.expected" "$out.actual" >"$out.diff"; then
    note "$label: $(wc -l <"$out.actual") entries as expected"
  else
    check_failed "$label: differs from $(basename "$expected") (expected vs actual):"$'\n'"$(cat "$out.diff")"
    return 1
  fi
}
