#!/usr/bin/env bash
# `cvmfs_server serve` against hostile clients (doc/serving.md, "Limits"),
# each probe a finding that once held:
#   - 1,030 connections from one address, some trickling their headers a
#     byte at a time: a client from another address (127.0.0.2) is still
#     answered at once, and the tricklers are cut at the header deadline;
#   - Range positions beyond 64 bits: an end is clamped (206), a start is
#     unsatisfiable (416 with "Content-Range: bytes */SIZE");
#   - an absolute-form request target is served by its path;
#   - a 200 MB PUT or POST gets its 405 at once, unread, and the connection
#     closes;
#   - a symbolic link out of the storage is 404 whether or not its target
#     exists; temporaries and files that are not world-readable are 404.
# The client is test/server/serve_probe.py (raw sockets) and curl.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/publish.sh"

test_init serve_hardening 300
require_bins cvmfs_server

fqrn=hardening.test.org
src=$WORK/src
header_timeout=3
probe() { python3 "$here/serve_probe.py" "$@"; }

mkdir -p "$src/dir"
echo "hello, world" >"$src/dir/hello.txt"
seq 1 20000 >"$src/numbers.txt"
publish_tree "$fqrn" "$src" sw
storage=$(repo_storage "$fqrn")

# Hostile storage content: links out (to something that exists and to
# something that does not), a private file, temporaries.
echo "outside the storage" >"$WORK/outside.txt"
ln -s ../../../../outside.txt "$storage/escape_exists"
ln -s ../../../../missing.txt "$storage/escape_missing"
ln -s "$WORK/outside.txt" "$storage/escape_absolute"
[ -e "$storage/escape_exists" ] || fail "the link does not reach $WORK/outside.txt"
echo private >"$storage/private"
chmod 0600 "$storage/private"
mkdir -p "$storage/data/txn"
echo partial >"$storage/data/txn/.tmp.4242.0"
echo partial >"$storage/data/00/.tmp.4242.1"
chmod 0644 "$storage/data/txn/.tmp.4242.0" "$storage/data/00/.tmp.4242.1"

# --- start the server ---------------------------------------------------------
out=$WORK/serve.out
show_on_failure "$out"
"$BIN/cvmfs_server" serve -p 0 --header-timeout "$header_timeout" "$fqrn" \
  </dev/null >"$out" 2>&1 &
server_pid=$!
on_exit "kill -TERM $server_pid 2>/dev/null || true"
wait_for 10 "cvmfs_server serve to print its URL" grep -q "^serving $fqrn at " "$out"
url=$(sed -n "s|^serving $fqrn at ||p" "$out")
port=$(sed -E 's|^http://127\.0\.0\.1:([0-9]+)/.*|\1|' <<<"$url")
path=/cvmfs/$fqrn/.cvmfspublished
note "server pid $server_pid at $url"
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }

# --- 1. one address cannot deny service ----------------------------------------
# The default per-address limit (64) with 1,030 connections from 127.0.0.1,
# 20 of them trickling their headers.
probe flood "$port" "$path" 1030 20 "$header_timeout" >"$WORK/flood.out" 2>&1 ||
  check_failed "flood: $(cat "$WORK/flood.out")"
note "flood: $(tr '\n' ' ' <"$WORK/flood.out")"
kept=$(sed -n 's/^connections_kept=//p' "$WORK/flood.out")
[ -n "$kept" ] && [ "$kept" -le 64 ] ||
  check_failed "the server kept $kept connections from one address (limit 64)"
expect_eq "answer after the flood" 200 "$(code "$url/.cvmfspublished")"

# --- 2. Range positions beyond 64 bits ------------------------------------------
size=$(stat -c %s "$storage/.cvmfspublished")
h=$(curl -s -D - -o "$WORK/range.body" -H 'Range: bytes=0-99999999999999999999' "$url/.cvmfspublished")
grep -q '^HTTP/1.1 206 ' <<<"$h" || check_failed "huge range end: $h"
grep -qi "^content-range: bytes 0-$((size - 1))/$size" <<<"$h" ||
  check_failed "huge range end, Content-Range: $h"
cmp -s "$WORK/range.body" "$storage/.cvmfspublished" || check_failed "huge range end: wrong body"
h=$(curl -s -D - -o /dev/null -H 'Range: bytes=99999999999999999999-' "$url/.cvmfspublished")
grep -q '^HTTP/1.1 416 ' <<<"$h" || check_failed "huge range start: $h"
grep -qi "^content-range: bytes \*/$size" <<<"$h" || check_failed "huge range start, Content-Range: $h"
expect_eq "invalid range ignored" 200 "$(code -H 'Range: bytes=9-3' "$url/.cvmfspublished")"

# --- 3. absolute-form request target ---------------------------------------------
r=$(probe raw "$port" "http://127.0.0.1:$port$path")
expect_eq "absolute-form status" "status=200" "$(sed -n 1p <<<"$r")"
expect_eq "absolute-form body" "body_sha256=$(sha256_of "$storage/.cvmfspublished")" "$(sed -n 2p <<<"$r")"
expect_eq "absolute-form via curl" 200 \
  "$(code --request-target "http://localhost:$port/cvmfs/$fqrn/.cvmfswhitelist" "http://127.0.0.1:$port/")"

# --- 4. refused uploads are not read ------------------------------------------------
for method in PUT POST; do
  probe upload "$port" "$path" "$method" >"$WORK/upload.out" 2>&1 ||
    check_failed "$method: $(cat "$WORK/upload.out")"
  note "$method: $(tr '\n' ' ' <"$WORK/upload.out")"
done

# --- 5. nothing outside the storage, no temporaries, no private files ----------------
for name in escape_exists escape_missing escape_absolute private \
  data/txn/.tmp.4242.0 data/00/.tmp.4242.1; do
  expect_eq "$name" 404 "$(code "$url/$name")"
done
expect_eq "a served file" 200 "$(code "$url/.cvmfswhitelist")"

kill -0 "$server_pid" 2>/dev/null || fail "the server died"
kill -TERM "$server_pid"
wait_pid_exit 10 "$server_pid" || fail "cvmfs_server serve did not stop on SIGTERM"
finish
