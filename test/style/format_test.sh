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
bad=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue  # deleted in the work tree, not yet committed
  "$tool" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done

if [ ${#bad[@]} -gt 0 ]; then
  echo "format_test: ${#bad[@]} of ${#files[@]} files are not formatted ($tool):"
  printf '  %s\n' "${bad[@]}"
  echo "format_test: fix with: $tool -i FILE..."
  exit 1
fi
echo "format_test: all ${#files[@]} files formatted ($tool)"
