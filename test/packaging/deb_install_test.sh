#!/usr/bin/env bash
# The Debian packages on a clean Debian 12 root (doc/install.md):
#   1. packaging/build-debs.sh builds cvmfs and cvmfs-server from this build;
#      lintian reports no error;
#   2. mmdebstrap makes a bookworm root (--variant=apt, cached as a tarball
#      under BUILD/packaging-cache/ for a week, with its apt lists, so a rerun
#      downloads only the packages' dependencies, themselves cached there);
#      its file list, /etc/passwd and /etc/group are recorded;
#   3. /proc, /sys and /dev are bound in; apt installs both .debs, taking
#      their dependencies (fuse3, autofs, libraries) from the registry;
#   4. inside the root: the packaged cvmfs_server publishes a repository
#      (relocated below /tmp with CVMFS_ROOTDIR) and serves it on 127.0.0.1
#      as the cvmfs user the postinst created (a chroot shares the host's
#      network); `cvmfs_config setup nostart` installs the autofs map, a
#      private automount started in the root mounts the repository on
#      `ls /cvmfs/FQRN`; `cvmfs_config probe` and `stat` see it; cvmfs2 runs
#      as the cvmfs user once the tree has the client's privilege drop;
#   5. everything is unmounted, the test's own configuration files removed
#      (as an administrator would), `apt-get purge` both packages and
#      `autoremove --purge` their dependencies: the root's file list,
#      /etc/passwd and /etc/group equal the recorded ones, but for apt's and
#      dpkg's own databases, caches and logs (the allow-list below).
# Skipped (77) where mmdebstrap is missing or cannot make the root (no
# registry), with the reason.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"

test_init deb_install 540
require_cmds mmdebstrap lintian dpkg-deb chroot setpriv
require_bins cvmfs2 mount.cvmfs cvmfs_talk cvmfs_config cvmfs_server
build=$(cd "$BIN/.." && pwd)
cache=$build/packaging-cache
mkdir -p "$cache/archives/partial"

# --- 1. packages and lintian ------------------------------------------------
"$SOURCE_DIR/packaging/build-debs.sh" "$build" >"$WORK/build-debs.log" 2>&1 ||
  fail "build-debs.sh failed: $(tail -20 "$WORK/build-debs.log")"
debs=("$build"/packages/cvmfs_*.deb "$build"/packages/cvmfs-server_*.deb)
for d in "${debs[@]}"; do [ -f "$d" ] || fail "no package $d"; done
lintian --fail-on error "${debs[@]}" >"$WORK/lintian.log" 2>&1 ||
  fail "lintian reports errors: $(grep '^E:' "$WORK/lintian.log" || cat "$WORK/lintian.log")"
note "lintian: $(grep -c '^E:' "$WORK/lintian.log" || true) errors," \
  "$(grep -c '^W:' "$WORK/lintian.log" || true) warnings"

# --- 2. the clean root --------------------------------------------------------
# The mirror of this machine's apt sources (deb822 or one-line format).
mirror=$(sed -n 's/^URIs: *\(\S*debian\)\/\?$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
[ -n "$mirror" ] || mirror=$(sed -n 's/^deb \(\S*debian\)\/\? bookworm .*/\1/p' \
  /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}
# Every Debian system has the packages of priority "required"; --variant=apt
# leaves out the two that autofs needs (mount, and sensible-utils), which apt
# would then install and never autoremove.
tarball=$cache/bookworm-apt-mount.tar
if [ ! -s "$tarball" ] || [ -n "$(find "$tarball" -mtime +7)" ]; then
  note "making a bookworm root from $mirror (cached in $tarball)"
  if ! mmdebstrap --variant=apt --include=mount,sensible-utils \
    --skip=cleanup/apt/lists --format=tar bookworm \
    "$tarball.tmp" "$mirror" >"$WORK/mmdebstrap.log" 2>&1; then
    rm -f "$tarball.tmp"
    skip "mmdebstrap cannot make a Debian 12 root here: $(tail -3 "$WORK/mmdebstrap.log")"
  fi
  mv "$tarball.tmp" "$tarball"
fi
root=$WORK/chroot
mkdir -p "$root"
tar -C "$root" -xf "$tarball"
# Daemons are not started by package scripts in a chroot (policy-rc.d), and
# apt needs name resolution: both are part of the recorded root.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
file_list() {
  (cd "$root" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev \) -prune -o -print |
    grep -Ev "$allow" | sort)
}
# apt's and dpkg's databases, caches and logs, the linker cache, the
# backups adduser/deluser's shadow tools keep of the account files
# (/etc/passwd- ...), runtime and temporary files: they change with any
# install and purge.
allow='^\./(var/cache/(apt|debconf|ldconfig)|var/lib/(apt|dpkg)|var/log/(apt|dpkg\.log|alternatives\.log)|etc/(passwd|group|shadow|gshadow)-$|run/|tmp/|etc/ld\.so\.cache$)'
file_list >"$WORK/files.before"
cp "$root/etc/passwd" "$WORK/passwd.before"
cp "$root/etc/group" "$WORK/group.before"

