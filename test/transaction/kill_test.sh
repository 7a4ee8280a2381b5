#!/usr/bin/env bash
# kill -9 of `cvmfs_server publish` (of a transaction) at points spread over
# its run. After each kill: the served manifest is the previous revision or
# a complete new one, `check -i` passes and the lock is free. Then the
# transaction is finished by `publish` (or thrown away by `abort`, every
# other round): both must work whatever the kill interrupted (the upper
# layer scan, the storing of objects, the catalogs, the remount after the
# commit), and afterwards the mounts are healthy, no transaction is open and
# the union shows the published revision. Where the kills land varies with
# the machine's load; the window between the commit point and the end of the
# cleanup is also hit for certain, by a publish whose unmount fails (a
# process inside the union), finished by publish and by abort with both
# layers unmounted as after a crash.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/publish.sh"

test_init txn_kill 600
require_bins cvmfs_server cvmfs2
grep -qw overlay /proc/filesystems || skip "the kernel has no overlayfs"
srv() { "$BIN/cvmfs_server" "$@"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# fill DIR SEED: 1500 files of 4 KiB, 6 of 1 MiB, two chunked ones of 8 MB.
fill() {
  local dir=$1 seed=$2 pool=$WORK/pool
  mkdir -p "$dir/small" "$dir/medium" "$dir/large"
  make_random_file "$pool" 28436000 "txn-kill-$seed"
  slice() { dd if="$pool" bs=1M iflag=skip_bytes,count_bytes skip="$1" count="$2" status=none; }
  slice 0 6144000 | split -b 4096 -a 4 -d - "$dir/small/f"
  slice 6144000 6291456 | split -b 1048576 -a 1 -d - "$dir/medium/m"
  slice 12435456 16000000 | split -b 8000000 -a 1 -d - "$dir/large/l"
  rm "$pool"
}

fqrn=kill.test.org
on_exit "\"$BIN/cvmfs_server\" rmfs -f $fqrn >/dev/null 2>&1 || true"
union=$CVMFS_ROOTDIR/cvmfs/$fqrn
spool=$CVMFS_ROOTDIR/var/spool/cvmfs/$fqrn
manifest=$(repo_storage $fqrn)/.cvmfspublished
revision() { sed -n '/^--$/q;s/^S//p' "$manifest"; }
srv mkfs $fqrn >/dev/null

# How long an unkilled publish of one round takes here (round 0).
srv transaction $fqrn >/dev/null
fill "$union/round0" 0
start=$(now_ms)
srv publish $fqrn >/dev/null
duration=$(($(now_ms) - start))
note "an unkilled publish takes ${duration} ms"
cp "$manifest" "$WORK/manifest.before"
old_rev=$(revision)

outcomes=""
i=0
for delay in 50 $((duration * 20 / 100)) $((duration * 40 / 100)) $((duration * 60 / 100)) \
             $((duration * 80 / 100)) $((duration * 95 / 100)) $((duration * 100 / 100)) \
             $((duration * 105 / 100)) $((duration * 110 / 100)); do
  i=$((i + 1))
  srv transaction $fqrn >/dev/null || fail "round $i: transaction"
  fill "$union/round$i" "$i"
  echo "round $i" >"$union/marker"
  expected=$(sha256_of "$union/round$i/large/l0")
  # Not through srv(): $! must be cvmfs_server itself.
  "$BIN/cvmfs_server" publish $fqrn >"$WORK/publish.$i" 2>&1 &
  pid=$!
  sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
  kill -9 $pid 2>/dev/null || true
  wait $pid 2>/dev/null && status=0 || status=$?
  if cmp -s "$WORK/manifest.before" "$manifest"; then
    outcome=old
  elif [ "$(revision)" = $((old_rev + 1)) ]; then
    outcome=new  # the kill came after the commit point
  else
    fail "round $i: after a kill at ${delay} ms the manifest has revision $(revision), expected $old_rev or $((old_rev + 1))"
  fi
  srv check -i $fqrn >"$WORK/check" 2>&1 || { cat "$WORK/check"; fail "round $i: check -i after a kill at ${delay} ms"; }
  flock -n "$spool/is_publishing.lock" true || fail "round $i: lock still held after the kill"

  # Finish the transaction: publish in odd rounds, abort in even ones
  # (unless the publish completed before the kill).
  if ! srv list | grep -q "in transaction"; then
    [ "$outcome" = new ] || fail "round $i: no transaction open, but nothing was published"
    action=none
  elif [ $((i % 2)) = 1 ]; then
    action=publish
    srv publish $fqrn >"$WORK/finish.$i" 2>&1 || fail "round $i: publish after a kill at ${delay} ms: $(cat "$WORK/finish.$i")"
    [ "$(revision)" = $((old_rev + 1)) ] || fail "round $i: publish after the kill did not publish revision $((old_rev + 1))"
  else
    action=abort
    srv abort -f $fqrn >"$WORK/finish.$i" 2>&1 || fail "round $i: abort after a kill at ${delay} ms: $(cat "$WORK/finish.$i")"
  fi
  if [ "$(revision)" = $((old_rev + 1)) ]; then
    old_rev=$((old_rev + 1))
    [ "$(cat "$union/marker")" = "round $i" ] || check_failed "round $i: the union does not show the published revision"
    [ "$(sha256_of "$union/round$i/large/l0")" = "$expected" ] || check_failed "round $i: large/l0 differs in the union"
  else
    [ ! -e "$union/round$i" ] || check_failed "round $i: aborted content still in the union"
  fi
  cp "$manifest" "$WORK/manifest.before"
  state=$(srv list)
  [ "$state" = "$fqrn (stratum0 / local)" ] || check_failed "round $i: after $action: $state"
  mountpoint -q "$spool/rdonly" || check_failed "round $i: read-only layer not mounted"
  findmnt -n -o OPTIONS "$union" | grep -q '^ro,' || check_failed "round $i: union not mounted read-only"
  [ -z "$(ls -A "$spool/scratch/current")" ] || check_failed "round $i: scratch area not empty"
  outcomes+=" ${delay}ms:$outcome(exit $status)+$action"
done
note "kills at$outcomes"

# The window between the commit point and the end of the cleanup is short;
# stop a publish there for certain: a process with its working directory in
# the union makes the unmount fail after the manifest was written.
for action in publish abort; do
  srv transaction $fqrn >/dev/null
  echo "after commit, finished by $action" >"$union/after-commit-$action"
  (cd "$union" && exec sleep 600) &
  blocker=$!
  sleep 0.2
  if srv publish $fqrn >"$WORK/blocked.out" 2>&1; then
    check_failed "publish with a busy union reported success: $(cat "$WORK/blocked.out")"
  fi
  grep -q "but the cleanup failed" "$WORK/blocked.out" ||
    check_failed "publish with a busy union: $(cat "$WORK/blocked.out")"
  [ "$(revision)" = $((old_rev + 1)) ] || fail "the blocked publish did not commit"
  old_rev=$((old_rev + 1))
  kill $blocker && wait $blocker 2>/dev/null || true
  srv list | grep -q "in transaction" || check_failed "after the interrupted cleanup: $(srv list)"
  # As after a crash during the remount: both layers gone.
  umount "$union" 2>/dev/null || true
  umount "$spool/rdonly" 2>/dev/null || true
  if [ $action = publish ]; then
    srv publish $fqrn >"$WORK/finish.out" 2>&1 || fail "publish after the interrupted cleanup: $(cat "$WORK/finish.out")"
  else
    srv abort -f $fqrn >"$WORK/finish.out" 2>&1 || fail "abort after the interrupted cleanup: $(cat "$WORK/finish.out")"
  fi
  grep -q "interrupted publish" "$WORK/finish.out" ||
    check_failed "$action did not recognize the committed publish: $(cat "$WORK/finish.out")"
  [ "$(revision)" = $old_rev ] || check_failed "$action after the interrupted cleanup published again"
  expect_eq "list after $action" "$fqrn (stratum0 / local)" "$(srv list)"
  expect_eq "content after $action" "after commit, finished by $action" \
    "$(cat "$union/after-commit-$action" 2>&1)"
done
srv check -i $fqrn >/dev/null || check_failed "check -i at the end"
finish
