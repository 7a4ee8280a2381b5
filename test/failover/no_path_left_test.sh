#!/usr/bin/env bash
# No path left: two hosts (each behind its own toxiproxy in front of
# Apache), reached directly and, in a second mount, through Squid. Once both
# hosts refuse connections:
#   - an uncached file gives EIO (not ENOENT) in bounded time;
#   - a path inside a nested catalog that was never loaded gives EIO on
#     lookup, not ENOENT: an I/O error is never cached as "not found";
#   - cached files, their metadata and listed directories keep working;
# and once the hosts are back, the very same paths read correctly on the
# same mount (nothing negative was remembered).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib_failover.sh"

test_init no_path_left 500
require_bins cvmfs_server cvmfs2

fqrn=no-path.test.org
src=$WORK/src
mnt=$WORK/mnt
# The cold files are never read while the hosts are up: each alone in its
# directory, so that the sibling prefetch of a file that is read cannot
# fetch it.
mkdir -p "$src/dir" "$src/cold1" "$src/cold2" "$src/nested/deeper"
make_random_file "$src/cached.bin" 300000 no-path-cached
make_random_file "$src/cold1/uncached.bin" 300000 no-path-uncached
echo "never read while the hosts are up" >"$src/cold2/small.txt"
for i in 1 2 3; do echo "small file $i" >"$src/dir/f$i.txt"; done
: >"$src/nested/.cvmfscatalog"
echo "behind a nested catalog" >"$src/nested/deeper/inner.txt"
publish_tree $fqrn "$src" data
apache_start "$CVMFS_ROOTDIR/srv"
toxiproxy_start
squid_start
port1=$(toxiproxy_create_proxy host1 "$APACHE_PORT")
port2=$(toxiproxy_create_proxy host2 "$APACHE_PORT")
hosts="http://127.0.0.1:$port1/cvmfs/@fqrn@;http://127.0.0.1:$port2/cvmfs/@fqrn@"

set_hosts_enabled() {
  toxiproxy_set_enabled host1 "$1"
  toxiproxy_set_enabled host2 "$1"
}

# run_case CASE PROXY
run_case() {
  local case=$1 proxy=$2 start elapsed f
  failover_config $fqrn "$case" "$hosts" "$proxy"
  mount_repo $fqrn "$mnt" "$CONFIG"
  expect_same_content "$case, hosts up" "$mnt/data/cached.bin" "$src/cached.bin"
  expect_eq "$case, hosts up: listing of dir/" "f1.txt f2.txt f3.txt" "$(ls "$mnt/data/dir" 2>&1 | xargs)"
  expect_same_content "$case, hosts up" "$mnt/data/dir/f1.txt" "$src/dir/f1.txt"

  set_hosts_enabled false
  note "$case: both hosts refuse connections"
  start=$SECONDS
  expect_read_error "$mnt/data/cold1/uncached.bin" "Input/output error"
  elapsed=$((SECONDS - start))
  note "$case: EIO after $elapsed s"
  [ "$elapsed" -le 30 ] || check_failed "$case: the failing read took $elapsed s"
  # stat and cat of a path below the nested catalog: the catalog cannot be
  # loaded, which is an I/O error, not a missing entry.
  expect_read_error "$mnt/data/nested/deeper/inner.txt" "Input/output error"
  local err
  err=$(stat "$mnt/data/nested/deeper" 2>&1 >/dev/null) &&
    check_failed "$case: stat below the unloadable nested catalog succeeded"
  [[ "$err" == *"Input/output error"* ]] ||
    check_failed "$case: stat below the unloadable nested catalog: expected EIO, got: $err"
  expect_same_content "$case, hosts down" "$mnt/data/cached.bin" "$src/cached.bin"
  expect_same_content "$case, hosts down" "$mnt/data/dir/f1.txt" "$src/dir/f1.txt"
  expect_eq "$case, hosts down: size of cold1/uncached.bin" "$(stat -c %s "$src/cold1/uncached.bin")" \
    "$(stat -c %s "$mnt/data/cold1/uncached.bin" 2>&1)"
  expect_eq "$case, hosts down: listing of dir/" "f1.txt f2.txt f3.txt" "$(ls "$mnt/data/dir" 2>&1 | xargs)"
  expect_read_error "$mnt/data/cold2/small.txt" "Input/output error"
  expect_talk "$case, hosts down" $fqrn "host info" "^Active host [01]: "

  set_hosts_enabled true
  note "$case: hosts back"
  for f in cold1/uncached.bin nested/deeper/inner.txt cold2/small.txt; do
    expect_same_content "$case, hosts back (same mount, same path)" "$mnt/data/$f" "$src/$f"
  done
  unmount_repo "$mnt"
}

run_case direct DIRECT
run_case squid "$SQUID_URL"
finish
