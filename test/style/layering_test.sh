#!/usr/bin/env bash
# Every #include follows the library graph: a folder includes only the
# folders whose libraries it links (test/tools/code_metrics.py,
# LIBRARY_GRAPH; doc/architecture.md draws it).
set -euo pipefail
root=${CVMFS_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
exec python3 "$root/test/tools/code_metrics.py" --check-layering "$root"
