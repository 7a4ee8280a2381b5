#!/usr/bin/env bash
# A corrupted object on the server: reading the file fails with EIO after one
# retry that asks proxies for a fresh copy (Pragma: no-cache), nothing of the
# object reaches the cache, the debug log names the hash; once the object is
# restored on the server, the same path on the same mount reads the right
# bytes. Done for a whole-file object and for one chunk of a chunked file.
#
# Why the same mount and path can be used after the repair: the failure is
# reported by open() (whole file) or read() (chunk), and the kernel caches
# neither; what it does cache (the dentry and attributes) was valid all along.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init corruption 300
require_bins cvmfs_server cvmfs2

fqrn=corruption.test.org
src=$WORK/src
mnt=$WORK/mnt
mkdir -p "$src"
make_random_file "$src/whole.bin" 300000 corruption-whole
make_random_file "$src/chunked.bin" $((24 * 1024 * 1024)) corruption-chunked
echo "an intact neighbour" >"$src/intact.txt"
publish_tree $fqrn "$src" data
apache_start "$CVMFS_ROOTDIR/srv"
test_client_config "$WORK/client.conf" "$APACHE_URL/cvmfs/@fqrn@" "$(repo_public_key $fqrn)"
mount_repo $fqrn "$mnt" "$WORK/client.conf"
cache=$(cache_dir_of $fqrn)

# flip_byte FILE: inverts the byte in the middle of FILE.
flip_byte() {
  chmod u+w "$1"
  python3 - "$1" <<'EOF'
import os, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(os.path.getsize(sys.argv[1]) // 2)
    b = f.read(1)
    f.seek(-1, 1)
    f.write(bytes([b[0] ^ 0xff]))
EOF
}

# expect_not_cached HASH WHAT: no cache file for HASH (with or without the
# object suffix) and no leftover transaction file.
expect_not_cached() {
  local hash=$1 what=$2 path leftovers
  for path in "$(cache_object_path "$cache" "$hash")" "$(cache_object_path "$cache" "${hash%[CP]}")"; do
    [ ! -e "$path" ] || check_failed "$what: the corrupted object was cached as $path"
  done
  leftovers=$(find "$cache/txn" -type f 2>/dev/null | head -n 5)
  [ -z "$leftovers" ] || check_failed "$what: temporary files left in $cache/txn: $leftovers"
}

# expect_logged HASH WHAT: a debug log line names the hash and the failure.
expect_logged() {
  local hash=${1%[CP]} what=$2
  grep -F -- "$hash" "$WORK/debug.log" 2>/dev/null |
    grep -qiE 'mismatch|corrupt|verif|invalid|fail|error' ||
    check_failed "$what: no line of the debug log names $hash and the failure"
}

# expect_retried_no_cache OBJECT_URL_PATH WHAT: the object was requested at
# least twice, a later request with Pragma: no-cache.
expect_retried_no_cache() {
  local path=$1 what=$2 n
  n=$(apache_request_count "\"GET $path ")
  [ "$n" -ge 2 ] || check_failed "$what: $path requested $n time(s), expected a retry"
  grep -F "\"GET $path " "$APACHE_ACCESS_LOG" | grep -q '"no-cache"$' ||
    check_failed "$what: no request for $path carried Pragma: no-cache"
}

# --- A whole-file object -----------------------------------------------------
hash=$(magic_xattr hash "$mnt/data/whole.bin" 2>&1) || fail "user.hash of whole.bin: $hash"
obj=$(server_object_path $fqrn "$hash")
[ -f "$obj" ] || fail "user.hash of whole.bin is $hash but the server has no $obj"
cp -p "$obj" "$WORK/whole.orig"
flip_byte "$obj"
note "corrupted $obj"

expect_read_error "$mnt/data/whole.bin" "Input/output error"
expect_not_cached "$hash" "whole.bin"
expect_logged "$hash" "whole.bin"
expect_retried_no_cache "/cvmfs/$fqrn/data/${hash:0:2}/${hash:2}" "whole.bin"
expect_eq "intact.txt next to the corrupted file" "an intact neighbour" \
  "$(cat "$mnt/data/intact.txt" 2>&1)"

cp -p "$WORK/whole.orig" "$obj"
got=$(sha256_of "$mnt/data/whole.bin" 2>&1) || got="read failed: $got"
expect_eq "sha256 of whole.bin after the repair (same mount, same path)" \
  "$(sha256_of "$src/whole.bin")" "$got"
[ -f "$(cache_object_path "$cache" "$hash")" ] ||
  check_failed "whole.bin was read but $(cache_object_path "$cache" "$hash") is not in the cache"

# --- One chunk of a chunked file ---------------------------------------------
# The file's chunks are the only P objects; corrupt the largest.
chunk=$(find "$(repo_storage $fqrn)/data" -type f -name '*P' -printf '%s %p\n' |
  sort -n | tail -n 1 | cut -d' ' -f2-)
[ -n "$chunk" ] || fail "chunked.bin was not published as chunks (no *P object in the repository)"
chunk_hash=$(basename "$(dirname "$chunk")")$(basename "$chunk")
cp -p "$chunk" "$WORK/chunk.orig"
flip_byte "$chunk"
note "corrupted chunk $chunk"

expect_read_error "$mnt/data/chunked.bin" "Input/output error"
expect_not_cached "$chunk_hash" "chunked.bin"
expect_logged "$chunk_hash" "chunked.bin"
expect_retried_no_cache "/cvmfs/$fqrn/data/${chunk_hash:0:2}/${chunk_hash:2}" "chunked.bin"

cp -p "$WORK/chunk.orig" "$chunk"
got=$(sha256_of "$mnt/data/chunked.bin" 2>&1) || got="read failed: $got"
expect_eq "sha256 of chunked.bin after the repair (same mount, same path)" \
  "$(sha256_of "$src/chunked.bin")" "$got"
finish
