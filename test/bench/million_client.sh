#!/usr/bin/env bash
# Benchmark (not a test): the client's memory and speed over a repository of
# many small files (issue 26), beside the real CVMFS 2.12 client in the same
# run.
#
#   test/bench/million_client.sh [--files N] [--per-dir M] [--reads R]
#                                [--keep-caches]
#
# Defaults: 1,000,000 files, 100 per directory (10,000 directories) under 10
# top-level groups, each a nested catalog (.cvmfsdirtab "/g*"); 10,000 reads.
# The tree is generated as a tarball and published with `cvmfs_server
# ingest`; Apache on 127.0.0.1 serves it. For each client (ours, real):
#   find, ls -lR on a fresh mount (page cache dropped): seconds, and the
#   daemon's VmRSS / VmHWM (/proc/PID/status) after each;
#   R random reads of already cached files (hot: the cache filled by a
#   first pass) with CVMFS_PREFETCH on and off (ours only).
# `find` over the same tree on local disk gives the reference time.
# --keep-caches: no `echo 3 >/proc/sys/vm/drop_caches` before each walk
# (it empties the page and dentry caches of the whole machine: not while
# another benchmark runs); each mount is fresh either way.
# Ours also reports the inodes it holds after each walk (cvmfs_talk
# `internal affairs`, inode_tracker.n_known).
# Prints a Markdown table and the load average before and after.
set -euo pipefail
files=1000000 per_dir=100 reads=10000 keep_caches=
while [ $# -gt 0 ]; do
  case $1 in
    --files) files=$2; shift 2 ;;
    --per-dir) per_dir=$2; shift 2 ;;
    --reads) reads=$2; shift 2 ;;
    --keep-caches) keep_caches=1; shift ;;
    *) echo "usage: $0 [--files N] [--per-dir M] [--reads R] [--keep-caches]" >&2; exit 2 ;;
  esac
done
[[ $files =~ ^[1-9][0-9]*$ && $per_dir =~ ^[1-9][0-9]*$ && $reads =~ ^[0-9]+$ ]] || {
  echo "$0: --files, --per-dir and --reads take positive integers" >&2
  exit 2
}
cd "$(dirname "$0")/../.."
src=$PWD
. test/lib/common.sh
. test/lib/apache.sh
. test/lib/client.sh
. test/lib/publish.sh
. test/lib/real_cvmfs.sh
real_cvmfs_private_etc "$@"
export CVMFS_BIN_DIR=${CVMFS_BIN_DIR:-$src/build/bin}
test_init million_client_bench 14400
require_root_and_fuse
real_cvmfs_init
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

fqrn=million.bench.example.org
dirs=$(((files + per_dir - 1) / per_dir))
note "generating $files files in $dirs directories (not timed)"
mkdir -p "$WORK/local"
python3 - "$WORK/tree.tar" "$WORK/local" "$files" "$per_dir" <<'EOF'
import io, os, sys, tarfile
out, local, files, per_dir = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
dirs = (files + per_dir - 1) // per_dir
groups = 10
with tarfile.open(out, "w", format=tarfile.PAX_FORMAT) as tar:
    def add(name, data=None):
        info = tarfile.TarInfo(name)
        info.mtime = 1700000000
        if data is None:
            info.type, info.mode = tarfile.DIRTYPE, 0o755
            tar.addfile(info)
            os.makedirs(os.path.join(local, name), exist_ok=True)
        else:
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
            with open(os.path.join(local, name), "wb") as f:
                f.write(data)
    add(".cvmfsdirtab", b"/g*\n")
    n = 0
    for g in range(groups):
        add(f"g{g}")
    for d in range(dirs):
        dname = f"g{d % groups}/d{d}"
        add(dname)
        for i in range(min(per_dir, files - n)):
            add(f"{dname}/f{i}", f"file {n}\n".encode())
            n += 1
EOF
CVMFS_SERVER_NO_MOUNT=1 "$BIN/cvmfs_server" mkfs "$fqrn" >"$WORK/mkfs.log" 2>&1 ||
  fail "mkfs failed: $(cat "$WORK/mkfs.log")"
start=$(date +%s.%N)
"$BIN/cvmfs_server" ingest -t "$WORK/tree.tar" -b / "$fqrn" >"$WORK/ingest.log" 2>&1 ||
  fail "ingest failed: $(cat "$WORK/ingest.log")"
note "ingest: $(echo "$(date +%s.%N) - $start" | bc) s"
rm -f "$WORK/tree.tar"

apache_start "$CVMFS_ROOTDIR/srv"
url="$APACHE_URL/cvmfs/@fqrn@"
key=$(repo_public_key "$fqrn")
ours_conf=$WORK/ours.conf real_conf=$WORK/real.conf
test_client_config "$ours_conf" "$url" "$key" CVMFS_QUOTA_LIMIT=8000 CVMFS_DEBUGLOG=
real_client_config "$real_conf" "$url" "$key" CVMFS_QUOTA_LIMIT=8000 CVMFS_DEBUGLOG=
mnt=$WORK/mnt

