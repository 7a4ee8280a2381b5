#!/usr/bin/env bash
# `cvmfs_server ingest` given hostile or broken tar streams: zero bytes (a
# broken `curl ... |` pipeline), garbage, an mtree specification naming a
# local file, a stream cut at a member boundary, a path deeper than PATH_MAX,
# a uid above 32 bits, a 70,000-byte symlink target, members below a symlink
# or a regular file. Each is refused with a non-zero exit and a message
# naming the problem, and the served revision stays as it was (manifest
# byte for byte, and the content as a client mounts it). Then what ingest
# must accept: sparse members (GNU and pax) read back identical, and later
# members replace earlier ones of another type at the same path.
export CVMFS_SERVER_NO_MOUNT=1
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init ingest_hostile 400
require_bins cvmfs_server cvmfs2
tar --version 2>/dev/null | grep -q 'GNU tar' || skip "needs GNU tar (sparse members)"

fqrn=hostile.test.org
src=$WORK/src
mnt=$WORK/mnt
manifest=$(repo_storage "$fqrn")/.cvmfspublished
srv() { "$BIN/cvmfs_server" "$@"; }

mkdir -p "$src/victim/sub"
echo "keep me" >"$src/victim/keep"
make_random_file "$src/victim/sub/data.bin" 300000 hostile-data
ln -s keep "$src/victim/link"
publish_tree "$fqrn" "$src" /
cp "$manifest" "$WORK/manifest.before"
revision=$(manifest_field "$fqrn" S)

# hostile_tar KIND FILE: a pax tarball (python3's tarfile) of one kind.
hostile_tar() {
  python3 - "$1" "$2" <<'EOF'
import io, sys, tarfile
kind, out = sys.argv[1], sys.argv[2]
def reg(t, name, data=b"x\n", **kw):
    ti = tarfile.TarInfo(name); ti.size = len(data)
    for k, v in kw.items(): setattr(ti, k, v)
    t.addfile(ti, io.BytesIO(data))
def sym(t, name, target):
    ti = tarfile.TarInfo(name); ti.type = tarfile.SYMTYPE; ti.linkname = target
    t.addfile(ti)
def mkdir(t, name):
    ti = tarfile.TarInfo(name); ti.type = tarfile.DIRTYPE; ti.mode = 0o755
    t.addfile(ti)
with tarfile.open(out, "w", format=tarfile.PAX_FORMAT) as t:
    if kind == "two-files":
        reg(t, "first", b"1" * 1000); reg(t, "second")
    elif kind == "deep":  # 2,000 levels of directories, a file 10,000 deep
        p = ""
        for i in range(2000):
            p += ("/" if p else "") + "a"; mkdir(t, p)
        reg(t, p + "/a" * 8000 + "/f")
    elif kind == "uid":
        reg(t, "big-uid", uid=2**32)
    elif kind == "long-symlink":
        sym(t, "long", "t" * 70000)
    elif kind == "below-symlink":
        sym(t, "link", "x"); reg(t, "link/file")
    elif kind == "below-published":
        reg(t, "link/file")
    elif kind == "below-file":
        reg(t, "dup"); reg(t, "dup/in")
    elif kind == "replace":
        reg(t, "f2d"); mkdir(t, "f2d"); reg(t, "f2d/in", b"in\n")
        mkdir(t, "d2f"); reg(t, "d2f/in"); reg(t, "d2f", b"now a file\n")
        reg(t, "f2l"); sym(t, "f2l", "d2f")
        sym(t, "l2f", "d2f"); reg(t, "l2f", b"now a file\n")
        sym(t, "l2d", "d2f"); mkdir(t, "l2d"); reg(t, "l2d/in", b"in\n")
EOF
}

# refused NAME MESSAGE INGEST_ARGS... (the tarball on stdin): exit non-zero,
# MESSAGE in the output, the manifest unchanged.
refused() {
  local name=$1 message=$2 out rc=0
  shift 2
  out=$(srv ingest "$@" "$fqrn" 2>&1) || rc=$?
  if [ "$rc" -eq 0 ]; then
    check_failed "$name: ingest succeeded: $out"
  elif [[ "$out" != *"$message"* ]]; then
    check_failed "$name: expected '$message' in: $out"
  elif [[ "$out" != *"nothing was published; $fqrn stays at revision $revision"* ]]; then
    check_failed "$name: no 'nothing was published' line: $out"
  fi
  cmp -s "$WORK/manifest.before" "$manifest" ||
    check_failed "$name: the manifest changed (revision $(manifest_field "$fqrn" S))"
  note "$name: refused (exit $rc)"
}

# 1. Not a tar archive, or not all of one.
# (Input through process substitution: a pipe, as from `curl ... |`, with
# refused() in this shell so that its check_failed counts.)
refused "zero bytes" "standard input is empty, not a tar archive" \
  -t - -b victim -d victim < <(true)
head -c 5000 /dev/urandom >"$WORK/garbage"
refused "garbage" "is not a tar archive" -t "$WORK/garbage" -b victim -d victim
printf '#mtree\n./stolen type=file mode=0644 contents=%s\n' \
  "$(repo_storage "$fqrn")/.cvmfspublished" >"$WORK/spec.mtree"
refused "mtree" "is not a tar archive" -t "$WORK/spec.mtree" -b victim -d victim
hostile_tar two-files "$WORK/two.tar"
# The first member is a 512-byte header and 1,000 bytes of data in 2 blocks.
refused "cut at a member boundary" "ends without the end-of-archive blocks" \
  -t - -b victim -d victim < <(head -c 1536 "$WORK/two.tar")
