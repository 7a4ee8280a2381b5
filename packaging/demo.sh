#!/usr/bin/env bash
# The main job: installs what it needs, builds, creates a repository under a
# private CVMFS_ROOTDIR, publishes a sample tree into it, serves it with a
# private Apache on 127.0.0.1, mounts it with our client and reads it back.
# At the end it unmounts everything it mounted (the client, and the
# publisher's read-only mount and overlay) and stops Apache.
#   packaging/demo.sh [--keep]   (--keep leaves the server and mounts running)
set -euo pipefail
keep=0
[ "${1:-}" = "--keep" ] && keep=1
cd "$(dirname "$0")/.."
packaging/install-deps.sh --integration
cmake -S . -B build -G Ninja >/dev/null
# Only the programs the demo runs (not every target with its tests).
cmake --build build -j2 --target cvmfs2 cvmfs_server
bin="$PWD/build/bin"
export CVMFS_ROOTDIR="${CVMFS_ROOTDIR:-$(mktemp -d /tmp/cvmfs-demo.XXXXXX)}"
echo "== CVMFS_ROOTDIR=$CVMFS_ROOTDIR"
fqrn=demo.example.org
. test/lib/common.sh
. test/lib/apache.sh
"$bin/cvmfs_server" mkfs -o "$(id -un)" "$fqrn"

# A sample software tree: sources, a large (chunked) file, links, a nested catalog.
src=$(mktemp -d)
# The client mounts here, apart from the publisher's union mount at
# $CVMFS_ROOTDIR/cvmfs/$fqrn.
mnt="$CVMFS_ROOTDIR/mnt/$fqrn"
# Every mount below $CVMFS_ROOTDIR, the newest first (the client, the
# overlay, then the read-only mount below it).
mounts_here() { findmnt -rn -o TARGET | grep "^$CVMFS_ROOTDIR/" | tac || true; }
stop_all() {
  local m
  for m in $(mounts_here); do umount "$m" || umount -l "$m"; done
  [ -z "${APACHE_DIR:-}" ] || apache_stop
}
cleanup() {
  rm -rf "$src"
  [ "$keep" = 1 ] || stop_all
  return 0
}
trap cleanup EXIT
mkdir -p "$src/sw/1.0/bin" "$src/sw/1.0/lib" "$src/docs"
cp -r /usr/share/doc/bash/. "$src/docs/" 2>/dev/null || echo "docs" > "$src/docs/README"
printf '#!/bin/sh\necho hello from cvmfs\n' > "$src/sw/1.0/bin/hello"; chmod 755 "$src/sw/1.0/bin/hello"
head -c $((20 * 1024 * 1024)) /dev/urandom > "$src/sw/1.0/lib/big.dat"
ln -s 1.0 "$src/sw/latest"
ln -s '$(CVMFS_ARCH)/lib' "$src/sw/1.0/arch-lib"
touch "$src/sw/1.0/.cvmfscatalog"
tar -C "$src" -cf "$src.tar" .
"$bin/cvmfs_server" ingest -t "$src.tar" -b / "$fqrn"
rm -f "$src.tar"
"$bin/cvmfs_server" tag -a v1.0 -m "first release" "$fqrn"
echo "== cvmfs_server info"
"$bin/cvmfs_server" info "$fqrn"
echo "== cvmfs_server list-catalogs -s -e -x"
"$bin/cvmfs_server" list-catalogs -s -e -x "$fqrn"
echo "== cvmfs_server tag -l"
"$bin/cvmfs_server" tag -l "$fqrn"
echo "== cvmfs_server check -c"
"$bin/cvmfs_server" check -c "$fqrn"
echo "== repository files under $CVMFS_ROOTDIR/srv/cvmfs/$fqrn"
ls -la "$CVMFS_ROOTDIR/srv/cvmfs/$fqrn"

echo "== serving $CVMFS_ROOTDIR/srv with Apache on 127.0.0.1"
WORK=$CVMFS_ROOTDIR/run
mkdir -p "$WORK"
chmod 0755 "$CVMFS_ROOTDIR" "$WORK"
apache_start "$CVMFS_ROOTDIR/srv"
curl -sI "$APACHE_URL/cvmfs/$fqrn/.cvmfspublished" | grep -iE "^(HTTP|Cache-Control|Expires)"

