#!/usr/bin/env bash
# CVMFS_HTTP_PROXY=auto: a PAC file served by Apache on 127.0.0.1 chooses
# between two real Squids (A and B) by the repository's URL and host,
# evaluated by libpacparser in the client:
#   1. server 127.0.0.1, PAC URLs "dead;wpad.dat": the first PAC URL
#      refuses, the second answers "PROXY localhost:B; DIRECT": all traffic
#      goes through B (the name localhost resolved to 127.0.0.1, shown as
#      such by proxy info), none through A;
#   2. server "localhost": the PAC's other branch, "PROXY 127.0.0.1:A":
#      A carries the traffic, B none; `cvmfs_talk proxy set auto` after
#      `proxy set DIRECT` finds A again;
#   3. no PAC reachable, a fresh cache: CVMFS_HTTP_PROXY=auto fails the
#      mount with "failed to discover HTTP proxy servers" (as the real CVMFS
#      2.12 client does: it drops the empty auto and has nothing left);
#   4. the same with the cache of case 1: the proxies discovered then (B);
#   5. "auto;DIRECT" + CVMFS_FALLBACK_PROXY=A with no PAC reachable: DIRECT
#      is dropped for the fallback, A carries the traffic, proxy info names
#      it the first fallback group.
# With the real CVMFS 2.12 client at hand (../shared/reference), case 1 is
# mounted by it too: its `proxy info` (times masked) and user.proxy_list
# must read as ours.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib_failover.sh"
. "$here/../lib/real_cvmfs.sh"
real_cvmfs_private_etc "$@"

test_init pac_proxy 300
require_bins cvmfs_server cvmfs2

fqrn=pac-proxy.test.org
src=$WORK/src
mnt=$WORK/mnt
mkdir -p "$src/dir"
make_random_file "$src/data.bin" 300000 pac-proxy-data
echo "small file" >"$src/dir/small.txt"
publish_tree $fqrn "$src" data
apache_start "$CVMFS_ROOTDIR/srv"
squid_start a
port_a=$SQUID_PORT log_a=$SQUID_ACCESS_LOG
squid_start b
port_b=$SQUID_PORT log_b=$SQUID_ACCESS_LOG
dead_pac=http://127.0.0.1:$(free_port)/none.pac
cat >"$CVMFS_ROOTDIR/srv/wpad.dat" <<EOF
function FindProxyForURL(url, host) {
  if (host == "127.0.0.1" && shExpMatch(url, "*/cvmfs/$fqrn/*"))
    return "PROXY localhost:$port_b; DIRECT";
  if (host == "localhost") return "PROXY 127.0.0.1:$port_a";
  return "DIRECT";
}
EOF
chmod 0644 "$CVMFS_ROOTDIR/srv/wpad.dat"
pac=$APACHE_URL/wpad.dat

read_all() {
  expect_same_content "$1" "$mnt/data/data.bin" "$src/data.bin"
  expect_same_content "$1" "$mnt/data/dir/small.txt" "$src/dir/small.txt"
}
requests() { squid_request_count "$1" "\"GET http://[^ ]*/cvmfs/$fqrn/"; }

# --- 1. the PAC file picks B by URL and host ---------------------------------
failover_config $fqrn pac "$APACHE_URL/cvmfs/@fqrn@" auto \
  "CVMFS_PAC_URLS=$dead_pac;$pac"
mount_repo $fqrn "$mnt" "$CONFIG"
read_all "PAC picks B"
expect_xattr "PAC picks B" proxy "$mnt" "http://127.0.0.1:$port_b"
expect_talk "PAC picks B" $fqrn "proxy info" \
  "^\[0\] http://127\.0\.0\.1:$port_b \(localhost, \+[0-9]+[smh]\)\$"
expect_talk "PAC picks B" $fqrn "proxy info" "^\[1\] DIRECT\$"
expect_talk "PAC picks B" $fqrn "proxy info" "^Active proxy: \[0\] http://127\.0\.0\.1:$port_b\$"
expect_xattr "PAC picks B" proxy_list "$mnt" "http://127.0.0.1:$port_b
DIRECT"
ours_list=$(magic_xattr proxy_list "$mnt")
ours_info=""
! talk_available || ours_info=$("$BIN/cvmfs_talk" -i $fqrn proxy info)
unmount_repo "$mnt"
n_b=$(requests "$log_b")
[ "$n_b" -ge 2 ] || check_failed "PAC picks B: B's access log has $n_b requests for $fqrn"
[ "$(requests "$log_a")" -eq 0 ] || check_failed "PAC picks B: A carried requests"
grep -q "from PAC file $pac" "$WORK/debug.log" ||
  check_failed "PAC picks B: the debug log does not say which PAC file was used"

