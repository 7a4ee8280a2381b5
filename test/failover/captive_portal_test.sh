#!/usr/bin/env bash
# A captive portal: a server that answers every URL with HTTP 200 and an
# HTML login page. The HTTP transfer succeeds, so only verification can tell:
#   1. "portal;good": the whitelist/manifest from the portal fails
#      verification, the client tries the next host and mounts from it;
#      user.host and `cvmfs_talk host info` name the good host;
#   2. only the portal, empty cache: the mount fails and says why (the
#      whitelist or manifest is not valid), naming the repository;
#   3. only the portal, a cache populated by an earlier mount (breadcrumb):
#      the mount starts offline on the cached revision, cached files read,
#      an uncached file gives EIO (not ENOENT, not the portal's HTML).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib_failover.sh"

test_init captive_portal 300
require_bins cvmfs_server cvmfs2

fqrn=captive.test.org
src=$WORK/src
mnt=$WORK/mnt
# Never read while online: each alone in its directory, so that the sibling
# prefetch of a file that is read cannot fetch it.
mkdir -p "$src/dir" "$src/cold1" "$src/cold2"
make_random_file "$src/medium.bin" 400000 captive-medium
make_random_file "$src/cold1/uncached.bin" 200000 captive-uncached
echo "never read online" >"$src/cold2/small.txt"
for i in 1 2 3; do echo "small file $i" >"$src/dir/f$i.txt"; done
publish_tree $fqrn "$src" data
apache_start "$CVMFS_ROOTDIR/srv"
good=$(host_url "$APACHE_URL" $fqrn)
fault_server_start portal captive
portal=$FAULT_URL

# --- 1. portal first, good host second -----------------------------------------
failover_config $fqrn portal-first "$portal/cvmfs/@fqrn@;$APACHE_URL/cvmfs/@fqrn@" DIRECT
mount_repo $fqrn "$mnt" "$CONFIG"
for f in medium.bin dir/f1.txt; do
  expect_same_content "portal first" "$mnt/data/$f" "$src/$f"
done
expect_xattr "portal first" host "$mnt" "$good"
expect_talk "portal first" $fqrn "host info" "^Active host 1: $good\$"
expect_failovers "portal first" $fqrn 1
n=$(fault_request_count portal "^200 /cvmfs/$fqrn/\.cvmfs(whitelist|published) ")
[ "$n" -ge 1 ] || check_failed "portal first: the portal was never asked for the whitelist or manifest"
grep -q "rejected.*switching host" "$WORK/debug.log" ||
  check_failed "portal first: the debug log does not say why the host was switched"
unmount_repo "$mnt"

# --- 2. only the portal, nothing cached ----------------------------------------
failover_config $fqrn portal-only-empty "$portal/cvmfs/@fqrn@" DIRECT
out=$(mount_repo_expect_failure $fqrn "$mnt" "$CONFIG")
note "mount with only the portal and no cache: $out"
grep -qiE '(whitelist|manifest)' <<<"$out" ||
  check_failed "portal only: the failure does not name the whitelist or manifest: $out"
grep -qF "$fqrn" <<<"$out" || check_failed "portal only: the failure does not name $fqrn: $out"
mountpoint -q "$mnt" && check_failed "portal only: $mnt is mounted after a failed mount"

# --- 3. only the portal, a populated cache -------------------------------------
failover_config $fqrn warm "$APACHE_URL/cvmfs/@fqrn@" DIRECT
mount_repo $fqrn "$mnt" "$CONFIG"
revision=$(magic_xattr revision "$mnt" 2>&1) || fail "user.revision: $revision"
for f in medium.bin dir/f1.txt dir/f2.txt; do
  expect_same_content "populating the cache" "$mnt/data/$f" "$src/$f"
done
unmount_repo "$mnt"
# Same cache (CVMFS_CACHE_BASE of case "warm"), only the portal.
failover_config $fqrn warm "$portal/cvmfs/@fqrn@" DIRECT
before=$(fault_request_count portal)
mount_repo $fqrn "$mnt" "$CONFIG"
[ "$(fault_request_count portal)" -gt "$before" ] ||
  check_failed "portal only, warm cache: the portal was not even asked for the manifest"
expect_eq "portal only, warm cache: user.revision" "$revision" "$(magic_xattr revision "$mnt" 2>&1)"
grep -q "from the cache" "$WORK/debug.log" ||
  check_failed "portal only, warm cache: the debug log does not say the mount is offline"
for f in medium.bin dir/f1.txt dir/f2.txt; do
  expect_same_content "portal only, warm cache" "$mnt/data/$f" "$src/$f"
done
expect_eq "portal only, warm cache: listing of dir/" "f1.txt f2.txt f3.txt" \
  "$(ls "$mnt/data/dir" 2>&1 | xargs)"
expect_read_error "$mnt/data/cold1/uncached.bin" "Input/output error"
expect_read_error "$mnt/data/cold2/small.txt" "Input/output error"
unmount_repo "$mnt"
finish
