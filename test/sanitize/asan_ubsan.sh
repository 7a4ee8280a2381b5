#!/usr/bin/env bash
# AddressSanitizer, LeakSanitizer and UndefinedBehaviorSanitizer over the
# unit tests of every component and the client's integration tests (real
# FUSE mounts: test/client, test/cache, test/talk, test/failover).
#
#   test/sanitize/asan_ubsan.sh [BUILD_DIR]          (default: build-asan)
#
# One Clang build of everything: -fsanitize=address,undefined with
# -fno-sanitize-recover=all (any UBSan report is fatal), at -O1
# -gline-tables-only (fast enough to build and to run; stacks keep their
# files and lines, and the build is 10-15% faster than with -g), and with
# -Werror=thread-safety, so this build also checks the locking annotations
# (as test/style/thread_safety_check.sh does alone).
# CVMFS_SANITIZE_EXTRA_CMAKE_ARGS adds cmake arguments (e.g. -DCVMFS_FUZZ=ON).
# Uses ccache when installed. Exits non-zero if the build fails, a test
# fails, or any process (daemons included) wrote a sanitizer report.
set -euo pipefail
source "$(dirname "$0")/common.sh"
build=${1:-$SANITIZE_SRC/build-asan}
sanitize_need clang clang++
flags="-O1 -gline-tables-only -fno-sanitize-recover=all"
# shellcheck disable=SC2046,SC2086  # the launcher and extra args are word lists
cmake -S "$SANITIZE_SRC" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=None \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCVMFS_SANITIZE=address,undefined \
  "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_CXX_FLAGS=$flags -Werror=thread-safety" \
  $(sanitize_launcher) ${CVMFS_SANITIZE_EXTRA_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j2

reports=$build/sanitizer-reports
sanitize_reset_reports "$reports"
supp=$SANITIZE_SRC/test/sanitize
common="halt_on_error=1:abort_on_error=1:print_stacktrace=1:log_exe_name=1"
export ASAN_OPTIONS="$common:detect_leaks=1:log_path=$reports/asan"
export UBSAN_OPTIONS="$common:log_path=$reports/ubsan"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp"

# Unit tests of every component (label "unit") and the integration tests of
# the client side. The publisher's and server's integration tests are left
# to the main build: they exercise the same libraries that their unit tests
# cover here, and would double the run time.
rc=0
# The mount tests of the fixture repositories run for both fixtures in the
# main suite; here for shake128-none only: the sha1-zlib fixture takes the
# same code paths and its eight mount tests took 220 s under ASan.
ctest --test-dir "$build" -L '^(unit|client|cache|talk|failover)$' \
  -E '^Fixtures/Fixture(Mount|Prefetch)Test\..*/sha1_zlib_example_org' \
  --output-on-failure -j2 --timeout 900 || rc=1
sanitize_check_reports "$reports" || rc=1
if [[ $rc == 0 ]]; then
  echo "asan_ubsan: no test failed and no sanitizer report"
fi
exit $rc