# The same configuration on the real CVMFS 2.12 client.
reference=${CVMFS_REFERENCE_DIR:-$SOURCE_DIR/../shared/reference}
if [ -f "$reference/cvmfs-2.12-real-debian12-amd64.tar.xz" ] && [ -n "$ours_info" ]; then
  real_cvmfs_init
  real_client_config "$WORK/real.conf" "$APACHE_URL/cvmfs/@fqrn@" \
    "$(repo_public_key $fqrn)" "CVMFS_HTTP_PROXY=auto" "CVMFS_PAC_URLS=$dead_pac;$pac" \
    "CVMFS_BACKOFF_INIT=1" "CVMFS_BACKOFF_MAX=2"
  real_mount $fqrn "$WORK/real-mnt" "$WORK/real.conf"
  real_info=$("$REAL_BIN/real-cvmfs_talk" -p "$(real_cache_dir_of $fqrn)/cvmfs_io.$fqrn" proxy info)
  expect_eq "user.proxy_list as the real CVMFS 2.12 client's" \
    "$(real_xattr proxy_list "$WORK/real-mnt")" "$ours_list"
  real_unmount "$WORK/real-mnt"
  mask_times() { sed -E 's/, [+-][0-9]+[smh]\)/, TIME)/g'; }
  expect_eq "proxy info as the real CVMFS 2.12 client's" \
    "$(mask_times <<<"$real_info")" "$(mask_times <<<"$ours_info")"
  n_b=$(requests "$log_b")
else
  note "no real CVMFS 2.12 client (or no cvmfs_talk): proxy info not compared"
fi

# --- 2. another host, the PAC's other answer: A -------------------------------
localhost_url=${APACHE_URL/127.0.0.1/localhost}
failover_config $fqrn pac-localhost "$localhost_url/cvmfs/@fqrn@" auto \
  "CVMFS_PAC_URLS=$pac"
mount_repo $fqrn "$mnt" "$CONFIG"
read_all "PAC picks A"
expect_xattr "PAC picks A" proxy "$mnt" "http://127.0.0.1:$port_a"
if talk_available; then
  # cvmfs_talk proxy set resolves auto as the mount did.
  expect_eq "proxy set DIRECT" OK "$("$BIN/cvmfs_talk" -i $fqrn proxy set DIRECT)"
  expect_xattr "proxy set DIRECT" proxy "$mnt" DIRECT
  expect_eq "proxy set auto" OK "$("$BIN/cvmfs_talk" -i $fqrn proxy set auto)"
  expect_xattr "proxy set auto" proxy "$mnt" "http://127.0.0.1:$port_a"
fi
unmount_repo "$mnt"
[ "$(requests "$log_a")" -ge 2 ] || check_failed "PAC picks A: A carried no request"
[ "$(requests "$log_b")" -eq "$n_b" ] || check_failed "PAC picks A: B carried requests"

# --- 3. no PAC file reachable: the mount fails ---------------------------------
failover_config $fqrn no-pac "$APACHE_URL/cvmfs/@fqrn@" auto \
  "CVMFS_PAC_URLS=$dead_pac" "CVMFS_FALLBACK_PROXY=http://127.0.0.1:$port_a"
out=$(mount_repo_expect_failure $fqrn "$mnt" "$CONFIG")
grep -q "failed to discover HTTP proxy servers" <<<"$out" ||
  check_failed "no PAC: the failed mount does not say why: $out"
grep -qF "$dead_pac" <<<"$out" || check_failed "no PAC: the message names no PAC URL: $out"

# --- 4. no PAC file reachable, proxies cached by case 1 -------------------------
failover_config $fqrn pac-cached "$APACHE_URL/cvmfs/@fqrn@" auto \
  "CVMFS_PAC_URLS=$dead_pac" "CVMFS_CACHE_BASE=$WORK/cache-pac"
before_b=$(requests "$log_b")
mount_repo $fqrn "$mnt" "$CONFIG"
expect_xattr "cached proxies" proxy "$mnt" "http://127.0.0.1:$port_b"
unmount_repo "$mnt"
[ "$(requests "$log_b")" -gt "$before_b" ] || check_failed "cached proxies: B carried no request"

# --- 5. auto;DIRECT with a fallback proxy and no PAC ----------------------------
failover_config $fqrn fallback "$APACHE_URL/cvmfs/@fqrn@" "auto;DIRECT" \
  "CVMFS_PAC_URLS=$dead_pac" "CVMFS_FALLBACK_PROXY=http://127.0.0.1:$port_a"
before_a=$(requests "$log_a")
before_apache=$(grep -c . "$APACHE_ACCESS_LOG" || true)
mount_repo $fqrn "$mnt" "$CONFIG"
read_all "fallback"
expect_xattr "fallback" proxy "$mnt" "http://127.0.0.1:$port_a"
expect_talk "fallback" $fqrn "proxy info" "^First fallback group: \[0\]\$"
expect_talk "fallback" $fqrn "proxy info" "^Active proxy: \[0\] http://127\.0\.0\.1:$port_a\$"
unmount_repo "$mnt"
after_a=$(requests "$log_a")
[ "$after_a" -gt "$before_a" ] || check_failed "fallback: A carried no request"
# Whatever reached Apache came through A: with DIRECT dropped nothing else may.
apache_new=$(($(grep -c . "$APACHE_ACCESS_LOG" || true) - before_apache))
[ "$apache_new" -le $((after_a - before_a)) ] ||
  check_failed "fallback: Apache saw $apache_new requests, A forwarded $((after_a - before_a)): DIRECT was used"
finish
