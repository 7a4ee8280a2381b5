#!/usr/bin/env bash
# A broken first Stratum 1 and a good second one (CVMFS_SERVER_URL="bad;good");
# in every case the mount and the reads must work through the good host, and
# user.host and `cvmfs_talk host info` must name it:
#   404       a URL prefix with nothing below it: every request answers 404
#             (the manifest is "missing" -> next host at mount);
#   lagging   a mirror that has the manifest and catalogs but not one data
#             object: mounted on the lagging host, the read of that file
#             gets 404 for a hash the verified catalog references -> next
#             host, the file reads;
#   corrupted a mirror serving a corrupted data object: the mismatch is
#             retried with no-cache, then (a host failure, as in CVMFS) on
#             the next host, where the file reads;
#   500       an origin answering HTTP 500, reached through Squid: a host
#             error passed on by a proxy switches the host, not the proxy
#             (user.proxy stays the Squid);
#   reset     toxiproxy resets every connection (reset_peer) to the first
#             host: at mount, and for a host that starts failing after the
#             mount (the next uncached read switches);
#   slow      the first host slows to 1 KB/s after the mount, below
#             CVMFS_LOW_SPEED_LIMIT=10000 with CVMFS_TIMEOUT=3: a multi-MB
#             read switches to the second host within bounded time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib_failover.sh"

test_init host_failover 500
require_bins cvmfs_server cvmfs2

fqrn=host-failover.test.org
src=$WORK/src
mnt=$WORK/mnt
mkdir -p "$src/dir"
make_random_file "$src/big.bin" $((6 * 1024 * 1024)) host-failover-big
make_random_file "$src/medium.bin" 500000 host-failover-medium
make_random_file "$src/lagging.bin" 300000 host-failover-lagging
for i in 1 2 3; do echo "small file $i" >"$src/dir/f$i.txt"; done
publish_tree $fqrn "$src" data
apache_start "$CVMFS_ROOTDIR/srv"
good=$(host_url "$APACHE_URL" $fqrn)
toxiproxy_start
squid_start

# A case: fresh cache, CVMFS_SERVER_URL="$1;good", CVMFS_HTTP_PROXY=$2.
mount_case() {
  local case=$1 first=$2 proxy=$3
  shift 3
  failover_config $fqrn "$case" "$first;$good" "$proxy" "$@"
  mount_repo $fqrn "$mnt" "$CONFIG"
}

# expect_on_good_host CASE: user.host and cvmfs_talk name the second host.
expect_on_good_host() {
  expect_xattr "$1" host "$mnt" "$good"
  expect_talk "$1" $fqrn "host info" "^Active host 1: $good\$"
  expect_failovers "$1" $fqrn 1
}

read_files() {
  local case=$1 f
  shift
  for f in "$@"; do expect_same_content "$case" "$mnt/data/$f" "$src/$f"; done
}

# --- 404 for everything --------------------------------------------------------
mount_case 404 "$APACHE_URL/nothing/cvmfs/@fqrn@" DIRECT
read_files 404 medium.bin dir/f1.txt
expect_on_good_host 404
n=$(apache_request_count "\"GET /nothing/cvmfs/$fqrn/\.cvmfs(whitelist|published) .* 404 ")
[ "$n" -ge 1 ] || check_failed "404: the empty prefix was never asked for the whitelist or manifest"
unmount_repo "$mnt"

# --- a lagging mirror: one data object missing ---------------------------------
lag=$CVMFS_ROOTDIR/srv/lag/cvmfs/$fqrn
mkdir -p "$(dirname "$lag")"
cp -al "$(repo_storage $fqrn)" "$lag"
lag_host=$(host_url "$APACHE_URL/lag" $fqrn)
mount_case lagging "$lag_host" DIRECT
expect_xattr "lagging, after the mount" host "$mnt" "$lag_host"
hash=$(magic_xattr hash "$mnt/data/lagging.bin" 2>&1) || fail "user.hash of lagging.bin: $hash"
rm -f "$lag/data/${hash:0:2}/${hash:2}"
[ -e "$(server_object_path $fqrn "$hash")" ] || fail "removed the object from the origin too"
read_files lagging lagging.bin
expect_on_good_host lagging
n=$(apache_request_count "\"GET /lag/cvmfs/$fqrn/data/${hash:0:2}/${hash:2} .* 404 ")
[ "$n" -ge 1 ] || check_failed "lagging: the lagging host was not asked for $hash first"
n=$(apache_request_count "\"GET /cvmfs/$fqrn/data/${hash:0:2}/${hash:2} .* 200 ")
[ "$n" -ge 1 ] || check_failed "lagging: the good host did not serve $hash"
unmount_repo "$mnt"

