#!/usr/bin/env bash
# Benchmark (not a test): COLD tar of a Linux source subtree (default fs/,
# about 2,000 files) with bundles on and off, through toxiproxy at added
# latencies, with at most 16 connections per client (doc/client.md,
# "Bundles"; issue 25's target: +50 ms <= 4x the +0 ms time).
#
#   test/bench/bundles_linux.sh [--tree fs] [--latencies "0 10 50"] [--reps N]
#
# Needs root, FUSE, apache2, toxiproxy-server and
# /usr/src/linux-source-6.1.tar.xz; uses $CVMFS_BIN_DIR (default build/bin).
# Prints one line per case: latency, bundles, seconds (median of N),
# requests logged by Apache.
set -euo pipefail
tree=fs
latencies="0 10 50"
reps=1
while [ $# -gt 0 ]; do
  case $1 in
    --tree) tree=$2; shift 2 ;;
    --latencies) latencies=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    *) echo "usage: $0 [--tree DIR] [--latencies \"0 10 50\"] [--reps N]" >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")/../.."
export CVMFS_BIN_DIR=${CVMFS_BIN_DIR:-$PWD/build/bin}
export CVMFS_SOURCE_DIR=$PWD
. test/lib/common.sh
. test/lib/apache.sh
. test/lib/client.sh
. test/lib/publish.sh
. test/lib/toxiproxy.sh
test_init bundles_linux_bench 3600
require_root_and_fuse

fqrn=bundles.bench.example.org
tar_xz=/usr/src/linux-source-6.1.tar.xz
[ -r "$tar_xz" ] || fail "$tar_xz is missing (Debian package linux-source-6.1)"
mkdir -p "$WORK/src"
xz -dc -T2 "$tar_xz" | tar -C "$WORK/src" -xf - --strip-components=1 \
  "linux-source-6.1/$tree"
publish_tree $fqrn "$WORK/src/$tree" "$tree"
note "$(find "$WORK/src/$tree" -type f | wc -l) files," \
  "$(find "$(repo_storage $fqrn)/data" -name '*B' | wc -l) bundles"
apache_start "$CVMFS_ROOTDIR/srv"
toxiproxy_start
port=$(toxiproxy_create_proxy apache "$APACHE_PORT")

mnt=$WORK/mnt
conf=$WORK/client.conf
cache=$(cache_dir_of $fqrn)
toxic=no
for ms in $latencies; do
  [ $toxic = no ] || toxiproxy_remove_toxic apache latency
  toxic=no
  if [ "$ms" -ne 0 ]; then
    toxic_latency apache "$ms"
    toxic=yes
  fi
  for bundles in yes no; do
    times=()
    for _ in $(seq "$reps"); do
      test_client_config "$conf" "http://127.0.0.1:$port/cvmfs/@fqrn@" \
        "$(repo_public_key $fqrn)" CVMFS_DEBUGLOG= CVMFS_BUNDLES=$bundles \
        CVMFS_MAX_CONNECTIONS=16 CVMFS_PREFETCH_PARALLEL=8
      rm -rf "$cache"
      mount_repo $fqrn "$mnt" "$conf"
      sync
      echo 3 >/proc/sys/vm/drop_caches
      before=$(wc -l <"$APACHE_ACCESS_LOG")
      start=$(date +%s.%N)
      tar cf - -C "$mnt/$tree" . | cat >/dev/null
      end=$(date +%s.%N)
      requests=$(($(wc -l <"$APACHE_ACCESS_LOG") - before))
      # The counters of the last run of each case, for a closer look.
      "$BIN/cvmfs_talk" -p "$cache/cvmfs_io.$fqrn" internal affairs \
        >"$WORK/affairs-$ms-$bundles" 2>&1 || true
      unmount_repo "$mnt"
      times+=("$(echo "$end - $start" | bc)")
    done
    median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((reps + 1) / 2))p")
    echo "latency=${ms}ms bundles=$bundles seconds=$median requests=$requests (runs: ${times[*]})"
    # BENCH_VERBOSE=1: the bundle and prefetch counters of the last run.
    [ -z "${BENCH_VERBOSE:-}" ] ||
      grep -E '^(fetch\.n_bundle|prefetch\.)' "$WORK/affairs-$ms-$bundles" | cut -d'|' -f1,2 | tr '\n' ' '
    [ -z "${BENCH_VERBOSE:-}" ] || echo
  done
done
finish
