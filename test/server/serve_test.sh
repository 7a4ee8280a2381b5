#!/usr/bin/env bash
# `cvmfs_server serve` end to end: publish a tree with our publisher, serve
# it with the embedded HTTP server on a free port, mount it with cvmfs2 and
# compare with the source (diff -r, checksums, parallel readers); check the
# headers a proxy relies on, range requests and refused paths over the wire;
# then stop the server with SIGTERM while the client still holds connections
# and require a clean exit, a closed port and a complete access log.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init serve 300
require_bins cvmfs_server cvmfs2

fqrn=serve.test.org
src=$WORK/src
mnt=$WORK/mnt

mkdir -p "$src/dir/sub" "$src/nested"
echo "hello, world" >"$src/dir/hello.txt"
for i in $(seq 1 50); do echo "file $i" >"$src/dir/sub/f$i"; done
make_random_file "$src/big.bin" $((12 * 1024 * 1024)) serve-big
seq 1 200000 >"$src/numbers.txt"
: >"$src/empty"
ln -s dir/hello.txt "$src/link"
: >"$src/nested/.cvmfscatalog"
echo inner >"$src/nested/inner.txt"
publish_tree "$fqrn" "$src" sw

# --- start the server -------------------------------------------------------
out=$WORK/serve.out
log=$WORK/access.log
show_on_failure "$out"
"$BIN/cvmfs_server" serve -p 0 -l "$log" "$fqrn" </dev/null >"$out" 2>&1 &
server_pid=$!
on_exit "kill -TERM $server_pid 2>/dev/null || true"
wait_for 10 "cvmfs_server serve to print its URL" grep -q "^serving $fqrn at " "$out"
url=$(sed -n "s|^serving $fqrn at ||p" "$out")
[[ "$url" =~ ^http://127\.0\.0\.1:[0-9]+/cvmfs/$fqrn$ ]] || fail "unexpected URL line: $url"
note "server pid $server_pid at $url"

# --- headers, ranges, refusals over the wire ---------------------------------
headers() { curl -sS -D - -o /dev/null "$@"; }
h=$(headers "$url/.cvmfspublished")
grep -qi '^cache-control: max-age=61' <<<"$h" || check_failed "manifest Cache-Control: $h"
grep -qi '^expires: ' <<<"$h" || check_failed "manifest without Expires: $h"
grep -qiE '^(etag|last-modified):' <<<"$h" && check_failed "manifest has a validator: $h"
root_hash=$(manifest_field "$fqrn" C)
obj_url="$url/data/${root_hash:0:2}/${root_hash:2}C"
h=$(headers "$obj_url")
grep -qi '^cache-control: max-age=259200' <<<"$h" || check_failed "catalog Cache-Control: $h"
size=$(stat -c %s "$(server_object_path "$fqrn" "$root_hash")C")
code=$(curl -s -o "$WORK/part" -w '%{http_code}' -r 10-29 "$obj_url")
expect_eq "range status" 206 "$code"
expect_eq "range body" "$(tail -c +11 "$(server_object_path "$fqrn" "$root_hash")C" | head -c 20 | sha256sum)" \
  "$(sha256sum <"$WORK/part")"
expect_eq "unsatisfiable range" 416 "$(curl -s -o /dev/null -w '%{http_code}' -r "$size-" "$obj_url")"
expect_eq "HEAD" 200 "$(curl -s -I -o /dev/null -w '%{http_code}' "$obj_url")"
expect_eq "missing object" 404 "$(curl -s -o /dev/null -w '%{http_code}' "$url/data/00/missing")"
expect_eq "listing" 403 "$(curl -s -o /dev/null -w '%{http_code}' "$url/data/")"
code=$(curl -s --path-as-is -o /dev/null -w '%{http_code}' "$url/../../../etc/passwd")
[[ "$code" == 403 || "$code" == 404 ]] || check_failed "path traversal answered $code"

# --- mount through the embedded server ----------------------------------------
test_client_config "$WORK/client.conf" "$url" "$(repo_public_key "$fqrn")"
mount_repo "$fqrn" "$mnt" "$WORK/client.conf"
diff -r --no-dereference "$src" "$mnt/sw" || check_failed "mount differs from the source"
expect_eq "checksums" "$(checksum_tree "$src")" "$(checksum_tree "$mnt/sw")"
# Parallel readers: several client connections at once.
find "$mnt/sw" -type f -print0 | xargs -0 -P 8 -n 4 cat >/dev/null ||
  check_failed "parallel reads through the mount failed"

# --- clean shutdown with the client's connections still open -------------------
kill -TERM "$server_pid"
if ! wait_pid_exit 10 "$server_pid"; then
  kill -KILL "$server_pid"
  fail "cvmfs_server serve did not stop within 10 s of SIGTERM"
fi
rc=0
wait "$server_pid" || rc=$?
expect_eq "exit status after SIGTERM" 0 "$rc"
grep -q '^stopped$' "$out" || check_failed "no 'stopped' line: $(cat "$out")"
curl -s -o /dev/null --max-time 2 "$url/.cvmfspublished" &&
  check_failed "the port still answers after the server stopped"
unmount_repo "$mnt"

# --- access log ---------------------------------------------------------------
clf='^127\.0\.0\.1 - - \[[0-9]{2}/[A-Z][a-z]{2}/[0-9]{4}:[0-9:]{8} [+-][0-9]{4}\] "[A-Z]+ [^"]*" [0-9]{3} ([0-9]+|-)$'
bad=$(grep -cvE "$clf" "$log" || true)
expect_eq "access log lines not in Common Log Format" 0 "$bad"
grep -qE "\"GET /cvmfs/$fqrn/\.cvmfspublished HTTP/1\.1\" 200 [0-9]+$" "$log" ||
  check_failed "manifest fetch not logged"
grep -qE "\"GET /cvmfs/$fqrn/data/[0-9a-f]{2}/[0-9a-f]+C HTTP/1\.1\" 200 [0-9]+$" "$log" ||
  check_failed "catalog fetch not logged"
grep -qE "\" 206 20$" "$log" || check_failed "range request not logged with its 20 bytes"
note "$(wc -l <"$log") requests logged"
finish
