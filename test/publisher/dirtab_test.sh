#!/usr/bin/env bash
# .cvmfsdirtab through `cvmfs_server ingest`: the rules of the tarball's (or
# the published) dirtab make nested catalogs of the directories the tarball
# creates; a malformed dirtab fails the ingest naming its line and leaves the
# served revision alone.
# These tests exercise ingest and the storage; they need no transaction
# mounts (test/transaction/ covers those).
export CVMFS_SERVER_NO_MOUNT=1
set -euo pipefail
bin=${CVMFS_BIN_DIR:?}
work=$(mktemp -d /tmp/cvmfs-dirtab-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
export CVMFS_ROOTDIR=$work/root
fail() { echo "FAIL: $*" >&2; exit 1; }
srv() { "$bin/cvmfs_server" "$@"; }
fqrn=dirtab.test.org
manifest=$CVMFS_ROOTDIR/srv/cvmfs/$fqrn/.cvmfspublished
catalogs() { srv list-catalogs -x $fqrn | sort | tr '\n' ' '; }

srv mkfs $fqrn >/dev/null
src=$work/src
mkdir -p "$src"/software/{gcc/v1,gcc/v2,tmp,x.git,.hidden} "$src/docs"
printf '/software/*\n/software/*/v*\n! *.git\n! /software/tmp\n' > "$src/.cvmfsdirtab"
echo gcc > "$src/software/gcc/v1/gcc"
tar -C "$src" -cf "$work/t.tar" .
srv ingest -t "$work/t.tar" -b / $fqrn >/dev/null
got=$(catalogs)
[ "$got" = "/ /software/gcc /software/gcc/v1 /software/gcc/v2 " ] || fail "catalogs: $got"
srv check -i $fqrn >/dev/null || fail "check -i after the dirtab ingest"

# The published dirtab applies to the next tarball's directories.
mkdir -p "$work/more/python/v3"
tar -C "$work/more" -cf "$work/more.tar" .
srv ingest -t "$work/more.tar" -b software $fqrn >/dev/null
got=$(catalogs)
[ "$got" = "/ /software/gcc /software/gcc/v1 /software/gcc/v2 /software/python /software/python/v3 " ] ||
  fail "catalogs after the second ingest: $got"
srv check -i $fqrn >/dev/null || fail "check -i after the second ingest"

# A contradiction is an error naming the line; nothing is published.
cp "$manifest" "$work/manifest.before"
printf '/software/*\n! /software/*\n' > "$src/.cvmfsdirtab"
tar -C "$src" -cf "$work/bad.tar" .
if srv ingest -t "$work/bad.tar" -b / $fqrn 2>"$work/err"; then fail "contradictory dirtab accepted"; fi
grep -q '/.cvmfsdirtab line 2: .*contradicts' "$work/err" || fail "unclear message: $(cat "$work/err")"
cmp -s "$work/manifest.before" "$manifest" || fail "manifest changed by a failed ingest"
echo "dirtab_test: all passed"
