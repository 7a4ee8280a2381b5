#!/usr/bin/env bash
# `mount -t cvmfs FQRN DIR` works through our mount.cvmfs, as administrators
# mount CVMFS (and as fstab and autofs do): mount(8) runs /sbin/mount.cvmfs,
# which runs cvmfs2 with the configuration under $CVMFS_ROOTDIR/etc/cvmfs.
# The test installs /sbin/mount.cvmfs for its duration unless one exists.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init mount_helper 180
require_bins cvmfs2 mount.cvmfs cvmfs_server
if [ -e /sbin/mount.cvmfs ] && [ "$(readlink -f /sbin/mount.cvmfs)" != "$(readlink -f "$BIN/mount.cvmfs")" ]; then
  skip "/sbin/mount.cvmfs belongs to another installation"
fi
if [ ! -e /sbin/mount.cvmfs ]; then
  ln -s "$BIN/mount.cvmfs" /sbin/mount.cvmfs
  on_exit "rm -f /sbin/mount.cvmfs"
fi

fqrn=helper.example.org
mkdir -p "$WORK/src/dir"
echo "mounted through mount(8)" >"$WORK/src/dir/file.txt"
publish_tree "$fqrn" "$WORK/src" /
apache_start "$CVMFS_ROOTDIR/srv"

# The standard configuration files, as an administrator writes them.
mkdir -p "$CVMFS_ROOTDIR/etc/cvmfs/config.d"
write_client_config "$CVMFS_ROOTDIR/etc/cvmfs/default.local" \
  "CVMFS_HTTP_PROXY=DIRECT" "CVMFS_CACHE_BASE=$WORK/cache" "CVMFS_QUOTA_LIMIT=500" \
  "CVMFS_DEBUGLOG=$WORK/debug.log"
write_client_config "$CVMFS_ROOTDIR/etc/cvmfs/config.d/$fqrn.conf" \
  "CVMFS_SERVER_URL=$APACHE_URL/cvmfs/@fqrn@" "CVMFS_PUBLIC_KEY=$(repo_public_key "$fqrn")"
show_on_failure "$WORK/debug.log"

mnt=$CVMFS_ROOTDIR/cvmfs/$fqrn
mkdir -p "$mnt"
out=$(mount -t cvmfs "$fqrn" "$mnt" 2>&1) || fail "mount -t cvmfs failed: $out"
on_exit "umount $(printf %q "$mnt") 2>/dev/null || true"
mountpoint -q "$mnt" || fail "mount -t cvmfs returned 0 but $mnt is not mounted"
expect_eq "file content" "mounted through mount(8)" "$(cat "$mnt/dir/file.txt")"
findmnt -n -o FSTYPE,SOURCE "$mnt" | grep -q "fuse.*cvmfs2\|cvmfs2" ||
  check_failed "findmnt shows $(findmnt -n -o FSTYPE,SOURCE "$mnt"), expected source cvmfs2"
umount "$mnt" || fail "umount $mnt failed"

# A bad repository name and a missing mount point give clear errors.
out=$(mount -t cvmfs "no_dots" "$mnt" 2>&1) && fail "mount of 'no_dots' succeeded"
echo "$out" | grep -q "not a repository name" || check_failed "unclear error for a bad name: $out"
out=$(mount -t cvmfs "$fqrn" "$WORK/missing" 2>&1) && fail "mount on a missing directory succeeded"
[ -n "$out" ] || check_failed "no message for a missing mount point"
pass "mount -t cvmfs, umount and errors"
finish
