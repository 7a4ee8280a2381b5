#!/usr/bin/env bash
# kill -9 of `cvmfs_server ingest` at points spread over its run: after each
# kill the served manifest is the previous one or a complete new revision,
# `check -i` passes, `info` works and the publish lock is free; afterwards an
# ingest succeeds, removes what the killed processes left in the spool and in
# data/txn, and `check -i` passes.
#
# Each kill point gets a tarball of its own content (same shape, another
# seed), so that no run is shortened by objects an earlier killed run stored
# and the kill points cover reading, storing and committing alike.
# These tests exercise ingest and the storage; they need no transaction
# mounts (test/transaction/ covers those).
export CVMFS_SERVER_NO_MOUNT=1
set -euo pipefail
bin=${CVMFS_BIN_DIR:?}
work=$(mktemp -d /tmp/cvmfs-kill-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
export CVMFS_ROOTDIR=$work/root
fail() { echo "FAIL: $*" >&2; exit 1; }
srv() { "$bin/cvmfs_server" "$@"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# Deterministic, incompressible bytes: gen BYTES SEED
gen() {
  if command -v openssl >/dev/null; then
    (openssl enc -aes-128-ctr -nosalt -pbkdf2 -pass "pass:$2" -in /dev/zero 2>/dev/null || true) |
      head -c "$1"
  else
    head -c "$1" /dev/urandom
  fi
}
# make_tarball SEED: $work/<SEED>.tar with 2000 files of 4 KiB, 8 of 1 MiB
# and two chunked ones (~31 MB).
make_tarball() {
  local tree=$work/tree pool=$work/pool
  mkdir -p "$tree/small" "$tree/medium" "$tree/large"
  gen 31000000 "kill-test-$1" > "$pool"
  slice() { dd if="$pool" bs=1M iflag=skip_bytes,count_bytes skip="$1" count="$2" status=none; }
  slice 0 8192000 | split -b 4096 -a 4 -d - "$tree/small/f"
  slice 8192000 8388608 | split -b 1048576 -a 1 -d - "$tree/medium/m"
  slice 16580608 14419392 | split -b 8000000 -a 1 -d - "$tree/large/l"
  tar -C "$tree" -cf "$work/$1.tar" .
  rm -rf "$tree" "$pool"
}

# How long an ingest takes here, measured on a repository of its own.
make_tarball measure
srv mkfs measure.test.org >/dev/null
start=$(now_ms)
srv ingest -t "$work/measure.tar" -b big measure.test.org >/dev/null
duration=$(($(now_ms) - start))
srv rmfs -f measure.test.org >/dev/null
rm "$work/measure.tar"
echo "kill_test: an unkilled ingest takes ${duration} ms"

fqrn=kill.test.org
storage=$CVMFS_ROOTDIR/srv/cvmfs/$fqrn
spool=$CVMFS_ROOTDIR/var/spool/cvmfs/$fqrn
manifest=$storage/.cvmfspublished
revision() { sed -n '/^--$/q;s/^S//p' "$manifest"; }
srv mkfs $fqrn >/dev/null
mkdir -p "$work/small"
echo hello > "$work/small/hello.txt"
tar -C "$work/small" -cf "$work/small.tar" .
srv ingest -t "$work/small.tar" -b / $fqrn >/dev/null
[ "$(revision)" = 2 ] || fail "expected revision 2"
cp "$manifest" "$work/manifest.before"
old_rev=2

# Temporaries named after processes that are gone (kill -9 leaves them).
count_stale() {
  local n=0 name
  for name in $(ls -A "$spool/tmp" "$storage/data/txn" 2>/dev/null); do
    [[ $name =~ ^(work|\.tmp)\.([0-9]+)\. ]] || continue
    kill -0 "${BASH_REMATCH[2]}" 2>/dev/null || n=$((n + 1))
  done
  echo $n
}

outcomes=""
stale_seen=0
i=0
for delay in 50 $((duration * 20 / 100)) $((duration * 40 / 100)) $((duration * 60 / 100)) \
             $((duration * 80 / 100)) $((duration * 95 / 100)); do
  i=$((i + 1))
  make_tarball $i
  # Not through srv(): $! must be cvmfs_server itself, not a subshell.
  "$bin/cvmfs_server" ingest -t "$work/$i.tar" -b big $fqrn >/dev/null 2>&1 &
  pid=$!
  sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
  kill -9 $pid 2>/dev/null || true
  wait $pid 2>/dev/null && status=0 || status=$?
  if cmp -s "$work/manifest.before" "$manifest"; then
    outcome=old
  elif [ "$(revision)" = $((old_rev + 1)) ]; then
    outcome=new  # the kill came after the commit point
    old_rev=$((old_rev + 1))
    cp "$manifest" "$work/manifest.before"
  else
    fail "after a kill at ${delay} ms the manifest has revision $(revision), expected $old_rev or $((old_rev + 1))"
  fi
  stale=$(count_stale)
  stale_seen=$((stale_seen + stale))
  outcomes+=" ${delay}ms:$outcome(exit $status, $stale stale)"
  srv check -i $fqrn >"$work/check" 2>&1 || { cat "$work/check"; fail "check -i after a kill at ${delay} ms"; }
  srv info $fqrn >/dev/null || fail "info after a kill at ${delay} ms"
  flock -n "$spool/is_publishing.lock" true || fail "lock still held after a kill at ${delay} ms"
  [ $i = 6 ] || rm "$work/$i.tar"
done
echo "kill_test: kills at$outcomes"

# Each publish removes what earlier killed ones left; at least one kill must
# have left something, or the kill points missed the ingest.
[ "$stale_seen" -gt 0 ] || fail "no kill left a temporary behind (kills too early or too late?)"
stale=$(count_stale)
out=$(srv ingest -t "$work/$i.tar" -b big $fqrn) || fail "ingest after the kills"
if [ "$stale" -gt 0 ]; then
  echo "$out" | grep -q "removed $stale temporaries left by killed publishes" ||
    fail "expected the removal of $stale temporaries: $out"
fi
[ "$(revision)" = $((old_rev + 1)) ] || fail "final ingest did not publish revision $((old_rev + 1))"
[ -z "$(ls -A "$spool/tmp")" ] || fail "spool/tmp not empty: $(ls -A "$spool/tmp")"
[ -z "$(ls -A "$storage/data/txn")" ] || fail "data/txn not empty: $(ls -A "$storage/data/txn")"
srv check -i $fqrn >/dev/null || fail "check -i at the end"
echo "kill_test: all passed"
