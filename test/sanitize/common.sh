# What test/sanitize/asan_ubsan.sh and tsan.sh share (sourced).
#
# Sanitizer reports are written to files (log_path) rather than stderr: the
# daemons of the integration tests (cvmfs2, the cache manager) run detached
# with their stderr going nowhere, and a report there would be lost. After
# the tests, sanitize_check_reports fails if any report file exists and
# prints them all.

SANITIZE_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# Exits 2 unless every named program is on PATH.
sanitize_need() {
  local tool
  for tool in "$@"; do
    if ! command -v "$tool" >/dev/null; then
      echo "$(basename "$0"): $tool not found (packaging/install-deps.sh --integration)" >&2
      exit 2
    fi
  done
}

# The compiler launcher arguments for cmake: ccache when installed (and not
# disabled with CCACHE_DISABLE=1, which ccache itself honours).
sanitize_launcher() {
  if command -v ccache >/dev/null; then
    echo -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
  fi
}

# Empties the report directory DIR (created if missing).
sanitize_reset_reports() {
  rm -rf "$1"
  mkdir -p "$1"
}

# Returns non-zero and prints every report if DIR holds any.
sanitize_check_reports() {
  local dir=$1 found=0 f
  for f in "$dir"/*; do
    [[ -e $f ]] || continue
    if [[ $found == 0 ]]; then
      echo "$(basename "$0"): sanitizer reports in $dir:" >&2
    fi
    found=1
    echo "==== $f" >&2
    cat "$f" >&2
  done
  [[ $found == 0 ]]
}
