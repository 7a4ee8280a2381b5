#!/usr/bin/env bash
# The operator tools against a real mount: cvmfs_talk over the control
# socket (cache size/list/pin/evict/cleanup, revision, host/proxy info,
# parameters, internal affairs) and cvmfs_config (probe, stat, showconfig,
# chksetup before and after setup, reload, wipecache, umount). The
# repository is configured the standard way (files under
# $CVMFS_ROOTDIR/etc/cvmfs), so that the tools find it as operators use them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init talk 400
require_bins cvmfs_server cvmfs2 cvmfs_talk cvmfs_config mount.cvmfs

fqrn=talk.test.org
src=$WORK/src
mkdir -p "$src/dir"
make_random_file "$src/a.bin" 200000 talk-a
make_random_file "$src/b.bin" 300000 talk-b
make_random_file "$src/dir/c.bin" 100000 talk-c
publish_tree $fqrn "$src" data
apache_start "$CVMFS_ROOTDIR/srv"

etc=$CVMFS_ROOTDIR/etc/cvmfs
mount_dir=$WORK/cvmfs
mnt=$mount_dir/$fqrn
mkdir -p "$etc/config.d"
echo "CVMFS_REPOSITORIES=$fqrn" >>"$etc/default.local"
echo "CVMFS_MOUNT_DIR=$mount_dir" >>"$etc/default.local"
test_client_config "$etc/config.d/$fqrn.local" "$APACHE_URL/cvmfs/@fqrn@" \
  "$(repo_public_key $fqrn)"
mount_repo $fqrn "$mnt" "$etc/config.d/$fqrn.local"
cache=$(cache_dir_of $fqrn)
socket=$cache/cvmfs_io.$fqrn

talk() { "$BIN/cvmfs_talk" -i $fqrn "$@"; }
expect_match() {  # expect_match WHAT REGEX TEXT
  grep -Eq -- "$2" <<<"$3" || check_failed "$1: '$3' does not match /$2/"
}
object_of() { cache_object_path "$cache" "$(magic_xattr hash "$mnt/data/$1")"; }

# --- the socket and the simple facts --------------------------------------
[ -S "$socket" ] || fail "no control socket $socket"
expect_eq "socket mode" 600 "$(stat -c %a "$socket")"
expect_eq "pid" "$(magic_xattr pid "$mnt")" "$(talk pid)"
expect_eq "revision" "$(magic_xattr revision "$mnt")" "$(talk revision)"
expect_eq "mountpoint" "$mnt" "$(talk mountpoint)"
expect_eq "pid cachemgr" "no cache manager" "$(talk pid cachemgr)"
expect_match "version" '^2\.[0-9]+\.[0-9]+ \(CernVM-FS Fuse Module\)$' "$(talk version | head -1)"
expect_eq "-p SOCKET" "$(talk pid)" "$("$BIN/cvmfs_talk" -p "$socket" pid)"
expect_eq "unknown command" "unknown command" "$(talk make coffee)"
expect_eq "cache instance" "Posix cache manager (cache directory: $cache)" "$(talk cache instance)"
expect_eq "host info" "  [0] $APACHE_URL/cvmfs/$fqrn (unprobed)
Active host 0: $APACHE_URL/cvmfs/$fqrn" "$(talk host info)"
expect_eq "proxy info" "Load-balance groups:
[0] DIRECT
Active proxy: [0] DIRECT" "$(talk proxy info)"
expect_eq "timeout info" "Timeout with proxy: 5s
Timeout without proxy: 5s" "$(talk timeout info)"
params=$(talk parameters)
expect_match "parameters" "^CVMFS_SERVER_URL=$APACHE_URL/cvmfs/@fqrn@    # from $etc/config.d/$fqrn.local\$" "$params"
expect_match "parameters" "^CVMFS_REPOSITORIES=$fqrn    # from $etc/default.local\$" "$params"

# --- reading fills the cache; list, size, pin, evict ------------------------
for f in a.bin b.bin dir/c.bin; do
  expect_eq "content of $f" "$(sha256_of "$src/$f")" "$(sha256_of "$mnt/data/$f")"
