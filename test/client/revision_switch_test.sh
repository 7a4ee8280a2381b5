#!/usr/bin/env bash
# A new revision is switched to under open files on a real FUSE mount, with
# no unmount:
#   1. revision 1 mounted; a file held open (not yet read); revision 2
#      changes that file, adds one and removes one; `cvmfs_talk remount
#      sync` switches;
#   2. revision 3 does the same again, and the client's own updater switches
#      when the TTL of revision 2 (5 s, CVMFS_REPOSITORY_TTL) expires.
# After each switch: the open descriptor reads the old content in full, a
# new open reads the new content, `ls` shows the new tree, the inodes of
# changed files differ from before, user.revision (attr and getfattr) shows
# the new revision, and the mount (mount id, cvmfs2 pid) is the same one.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init revision_switch 300
require_cmds attr
require_bins cvmfs_server cvmfs2 cvmfs_talk

fqrn=switch.test.org
src=$WORK/src
mnt=$WORK/mnt
mkdir -p "$src"
# Bigger than what the kernel reads ahead, so that reading the held file
# after the switch really asks cvmfs2 for the old content.
make_random_file "$src/changing.bin" $((3 * 1024 * 1024)) rev1
echo "stays" >"$src/stable.txt"
echo "removed in revision 2" >"$src/gone2.txt"
echo "removed in revision 3" >"$src/gone3.txt"
publish_tree $fqrn "$src" data
apache_start "$CVMFS_ROOTDIR/srv"

# publish_revision SEED ADD REMOVE: a revision where data/changing.bin has
# new content, data/ADD is new and data/REMOVE is deleted (the directory is
# replaced as a whole: ingest deletes data/ first).
publish_revision() {
  local seed=$1 add=$2 remove=$3 tarball=$WORK/rev.tar out
  make_random_file "$src/changing.bin" $((2 * 1024 * 1024 + 4321)) "$seed"
  echo "added in $seed" >"$src/$add"
  rm -f "$src/$remove"
  tar --format=posix -C "$src" -cf "$tarball" .
  out=$("$BIN/cvmfs_server" ingest -d data -t "$tarball" -b data $fqrn 2>&1) ||
    fail "publishing $seed failed: $out"
  note "published $seed as revision $(manifest_field $fqrn S)"
}

config=$CVMFS_ROOTDIR/etc/cvmfs/config.d/$fqrn.local
mkdir -p "$(dirname "$config")"
test_client_config "$config" "$APACHE_URL/cvmfs/@fqrn@" "$(repo_public_key $fqrn)" \
  "CVMFS_KCACHE_TIMEOUT=2"
mount_repo $fqrn "$mnt" "$config"
talk() { "$BIN/cvmfs_talk" -i $fqrn "$@" 2>&1; }
mount_id() { awk -v m="$mnt" '$5 == m { print $1 }' /proc/self/mountinfo; }
pid=$(magic_xattr pid "$mnt")
id=$(mount_id)
[ -n "$id" ] || fail "$mnt not in the mount table"

# check_switch REV OLD_SHA NEW_SHA OLD_INODE ADDED REMOVED: the checks after
# a switch to REV, with descriptor 3 opened on data/changing.bin before it.
check_switch() {
  local rev=$1 old_sha=$2 new_sha=$3 old_inode=$4 added=$5 removed=$6
  expect_eq "revision $rev: open descriptor reads the old content" "$old_sha" \
    "$(sha256sum <&3 | cut -d' ' -f1)"
  exec 3<&-
  expect_eq "revision $rev: a new open reads the new content" "$new_sha" \
    "$(sha256_of "$mnt/data/changing.bin")"
  expect_eq "revision $rev: new size" "$(stat -c %s "$src/changing.bin")" \
    "$(stat -c %s "$mnt/data/changing.bin")"
  expect_eq "revision $rev: listing" "$(ls "$src")" "$(ls "$mnt/data")"
  [ -e "$mnt/data/$removed" ] && check_failed "revision $rev: removed $removed still visible"
  expect_eq "revision $rev: added file" "$(cat "$src/$added")" "$(cat "$mnt/data/$added" 2>&1)"
  local inode
  inode=$(stat -c %i "$mnt/data/changing.bin")
  [ "$inode" != "$old_inode" ] ||
    check_failed "revision $rev: data/changing.bin kept inode $inode across the switch"
  expect_eq "revision $rev: attr -g revision" "$rev" "$(attr -q -g revision "$mnt")"
  expect_eq "revision $rev: user.revision" "$rev" "$(magic_xattr revision "$mnt")"
  expect_eq "revision $rev: cvmfs_talk revision" "$rev" "$(talk revision)"
  expect_eq "revision $rev: same cvmfs2" "$pid" "$(magic_xattr pid "$mnt")"
  expect_eq "revision $rev: same mount" "$id" "$(mount_id)"
}

# Switch 1, by cvmfs_talk remount sync.
rev1=$(magic_xattr revision "$mnt")
sha1=$(sha256_of "$src/changing.bin")
inode1=$(stat -c %i "$mnt/data/changing.bin")
expect_eq "revision 1 content" "$sha1" "$(sha256_of "$mnt/data/changing.bin")"
exec 3<"$mnt/data/changing.bin"
# Revision 2 carries a 5 s TTL: from then on the updater checks every 5 s.
server_conf=$CVMFS_ROOTDIR/etc/cvmfs/repositories.d/$fqrn/server.conf
sed -i '/^CVMFS_REPOSITORY_TTL=/d' "$server_conf"
echo "CVMFS_REPOSITORY_TTL=5" >>"$server_conf"
publish_revision rev2 added2.txt gone2.txt
rev2=$(manifest_field $fqrn S)
expect_eq "before remount: still revision $rev1" "$rev1" "$(magic_xattr revision "$mnt")"
out=$(talk remount sync) || fail "cvmfs_talk remount sync failed: $out"
note "remount sync: $out"
[[ "$out" != *Failed* && "$out" != *"up to date"* ]] ||
  check_failed "remount sync did not switch: $out"
check_switch "$rev2" "$sha1" "$(sha256_of "$src/changing.bin")" "$inode1" added2.txt gone2.txt
pass "remount sync switched from revision $rev1 to $rev2 under an open file"

# Switch 2, by the updater after revision 2's TTL.
sha2=$(sha256_of "$src/changing.bin")
inode2=$(stat -c %i "$mnt/data/changing.bin")
exec 3<"$mnt/data/changing.bin"
publish_revision rev3 added3.txt gone3.txt
rev3=$(manifest_field $fqrn S)
start=$SECONDS
wait_for 60 "the updater to switch to revision $rev3" \
  eval '[ "$(magic_xattr revision "$mnt")" = "$rev3" ]'
note "the updater switched after $((SECONDS - start)) s"
check_switch "$rev3" "$sha2" "$(sha256_of "$src/changing.bin")" "$inode2" added3.txt gone3.txt
pass "the updater switched from revision $rev2 to $rev3 under an open file"
finish
