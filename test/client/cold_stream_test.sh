#!/usr/bin/env bash
# A cold sequential read of a chunked file, with the chunks ahead of the
# reader fetched in the background (through the prefetch engine, and with
# CVMFS_PREFETCH=no through the read-ahead queue), returns every byte of
# the file; chunks are inflated whole once verified (cvmfs/object_inflater.h).
# With one chunk in the middle corrupted on the server the read stops with
# EIO at that chunk, the bytes before it are right, the chunks after it
# (fetched ahead) read right, and neither the corrupted chunk nor a
# temporary file stays in the cache; once the chunk is repaired the whole
# file reads right on the same mount.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init cold_stream 300
require_bins cvmfs_server cvmfs2

fqrn=coldstream.test.org
src=$WORK/src
mkdir -p "$src"
# 40 MiB that compress in parts (text) and not in others (random): real
# deflate blocks and stored ones; CVMFS's default chunking (4-16 MiB) makes
# at least three chunks of it.
make_random_file "$WORK/random" $((24 * 1024 * 1024)) cold-stream
{
  head -c $((12 * 1024 * 1024)) "$WORK/random"
  { seq 1 100000000 || true; } | head -c $((16 * 1024 * 1024))
  tail -c $((12 * 1024 * 1024)) "$WORK/random"
} >"$src/big.bin"
rm -f "$WORK/random"
publish_tree $fqrn "$src" data
apache_start "$CVMFS_ROOTDIR/srv"

# The chunk list: "hash,offset,size" lines in file order.
mount_for_list() {
  test_client_config "$WORK/client.conf" "$APACHE_URL/cvmfs/@fqrn@" \
    "$(repo_public_key $fqrn)" "$@"
  mount_repo $fqrn "$WORK/mnt" "$WORK/client.conf"
}
mount_for_list
mapfile -t chunks < <(magic_xattr chunk_list "$WORK/mnt/data/big.bin" | tail -n +2)
unmount_repo "$WORK/mnt"
[ "${#chunks[@]}" -ge 3 ] || fail "big.bin has ${#chunks[@]} chunk(s), expected 3 or more"
middle=${chunks[$((${#chunks[@]} / 2))]}
IFS=, read -r bad_hash bad_offset bad_size <<<"$middle"
bad_hash=${bad_hash%P}
bad_obj=$(server_object_path $fqrn "${bad_hash}P")
[ -f "$bad_obj" ] || fail "chunk $bad_hash of big.bin is not on the server as $bad_obj"
cp -p "$bad_obj" "$WORK/chunk.orig"
note "${#chunks[@]} chunks; corrupting the one at offset $bad_offset ($bad_size bytes)"

corrupt_chunk() {
  chmod u+w "$bad_obj"
  python3 - "$bad_obj" <<'EOF'
import os, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(os.path.getsize(sys.argv[1]) // 2)
    b = f.read(1)
    f.seek(-1, 1)
    f.write(bytes([b[0] ^ 0xff]))
EOF
}

# expect_clean WHAT: the corrupted chunk is not in the cache, and no
# temporary file is left.
expect_clean() {
  local what=$1 cache path leftovers
  cache=$(cache_dir_of $fqrn)
  for path in "$(cache_object_path "$cache" "$bad_hash")" "$(cache_object_path "$cache" "${bad_hash}P")"; do
    [ ! -e "$path" ] || check_failed "$what: the corrupted chunk was cached as $path"
  done
  leftovers=$(find "$cache/txn" -type f 2>/dev/null | head -n 5)
  [ -z "$leftovers" ] || check_failed "$what: temporary files left in $cache/txn: $leftovers"
}

# cold_read WHAT [KEY=VALUE...]: the checks above on a fresh cache.
cold_read() {
  local what=$1 got=$WORK/got rc=0 n after
  shift
  rm -rf "$(cache_dir_of $fqrn)"
  mount_for_list "$@"
  local file=$WORK/mnt/data/big.bin
  corrupt_chunk
  dd if="$file" of="$got" bs=1M 2>"$WORK/dd.err" || rc=$?
  [ "$rc" -ne 0 ] || check_failed "$what: reading big.bin with a corrupted chunk succeeded"
  grep -q "Input/output error" "$WORK/dd.err" ||
    check_failed "$what: dd failed without EIO: $(cat "$WORK/dd.err")"
  n=$(stat -c %s "$got")
  # The reader got through the chunks before the bad one, and no further.
  [ "$n" -le "$bad_offset" ] && [ "$n" -ge $((bad_offset - (1 << 20))) ] ||
    check_failed "$what: read $n bytes before the error, the bad chunk starts at $bad_offset"
  cmp -s -n "$n" "$got" "$src/big.bin" ||
    check_failed "$what: the $n bytes read before the bad chunk differ from the source"
  # From the first page wholly after the bad chunk (the kernel reads pages).
  after=$(((bad_offset + bad_size + 4095) / 4096 * 4096))
  cmp -s <(tail -c +$((after + 1)) "$file") <(tail -c +$((after + 1)) "$src/big.bin") ||
    check_failed "$what: the chunks after the bad one differ from the source"
  expect_clean "$what"
  cp -p "$WORK/chunk.orig" "$bad_obj"
  cmp -s "$file" "$src/big.bin" ||
    check_failed "$what: big.bin differs from the source after the repair (same mount)"
  unmount_repo "$WORK/mnt"
}

cold_read "prefetch on"
cold_read "prefetch off" CVMFS_PREFETCH=no
finish