done
list=$(talk cache list)
for f in a.bin b.bin dir/c.bin; do
  grep -qx "/data/$f" <<<"$list" || check_failed "cache list does not show /data/$f: $list"
done
size=$(talk cache size)
expect_match "cache size" '^Current cache size is [0-9]+MB \([0-9]+ Bytes\), pinned: [0-9]+MB \([0-9]+ Bytes\)$' "$size"
bytes=$(sed -E 's/.*\(([0-9]+) Bytes\), pinned.*/\1/' <<<"$size")
[ "$bytes" -ge 600000 ] || check_failed "cache size reports $bytes bytes after reading 600 kB"
[ -n "$(talk cache list catalogs)" ] || check_failed "cache list catalogs is empty"
affairs=$(talk internal affairs)
expect_match "internal affairs" '^fetch\.n_downloads\|[1-9][0-9]*\|' "$affairs"
expect_match "internal affairs" '^download\.n_requests\|[1-9][0-9]*\|' "$affairs"

expect_eq "pin" OK "$(talk pin /data/b.bin)"
grep -qx /data/b.bin <<<"$(talk cache list pinned)" || check_failed "b.bin not listed as pinned"
a_obj=$(object_of a.bin)
[ -f "$a_obj" ] || fail "a.bin's object $a_obj is not in the cache"
expect_eq "evict" OK "$(talk evict /data/a.bin)"
[ -e "$a_obj" ] && check_failed "evict left $a_obj in the cache"
expect_eq "evict of a directory" "No such regular file" "$(talk evict /data/dir)"
# (The kernel may still hold the file's pages: evict, as in CVMFS, does
# not drop them, so this read need not reach the cache.)
expect_eq "re-read after evict" "$(sha256_of "$src/a.bin")" "$(sha256_of "$mnt/data/a.bin")"

# --- cleanup 0: everything unpinned goes ------------------------------------
b_obj=$(object_of b.bin)
c_obj=$(object_of dir/c.bin)
root_obj=$(cache_object_path "$cache" "$(magic_xattr root_hash "$mnt")")
[ -f "$root_obj" ] || root_obj=${root_obj}C
[ -f "$root_obj" ] || fail "the root catalog is not in the cache as $root_obj(C)"
expect_eq "cleanup 0" "Not fully cleaned (there might be pinned chunks)" "$(talk cleanup 0)"
[ -e "$a_obj" ] && check_failed "cleanup 0 left a.bin's object"
[ -e "$c_obj" ] && check_failed "cleanup 0 left dir/c.bin's object"
[ -f "$b_obj" ] || check_failed "cleanup 0 removed the pinned b.bin"
[ -f "$root_obj" ] || check_failed "cleanup 0 removed the pinned root catalog $root_obj"
expect_eq "content after cleanup" "$(sha256_of "$src/dir/c.bin")" "$(sha256_of "$mnt/data/dir/c.bin")"
expect_eq "cache limit get" "Current cache limit is 2000 MB" "$(talk cache limit get)"

# --- cvmfs_config ------------------------------------------------------------
cfg() { "$BIN/cvmfs_config" "$@"; }
expect_eq "probe" "Probing $mnt... OK" "$(cfg probe $fqrn)"
rc=0; out=$(cfg probe absent.test.org) || rc=$?
expect_eq "probe of an unmounted repository" "Probing $mount_dir/absent.test.org... Failed!" "$out"
expect_eq "probe exit code" 1 "$rc"

