#!/usr/bin/env bash
# Bundles of small files (doc/format-bundles.md, doc/publishing.md "Bundles
# of small files") in a repository our publisher makes, and what CVMFS 2.12
# makes of it:
#   - a publish of a small tree with several directories writes one bundle
#     per directory with at least two small files (none for a directory with
#     one file or only subdirectories; a 300 KB file is no member);
#   - `cvmfs_server check` and `check -i` find no problem; the real
#     `cvmfs_swissknife check -c` neither;
#   - the real CVMFS 2.12 client, served by Apache, lists the tree and reads
#     every file byte for byte (it ignores the bundles);
#   - a second publish (ingest, then a transaction) changing one file adds
#     exactly one bundle;
#     `cvmfs_server bundle` then finds every bundle stored;
#   - a bundle removed from the storage makes `check` fail, naming it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/client.sh"
. "$here/../lib/real_cvmfs.sh"
real_cvmfs_private_etc "$@"
. "$here/../lib/apache.sh"
. "$here/../lib/publish.sh"

test_init bundles 120
require_bins cvmfs_server
real_cvmfs_init

fqrn=bundles.test.org
src=$WORK/src
storage=$(repo_storage $fqrn)
srv() { "$BIN/cvmfs_server" "$@"; }
bundles() { find "$storage/data" -name '*B' -type f | sort; }

# --- the tree ---------------------------------------------------------------
mkdir -p "$src/a" "$src/b" "$src/c/d" "$src/e"
for i in $(seq 1 30); do head -c $((i * 97)) /dev/urandom >"$src/a/f$i"; done
for i in $(seq 1 8); do echo "text $i" >"$src/b/t$i"; done
head -c 300000 /dev/urandom >"$src/b/large"
for i in 1 2 3; do seq 1 $((i * 500)) >"$src/c/d/n$i"; done
echo alone >"$src/e/only"
echo top1 >"$src/top1"
echo top2 >"$src/top2"
ln -s a/f1 "$src/link"

publish_tree $fqrn "$src" tree -z
# tree (top1, top2), tree/a, tree/b, tree/c/d
expect_eq "bundle objects after the first publish" "$(bundles | wc -l)" 4
grep -q '^CVMFS_BUNDLES=true$' "$CVMFS_ROOTDIR/etc/cvmfs/repositories.d/$fqrn/server.conf" ||
  check_failed "mkfs did not write CVMFS_BUNDLES=true"

check_clean() {
  local what=$1 out=$WORK/check-$2.out
  shift 2
  srv check "$@" $fqrn >"$out" 2>&1 ||
    check_failed "$what: cvmfs_server check $* finds problems: $(tail -n 5 "$out")"
}
check_clean "first publish" 1
check_clean "first publish" 2 -i
mkdir -p "$WORK/sk-tmp"
real_swissknife check -r "$storage" -k "$(repo_public_key $fqrn)" -N $fqrn -c \
  -t "$WORK/sk-tmp" >"$WORK/sk.out" 2>&1 ||
  check_failed "the real swissknife check fails: $(tail -n 10 "$WORK/sk.out")"
grep -q "no problems found" "$WORK/sk.out" ||
  check_failed "the real swissknife check does not say 'no problems found': $(tail -n 5 "$WORK/sk.out")"

# --- the real client ---------------------------------------------------------
apache_start "$CVMFS_ROOTDIR/srv"
real_client_config "$WORK/real.conf" "$APACHE_URL/cvmfs/@fqrn@" "$(repo_public_key $fqrn)"
rmnt=$WORK/real
real_mount $fqrn "$rmnt" "$WORK/real.conf"
expect_eq "files and contents the real client reads" \
  "$(checksum_tree "$rmnt/tree")" "$(checksum_tree "$src")"
expect_eq "names the real client lists" \
  "$(cd "$rmnt/tree" && find . | LC_ALL=C sort)" "$(cd "$src" && find . | LC_ALL=C sort)"
expect_eq "symlink the real client reads" "$(readlink "$rmnt/tree/link")" a/f1
grep -q '[0-9a-f]B HTTP' "$APACHE_ACCESS_LOG" &&
  check_failed "the real client fetched a bundle: $(grep 'B HTTP' "$APACHE_ACCESS_LOG" | head -n 1)"
real_unmount "$rmnt"

# --- a change to one directory ------------------------------------------------
echo changed >"$src/a/f7"
before=$(bundles)
publish_tree $fqrn "$src" tree
victim=$(LC_ALL=C comm -13 <(echo "$before") <(bundles))  # tree/a's
expect_eq "new bundle objects after changing tree/a/f7" "$(echo "$victim" | wc -l)" 1
check_clean "second publish" 3 -i
srv bundle $fqrn >"$WORK/bundle.out" 2>&1 ||
  check_failed "cvmfs_server bundle failed: $(cat "$WORK/bundle.out")"
grep -q ' 0 new bundles' "$WORK/bundle.out" ||
  check_failed "cvmfs_server bundle wrote bundles again: $(cat "$WORK/bundle.out")"

# --- a transaction (overlayfs) changing tree/b ------------------------------------
if grep -qw overlay /proc/filesystems; then
  on_exit "\"$BIN/cvmfs_server\" rmfs -f $fqrn >/dev/null 2>&1 || true"
  srv mount $fqrn >"$WORK/mount.out" 2>&1 || fail "mount: $(cat "$WORK/mount.out")"
  srv transaction $fqrn >/dev/null || fail "transaction failed"
  echo "new text" >"$CVMFS_ROOTDIR/cvmfs/$fqrn/tree/b/t9"
  before_txn=$(bundles)
  srv publish $fqrn >"$WORK/publish.out" 2>&1 || fail "publish: $(cat "$WORK/publish.out")"
  expect_eq "new bundle objects after a transaction adding tree/b/t9" \
    "$(LC_ALL=C comm -13 <(echo "$before_txn") <(bundles) | wc -l)" 1
  check_clean "transaction" 4
else
  note "no overlayfs: the transaction step is left out"
fi

# --- a missing bundle -----------------------------------------------------------
rm "$victim"
if srv check $fqrn >"$WORK/check-missing.out" 2>&1; then
  check_failed "check passes with a bundle removed"
fi
grep -q "missing data/.*B (bundle of /tree/a" "$WORK/check-missing.out" ||
  check_failed "check does not name the missing bundle: $(tail -n 3 "$WORK/check-missing.out")"
finish
