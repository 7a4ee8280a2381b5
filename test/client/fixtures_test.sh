#!/usr/bin/env bash
# Every fixture repository published by CVMFS 2.12 itself (../shared/fixtures,
# or $CVMFS_FIXTURES_DIR), served by Apache and mounted with our client, must
# list exactly as its expected.tsv (newest revision) and expected-v1.tsv
# (CVMFS_REPOSITORY_TAG=v1, and CVMFS_REPOSITORY_DATE at v1's time) say: types, modes, sizes, mtimes, content
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

# tag_date STORAGE TAG: when TAG was published (UTC, CVMFS's format), from
# the history database the manifest names.
tag_date() {
  python3 - "$1" "$2" <<'PY'
import sqlite3, sys, tempfile, time, zlib
storage, tag = sys.argv[1], sys.argv[2]
with open(storage + "/.cvmfspublished", "rb") as f:
    lines = f.read().split(b"\n--\n")[0].decode().splitlines()
h = next(l[1:] for l in lines if l.startswith("H"))
with open(f"{storage}/data/{h[:2]}/{h[2:]}H", "rb") as f:
    raw = zlib.decompress(f.read())
with tempfile.NamedTemporaryFile() as db:
    db.write(raw)
    db.flush()
    (ts,) = sqlite3.connect(db.name).execute(
        "SELECT timestamp FROM tags WHERE name = ?", (tag,)).fetchone()
print(time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts)))
PY
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

    # CVMFS_REPOSITORY_DATE at the second v1 was published: that revision.
    v1_date=$(tag_date "$fixtures/$fqrn/srv/cvmfs/$fqrn" v1)
    cp "$WORK/$fqrn.conf" "$WORK/$fqrn-date.conf"
    echo "CVMFS_REPOSITORY_DATE=$v1_date" >>"$WORK/$fqrn-date.conf"
    mount_repo "$fqrn" "$mnt" "$WORK/$fqrn-date.conf"
    compare_listing "$fqrn" "date-$v1_date" "$fixtures/$fqrn/expected-v1.tsv" "$mnt"
    [ -n "$(magic_xattr tag "$mnt" 2>/dev/null)" ] ||
      check_failed "$fqrn: user.tag does not name the tag $v1_date resolved to"
    unmount_repo "$mnt" || check_failed "$fqrn: unmount of date $v1_date failed"
  fi
done
finish
