#!/usr/bin/env bash
# Many readers at once on a cold cache:
#   - 32 readers of one chunked file all get the right bytes, and each chunk
#     is downloaded once (identical concurrent requests are collapsed);
#   - 16 tar readers of different subtrees get the right trees;
#   - meanwhile the mount answers metadata requests promptly.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init parallel_readers 500
require_bins cvmfs_server cvmfs2

fqrn=parallel.test.org
src=$WORK/src
mnt=$WORK/mnt
readers=32
subtrees=16
# Slowest acceptable answer to ls/stat/getxattr while the readers run.
max_latency_ms=5000

mkdir -p "$src"
make_random_file "$src/big.bin" $((32 * 1024 * 1024)) parallel-big
for s in $(seq -w 1 $subtrees); do
  mkdir -p "$src/sub$s/inner"
  for i in $(seq 1 30); do printf 'subtree %s file %d\n' "$s" "$i" >"$src/sub$s/f$i.txt"; done
  # Below the 4 MiB chunking threshold: only big.bin is chunked.
  make_random_file "$src/sub$s/inner/blob.bin" $((200000 + 10#$s * 1000)) "parallel-$s"
  ln -s ../f1.txt "$src/sub$s/inner/link"
done
publish_tree $fqrn "$src" data
apache_start "$CVMFS_ROOTDIR/srv"
test_client_config "$WORK/client.conf" "$APACHE_URL/cvmfs/@fqrn@" "$(repo_public_key $fqrn)"
mount_repo $fqrn "$mnt" "$WORK/client.conf"

# probe_while_running PIDS...: times metadata operations until all PIDS end;
# sets SLOWEST_MS.
probe_while_running() {
  local t0 t1 ms
  SLOWEST_MS=0
  while pids_alive "$@"; do
    t0=$(date +%s%N)
    ls "$mnt/data" >/dev/null && stat "$mnt/data/sub01/f1.txt" >/dev/null &&
      magic_xattr revision "$mnt" >/dev/null ||
      check_failed "metadata request failed while readers were running"
    t1=$(date +%s%N)
    ms=$(((t1 - t0) / 1000000))
    [ "$ms" -le "$SLOWEST_MS" ] || SLOWEST_MS=$ms
    sleep 0.2
  done
}
pids_alive() {
  local p
  for p in "$@"; do kill -0 "$p" 2>/dev/null && return 0; done
  return 1
}

# --- 32 readers of one file ----------------------------------------------------
want=$(sha256_of "$src/big.bin")
pids=()
for r in $(seq 1 $readers); do
  (sha256_of "$mnt/data/big.bin" >"$WORK/reader-$r.sum" 2>"$WORK/reader-$r.err") &
  pids+=($!)
done
probe_while_running "${pids[@]}"
for r in $(seq 1 $readers); do
  wait "${pids[r - 1]}" || check_failed "reader $r of big.bin failed: $(head -c 300 "$WORK/reader-$r.err")"
  got=$(cat "$WORK/reader-$r.sum")
  [ "$got" = "$want" ] || check_failed "reader $r of big.bin: sha256 $got, expected $want"
done
note "$readers readers of big.bin done; slowest metadata answer ${SLOWEST_MS} ms"
[ "$SLOWEST_MS" -le "$max_latency_ms" ] ||
  check_failed "metadata requests took up to $SLOWEST_MS ms while $readers readers ran"

chunks=$(find "$(repo_storage $fqrn)/data" -type f -name '*P' | wc -l)
chunk_gets=$(apache_request_count '"GET [^ ]*P HTTP')
note "big.bin: $chunks chunks, $chunk_gets chunk requests"
[ "$chunks" -gt 1 ] || fail "big.bin was not published as chunks"
[ "$chunk_gets" -le "$chunks" ] ||
  check_failed "$chunk_gets chunk downloads for $chunks chunks: concurrent requests were not collapsed"

# --- 16 tar readers of different subtrees -----------------------------------------
pids=()
for s in $(seq -w 1 $subtrees); do
  mkdir -p "$WORK/extract/sub$s"
  (tar -C "$mnt/data/sub$s" -cf - . | tar -C "$WORK/extract/sub$s" -xf -) 2>"$WORK/tar-$s.err" &
  pids+=($!)
done
probe_while_running "${pids[@]}"
i=0
for s in $(seq -w 1 $subtrees); do
  wait "${pids[i]}" || check_failed "tar reader of sub$s failed: $(head -c 300 "$WORK/tar-$s.err")"
  i=$((i + 1))
  out=$(diff -r --no-dereference "$src/sub$s" "$WORK/extract/sub$s" 2>&1) ||
    check_failed "subtree sub$s read through tar differs:"$'\n'"$out"
done
note "$subtrees tar readers done; slowest metadata answer ${SLOWEST_MS} ms"
[ "$SLOWEST_MS" -le "$max_latency_ms" ] ||
  check_failed "metadata requests took up to $SLOWEST_MS ms while $subtrees tar readers ran"

# Still usable afterwards.
expect_eq "sha256 of big.bin after the parallel reads" "$want" "$(sha256_of "$mnt/data/big.bin" 2>&1)"
finish
