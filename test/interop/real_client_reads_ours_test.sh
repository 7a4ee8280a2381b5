#!/usr/bin/env bash
# The real CVMFS 2.12 client reads what our publisher made, served by our
# Apache configuration, revision after revision:
#   A  every entry kind (repo_revisions.sh) in a garbage-collectable
#      repository (mkfs -z): the real client's listing equals the source
#      tree's and our client's listing of the same revision;
#   B  edits, deletions, additions (a new nested catalog, one removed);
#   rollback to A (`cvmfs_server rollback -t`): the real client sees A again;
#   gc (`cvmfs_server gc -r 0`), which deletes B's objects: a fresh real
#   client (empty cache) still reads the current revision completely.
# Each mount is a fresh real-cvmfs2 process; every file's sha256 is compared.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/client.sh"
. "$here/../lib/real_cvmfs.sh"
real_cvmfs_private_etc "$@"
. "$here/../lib/apache.sh"
. "$here/../lib/publish.sh"
. "$here/repo_revisions.sh"

test_init real_client_reads_ours 300
require_bins cvmfs_server cvmfs2
real_cvmfs_init

fqrn=interop.test.org
src=$WORK/src
base=tree
unset CVMFS_ARCH INTEROP_UNSET_VARIABLE
srv() { "$BIN/cvmfs_server" "$@"; }

mounts=0
# check_revision WHAT EXPECTED_TSV: a fresh real client mount (and one of
# ours) of the newest revision lists exactly EXPECTED_TSV below $base.
check_revision() {
  local what=$1 expected=$2 rmnt omnt
  mounts=$((mounts + 1))
  rmnt=$WORK/real-$mounts omnt=$WORK/ours-$mounts
  real_mount $fqrn "$rmnt" "$WORK/real.conf"
  expect_eq "$what: revision the real client mounted" "$(manifest_field $fqrn S)" \
    "$(real_xattr revision "$rmnt")"
  expect_eq "$what: root hash the real client mounted" "$(manifest_field $fqrn C)" \
    "$(real_xattr root_hash "$rmnt")"
  compare_listing_to "$what: real client vs source tree" "$expected" "$rmnt/$base"
  # Large files that do not compress are stored uncompressed, with the
  # catalog's per-file flag; the real client reads them by it.
  expect_eq "$what: compression of a large random file" none \
    "$(real_xattr compression "$rmnt/$base/large/random-20m.bin")"
  expect_eq "$what: compression of a 3 MiB random file" none \
    "$(real_xattr compression "$rmnt/$base/large/3m.bin")"
  expect_eq "$what: compression of a large text file" zlib \
    "$(real_xattr compression "$rmnt/$base/large/text-2m.txt")"
  mount_repo $fqrn "$omnt" "$WORK/ours.conf"
  python3 "$TESTLIB_DIR/listing.py" "$omnt" >"$WORK/ours-$mounts.tsv"
  compare_listing_to "$what: real client vs our client (whole repository)" \
    "$WORK/ours-$mounts.tsv" "$rmnt"
  unmount_repo "$omnt"
  real_unmount "$rmnt"
}

# --- revision A ------------------------------------------------------------------
interop_tree_a "$src"
publish_tree $fqrn "$src" $base -z
interop_expected "$src" >"$WORK/expected-a.tsv"
[ "$(grep -c $'^large/random-20m.bin\t' "$WORK/expected-a.tsv")" -eq 1 ] || fail "no chunked file"
apache_start "$CVMFS_ROOTDIR/srv"
real_client_config "$WORK/real.conf" "$APACHE_URL/cvmfs/@fqrn@" "$(repo_public_key $fqrn)"
test_client_config "$WORK/ours.conf" "$APACHE_URL/cvmfs/@fqrn@" "$(repo_public_key $fqrn)" \
  "CVMFS_CACHE_BASE=$WORK/ours-cache"
grep -q '^G*yes' <(sed -n '/^--$/q;/^G/p' "$(repo_storage $fqrn)/.cvmfspublished") ||
  check_failed "mkfs -z made no garbage-collectable repository (manifest G field)"
check_revision "revision A" "$WORK/expected-a.tsv"
rev_a=$(manifest_field $fqrn S)
srv tag -a interop-a -m "revision A" $fqrn >"$WORK/tag.out" 2>&1 ||
  fail "tag -a failed: $(cat "$WORK/tag.out")"

# --- revision B -------------------------------------------------------------------
cp -a "$src" "$WORK/src-a"
interop_tree_b "$src"
interop_republish $fqrn "$src" $base
interop_expected "$src" >"$WORK/expected-b.tsv"
check_revision "revision B" "$WORK/expected-b.tsv"

# --- rollback to A ----------------------------------------------------------------
srv rollback -f -t interop-a $fqrn >"$WORK/rollback.out" 2>&1 ||
  fail "rollback failed: $(cat "$WORK/rollback.out")"
[ "$(manifest_field $fqrn S)" -gt "$rev_a" ] || check_failed "rollback made no new revision"
check_revision "rollback to A" "$WORK/expected-a.tsv"

# --- garbage collection -----------------------------------------------------------
# Republish A once more (trunk-previous moves off B) and drop every other
# tag: then nothing keeps B, and gc -r 0 must delete its objects (the 18 MiB
# file's chunks among them) and nothing the current revision needs.
interop_republish $fqrn "$WORK/src-a" $base
srv tag -l $fqrn | awk '$1 ~ /^generic|^interop-a$/ { print $1 }' | while read -r tag; do
  srv tag -r "$tag" -f $fqrn >"$WORK/untag.out" 2>&1 ||
    fail "tag -r $tag failed: $(cat "$WORK/untag.out")"
done
bytes_before=$(du -sb "$(repo_storage $fqrn)/data" | cut -f1)
srv gc -r 0 -f $fqrn >"$WORK/gc.out" 2>&1 || fail "gc failed: $(cat "$WORK/gc.out")"
bytes_after=$(du -sb "$(repo_storage $fqrn)/data" | cut -f1)
note "gc: $(tail -n 1 "$WORK/gc.out")"
[ $((bytes_before - bytes_after)) -ge $((16 * 1024 * 1024)) ] ||
  check_failed "gc freed only $((bytes_before - bytes_after)) bytes: revision B was kept"
rm -rf "$REAL_CACHE" "$WORK/ours-cache"
mkdir -p "$REAL_CACHE"
check_revision "after gc" "$WORK/expected-a.tsv"

finish
