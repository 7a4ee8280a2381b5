#!/usr/bin/env bash
# Taking over a CVMFS Stratum 1 in place: the storage a real CVMFS 2.12
# Stratum 1 left (the fixture's stratum1/) is where our replica's storage
# goes, and `cvmfs_server add-replica` adopts it instead of refusing:
#   1. add-replica verifies the stored whitelist and manifest with the
#      master key and names the same repository, then keeps the objects;
#   2. the first snapshot copies (almost) nothing: the objects are there;
#   3. `cvmfs_server check` of the replica (public key only) passes, and
#      the real client reads it through our Apache exactly as expected.tsv;
#   4. a storage holding another repository is refused, nothing written.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/client.sh"
. "$here/../lib/real_cvmfs.sh"
real_cvmfs_private_etc "$@"
. "$here/../lib/apache.sh"

test_init adopt_stratum1 300
require_bins cvmfs_server
real_cvmfs_init

fqrn=import-src.example.org
fixtures=${CVMFS_FIXTURES_DIR:-$SOURCE_DIR/../shared/fixtures}
fixture=$fixtures/$fqrn
[ -d "$fixture/stratum1" ] || skip "no fixture $fixture with a stratum1/ copy (set CVMFS_FIXTURES_DIR)"
fixture=$(cd "$fixture" && pwd)
key=$fixture/$fqrn.pub
unset CVMFS_ARCH FIXTURE_UNSET
awk -F'\t' -v OFS='\t' -v arch="$(uname -m)" '
  $2 == "l" && $6 == "x86_64/lib" { $6 = arch "/lib"; $4 = length($6) } { print }' \
  "$fixture/expected.tsv" >"$WORK/expected.tsv"
srv() { "$BIN/cvmfs_server" "$@"; }
storage=$CVMFS_ROOTDIR/srv/cvmfs/$fqrn
count_objects() { find "$1/data" -type f ! -path '*/txn/*' | wc -l; }

# The source: the fixture's Stratum 0, served read-only.
mkdir -p "$WORK/docroot/cvmfs"
ln -s "$fixture/srv/cvmfs/$fqrn" "$WORK/docroot/cvmfs/$fqrn"
apache_start "$WORK/docroot"
source_url=$APACHE_URL/cvmfs/$fqrn

# --- 4 first: a storage holding another repository is refused ------------------
other=$fixtures/sha1-zlib.example.org/srv/cvmfs/sha1-zlib.example.org
if [ -d "$other" ]; then
  mkdir -p "$CVMFS_ROOTDIR/srv/cvmfs"
  cp -r "$other" "$storage"
  if out=$(srv add-replica -o root "$source_url" "$key" 2>&1); then
    check_failed "add-replica adopted the storage of another repository: $out"
  else
    [[ "$out" == *"not a verifiable copy of $fqrn"* ]] ||
      check_failed "refusal of a foreign storage does not say why: $out"
  fi
  [ ! -e "$CVMFS_ROOTDIR/etc/cvmfs/repositories.d/$fqrn" ] ||
    check_failed "a refused add-replica wrote a configuration"
  rm -rf "$storage"
fi

# --- 1. add-replica adopts the real Stratum 1's storage -----------------------------
mkdir -p "$CVMFS_ROOTDIR/srv/cvmfs"
cp -r "$fixture/stratum1" "$storage"
chmod -R u+w "$storage"
mkdir -p "$storage/data/txn" # git keeps no empty directory
before=$(count_objects "$storage")
out=$(srv add-replica -o root "$source_url" "$key" 2>&1) || fail "add-replica of an existing storage: $out"
expect_eq "objects kept by add-replica" "$before" "$(count_objects "$storage")"

# --- 2. the first snapshot copies only what is missing ------------------------------
out=$(srv snapshot $fqrn 2>&1) || fail "snapshot of the adopted replica: $out"
note "snapshot: $(grep -i "objects" <<<"$out" | tail -n 1)"
after=$(count_objects "$storage")
copied=$((after - before))
note "adopted $before objects; the snapshot added $copied"
# The real Stratum 1 keeps only the newest history; ours keeps the history
# chain and revision 0: a handful, not the 3,000 objects of the repository.
[ "$copied" -lt 50 ] || check_failed "the snapshot copied $copied objects into an adopted storage"

# --- 3. check and the real client ----------------------------------------------------
out=$(srv check $fqrn 2>&1) || check_failed "check of the adopted replica: $out"
docroot2=$WORK/docroot2
mkdir -p "$docroot2/cvmfs"
ln -s "$storage" "$docroot2/cvmfs/$fqrn"
chmod -R o+rX "$CVMFS_ROOTDIR/srv"
apache_stop
apache_start "$docroot2"
real_client_config "$WORK/client.conf" "$APACHE_URL/cvmfs/@fqrn@" "$key"
real_mount $fqrn "$WORK/mnt" "$WORK/client.conf"
compare_listing_to "real client on the adopted replica" "$WORK/expected.tsv" "$WORK/mnt" || true
real_unmount "$WORK/mnt"
finish
