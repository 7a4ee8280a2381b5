#!/usr/bin/env bash
# Benchmark (not a test): many clients behind one site Squid reading the
# same tree at the same time (issue 26: "the origin sees each object once
# however many clients read it at the same time"). N mounts of our client,
# each with its own cache, run a COLD `tar` of a Linux source subtree
# (default fs/, 2,078 files) at once through one Squid in front of Apache
# (Debian's stock MPM settings); Apache's access log then says how many
# requests reached the origin, against the number of distinct objects the
# clients needed.
#
#   test/bench/squid_herd.sh [--tree fs] [--clients 20] [--squid cvmfs|stock]
#                            [--bundles yes|no]
#
# --squid cvmfs (default): Squid as CVMFS's documentation sets up a site
# proxy (test/lib/squid.sh: a disk and memory cache, large objects,
# collapsed_forwarding on: "particularly important when there are a lot of
# worker nodes and jobs that start close together"). --squid stock:
# Debian's /etc/squid/squid.conf as shipped (memory cache only, no
# collapsed forwarding), changed only to run privately.
#
# Needs root, FUSE, apache2, squid and /usr/src/linux-source-6.1.tar.xz;
# uses $CVMFS_BIN_DIR (default build/bin). Prints the wall time of the
# slowest client, the origin's requests (all, and for distinct URLs), the
# Squid's hits and misses, and whether every client read every byte right.
set -euo pipefail
tree=fs
clients=20
squid_mode=cvmfs
bundles=yes
while [ $# -gt 0 ]; do
  case $1 in
    --tree) tree=$2; shift 2 ;;
    --clients) clients=$2; shift 2 ;;
    --squid) squid_mode=$2; shift 2 ;;
    --bundles) bundles=$2; shift 2 ;;
    *)
      echo "usage: $0 [--tree DIR] [--clients N] [--squid cvmfs|stock] [--bundles yes|no]" >&2
      exit 2
      ;;
  esac
done
case $squid_mode in cvmfs | stock) ;; *) echo "--squid cvmfs or stock" >&2; exit 2 ;; esac
cd "$(dirname "$0")/../.."
export CVMFS_BIN_DIR=${CVMFS_BIN_DIR:-$PWD/build/bin}
export CVMFS_SOURCE_DIR=$PWD
. test/lib/common.sh
. test/lib/apache.sh
. test/lib/client.sh
. test/lib/publish.sh
. test/lib/squid.sh
test_init squid_herd_bench 3600
require_root_and_fuse
require_cmds squid

fqrn=herd.bench.example.org
tar_xz=/usr/src/linux-source-6.1.tar.xz
[ -r "$tar_xz" ] || fail "$tar_xz is missing (Debian package linux-source-6.1)"
mkdir -p "$WORK/src"
xz -dc -T2 "$tar_xz" | tar -C "$WORK/src" -xf - --strip-components=1 \
  "linux-source-6.1/$tree"
publish_tree $fqrn "$WORK/src/$tree" "$tree"
APACHE_PROFILE=debian apache_start "$CVMFS_ROOTDIR/srv"

# The stock configuration, as the benchmark suite runs it (servers.sh).
start_stock_squid() {
  local dir=$WORK/squid-stock port
  port=$(free_port)
  mkdir -p "$dir"
  sed -e "s|^http_port .*|http_port 127.0.0.1:$port|" \
    -e "s|^coredump_dir .*|coredump_dir $dir|" /etc/squid/squid.conf >"$dir/squid.conf"
  cat >>"$dir/squid.conf" <<EOF
pid_filename $dir/squid.pid
access_log stdio:$dir/access.log
cache_log $dir/cache.log
cache_store_log none
netdb_filename none
EOF
  chown -R proxy:proxy "$dir"
  squid -N -f "$dir/squid.conf" </dev/null >"$dir/squid.out" 2>&1 &
  local pid=$!
  on_exit "kill -KILL $pid 2>/dev/null || true"
  wait_for 30 "the stock Squid on port $port" \
    curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/"
  SQUID_URL=http://127.0.0.1:$port
  SQUID_ACCESS_LOG=$dir/access.log
}
if [ "$squid_mode" = cvmfs ]; then squid_start herd; else start_stock_squid; fi

# The objects one client needs: its own cold run, straight to Apache.
key=$(repo_public_key $fqrn)
want=$(cd "$WORK/src" && find "$tree" -type f -print0 | sort -z | xargs -0 cat | sha256sum | cut -d' ' -f1)
one_conf=$WORK/one.conf
test_client_config "$one_conf" "$APACHE_URL/cvmfs/@fqrn@" "$key" CVMFS_DEBUGLOG= \
  CVMFS_BUNDLES=$bundles CVMFS_CACHE_BASE="$WORK/cache-one"
mount_repo $fqrn "$WORK/mnt-one" "$one_conf"
before=$(wc -l <"$APACHE_ACCESS_LOG")
tar cf - -C "$WORK/mnt-one/$tree" . | cat >/dev/null
one_requests=$(($(wc -l <"$APACHE_ACCESS_LOG") - before))
unmount_repo "$WORK/mnt-one"

for i in $(seq "$clients"); do
  test_client_config "$WORK/client-$i.conf" "$APACHE_URL/cvmfs/@fqrn@" "$key" \
    CVMFS_DEBUGLOG= CVMFS_BUNDLES=$bundles CVMFS_HTTP_PROXY="$SQUID_URL" \
    CVMFS_CACHE_BASE="$WORK/cache-$i"
  mount_repo $fqrn "$WORK/mnt-$i" "$WORK/client-$i.conf"
done
sync
echo 3 >/proc/sys/vm/drop_caches
origin_before=$(wc -l <"$APACHE_ACCESS_LOG")
squid_before=$(wc -l <"$SQUID_ACCESS_LOG")
start=$(date +%s.%N)
pids=()
for i in $(seq "$clients"); do
  (cd "$WORK/mnt-$i" && find "$tree" -type f -print0 | sort -z | xargs -0 cat |
    sha256sum | cut -d' ' -f1 >"$WORK/sum-$i") &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
end=$(date +%s.%N)
sleep 1  # Apache logs a request after its response went out
right=0
for i in $(seq "$clients"); do [ "$(cat "$WORK/sum-$i")" != "$want" ] || right=$((right + 1)); done
tail -n +"$((origin_before + 1))" "$APACHE_ACCESS_LOG" >"$WORK/origin.log"
origin=$(wc -l <"$WORK/origin.log")
distinct=$(awk -F'"' '{ split($2, r, " "); print r[2] }' "$WORK/origin.log" | sort -u | wc -l)
tail -n +"$((squid_before + 1))" "$SQUID_ACCESS_LOG" >"$WORK/squid.log"
hits=$(grep -c 'HIT/' "$WORK/squid.log" || true)
misses=$(grep -c 'MISS/' "$WORK/squid.log" || true)
echo "squid=$squid_mode bundles=$bundles clients=$clients tree=$tree" \
  "seconds=$(echo "$end - $start" | bc)" \
  "origin_requests=$origin distinct_urls=$distinct one_client_alone=$one_requests" \
  "squid_hits=$hits squid_misses=$misses clients_right=$right/$clients"
for i in $(seq "$clients"); do unmount_repo "$WORK/mnt-$i"; done
[ "$right" -eq "$clients" ] || fail "$((clients - right)) client(s) read wrong data"
finish