in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"; }
# Mounts into the root: slaves, so that nothing propagates back to the host.
bind_into() {
  mkdir -p "$root$2"
  mount --rbind "$1" "$root$2"
  mount --make-rslave "$root$2"
}
unmount_root() {
  local m
  while read -r m; do
    [ -n "$m" ] && { umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; }
  done < <(mounts_below "$root")
}
on_exit unmount_root
mount -t proc proc "$root/proc"
bind_into /sys /sys
bind_into /dev /dev
bind_into "$cache/archives" /var/cache/apt/archives

# --- 3. install -------------------------------------------------------------
mkdir -p "$root/tmp/debs"
cp "${debs[@]}" "$root/tmp/debs/"
show_on_failure "$WORK/apt.log" 40
# autofs is the client's Recommends; it is named here, without the
# recommendations of its own (NFS, Python), which keeps the install short.
[[ $(dpkg-deb -f "${debs[0]}" Recommends) == *autofs* ]] ||
  check_failed "cvmfs does not recommend autofs"
in_root apt-get install -y -q --no-install-recommends \
  "/tmp/debs/$(basename "${debs[0]}")" "/tmp/debs/$(basename "${debs[1]}")" autofs \
  >"$WORK/apt.log" 2>&1 || fail "apt-get install of the packages failed"
rm -rf "$root/tmp/debs"
cvmfs_uid=$(in_root id -u cvmfs) || fail "the postinst created no cvmfs user"
[ "$(in_root id -gn cvmfs)" = cvmfs ] || check_failed "user cvmfs is not in group cvmfs"
for f in /usr/bin/cvmfs2 /sbin/mount.cvmfs /usr/bin/cvmfs_talk /usr/bin/cvmfs_config \
  /usr/bin/cvmfs_server /etc/cvmfs/default.conf /lib/systemd/system/cvmfs-server-serve.service \
  /usr/bin/cvmfs_gateway /lib/systemd/system/cvmfs-gateway.service \
  /usr/libexec/cvmfs/cvmfs-snapshot-on-notify \
  /lib/systemd/system/cvmfs-snapshot-on-notify@.service; do
  in_root test -e "$f" || check_failed "$f not installed"
done
# The textfile collector, where the tree has it (packaging/prometheus/).
if [ -e "$SOURCE_DIR/packaging/prometheus/cvmfs-textfile-collector" ]; then
  in_root test -x /usr/libexec/cvmfs/cvmfs-textfile-collector ||
    check_failed "the textfile collector is not installed"
fi
in_root automount --version >/dev/null 2>&1 || fail "autofs (Recommends) was not installed"

# --- 4. publish, serve, mount through autofs ----------------------------------
fqrn=pkg.example.org
repo=/tmp/repo   # CVMFS_ROOTDIR of the publisher, inside the root
mkdir -p "$root$repo" "$root/tmp/src/sub"
echo "installed from packages" >"$root/tmp/src/hello.txt"
echo nested >"$root/tmp/src/sub/nested.txt"
tar -C "$root/tmp/src" -cf "$root/tmp/src.tar" .
in_root env CVMFS_ROOTDIR=$repo CVMFS_SERVER_NO_MOUNT=1 cvmfs_server mkfs "$fqrn" \
  >"$WORK/mkfs.log" 2>&1 || fail "packaged cvmfs_server mkfs failed: $(cat "$WORK/mkfs.log")"
in_root env CVMFS_ROOTDIR=$repo cvmfs_server ingest -t /tmp/src.tar -b / "$fqrn" \
  >"$WORK/ingest.log" 2>&1 || fail "packaged cvmfs_server ingest failed: $(cat "$WORK/ingest.log")"
chmod -R a+rX "$root$repo/srv"
serve_log=$WORK/serve.log
show_on_failure "$serve_log"
# As the unit runs it: the cvmfs user, no new privileges.
chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin CVMFS_ROOTDIR=$repo \
  setpriv --reuid=cvmfs --regid=cvmfs --init-groups --no-new-privs \
  cvmfs_server serve -p 0 "$fqrn" </dev/null >"$serve_log" 2>&1 &
serve_pid=$!
on_exit "kill -TERM $serve_pid 2>/dev/null || true"
wait_for 20 "cvmfs_server serve to print its URL" grep -q "^serving $fqrn at " "$serve_log"
url=$(sed -n "s|^serving $fqrn at ||p" "$serve_log")
serve_uid=$(awk '/^Uid:/ {print $3}' "/proc/$serve_pid/status")
expect_eq "uid of the packaged cvmfs_server serve" "$cvmfs_uid" "$serve_uid"

