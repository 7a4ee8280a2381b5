#!/usr/bin/env bash
# Our magic attributes against the real CVMFS 2.12 client's on the same
# repository: the names listed on the root (rootonly visibility) and the
# values that describe the repository rather than the process (counters,
# chunk lists, hashes, keys, meta-information), byte for byte.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/client.sh"
. "$here/../lib/real_cvmfs.sh"
real_cvmfs_private_etc "$@"
. "$here/../lib/apache.sh"
. "$here/../lib/publish.sh"

test_init magic_xattrs_interop 240
require_bins cvmfs_server cvmfs2
real_cvmfs_init

fqrn=magic-interop.test.org
src=$WORK/src
mkdir -p "$src/nested/deeper"
echo "small" >"$src/small.txt"
make_random_file "$src/big.bin" $((12 << 20)) big
echo "inside" >"$src/nested/deeper/inside.txt"
touch "$src/nested/.cvmfscatalog"
ln -s small.txt "$src/link"
publish_tree $fqrn "$src" /
apache_start "$CVMFS_ROOTDIR/srv"
real_client_config "$WORK/real.conf" "$APACHE_URL/cvmfs/@fqrn@" "$(repo_public_key $fqrn)"
test_client_config "$WORK/ours.conf" "$APACHE_URL/cvmfs/@fqrn@" "$(repo_public_key $fqrn)" \
  "CVMFS_CACHE_BASE=$WORK/ours-cache"
real_mount $fqrn "$WORK/real" "$WORK/real.conf"
mount_repo $fqrn "$WORK/ours" "$WORK/ours.conf"

# The real client names each magic attribute twice on the root; we once.
names() { getfattr --absolute-names -m - "$1" 2>/dev/null | grep '^user\.' | LC_ALL=C sort -u || true; }
names "$WORK/real" >"$WORK/real-names"
names "$WORK/ours" >"$WORK/ours-names"
# Our prefetch counters are the known difference.
only_real=$(LC_ALL=C comm -23 "$WORK/real-names" "$WORK/ours-names" || true)
only_ours=$(LC_ALL=C comm -13 "$WORK/real-names" "$WORK/ours-names" | grep -v -x user.prefetch || true)
expect_eq "names only the real client lists on the root" "" "$only_real"
expect_eq "names only we list on the root" "" "$only_ours"
for sub in small.txt nested; do
  expect_eq "nothing listed on /$sub (rootonly), as the real client" \
    "$(names "$WORK/real/$sub")" "$(names "$WORK/ours/$sub")"
done

cat "$WORK/real/small.txt" "$WORK/ours/small.txt" >/dev/null
same() {  # same NAME PATH: the value is the real client's
  local r o
  r=$(real_xattr "$1" "$WORK/real/$2" | od -c || true)
  o=$(getfattr --absolute-names --only-values -n "user.$1" "$WORK/ours/$2" 2>/dev/null | od -c || true)
  [ -n "$r" ] || check_failed "the real client has no user.$1 on /$2"
  if [ "$r" = "$o" ]; then pass "user.$1 of /$2 as the real client's"; else
    check_failed "user.$1 of /$2 differs: real $(real_xattr "$1" "$WORK/real/$2" | head -c 300), ours $(
      getfattr --absolute-names --only-values -n "user.$1" "$WORK/ours/$2" 2>&1 | head -c 300)"
  fi
}
for a in fqrn revision root_hash repo_counters catalog_counters pubkeys \
  timestamp_last_ioerr ncleanup24; do same $a ""; done
# The real client answers "manifest not available" here (it keeps no
# manifest after a fresh mount); ours is the meta-information itself.
case $(magic_xattr repo_metainfo "$WORK/ours") in "{"*) pass "our repo_metainfo is the JSON" ;;
  *) check_failed "repo_metainfo: $(magic_xattr repo_metainfo "$WORK/ours")" ;; esac
same catalog_counters nested/deeper/inside.txt
same catalog_counters nested
for a in hash chunks chunk_list 'chunk_list~?' compression direct_io external_file lhash; do
  same "$a" small.txt
  same "$a" big.bin
done
same rawlink link
unmount_repo "$WORK/ours"
real_unmount "$WORK/real"
finish
