# The systems under comparison (sourced by test/bench/run after the test
# libraries). Every network system reads through the same toxiproxy proxy
# from the same Apache: ours and the real CVMFS client the repository at
# $BENCH_REPO_URL, httpdirfs and rclone the plain corpus tree at
# $BENCH_PLAIN_URL (an Apache directory index).
#
#   system_available NAME      false when the program is missing (then skipped)
#   system_version NAME        one line for the report
#   system_cache_modes NAME    "none" (runs without a local cache) and/or
#                              "cache" (runs with a persistent local cache)
#   system_mount NAME MODE     mounts (or, for local, does nothing) and sets
#                              SYSTEM_ROOT to the corpus root it presents;
#                              false when httpdirfs or rclone did not come up
#                              (a failure of ours or cvmfs ends the run)
#   system_unmount NAME        unmounts; waits for the daemon to exit
#   system_clear_cache NAME    empties the persistent cache (unmounted)
#   system_cpu_ticks NAME      the CPU time (user + system, clock ticks) the
#                              mounted daemon has used; nothing without one
#   system_prefetch_counters NAME
#                              "FETCHED USED UNREAD" bytes (tab-separated) of
#                              ours' prefetch since the mount (cvmfs_talk
#                              internal affairs); nothing for the others
#
# NAME is one of local, ours, ours-nopf (our client with CVMFS_PREFETCH=no:
# the prefetch off/on dimension), ours-base (the cvmfs2 of another build,
# $BENCH_BASE_BIN: before/after a change), cvmfs (the real CVMFS 2.12 client
# from ../shared/reference, test/lib/real_cvmfs.sh; systems_init_real
# unpacks it), httpdirfs, rclone. The caches live
# in $BENCH_CACHES/cache-NAME (systems_init_caches); mount points are
# $WORK/mnt/NAME.

readonly BENCH_FQRN=bench.example.org
readonly BENCH_SYSTEMS_ALL="local ours ours-nopf ours-base cvmfs httpdirfs rclone"
SYSTEM_ROOT=""
declare -A _SYSTEM_PIDS=()
BENCH_CACHES=""

# The persistent caches get a file system of their own, as on a worker node
# with a cache partition: a journaled ext4 in a sparse image file in $WORK,
# loop-mounted at $WORK/caches (inode tables written at mkfs time, so that no
# background initialisation runs during the measurements). On an ext4
# without a journal, like this machine's root file system, creating files
# within seconds of deleting many is slow (the inode allocator checks every
# free inode it passes for a recent deletion), and every COLD run deletes
# the cache of the run before it: 64 readers at 10 ms took 1.6 s with
# prefetch against 0.93 s without, a tenth of all CPU samples in the inode
# allocator under mkstemp, and 0.93 s either way on the image (session 13,
# doc/benchmarks.md). Without loop devices, or with BENCH_LOOP_CACHES=no,
# the caches stay in $WORK.
systems_init_caches() {
  local img=$WORK/caches.img dir=$WORK/caches
  BENCH_CACHES=$WORK
  [ "${BENCH_LOOP_CACHES:-yes}" != no ] || return 0
  mkdir -p "$dir"
  if truncate -s 8G "$img" &&
    mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$img" >>"$WORK/setup.log" 2>&1 &&
    mount -o loop "$img" "$dir" 2>>"$WORK/setup.log"; then
    on_exit "umount $(printf %q "$dir")"
    BENCH_CACHES=$dir
  else
    rm -f "$img"
    note "no loop-mounted ext4 for the caches (see setup.log): they stay in $WORK"
  fi
}

# One line for meta.tsv: where the caches are.
systems_caches_fs() {
  findmnt -n -o FSTYPE,SOURCE --target "$BENCH_CACHES" | awk '{ printf "%s on %s", $1, $2 }'
  [ "$BENCH_CACHES" = "$WORK" ] || printf ' (a journaled ext4 image, loop-mounted)'
  echo
}

# Unpacks the real CVMFS client when the run wants it and its tarball is
# there (else system_available says no and the report names the reason).
systems_init_real() {
  local ref=${CVMFS_REFERENCE_DIR:-$SOURCE_DIR/../shared/reference}
  [ -f "$ref/cvmfs-2.12-real-debian12-amd64.tar.xz" ] || return 0
  real_cvmfs_init >>"$WORK/setup.log"
}

system_available() {
  case $1 in
    local | ours | ours-nopf) return 0 ;;
    ours-base) [ -n "${BENCH_BASE_BIN:-}" ] && [ -x "$BENCH_BASE_BIN/cvmfs2" ] ;;
    cvmfs) [ -n "${REAL_BIN:-}" ] && [ -x "$REAL_BIN/real-cvmfs2" ] ;;
    httpdirfs | rclone) command -v "$1" >/dev/null 2>&1 ;;
    *) fail "unknown system '$1' (known: $BENCH_SYSTEMS_ALL)" ;;
  esac
}

