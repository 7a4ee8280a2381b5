#!/usr/bin/env bash
# Running unprivileged (doc/security.md): cvmfs2 started by root switches to
# CVMFS_USER (default cvmfs) once mounted, and so does the cache manager of
# a shared cache. For a shared-cache mount (with its manager) and a private
# one: every process and thread has the user's uid and gid (real, effective,
# saved), no capability (CapEff, CapPrm, CapAmb 0) and NoNewPrivs 1; the
# control and manager sockets and the cache directory (0700) are the user's;
# user nobody reads neither cachedb nor an object directory nor lists the
# cache; root's cvmfs_talk works; files read correctly. A root-owned cache
# from an older client is taken over. A CVMFS_USER that does not exist fails
# the mount with a message naming CVMFS_USER and mounts nothing. A SIGTERM
# ends the daemon, which cannot unmount any more: the mount point answers
# ENOTCONN until root's umount, which works. Started by another user
# (through fusermount3), cvmfs2 stays that user and unmounts itself.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init privilege 300
require_bins cvmfs_server cvmfs2 cvmfs_talk
require_cmds setpriv
getent passwd cvmfs >/dev/null || skip "no user cvmfs (packaging/install-deps.sh creates it)"
getent passwd nobody >/dev/null || skip "no user nobody"
uid=$(id -u cvmfs)
gid=$(id -g cvmfs)

shared=alpha.test.org
private=beta.test.org
for fqrn in $shared $private; do
  mkdir -p "$WORK/src/$fqrn/sub"
  make_random_file "$WORK/src/$fqrn/big.bin" 3000000 "$fqrn"
  echo "hello $fqrn" >"$WORK/src/$fqrn/sub/hello.txt"
  publish_tree "$fqrn" "$WORK/src/$fqrn" data
done
apache_start "$CVMFS_ROOTDIR/srv"
test_client_config "$WORK/$shared.conf" "$APACHE_URL/cvmfs/@fqrn@" \
  "$(repo_public_key $shared)" "CVMFS_SHARED_CACHE=yes" \
  "CVMFS_DEBUGLOG=$WORK/debug-$shared.log"
test_client_config "$WORK/$private.conf" "$APACHE_URL/cvmfs/@fqrn@" \
  "$(repo_public_key $private)" "CVMFS_DEBUGLOG=$WORK/debug-$private.log"
show_on_failure "$WORK/debug-$shared.log"
show_on_failure "$WORK/debug-$private.log"
shared_cache=$WORK/cache/shared
private_cache=$WORK/cache/$private
show_on_failure "$shared_cache/cachemgr.log"

as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$@"; }

# check_process PID WHAT: every thread of PID runs as cvmfs, without
# capabilities, with no new privileges.
check_process() {
  local pid=$1 what=$2 task status
  for task in /proc/"$pid"/task/*; do
    status=$(cat "$task/status" 2>/dev/null) || continue
    expect_eq "$what ${task##*/}: Uid" "$uid $uid $uid" "$(awk '/^Uid:/ { print $2, $3, $4 }' <<<"$status")"
    expect_eq "$what ${task##*/}: Gid" "$gid $gid $gid" "$(awk '/^Gid:/ { print $2, $3, $4 }' <<<"$status")"
    expect_eq "$what ${task##*/}: Groups" "$gid" "$(awk '/^Groups:/ { $1 = ""; print }' <<<"$status" | xargs)"
    local cap
    for cap in CapEff CapPrm CapAmb; do
      expect_eq "$what ${task##*/}: $cap" "0000000000000000" "$(awk -v k="$cap:" '$1 == k { print $2 }' <<<"$status")"
    done
    expect_eq "$what ${task##*/}: NoNewPrivs" "1" "$(awk '/^NoNewPrivs:/ { print $2 }' <<<"$status")"
  done
}

