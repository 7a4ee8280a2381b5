#!/usr/bin/env bash
# The chain of trust on a real mount (repository TTL 5 s, so that a mounted
# client checks for new revisions every 5 s):
#   a. expired whitelist (`cvmfs_server resign -d 0`): a fresh mount fails
#      naming the expired whitelist; a mounted client keeps serving its
#      revision and refuses the newer manifest (debug log and `cvmfs_talk
#      remount sync` say why); after a proper resign it switches;
#   b. the repository certificate's fingerprint in etc/cvmfs/blacklist: a
#      fresh mount (also one with a populated cache) is refused naming the
#      blacklist; a mounted client refuses the newer manifest at its next
#      check and keeps serving its revision;
#   c. "<FQRN N" in the blacklist: revisions below N are refused at mount;
#      a mounted client whose revision falls below N ends its session and
#      exits at its next check (CVMFS aborts there), leaving the unmount to
#      root; revision N itself is allowed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init trust 400
require_bins cvmfs_server cvmfs2

fqrn=trust.test.org
src=$WORK/src
mnt=$WORK/mnt
blacklist=$CVMFS_ROOTDIR/etc/cvmfs/blacklist
mkdir -p "$src" "$(dirname "$blacklist")"
echo "first" >"$src/first.txt"
publish_tree $fqrn "$src" data
# A short repository TTL: mounted clients check every 5 s.
server_conf=$CVMFS_ROOTDIR/etc/cvmfs/repositories.d/$fqrn/server.conf
[ -f "$server_conf" ] || fail "no $server_conf after mkfs"
sed -i '/^CVMFS_REPOSITORY_TTL=/d' "$server_conf"
echo "CVMFS_REPOSITORY_TTL=5" >>"$server_conf"
echo "second" >"$src/second.txt"
publish_tree $fqrn "$src" data
apache_start "$CVMFS_ROOTDIR/srv"
url="$APACHE_URL/cvmfs/@fqrn@"

talk() { "$BIN/cvmfs_talk" -i $fqrn "$@" 2>&1 || true; }

# client_config CASE: own cache and debug log. Sets CONFIG.
client_config() {
  CONFIG=$WORK/$1.conf
  test_client_config "$CONFIG" "$url" "$(repo_public_key $fqrn)" \
    "CVMFS_CACHE_BASE=$WORK/cache-$1" "CVMFS_DEBUGLOG=$WORK/debug-$1.log"
  show_on_failure "$WORK/debug-$1.log" 30
}

# mount_case CASE: mounts with client_config CASE, installed as
# config.d/FQRN.local so that `cvmfs_talk -i FQRN` finds the mount.
mount_case() {
  client_config "$1"
  mkdir -p "$CVMFS_ROOTDIR/etc/cvmfs/config.d"
  cp "$CONFIG" "$CVMFS_ROOTDIR/etc/cvmfs/config.d/$fqrn.local"
  mount_repo $fqrn "$mnt" "$CONFIG"
}

# publish_file NAME: a new revision that adds data/NAME.
publish_file() {
  echo "$1" >"$src/$1"
  publish_tree $fqrn "$src" data
}

# expect_refused CASE PATTERN...: a mount with a fresh cache fails and its
# message matches every ERE.
expect_refused() {
  local case=$1 out p
  shift
  client_config "$case"
  out=$(mount_repo_expect_failure $fqrn "$WORK/mnt-$case" "$CONFIG")
  note "$case: refused: $out"
  for p in "$@"; do
    grep -qE -- "$p" <<<"$out" || check_failed "$case: mount message does not match '$p': $out"
  done
}

# wait_logged CASE FILE ERE: FILE gets a line matching ERE within 30 s.
wait_logged() {
  local deadline=$((SECONDS + 30))
  until grep -qE -- "$3" "$2" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      check_failed "$1: no line matching '$3' in $2 within 30 s"
      return
    fi
    sleep 0.5
  done
}

# expect_serving CASE REVISION: the mount still shows REVISION.
expect_serving() {
  expect_eq "$1: user.revision" "$2" "$(magic_xattr revision "$mnt" 2>&1)"
  expect_eq "$1: data/first.txt" first "$(cat "$mnt/data/first.txt" 2>&1)"
}

fingerprint() {
  openssl x509 -in "$CVMFS_ROOTDIR/etc/cvmfs/keys/$fqrn.crt" -noout -fingerprint -sha1 |
    sed 's/^.*=//'
}