system_version() {
  case $1 in
    local) echo "$(findmnt -n -o FSTYPE --target "$BENCH_TREE") on $(findmnt -n -o SOURCE --target "$BENCH_TREE")" ;;
    ours) echo "$BIN/cvmfs2" ;;
    ours-nopf) echo "$BIN/cvmfs2 (CVMFS_PREFETCH=no)" ;;
    ours-base) echo "$BENCH_BASE_BIN/cvmfs2 (--base-bin)" ;;
    cvmfs) echo "$("$REAL_BIN/real-cvmfs2" --version 2>&1 | head -n 1) (../shared/reference)" ;;
    httpdirfs) dpkg-query -W -f='httpdirfs ${Version}' httpdirfs 2>/dev/null || echo httpdirfs ;;
    rclone) rclone version 2>/dev/null | head -n 1 ;;
  esac
}

system_cache_modes() {
  case $1 in
    local) echo "none" ;;
    ours | ours-nopf | ours-base | cvmfs) echo "cache" ;;
    httpdirfs | rclone) echo "none cache" ;;
  esac
}

_system_mnt() { echo "$WORK/mnt/$1"; }

_client_conf() {  # the client configuration of ours, ours-nopf or cvmfs
  local sys=$1 conf=$WORK/client-$1-$BENCH_SERVER.conf url=$BENCH_REPO_URL proxy=DIRECT
  if [ ! -e "$conf" ]; then
    # Under the server conditions (servers.sh): through the stock Squid, or
    # straight to the small server.
    [ "$BENCH_SERVER" != squid ] || proxy=$BENCH_SQUID_URL
    [ "$BENCH_SERVER" != small ] || url=http://127.0.0.1:$BENCH_SMALL_PORT/cvmfs/@fqrn@
    [ "$BENCH_SERVER" != direct ] || url=http://127.0.0.1:$APACHE_PORT/cvmfs/@fqrn@
    # The debug log is off: it costs time on every operation.
    test_client_config "$conf" "$url" "$(repo_public_key "$BENCH_FQRN")" \
      "CVMFS_CACHE_BASE=$BENCH_CACHES/cache-$sys" CVMFS_QUOTA_LIMIT=20000 CVMFS_DEBUGLOG= \
      CVMFS_TIMEOUT=60 CVMFS_TIMEOUT_DIRECT=60 "CVMFS_HTTP_PROXY=$proxy"
    # run --set: for both of ours, before ours-nopf's prefetch switch.
    if [[ $sys == ours* ]] && [ -n "${BENCH_CLIENT_SETTINGS[*]:-}" ]; then
      printf '%s\n' "${BENCH_CLIENT_SETTINGS[@]}" >>"$conf"
    fi
    [ "$sys" != ours-nopf ] || echo "CVMFS_PREFETCH=no" >>"$conf"
    # The real client also wants a workspace and user of its own, and no
    # Geo-API (real_cvmfs.sh).
    [[ $sys == ours* ]] || cat >>"$conf" <<EOC
CVMFS_WORKSPACE='$BENCH_CACHES/cache-$sys'
CVMFS_RELOAD_SOCKETS='$BENCH_CACHES/cache-$sys'
CVMFS_USER=root
CVMFS_USE_GEOAPI=no
EOC
  fi
  echo "$conf"
}

system_cpu_ticks() {
  local pid
  case $1 in
    ours | ours-nopf | ours-base | cvmfs) pid=${_MOUNT_PIDS[$(_system_mnt "$1")]:-} ;;
    *) pid=${_SYSTEM_PIDS[$1]:-} ;;
  esac
  [ -n "$pid" ] && [ -r "/proc/$pid/stat" ] || return 0
  # Fields 14 and 15 after the command name (which may hold spaces).
  sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{ print $12 + $13 }'
}

system_prefetch_counters() {
  [ "$1" = ours ] || return 0
  local sock=$BENCH_CACHES/cache-$1/$BENCH_FQRN/cvmfs_io.$BENCH_FQRN
  "$BIN/cvmfs_talk" -p "$sock" internal affairs 2>/dev/null | awk -F'|' '
    $1 == "prefetch.sz_fetched_bytes" { f = $2; n++ }
    $1 == "prefetch.sz_used_bytes" { u = $2; n++ }
    $1 == "prefetch.sz_wasted_bytes" { w = $2; n++ }
    END { if (n == 3) printf "%d\t%d\t%d\n", f, u, w }'
}

_mount_cvmfs_client() {  # SYSTEM
  local mnt bin=$BIN
  mnt=$(_system_mnt "$1")
  SYSTEM_ROOT=$mnt
  if [ "$1" = cvmfs ]; then
    # The real client, as real_mount does, without an on_exit per mount
    # (unmount_repo works for it too: it waits for the pid in _MOUNT_PIDS).
    # Its reload socket goes into the cache directory, which must exist.
    mkdir -p "$mnt" "$BENCH_CACHES/cache-cvmfs"
    "$REAL_BIN/real-cvmfs2" -o "config=$(_client_conf cvmfs),allow_other" "$BENCH_FQRN" "$mnt" \
      </dev/null >>"$WORK/mounts.log" 2>&1 || fail "the real cvmfs2 did not mount (see logs/mounts.log)"
    _MOUNT_PIDS[$mnt]=$(getfattr --absolute-names --only-values -n user.pid "$mnt" 2>/dev/null || true)
    return 0
  fi
  [ "$1" != ours-base ] || bin=$BENCH_BASE_BIN
  BIN=$bin mount_repo "$BENCH_FQRN" "$mnt" "$(_client_conf "$1")" >>"$WORK/mounts.log"
}

