#!/usr/bin/env bash
# Every fixture repository published by CVMFS 2.12 itself (../shared/fixtures,
# or $CVMFS_FIXTURES_DIR), served by Apache and mounted with our client, must
# list exactly as its expected.tsv (newest revision) and expected-v1.tsv
# (CVMFS_REPOSITORY_TAG=v1) say: types, modes, sizes, mtimes, content
# checksums, symlink targets (variant symlinks expanded), link counts and
# catalog xattrs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"

test_init fixtures 500
require_bins cvmfs2

fixtures=${CVMFS_FIXTURES_DIR:-$SOURCE_DIR/../shared/fixtures}
[ -d "$fixtures" ] || skip "no fixture repositories at $fixtures (set CVMFS_FIXTURES_DIR)"
fixtures=$(cd "$fixtures" && pwd)
# The fixtures expect $(CVMFS_ARCH) to be the client's machine architecture
# and $(FIXTURE_UNSET:-default) to fall back to its default.
unset CVMFS_ARCH FIXTURE_UNSET
arch=$(uname -m)

# One Apache for all fixtures: docroot/cvmfs/FQRN -> the fixture's storage.
mkdir -p "$WORK/docroot/cvmfs"
repos=()
for dir in "$fixtures"/*/; do
  fqrn=$(basename "$dir")
  [ -d "$dir/srv/cvmfs/$fqrn" ] || continue
  ln -s "$dir/srv/cvmfs/$fqrn" "$WORK/docroot/cvmfs/$fqrn"
  repos+=("$fqrn")
done
[ ${#repos[@]} -gt 0 ] || fail "no repository in $fixtures (expected FQRN/srv/cvmfs/FQRN)"
apache_start "$WORK/docroot"

# expected_for FILE: the expected listing, adjusted to this machine's
# architecture (the fixtures were listed on x86_64).
expected_for() {
  awk -F'\t' -v OFS='\t' -v arch="$arch" '
    $2 == "l" && $6 == "x86_64/lib" { $6 = arch "/lib"; $4 = length($6) }
    { print }' "$1"
}

# compare_listing FQRN LABEL EXPECTED_TSV MOUNTPOINT
compare_listing() {
  local fqrn=$1 label=$2 expected=$3 mnt=$4 out
  out=$WORK/$fqrn-$label
  expected_for "$expected" >"$out.expected"
  if ! python3 "$TESTLIB_DIR/listing.py" "$mnt" >"$out.actual" 2>"$out.err"; then
    check_failed "$fqrn ($label): listing the mount failed: $(head -n 5 "$out.err")"
    return
  fi
  if python3 "$TESTLIB_DIR/compare_listings.py" "$out.expected" "$out.actual" >"$out.diff"; then
    note "$fqrn ($label): $(wc -l <"$out.actual") entries as expected"
  else
    check_failed "$fqrn ($label): the mount differs from $(basename "$expected"):"$'\n'"$(cat "$out.diff")"
  fi
}

for fqrn in "${repos[@]}"; do
  key=$fixtures/$fqrn/$fqrn.pub
  [ -f "$key" ] || fail "$fqrn: public key $key is missing"
  mnt=$WORK/mnt/$fqrn
  test_client_config "$WORK/$fqrn.conf" "$APACHE_URL/cvmfs/@fqrn@" "$key"

  mount_repo "$fqrn" "$mnt" "$WORK/$fqrn.conf"
  expect_eq "$fqrn: user.fqrn" "$fqrn" "$(magic_xattr fqrn "$mnt" 2>&1)"
  expect_eq "$fqrn: user.root_hash" \
    "$(sed -n '/^--$/q;s/^C//p' "$fixtures/$fqrn/srv/cvmfs/$fqrn/.cvmfspublished")" \
    "$(magic_xattr root_hash "$mnt" 2>&1)"
  compare_listing "$fqrn" newest "$fixtures/$fqrn/expected.tsv" "$mnt"
  unmount_repo "$mnt" || check_failed "$fqrn: unmount failed"

  if [ -f "$fixtures/$fqrn/expected-v1.tsv" ]; then
    cp "$WORK/$fqrn.conf" "$WORK/$fqrn-v1.conf"
    echo "CVMFS_REPOSITORY_TAG=v1" >>"$WORK/$fqrn-v1.conf"
    mount_repo "$fqrn" "$mnt" "$WORK/$fqrn-v1.conf"
    compare_listing "$fqrn" tag-v1 "$fixtures/$fqrn/expected-v1.tsv" "$mnt"
    unmount_repo "$mnt" || check_failed "$fqrn: unmount of tag v1 failed"
  fi
done
finish
