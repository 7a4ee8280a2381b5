#!/usr/bin/env bash
# Bundles of small objects (doc/client.md "Bundles", doc/format-bundles.md):
# a tree published with bundles, served by Apache, read cold with `tar`:
# every byte equals the source, and Apache's log shows each bundle requested
# once plus one request per file that no bundle holds (a large file, the
# lone file of a directory), instead of one per file. With CVMFS_BUNDLES=no
# the same read requests every file once and no bundle.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init bundles 120
require_root_and_fuse
require_bins cvmfs_server cvmfs2 cvmfs_talk

fqrn=bundles.test.org
src=$WORK/src
# Three directories of small files, one with a subdirectory; a large file
# (its object is no member); a directory with a single file (no bundle).
for d in a b c c/deep; do
  mkdir -p "$src/$d"
  for i in $(seq -w 1 25); do
    make_random_file "$src/$d/f$i" $((1000 + 97 * 10#$i)) "$d-$i"
  done
done
make_random_file "$src/b/large.bin" $((600 * 1024)) large
mkdir -p "$src/lone"
make_random_file "$src/lone/only" 3000 lone
files=$(find "$src" -type f | wc -l)
unbundled=2  # b/large.bin, lone/only
publish_tree $fqrn "$src" sw
storage=$(repo_storage $fqrn)
bundles=$(find "$storage/data" -name '*B' | wc -l)
[ "$bundles" -ge 4 ] || fail "the publisher wrote $bundles bundles, expected one per directory of small files"
note "$files files, $bundles bundles"
apache_start "$CVMFS_ROOTDIR/srv"

etc=$CVMFS_ROOTDIR/etc/cvmfs
mnt=$WORK/cvmfs/$fqrn
cache=$(cache_dir_of $fqrn)
config=$etc/$fqrn.conf

# cold_tar BUNDLES: mounts with an empty cache, copies the tree with tar,
# compares it with the source, unmounts; sets $bundle_requests and
# $object_requests to the requests Apache logged meanwhile.
cold_tar() {
  local before out=$WORK/out-$1
  test_client_config "$config" "$APACHE_URL/cvmfs/@fqrn@" \
    "$(repo_public_key $fqrn)" "CVMFS_BUNDLES=$1"
  rm -rf "$cache" "$out"
  mkdir -p "$out"
  before=$(wc -l <"$APACHE_ACCESS_LOG")
  mount_repo $fqrn "$mnt" "$config"
  tar -C "$mnt/sw" -cf - . | tar -C "$out" -xf -
  diff -r "$src" "$out" >/dev/null || check_failed "CVMFS_BUNDLES=$1: the tree read differs from the source"
  "$BIN/cvmfs_talk" -p "$cache/cvmfs_io.$fqrn" internal affairs >"$WORK/affairs-$1" 2>&1 || true
  unmount_repo "$mnt"
  apache_log_settled
  tail -n +$((before + 1)) "$APACHE_ACCESS_LOG" >"$WORK/log-$1"
  bundle_requests=$(grep -cE '/data/[0-9a-f]{2}/[0-9a-f]+B ' "$WORK/log-$1" || true)
  object_requests=$(grep -cE '/data/[0-9a-f]{2}/[0-9a-f]+ ' "$WORK/log-$1" || true)
  note "CVMFS_BUNDLES=$1: $bundle_requests bundle requests, $object_requests object requests"
}

cold_tar yes
expect_eq "bundle requests" "$bundles" "$bundle_requests"
expect_eq "object requests (files in no bundle)" "$unbundled" "$object_requests"
grep -q "^fetch\.n_bundles|$bundles|" "$WORK/affairs-yes" ||
  check_failed "internal affairs: $(grep bundle "$WORK/affairs-yes")"
grep -q "^fetch\.n_bundle_members_stored|$((files - unbundled))|" "$WORK/affairs-yes" ||
  check_failed "internal affairs: $(grep bundle "$WORK/affairs-yes")"

cold_tar no
expect_eq "bundle requests with CVMFS_BUNDLES=no" 0 "$bundle_requests"
expect_eq "object requests with CVMFS_BUNDLES=no" "$files" "$object_requests"

finish
