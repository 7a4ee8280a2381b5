#!/usr/bin/env bash
# Keeps the locking annotations true: builds the libraries (not the tests or
# programs) with Clang in a second build directory, with -Wthread-safety
# warnings as errors (cvmfs/thread_annotations.h, cvmfs/mutex.h). GCC has no
# such analysis, so the main build cannot check them.
#
#   test/style/thread_safety_check.sh [BUILD_DIR]   (default: build-clang)
#
# Needs clang (packaging/install-deps.sh --integration installs it). Uses
# ccache when it is installed. Exits non-zero on a violated annotation.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build-clang}
for tool in clang clang++; do
  if ! command -v "$tool" >/dev/null; then
    echo "thread_safety_check: $tool not found (packaging/install-deps.sh --integration)" >&2
    exit 2
  fi
done
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache
                                         -DCMAKE_C_COMPILER_LAUNCHER=ccache)
# Build type "None": no -O or -g (the analysis does not need them, and the
# objects are only checked), which halves the cost.
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=None \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_CXX_FLAGS=-Werror=thread-safety "${launcher[@]}" >/dev/null
cmake --build "$build" -j2 --target cvmfs_core cvmfs_testing cvmfs_cache \
  cvmfs_client cvmfs_fuse cvmfs_client_tools cvmfs_publisher cvmfs_serving
echo "thread_safety_check: the libraries build with -Werror=thread-safety"
