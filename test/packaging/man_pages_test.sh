#!/usr/bin/env bash
# The man pages of packaging/man/ (installed by the Debian packages) document
# every subcommand and option that the programs' --help lists, and
# `man --warnings -l` renders each without a warning (man_coverage.py).
# A subcommand or option added to a program without its man page fails here.
# Needs no root: runs the programs' --help only. Skipped without man(1).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SOURCE_DIR=${CVMFS_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
BIN=${CVMFS_BIN_DIR:-$SOURCE_DIR/build/bin}
command -v man >/dev/null || { echo "SKIP: man_pages: man-db is not installed"; exit 77; }
for p in cvmfs2 mount.cvmfs cvmfs_config cvmfs_talk cvmfs_server cvmfs_gateway cvmfs_swissknife; do
  [ -x "$BIN/$p" ] || { echo "FAIL: man_pages: $BIN/$p not built" >&2; exit 1; }
done
if ! out=$(python3 "$here/man_coverage.py" "$BIN" "$SOURCE_DIR/packaging/man"); then
  echo "$out" | sed 's/^/FAIL: man_pages: /' >&2
  exit 1
fi
echo "PASS: man_pages: every subcommand and option of --help is documented, no warnings"