# check_cache DIR: the user's, private, and closed to others.
check_cache() {
  local dir=$1
  expect_eq "mode and owner of $dir" "700 cvmfs cvmfs" "$(stat -c '%a %U %G' "$dir")"
  local foreign
  foreign=$(find "$dir" \( ! -user cvmfs -o ! -group cvmfs \) -printf "%p " | head -c 300 || true)
  expect_eq "entries of $dir not owned by cvmfs:cvmfs" "" "$foreign"
  as_nobody ls "$dir" >/dev/null 2>&1 && check_failed "user nobody can list $dir"
  as_nobody ls "$dir/00" >/dev/null 2>&1 && check_failed "user nobody can list $dir/00"
  as_nobody cat "$dir/cachedb" >/dev/null 2>&1 && check_failed "user nobody can read $dir/cachedb"
  return 0
}

# --- an old root-owned private cache is taken over -----------------------------
# A client that ran as root (CVMFS_USER=root) leaves a root-owned cache, also
# where an unprivileged client ran before it.
mount_repo $private "$WORK/mnt/$private" "$WORK/$private.conf"
cat "$WORK/mnt/$private/data/big.bin" >/dev/null
unmount_repo "$WORK/mnt/$private"
cp "$WORK/$private.conf" "$WORK/$private-root.conf"
echo "CVMFS_USER=root" >>"$WORK/$private-root.conf"
mount_repo $private "$WORK/mnt/$private" "$WORK/$private-root.conf"
cat "$WORK/mnt/$private/data/sub/hello.txt" >/dev/null
expect_eq "cvmfs2 with CVMFS_USER=root: Uid" "0" \
  "$(awk '/^Uid:/ { print $3 }' "/proc/$(magic_xattr pid "$WORK/mnt/$private")/status")"
unmount_repo "$WORK/mnt/$private"
expect_eq "owner of the cache of a CVMFS_USER=root client" "root root" \
  "$(stat -c %U "$private_cache/cachedb") $(stat -c %U "$private_cache")"

# --- both mounts, as cvmfs --------------------------------------------------------
mount_repo $shared "$WORK/mnt/$shared" "$WORK/$shared.conf"
mount_repo $private "$WORK/mnt/$private" "$WORK/$private.conf"
grep -q "took over $private_cache" "$WORK/debug-$private.log" ||
  check_failed "the debug log does not say that $private_cache was taken over"
for fqrn in $shared $private; do
  for f in big.bin sub/hello.txt; do
    expect_eq "$fqrn/$f" "$(sha256_of "$WORK/src/$fqrn/$f")" \
      "$(sha256_of "$WORK/mnt/$fqrn/data/$f")"
  done
done
manager=$(pgrep -f "__cachemgr__ $shared_cache " || true)
[ -n "$manager" ] && [ "$(wc -l <<<"$manager")" -eq 1 ] ||
  fail "expected one cache manager for $shared_cache, found: '$manager'"
for fqrn in $shared $private; do
  pid=$(magic_xattr pid "$WORK/mnt/$fqrn")
  check_process "$pid" "cvmfs2 $fqrn"
done
check_process "$manager" "cache manager"
check_cache "$shared_cache"
check_cache "$private_cache"
expect_eq "owner of the control socket of $shared" "cvmfs" "$(stat -c %U "$shared_cache/cvmfs_io.$shared")"
expect_eq "owner of the control socket of $private" "cvmfs" "$(stat -c %U "$private_cache/cvmfs_io.$private")"
expect_eq "owner of the cache manager socket" "cvmfs" "$(stat -c %U "$shared_cache/cachemgr")"
# Root still speaks to both.
for fqrn in $shared $private; do
  cache=$private_cache
  [ $fqrn = $shared ] && cache=$shared_cache
  expect_eq "cvmfs_talk pid of $fqrn (as root)" "$(magic_xattr pid "$WORK/mnt/$fqrn")" \
    "$("$BIN/cvmfs_talk" -p "$cache/cvmfs_io.$fqrn" pid 2>&1)"
done
expect_eq "cvmfs_talk pid cachemgr (as root)" "$manager" \
  "$("$BIN/cvmfs_talk" -p "$shared_cache/cvmfs_io.$shared" pid cachemgr 2>&1)"

