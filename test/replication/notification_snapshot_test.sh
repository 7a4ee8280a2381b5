#!/usr/bin/env bash
# A Stratum 1 following notifications (doc/notifications.md, "Stratum 1"):
# packaging/server/cvmfs-snapshot-on-notify (the loop
#   while cvmfs_swissknife notify -s -u URL -t FQRN -m REV; do
#     cvmfs_server snapshot FQRN; done
# that cvmfs-snapshot-on-notify@.service runs) snapshots each revision
# announced by `cvmfs_swissknife notify -p` on the Stratum 0; a forged
# announcement (revision raised, signature kept) does not end the wait.
# Server: test/lib/notify_server.py.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/publish.sh"
. "$here/../lib/notify.sh"

test_init notification_snapshot 120
require_bins cvmfs_server cvmfs_swissknife

fqrn=s1notify.test.org
src=$WORK/src
s1root=$WORK/s1root
s0storage=$(repo_storage $fqrn)
s1() { CVMFS_ROOTDIR=$s1root "$BIN/cvmfs_server" "$@"; }
sk() { "$BIN/cvmfs_swissknife" "$@"; }
s1_revision() {
  sed -n '/^--$/q;s/^S//p' "$s1root/srv/cvmfs/$fqrn/.cvmfspublished"
}
mkdir -p "$src"
echo one >"$src/file"
publish_tree $fqrn "$src" data
apache_start "$CVMFS_ROOTDIR/srv"
notify_start
s1 add-replica -o root "$APACHE_URL/cvmfs/$fqrn" "$(repo_public_key $fqrn)" \
  >"$WORK/add.out" 2>&1 || fail "add-replica: $(cat "$WORK/add.out")"
s1 snapshot $fqrn >"$WORK/snap.out" 2>&1 || fail "snapshot: $(cat "$WORK/snap.out")"
rev1=$(s1_revision)

# Bad usage is refused.
sk notify -p -s -u "$NOTIFY_URL" -t $fqrn >/dev/null 2>&1 &&
  check_failed "notify with both -p and -s succeeded"
sk notify -s -u "$NOTIFY_URL" -t unknown.test.org >/dev/null 2>&1 &&
  check_failed "notify -s of a repository not replicated here succeeded"

# The Stratum 1's follower, as its systemd unit runs it (the server from
# server.conf; a missing one is refused).
follow=$SOURCE_DIR/packaging/server/cvmfs-snapshot-on-notify
PATH=$BIN:$PATH CVMFS_ROOTDIR=$s1root "$follow" $fqrn >/dev/null 2>&1 &&
  check_failed "the follower started without a notification server"
echo "CVMFS_NOTIFICATION_SERVER=$NOTIFY_URL" >>"$s1root/etc/cvmfs/repositories.d/$fqrn/server.conf"
PATH=$BIN:$PATH CVMFS_ROOTDIR=$s1root "$follow" $fqrn >"$WORK/follower.log" 2>&1 &
follower=$!
on_exit "pkill -P $follower 2>/dev/null; kill $follower 2>/dev/null || true"
show_on_failure "$WORK/follower.log"
wait_for 10 "the Stratum 1 to subscribe" notify_subscribers 1

echo two >"$src/file"
publish_tree $fqrn "$src" data
rev2=$(manifest_field $fqrn S)
sed "0,/^S$rev2\$/s//S$((rev2 + 100))/" "$s0storage/.cvmfspublished" >"$WORK/forged"
notify_announce $fqrn "$WORK/forged" >/dev/null
wait_for 10 "the forged announcement to be refused" \
  grep -q "notification ignored" "$WORK/follower.log"
expect_eq "no snapshot after a forged announcement" "$rev1" "$(s1_revision)"
pass "a forged announcement is ignored by the Stratum 1"

start=$(date +%s.%N)
sk notify -p -u "$NOTIFY_URL" -r "$APACHE_URL/cvmfs/$fqrn" ||
  fail "cvmfs_swissknife notify -p failed"
wait_for 30 "the Stratum 1 to snapshot revision $rev2" \
  eval '[ "$(s1_revision)" = "$rev2" ]'
took=$(python3 -c "import time; print('%.2f' % (time.time() - $start))")
pass "the Stratum 1 snapshotted revision $rev2 ${took} s after notify -p"

# The loop subscribes again and takes the next revision, announced from
# the storage directory this time.
wait_for 10 "the Stratum 1 to subscribe again" notify_subscribers 2
echo three >"$src/file"
publish_tree $fqrn "$src" data
rev3=$(manifest_field $fqrn S)
sk notify -p -u "$NOTIFY_URL" -r "$s0storage" || fail "notify -p from a directory failed"
wait_for 30 "the Stratum 1 to snapshot revision $rev3" \
  eval '[ "$(s1_revision)" = "$rev3" ]'
pass "the next announcement is snapshotted too (revision $rev3)"
finish
