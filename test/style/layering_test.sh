#!/usr/bin/env bash
# Every #include follows the library graph: a folder includes only the
# folders whose libraries it links (test/tools/code_metrics.py,
# LIBRARY_GRAPH; doc/architecture.md draws it).
set -euo pipefail
root=${CVMFS_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
# The files are the tracked ones: outside a git checkout there is no list.
git -C "$root" rev-parse --git-dir >/dev/null 2>&1 || { echo "not a git checkout: skipped"; exit 77; }
exec python3 "$root/test/tools/code_metrics.py" --check-layering "$root"
