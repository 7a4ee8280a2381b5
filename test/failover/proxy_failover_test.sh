#!/usr/bin/env bash
# A dead proxy in front of a working Squid (Squid in front of Apache):
#   1. ordered groups "dead;squid": the mount and every read go through the
#      second group; user.proxy and `cvmfs_talk proxy info` name the Squid,
#      the Squid's access log has the requests;
#   2. one load-balanced group "dead|squid": whichever member is picked
#      first, reads work and the proxy in use ends up being the Squid; done
#      over several fresh mounts so that the dead member is picked first at
#      least once with high probability (each mount picks at random).
# Neither case may touch the host chain: user.host stays the only host.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib_failover.sh"

test_init proxy_failover 400
require_bins cvmfs_server cvmfs2

fqrn=proxy-failover.test.org
src=$WORK/src
mnt=$WORK/mnt
mkdir -p "$src/dir"
make_random_file "$src/medium.bin" 2000000 proxy-failover-medium
for i in 1 2 3 4 5; do echo "small file $i" >"$src/dir/f$i.txt"; done
publish_tree $fqrn "$src" data
apache_start "$CVMFS_ROOTDIR/srv"
squid_start
host=$(host_url "$APACHE_URL" $fqrn)
dead=http://127.0.0.1:$(free_port)
note "dead proxy $dead (nothing listens there)"

# read_all CASE: every file of the tree reads with the source's content.
read_all() {
  local case=$1 f
  for f in medium.bin dir/f1.txt dir/f2.txt dir/f3.txt dir/f4.txt dir/f5.txt; do
    expect_same_content "$case" "$mnt/data/$f" "$src/$f"
  done
}

# --- 1. ordered groups: dead first -------------------------------------------
failover_config $fqrn ordered "$APACHE_URL/cvmfs/@fqrn@" "$dead;$SQUID_URL"
start=$SECONDS
mount_repo $fqrn "$mnt" "$CONFIG"
read_all "ordered groups"
elapsed=$((SECONDS - start))
note "ordered groups: mounted and read in $elapsed s"
# A refused connection is noticed at once: one retry (backoff <= 1 s), then
# the next group. Anything near the timeouts means the failover is wrong.
[ "$elapsed" -le 30 ] || check_failed "ordered groups: mount and reads took $elapsed s"
expect_xattr "ordered groups" proxy "$mnt" "$SQUID_URL"
expect_xattr "ordered groups" host "$mnt" "$host"
expect_talk "ordered groups" $fqrn "proxy info" "^Active proxy: \[1\] $SQUID_URL\$"
expect_talk "ordered groups" $fqrn "host info" "^Active host 0: $host\$"
expect_failovers "ordered groups" $fqrn 1
n=$(squid_request_count "$SQUID_ACCESS_LOG" "\"GET $APACHE_URL/cvmfs/$fqrn/data/")
[ "$n" -ge 1 ] || check_failed "ordered groups: Squid's access log shows no data object request"
n=$(squid_request_count "$SQUID_ACCESS_LOG" "\"GET $APACHE_URL/cvmfs/$fqrn/\.cvmfspublished\"")
[ "$n" -ge 1 ] || check_failed "ordered groups: the manifest did not come through Squid"
unmount_repo "$mnt"

# --- 2. one load-balanced group ----------------------------------------------
# P(the dead member is never picked first in 4 mounts) = 1/16.
for round in 1 2 3 4; do
  failover_config $fqrn "balanced$round" "$APACHE_URL/cvmfs/@fqrn@" "$dead|$SQUID_URL"
  before=$(squid_request_count "$SQUID_ACCESS_LOG")
  mount_repo $fqrn "$mnt" "$CONFIG"
  read_all "balanced group, mount $round"
  expect_xattr "balanced group, mount $round" proxy "$mnt" "$SQUID_URL"
  expect_talk "balanced group, mount $round" $fqrn "proxy info" "^Active proxy: \[0\] $SQUID_URL\$"
  after=$(squid_request_count "$SQUID_ACCESS_LOG")
  [ "$after" -gt "$before" ] ||
    check_failed "balanced group, mount $round: no request reached Squid"
  switches=$(talk_counter $fqrn download.n_failovers)
  note "balanced group, mount $round: ${switches:-?} proxy switch(es)"
  unmount_repo "$mnt"
done
finish
