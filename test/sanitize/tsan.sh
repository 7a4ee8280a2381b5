#!/usr/bin/env bash
# ThreadSanitizer over the unit tests of the multi-threaded parts: the
# client (FUSE-free file system, fetcher sharing, prefetch, updater, control
# socket), the cache (quota, cache manager) and the network code.
#
#   test/sanitize/tsan.sh [BUILD_DIR]                (default: build-tsan)
#
# A Clang build (-DCVMFS_SANITIZE=thread, -O1 -gline-tables-only) of just
# these three test binaries. Of cvmfs_core_tests only the network suites
# run: the rest of the core (hashes, catalogs, signatures, configuration) is
# single-threaded format code that the ASan/UBSan run covers, and skipping
# it keeps this run short. Uses ccache when installed. Exits non-zero if the build
# fails, a test fails, or ThreadSanitizer reported anything.
set -euo pipefail
source "$(dirname "$0")/common.sh"
build=${1:-$SANITIZE_SRC/build-tsan}
sanitize_need clang clang++
flags="-O1 -gline-tables-only"
# shellcheck disable=SC2046  # the launcher is a word list
cmake -S "$SANITIZE_SRC" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=None \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCVMFS_SANITIZE=thread "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_CXX_FLAGS=$flags" \
  $(sanitize_launcher) >/dev/null
cmake --build "$build" -j2 --target cvmfs_client_tests cvmfs_cache_tests \
  cvmfs_core_tests

reports=$build/sanitizer-reports
sanitize_reset_reports "$reports"
export TSAN_OPTIONS="halt_on_error=1:abort_on_error=1:second_deadlock_stack=1:log_exe_name=1:log_path=$reports/tsan:suppressions=$SANITIZE_SRC/test/sanitize/tsan.supp"
export CVMFS_SOURCE_DIR=$SANITIZE_SRC CVMFS_BIN_DIR=$build/bin

network='HttpFetcherTest.*:HttpAdmissionTest.*:ConnectionLimitTest.*:FailoverStateTest.*:FailoverResetTest.*:TransferFaultTest.*:WholeInflateBudgetTest.*:BufferPoolTest.*:NotificationSubscriberTest.*'
# Runs one test binary (with its arguments); its output goes to a log that
# is printed if it fails. The client's tests wait on threads and sockets more
# than they compute, so their two halves (gtest shards) run side by side, each
# followed by a shorter binary: two streams for two cores.
run() {
  local log=$build/tsan-$1-${GTEST_SHARD_INDEX:-all}.log
  echo "tsan: $* ${GTEST_SHARD_INDEX:+(shard $GTEST_SHARD_INDEX of $GTEST_TOTAL_SHARDS)}"
  if ! "$build/tests/$@" --gtest_brief=1 >"$log" 2>&1; then
    echo "tsan: $1 failed:" >&2
    cat "$log" >&2
    return 1
  fi
}
rc=0
(r=0
  GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=0 run cvmfs_client_tests || r=1
  run cvmfs_cache_tests || r=1
  exit $r) &
first=$!
(r=0
  GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=1 run cvmfs_client_tests || r=1
  run cvmfs_core_tests "--gtest_filter=$network" || r=1
  exit $r) &
second=$!
wait $first || rc=1
wait $second || rc=1
sanitize_check_reports "$reports" || rc=1
if [[ $rc == 0 ]]; then
  echo "tsan: no test failed and no ThreadSanitizer report"
fi
exit $rc
