#!/usr/bin/env bash
# The client logs to syslog as CVMFS does (doc/client.md, "Logging"):
# CVMFS_SYSLOG_PREFIX, CVMFS_SYSLOG_FACILITY and CVMFS_SYSLOG_LEVEL on a real
# mount, with the events an operator looks for: the mount, a host failover
# with its reason, a failed download (the cause of an EIO), a revision
# switch and the unmount.
#
# There is no syslog daemon here, and the real /dev/log is not ours to
# replace: the test re-runs itself in a private mount namespace (unshare -m)
# where /dev is a tmpfs holding bind mounts of the devices it needs plus a
# datagram socket /dev/log, read by a small listener that appends every
# line to $WORK/syslog.txt. The mount, its daemon and every check live in
# that namespace; the node's /dev is untouched.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if [ -z "${_SYSLOG_TEST_PRIVATE_DEV:-}" ]; then
  [ "$(id -u)" -eq 0 ] || { echo "SKIP: syslog_test: needs root" >&2; exit 77; }
  command -v unshare >/dev/null || { echo "SKIP: syslog_test: no unshare" >&2; exit 77; }
  _SYSLOG_TEST_PRIVATE_DEV=1 exec unshare -m --propagation private bash "$0" "$@"
fi

. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init syslog 300
require_bins cvmfs_server cvmfs2 cvmfs_talk

# A /dev of our own in this namespace, with /dev/log a socket we read.
olddev=$WORK/olddev
mkdir -p "$olddev"
mount --rbind /dev "$olddev"
mount -t tmpfs -o mode=0755 private-dev /dev
for n in null zero full random urandom tty fuse ptmx; do
  [ -e "$olddev/$n" ] || continue
  touch "/dev/$n"
  mount --bind "$olddev/$n" "/dev/$n"
done
mkdir /dev/pts /dev/shm
mount --rbind "$olddev/pts" /dev/pts
mount --rbind "$olddev/shm" /dev/shm
ln -s /proc/self/fd /dev/fd
for i in 0 1 2; do ln -s "/proc/self/fd/$i" "/dev/$(echo stdin stdout stderr | cut -d' ' -f$((i + 1)))"; done
umount -l "$olddev"
syslog=$WORK/syslog.txt
: >"$syslog"
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
out = open(sys.argv[1], "ab", 0)
while True:
    out.write(s.recv(65536) + b"\n")
' "$syslog" &
listener=$!
on_exit "kill $listener 2>/dev/null || true"
wait_for 10 "the syslog listener" test -S /dev/log
show_on_failure "$syslog"

fqrn=syslog.test.org
src=$WORK/src
mnt=$WORK/mnt
mkdir -p "$src"
echo "first" >"$src/a.txt"
make_random_file "$src/lost.bin" 100000 lost
publish_tree $fqrn "$src" data
apache_start "$CVMFS_ROOTDIR/srv"

# The first host is dead: the first request fails over to Apache.
dead="http://127.0.0.1:$(free_port)/cvmfs/@fqrn@"
config=$CVMFS_ROOTDIR/etc/cvmfs/config.d/$fqrn.local
mkdir -p "$(dirname "$config")"
test_client_config "$config" "$dead;$APACHE_URL/cvmfs/@fqrn@" \
  "$(repo_public_key $fqrn)" \
  "CVMFS_SYSLOG_PREFIX=site-prefix" "CVMFS_SYSLOG_FACILITY=2" \
  "CVMFS_SYSLOG_LEVEL=2"
mount_repo $fqrn "$mnt" "$config"
pid=$(magic_xattr pid "$mnt")
rev=$(manifest_field $fqrn S)

# <PRI> is facility * 8 + severity: local2 (18) with info (6), warning
# (4) and error (3) as CVMFS sends them; ident "cvmfs2[pid]".
info="<150>" warning="<148>" error="<147>"
# expect_line WHAT PRI PATTERN: a line with priority PRI from our daemon,
# prefixed, matching the extended regular expression PATTERN.
expect_line() {
  local what=$1 pri=$2 pattern=$3
  wait_for 10 "syslog: $what" grep -qE \
    "^$pri.*cvmfs2\[$pid\]: \(site-prefix\) $pattern" "$syslog" ||
    check_failed "syslog has no $what"
}
expect_line "mount" "$info" "mounted $fqrn on $mnt"
expect_line "mounted revision" "$info" "mounted revision $rev of $fqrn"
expect_line "host failover with the reason" "$warning" \
  "switching host from http://127.0.0.1:[0-9]+/cvmfs/$fqrn to $APACHE_URL/cvmfs/$fqrn \(.*\)"

# A file whose object the server lost: EIO, and the reason in syslog.
hash=$(magic_xattr hash "$mnt/data/lost.bin")
server_lose_object $fqrn "$hash"
expect_read_error "$mnt/data/lost.bin" "Input/output error"
expect_line "the failed download" "$error" "download of $hash.* failed"

# A new revision, switched to on request.
echo "second" >"$src/b.txt"
tar --format=posix -C "$src" -cf "$WORK/rev2.tar" .
"$BIN/cvmfs_server" ingest -d data -t "$WORK/rev2.tar" -b data $fqrn >/dev/null 2>&1 ||
  fail "publishing revision $((rev + 1)) failed"
"$BIN/cvmfs_talk" -i $fqrn remount sync >/dev/null
expect_line "the revision switch" "$info" "switched to catalog revision $((rev + 1)) from $rev"

unmount_repo "$mnt"
expect_line "unmount" "$info" "unmounted $fqrn"
# Debug steps stay out of syslog and in the debug log.
if grep -q "control socket" "$syslog"; then
  check_failed "debug-level lines went to syslog"
fi
grep -q "control socket" "$WORK/debug.log" ||
  check_failed "the debug log lost its debug lines"
finish
