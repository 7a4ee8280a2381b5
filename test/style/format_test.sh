#!/usr/bin/env bash
# Checks that every tracked C++ and protobuf source (git ls-files *.cc *.h
# *.proto) is formatted as .clang-format says, with clang-format 14 (Debian
# 12's; other versions format some constructs differently). Prints the files
# that differ and exits 1 if there are any; fix one with `clang-format -i`.
# Blocks that must keep their own layout (ASCII diagrams, tables) are fenced
# with `// clang-format off` / `// clang-format on`.
#
# Exits 77 (skipped) without clang-format 14 or outside a git checkout.
# CLANG_FORMAT names the binary to use (default: clang-format-14, else
# clang-format).
set -uo pipefail
src=${CVMFS_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$src" || exit 1

tool=${CLANG_FORMAT:-}
if [ -z "$tool" ]; then
  for candidate in clang-format-14 clang-format; do
    if command -v "$candidate" >/dev/null; then
      tool=$candidate
      break
    fi
  done
fi
if [ -z "$tool" ] || ! command -v "$tool" >/dev/null; then
  echo "format_test: SKIP: clang-format not installed (packaging/install-deps.sh --integration)"
  exit 77
fi
version=$("$tool" --version | sed -n 's/.*clang-format version \([0-9]*\)\..*/\1/p')
if [ "$version" != 14 ]; then
  echo "format_test: SKIP: $tool is version ${version:-unknown}, the check is defined for 14"
  exit 77
fi
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "format_test: SKIP: $src is not a git checkout"
  exit 77
fi

mapfile -t files < <(git ls-files '*.cc' '*.h' '*.proto')
present=()
for f in "${files[@]}"; do
  [ -f "$f" ] && present+=("$f")  # not deleted in the work tree
done
# One run over all files; each violation is reported as
# "FILE:LINE:COL: error: code should be clang-formatted".
out=$(printf '%s\0' "${present[@]}" | xargs -0 "$tool" --dry-run --Werror 2>&1)
rc=$?
mapfile -t bad < <(printf '%s\n' "$out" |
  sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' |
  sort -u)

if [ ${#bad[@]} -gt 0 ]; then
  echo "format_test: ${#bad[@]} of ${#present[@]} files are not formatted ($tool):"
  printf '  %s\n' "${bad[@]}"
  echo "format_test: fix with: $tool -i FILE..."
  exit 1
fi
if [ $rc -ne 0 ]; then
  printf '%s\n' "$out"
  echo "format_test: $tool failed (exit $rc)"
  exit 1
fi
echo "format_test: all ${#present[@]} files formatted ($tool)"
