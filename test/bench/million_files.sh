#!/usr/bin/env bash
# Benchmark (not a test): publishing many small files with `cvmfs_server
# ingest` (issue 26: a million files in bounded memory).
#   test/bench/million_files.sh [--files N] [--dirs D] [--tar-dir DIR]
#                               [build dir]
# Generates a deterministic tarball of N small files (default 1,000,000) in D
# directories (default N/100) below d00/ .. d09/ (python tarfile, streamed,
# not timed), then measures, each into a fresh repository:
#   1. nested: ingest with a .cvmfsdirtab of `/d*` (10 nested catalogs)
#   2. flat:   ingest into one catalog
#   3. change: a tarball of 100 changed files in one directory ingested into
#      the flat repository (one catalog of N entries)
#   4. change-nested: the same change ingested into the nested repository
#      (it rewrites one nested catalog of N/10 entries and the root)
# and prints files/s, wall and CPU time and peak RSS (/usr/bin/time -v) for
# each. Targets: <= 256 MB peak RSS whatever N, >= 20,000 files/s on 2 cores,
# the change in proportion to its size. On a shared machine run it as
# `nice -n 19 ...` and note the load average it prints.
# CVMFS_BENCH_NO_BUILD=1 uses the build directory as it is. --tar-dir keeps
# the generated tarballs in DIR and reuses them when N and D match.
# The repositories are written to a journaled ext4 image, loop-mounted
# (a Stratum 0's /srv/cvmfs on a stock Debian file system): this machine's
# root file system has no journal, and there the inode allocator checks
# every free inode it passes for a deletion in the last minutes, so a
# publish after a deleted one ran 2-5x slower from run to run (100,000
# files: 4.1 s, then 7.0, 9.1, 11.9 ... 21.9 s; 4.3-4.5 s every time on the
# image). --no-loop writes them below /var/tmp instead.
set -euo pipefail
cd "$(dirname "$0")/../.."
files=1000000
dirs=
tar_dir=
loop=yes
build=build
while [ $# -gt 0 ]; do
  case "$1" in
    --files) files=$2; shift 2 ;;
    --dirs) dirs=$2; shift 2 ;;
    --tar-dir) tar_dir=$2; shift 2 ;;
    --no-loop) loop=no; shift ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
  esac
done
case "$files" in ''|*[!0-9]*|0) echo "--files: a positive number" >&2; exit 2 ;; esac
dirs=${dirs:-$(( files >= 100 ? files / 100 : 1 ))}
if [ "${CVMFS_BENCH_NO_BUILD:-}" != 1 ]; then
  cmake --build "$build" -j2 --target cvmfs_server >/dev/null
fi
srv="$PWD/$build/bin/cvmfs_server"
work=$(mktemp -d /var/tmp/cvmfs-million.XXXXXX)
chmod 755 "$work"  # the cvmfs user mounts below it
root=$work/root
cleanup() {
  for r in nested flat; do
    CVMFS_ROOTDIR=$root "$srv" rmfs -f $r.bench.example.org >/dev/null 2>&1 || true
  done
  if mountpoint -q "$root"; then umount "$root"; fi
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$root"
if [ $loop = yes ]; then
  # Room for two repositories of N objects each, their catalogs and bundles:
  # an inode per 4 KiB, the image sparse.
  truncate -s $((8 + files * 16 / 1000000))G "$work/fs.img"
  mkfs.ext4 -q -F -i 4096 -E lazy_itable_init=0,lazy_journal_init=0 "$work/fs.img"
  mount -o loop "$work/fs.img" "$root"
  chmod 755 "$root"
fi
echo "repositories on: $(findmnt -n -o FSTYPE,SOURCE --target "$root")" \
  "$([ $loop = yes ] && echo '(a journaled ext4 image, loop-mounted)')"

# make_tar OUT FILES DIRS TAG [DIRTAB]: FILES files of ~40 bytes spread over
# DIRS directories d0X/NNNNN/, contents unique per file and TAG.
make_tar() {
  python3 - "$@" <<'EOF'
import io, sys, tarfile
out, files, dirs, tag = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
dirtab = len(sys.argv) > 5
def dname(d):
    return "d%02d/%05d" % (d % 10, d)
with tarfile.open(out, "w", format=tarfile.PAX_FORMAT) as t:
    def add(name, data=None, dir=False):
        ti = tarfile.TarInfo(name)
        ti.mtime = 1700000000
        ti.uid = ti.gid = 1000
        if dir:
            ti.type, ti.mode = tarfile.DIRTYPE, 0o755
            t.addfile(ti)
        else:
            ti.mode, ti.size = 0o644, len(data)
            t.addfile(ti, io.BytesIO(data))
    if dirtab:
        add(".cvmfsdirtab", b"/d*\n")
    for top in range(min(10, dirs)):
        add("d%02d" % top, dir=True)
    per = files // dirs
    extra = files % dirs
    n = 0
    for d in range(dirs):
        add(dname(d), dir=True)
        for i in range(per + (1 if d < extra else 0)):
            add("%s/f%06d" % (dname(d), n), ("%s file %d\n" % (tag, n)).encode())
            n += 1
EOF
}

tars=$work
if [ -n "$tar_dir" ]; then
  tars=$tar_dir/$files-$dirs
  mkdir -p "$tars"
fi
if [ ! -s "$tars/change.tar" ]; then
  echo "generating $files files in $dirs directories (not timed)"
  make_tar "$tars/nested.tar" "$files" "$dirs" v1 dirtab
  make_tar "$tars/flat.tar" "$files" "$dirs" v1
  make_tar "$tars/change.tar" 100 1 v2
fi
echo "tarball: $(du -m "$tars/flat.tar" | cut -f1) MB; $(nproc) cores;" \
  "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# measure NAME COUNT CMD...: runs CMD under /usr/bin/time -v, prints a line.
measure() {
  local name=$1 count=$2
  shift 2
  /usr/bin/time -v -o "$work/time" "$@" > "$work/out" 2>&1 || {
    cat "$work/out" "$work/time" >&2
    echo "$name: failed" >&2
    exit 1
  }
  python3 - "$name" "$count" "$work/time" <<'EOF'
import re, sys
name, count, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
t = open(path).read()
def field(key):
    return re.search(re.escape(key) + r":\s*(.*)", t).group(1).strip()
wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":")
secs = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall)))
cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
rss = int(field("Maximum resident set size (kbytes)")) / 1024
print("%-13s %9d files %8.2f s wall %8.2f s cpu %9.0f files/s %7.1f MB peak RSS"
      % (name, count, secs, cpu, count / max(secs, 1e-3), rss))
EOF
  # Of that time: writing the bundles of the directories (CVMFS_BUNDLES).
  sed -n 's/^bundles: /        bundles: /p' "$work/out"
}

export CVMFS_ROOTDIR=$root
"$srv" mkfs nested.bench.example.org >/dev/null
"$srv" mkfs flat.bench.example.org >/dev/null
measure nested "$files" "$srv" ingest -t "$tars/nested.tar" -b / \
  nested.bench.example.org
measure flat "$files" "$srv" ingest -t "$tars/flat.tar" -b / \
  flat.bench.example.org
measure change 100 "$srv" ingest -t "$tars/change.tar" -b / \
  flat.bench.example.org
measure change-nested 100 "$srv" ingest -t "$tars/change.tar" -b / \
  nested.bench.example.org
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
