#!/usr/bin/env bash
# packaging/build-debs.sh BUILD_DIR: builds the Debian packages cvmfs and
# cvmfs-server (doc/install.md) from the CMake build in BUILD_DIR, into
# BUILD_DIR/packages/, and prints their paths. Builds only the programs the
# packages ship (reusing what BUILD_DIR has built already), then runs CPack's
# DEB generator. Needs dpkg-dev (dpkg-shlibdeps) and fakeroot-free CPack.
set -euo pipefail
build=${1:?usage: packaging/build-debs.sh BUILD_DIR}
src=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$src" -B "$build" -G Ninja >/dev/null
fi
command -v dpkg-shlibdeps >/dev/null ||
  { echo "build-debs: dpkg-shlibdeps missing (apt-get install dpkg-dev)" >&2; exit 1; }
cmake --build "$build" -j2 --target cvmfs2 mount.cvmfs cvmfs_talk cvmfs_config \
  cvmfs_server cvmfs_swissknife package_files package_server_templates
rm -f "$build"/packages/*.deb
(cd "$build" && cpack -G DEB --config CPackConfig.cmake >cpack.log 2>&1) ||
  { cat "$build/cpack.log" >&2; exit 1; }
ls "$build"/packages/*.deb