# --- a mirror serving a corrupted data object ----------------------------------
# The hash mismatch is retried with no-cache (there is no proxy to blame);
# a second mismatch is a host failure, as in CVMFS: the next host serves it.
bad=$CVMFS_ROOTDIR/srv/bad/cvmfs/$fqrn
mkdir -p "$(dirname "$bad")"
cp -al "$(repo_storage $fqrn)" "$bad"
bad_host=$(host_url "$APACHE_URL/bad" $fqrn)
mount_case corrupted "$bad_host" DIRECT
hash=$(magic_xattr hash "$mnt/data/medium.bin" 2>&1) || fail "user.hash of medium.bin: $hash"
bad_obj=$bad/data/${hash:0:2}/${hash:2}
# Replace the hard link by a corrupted copy: the origin keeps the good one.
cp "$bad_obj" "$WORK/medium.obj" && rm -f "$bad_obj"
python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[len(b) // 2] ^= 0xff
open(sys.argv[2], "wb").write(b)' "$WORK/medium.obj" "$bad_obj"
cmp -s "$bad_obj" "$(server_object_path $fqrn "$hash")" && fail "the mirror's copy is not corrupted"
expect_xattr "corrupted, after the mount" host "$mnt" "$bad_host"
read_files corrupted medium.bin
expect_on_good_host corrupted
n=$(apache_request_count "\"GET /bad/cvmfs/$fqrn/data/${hash:0:2}/${hash:2} .* 200 .*\"no-cache\"\$")
[ "$n" -ge 1 ] || check_failed "corrupted: the mirror was not asked again with no-cache"
unmount_repo "$mnt"

# --- HTTP 500 through Squid ----------------------------------------------------
fault_server_start broken 500
broken_url=$FAULT_URL
mount_case 500 "$broken_url/cvmfs/@fqrn@" "$SQUID_URL"
read_files 500 medium.bin dir/f2.txt
expect_on_good_host 500
expect_xattr 500 proxy "$mnt" "$SQUID_URL"
expect_talk 500 $fqrn "proxy info" "^Active proxy: \[0\] $SQUID_URL\$"
n=$(fault_request_count broken "^500 /cvmfs/$fqrn/")
[ "$n" -ge 1 ] || check_failed "500: the broken origin was never asked (through Squid)"
n=$(squid_request_count "$SQUID_ACCESS_LOG" "/500 .*\"GET $broken_url/")
[ "$n" -ge 1 ] || check_failed "500: Squid's log shows no 500 from the broken origin"
unmount_repo "$mnt"

# --- connection resets ---------------------------------------------------------
reset_port=$(toxiproxy_create_proxy resetter "$APACHE_PORT")
reset_host=$(host_url "http://127.0.0.1:$reset_port" $fqrn)
toxiproxy_add_toxic resetter reset_peer reset_peer downstream '{"timeout":0}'
mount_case reset-at-mount "http://127.0.0.1:$reset_port/cvmfs/@fqrn@" DIRECT
read_files "reset at mount" medium.bin
expect_on_good_host "reset at mount"
unmount_repo "$mnt"

toxiproxy_remove_toxic resetter reset_peer
mount_case reset-later "http://127.0.0.1:$reset_port/cvmfs/@fqrn@" DIRECT
read_files "reset later, before the fault" dir/f1.txt
expect_xattr "reset later, before the fault" host "$mnt" "$reset_host"
toxiproxy_add_toxic resetter reset_peer reset_peer downstream '{"timeout":0}'
read_files "reset later" medium.bin dir/f3.txt
expect_on_good_host "reset later"
unmount_repo "$mnt"

# --- a slow host ---------------------------------------------------------------
slow_port=$(toxiproxy_create_proxy slow "$APACHE_PORT")
slow_host=$(host_url "http://127.0.0.1:$slow_port" $fqrn)
mount_case slow "http://127.0.0.1:$slow_port/cvmfs/@fqrn@" DIRECT \
  CVMFS_LOW_SPEED_LIMIT=10000 CVMFS_TIMEOUT=3 CVMFS_TIMEOUT_DIRECT=3
read_files "slow, before the fault" dir/f1.txt
expect_xattr "slow, before the fault" host "$mnt" "$slow_host"
toxic_bandwidth slow 1
start=$SECONDS
read_files slow big.bin
elapsed=$((SECONDS - start))
note "slow: $(stat -c %s "$src/big.bin") bytes read in $elapsed s"
# Two attempts of 3 s below the limit, a backoff of at most 1 s, then the
# good host: anything near a minute means the low-speed limit is not applied.
[ "$elapsed" -le 30 ] || check_failed "slow: reading big.bin took $elapsed s"
expect_on_good_host slow
unmount_repo "$mnt"
finish
