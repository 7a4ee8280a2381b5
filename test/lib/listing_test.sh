#!/usr/bin/env bash
# Self-test of listing.py (needs neither root nor FUSE): a local tree with
# every entry kind must list exactly as written out here by hand, magic
# attributes must be left out, the order must be C byte order, and the
# fixtures' own expected.tsv files must be in the format listing.py prints.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
TEST_NAME=listing
umask 022

work=$(mktemp -d /tmp/cvmfs-listing-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
t=$work/tree
mkdir -p "$t/a" "$t/links" "$t/x"
printf 'hello' >"$t/a b"
printf 'dash' >"$t/a-b"
: >"$t/a.b"
printf 'in a' >"$t/a/b"
chmod 600 "$t/a/b"
printf '#!/bin/sh\n' >"$t/a/run"
chmod 4755 "$t/a/run"
ln "$t/a/b" "$t/a/c"
ln -s '../a b' "$t/links/rel"
ln -s '$(CVMFS_ARCH)/lib' "$t/links/variant"
mkfifo "$t/links/fifo"
printf 'x' >"$t/x/attrs"
setfattr -n user.zeta -v z "$t/x/attrs"
setfattr -n user.alpha -v 'A B' "$t/x/attrs"
setfattr -n user.empty "$t/x/attrs"
setfattr -n user.fqrn -v magic-must-not-show "$t/x/attrs"
setfattr -n user.hash -v magic-must-not-show "$t/x/attrs"
printf 'raw' >"$t/x/$(printf 'latin1-\xe9')"
find "$t" -mindepth 1 -exec touch -h -d @1700000000 {} +
touch -d @1600000001 "$t/a b"

sha() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }
T=$'\t'
expected=$(cat <<EOF
a${T}d${T}755${T}0${T}1700000000${T}-${T}2${T}-${T}-
a b${T}f${T}644${T}5${T}1600000001${T}$(sha hello)${T}1${T}-${T}-
a-b${T}f${T}644${T}4${T}1700000000${T}$(sha dash)${T}1${T}-${T}-
a.b${T}f${T}644${T}0${T}1700000000${T}$(sha '')${T}1${T}-${T}-
a/b${T}f${T}600${T}4${T}1700000000${T}$(sha 'in a')${T}2${T}-${T}-
a/c${T}f${T}600${T}4${T}1700000000${T}$(sha 'in a')${T}2${T}-${T}-
a/run${T}f${T}4755${T}10${T}1700000000${T}$(printf '#!/bin/sh\n' | sha256sum | cut -d' ' -f1)${T}1${T}-${T}-
links${T}d${T}755${T}0${T}1700000000${T}-${T}2${T}-${T}-
links/fifo${T}p${T}644${T}0${T}1700000000${T}-${T}1${T}-${T}-
links/rel${T}l${T}777${T}6${T}1700000000${T}../a b${T}1${T}-${T}-
links/variant${T}l${T}777${T}17${T}1700000000${T}\$(CVMFS_ARCH)/lib${T}1${T}-${T}-
x${T}d${T}755${T}0${T}1700000000${T}-${T}2${T}-${T}-
x/attrs${T}f${T}644${T}1${T}1700000000${T}$(sha x)${T}1${T}-${T}user.alpha=412042,user.empty=,user.zeta=7a
x/latin1-$(printf '\xe9')${T}f${T}644${T}3${T}1700000000${T}$(sha raw)${T}1${T}-${T}-
EOF
)
# umask-dependent modes: normalize the expectation to what was created.
fifo_mode=$(stat -c %a "$t/links/fifo")
expected=${expected/links\/fifo${T}p${T}644/links\/fifo${T}p${T}$fifo_mode}

actual=$(python3 "$here/listing.py" "$t")
if [ "$actual" != "$expected" ]; then
  diff <(echo "$expected") <(echo "$actual") | cat -A >&2 || true
  fail "listing.py output differs from the hand-written listing (< expected, > actual)"
fi

# The fixtures' listings: 9 fields a line, C byte order, no magic attributes.
fixtures=${CVMFS_FIXTURES_DIR:-$SOURCE_DIR/../shared/fixtures}
for tsv in "$fixtures"/*/expected*.tsv; do
  [ -f "$tsv" ] || continue
  awk -F'\t' 'NF != 9 { print FILENAME ":" NR ": " NF " fields"; bad = 1 } END { exit bad }' "$tsv" ||
    fail "$tsv is not in the 9-column format"
  cut -f1 "$tsv" | LC_ALL=C sort -c 2>/dev/null || fail "$tsv is not in C byte order"
  if grep -qE $'\t''user\.(fqrn|hash|revision|root_hash)=' "$tsv"; then
    fail "$tsv lists a magic attribute"
  fi
done
echo "PASS: listing: listing.py matches the hand-written listing and the fixture format"
