#!/usr/bin/env bash
# A zlib bomb on the server: the object of a 13-byte file is replaced by a
# zlib stream of 1 GiB of zeros (about 1 MB). Reading the file fails with
# EIO, and the client stops inflating at the catalog's 13 bytes: the cache's
# txn/ never holds more than a few MB (sampled while the read runs; without
# the bound it grew towards half the quota, then "No space left on device"),
# nothing is left in txn/, and what the cache held before is still there.
#
# The stream is inflated while it is hashed (the hash is checked at its
# end), so the replaced object, whose hash no longer matches, exercises the
# same bound as a bomb a signed catalog references with a matching hash
# (client/object_fetcher_test.cc covers that case).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init zlib_bomb 300
require_bins cvmfs_server cvmfs2

fqrn=bomb.test.org
src=$WORK/src
mnt=$WORK/mnt
mkdir -p "$src"
printf 'hello, world\n' >"$src/small.txt" # 13 bytes
make_random_file "$src/neighbour.bin" 200000 bomb-neighbour
publish_tree $fqrn "$src" data
apache_start "$CVMFS_ROOTDIR/srv"
test_client_config "$WORK/client.conf" "$APACHE_URL/cvmfs/@fqrn@" "$(repo_public_key $fqrn)"
mount_repo $fqrn "$mnt" "$WORK/client.conf"
cache=$(cache_dir_of $fqrn)

expect_eq "sha256 of neighbour.bin" "$(sha256_of "$src/neighbour.bin")" \
  "$(sha256_of "$mnt/data/neighbour.bin")"
neighbour=$(cache_object_path "$cache" "$(magic_xattr hash "$mnt/data/neighbour.bin")")
[ -f "$neighbour" ] || fail "neighbour.bin was read but $neighbour is not cached"

# user.hash is read without opening small.txt: nothing of it is cached yet.
hash=$(magic_xattr hash "$mnt/data/small.txt")
obj=$(server_object_path $fqrn "$hash")
[ -f "$obj" ] || fail "user.hash of small.txt is $hash but the server has no $obj"
chmod u+w "$obj"
python3 - "$obj" <<'EOF'
import sys, zlib
c = zlib.compressobj(9)
zeros = bytes(1 << 20)
with open(sys.argv[1], "wb") as f:
    for _ in range(1024):  # 1 GiB
        f.write(c.compress(zeros))
    f.write(c.flush())
EOF
note "replaced $obj by a zlib bomb of $(stat -c %s "$obj") bytes (1 GiB inflated)"

# Samples the bytes in txn/ every 20 ms until $WORK/stop exists; the peak
# goes to $WORK/peak.
(
  peak=0
  while [ ! -e "$WORK/stop" ]; do
    n=$(find "$cache/txn" -type f -printf '%s\n' 2>/dev/null | awk '{s += $1} END {print s + 0}')
    [ "$n" -le "$peak" ] || peak=$n
    echo "$peak" >"$WORK/peak"
    sleep 0.02
  done
) &
sampler=$!
on_exit "touch '$WORK/stop'; wait $sampler 2>/dev/null || true"
sleep 0.1

start=$SECONDS
expect_read_error "$mnt/data/small.txt" "Input/output error"
took=$((SECONDS - start))
touch "$WORK/stop"
wait $sampler || true
peak=$(cat "$WORK/peak")
note "read failed after ${took}s; peak bytes in txn/: $peak"
[ "$peak" -lt $((4 * 1024 * 1024)) ] ||
  check_failed "txn/ held $peak bytes while the bomb was read (expected a few MB at most)"
leftovers=$(find "$cache/txn" -type f 2>/dev/null | head -n 5)
[ -z "$leftovers" ] || check_failed "temporary files left in $cache/txn: $leftovers"
[ ! -e "$(cache_object_path "$cache" "$hash")" ] ||
  check_failed "the bomb was cached as $(cache_object_path "$cache" "$hash")"
[ -f "$neighbour" ] || check_failed "the cached $neighbour was evicted"
grep -F -- "$hash" "$WORK/debug.log" 2>/dev/null | grep -q 'inflates' ||
  check_failed "no line of the debug log names $hash and the bound"
expect_eq "sha256 of neighbour.bin after the bomb" "$(sha256_of "$src/neighbour.bin")" \
  "$(sha256_of "$mnt/data/neighbour.bin")"
finish
