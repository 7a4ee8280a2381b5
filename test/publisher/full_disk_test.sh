#!/usr/bin/env bash
# A full disk during `cvmfs_server ingest`, for the storage (srv/) and for the
# spool (var/spool/, where catalogs are built), each on its own small tmpfs:
# the ingest fails with a message that says what could not be written where,
# the served manifest stays byte for byte, `check -i` passes, and once there
# is room the same ingest succeeds. Needs root (mount); exits 77 otherwise.
# These tests exercise ingest and the storage; they need no transaction
# mounts (test/transaction/ covers those).
export CVMFS_SERVER_NO_MOUNT=1
set -euo pipefail
bin=${CVMFS_BIN_DIR:?}
[ "$(id -u)" = 0 ] || { echo "full_disk_test: SKIP (needs root to mount tmpfs)"; exit 77; }
work=$(mktemp -d /tmp/cvmfs-full-disk-test.XXXXXX)
export CVMFS_ROOTDIR=$work/root
srv_mnt=$CVMFS_ROOTDIR/srv
spool_mnt=$CVMFS_ROOTDIR/var/spool/cvmfs
cleanup() {
  for m in "$spool_mnt" "$srv_mnt"; do
    if mountpoint -q "$m"; then umount "$m" || umount -l "$m"; fi
  done
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
srv() { "$bin/cvmfs_server" "$@"; }
# Deterministic, incompressible bytes: gen BYTES SEED
gen() {
  if command -v openssl >/dev/null; then
    (openssl enc -aes-128-ctr -nosalt -pbkdf2 -pass "pass:$2" -in /dev/zero 2>/dev/null || true) |
      head -c "$1"
  else
    head -c "$1" /dev/urandom
  fi
}

mkdir -p "$srv_mnt" "$spool_mnt"
mount -t tmpfs -o size=24m,mode=0755 tmpfs "$srv_mnt" 2>/dev/null ||
  { echo "full_disk_test: SKIP (cannot mount tmpfs here)"; exit 77; }
mount -t tmpfs -o size=1m,mode=0755 tmpfs "$spool_mnt"

fqrn=full.test.org
manifest=$srv_mnt/cvmfs/$fqrn/.cvmfspublished
srv mkfs $fqrn >/dev/null
mkdir -p "$work/small"
echo hello > "$work/small/hello.txt"
tar -C "$work/small" -cf "$work/small.tar" .
srv ingest -t "$work/small.tar" -b / $fqrn >/dev/null

# Data objects do not fit: 40 MB that zlib cannot shrink, on 24 MiB.
mkdir -p "$work/big"
for i in 1 2 3 4; do gen 10000000 "big$i" > "$work/big/part$i"; done
tar -C "$work/big" -cf "$work/big.tar" .
cp "$manifest" "$work/manifest.before"
if srv ingest -t "$work/big.tar" -b big $fqrn >"$work/out" 2>"$work/err"; then
  fail "ingest into a full storage succeeded"
fi
cat "$work/err"
grep -q "No space left on device" "$work/err" || fail "no 'No space left on device' in: $(cat "$work/err")"
grep -q "publishing /big/part" "$work/err" || fail "the message does not name the file: $(cat "$work/err")"
grep -q "$srv_mnt/cvmfs/$fqrn" "$work/err" || fail "the message does not name the storage: $(cat "$work/err")"
grep -q "nothing was published; $fqrn stays at revision 2" "$work/err" || fail "no 'nothing was published'"
cmp -s "$work/manifest.before" "$manifest" || fail "manifest changed by a failed ingest"
srv check -i $fqrn >/dev/null || fail "check -i after the failed ingest"
srv info $fqrn >/dev/null || fail "info after the failed ingest"
[ -z "$(ls -A "$srv_mnt/cvmfs/$fqrn/data/txn")" ] || fail "partial objects left in data/txn"

mount -o remount,size=128m "$srv_mnt"
srv ingest -t "$work/big.tar" -b big $fqrn >/dev/null || fail "ingest after making room"
grep -q '^S3$' "$manifest" || fail "expected revision 3"
srv check -i $fqrn >/dev/null || fail "check -i after making room"

# The catalog does not fit in the spool: 12000 entries on 1 MiB.
mkdir -p "$work/many"
(cd "$work/many" && touch entry-with-a-rather-long-name-{1..12000})
tar -C "$work/many" -cf "$work/many.tar" .
cp "$manifest" "$work/manifest.before"
if srv ingest -t "$work/many.tar" -b many $fqrn >"$work/out" 2>"$work/err"; then
  fail "ingest with a full spool succeeded"
fi
cat "$work/err"
grep -qE "no space: .*database or disk is full" "$work/err" || fail "unclear message: $(cat "$work/err")"
grep -q "writing the catalog of /" "$work/err" || fail "the message does not name the catalog"
cmp -s "$work/manifest.before" "$manifest" || fail "manifest changed by a failed ingest"
srv check -i $fqrn >/dev/null || fail "check -i after the spool was full"
[ -z "$(ls -A "$spool_mnt/$fqrn/tmp")" ] || fail "temporaries left in the spool: $(ls "$spool_mnt/$fqrn/tmp")"

mount -o remount,size=32m "$spool_mnt"
srv ingest -t "$work/many.tar" -b many $fqrn >/dev/null || fail "ingest after making room in the spool"
grep -q '^S4$' "$manifest" || fail "expected revision 4"
srv check -i $fqrn >/dev/null || fail "check -i at the end"
echo "full_disk_test: all passed"
