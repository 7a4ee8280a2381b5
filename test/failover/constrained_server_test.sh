#!/usr/bin/env bash
# A constrained server: python's http.server (HTTP/1.0, one connection per
# request, listen backlog 5, test/lib/small_server.py) serves a small
# repository; a cold `tar` of a few hundred files through a fresh mount,
# with prefetch on, must
#   - never hold more connections to it than CVMFS_MAX_CONNECTIONS (16 by
#     default, as CVMFS; then 4): `ss` sampled while tar runs (established
#     or SYN sent), and the client's own download.n_connections_peak;
#   - read every byte as published.
# No timing assertion: a flood of connections shows as dropped SYNs (1 s
# each) and a peak above the limit, not as a failed read.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib_failover.sh"

test_init constrained_server 240
require_bins cvmfs_server cvmfs2
require_cmds ss

fqrn=constrained.test.org
src=$WORK/src
mnt=$WORK/mnt
mkdir -p "$src" "$mnt"
# 400 files of 1-12 KB in 5 directories (deterministic content); large
# directories, so that prefetch has much to fetch at once.
python3 - "$src" <<'PY'
import os, random, sys
rng = random.Random(25)
for d in range(5):
    path = os.path.join(sys.argv[1], f"dir{d:02d}")
    os.makedirs(path)
    for f in range(80):
        with open(os.path.join(path, f"f{f:02d}.txt"), "wb") as out:
            out.write(rng.randbytes(rng.randint(1000, 12000)))
PY
publish_tree $fqrn "$src" data

"$FAILOVER_DIR/../lib/small_server.py" "$CVMFS_ROOTDIR/srv" "$WORK/small.port" &
server_pid=$!
on_exit "kill $server_pid 2>/dev/null || true"
wait_for 10 "the small server" test -s "$WORK/small.port"
port=$(cat "$WORK/small.port")
url="http://127.0.0.1:$port/cvmfs/@fqrn@"

# The client's connections to the server now: established or still
# waiting for the server to take them (SYN sent; a full accept queue drops
# them, so established ones alone never show more than the server's room).
connections() {
  ss -tnH state established state syn-sent "( dport = :$port )" | wc -l
}

# cold_tar CASE MAX [KEY=VALUE...]: mounts with a fresh cache, tars data/
# while sampling `ss`, checks the peak and every byte, unmounts.
cold_tar() {
  local case=$1 max=$2 peak=0 n sampler_stop=$WORK/$1.stop
  shift 2
  failover_config $fqrn "$case" "$url" DIRECT "CVMFS_PREFETCH=yes" "$@"
  mount_repo $fqrn "$mnt" "$CONFIG"
  (
    trap - EXIT ERR
    while [ ! -e "$sampler_stop" ]; do
      n=$(connections)
      [ "$n" -le "$peak" ] || peak=$n
      sleep 0.01
    done
    echo "$peak" >"$WORK/$case.peak"
  ) &
  local sampler=$!
  rm -rf "$WORK/out-$case"
  mkdir -p "$WORK/out-$case"
  tar -C "$mnt/data" -cf - . | tar -C "$WORK/out-$case" -xf -
  touch "$sampler_stop"
  wait "$sampler"
  peak=$(cat "$WORK/$case.peak")
  note "$case: peak $peak connections (ss: established or SYN sent), limit $max"
  [ "$peak" -le "$max" ] ||
    check_failed "$case: $peak connections to the server at once, more than $max"
  if talk_available; then
    local own limit
    own=$(talk_counter $fqrn download.n_connections_peak)
    limit=$(talk_counter $fqrn download.n_connection_limit)
    note "$case: client's peak $own, limit now $limit"
    [ -n "$own" ] && [ "$own" -ge 1 ] && [ "$own" -le "$max" ] ||
      check_failed "$case: download.n_connections_peak is '$own', expected 1..$max"
  fi
  diff -r "$src" "$WORK/out-$case" >"$WORK/$case.diff" ||
    check_failed "$case: the tree read differs from the source: $(head -5 "$WORK/$case.diff")"
  unmount_repo "$mnt"
}

cold_tar default 16
cold_tar four 4 CVMFS_MAX_CONNECTIONS=4 CVMFS_PREFETCH_PARALLEL=2

finish
