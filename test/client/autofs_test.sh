#!/usr/bin/env bash
# `ls /cvmfs/FQRN` mounts the repository through autofs, as on a worker node:
# `cvmfs_config setup` installs the program map and its master map entry
# (below a temporary $CVMFS_ROOTDIR laid out like Debian's autofs package),
# and a private automount, reading that master map, serves the temporary
# mount directory with a 3 s idle timeout. It shows: the first access mounts
# the repository and lists its content; names that are no repository give
# ENOENT; an idle repository is unmounted (and its cvmfs2 exits), a busy one
# is not; the next access mounts it again; stopping automount leaves nothing
# mounted. The node's own automount, /etc and /cvmfs are not touched; the
# test installs /sbin/mount.cvmfs for its duration unless one exists.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"
. "$here/../lib/autofs.sh"

test_init autofs 240
autofs_require
require_bins cvmfs_server

fqrn=auto.example.org
mkdir -p "$WORK/src/sub"
echo "mounted by autofs" >"$WORK/src/hello.txt"
echo "nested" >"$WORK/src/sub/nested.txt"
ln -s hello.txt "$WORK/src/link"
publish_tree "$fqrn" "$WORK/src" /
apache_start "$CVMFS_ROOTDIR/srv"

etc=$CVMFS_ROOTDIR/etc
mkdir -p "$etc/cvmfs/config.d"
write_client_config "$etc/cvmfs/default.local" \
  "CVMFS_HTTP_PROXY=DIRECT" "CVMFS_CACHE_BASE=$WORK/cache" "CVMFS_QUOTA_LIMIT=500" \
  "CVMFS_DEBUGLOG=$WORK/debug.log"
write_client_config "$etc/cvmfs/config.d/$fqrn.conf" \
  "CVMFS_SERVER_URL=$APACHE_URL/cvmfs/@fqrn@" "CVMFS_PUBLIC_KEY=$(repo_public_key "$fqrn")"
show_on_failure "$WORK/debug.log"

# autofs as Debian installs it: a master map reading the drop-in directory.
autofs_setup
mnt_dir=$CVMFS_ROOTDIR/cvmfs
expect_eq "drop-in entry" "$mnt_dir $etc/auto.cvmfs" \
  "$(grep -v '^#' "$etc/auto.master.d/cvmfs.autofs" 2>/dev/null || true)"
[ -x "$etc/auto.cvmfs" ] || fail "setup did not install an executable $etc/auto.cvmfs"
expect_eq "map output" "-fstype=cvmfs :$fqrn" "$("$etc/auto.cvmfs" "$fqrn")"
"$etc/auto.cvmfs" no_dots >/dev/null 2>&1 && check_failed "the map answered for 'no_dots'"
out=$("$BIN/cvmfs_config" setup 2>&1) || fail "second cvmfs_config setup failed: $out"
expect_eq "entries after a second setup" 1 "$(grep -c "^$mnt_dir " "$etc/auto.master.d/cvmfs.autofs")"

# A private automount for our master map only (-C: the node may run its own).
timeout=3
autofs_start $timeout

repo=$mnt_dir/$fqrn
is_mounted "$repo" && fail "$repo is mounted before anyone accessed it"

# First access mounts the repository.
listing=$(ls "$repo" 2>&1) || fail "ls $repo failed: $listing"
expect_eq "listing" "hello.txt link sub" "$(echo $listing)"
expect_eq "file content" "mounted by autofs" "$(cat "$repo/hello.txt")"
expect_eq "nested content" "nested" "$(cat "$repo/sub/nested.txt")"
expect_eq "symlink" "hello.txt" "$(readlink "$repo/link")"
source=$(findmnt -n -o SOURCE,FSTYPE --mountpoint "$repo" || true)
[[ "$source" == cvmfs2*fuse* ]] || check_failed "findmnt $repo shows '$source', expected a cvmfs2 FUSE mount"
expect_eq "user.fqrn" "$fqrn" "$(magic_xattr fqrn "$repo")"
pid=$(magic_xattr pid "$repo")
pass "ls $repo mounted the repository (cvmfs2 pid $pid)"

# Names that are no repository, and a repository nobody serves: ENOENT.
errno_of() {
  python3 -c 'import os, sys
try:
    os.stat(sys.argv[1]); print("exists")
except OSError as e:
    print(os.strerror(e.errno))' "$1"
}
for name in no_dots .hidden.org "bad name.org" missing.example.org; do
  expect_eq "stat of '$name'" "No such file or directory" "$(errno_of "$mnt_dir/$name")"
done
is_mounted "$mnt_dir/missing.example.org" &&
  check_failed "a failed mount left $mnt_dir/missing.example.org mounted"
pass "unknown names give ENOENT"

# A busy repository stays mounted past the timeout...
exec 3<"$repo/hello.txt"
sleep $((timeout * 3))
is_mounted "$repo" || check_failed "$repo was unmounted while a file was open"
exec 3<&-
# ...an idle one is unmounted, and its cvmfs2 exits.
wait_for $((timeout * 10)) "autofs to unmount the idle $repo" eval "! is_mounted $(printf %q "$repo")"
wait_pid_exit 30 "$pid" || check_failed "cvmfs2 (pid $pid) still runs after the expiry of $repo"
pass "idle repository unmounted by autofs, busy one kept"

# The next access mounts it again, with a new cvmfs2.
expect_eq "content after remount" "mounted by autofs" "$(cat "$repo/hello.txt")"
is_mounted "$repo" || check_failed "$repo not mounted again on access"
pid2=$(magic_xattr pid "$repo")
[ "$pid2" != "$pid" ] || check_failed "the remount reused cvmfs2 pid $pid"

# Stopping automount (what the exit handler does on failure too) leaves
# nothing mounted.
autofs_stop
remaining=$(mounts_below "$mnt_dir")
[ -z "$remaining" ] || check_failed "still mounted after stopping automount: $remaining"
wait_pid_exit 30 "$pid2" || check_failed "cvmfs2 (pid $pid2) still runs after stopping automount"
pass "automount stopped cleanly"
finish
