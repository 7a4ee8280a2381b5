#!/usr/bin/env bash
# Benchmark (not a test): the client over the Linux 6.1 source tree (Debian
# package linux-source-6.1, ~78,000 files) against the same files on local
# disk, measured in the same run.
#
#   test/bench/client_linux.sh [--reps N]
#
# Cache states (as in the FS-Cache benchmarks):
#   LOCAL-cold  the extracted tree, page cache dropped      LOCAL-warm  again
#   COLD        empty client cache, fresh mount, page cache dropped
#   HOT         client cache full, page cache dropped, fresh mount
#   PGCACHE     the HOT mount again (kernel caches warm)
# Workloads: tar (tar cf - DIR | cat >/dev/null; GNU tar skips reading files
# when writing to /dev/null), find (find DIR -printf ...), ls (ls -lR DIR,
# which also asks for extended attributes). Apache on 127.0.0.1 serves the
# repository; its access log gives the HTTP requests of every run.
# Prints a Markdown table (median, min, max over N repetitions; ratios
# against LOCAL-cold for HOT/COLD and LOCAL-warm for PGCACHE).
set -euo pipefail
reps=3
[ "${1:-}" = "--reps" ] && reps=$2
cd "$(dirname "$0")/../.."
src=$PWD
packaging/install-deps.sh --bench --integration >/dev/null
cmake -S . -B build -G Ninja >/dev/null
cmake --build build -j2 >/dev/null
export CVMFS_BIN_DIR=$src/build/bin
. test/lib/common.sh
. test/lib/apache.sh
. test/lib/client.sh
. test/lib/publish.sh
test_init client_linux_bench 7200

fqrn=linux.bench.example.org
tar_xz=/usr/src/linux-source-6.1.tar.xz
note "extracting $tar_xz (not timed)"
mkdir -p "$WORK/local"
xz -dc -T2 "$tar_xz" >"$WORK/linux.tar"
tar -C "$WORK/local" -xf "$WORK/linux.tar"
"$BIN/cvmfs_server" mkfs "$fqrn" >/dev/null
"$BIN/cvmfs_server" ingest -t "$WORK/linux.tar" -b / "$fqrn" >/dev/null
rm -f "$WORK/linux.tar"
tree=linux-source-6.1
nfiles=$(find "$WORK/local/$tree" -type f | wc -l)

apache_start "$CVMFS_ROOTDIR/srv"
conf=$WORK/client.conf
test_client_config "$conf" "$APACHE_URL/cvmfs/@fqrn@" "$(repo_public_key "$fqrn")" \
  CVMFS_QUOTA_LIMIT=8000 CVMFS_DEBUGLOG=
mnt=$WORK/mnt

drop_caches() { sync; echo 3 >/proc/sys/vm/drop_caches; }
workload() {  # workload NAME DIR
  case $1 in
    tar) tar cf - -C "$2" . | cat >/dev/null ;;
    find) find "$2" -printf '%p %s %m %T@ %u\n' >/dev/null ;;
    ls) ls -lR "$2" >/dev/null ;;
  esac
}
declare -A T R
timed() {  # timed KEY NAME DIR: appends seconds to T[KEY], requests to R[KEY]
  local before after start end
  before=$(apache_request_count)
  start=$(date +%s.%N)
  workload "$2" "$3"
  end=$(date +%s.%N)
  after=$(apache_request_count)
  T[$1]+="$(echo "$end - $start" | bc) "
  R[$1]+="$((after - before)) "
}
fresh_mount() { unmount_repo "$mnt" || true; drop_caches; mount_repo "$fqrn" "$mnt" "$conf"; }

# COLD: every run starts from an empty cache. tar goes last, so that its
# final run leaves the cache holding the whole tree for the HOT runs.
for w in find ls tar; do
  for rep in $(seq "$reps"); do
    drop_caches; timed "LOCAL-cold/$w" "$w" "$WORK/local/$tree"
    timed "LOCAL-warm/$w" "$w" "$WORK/local/$tree"
    unmount_repo "$mnt" || true
    rm -rf "$(cache_dir_of "$fqrn")"
    fresh_mount; timed "COLD/$w" "$w" "$mnt/$tree"
  done
done
# HOT and PGCACHE with the cache fully populated by the COLD tar runs.
for w in tar find ls; do
  for rep in $(seq "$reps"); do
    fresh_mount; timed "HOT/$w" "$w" "$mnt/$tree"
    timed "PGCACHE/$w" "$w" "$mnt/$tree"
  done
done
unmount_repo "$mnt"

stats() {  # median min max of the numbers in $1
  echo "$1" | tr ' ' '\n' | grep -v '^$' | sort -g |
    awk '{a[NR]=$1} END {printf "%.2f %.2f %.2f", a[int((NR+1)/2)], a[1], a[NR]}'
}
echo
echo "Linux 6.1 tree: $nfiles files; $(nproc) cores; $reps repetitions (COLD: as listed)"
echo
echo "| workload | state | median s | min s | max s | vs local | HTTP requests (per run) |"
echo "|---|---|---|---|---|---|---|"
for w in tar find ls; do
  read -r lc _ _ <<<"$(stats "${T[LOCAL-cold/$w]}")"
  read -r lw _ _ <<<"$(stats "${T[LOCAL-warm/$w]}")"
  for s in LOCAL-cold LOCAL-warm COLD HOT PGCACHE; do
    key="$s/$w"
    [ -n "${T[$key]:-}" ] || continue
    read -r med min max <<<"$(stats "${T[$key]}")"
    case $s in
      PGCACHE) ratio=$(echo "scale=2; $med / $lw" | bc) ;;
      LOCAL-*) ratio=- ;;
      *) ratio=$(echo "scale=2; $med / $lc" | bc) ;;
    esac
    reqs="-"
    [[ $s == LOCAL-* ]] || reqs=$(echo "${R[$key]}" | xargs)
    echo "| $w | $s | $med | $min | $max | ${ratio}x | $reqs |"
  done
done
pass "benchmark done"
