#!/usr/bin/env bash
# CVMFS_VIRTUAL_DIR: our publisher keeps /.cvmfs/snapshots/<tag> (bind
# mountpoints, doc/format-catalog.md 1.9) as CVMFS does, and
#   - our client lists and reads /.cvmfs/snapshots/<tag>/... (each tag's own
#     content), with /.cvmfs hidden from the root's listing;
#   - the real CVMFS 2.12 client lists the same snapshots tree;
#   - `cvmfs_server check` and the real `swissknife check -c` accept it;
#   - a removed tag's snapshot goes; CVMFS_VIRTUAL_DIR=false removes /.cvmfs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/client.sh"
. "$here/../lib/real_cvmfs.sh"
real_cvmfs_private_etc "$@"
. "$here/../lib/apache.sh"
. "$here/../lib/publish.sh"

test_init virtual_dir 180
require_bins cvmfs_server cvmfs2
real_cvmfs_init

fqrn=vdir.test.org
src=$WORK/src
key=$(repo_public_key $fqrn)
conf=$CVMFS_ROOTDIR/etc/cvmfs/repositories.d/$fqrn/server.conf
srv() { "$BIN/cvmfs_server" "$@" >"$WORK/srv.out" 2>&1 || fail "cvmfs_server $* failed: $(cat "$WORK/srv.out")"; }

# v1: tree/f = one; v2: tree/f = two, tree/g
mkdir -p "$src"
echo one >"$src/f"
publish_tree $fqrn "$src" tree
printf 'CVMFS_VIRTUAL_DIR=true\nCVMFS_AUTO_TAG=false\n' >>"$conf"
srv tag -a v1 $fqrn
echo two >"$src/f"
echo gee >"$src/g"
publish_tree $fqrn "$src" tree
srv tag -a v2 $fqrn

apache_start "$CVMFS_ROOTDIR/srv"
test_client_config "$WORK/ours.conf" "$APACHE_URL/cvmfs/@fqrn@" "$key"
real_client_config "$WORK/real.conf" "$APACHE_URL/cvmfs/@fqrn@" "$key"

# --- our client -------------------------------------------------------------------
mnt=$WORK/ours
mount_repo $fqrn "$mnt" "$WORK/ours.conf"
ls -a "$mnt" | grep -qx '.cvmfs' && check_failed "/.cvmfs is listed in the root"
[ -d "$mnt/.cvmfs/snapshots" ] || fail "no /.cvmfs/snapshots: $(ls -la "$mnt/.cvmfs" 2>&1)"
snaps=$(ls "$mnt/.cvmfs/snapshots" | grep -v '^generic' | tr '\n' ' ')
expect_eq "our client: named snapshots" "v1 v2 " "$snaps"
expect_eq "our client: v1's file" one "$(cat "$mnt/.cvmfs/snapshots/v1/tree/f")"
expect_eq "our client: v2's file" two "$(cat "$mnt/.cvmfs/snapshots/v2/tree/f")"
[ -e "$mnt/.cvmfs/snapshots/v1/tree/g" ] && check_failed "v1 shows a file of v2"
expect_eq "our client: head" gee "$(cat "$mnt/tree/g")"
python3 "$TESTLIB_DIR/listing.py" "$mnt/.cvmfs/snapshots" >"$WORK/ours-snapshots.tsv"
unmount_repo "$mnt"

# --- the real client: the same snapshots tree ---------------------------------------
rmnt=$WORK/real
real_mount $fqrn "$rmnt" "$WORK/real.conf"
expect_eq "real client: root hash" "$(manifest_field $fqrn C)" "$(real_xattr root_hash "$rmnt")"
ls -a "$rmnt" | grep -qx '.cvmfs' && check_failed "the real client lists /.cvmfs (not hidden)"
compare_listing_to "real client vs our client (/.cvmfs/snapshots)" \
  "$WORK/ours-snapshots.tsv" "$rmnt/.cvmfs/snapshots"
expect_eq "real client: v1's file" one "$(cat "$rmnt/.cvmfs/snapshots/v1/tree/f")"
real_unmount "$rmnt"

# --- checkers -----------------------------------------------------------------------
"$BIN/cvmfs_server" check $fqrn >"$WORK/check.out" 2>&1 ||
  check_failed "cvmfs_server check: $(tail -n 5 "$WORK/check.out")"
mkdir -p "$WORK/sk-tmp"
if real_swissknife check -r "$(repo_storage $fqrn)" -k "$key" -N $fqrn -c -t "$WORK/sk-tmp" \
  >"$WORK/sk.out" 2>&1 && grep -q "no problems found" "$WORK/sk.out"; then
  note "the real swissknife check finds no problem"
else
  check_failed "real swissknife check: $(tail -n 10 "$WORK/sk.out")"
fi

# --- a removed tag, then the directory turned off -----------------------------------
srv tag -r v1 -f $fqrn
mount_repo $fqrn "$mnt" "$WORK/ours.conf"
[ -e "$mnt/.cvmfs/snapshots/v1" ] && check_failed "removed tag v1 still has a snapshot"
expect_eq "after tag -r: v2's file" two "$(cat "$mnt/.cvmfs/snapshots/v2/tree/f")"
unmount_repo "$mnt"
printf 'CVMFS_VIRTUAL_DIR=false\n' >>"$conf"
publish_tree $fqrn "$src" tree
mount_repo $fqrn "$mnt" "$WORK/ours.conf"
[ -e "$mnt/.cvmfs" ] && check_failed "CVMFS_VIRTUAL_DIR=false left /.cvmfs"
expect_eq "without the virtual directory: head" two "$(cat "$mnt/tree/f")"
unmount_repo "$mnt"

finish
