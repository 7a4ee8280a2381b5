#!/usr/bin/env bash
# The cache survives unmounting and serves a remount on its own:
#   phase 1  server up: mount, read everything (tar and sha256), unmount;
#   phase 2  server stopped: the remount must succeed from the cache, every
#            file reads with the same checksums and the same metadata, the
#            revision is the one seen before (breadcrumb);
#   phase 3  server up again, fresh mount: everything reads without a single
#            request for a data object (only the manifest and whitelist may
#            be checked for a newer revision).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init offline_remount 400
require_bins cvmfs_server cvmfs2

fqrn=offline.test.org
src=$WORK/src
mnt=$WORK/mnt
mkdir -p "$src/sub/nested" "$src/links"
for d in a b c d; do
  mkdir -p "$src/sub/$d"
  for i in $(seq 1 50); do echo "file $d/$i" >"$src/sub/$d/f$i.txt"; done
done
make_random_file "$src/chunked.bin" $((20 * 1024 * 1024)) offline-chunked
make_random_file "$src/medium.bin" 1000000 offline-medium
: >"$src/sub/nested/.cvmfscatalog"
echo "inside a nested catalog" >"$src/sub/nested/inner.txt"
ln -s ../sub/a/f1.txt "$src/links/rel"
publish_tree $fqrn "$src" data
apache_start "$CVMFS_ROOTDIR/srv"
port=$APACHE_PORT
test_client_config "$WORK/client.conf" "$APACHE_URL/cvmfs/@fqrn@" "$(repo_public_key $fqrn)"

# read_everything PHASE: full read through tar, checksums and listing.
read_everything() {
  local phase=$1 rc=0
  tar -C "$mnt/data" -cf - . 2>"$WORK/tar-$phase.err" | cat >/dev/null || rc=$?
  [ "$rc" -eq 0 ] || check_failed "$phase: tar of the mount failed: $(head -n 5 "$WORK/tar-$phase.err")"
  checksum_tree "$mnt/data" >"$WORK/sums-$phase" 2>"$WORK/sums-$phase.err" ||
    check_failed "$phase: checksumming the mount failed: $(head -n 5 "$WORK/sums-$phase.err")"
  python3 "$TESTLIB_DIR/listing.py" "$mnt/data" >"$WORK/listing-$phase" 2>&1 ||
    check_failed "$phase: listing the mount failed: $(head -n 5 "$WORK/listing-$phase")"
}

# --- phase 1 -------------------------------------------------------------------
mount_repo $fqrn "$mnt" "$WORK/client.conf"
revision=$(magic_xattr revision "$mnt" 2>&1) || fail "user.revision of the mount: $revision"
read_everything online
checksum_tree "$src" >"$WORK/sums-source"
diff "$WORK/sums-source" "$WORK/sums-online" >"$WORK/sums.diff" ||
  check_failed "checksums of the mount differ from the source:"$'\n'"$(head -n 20 "$WORK/sums.diff")"
unmount_repo "$mnt" || check_failed "unmounting after phase 1 failed"
note "phase 1: $(apache_request_count) requests, $(apache_bytes_sent) bytes"

# --- phase 2 -------------------------------------------------------------------
apache_stop
note "Apache stopped; remounting from the cache"
mount_repo $fqrn "$mnt" "$WORK/client.conf"
expect_eq "revision mounted offline" "$revision" "$(magic_xattr revision "$mnt" 2>&1)"
read_everything offline
diff "$WORK/sums-online" "$WORK/sums-offline" >"$WORK/sums.diff" ||
  check_failed "checksums offline differ from online:"$'\n'"$(head -n 20 "$WORK/sums.diff")"
diff "$WORK/listing-online" "$WORK/listing-offline" >"$WORK/listing.diff" ||
  check_failed "metadata offline differs from online:"$'\n'"$(head -n 20 "$WORK/listing.diff")"
unmount_repo "$mnt" || check_failed "unmounting after phase 2 failed"

# --- phase 3 -------------------------------------------------------------------
apache_start "$CVMFS_ROOTDIR/srv" "$port"
before=$(apache_request_count)
mount_repo $fqrn "$mnt" "$WORK/client.conf"
read_everything warm
diff "$WORK/sums-online" "$WORK/sums-warm" >"$WORK/sums.diff" ||
  check_failed "checksums with a warm cache differ:"$'\n'"$(head -n 20 "$WORK/sums.diff")"
tail -n +"$((before + 1))" "$APACHE_ACCESS_LOG" >"$WORK/phase3.log"
data_requests=$(grep -c '"GET [^ ]*/data/' "$WORK/phase3.log" || true)
other=$(grep -v '"GET [^ ]*/data/' "$WORK/phase3.log" | grep -vcE '/\.cvmfs(published|whitelist)' || true)
note "phase 3: $(wc -l <"$WORK/phase3.log") requests with a warm cache"
[ "$data_requests" -eq 0 ] ||
  check_failed "a mount with a warm cache fetched $data_requests data objects:"$'\n'"$(grep '/data/' "$WORK/phase3.log" | head -n 10)"
[ "$other" -eq 0 ] ||
  check_failed "unexpected requests with a warm cache:"$'\n'"$(head -n 10 "$WORK/phase3.log")"
finish
