#!/usr/bin/env bash
# cvmfs_server diff end to end: two revisions with known changes (edit of the
# same size, deletion, addition, symlink retarget, change inside a nested
# catalog, file replaced by a directory) give exactly the expected lines, in
# machine-readable and human form, for the default pair trunk-previous ->
# trunk and for named tags. All mtimes are pinned so that only real changes
# show. Needs neither root nor FUSE.
set -euo pipefail
bin=${CVMFS_BIN_DIR:?}
work=$(mktemp -d /tmp/cvmfs-diff-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
export CVMFS_ROOTDIR=$work/root
export CVMFS_SERVER_NO_MOUNT=1  # diff reads catalogs only
fail() { echo "FAIL: diff_test: $*" >&2; exit 1; }
srv() { "$bin/cvmfs_server" "$@"; }
fqrn=diff.test.org

publish() {  # publish DIR [ingest options...]
  local dir=$1
  shift
  find "$work/$dir" -exec touch -h -d @1000000000 {} +
  tar -C "$work/$dir" --owner=0 --group=0 -cf "$work/$dir.tar" .
  srv ingest -t "$work/$dir.tar" -b sw "$@" $fqrn >/dev/null
}

srv mkfs $fqrn >/dev/null 2>&1
mkdir -p "$work/a/d" "$work/a/n" "$work/b/e" "$work/b/n" "$work/b/t"
echo one > "$work/a/a.txt"
echo x > "$work/a/d/x"
ln -s a.txt "$work/a/l"
: > "$work/a/n/.cvmfscatalog"
echo y > "$work/a/n/y"
echo t > "$work/a/t"
publish a
srv tag -a before $fqrn
echo two > "$work/b/a.txt"       # same size, other content
echo f > "$work/b/e/f"
ln -s bb "$work/b/l"             # other target, other size
echo yy > "$work/b/n/y"          # inside the nested catalog
echo u > "$work/b/t/u"           # /sw/t: file -> directory
publish b -d sw/d

tab=$'\t'
expected_changes="M[I]${tab}D${tab}/sw
M[C]${tab}F${tab}/sw/a.txt
R${tab}F${tab}/sw/d/x
R${tab}D${tab}/sw/d
A${tab}D${tab}/sw/e
A${tab}F${tab}/sw/e/f
M[SL]${tab}S${tab}/sw/l
M[SC]${tab}F${tab}/sw/n/y
M[ISM]${tab}FD${tab}/sw/t
A${tab}F${tab}/sw/t/u
S${tab}F${tab}0
S${tab}S${tab}0
S${tab}D${tab}1
S${tab}N${tab}0"

out=$(srv diff -m -h $fqrn)
[ "$(echo "$out" | head -1 | cut -c1)" = "#" ] || fail "machine-readable header: $out"
# Without -h (CVMFS: header line only on request) no header.
[ "$(srv diff -m $fqrn)" = "$expected_changes" ] || fail "diff -m printed a header without -h: $(srv diff -m $fqrn | head -1)"
[ "$(srv diff $fqrn | head -1 | cut -c1-6)" != "DELTA:" ] || fail "diff printed a header without -h"
[ "$(echo "$out" | tail -n +2)" = "$expected_changes" ] ||
  fail "diff -m: $(diff <(echo "$expected_changes") <(echo "$out" | tail -n +2))"

# The same pair named explicitly; the tag 'before' is trunk-previous.
[ "$(srv diff -m -h -s before -d trunk $fqrn | tail -n +2)" = "$expected_changes" ] ||
  fail "diff -s before -d trunk differs from the default pair"

# Human-readable, reversed.
human=$(srv diff -h -s trunk -d before $fqrn)
echo "$human" | head -1 | grep -q "^DELTA: trunk/r3 (.*) --> before/r2 (.*)$" ||
  fail "human header: $(echo "$human" | head -1)"
expected_human="/sw modify directory [link-count]
/sw/a.txt modify file [content]
/sw/d add directory
/sw/d/x add file
/sw/e/f remove file
/sw/e remove directory
/sw/l modify symlink [size, symlink-target]
/sw/n/y modify file [size, content]
/sw/t modify directory->file [link-count, size, mode]
/sw/t/u remove file
d(# regular files): 0
d(# symlinks): 0
d(# directories): -1
d(# catalogs): 0"
[ "$(echo "$human" | tail -n +2)" = "$expected_human" ] ||
  fail "human diff: $(diff <(echo "$expected_human") <(echo "$human" | tail -n +2))"

# A revision compared with itself: statistics only.
[ "$(srv diff -m -s trunk -d trunk $fqrn | grep -vc '^[#S]')" = 0 ] || fail "self-diff not empty"

# -w (worktree) is refused by name.
if out=$(srv diff -w $fqrn 2>&1); then fail "diff -w accepted"; fi
echo "$out" | grep -q "diff -w" || fail "diff -w: unclear refusal: $out"

# Unknown tags are named.
if out=$(srv diff -s nosuchtag $fqrn 2>&1); then fail "diff with an unknown tag succeeded"; fi
echo "$out" | grep -q "nosuchtag" || fail "unclear error: $out"
echo "PASS: diff_test"
