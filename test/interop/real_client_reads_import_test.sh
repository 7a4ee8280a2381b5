#!/usr/bin/env bash
# A CVMFS Stratum 0 taken over by our `cvmfs_server import`, read by the
# real CVMFS 2.12 client:
#   1. the real-made fixture import-src.example.org (5 revisions, tag v1,
#      nested catalogs, a chunked file) is imported in place and a change is
#      published with our ingest (revision 6);
#   2. the real client mounts revision 6 (the fixture's expected.tsv plus
#      the new directory) and tag v1 (expected-v1.tsv);
#   3. `cvmfs_server rollback -f -t v1` publishes revision 7, which the real
#      client shows as expected-v1.tsv;
#   4. `real-cvmfs_swissknife check` finds no problem in the storage.
# (test/publisher/import_test.sh checks the same with our client, and the
# refusals of import.)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/client.sh"
. "$here/../lib/real_cvmfs.sh"
real_cvmfs_private_etc "$@"
. "$here/../lib/apache.sh"

test_init real_client_reads_import 300
require_bins cvmfs_server
real_cvmfs_init
export CVMFS_SERVER_NO_MOUNT=1

fqrn=import-src.example.org
fixture=${CVMFS_FIXTURES_DIR:-$SOURCE_DIR/../shared/fixtures}/$fqrn
[ -d "$fixture/srv/cvmfs/$fqrn" ] || skip "no fixture $fixture (set CVMFS_FIXTURES_DIR)"
fixture=$(cd "$fixture" && pwd)
storage=$CVMFS_ROOTDIR/srv/cvmfs/$fqrn
srv() { "$BIN/cvmfs_server" "$@"; }
revision() { sed -n '/^--$/q;s/^S//p' "$storage/.cvmfspublished"; }
# The fixture was listed on x86_64; $(CVMFS_ARCH) follows the machine.
unset CVMFS_ARCH FIXTURE_UNSET
expected_for() {
  awk -F'\t' -v OFS='\t' -v arch="$(uname -m)" '
    $2 == "l" && $6 == "x86_64/lib" { $6 = arch "/lib"; $4 = length($6) }
    { print }' "$1"
}

# --- 1. import and a publish ----------------------------------------------------
mkdir -p "$CVMFS_ROOTDIR/srv/cvmfs" "$WORK/old-keys"
cp -r "$fixture/srv/cvmfs/$fqrn" "$storage"
cp "$fixture/keys/"* "$WORK/old-keys/"
chmod -R u+w "$storage" "$WORK/old-keys"
mkdir -p "$storage/data/txn" # git keeps no empty directory
out=$(srv import -k "$WORK/old-keys" -p -o root $fqrn 2>&1) || fail "import failed: $out"
note "$out"
mkdir -p "$WORK/add/sub"
echo "published after the import" >"$WORK/add/sub/new.txt"
tar -C "$WORK/add" -cf "$WORK/add.tar" .
out=$(srv ingest -t "$WORK/add.tar" -b after-import $fqrn 2>&1) || fail "ingest failed: $out"
expect_eq "revision after the first publish" 6 "$(revision)"

mkdir -p "$WORK/docroot/cvmfs"
ln -s "$storage" "$WORK/docroot/cvmfs/$fqrn"
chmod -R o+rX "$CVMFS_ROOTDIR/srv"
apache_start "$WORK/docroot"
key=$CVMFS_ROOTDIR/etc/cvmfs/keys/$fqrn.pub

# real_mount_at LABEL [TAG]: the real client, a fresh cache per mount.
real_mount_at() {
  local label=$1 tag=${2:-} conf=$WORK/real-$1.conf
  real_client_config "$conf" "$APACHE_URL/cvmfs/@fqrn@" "$key" \
    "CVMFS_CACHE_BASE=$WORK/real-cache-$label" "CVMFS_RELOAD_SOCKETS=$WORK/real-cache-$label"
  [ -z "$tag" ] || echo "CVMFS_REPOSITORY_TAG=$tag" >>"$conf"
  mkdir -p "$WORK/real-cache-$label"
  real_mount $fqrn "$WORK/mnt-$label" "$conf"
}

# --- 2. revision 6 and tag v1 -------------------------------------------------------
real_mount_at trunk
mnt=$WORK/mnt-trunk
expect_eq "revision the real client mounts" 6 "$(real_xattr revision "$mnt")"
expect_eq "the file published after the import" "published after the import" \
  "$(cat "$mnt/after-import/sub/new.txt" 2>&1)"
python3 "$TESTLIB_DIR/listing.py" "$mnt" >"$WORK/trunk.raw" || fail "listing $mnt failed"
awk -F'\t' '$1 != "after-import" && index($1, "after-import/") != 1' "$WORK/trunk.raw" \
  >"$WORK/trunk.listing"
expected_for "$fixture/expected.tsv" >"$WORK/expected.tsv"
# Compared as files (compare_listing_to lists a whole directory), without
# the new directory and directory link counts (see mask_dir_nlink).
mask_dir_nlink <"$WORK/trunk.listing" >"$WORK/trunk.actual"
mask_dir_nlink <"$WORK/expected.tsv" >"$WORK/trunk.expected"
if python3 "$TESTLIB_DIR/compare_listings.py" "$WORK/trunk.expected" "$WORK/trunk.actual" \
  >"$WORK/trunk.diff"; then
  note "revision 6 without after-import/: $(wc -l <"$WORK/trunk.actual") entries as expected"
else
  check_failed "revision 6 differs from expected.tsv:"$'\n'"$(head -n 40 "$WORK/trunk.diff")"
fi
real_unmount "$mnt"

real_mount_at v1 v1
expect_eq "revision of tag v1" 3 "$(real_xattr revision "$WORK/mnt-v1")"
expected_for "$fixture/expected-v1.tsv" >"$WORK/expected-v1.tsv"
compare_listing_to "tag v1" "$WORK/expected-v1.tsv" "$WORK/mnt-v1" || true
real_unmount "$WORK/mnt-v1"

# --- 3. rollback to v1 ----------------------------------------------------------------
out=$(srv rollback -f -t v1 $fqrn 2>&1) || fail "rollback -t v1 failed: $out"
expect_eq "revision after the rollback" 7 "$(revision)"
real_mount_at rollback
expect_eq "revision the real client mounts after the rollback" 7 \
  "$(real_xattr revision "$WORK/mnt-rollback")"
compare_listing_to "revision 7 (rollback to v1)" "$WORK/expected-v1.tsv" "$WORK/mnt-rollback" || true
real_unmount "$WORK/mnt-rollback"

# --- 4. the real checker ---------------------------------------------------------------
if out=$(real_swissknife check -r "$storage" -k "$key" -N $fqrn -c -t "$WORK" 2>&1); then
  note "real swissknife check: $(tail -n 1 <<<"$out")"
else
  check_failed "real swissknife check of the imported repository failed:"$'\n'"$(tail -n 20 <<<"$out")"
fi
finish