# The administrator's configuration (removed again before the purge).
cat >"$root/etc/cvmfs/default.local" <<EOF
CVMFS_HTTP_PROXY=DIRECT
CVMFS_REPOSITORIES=$fqrn
CVMFS_QUOTA_LIMIT=500
EOF
echo "CVMFS_SERVER_URL=${url%/cvmfs/$fqrn}/cvmfs/@fqrn@" >"$root/etc/cvmfs/config.d/$fqrn.conf"
cp "$root$repo/etc/cvmfs/keys/$fqrn.pub" "$root/etc/cvmfs/keys/$fqrn.pub"
admin_files=(/etc/cvmfs/default.local "/etc/cvmfs/config.d/$fqrn.conf" "/etc/cvmfs/keys/$fqrn.pub")

out=$(in_root cvmfs_config setup nostart 2>&1) || fail "cvmfs_config setup failed: $out"
[ -x "$root/etc/auto.cvmfs" ] || fail "setup wrote no /etc/auto.cvmfs"
out=$(in_root cvmfs_config chksetup 2>&1) || check_failed "cvmfs_config chksetup: $out"

# autofs works in a chroot: automount sees the chroot's own mount table in
# /proc/self/mounts, relative to its root. The node's service manager is not
# the root's, so automount runs in the foreground here, in a session of its
# own: autofs never mounts for lookups from the daemon's process group.
setsid chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  /usr/sbin/automount -f -v </dev/null >"$WORK/automount.log" 2>&1 &
automount_pid=$!
show_on_failure "$WORK/automount.log"
stop_automount() {
  local m
  while read -r m; do
    [ -n "$m" ] && [ "$m" != "$root/cvmfs" ] && { umount "$m" 2>/dev/null || umount -l "$m"; }
  done < <(mounts_below "$root/cvmfs")
  kill -TERM "$automount_pid" 2>/dev/null || true
  wait_pid_exit 20 "$automount_pid" || kill -KILL "$automount_pid" 2>/dev/null || true
  wait "$automount_pid" 2>/dev/null || true
  if mountpoint -q "$root/cvmfs"; then umount "$root/cvmfs" 2>/dev/null || umount -l "$root/cvmfs"; fi
}
on_exit stop_automount
wait_for 20 "automount to serve /cvmfs" mountpoint -q "$root/cvmfs"

listing=$(in_root ls "/cvmfs/$fqrn" 2>&1) || fail "ls /cvmfs/$fqrn through autofs failed: $listing"
expect_eq "listing through autofs" "hello.txt sub" "$(echo $listing)"
expect_eq "file content" "installed from packages" "$(in_root cat "/cvmfs/$fqrn/hello.txt")"
findmnt -rn -o FSTYPE --mountpoint "$root/cvmfs/$fqrn" | grep -q fuse ||
  check_failed "/cvmfs/$fqrn is not a FUSE mount"
out=$(in_root cvmfs_config probe "$fqrn" 2>&1) || check_failed "cvmfs_config probe: $out"
[[ $out == *OK* ]] || check_failed "probe did not say OK: $out"
out=$(in_root cvmfs_config stat "$fqrn" 2>&1) || check_failed "cvmfs_config stat: $out"
note "stat: $(tail -1 <<<"$out")"
out=$(in_root cvmfs_talk -i "$fqrn" revision 2>&1) || check_failed "cvmfs_talk revision: $out"

# The client's privilege drop (CVMFS_USER): enforced once the tree has it.
if grep -rqs 'setresuid' "$SOURCE_DIR/client" "$SOURCE_DIR/cvmfs"; then
  for pid in $(pgrep -x cvmfs2); do
    [ "$(readlink "/proc/$pid/root")" = "$root" ] || continue
    expect_eq "uid of cvmfs2 (pid $pid)" "$cvmfs_uid" "$(awk '/^Uid:/ {print $3}' "/proc/$pid/status")"
  done
else
  note "the client has no privilege drop yet: not checking the uid of cvmfs2"
fi

# --- 5. unmount, purge, compare ------------------------------------------------
stop_automount
kill -TERM "$serve_pid" 2>/dev/null || true
wait_pid_exit 10 "$serve_pid" || fail "cvmfs_server serve did not stop"
for f in "${admin_files[@]}"; do rm -f "$root$f"; done
rm -rf "$root$repo" "$root/tmp/src" "$root/tmp/src.tar"
in_root apt-get purge -y -q cvmfs cvmfs-server autofs >>"$WORK/apt.log" 2>&1 ||
  fail "apt-get purge failed"
in_root apt-get autoremove --purge -y -q >>"$WORK/apt.log" 2>&1 ||
  fail "apt-get autoremove --purge failed"
umount "$root/var/cache/apt/archives"
file_list >"$WORK/files.after"
diff -u "$WORK/files.before" "$WORK/files.after" >"$WORK/files.diff" ||
  check_failed "the purged root differs from the clean one: $(cat "$WORK/files.diff")"
diff -u "$WORK/passwd.before" "$root/etc/passwd" >/dev/null ||
  check_failed "/etc/passwd changed: $(diff "$WORK/passwd.before" "$root/etc/passwd")"
diff -u "$WORK/group.before" "$root/etc/group" >/dev/null ||
  check_failed "/etc/group changed: $(diff "$WORK/group.before" "$root/etc/group")"
finish