stat_out=$(cfg stat $fqrn)
expect_eq "stat header" "VERSION PID UPTIME(M) MEM(K) REVISION EXPIRES(M) NOCATALOGS CACHEUSE(K) CACHEMAX(K) NOFDUSE NOFDMAX NOIOERR NOOPEN HITRATE(%) RX(K) SPEED(K/S) HOST PROXY ONLINE" "$(head -1 <<<"$stat_out")"
read -r -a col <<<"$(sed -n 2p <<<"$stat_out")"
expect_eq "stat columns" 19 "${#col[@]}"
expect_eq "stat PID" "$(talk pid)" "${col[1]}"
expect_eq "stat REVISION" "$(talk revision)" "${col[4]}"
expect_eq "stat HOST" "$APACHE_URL/cvmfs/$fqrn" "${col[16]}"
expect_eq "stat ONLINE" 1 "${col[18]}"
[ "${col[3]}" -gt 0 ] || check_failed "stat MEM(K) is ${col[3]}"
[ "${col[7]}" -gt 0 ] || check_failed "stat CACHEUSE(K) is ${col[7]}"
verbose=$(cfg stat -v $fqrn)
expect_match "stat -v" "^Connection: $APACHE_URL/cvmfs/$fqrn through proxy DIRECT \(online\)\$" "$verbose"
expect_match "stat -v" '^File Catalog Revision: [0-9]+ \(expires in [0-9]+ minutes\)$' "$verbose"

show=$(cfg showconfig $fqrn)
expect_match "showconfig" "^CVMFS_HTTP_PROXY=DIRECT    # from $etc/config.d/$fqrn.local\$" "$show"
expect_match "showconfig" "^CVMFS_SERVER_URL=$APACHE_URL/cvmfs/$fqrn    # from " "$show"
expect_match "showconfig" '^CVMFS_TRACEFILE=$' "$show"
grep -q '^CVMFS_TRACEFILE=' <<<"$(cfg showconfig -s $fqrn)" &&
  check_failed "showconfig -s lists the unset CVMFS_TRACEFILE"

rc=0; out=$(cfg chksetup) || rc=$?
expect_eq "chksetup before setup" 1 "$rc"
grep -q "^Error: $CVMFS_ROOTDIR/etc/auto.cvmfs is not executable" <<<"$out" ||
  check_failed "chksetup does not report the missing autofs map: $out"
cfg setup nouser nostart || check_failed "cvmfs_config setup nouser nostart failed"
[ -x "$CVMFS_ROOTDIR/etc/auto.cvmfs" ] || check_failed "setup did not install auto.cvmfs"
expect_eq "auto.cvmfs" "-fstype=cvmfs :$fqrn" "$("$CVMFS_ROOTDIR/etc/auto.cvmfs" $fqrn)"
[ "$(readlink "$CVMFS_ROOTDIR/sbin/mount.cvmfs")" = "$BIN/mount.cvmfs" ] ||
  check_failed "setup did not link $CVMFS_ROOTDIR/sbin/mount.cvmfs to $BIN/mount.cvmfs"
rc=0; out=$(cfg chksetup) || rc=$?
expect_eq "chksetup after setup (output: $out)" 0 "$rc"
grep -q '^Error:' <<<"$out" && check_failed "chksetup after setup reports errors: $out"

expect_eq "reload" "$fqrn: Catalog up to date" "$(cfg reload $fqrn)"

out=$(cfg wipecache) || check_failed "wipecache with the repository mounted failed: $out"
grep -qx "Wiping out $cache ... OK (in use: unpinned objects evicted, pinned ones kept)" <<<"$out" ||
  check_failed "wipecache of the mounted cache: $out"
[ -f "$root_obj" ] || check_failed "wipecache removed the root catalog under a running mount"

# --- umount, then the cache can be wiped ------------------------------------
expect_eq "umount" "Unmounting $mnt: OK" "$(cfg umount)"
mountpoint -q "$mnt" && fail "$mnt is still mounted after cvmfs_config umount"
wait_for 30 "the control socket to go away with the mount" test ! -e "$socket"
# wipecache right away: a client that is still closing its cache is waited for.
out=$(cfg wipecache) || check_failed "wipecache failed: $out"
grep -qx "Wiping out $cache ... OK" <<<"$out" || check_failed "wipecache: $out"
left=$(find "$cache" -mindepth 1 | head -3)
[ -z "$left" ] || check_failed "wipecache left files in $cache: $left"
rc=0; "$BIN/cvmfs_talk" -i $fqrn pid >/dev/null 2>&1 || rc=$?
expect_eq "cvmfs_talk without a mount" 1 "$rc"
finish
