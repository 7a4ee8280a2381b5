#!/usr/bin/env bash
# External data, as CVMFS (doc/publishing.md and doc/client.md, "External
# data"): our publisher makes a repository with `mkfs -X -Z none`, publishes
# a transaction (a small file with an xattr, a 20 MiB file in chunks, a
# symlink) and, beside it, a file grafted from a `.cvmfsgraft-<name>` marker
# (two chunks, its data only on the external server); a second publish with
# `-N` adds a native file; a malformed marker stops a publish. Apache on
# 127.0.0.1 serves the repository and, under /external/, the external files
# by their paths. `cvmfs_server check` and the real `cvmfs_swissknife check
# -c` accept the repository (the grafted file has no stored object).
#   - our client, with CVMFS_EXTERNAL_URL = a dead server, then Apache
#     (failover), reads every file correctly; external content comes by path
#     (chunks as HTTP range requests, 206), never from the repository's
#     data/ (only the -N file is); -X files are also in the repository's
#     storage (as CVMFS stores them), the grafted one is not;
#   - an external file corrupted on the external server reads as EIO and is
#     not cached; repaired, it reads correctly;
#   - the real CVMFS 2.12 client reads the same repository: its listing
#     (names, modes, sizes, symlink targets, every file's sha256, xattrs)
#     equals ours, and listxattr of the root and of a file name the same
#     attributes on both.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/client.sh"
. "$here/../lib/real_cvmfs.sh"
real_cvmfs_private_etc "$@"
. "$here/../lib/apache.sh"
. "$here/../lib/publish.sh"

test_init external_data 240
require_bins cvmfs_server cvmfs2
grep -qw overlay /proc/filesystems || skip "the kernel has no overlayfs"
real_cvmfs_init
srv() { "$BIN/cvmfs_server" "$@"; }
sha1_of() { sha1sum "$1" | cut -d' ' -f1; }
slice() { dd if="$1" bs=1M iflag=skip_bytes,count_bytes skip="$2" count="$3" status=none; }
xattr_names() { python3 -c 'import os, sys; print("\n".join(sorted(os.listxattr(sys.argv[1]))))' "$1"; }
# The magic attribute ours has beyond CVMFS's (user.prefetch, doc/client.md
# "Prefetch"): shown, not failed. Any other difference fails; an entry here
# that no longer differs is reported so that it can be removed.
KNOWN_REAL_ONLY=""
KNOWN_OURS_ONLY="user.prefetch"
compare_root_xattrs() {
  local real_names=$1 our_names=$2 name
  for name in $(LC_ALL=C comm -23 <(echo "$real_names") <(echo "$our_names")); do
    [[ " $(echo $KNOWN_REAL_ONLY) " == *" $name "* ]] && note "root: $name (real client only, known)" ||
      check_failed "listxattr of /: the real client names $name, ours does not"
  done
  for name in $(LC_ALL=C comm -13 <(echo "$real_names") <(echo "$our_names")); do
    [[ " $KNOWN_OURS_ONLY " == *" $name "* ]] && note "root: $name (ours only, known)" ||
      check_failed "listxattr of /: our client names $name, the real one does not"
  done
  for name in $KNOWN_REAL_ONLY $KNOWN_OURS_ONLY; do
    [ "$(grep -cx -- "$name" <(echo "$real_names"))" = "$(grep -cx -- "$name" <(echo "$our_names"))" ] &&
      note "root: $name no longer differs: remove it from the known differences" || true
  done
}

fqrn=external.test.org
on_exit "\"$BIN/cvmfs_server\" rmfs -f $fqrn >/dev/null 2>&1 || true"
union=$CVMFS_ROOTDIR/cvmfs/$fqrn
external=$CVMFS_ROOTDIR/srv/external
src=$WORK/src

# --- the source tree and the external server's copy -------------------------
mkdir -p "$src/data" "$src/graft"
printf 'hello, external world\n' >"$src/data/hello.txt"
setfattr -n user.color -v blue "$src/data/hello.txt"
make_random_file "$src/data/big.bin" 20971520 external-big
ln -s hello.txt "$src/data/link"
make_random_file "$src/graft/remote.dat" 6000000 external-remote
mkdir -p "$external"
cp -a "$src/data" "$src/graft" "$external/"