# --- a. expired whitelist -----------------------------------------------------
mount_case whitelist
rev=$(magic_xattr revision "$mnt")
publish_file third.txt
"$BIN/cvmfs_server" resign -d 0 $fqrn >"$WORK/resign.out" 2>&1 ||
  fail "cvmfs_server resign -d 0 failed: $(cat "$WORK/resign.out")"
expect_refused whitelist-fresh "whitelist of $fqrn expired"
wait_logged "expired whitelist, mounted" "$WORK/debug-whitelist.log" \
  "revision check failed.*whitelist of $fqrn expired"
expect_serving "expired whitelist, mounted" "$rev"
[ ! -e "$mnt/data/third.txt" ] || check_failed "expired whitelist: the new revision was applied"
reply=$(talk remount sync)
grep -q "whitelist of $fqrn expired" <<<"$reply" ||
  check_failed "expired whitelist: cvmfs_talk remount sync answered: $reply"
"$BIN/cvmfs_server" resign -d 30 $fqrn >"$WORK/resign.out" 2>&1 ||
  fail "cvmfs_server resign failed: $(cat "$WORK/resign.out")"
reply=$(talk remount sync)
grep -q "switched to revision $((rev + 1))" <<<"$reply" ||
  check_failed "after resigning: cvmfs_talk remount sync answered: $reply"
expect_eq "after resigning: data/third.txt" third.txt "$(cat "$mnt/data/third.txt" 2>&1)"
unmount_repo "$mnt"

# --- b. blacklisted certificate -----------------------------------------------
mount_case fingerprint
rev=$(magic_xattr revision "$mnt")
publish_file fourth.txt
fp=$(fingerprint)
[ -n "$fp" ] || fail "no fingerprint for the repository certificate"
printf '# compromised repository key\n%s\n' "$fp" >"$blacklist"
expect_refused fingerprint-fresh "certificate $fp of $fqrn is blacklisted" "$blacklist"
wait_logged "blacklisted certificate, mounted" "$WORK/debug-fingerprint.log" \
  "revision check failed.*certificate $fp of $fqrn is blacklisted"
expect_serving "blacklisted certificate, mounted" "$rev"
[ ! -e "$mnt/data/fourth.txt" ] || check_failed "blacklisted certificate: the new revision was applied"
reply=$(talk remount sync)
grep -q "is blacklisted" <<<"$reply" ||
  check_failed "blacklisted certificate: cvmfs_talk remount sync answered: $reply"
unmount_repo "$mnt"
# A populated cache (breadcrumb) is no way around it: no offline start.
client_config fingerprint
out=$(mount_repo_expect_failure $fqrn "$mnt" "$CONFIG")
grep -q "is blacklisted" <<<"$out" || check_failed "blacklisted certificate, cached: $out"
rm -f "$blacklist"

# --- c. blacklisted revisions ---------------------------------------------------
mount_case revision
rev=$(magic_xattr revision "$mnt")
pid=$(magic_xattr pid "$mnt")
echo "<$fqrn $((rev + 1))" >"$blacklist"
expect_refused revision-fresh "revision $rev of $fqrn is blacklisted" "$blacklist"
# The mounted revision is refused at the next check: the client ends its
# session and exits. Running as CVMFS_USER it cannot unmount: the mount
# point stops serving (ENOTCONN) until root unmounts it (doc/security.md,
# "Unmounting").
if ! wait_pid_exit 30 "$pid"; then
  check_failed "blacklisted revision: cvmfs2 (pid $pid) still running 30 s later"
else
  grep -qE "revision $rev of $fqrn is blacklisted.*$blacklist" "$WORK/debug-revision.log" ||
    check_failed "blacklisted revision: the debug log does not say why it unmounted"
  if findmnt -rn --mountpoint "$mnt" >/dev/null; then
    ls "$mnt" >/dev/null 2>&1 && check_failed "blacklisted revision: $mnt still serves"
    umount "$mnt" || check_failed "blacklisted revision: root cannot unmount $mnt"
  fi
fi
# "<FQRN N" refuses below N only.
echo "<$fqrn $rev" >"$blacklist"
mount_case revision-allowed
expect_serving "revision $rev, blacklist <$fqrn $rev" "$rev"
unmount_repo "$mnt"
finish