refused "cut inside a member" "runcated" \
  -t - -b victim -d victim < <(head -c 1000 "$WORK/two.tar")
tar -cf "$WORK/empty.tar" -T /dev/null
# 2. A path deeper than clients can use, refused without the old
# depth-squared cost (45 s and 325 MB for this tarball).
hostile_tar deep "$WORK/deep.tar"
start=$SECONDS
refused "10,000 levels" "bytes as clients see it" -t "$WORK/deep.tar" -b deep
[ $((SECONDS - start)) -lt 20 ] ||
  check_failed "10,000 levels took $((SECONDS - start)) s to refuse"
# 3.-4. Ids above 32 bits, symlink targets longer than 4095 bytes.
hostile_tar uid "$WORK/uid.tar"
refused "uid 2^32" "tar member 'big-uid': uid 4294967296 does not fit 32 bits" \
  -t "$WORK/uid.tar" -b victim
hostile_tar long-symlink "$WORK/long.tar"
refused "long symlink" "tar member 'long': symlink target of 70000 bytes, more than 4095" \
  -t "$WORK/long.tar" -b victim
# 6. Members below a symlink or a regular file.
hostile_tar below-symlink "$WORK/below-symlink.tar"
refused "below a symlink" \
  "tar member 'link/file': parent /victim/link is a symbolic link, not a directory" \
  -t "$WORK/below-symlink.tar" -b victim -d victim
hostile_tar below-file "$WORK/below-file.tar"
refused "below a file" \
  "tar member 'dup/in': parent /victim/dup is a regular file, not a directory" \
  -t "$WORK/below-file.tar" -b victim
hostile_tar below-published "$WORK/below-published.tar"
refused "below a published symlink" \
  "parent /victim/link is a symbolic link in the published tree" \
  -t "$WORK/below-published.tar" -b victim
expect_eq "revision after the refusals" "$revision" "$(manifest_field "$fqrn" S)"

# What a client sees: the previous revision, unchanged.
out=$WORK/serve.out
show_on_failure "$out"
"$BIN/cvmfs_server" serve -p 0 "$fqrn" </dev/null >"$out" 2>&1 &
server_pid=$!
on_exit "kill -TERM $server_pid 2>/dev/null || true"
wait_for 10 "cvmfs_server serve to print its URL" grep -q "^serving $fqrn at " "$out"
url=$(sed -n "s|^serving $fqrn at ||p" "$out")
test_client_config "$WORK/client.conf" "$url" "$(repo_public_key "$fqrn")"
mount_repo "$fqrn" "$mnt" "$WORK/client.conf"
expect_eq "revision a client sees" "$revision" "$(magic_xattr revision "$mnt")"
diff -r --no-dereference "$src" "$mnt" || check_failed "the mount differs from the source"
unmount_repo "$mnt"

# 5. Sparse members, and a genuine empty tarball, are accepted.
mkdir -p "$WORK/sparse"
truncate -s 64M "$WORK/sparse/hole"
printf head >"$WORK/sparse/ends"
truncate -s 32M "$WORK/sparse/ends"
printf tail >>"$WORK/sparse/ends"
tar --sparse --format=gnu -C "$WORK/sparse" -cf "$WORK/sparse-gnu.tar" .
tar --sparse --format=posix -C "$WORK/sparse" -cf "$WORK/sparse-pax.tar" .
srv ingest -t "$WORK/sparse-gnu.tar" -b sparse-gnu "$fqrn" >/dev/null ||
  check_failed "ingest of GNU sparse members failed"
srv ingest -t - -b sparse-pax "$fqrn" <"$WORK/sparse-pax.tar" >/dev/null ||
  check_failed "ingest of pax sparse members failed"
srv ingest -t "$WORK/empty.tar" -b empty "$fqrn" >/dev/null ||
  check_failed "ingest of an empty tarball (end-of-archive blocks only) failed"
# 6. A later member replaces an earlier one of another type.
hostile_tar replace "$WORK/replace.tar"
srv ingest -t "$WORK/replace.tar" -b replace "$fqrn" >/dev/null ||
  check_failed "ingest of members replacing each other failed"
expect_eq "revision after the accepted ingests" $((revision + 4)) "$(manifest_field "$fqrn" S)"

rm -rf "$WORK/cache"
mount_repo "$fqrn" "$mnt" "$WORK/client.conf"
for f in hole ends; do
  for format in gnu pax; do
    expect_eq "size of sparse-$format/$f" "$(stat -c %s "$WORK/sparse/$f")" \
      "$(stat -c %s "$mnt/sparse-$format/$f")"
    cmp -s "$WORK/sparse/$f" "$mnt/sparse-$format/$f" ||
      check_failed "sparse-$format/$f differs from the source"
  done
done
[ -d "$mnt/empty" ] || check_failed "the empty tarball's base directory is missing"
expect_eq "f2d" "in" "$(cat "$mnt/replace/f2d/in")"
expect_eq "d2f" "now a file" "$(cat "$mnt/replace/d2f")"
expect_eq "f2l" "d2f" "$(readlink "$mnt/replace/f2l")"
expect_eq "l2f" "now a file" "$(cat "$mnt/replace/l2f")"
expect_eq "l2d" "in" "$(cat "$mnt/replace/l2d/in")"
diff -r --no-dereference "$src/victim" "$mnt/victim" || check_failed "victim changed"
unmount_repo "$mnt"
finish
