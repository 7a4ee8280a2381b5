#!/usr/bin/env bash
# A mount with CVMFS_NOTIFICATION_SERVER follows announcements
# (doc/notifications.md) through the test notification server
# (test/lib/notify_server.py, CVMFS's gateway protocol):
#   1. a forged announcement (revision raised, signature kept) and a replay
#      of the mounted revision are ignored (metrics, syslog line);
#   2. the announced revision is mounted within seconds, although the TTL
#      (1 hour) is far away;
#   3. the server goes away and comes back: the mount subscribes again and
#      follows the next announcement.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"
. "$here/../lib/notify.sh"

test_init notification 180
require_bins cvmfs_server cvmfs2 cvmfs_talk

fqrn=notify.test.org
src=$WORK/src
mnt=$WORK/mnt
mkdir -p "$src"
echo one >"$src/file"
publish_tree $fqrn "$src" data
server_conf=$CVMFS_ROOTDIR/etc/cvmfs/repositories.d/$fqrn/server.conf
echo "CVMFS_REPOSITORY_TTL=3600" >>"$server_conf"
publish_tree $fqrn "$src" data
published=$(repo_storage $fqrn)/.cvmfspublished
cp "$published" "$WORK/manifest.old"
apache_start "$CVMFS_ROOTDIR/srv"
notify_start

config=$CVMFS_ROOTDIR/etc/cvmfs/config.d/$fqrn.local
mkdir -p "$(dirname "$config")"
test_client_config "$config" "$APACHE_URL/cvmfs/@fqrn@" "$(repo_public_key $fqrn)" \
  "CVMFS_NOTIFICATION_SERVER=$NOTIFY_URL"
mount_repo $fqrn "$mnt" "$config"
talk() { "$BIN/cvmfs_talk" -i $fqrn "$@" 2>&1; }
metric() { talk metrics prometheus | awk -v m="$1" '$1 ~ "^"m"[{]" { print $2 }'; }
wait_for 10 "the mount to subscribe" notify_subscribers 1
rev1=$(magic_xattr revision "$mnt")

echo two >"$src/file"
publish_tree $fqrn "$src" data
rev2=$(manifest_field $fqrn S)
cp "$published" "$WORK/manifest.new"

# 1. Forged and replayed announcements change nothing.
sed "0,/^S$rev2\$/s//S$((rev2 + 100))/" "$WORK/manifest.new" >"$WORK/manifest.forged"
cmp -s "$WORK/manifest.new" "$WORK/manifest.forged" && fail "forging the manifest failed"
notify_announce $fqrn "$WORK/manifest.forged" >/dev/null
notify_announce $fqrn "$WORK/manifest.old" >/dev/null
wait_for 10 "two ignored announcements" \
  eval '[ "$(metric cvmfs_notifications_ignored_total)" = 2 ]'
expect_eq "still revision $rev1 after forged/old announcements" "$rev1" \
  "$(magic_xattr revision "$mnt")"
expect_eq "no switch counted" 0 "$(metric cvmfs_notifications_switches_total)"
grep -q "notification ignored" "$WORK/debug.log" ||
  check_failed "no log line for an ignored announcement"
pass "a forged and a replayed announcement are ignored"

# 2. The real announcement is followed at once.
start=$(date +%s.%N)
notify_announce $fqrn "$WORK/manifest.new" >/dev/null
wait_for 10 "revision $rev2 after its announcement" \
  eval '[ "$(magic_xattr revision "$mnt")" = "$rev2" ]'
took=$(python3 -c "import time; print('%.2f' % (time.time() - $start))")
expect_eq "new content" two "$(cat "$mnt/data/file")"
expect_eq "one switch counted" 1 "$(metric cvmfs_notifications_switches_total)"
pass "revision $rev2 mounted ${took} s after its announcement (TTL 3600 s)"

# 3. The server goes away and comes back on the same port.
notify_stop
sleep 1
notify_start "$NOTIFY_PORT"
wait_for 20 "the mount to subscribe again" notify_subscribers 1
echo three >"$src/file"
publish_tree $fqrn "$src" data
rev3=$(manifest_field $fqrn S)
notify_announce $fqrn "$published" >/dev/null
wait_for 10 "revision $rev3 after the server came back" \
  eval '[ "$(magic_xattr revision "$mnt")" = "$rev3" ]'
expect_eq "newest content" three "$(cat "$mnt/data/file")"
pass "the subscription survived the server going away"
finish
