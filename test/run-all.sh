#!/usr/bin/env bash
# Runs the whole test suite on a fresh Debian 12 machine: installs the
# dependencies, builds, and runs every test through ctest (unit tests of each
# component, the command-line tests and the FUSE/Apache integration tests).
# Warnings are errors here (CVMFS_WERROR). Then the sanitizers
# (test/sanitize/, doc/testing.md): a Clang ASan/UBSan build, which also
# checks the locking annotations (-Werror=thread-safety), runs the unit tests
# and the client's integration tests, and a TSan build runs the unit tests
# of the threaded components. The ASan build also carries the libFuzzer
# targets (CVMFS_FUZZ): each runs for CVMFS_FUZZ_SECONDS (10) from its seed
# corpus (test/fuzz/run.sh). Arguments go to the main ctest run;
# CVMFS_SANITIZERS=0 skips the sanitizer and fuzzing runs. Exits non-zero if
# anything failed.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's wall time goes to the log (CI's limit is the whole run's).
phase_start=$SECONDS
phase() {
  echo "run-all: $1 took $((SECONDS - phase_start)) s (total $SECONDS s)"
  phase_start=$SECONDS
}
# What failed, repeated at the end (CI shows the tail of the log): the
# phase, and the tests ctest lists as failed in that phase's build tree.
failures=()
failed() {
  local what=$1 tree=${2:-}
  local list=$tree/Testing/Temporary/LastTestsFailed.log
  if [[ -n $tree && -s $list ]]; then
    what+=": $(cut -d: -f2- "$list" | tr '\n' ' ')"
  fi
  failures+=("$what")
  rc=1
}
packaging/install-deps.sh --integration --bench-suite --no-s3
# SeaweedFS (the S3 tests' server, test/lib/s3.sh) takes ~10 min of one core
# to build from the Go module proxy: built in the background, niced, beside
# the C++ build, the main ctest run and the sanitizers; the S3 tests (label
# s3) run last, once it is there.
weed_log=$(mktemp)
nice -n 15 packaging/install-deps.sh --s3 >"$weed_log" 2>&1 &
weed_pid=$!
cmake -S . -B build -G Ninja -DCVMFS_WERROR=ON >/dev/null
cmake --build build -j2
phase "dependencies and build"
rc=0
(cd build && ctest --output-on-failure -j2 --timeout 600 -LE s3 "$@") ||
  failed "test suite" build
phase "test suite"
if [[ ${CVMFS_SANITIZERS:-1} != 0 ]]; then
  CVMFS_SANITIZE_EXTRA_CMAKE_ARGS=-DCVMFS_FUZZ=ON \
    test/sanitize/asan_ubsan.sh build-asan || failed "ASan/UBSan" build-asan
  phase "ASan/UBSan"
  test/fuzz/run.sh build-asan "${CVMFS_FUZZ_SECONDS:-10}" || failed "fuzzing"
  phase "fuzzing"
  test/sanitize/tsan.sh build-tsan || failed "TSan"
  phase "TSan"
fi
if wait "$weed_pid"; then
  phase "waiting for SeaweedFS"
  (cd build && ctest --output-on-failure --timeout 600 -L s3 "$@") ||
    failed "S3 tests" build
  phase "S3 tests"
else
  echo "run-all: building SeaweedFS failed; the S3 tests did not run:" >&2
  tail -n 30 "$weed_log" >&2
  failed "building SeaweedFS"
fi
rm -f "$weed_log"
if ((${#failures[@]})); then
  for f in "${failures[@]}"; do echo "run-all: FAILED: $f"; done
else
  echo "run-all: every phase passed"
fi
exit $rc
