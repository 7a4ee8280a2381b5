#!/usr/bin/env bash
# Returning to the primaries after a failover (CVMFS_HOST_RESET_AFTER,
# CVMFS_PROXY_RESET_AFTER). The first host / first proxy sits behind
# toxiproxy so that it can fail (refused connections) and come back:
#   host  CVMFS_SERVER_URL="first;good": first fails -> reads go to good;
#         first repaired; with RESET_AFTER=4 the first read after the
#         interval goes to first again (Apache logs it under /first/,
#         `cvmfs_talk host info` says "Active host 0", user.host names it);
#         before the interval reads stay on good; with 0 they stay on good;
#   proxy CVMFS_HTTP_PROXY="gate-to-squid;DIRECT": the same for the first
#         proxy group (Squid's access log, `proxy info` "Active proxy: [0]").
# The reset happens at the first request after the interval, as in CVMFS:
# every read here is of a file not read before, alone in its directory (no
# sibling prefetch), so each read is one request.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib_failover.sh"

test_init reset_after 400
require_bins cvmfs_server cvmfs2

fqrn=reset-after.test.org
src=$WORK/src
mnt=$WORK/mnt
for i in 1 2 3 4; do
  mkdir -p "$src/d$i"
  make_random_file "$src/d$i/f" 200000 "reset-after-$i"
done
publish_tree $fqrn "$src" data
apache_start "$CVMFS_ROOTDIR/srv"
# The first host is the same storage under another prefix, so that Apache's
# log tells which host a request came in for.
mkdir -p "$CVMFS_ROOTDIR/srv/first/cvmfs"
ln -s "$(repo_storage $fqrn)" "$CVMFS_ROOTDIR/srv/first/cvmfs/$fqrn"
good=$(host_url "$APACHE_URL" $fqrn)
toxiproxy_start
squid_start
host_gate=$(toxiproxy_create_proxy host-gate "$APACHE_PORT")
first=$(host_url "http://127.0.0.1:$host_gate/first" $fqrn)
proxy_gate=$(toxiproxy_create_proxy proxy-gate "$SQUID_PORT")
gate_proxy=http://127.0.0.1:$proxy_gate

now_ms() { date +%s%3N; }

# object_of N: the data object path of d<N>/f, as the client requests it.
object_of() {
  local hash
  hash=$(magic_xattr hash "$mnt/data/d$1/f") || fail "user.hash of d$1/f: $hash"
  echo "data/${hash:0:2}/${hash:2}"
}

read_file() { expect_same_content "$1" "$mnt/data/d$2/f" "$src/d$2/f"; }

# first_host_count N: Apache's 200s for d<N>'s object requested via first
# (over all cases: compare counts from before and after a read).
first_host_count() {
  apache_request_count "\"GET /first/cvmfs/$fqrn/$(object_of "$1") .* 200 "
}

# sleep_until MS: sleeps until the epoch time MS (milliseconds).
sleep_until() {
  local left=$(($1 - $(now_ms)))
  [ "$left" -le 0 ] || sleep "$(printf '%d.%03d' $((left / 1000)) $((left % 1000)))"
}

# --- hosts -----------------------------------------------------------------------
host_case() {
  local case=$1 reset=$2 started switched before n
  failover_config $fqrn "$case" "$first;$good" DIRECT "CVMFS_HOST_RESET_AFTER=$reset"
  mount_repo $fqrn "$mnt" "$CONFIG"
  before=$(first_host_count 1)
  read_file "$case, first host up" 1
  expect_xattr "$case, first host up" host "$mnt" "$first"
  [ "$(first_host_count 1)" -gt "$before" ] || check_failed "$case: d1 was not served via the first host"

  toxiproxy_set_enabled host-gate false
  started=$(now_ms)
  read_file "$case, first host down" 2
  switched=$(now_ms)
  expect_talk "$case, first host down" $fqrn "host info" "^Active host 1: $good\$"
  expect_failovers "$case" $fqrn 1
  toxiproxy_set_enabled host-gate true

  if [ "$reset" -gt 0 ]; then
    before=$(first_host_count 3)
    read_file "$case, within the interval" 3
    # The timer started during the failover read, not before `started`.
    if [ $(($(now_ms) - started)) -lt $((reset * 1000)) ]; then
      expect_talk "$case, within the interval" $fqrn "host info" "^Active host 1: $good\$"
      [ "$(first_host_count 3)" -eq "$before" ] ||
        check_failed "$case: d3 went to the first host before $reset s had passed"
    else
      note "$case: the machine was too slow to check a read within $reset s"
    fi
  fi

  sleep_until $((switched + (reset > 0 ? reset : 4) * 1000 + 500))
  before=$(first_host_count 4)
  read_file "$case, after the interval" 4
  n=$(($(first_host_count 4) - before))
  if [ "$reset" -gt 0 ]; then
    [ "$n" -ge 1 ] || check_failed "$case: d4 was not requested from the first host again"
    expect_talk "$case, after the interval" $fqrn "host info" "^Active host 0: $first\$"
    expect_xattr "$case, after the interval" host "$mnt" "$first"
  else
    [ "$n" -eq 0 ] || check_failed "$case: d4 went to the first host although resets are off"
    expect_talk "$case, after the interval" $fqrn "host info" "^Active host 1: $good\$"
    expect_xattr "$case, after the interval" host "$mnt" "$good"
  fi
  unmount_repo "$mnt"
}

host_case host-reset-4 4
host_case host-reset-0 0

# --- proxies ---------------------------------------------------------------------
# squid_count N: Squid's log lines for d<N>'s object (they arrive via the
# gate), over all cases.
squid_count() {
  squid_request_count "$SQUID_ACCESS_LOG" "\"GET $good/$(object_of "$1")\""
}

proxy_case() {
  local case=$1 reset=$2 switched before n
  failover_config $fqrn "$case" "$good" "$gate_proxy;DIRECT" "CVMFS_PROXY_RESET_AFTER=$reset"
  mount_repo $fqrn "$mnt" "$CONFIG"
  before=$(squid_count 1)
  read_file "$case, proxy up" 1
  expect_xattr "$case, proxy up" proxy "$mnt" "$gate_proxy"
  [ "$(squid_count 1)" -gt "$before" ] || check_failed "$case: d1 did not come through Squid"

  toxiproxy_set_enabled proxy-gate false
  read_file "$case, proxy down" 2
  switched=$(now_ms)
  expect_talk "$case, proxy down" $fqrn "proxy info" "^Active proxy: \[1\] DIRECT\$"
  toxiproxy_set_enabled proxy-gate true

  sleep_until $((switched + (reset > 0 ? reset : 4) * 1000 + 500))
  before=$(squid_count 3)
  read_file "$case, after the interval" 3
  n=$(($(squid_count 3) - before))
  if [ "$reset" -gt 0 ]; then
    [ "$n" -ge 1 ] || check_failed "$case: d3 did not come through Squid again"
    expect_talk "$case, after the interval" $fqrn "proxy info" "^Active proxy: \[0\] $gate_proxy\$"
    expect_xattr "$case, after the interval" proxy "$mnt" "$gate_proxy"
  else
    [ "$n" -eq 0 ] || check_failed "$case: d3 went through Squid although resets are off"
    expect_talk "$case, after the interval" $fqrn "proxy info" "^Active proxy: \[1\] DIRECT\$"
    expect_xattr "$case, after the interval" proxy "$mnt" DIRECT
  fi
  unmount_repo "$mnt"
}

proxy_case proxy-reset-3 3
proxy_case proxy-reset-0 0
finish