# _wait_mounted SYSTEM MOUNTPOINT: up to 60 s, while the daemon lives.
_wait_mounted() {
  local pid=${_SYSTEM_PIDS[$1]} deadline=$((SECONDS + 60))
  until mountpoint -q "$2"; do
    if ! kill -0 "$pid" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
      echo "bench: $1 did not mount $2 (see logs/$1.log)" >&2
      return 1
    fi
    sleep 0.1
  done
}

_mount_httpdirfs() {  # MODE
  local mnt cache=() log=$WORK/httpdirfs.log
  mnt=$(_system_mnt httpdirfs)
  mkdir -p "$mnt"
  # --no-range-check: httpdirfs 1.2.5 asks for the segment after the end of
  # a file whose size is a multiple of its 8 MiB segments, takes Apache's 416
  # for missing range support and exits. Ranges work (the probe compares the
  # big file's checksum through every system with the local one).
  [ "$1" = none ] || cache=(--cache --cache-location "$BENCH_CACHES/cache-httpdirfs" --no-range-check)
  [ "$1" = none ] || mkdir -p "$BENCH_CACHES/cache-httpdirfs"
  local proxy=()
  [ "$BENCH_SERVER" != squid ] || proxy=(--proxy "$BENCH_SQUID_URL")
  echo "== httpdirfs ${cache[*]} ${proxy[*]} $(_plain_url)/ $mnt" >>"$log"
  httpdirfs -f "${cache[@]}" "${proxy[@]}" "$(_plain_url)/" "$mnt" </dev/null >>"$log" 2>&1 &
  _SYSTEM_PIDS[httpdirfs]=$!
  SYSTEM_ROOT=$mnt
  _wait_mounted httpdirfs "$mnt"
}

# The plain corpus tree as the server condition serves it.
_plain_url() {
  if [ "$BENCH_SERVER" = direct ]; then
    echo "http://127.0.0.1:$APACHE_PORT/plain"
  else
    echo "$BENCH_PLAIN_URL"
  fi
}

_mount_rclone() {  # MODE
  local mnt mode=full log=$WORK/rclone.log
  mnt=$(_system_mnt rclone)
  mkdir -p "$mnt"
  [ "$1" = cache ] || mode=off
  echo "== rclone mount --vfs-cache-mode $mode $(_plain_url)/ $mnt" >>"$log"
  RCLONE_CONFIG=$WORK/rclone.conf rclone mount :http: "$mnt" --http-url "$(_plain_url)/" \
    --read-only --vfs-cache-mode "$mode" --cache-dir "$BENCH_CACHES/cache-rclone" \
    --log-file "$log" --log-level NOTICE </dev/null >>"$log" 2>&1 &
  _SYSTEM_PIDS[rclone]=$!
  SYSTEM_ROOT=$mnt
  _wait_mounted rclone "$mnt"
}

system_mount() {
  local sys=$1 mode=$2
  case $sys in
    local) SYSTEM_ROOT=$BENCH_TREE ;;
    ours | ours-nopf | ours-base | cvmfs) _mount_cvmfs_client "$sys" ;;
    httpdirfs) _mount_httpdirfs "$mode" ;;
    rclone) _mount_rclone "$mode" ;;
  esac
}

system_unmount() {
  local sys=$1 mnt pid
  case $sys in
    local) return 0 ;;
    ours | ours-nopf | ours-base | cvmfs) unmount_repo "$(_system_mnt "$sys")" ;;
    *)
      mnt=$(_system_mnt "$sys")
      pid=${_SYSTEM_PIDS[$sys]:-}
      # findmnt, not mountpoint: a crashed daemon leaves a dead mount behind.
      if findmnt -rn --mountpoint "$mnt" >/dev/null; then
        umount "$mnt" 2>/dev/null || fusermount3 -u "$mnt" 2>/dev/null ||
          { abort_fuse_below "$mnt"; umount -l "$mnt"; }
      elif [ -n "$pid" ]; then
        kill -TERM "$pid" 2>/dev/null || true  # it never mounted
      fi
      [ -z "$pid" ] || wait_pid_exit 60 "$pid" ||
        { echo "bench: $sys (pid $pid) still running after unmount, killing it" >&2; kill -KILL "$pid"; }
      _SYSTEM_PIDS[$sys]=""
      ;;
  esac
}

system_clear_cache() {
  [ "$1" = local ] || rm -rf "$BENCH_CACHES/cache-$1"
}
