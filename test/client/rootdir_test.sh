#!/usr/bin/env bash
# CVMFS_ROOTDIR, our relocation of every system path: two clients with
# roots of their own on one node, one of them given as a relative path.
# Messages name the relocated files (never /etc/cvmfs); a relative root is
# made absolute (showconfig finds the repository mounted below its mount
# directory, cvmfs_talk reports the absolute mount point); `cvmfs_talk` and
# `cvmfs_config stat` without a repository name reach only their own root's
# mounts, and cvmfs_talk exits 0 when each of those answers.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init rootdir 180
require_bins cvmfs_server cvmfs2 cvmfs_talk cvmfs_config

mkdir -p "$WORK/src"
echo a >"$WORK/src/a.txt"
publish_tree a.root.org "$WORK/src" /
publish_tree b.root.org "$WORK/src" /
apache_start "$CVMFS_ROOTDIR/srv"

# Two client roots: A (given relative to $WORK) and B.
for r in A B; do
  fqrn=$(tr A-Z a-z <<<"$r").root.org
  etc=$WORK/root$r/etc/cvmfs
  mkdir -p "$etc/config.d"
  write_client_config "$etc/default.local" "CVMFS_HTTP_PROXY=DIRECT" \
    "CVMFS_CACHE_BASE=$WORK/cache$r" "CVMFS_SHARED_CACHE=no" "CVMFS_QUOTA_LIMIT=500" \
    "CVMFS_REPOSITORIES=$fqrn"
  write_client_config "$etc/config.d/$fqrn.conf" \
    "CVMFS_SERVER_URL=$APACHE_URL/cvmfs/@fqrn@" "CVMFS_PUBLIC_KEY=$(repo_public_key "$fqrn")"
done
in_a() { (cd "$WORK" && CVMFS_ROOTDIR=rootA "$@"); }
in_b() { CVMFS_ROOTDIR=$WORK/rootB "$@"; }
mnt_a=$WORK/rootA/cvmfs/a.root.org
mnt_b=$WORK/rootB/cvmfs/b.root.org

# Messages name the relocated files.
mkdir -p "$WORK/mnt-none"
msg=$(cd "$WORK" && CVMFS_ROOTDIR=rootA "$BIN/cvmfs2" -o config=/dev/null c.root.org "$WORK/mnt-none" 2>&1) &&
  fail "mounting the unconfigured c.root.org succeeded"
grep -qF "$WORK/rootA/etc/cvmfs/domain.d/root.org.local" <<<"$msg" ||
  check_failed "the message does not name the relocated domain.d file: $msg"
grep -qE "(^|[^A-Za-z0-9_.-])/etc/cvmfs" <<<"$msg" && check_failed "the message names /etc/cvmfs: $msg"
echo "CVMFS_HTTP_PROXY=" >"$WORK/no-proxy.conf"
msg=$(in_b "$BIN/cvmfs2" -o config="$WORK/no-proxy.conf" b.root.org "$WORK/mnt-none" 2>&1) &&
  fail "mounting without a proxy succeeded"
grep -qF "$WORK/rootB/etc/cvmfs/default.local" <<<"$msg" ||
  check_failed "the message does not name the relocated default.local: $msg"
pass "messages name the relocated files"

# Each root mounts its repository below its own mount directory (A through
# its relative root, as mount.cvmfs would be run).
cd "$WORK"
CVMFS_ROOTDIR=rootA mount_repo a.root.org "$mnt_a" /dev/null
cd /
in_b mount_repo b.root.org "$mnt_b" /dev/null

# The relative root is absolute: the mount point is reported as the kernel
# has it, and the tools find the repository below its mount directory.
expect_eq "talk mountpoint (relative root)" "$mnt_a" "$(in_a "$BIN/cvmfs_talk" -i a.root.org mountpoint)"
# status lists every FUSE mount of cvmfs2 on the machine and exits 1 if any
# (another test's, being torn down) does not answer: only our line counts.
out=$(in_a "$BIN/cvmfs_config" status 2>&1) || true
grep -qF "a.root.org mounted on $mnt_a" <<<"$out" || check_failed "status: $out"
out=$(in_a "$BIN/cvmfs_config" showconfig -s a.root.org 2>&1)
grep -qF "CVMFS_SERVER_URL=$APACHE_URL/cvmfs/a.root.org    # from $WORK/rootA/etc/cvmfs/config.d/a.root.org.conf" <<<"$out" ||
  check_failed "showconfig with a relative root: $out"
pass "a relative CVMFS_ROOTDIR is made absolute"

# cvmfs_talk and stat without a name: this root's mounts only.
out=$(in_a "$BIN/cvmfs_talk" pid 2>&1) || check_failed "cvmfs_talk pid (root A) exited $?: $out"
expect_eq "cvmfs_talk pid (root A)" "a.root.org:
$(magic_xattr pid "$mnt_a")" "$out"
out=$(in_b "$BIN/cvmfs_talk" mountpoint 2>&1) || check_failed "cvmfs_talk mountpoint (root B) exited $?: $out"
expect_eq "cvmfs_talk mountpoint (root B)" "b.root.org:
$mnt_b" "$out"
out=$(in_a "$BIN/cvmfs_config" stat 2>&1)
grep -q "Running cvmfs_config stat a.root.org" <<<"$out" || check_failed "stat (root A) misses a.root.org: $out"
grep -q "b.root.org" <<<"$out" && check_failed "stat (root A) reaches root B's mount: $out"
out=$(in_b "$BIN/cvmfs_config" stat b.root.org 2>&1) || check_failed "stat b.root.org (root B): $out"
out=$(in_b "$BIN/cvmfs_config" stat a.root.org 2>&1) && check_failed "root B's stat reaches a.root.org: $out"
pass "talk and stat reach their own root's mounts"
finish
