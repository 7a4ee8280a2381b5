#!/usr/bin/env bash
# Our client mounts what the real CVMFS 2.12 made and lists it exactly as
# the real client did (the fixtures' expected*.tsv). test/client/fixtures_test.sh
# already covers every fixture's newest revision and tag v1 through its
# Stratum 0 copy; this adds what it leaves out:
#   - import-src.example.org's other tags: trunk-previous
#     (expected-trunk-previous.tsv) and the automatic generic-* tag of
#     revision A (expected-revA.tsv), via CVMFS_REPOSITORY_TAG;
#   - the real Stratum 1 copy (import-src's stratum1/, served as is, no
#     /cvmfs/FQRN below it): trunk and tag v1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"

test_init our_client_reads_real 240
require_bins cvmfs2

fqrn=import-src.example.org
fixture=${CVMFS_FIXTURES_DIR:-$SOURCE_DIR/../shared/fixtures}/$fqrn
[ -d "$fixture/stratum1" ] || skip "no fixture $fixture with a stratum1/ copy (set CVMFS_FIXTURES_DIR)"
fixture=$(cd "$fixture" && pwd)
key=$fixture/$fqrn.pub
unset CVMFS_ARCH FIXTURE_UNSET

mkdir -p "$WORK/docroot/cvmfs"
ln -s "$fixture/srv/cvmfs/$fqrn" "$WORK/docroot/cvmfs/$fqrn"
ln -s "$fixture/stratum1" "$WORK/docroot/real-s1"
apache_start "$WORK/docroot"

# The generic-* tag of revision A, from the real tool's tag list.
rev_a_tag=$(awk '$1 ~ /^generic-/ && $4 == 2 { print $1 }' "$fixture/tags.txt" | head -n 1)
[ -n "$rev_a_tag" ] || fail "no generic-* tag of revision 2 in $fixture/tags.txt"

mounts=0
# check_mount LABEL URL TAG EXPECTED_TSV REVISION
check_mount() {
  local label=$1 url=$2 tag=$3 expected=$4 revision=$5 mnt
  mounts=$((mounts + 1))
  mnt=$WORK/mnt-$mounts
  test_client_config "$WORK/client-$mounts.conf" "$url" "$key" \
    "CVMFS_CACHE_BASE=$WORK/cache-$mounts" ${tag:+"CVMFS_REPOSITORY_TAG=$tag"}
  mount_repo $fqrn "$mnt" "$WORK/client-$mounts.conf"
  expect_eq "$label: revision" "$revision" "$(magic_xattr revision "$mnt")"
  awk -F'\t' -v OFS='\t' -v arch="$(uname -m)" '
    $2 == "l" && $6 == "x86_64/lib" { $6 = arch "/lib"; $4 = length($6) } { print }' \
    "$expected" >"$WORK/expected-$mounts.tsv"
  # Our client shows what the real one showed, directory link counts
  # included (compare_listing_to leaves those out, so compare here).
  python3 "$TESTLIB_DIR/listing.py" "$mnt" >"$WORK/actual-$mounts.tsv"
  if python3 "$TESTLIB_DIR/compare_listings.py" "$WORK/expected-$mounts.tsv" \
    "$WORK/actual-$mounts.tsv" >"$WORK/diff-$mounts"; then
    note "$label: $(wc -l <"$WORK/actual-$mounts.tsv") entries as $(basename "$expected")"
  else
    check_failed "$label: differs from $(basename "$expected") (expected vs actual):"$'\n'"$(cat "$WORK/diff-$mounts")"
  fi
  unmount_repo "$mnt"
}

s0=$APACHE_URL/cvmfs/@fqrn@
s1=$APACHE_URL/real-s1
check_mount "Stratum 0, trunk-previous" "$s0" trunk-previous "$fixture/expected-trunk-previous.tsv" 4
check_mount "Stratum 0, $rev_a_tag" "$s0" "$rev_a_tag" "$fixture/expected-revA.tsv" 2
check_mount "real Stratum 1, trunk" "$s1" "" "$fixture/expected.tsv" 5
check_mount "real Stratum 1, v1" "$s1" v1 "$fixture/expected-v1.tsv" 3
finish
