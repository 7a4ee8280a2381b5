#!/usr/bin/env bash
# CVMFS_ALIEN_CACHE, as CVMFS: two "nodes" (two cvmfs2 mounts of one
# repository, each with its own CVMFS_CACHE_BASE, where its repository
# lock and control socket live, and its own mount point) share one alien
# cache directory:
#   - both read the whole tree at the same time and every byte matches;
#   - the objects are in the alien directory only, unmanaged (no cachedb,
#     no lock_cachedb), and txn/ holds nothing once the reads are done;
#   - an object one node stored is a cache hit for the other (its
#     user.ndownload does not move);
#   - without CVMFS_QUOTA_LIMIT=-1 and CVMFS_SHARED_CACHE=no the mount is
#     refused, naming both parameters.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init alien_cache 180
require_bins cvmfs_server cvmfs2

fqrn=alien.example.org
for d in 1 2 3; do
  mkdir -p "$WORK/src/d$d"
  for f in $(seq 1 12); do make_random_file "$WORK/src/d$d/f$f" $((f * 37000)) "$d-$f"; done
done
make_random_file "$WORK/src/big.dat" $((9 << 20)) big
echo "seen by both" >"$WORK/src/first.txt"
publish_tree $fqrn "$WORK/src" /
apache_start "$CVMFS_ROOTDIR/srv"

alien=$WORK/alien
mkdir -p "$alien"
chmod 0770 "$alien"
# The nodes' cvmfs2 switch to CVMFS_USER (cvmfs): the site gives it the
# directory.
id cvmfs >/dev/null 2>&1 && chown cvmfs "$alien"
for node in 1 2; do
  test_client_config "$WORK/node$node.conf" "$APACHE_URL/cvmfs/@fqrn@" "$(repo_public_key $fqrn)" \
    "CVMFS_CACHE_BASE=$WORK/node$node" "CVMFS_ALIEN_CACHE=$alien" \
    "CVMFS_QUOTA_LIMIT=-1" "CVMFS_SHARED_CACHE=no" "CVMFS_DEBUGLOG=$WORK/debug$node.log"
  show_on_failure "$WORK/debug$node.log"
done

note "refused without an unmanaged private cache"
test_client_config "$WORK/managed.conf" "$APACHE_URL/cvmfs/@fqrn@" "$(repo_public_key $fqrn)" \
  "CVMFS_ALIEN_CACHE=$alien"
out=$(mount_repo_expect_failure $fqrn "$WORK/mnt-managed" "$WORK/managed.conf")
case $out in
  *"CVMFS_ALIEN_CACHE=$alien needs CVMFS_QUOTA_LIMIT=-1 (is 2000) and CVMFS_SHARED_CACHE=no"*)
    pass "alien cache with a managed quota refused: $out" ;;
  *) fail "alien cache with a managed quota: $out" ;;
esac

mount_repo $fqrn "$WORK/mnt1" "$WORK/node1.conf"
mount_repo $fqrn "$WORK/mnt2" "$WORK/node2.conf"

note "an object node 1 stored is a hit for node 2"
expect_eq "node 1 reads" "seen by both" "$(cat "$WORK/mnt1/first.txt")"
before=$(magic_xattr ndownload "$WORK/mnt2")
expect_eq "node 2 reads" "seen by both" "$(cat "$WORK/mnt2/first.txt")"
expect_eq "node 2's downloads for an object in the alien cache" "$before" \
  "$(magic_xattr ndownload "$WORK/mnt2")"

note "both nodes read everything at once"
checksum_tree "$WORK/src" >"$WORK/expected.sums"
(checksum_tree "$WORK/mnt1" >"$WORK/node1.sums") &
reader1=$!
(checksum_tree "$WORK/mnt2" >"$WORK/node2.sums") &
reader2=$!
wait $reader1 || fail "node 1's reader failed"
wait $reader2 || fail "node 2's reader failed"
for node in 1 2; do
  cmp -s "$WORK/expected.sums" "$WORK/node$node.sums" ||
    fail "node $node read different bytes: $(diff "$WORK/expected.sums" "$WORK/node$node.sums" | head)"
done
pass "both nodes read every byte of $(wc -l <"$WORK/expected.sums") files"

note "where things are"
objects=$(find "$alien" -mindepth 2 -path "$alien/[0-9a-f][0-9a-f]/*" -type f | wc -l)
[ "$objects" -gt 30 ] || fail "only $objects objects in the alien cache"
for f in cachedb lock_cachedb; do
  [ ! -e "$alien/$f" ] || fail "the alien cache has a $f: it is unmanaged"
done
expect_eq "nothing left in the alien cache's txn/" "" "$(ls -A "$alien/txn")"
expect_eq "the alien directory's mode is the site's" "770" "$(stat -c %a "$alien")"
for node in 1 2; do
  ws=$WORK/node$node/$fqrn
  [ -S "$ws/cvmfs_io.$fqrn" ] || fail "node $node: no control socket in its workspace $ws"
  [ -z "$(find "$ws" -path "$ws/[0-9a-f][0-9a-f]/*" -type f | head -1)" ] ||
    fail "node $node: objects in its workspace $ws"
done
unmount_repo "$WORK/mnt1"
unmount_repo "$WORK/mnt2"
finish
