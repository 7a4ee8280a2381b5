#!/usr/bin/env bash
# The server fails while the client reads, with toxiproxy between them:
#   1. the connection drops mid-transfer (limit_data) -> EIO, nothing cached;
#      without the fault the same file reads correctly;
#   2. the server stalls without closing (timeout 0) -> EIO within the
#      configured timeouts, not a hang;
#   3. the server is stopped -> an uncached file gives EIO (not ENOENT),
#      cached files and directory listings still work.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"
. "$here/../lib/toxiproxy.sh"

test_init server_failure 400
require_bins cvmfs_server cvmfs2

fqrn=failure.test.org
src=$WORK/src
mnt=$WORK/mnt
mkdir -p "$src/dir"
make_random_file "$src/big.bin" $((20 * 1024 * 1024)) failure-big
make_random_file "$src/stalled.bin" $((6 * 1024 * 1024)) failure-stalled
make_random_file "$src/uncached.bin" 200000 failure-uncached
echo "read before the failures" >"$src/cached.txt"
for i in 1 2 3; do echo "entry $i" >"$src/dir/e$i"; done
publish_tree $fqrn "$src" data
apache_start "$CVMFS_ROOTDIR/srv"
toxiproxy_start
proxy_port=$(toxiproxy_create_proxy stratum1 "$APACHE_PORT")
# No sibling prefetch: this test needs files that stay uncached while their
# neighbours are read (prefetch has its own tests).
test_client_config "$WORK/client.conf" "http://127.0.0.1:$proxy_port/cvmfs/@fqrn@" \
  "$(repo_public_key $fqrn)" CVMFS_PREFETCH_FILES=0
mount_repo $fqrn "$mnt" "$WORK/client.conf"
cache=$(cache_dir_of $fqrn)

# Cache objects (00..ff), one per line.
cache_objects() {
  find "$cache" -mindepth 2 -maxdepth 2 -type f -path "$cache/[0-9a-f][0-9a-f]/*" | LC_ALL=C sort
}
expect_nothing_new_cached() {
  local what=$1 new leftovers
  new=$(cache_objects | comm -13 "$WORK/objects.before" - | head -n 5)
  [ -z "$new" ] || check_failed "$what: objects cached although the transfer failed: $new"
  leftovers=$(find "$cache/txn" -type f 2>/dev/null | head -n 5)
  [ -z "$leftovers" ] || check_failed "$what: temporary files left in $cache/txn: $leftovers"
}
# Drops the page cache of FILE only, so the next read reaches the client.
drop_page_cache() { dd if="$1" iflag=nocache count=0 status=none; }

expect_eq "cached.txt" "read before the failures" "$(cat "$mnt/data/cached.txt" 2>&1)"

# --- 1. connection dropped after 1 MB --------------------------------------
cache_objects >"$WORK/objects.before"
toxic_limit_data stratum1 1000000
start=$SECONDS
expect_read_error "$mnt/data/big.bin" "Input/output error"
note "dropped connections: EIO after $((SECONDS - start)) s"
expect_nothing_new_cached "connection dropped mid-transfer"
toxiproxy_remove_toxic stratum1 limit_data
got=$(sha256_of "$mnt/data/big.bin" 2>&1) || got="read failed: $got"
expect_eq "sha256 of big.bin once the connection stays up" "$(sha256_of "$src/big.bin")" "$got"

# --- 2. server stalls ---------------------------------------------------------
cache_objects >"$WORK/objects.before"
toxic_timeout stratum1 0
start=$SECONDS
expect_read_error "$mnt/data/stalled.bin" "Input/output error"
elapsed=$((SECONDS - start))
note "stalled server: EIO after $elapsed s"
# CVMFS_TIMEOUT=5 with one retry and backoff: well below a minute.
[ "$elapsed" -le 60 ] || check_failed "a stalled server blocked the read for $elapsed s"
expect_nothing_new_cached "stalled server"
toxiproxy_remove_toxic stratum1 timeout
got=$(sha256_of "$mnt/data/stalled.bin" 2>&1) || got="read failed: $got"
expect_eq "sha256 of stalled.bin once the server answers" "$(sha256_of "$src/stalled.bin")" "$got"

# --- 3. server stopped --------------------------------------------------------
apache_stop
note "Apache stopped"
start=$SECONDS
expect_read_error "$mnt/data/uncached.bin" "Input/output error"
note "stopped server: EIO after $((SECONDS - start)) s"
[ $((SECONDS - start)) -le 60 ] || check_failed "a stopped server blocked the read for $((SECONDS - start)) s"
for f in cached.txt big.bin stalled.bin; do
  drop_page_cache "$mnt/data/$f"
  got=$(sha256_of "$mnt/data/$f" 2>&1) || got="read failed: $got"
  expect_eq "sha256 of cached $f with the server stopped" "$(sha256_of "$src/$f")" "$got"
done
expect_eq "listing of dir/ with the server stopped" "e1 e2 e3" "$(ls "$mnt/data/dir" 2>&1 | xargs)"
finish
