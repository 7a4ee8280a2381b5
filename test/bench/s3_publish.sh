#!/usr/bin/env bash
# Benchmark (not a test): publish throughput to S3 (SeaweedFS on 127.0.0.1,
# test/lib/s3.sh) against local storage in the same run: the same tarball
# (the Linux fs/ tree, or DIR) ingested into a local and an S3 repository;
# prints wall time, MB/s and files/s of each.
#   test/bench/s3_publish.sh [build dir] [DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
packaging/install-deps.sh --bench --s3
cmake --build "$build" -j2 >/dev/null
export CVMFS_BIN_DIR=$PWD/$build/bin CVMFS_SOURCE_DIR=$PWD
. test/lib/common.sh
. test/lib/s3.sh
test_init s3_publish_bench 3600
src=${2:-}
if [ -z "$src" ]; then
  tar -C "$WORK" -xJf /usr/src/linux-source-6.1.tar.xz linux-source-6.1/fs
  src=$WORK/linux-source-6.1/fs
fi
tar -C "$src" -cf "$WORK/in.tar" .
files=$(tar -tf "$WORK/in.tar" | grep -vc '/$')
mb=$(( $(stat -c %s "$WORK/in.tar") / 1048576 ))
start_s3 bench
write_s3_config "$WORK/s3.conf" bench CVMFS_S3_MAX_NUMBER_OF_PARALLEL_CONNECTIONS=64
srv=$BIN/cvmfs_server
export CVMFS_SERVER_NO_MOUNT=1
"$srv" mkfs local.bench.org >/dev/null
"$srv" mkfs -s "$WORK/s3.conf" -w "$S3_URL/bench" s3.bench.org >/dev/null
echo "input: $mb MB tarball, $files files, $(nproc) cores"
for repo in local.bench.org s3.bench.org; do
  t0=$(date +%s.%N)
  "$srv" ingest -t "$WORK/in.tar" -b tree "$repo" >/dev/null
  t1=$(date +%s.%N)
  python3 -c "t=$t1-$t0; print('$repo: %.1f s, %.1f MB/s, %.0f files/s' % (t, $mb/t, $files/t))"
done
finish