# --- publish: mkfs -X, a transaction with a graft, then publish -N -------------
srv mkfs -X -Z none $fqrn >"$WORK/mkfs.out" 2>&1 || fail "mkfs -X failed: $(cat "$WORK/mkfs.out")"
conf=$CVMFS_ROOTDIR/etc/cvmfs/repositories.d/$fqrn/server.conf
grep -qx "CVMFS_EXTERNAL_DATA=true" "$conf" || check_failed "mkfs -X did not set CVMFS_EXTERNAL_DATA=true"
srv transaction $fqrn >/dev/null
cp -a "$src/data" "$union/"
mkdir "$union/graft"
: >"$union/graft/remote.dat"
{
  echo "size=6000000"
  echo "checksum=$(sha1_of "$src/graft/remote.dat")"
  echo "compression=none"
  echo "chunk_offsets=0,4000000"
  echo "chunk_checksums=$(slice "$src/graft/remote.dat" 0 4000000 | sha1sum | cut -d' ' -f1),$(
    slice "$src/graft/remote.dat" 4000000 2000000 | sha1sum | cut -d' ' -f1)"
} >"$union/graft/.cvmfsgraft-remote.dat"
srv publish $fqrn >"$WORK/publish.out" 2>&1 || fail "publish failed: $(cat "$WORK/publish.out")"
srv transaction $fqrn >/dev/null
echo "native content" >"$union/native.txt"
cp "$union/native.txt" "$src/native.txt"
srv publish -N $fqrn >"$WORK/publish2.out" 2>&1 || fail "publish -N failed: $(cat "$WORK/publish2.out")"
# A malformed graft marker stops the publish, naming it; nothing is published.
rev=$(manifest_field $fqrn S)
srv transaction $fqrn >/dev/null
: >"$union/bad.dat"
echo "size=10" >"$union/.cvmfsgraft-bad.dat"
if srv publish $fqrn >"$WORK/publish-bad.out" 2>&1; then
  check_failed "a graft marker without checksum was published"
fi
grep -q "cvmfsgraft-bad.dat: no checksum" "$WORK/publish-bad.out" ||
  check_failed "the failed publish does not name the bad marker: $(cat "$WORK/publish-bad.out")"
expect_eq "revision after the refused graft" "$rev" "$(manifest_field $fqrn S)"
srv abort -f $fqrn >/dev/null

hello_hash=$(sha1_of "$src/data/hello.txt")
[ -f "$(server_object_path $fqrn "$hello_hash")" ] ||
  check_failed "the -X file data/hello.txt is not in the repository's storage (CVMFS stores it)"
[ ! -e "$(server_object_path $fqrn "$(sha1_of "$src/graft/remote.dat")")" ] ||
  check_failed "the grafted file's data is in the repository's storage"

# Both checkers accept the grafted file without a stored object, as CVMFS's
# check skips external files' objects.
srv check $fqrn >"$WORK/check.out" 2>&1 || check_failed "cvmfs_server check: $(cat "$WORK/check.out")"
mkdir -p "$WORK/sk-tmp"
real_swissknife check -r "$(repo_storage $fqrn)" -k "$(repo_public_key $fqrn)" -N $fqrn -c \
  -t "$WORK/sk-tmp" >"$WORK/sk-check.out" 2>&1 && grep -q "no problems found" "$WORK/sk-check.out" ||
  check_failed "the real swissknife check -c: $(cat "$WORK/sk-check.out")"

apache_start "$CVMFS_ROOTDIR/srv"
dead=$(free_port)
test_client_config "$WORK/ours.conf" "$APACHE_URL/cvmfs/@fqrn@" "$(repo_public_key $fqrn)" \
  "CVMFS_EXTERNAL_URL=http://127.0.0.1:$dead/none;$APACHE_URL/external" \
  "CVMFS_EXTERNAL_TIMEOUT_DIRECT=3"