# --- a missing user: a clear error, nothing mounted -------------------------------
cp "$WORK/$shared.conf" "$WORK/nouser.conf"
echo "CVMFS_USER=no-such-user-cvmfs" >>"$WORK/nouser.conf"
out=$(mount_repo_expect_failure gamma.test.org "$WORK/mnt/gamma" "$WORK/nouser.conf")
grep -q "CVMFS_USER=no-such-user-cvmfs" <<<"$out" ||
  check_failed "a missing CVMFS_USER: the message does not name it: $out"
mountpoint -q "$WORK/mnt/gamma" && check_failed "a missing CVMFS_USER: $WORK/mnt/gamma is mounted"

# --- started by another user: it stays that user -----------------------------------
if [ -u "$(command -v fusermount3)" ] && as_nobody test -r /dev/fuse -a -w /dev/fuse; then
  user_dir=$WORK/nobody
  mkdir -p "$user_dir/mnt"
  chown -R nobody "$user_dir"
  cp "$WORK/$private.conf" "$user_dir/client.conf"
  echo "CVMFS_CACHE_BASE=$user_dir/cache" >>"$user_dir/client.conf"
  echo "CVMFS_DEBUGLOG=$user_dir/debug.log" >>"$user_dir/client.conf"
  as_nobody "$BIN/cvmfs2" -o "config=$user_dir/client.conf" $private "$user_dir/mnt" \
    </dev/null >"$user_dir/mount.out" 2>&1 ||
    check_failed "cvmfs2 started by nobody: $(cat "$user_dir/mount.out")"
  # Without allow_other only nobody (not even root) may look inside.
  if findmnt -rn --mountpoint "$user_dir/mnt" >/dev/null; then
    on_exit "umount -l $(printf %q "$user_dir/mnt") 2>/dev/null || true"
    pid=$(as_nobody getfattr --absolute-names --only-values -n user.pid "$user_dir/mnt")
    expect_eq "cvmfs2 started by nobody: Uid" "$(id -u nobody) $(id -u nobody) $(id -u nobody)" \
      "$(awk '/^Uid:/ { print $2, $3, $4 }' "/proc/$pid/status")"
    expect_eq "cvmfs2 started by nobody reads" "hello $private" "$(as_nobody cat "$user_dir/mnt/data/sub/hello.txt")"
    as_nobody fusermount3 -u "$user_dir/mnt" || check_failed "nobody cannot unmount its own mount"
    wait_pid_exit 30 "$pid" || check_failed "cvmfs2 started by nobody still runs after fusermount3 -u"
  else
    check_failed "cvmfs2 started by nobody exited 0 but mounted nothing"
  fi
else
  note "fusermount3 is not set-uid or /dev/fuse is closed to others: no mount by another user"
fi

# --- SIGTERM: the daemon ends, the unmount is root's --------------------------------
pid=$(magic_xattr pid "$WORK/mnt/$private")
kill -TERM "$pid"
wait_pid_exit 30 "$pid" || check_failed "cvmfs2 (pid $pid) still running 30 s after SIGTERM"
if mountpoint -q "$WORK/mnt/$private" 2>/dev/null || findmnt -rn --mountpoint "$WORK/mnt/$private" >/dev/null; then
  err=$(ls "$WORK/mnt/$private" 2>&1) && check_failed "a mount without its daemon still lists"
  grep -q "Transport endpoint is not connected" <<<"$err" ||
    check_failed "a mount without its daemon: expected ENOTCONN, got: $err"
  grep -q "stays mounted without its daemon" "$WORK/debug-$private.log" ||
    check_failed "the debug log does not say that root must unmount $WORK/mnt/$private"
  umount "$WORK/mnt/$private" || check_failed "root cannot unmount the daemon-less $WORK/mnt/$private"
  note "SIGTERM: cvmfs2 exited, root unmounted the mount it left"
else
  note "SIGTERM: cvmfs2 exited and unmounted"
fi
findmnt -rn --mountpoint "$WORK/mnt/$private" >/dev/null &&
  check_failed "$WORK/mnt/$private still mounted after root's umount"

# --- root's umount: the daemon exits ------------------------------------------------
pid=$(magic_xattr pid "$WORK/mnt/$shared")
umount "$WORK/mnt/$shared"
wait_pid_exit 30 "$pid" || check_failed "cvmfs2 (pid $pid) still running 30 s after umount"
finish
