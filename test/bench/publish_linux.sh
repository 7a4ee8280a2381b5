#!/usr/bin/env bash
# Benchmark (not a test): publishes the Linux 6.1 source tree (Debian package
# linux-source-6.1, ~78,000 files, ~1.4 GB) with cvmfs_server ingest into a
# fresh repository, then ingests the same tarball again, and reports MB/s,
# files/s and peak RSS for both runs.
#   test/bench/publish_linux.sh [build dir]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
packaging/install-deps.sh --bench
cmake --build "$build" -j2 >/dev/null
work=$(mktemp -d /var/tmp/cvmfs-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
tar_xz=/usr/src/linux-source-6.1.tar.xz
tarball=$work/linux.tar
echo "decompressing $tar_xz (not timed)"
xz -dc -T2 "$tar_xz" > "$tarball"
export CVMFS_ROOTDIR=$work/root
srv="$PWD/$build/bin/cvmfs_server"
"$srv" mkfs bench.example.org >/dev/null
files=$(tar -tf "$tarball" | grep -vc '/$')
echo "input: $(du -m "$tarball" | cut -f1) MB tarball, $files files, $(nproc) cores"
for run in first repeat; do
  /usr/bin/time -f "%e s wall, %M KB peak RSS (time)" -o "$work/time" \
    "$srv" ingest -t "$tarball" -b linux bench.example.org > "$work/out"
  echo "== $run publish"
  cat "$work/out" "$work/time"
done
"$srv" check bench.example.org | tail -1
