#!/usr/bin/env bash
# The main job: installs what it needs, builds, creates a repository under a
# private CVMFS_ROOTDIR, publishes a sample tree into it, serves it with a
# private Apache on 127.0.0.1, mounts it with our client and reads it.
#   packaging/demo.sh [--keep]   (--keep leaves the server and mount running)
set -euo pipefail
keep=0
[ "${1:-}" = "--keep" ] && keep=1
cd "$(dirname "$0")/.."
packaging/install-deps.sh --integration
cmake -S . -B build -G Ninja >/dev/null
cmake --build build -j2
bin="$PWD/build/bin"
export CVMFS_ROOTDIR="${CVMFS_ROOTDIR:-$(mktemp -d /tmp/cvmfs-demo.XXXXXX)}"
echo "== CVMFS_ROOTDIR=$CVMFS_ROOTDIR"
fqrn=demo.example.org
"$bin/cvmfs_server" mkfs -o "$(id -un)" "$fqrn"

# A sample software tree: sources, a large (chunked) file, links, a nested catalog.
src=$(mktemp -d)
cleanup() {
  rm -rf "$src"
  if [ "$keep" = 0 ]; then
    mountpoint -q "$CVMFS_ROOTDIR/cvmfs/$fqrn" 2>/dev/null && umount "$CVMFS_ROOTDIR/cvmfs/$fqrn"
    [ -z "${APACHE_DIR:-}" ] || apache_stop
  fi
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
. test/lib/common.sh
. test/lib/apache.sh
apache_start "$CVMFS_ROOTDIR/srv"
curl -sI "$APACHE_URL/cvmfs/$fqrn/.cvmfspublished" | grep -iE "^(HTTP|Cache-Control|Expires)"

echo "== mounting $fqrn with cvmfs2"
mnt="$CVMFS_ROOTDIR/cvmfs/$fqrn"
mkdir -p "$mnt" "$CVMFS_ROOTDIR/etc/cvmfs/config.d"
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
echo "== readlink $mnt/sw/1.0/arch-lib (variant symlink)"
readlink "$mnt/sw/1.0/arch-lib"
echo "== sha256 of the 20 MiB chunked file, mounted and original"
sha256sum "$mnt/sw/1.0/lib/big.dat" "$src/sw/1.0/lib/big.dat" | cut -c1-64 | uniq -c
echo "== diff -r of the source tree and the mount"
diff -r --no-dereference "$src" "$mnt" && echo "identical"
echo "== magic attributes"
for a in fqrn revision root_hash host ndownload hitrate nclg; do
  printf "user.%-10s %s\n" "$a" "$(getfattr --only-values -n "user.$a" "$mnt")"
done
echo "== cache $(du -sh "$CVMFS_ROOTDIR/var/lib/cvmfs/shared" | cut -f1) in $CVMFS_ROOTDIR/var/lib/cvmfs/shared"
if [ "$keep" = 1 ]; then
  echo "Left running: Apache at $APACHE_URL, $fqrn mounted at $mnt (umount it and run"
  echo "apachectl -f $APACHE_DIR/httpd.conf -k stop when done)."
fi