# --- our client: a corrupted external file is EIO and not cached -------------
ours=$WORK/ours
mount_repo $fqrn "$ours" "$WORK/ours.conf"
cp "$src/data/hello.txt" "$WORK/hello.good"
printf 'HELLO, external world\n' >"$external/data/hello.txt"
expect_read_error "$ours/data/hello.txt" "Input/output error"
[ ! -e "$(cache_object_path "$(cache_dir_of $fqrn)" "$hello_hash")" ] ||
  check_failed "the corrupted external file was cached"
cp "$WORK/hello.good" "$external/data/hello.txt"
expect_eq "data/hello.txt once repaired" "hello, external world" "$(cat "$ours/data/hello.txt")"
[ -f "$(cache_object_path "$(cache_dir_of $fqrn)" "$hello_hash")" ] ||
  check_failed "the verified external file is not cached under its hash"

# --- our client reads everything, external content by path --------------------
for f in data/hello.txt data/big.bin graft/remote.dat native.txt; do
  cmp -s "$src/$f" "$ours/$f" || check_failed "our client: $f differs from the source"
done
expect_eq "symlink data/link" "hello.txt" "$(readlink "$ours/data/link")"
expect_eq "xattr of data/hello.txt" "blue" "$(getfattr --absolute-names --only-values -n user.color "$ours/data/hello.txt")"
ranges=$(apache_request_count '"GET /external/(data/big\.bin|graft/remote\.dat) HTTP/1\.1" 206 ')
[ "$ranges" -ge 4 ] || check_failed "expected range requests (206) for the chunks of the external files, got $ranges"
# Only the native file (publish -N) comes from the repository's data/.
expect_eq "objects of files fetched from the repository's data/" 1 \
  "$(apache_request_count "GET /cvmfs/$fqrn/data/[0-9a-f]{2}/[0-9a-f]+P? ")"
expect_eq "native.txt (publish -N) is not external" 0 "$(magic_xattr external_file "$ours/native.txt")"
[ "$(apache_request_count '"GET /external/native\.txt')" -eq 0 ] ||
  check_failed "the native file (publish -N) was fetched from the external server"
python3 "$TESTLIB_DIR/listing.py" "$ours" >"$WORK/ours.tsv"

# --- the real CVMFS 2.12 client reads the same repository ---------------------
real_client_config "$WORK/real.conf" "$APACHE_URL/cvmfs/@fqrn@" "$(repo_public_key $fqrn)" \
  "CVMFS_EXTERNAL_URL=$APACHE_URL/external"
real=$WORK/real
real_mount $fqrn "$real" "$WORK/real.conf"
compare_listing_to "real client vs our client" "$WORK/ours.tsv" "$real"
# The real 2.12 client names each magic attribute of the root twice:
# compared as sets.
compare_root_xattrs "$(xattr_names "$real" | uniq)" "$(xattr_names "$ours" | uniq)"
for f in /data/hello.txt /data/big.bin /data /graft/remote.dat; do
  expect_eq "listxattr of $f: real client vs ours" "$(xattr_names "$real$f")" "$(xattr_names "$ours$f")"
done
for f in data/hello.txt graft/remote.dat native.txt; do
  expect_eq "user.external_file of $f: real client vs ours" \
    "$(real_xattr external_file "$real/$f")" "$(magic_xattr external_file "$ours/$f")"
done
expect_eq "user.external_url of data/hello.txt (ours, after failing over)" \
  "$APACHE_URL/external/data/hello.txt" "$(magic_xattr external_url "$ours/data/hello.txt")"
expect_eq "user.external_url of graft/remote.dat (real client)" \
  "$APACHE_URL/external/graft/remote.dat" "$(real_xattr external_url "$real/graft/remote.dat")"
expect_eq "user.external_host (ours)" "$APACHE_URL/external" "$(magic_xattr external_host "$ours")"
unmount_repo "$ours"
real_unmount "$real"
finish