drop_caches() {
  [ -n "$keep_caches" ] || { sync; echo 3 >/proc/sys/vm/drop_caches; }
}
secs() { echo "$(date +%s.%N) - $1" | bc; }
mem() {  # mem PID: "VmRSS/VmHWM" in MB
  awk '/^VmRSS/ { r = $2 } /^VmHWM/ { h = $2 } END { printf "%d/%d", r / 1024, h / 1024 }' \
    "/proc/$1/status"
}
declare -A T M
known_inodes() {
  "$BIN/cvmfs_talk" -p "$WORK/cache/$fqrn/cvmfs_io.$fqrn" internal affairs |
    awk -F'[ |]+' '/inode_tracker.n_known/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) { print $i; exit } }'
}
pid_of() { getfattr --absolute-names --only-values -n user.pid "$1"; }
mount_client() {  # mount_client ours|real [KEY=VALUE...]
  local who=$1 conf
  shift
  conf=$WORK/$who.conf
  if [ $# -gt 0 ]; then
    conf=$WORK/$who-extra.conf
    cp "$WORK/$who.conf" "$conf"
    printf '%s\n' "$@" >>"$conf"
  fi
  drop_caches
  if [ "$who" = ours ]; then mount_repo "$fqrn" "$mnt" "$conf"; else real_mount "$fqrn" "$mnt" "$conf"; fi
}
umount_client() {
  if [ "$1" = ours ]; then unmount_repo "$mnt"; else real_unmount "$mnt"; fi
}
start=$(date +%s.%N)
find "$WORK/local" -printf '%p %s\n' >/dev/null
T[local/find-hot]=$(secs "$start")
drop_caches
start=$(date +%s.%N)
find "$WORK/local" -printf '%p %s\n' >/dev/null
T[local/find]=$(secs "$start")

for who in ours real; do
  for w in find ls; do
    mount_client "$who"
    pid=$(pid_of "$mnt")
    M[$who/mount]=$(mem "$pid")
    start=$(date +%s.%N)
    case $w in
      find) find "$mnt" -printf '%p %s\n' >/dev/null ;;
      ls) ls -lR "$mnt" >/dev/null ;;
    esac
    T[$who/$w]=$(secs "$start")
    M[$who/$w]=$(mem "$pid")
    [ "$who" = real ] || M[$who/$w]+=" ($(known_inodes) inodes)"
    # The same walk again on the warm mount.
    start=$(date +%s.%N)
    find "$mnt" -printf '%p %s\n' >/dev/null
    T[$who/$w-again]=$(secs "$start")
    M[$who/$w-again]=$(mem "$pid")
    umount_client "$who"
  done
done

# Hot random reads: a first pass fills the cache, then R reads of random
# files on a fresh mount, prefetch on and off.
if [ "$reads" -gt 0 ]; then
  python3 -c "
import random, sys
random.seed(26)
files, per_dir, groups = $files, $per_dir, 10
for _ in range($reads):
    n = random.randrange(files)
    d = n // per_dir
    print(f'g{d % groups}/d{d}/f{n % per_dir}')
" >"$WORK/reads.txt"
  mount_client ours
  (cd "$mnt" && xargs cat <"$WORK/reads.txt" >/dev/null)
  umount_client ours
  for p in yes no; do
    mount_client ours "CVMFS_PREFETCH=$p"
    pid=$(pid_of "$mnt")
    before=$(apache_request_count)
    start=$(date +%s.%N)
    (cd "$mnt" && while read -r f; do cat "$f"; done <"$WORK/reads.txt" >/dev/null)
    T[ours/reads-prefetch-$p]=$(secs "$start")
    M[ours/reads-prefetch-$p]=$(mem "$pid")
    M[ours/reads-prefetch-$p]+=" ($(($(apache_request_count) - before)) HTTP requests)"
    umount_client ours
  done
fi

echo
echo "$files files in $dirs directories; $(nproc) cores; load average before" \
  "$load_before, after $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| client | workload | seconds | vs local find | RSS/HWM MB after |"
echo "|---|---|---|---|---|"
echo "| local | find (cold / warm) | ${T[local/find]} / ${T[local/find-hot]} | 1x | - |"
for key in ours/find ours/find-again ours/ls ours/ls-again real/find real/find-again \
  real/ls real/ls-again ours/reads-prefetch-yes ours/reads-prefetch-no; do
  [ -n "${T[$key]:-}" ] || continue
  ratio=$(echo "scale=2; ${T[$key]} / ${T[local/find]}" | bc)
  echo "| ${key%%/*} | ${key#*/} | ${T[$key]} | ${ratio}x | ${M[$key]} |"
done
echo "(RSS/HWM right after mounting: ours ${M[ours/mount]}, real ${M[real/mount]} MB)"
pass "benchmark done"
