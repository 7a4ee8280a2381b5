#!/usr/bin/env bash
# The operator commands of cvmfs_config against a real mount
# (doc/operations.md): status, fuser, fsck, bugreport and killall.
#   status     names the repository, its mountpoint and the daemon's pid;
#   fuser      finds a process holding a file open and one whose working
#              directory is in the repository, and forgets them when done;
#   fsck       on the mounted cache: an object damaged on purpose is found
#              (exit bit 4 without -p), quarantined with -p (bit 1), and the
#              next read fetches it anew with the right content; the good
#              objects stay; a second check is clean;
#   bugreport  one tar.gz with showconfig, talk output and the mount table,
#              the names of the keys and none of their contents;
#   killall    (last) kills this installation's cvmfs2 and unmounts.
# killall kills every process of this build's cvmfs2: the test is
# RUN_SERIAL in ctest (test/CMakeLists.txt).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init config_tools 300
require_cmds attr
require_bins cvmfs_server cvmfs2 cvmfs_talk cvmfs_config

fqrn=tools.test.org
src=$WORK/src
mount_dir=$WORK/cvmfs
mnt=$mount_dir/$fqrn
mkdir -p "$src"
for f in a b c; do make_random_file "$src/$f.bin" 200000 "tools-$f"; done
publish_tree $fqrn "$src" data
apache_start "$CVMFS_ROOTDIR/srv"
etc=$CVMFS_ROOTDIR/etc/cvmfs
mkdir -p "$etc/config.d"
write_client_config "$etc/default.local" \
  "CVMFS_REPOSITORIES=$fqrn" "CVMFS_MOUNT_DIR=$mount_dir"
test_client_config "$etc/config.d/$fqrn.local" "$APACHE_URL/cvmfs/@fqrn@" \
  "$(repo_public_key $fqrn)"
mount_repo $fqrn "$mnt" "$etc/config.d/$fqrn.local"
pid=$(magic_xattr pid "$mnt")
cache=$(cache_dir_of $fqrn)
config() { "$BIN/cvmfs_config" "$@" 2>&1; }

# --- status
out=$(config status) || true
grep -qxF "$fqrn mounted on $mnt with pid $pid" <<<"$out" ||
  check_failed "status: no line for $fqrn: $out"

# --- fuser
exec 3<"$mnt/data/a.bin"
(cd "$mnt/data" && exec sleep 300) &
sleeper=$!
on_exit "kill $sleeper 2>/dev/null || true"
out=$(config fuser $fqrn) || check_failed "fuser failed: $out"
for p in $$ $sleeper; do
  grep -qw "$p" <<<"$out" || check_failed "fuser: pid $p missing in '$out'"
done
grep -qw "$pid" <<<"$out" && check_failed "fuser lists the daemon itself: $out"
exec 3<&-
kill $sleeper
wait $sleeper 2>/dev/null || true
out=$(config fuser $fqrn)
expect_eq "fuser after closing" "" "$out"
rc=0
out=$(config fuser not.mounted.org) || rc=$?
[ "$rc" -ne 0 ] || check_failed "fuser of a repository not mounted succeeded: $out"

# --- fsck: damage b's cached object while unmounted, then check the
# mounted cache (a fresh mount: no page cache, no open handle on it).
declare -A hashes
for f in a b c; do
  cat "$mnt/data/$f.bin" >/dev/null
  hashes[$f]=$(magic_xattr hash "$mnt/data/$f.bin")
done
unmount_repo "$mnt"
bad=$(cache_object_path "$cache" "${hashes[b]}")
[ -f "$bad" ] || fail "b.bin is not cached at $bad"
python3 - "$bad" <<'PY'
import os, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(os.path.getsize(sys.argv[1]) // 2)
    b = f.read(1)
    f.seek(-1, 1)
    f.write(bytes([b[0] ^ 0xff]))
PY
mount_repo $fqrn "$mnt" "$etc/config.d/$fqrn.local"

rc=0
out=$(config fsck) || rc=$?
expect_eq "fsck without -p: exit code (errors left)" 4 "$rc"
grep -q "$bad does not match" <<<"$out" || check_failed "fsck did not name $bad: $out"
[ -f "$bad" ] || check_failed "fsck without -p moved $bad"

rc=0
out=$(config fsck -p -j 2) || rc=$?
expect_eq "fsck -p: exit code (fixed)" 1 "$rc"
grep -q "Fix: $bad is corrupted, moved to quarantaine folder" <<<"$out" ||
  check_failed "fsck -p did not report the quarantine: $out"
grep -q "^Verified [0-9]* files" <<<"$out" || check_failed "no count: $out"
[ -f "$cache/quarantaine/${hashes[b]}" ] ||
  check_failed "no quarantaine/${hashes[b]}"
[ ! -e "$bad" ] || check_failed "$bad still in place"
for f in a c; do
  [ -f "$(cache_object_path "$cache" "${hashes[$f]}")" ] ||
    check_failed "fsck removed the good object of $f.bin"
done
expect_eq "b.bin read after the quarantine" "$(sha256_of "$src/b.bin")" \
  "$(sha256_of "$mnt/data/b.bin")"
[ -f "$bad" ] || check_failed "b.bin was not fetched into the cache again"
rc=0
out=$(config fsck -j2) || rc=$?
expect_eq "fsck after the repair: exit code" 0 "$rc"
rc=0
config fsck -j 0 >/dev/null || rc=$?
expect_eq "fsck -j 0: usage exit code" 16 "$rc"

# --- bugreport: showconfig, talk, mounts; key names, never key contents.
out=$(TMPDIR=$WORK config bugreport) || check_failed "bugreport failed: $out"
archive=$(sed -n 's/^System information has been collected in //p' <<<"$out")
[ -f "$archive" ] || fail "no archive in: $out"
mkdir "$WORK/report"
tar -xzf "$archive" -C "$WORK/report"
r=$WORK/report/bugreport
for f in "showconfig-$fqrn" "talk-$fqrn" mounts status versions \
  "etc/config.d/$fqrn.local" etc-not-copied.txt; do
  [ -s "$r/$f" ] || check_failed "bugreport lacks $f"
done
grep -q "CVMFS_SERVER_URL" "$r/showconfig-$fqrn" || check_failed "showconfig empty"
grep -q "cvmfs_talk internal affairs" "$r/talk-$fqrn" || check_failed "no internal affairs"
grep -q "keys/$fqrn.pub" "$r/etc-not-copied.txt" || check_failed "key names not listed"
if grep -rq "PRIVATE KEY" "$r"; then check_failed "the report holds a private key"; fi
for key in "$etc"/keys/*; do
  [ -f "$key" ] || continue
  line=$(grep -v -- '-----' "$key" | head -n 1)
  [ -n "$line" ] || continue
  if zcat "$archive" | grep -aqF -- "$line"; then
    check_failed "the archive holds the content of $key"
  fi
done

# --- killall: the daemon is gone, the mount too.
out=$(config killall) || check_failed "killall failed: $out"
grep -q "Terminating cvmfs2 processes... OK" <<<"$out" || check_failed "killall: $out"
kill -0 "$pid" 2>/dev/null && check_failed "cvmfs2 $pid survived killall"
mountpoint -q "$mnt" && check_failed "$mnt still mounted after killall"
finish