echo "== mounting $fqrn with cvmfs2 at $mnt"
mkdir -p "$mnt" "$CVMFS_ROOTDIR/etc/cvmfs/config.d" "$CVMFS_ROOTDIR/var/lib/cvmfs"
# The client may run as the unprivileged `cvmfs` user after mounting: the
# path to its cache must be traversable for it (CVMFS_ROOTDIR is 0755 above).
chmod 0755 "$CVMFS_ROOTDIR/var" "$CVMFS_ROOTDIR/var/lib"
cat > "$CVMFS_ROOTDIR/etc/cvmfs/default.local" <<CONF
CVMFS_HTTP_PROXY=DIRECT
CVMFS_CACHE_BASE=$CVMFS_ROOTDIR/var/lib/cvmfs
CVMFS_QUOTA_LIMIT=1000
CONF
cat > "$CVMFS_ROOTDIR/etc/cvmfs/config.d/$fqrn.conf" <<CONF
CVMFS_SERVER_URL=$APACHE_URL/cvmfs/@fqrn@
CVMFS_PUBLIC_KEY=$CVMFS_ROOTDIR/etc/cvmfs/keys/$fqrn.pub
CONF
"$bin/cvmfs2" "$fqrn" "$mnt"
echo "== ls -l $mnt/sw/1.0 (mounted)"
ls -l "$mnt/sw/1.0"
echo "== $mnt/sw/latest/bin/hello"
"$mnt/sw/latest/bin/hello"
echo "== sha256 of the 20 MiB chunked file, mounted and original"
sha256sum "$mnt/sw/1.0/lib/big.dat" "$src/sw/1.0/lib/big.dat" | cut -c1-64 | uniq -c
echo "== sha256 of every file, and diff -r of the source tree and the mount"
nfiles=$(find "$src" -type f | wc -l)
if ! cmp -s <(checksum_tree "$src") <(checksum_tree "$mnt"); then
  echo "demo FAILED: the mounted files differ from the published ones" >&2
  exit 1
fi
echo "$nfiles files, sha256 identical"
# The one expected difference: a variant symlink is stored as written and
# expanded by the client, so diff sees two different link targets.
arch_link=$(readlink "$mnt/sw/1.0/arch-lib")
variant="Symbolic links $src/sw/1.0/arch-lib and $mnt/sw/1.0/arch-lib differ"
diffs=$(diff -r --no-dereference "$src" "$mnt" || true)
if [ -n "$(grep -vxF "$variant" <<<"$diffs" || true)" ]; then
  echo "$diffs" >&2
  echo "demo FAILED: diff -r found differences" >&2
  exit 1
fi
echo "identical, but for the variant symlink sw/1.0/arch-lib: published as '\$(CVMFS_ARCH)/lib', the client expands it to '$arch_link'"
echo "== magic attributes"
for a in fqrn revision root_hash host ndownload hitrate nclg; do
  printf "user.%-10s %s\n" "$a" "$(getfattr --absolute-names --only-values -n "user.$a" "$mnt")"
done
echo "== cache $(du -sh "$CVMFS_ROOTDIR/var/lib/cvmfs/shared" | cut -f1) in $CVMFS_ROOTDIR/var/lib/cvmfs/shared"
revision=$(getfattr --absolute-names --only-values -n user.revision "$mnt")
if [ "$keep" = 1 ]; then
  echo "Left running: Apache at $APACHE_URL, $fqrn mounted at $mnt and the"
  echo "publisher's mounts below $CVMFS_ROOTDIR. When done: umount $mnt,"
  echo "$CVMFS_ROOTDIR/cvmfs/$fqrn and $CVMFS_ROOTDIR/var/spool/cvmfs/$fqrn/rdonly"
  echo "(in this order) and run apache2 -f $APACHE_DIR/httpd.conf -k stop."
  echo "demo OK: published $nfiles files in revision $revision, mounted, read back identical (sha256), left mounted (--keep)"
  exit 0
fi
echo "== unmounting everything below $CVMFS_ROOTDIR, stopping Apache"
stop_all
for _ in $(seq 1 50); do
  [ -z "$(pgrep -f "$CVMFS_ROOTDIR" || true)" ] && break
  sleep 0.2
done
left=$(mounts_here)
running=$(pgrep -af "$CVMFS_ROOTDIR" || true)
if [ -n "$left" ] || [ -n "$running" ]; then
  echo "demo FAILED: still mounted: ${left:-nothing}; still running: ${running:-nothing}" >&2
  exit 1
fi
echo "demo OK: published $nfiles files in revision $revision, mounted, read back identical (sha256), unmounted"
