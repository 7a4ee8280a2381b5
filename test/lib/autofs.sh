# A private automount for the integration tests (sourced after common.sh and
# client.sh), serving $CVMFS_ROOTDIR/cvmfs through the map that
# `cvmfs_config setup` installs, as on a worker node. The node's own
# automount, /etc and /cvmfs are not touched.
#
#   autofs_require            skips unless automount and the kernel's autofs
#                             can be used; waits until no other autofs test
#                             runs; installs /sbin/mount.cvmfs (ours) for
#                             the test's duration unless one exists
#   autofs_setup              `cvmfs_config setup` below $CVMFS_ROOTDIR, with
#                             a master map as Debian's autofs package has it
#   autofs_start TIMEOUT      runs automount for the entry setup installed,
#                             with an idle timeout of TIMEOUT seconds; sets
#                             AUTOFS_MNT_DIR and automount_pid; stopped at exit
#   autofs_stop               unmounts the repositories, stops automount
#   is_mounted PATH           from the mount table (stat(2) would trigger
#                             the automounter)

AUTOFS_MNT_DIR=""
automount_pid=""

autofs_require() {
  require_cmds automount
  require_bins cvmfs2 mount.cvmfs cvmfs_config
  grep -qw autofs /proc/filesystems || modprobe autofs4 2>/dev/null ||
    skip "the kernel has no autofs support (autofs missing from /proc/filesystems)"
  # One autofs test at a time on the node (of any build tree): they share
  # /sbin/mount.cvmfs, which the first one would remove under the second.
  exec {_AUTOFS_LOCK_FD}>/tmp/cvmfs-test-autofs.lock
  flock -w 150 "$_AUTOFS_LOCK_FD" || fail "another autofs test held the lock for 150 s"
  if [ -e /sbin/mount.cvmfs ] && [ "$(readlink -f /sbin/mount.cvmfs)" != "$(readlink -f "$BIN/mount.cvmfs")" ]; then
    skip "/sbin/mount.cvmfs belongs to another installation"
  fi
  if [ ! -e /sbin/mount.cvmfs ]; then
    ln -s "$BIN/mount.cvmfs" /sbin/mount.cvmfs
    on_exit "rm -f /sbin/mount.cvmfs"
  fi
}

autofs_setup() {
  local etc=$CVMFS_ROOTDIR/etc out
  mkdir -p "$etc/auto.master.d"
  printf '+dir:%s\n' "$etc/auto.master.d" >"$etc/auto.master"
  out=$("$BIN/cvmfs_config" setup 2>&1) || fail "cvmfs_config setup failed: $out"
}

is_mounted() { awk -v m="$1" '$5 == m { found = 1 } END { exit !found }' /proc/self/mountinfo; }

autofs_stop() {
  [ -n "$automount_pid" ] || return 0
  local m
  # Unmount the repositories first: automount does not exit while one is
  # mounted, and a crashed one must not leave a hanging FUSE mount.
  while read -r m; do
    [ -n "$m" ] && [ "$m" != "$AUTOFS_MNT_DIR" ] && unmount_repo "$m"
  done < <(mounts_below "$AUTOFS_MNT_DIR")
  kill -TERM "$automount_pid" 2>/dev/null || true
  if ! wait_pid_exit 20 "$automount_pid"; then
    echo "$TEST_NAME: automount (pid $automount_pid) ignored SIGTERM, killing it" >&2
    kill -KILL "$automount_pid" 2>/dev/null || true
  fi
  wait "$automount_pid" 2>/dev/null || true
  automount_pid=""
  if mountpoint -q "$AUTOFS_MNT_DIR"; then
    umount "$AUTOFS_MNT_DIR" 2>/dev/null || umount -l "$AUTOFS_MNT_DIR"
  fi
}

autofs_start() {
  local timeout=$1 etc=$CVMFS_ROOTDIR/etc entry log deadline
  AUTOFS_MNT_DIR=$CVMFS_ROOTDIR/cvmfs
  on_exit autofs_stop
  # The entry setup installed, with a short idle timeout of its own: the
  # automount of Debian 12 (5.1.8) ignores -t for master map entries and
  # uses autofs.conf's 300 s, and the node's autofs.conf is not ours to
  # change.
  entry=$(grep -v '^#' "$etc/auto.master.d/cvmfs.autofs")
  echo "$entry --timeout=$timeout" >"$WORK/auto.master"
  # In a session of its own: the kernel never triggers mounts for processes
  # in the daemon's process group (it takes them for the daemon itself),
  # and a background job of this script would share ours.
  setsid automount -f -C -d -p "$WORK/automount.pid" "$WORK/auto.master" \
    </dev/null >"$WORK/automount.log" 2>&1 &
  automount_pid=$!
  show_on_failure "$WORK/automount.log" 60
  deadline=$((SECONDS + 20))
  until [ "$(findmnt -n -o FSTYPE --mountpoint "$AUTOFS_MNT_DIR")" = autofs ]; do
    if ! kill -0 "$automount_pid" 2>/dev/null; then
      automount_pid=""
      log=$(tail -n 20 "$WORK/automount.log")
      # Without the autofs kernel interface (no /dev/autofs, no permission
      # to mount autofs in this container) automount cannot work at all;
      # any other early exit is a failure.
      if grep -qiE "/dev/autofs|operation not permitted|permission denied|no such device|kernel does not support" <<<"$log"; then
        skip "automount cannot run here (it exited at start): $log"
      fi
      fail "automount exited at start: $log"
    fi
    [ "$SECONDS" -lt "$deadline" ] || fail "automount did not mount $AUTOFS_MNT_DIR within 20 s"
    sleep 0.1
  done
  grep -q "with timeout $timeout," "$WORK/automount.log" ||
    fail "automount did not take the ${timeout}s timeout: $(grep 'mounted indirect' "$WORK/automount.log")"
  note "automount (pid $automount_pid) serves $AUTOFS_MNT_DIR, idle timeout ${timeout}s"
}
