#!/usr/bin/env bash
# Recorded prefetch lists round-trip through publish (doc/format-prefetch-list.md):
# a workload recorded with `cvmfs_talk prefetch record`, stored with
# `cvmfs_server prefetch-list add` in a new revision that `cvmfs_server check
# -c` accepts; after a remount with an empty cache, opening only the list's
# first file makes the client request every listed object (Apache's access
# log), each once, and the workload then reads all its files with no
# further request.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init prefetch_list 300
require_bins cvmfs_server cvmfs2 cvmfs_talk

fqrn=prefetch-list.test.org
src=$WORK/src
# The trigger sits alone in its directory, so directory prefetch (which
# fetches an opened file's siblings) fetches nothing the list names.
mkdir -p "$src/app/bin" "$src/app/lib/python" "$src/app/share" "$src/unused"
echo "#!/bin/sh" >"$src/app/bin/start"
for i in $(seq -w 1 24); do
  make_random_file "$src/app/lib/python/mod$i.py" $((4000 + 100 * 10#$i)) "mod-$i"
done
make_random_file "$src/app/share/big.dat" $((20 * 1024 * 1024)) big  # chunked
for i in 1 2 3; do make_random_file "$src/unused/u$i" 5000 "unused-$i"; done
publish_tree $fqrn "$src" sw
apache_start "$CVMFS_ROOTDIR/srv"

etc=$CVMFS_ROOTDIR/etc/cvmfs
mount_dir=$WORK/cvmfs
mnt=$mount_dir/$fqrn
mkdir -p "$etc/config.d"
echo "CVMFS_REPOSITORIES=$fqrn" >>"$etc/default.local"
echo "CVMFS_MOUNT_DIR=$mount_dir" >>"$etc/default.local"
test_client_config "$etc/config.d/$fqrn.local" "$APACHE_URL/cvmfs/@fqrn@" \
  "$(repo_public_key $fqrn)"
cache=$(cache_dir_of $fqrn)
talk() { "$BIN/cvmfs_talk" -i $fqrn "$@"; }

# The workload, in the order it opens files.
workload=(app/bin/start)
for i in 03 01 07 12 24 18; do workload+=("app/lib/python/mod$i.py"); done
workload+=(app/share/big.dat)
run_workload() {
  local f
  for f in "${workload[@]}"; do
    [ "$(sha256_of "$mnt/sw/$f")" = "$(sha256_of "$src/$f")" ] ||
      check_failed "$f read differs from the source"
  done
}

# --- record --------------------------------------------------------------
mount_repo $fqrn "$mnt" "$etc/config.d/$fqrn.local"
expect_eq "record start" "OK" "$(talk prefetch record start)"
run_workload
cat "$mnt/sw/app/lib/python/mod03.py" >/dev/null  # opened again: listed once
expect_eq "record status" "Recording (${#workload[@]} files)" "$(talk prefetch record status)"
talk prefetch record stop >"$WORK/workload.list"
head -n 1 "$WORK/workload.list" | grep -q "^# prefetch list recorded by cvmfs2 on $fqrn" ||
  check_failed "recorded list has no header: $(head -n 1 "$WORK/workload.list")"
expected=$(printf '/sw/%s\n' "${workload[@]}")
expect_eq "recorded paths" "$expected" "$(grep -v '^#' "$WORK/workload.list")"
expect_eq "record stop when not recording" "Not recording" "$(talk prefetch record stop)"
unmount_repo "$mnt"

# --- store ---------------------------------------------------------------
revision=$(manifest_field $fqrn S)
out=$("$BIN/cvmfs_server" prefetch-list add -n workload "$WORK/workload.list" $fqrn 2>&1) ||
  fail "prefetch-list add failed: $out"
note "$out"
expect_eq "revision after add" $((revision + 1)) "$(manifest_field $fqrn S)"
listing=$("$BIN/cvmfs_server" prefetch-list list $fqrn 2>&1) || fail "prefetch-list list: $listing"
grep -q "^workload: ${#workload[@]} files, .* trigger /sw/app/bin/start; 0 stale$" <<<"$listing" ||
  check_failed "prefetch-list list shows: $listing"
out=$("$BIN/cvmfs_server" check -i $fqrn 2>&1) || check_failed "cvmfs_server check -i failed: $out"

# --- use -----------------------------------------------------------------
rm -rf "$cache"
# Count from here on (Apache appends to its log, so truncating is safe).
: >"$APACHE_ACCESS_LOG"
mount_repo $fqrn "$mnt" "$etc/config.d/$fqrn.local"
wait_for 20 "the prefetch lists to load" bash -c \
  "'$BIN/cvmfs_talk' -i $fqrn prefetch lists | grep -q 'workload: .*not fired'"

# The objects the list names: whole files by user.hash, chunks counted
# (lookups and attributes fetch no content).
objects=()
for f in "${workload[@]}"; do
  [ "$f" = app/share/big.dat ] && continue
  objects+=("$(magic_xattr hash "$mnt/sw/$f")")
done
chunks=$(magic_xattr chunks "$mnt/sw/app/share/big.dat")
[ "$chunks" -ge 2 ] || fail "app/share/big.dat should be chunked (user.chunks is $chunks)"
data_requests() { apache_request_count "GET /cvmfs/$fqrn/data/"; }
requests_of() { apache_request_count "GET /cvmfs/$fqrn/data/${1:0:2}/${1:2} "; }
chunk_requests() { apache_request_count "GET /cvmfs/$fqrn/data/[0-9a-f]{2}/[0-9a-f]+P "; }
for h in "${objects[@]}"; do
  expect_eq "requests for $h before the trigger" 0 "$(requests_of "$h")"
done
expect_eq "chunk requests before the trigger" 0 "$(chunk_requests)"

# Open the trigger only; the list fetches the rest in the background.
cat "$mnt/sw/app/bin/start" >/dev/null
all_fetched() {
  local h
  for h in "${objects[@]}"; do [ "$(requests_of "$h")" -ge 1 ] || return 1; done
  [ "$(chunk_requests)" -ge "$chunks" ]
}
wait_for 60 "the listed objects to be requested" all_fetched
wait_for 20 "the list to be done" bash -c \
  "'$BIN/cvmfs_talk' -i $fqrn prefetch lists | grep -q 'workload: .*: done'"
sleep 1  # downloads in flight end up in the log
for h in "${objects[@]}"; do
  expect_eq "requests for $h after the trigger" 1 "$(requests_of "$h")"
done
expect_eq "chunk requests after the trigger" "$chunks" "$(chunk_requests)"
note "$(talk prefetch lists | tr '\n' ';')"

# The workload now reads everything from the cache: no listed object is
# requested again. (Reading mod03.py makes directory prefetch fetch its 18
# unread siblings; that is not the list's doing.)
listed_requests() {
  local h n=0
  for h in "${objects[@]}"; do n=$((n + $(requests_of "$h"))); done
  echo $((n + $(chunk_requests)))
}
before=$(listed_requests)
run_workload
sleep 1
expect_eq "listed objects requested while the workload ran" "$before" "$(listed_requests)"
note "data requests after the workload: $(data_requests) (${#objects[@]} files and $chunks chunks listed)"
unmount_repo "$mnt"

# --- remove --------------------------------------------------------------
out=$("$BIN/cvmfs_server" prefetch-list remove -n workload $fqrn 2>&1) ||
  fail "prefetch-list remove failed: $out"
expect_eq "lists after remove" "No prefetch lists in $fqrn" \
  "$("$BIN/cvmfs_server" prefetch-list list $fqrn 2>&1)"
out=$("$BIN/cvmfs_server" check -i $fqrn 2>&1) || check_failed "check after remove: $out"
finish
