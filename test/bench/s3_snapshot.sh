#!/usr/bin/env bash
# Benchmark (not a test): snapshot throughput of a Stratum 1 on S3
# (SeaweedFS on 127.0.0.1, test/lib/s3.sh) against a Stratum 1 on local
# storage in the same run: one Stratum 0 (the Linux fs/ tree, or DIR,
# ingested; served by Apache) replicated into a local replica and into an S3
# replica (add-replica -s); prints wall time, MB/s and objects/s of each
# first snapshot.
#   test/bench/s3_snapshot.sh [build dir] [DIR]
# CVMFS_BENCH_NO_BUILD=1 skips installing dependencies and building;
# CVMFS_BENCH_WORKERS=N sets CVMFS_NUM_WORKERS of both replicas (default 16).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
if [ "${CVMFS_BENCH_NO_BUILD:-0}" != 1 ]; then
  packaging/install-deps.sh --bench --s3
  cmake --build "$build" -j2 >/dev/null
fi
export CVMFS_BIN_DIR=$PWD/$build/bin CVMFS_SOURCE_DIR=$PWD
. test/lib/common.sh
. test/lib/apache.sh
. test/lib/publish.sh
. test/lib/s3.sh
test_init s3_snapshot_bench 3600
src=${2:-}
if [ -z "$src" ]; then
  tar -C "$WORK" -xJf /usr/src/linux-source-6.1.tar.xz linux-source-6.1/fs
  src=$WORK/linux-source-6.1/fs
fi
fqrn=snap.bench.org
publish_tree $fqrn "$src" tree
apache_start "$CVMFS_ROOTDIR/srv"
s0_url=$APACHE_URL/cvmfs/$fqrn
key=$(repo_public_key $fqrn)
start_s3 bench
write_s3_config "$WORK/s3.conf" bench CVMFS_S3_MAX_NUMBER_OF_PARALLEL_CONNECTIONS=64
echo "source: $(find "$src" -type f | wc -l) files, $(du -sm "$src" | cut -f1) MB, $(nproc) cores"
for kind in local s3; do
  root=$WORK/s1-$kind
  opts=()
  [ $kind = local ] || opts=(-s "$WORK/s3.conf" -w "$S3_URL/bench")
  CVMFS_ROOTDIR=$root "$BIN/cvmfs_server" add-replica "${opts[@]}" -o root \
    "$s0_url" "$key" >/dev/null
  [ -z "${CVMFS_BENCH_WORKERS:-}" ] ||
    echo "CVMFS_NUM_WORKERS=$CVMFS_BENCH_WORKERS" \
      >>"$root/etc/cvmfs/repositories.d/$fqrn/server.conf"
  CVMFS_ROOTDIR=$root "$BIN/cvmfs_server" snapshot $fqrn >"$WORK/snap-$kind.log" 2>&1 ||
    fail "snapshot ($kind) failed: $(cat "$WORK/snap-$kind.log")"
  echo "$kind: $(grep '^copied' "$WORK/snap-$kind.log")"
done
finish
