#!/usr/bin/env bash
# The main job: installs what it needs, builds, creates a repository under a
# private CVMFS_ROOTDIR, publishes a sample tree into it and shows it.
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
cmake -S . -B build -G Ninja >/dev/null
cmake --build build -j2
bin="$PWD/build/bin"
export CVMFS_ROOTDIR="${CVMFS_ROOTDIR:-$(mktemp -d /tmp/cvmfs-demo.XXXXXX)}"
echo "== CVMFS_ROOTDIR=$CVMFS_ROOTDIR"
fqrn=demo.example.org
"$bin/cvmfs_server" mkfs -o "$(id -un)" "$fqrn"

# A sample software tree: sources, a large (chunked) file, links, a nested catalog.
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
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
