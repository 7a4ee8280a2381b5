#!/usr/bin/env bash
# Runs the whole test suite on a fresh Debian 12 machine: installs the
# dependencies, builds, and runs every test through ctest (unit tests of each
# component, the command-line tests and the FUSE/Apache integration tests).
# Warnings are errors here (CVMFS_WERROR); the locking annotations are
# checked by a second, Clang build of the libraries.
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh --integration --bench-suite
cmake -S . -B build -G Ninja -DCVMFS_WERROR=ON >/dev/null
cmake --build build -j2
test/style/thread_safety_check.sh build-clang
cd build
ctest --output-on-failure -j2 --timeout 600 "$@"
