#!/usr/bin/env bash
# Two repositories on one shared cache (CVMFS_SHARED_CACHE=yes, one
# CVMFS_CACHE_BASE): both mounted at once read correctly through one cache
# directory with one cachedb and one quota, kept by one cache manager
# process; reading more than the quota from both keeps the cache under it.
# A kill -9 of one client leaves the manager serving the other and the
# client remounts; a kill -9 of the manager leaves cached files readable
# and the next request starts a new manager, which recovers cachedb.
# Unmounting both stops the manager.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init shared_cache 500
require_bins cvmfs_server cvmfs2 cvmfs_talk

repos=(alpha.test.org beta.test.org)
limit_mb=40
limit_bytes=$((limit_mb * 1024 * 1024))
files=12
cache=$WORK/cache/shared

for fqrn in "${repos[@]}"; do
  mkdir -p "$WORK/src/$fqrn"
  for i in $(seq -w 1 $files); do
    # 3 MB each, below the chunking threshold: one object per file; both
    # repositories together are 72 MB, well over the 40 MB quota.
    make_random_file "$WORK/src/$fqrn/f$i.bin" 3000000 "$fqrn-$i"
  done
  publish_tree "$fqrn" "$WORK/src/$fqrn" data
done
apache_start "$CVMFS_ROOTDIR/srv"
for fqrn in "${repos[@]}"; do
  test_client_config "$WORK/$fqrn.conf" "$APACHE_URL/cvmfs/@fqrn@" \
    "$(repo_public_key "$fqrn")" "CVMFS_SHARED_CACHE=yes" \
    "CVMFS_QUOTA_LIMIT=$limit_mb"
done
show_on_failure "$cache/cachemgr.log"

# A process is gone once it has exited (a zombie waiting for a reaper that
# may not come, as our manager is a child of init, counts as gone).
alive() {
  [ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status"
}
# Pids of the cache managers serving $cache.
manager_pids() { pgrep -f "__cachemgr__ $cache " || true; }
one_manager() {
  local pids
  pids=$(manager_pids)
  [ -n "$pids" ] && [ "$(echo "$pids" | wc -l)" -eq 1 ] && echo "$pids"
}
object_bytes() {
  find "$cache" -mindepth 2 -maxdepth 2 -type f -path "$cache/[0-9a-f][0-9a-f]/*" -printf '%s\n' |
    awk '{ s += $1 } END { print s + 0 }'
}
mnt_of() { echo "$WORK/mnt/$1"; }
# Drops a file's pages from the kernel's page cache, so that the next read
# goes to cvmfs2.
drop_pages() {
  python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$1"
}
# read_and_check FQRN FILE: the file reads with its source's content.
read_and_check() {
  local got
  got=$(sha256_of "$(mnt_of "$1")/data/$2" 2>&1) || got="read failed: $got"
  [ "$got" = "$(sha256_of "$WORK/src/$1/$2")" ] ||
    check_failed "$1/$2: sha256 $got differs from the source"
}
# Reads every file of both repositories, interleaved, checking the quota
# after each.
read_both() {
  local pass=$1 i fqrn used max=0
  for i in $(seq -w 1 $files); do
    for fqrn in "${repos[@]}"; do
      read_and_check "$fqrn" "f$i.bin"
      used=$(object_bytes)
      [ "$used" -le "$max" ] || max=$used
      [ "$used" -le "$limit_bytes" ] ||
        check_failed "$pass: after $fqrn/f$i.bin the shared cache holds $used bytes, over the $limit_bytes byte quota"
    done
  done
  note "$pass: at most $max bytes of objects in the cache (quota $limit_bytes)"
}

for fqrn in "${repos[@]}"; do
  mount_repo "$fqrn" "$(mnt_of "$fqrn")" "$WORK/$fqrn.conf"
done

# --- one manager, one directory, one cachedb ---
manager=$(one_manager) || fail "expected one cache manager for $cache, found: $(manager_pids | tr '\n' ' ')"
note "cache manager pid $manager"
[ -S "$cache/cachemgr" ] || check_failed "$cache/cachemgr is not a socket"
# The cache is private: another local user reads neither the list of what
# was read (cachedb) nor an object directory.
if command -v setpriv >/dev/null && getent passwd nobody >/dev/null; then
  as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$@"; }
  as_nobody cat "$cache/cachedb" >/dev/null 2>&1 && check_failed "user nobody can read $cache/cachedb"
  as_nobody ls "$cache/00" >/dev/null 2>&1 && check_failed "user nobody can list $cache/00"
fi
# cvmfs_talk names the manager the mount talks to.
for fqrn in "${repos[@]}"; do
  expect_eq "cvmfs_talk pid cachemgr of $fqrn" "$manager" \
    "$("$BIN/cvmfs_talk" -p "$cache/cvmfs_io.$fqrn" pid cachemgr 2>&1)"
done
expect_eq "cache directories under CVMFS_CACHE_BASE" "shared" "$(ls "$WORK/cache" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "cachedb files" "1" "$(find "$WORK/cache" -name cachedb | wc -l)"
for fqrn in "${repos[@]}"; do
  [ -e "$cache/cvmfschecksum.$fqrn" ] || check_failed "no breadcrumb of $fqrn in $cache"
done

# --- both read correctly, the quota holds across both ---
read_both "first pass"
read_both "second pass"
du_bytes=$(du -sb "$cache" | cut -f1)
# The 256 bucket directories and cachedb come on top of the objects.
du_slack=$((2 * 1024 * 1024))
note "du of the shared cache: $du_bytes bytes"
[ "$du_bytes" -le $((limit_bytes + du_slack)) ] ||
  check_failed "du reports $du_bytes bytes for $cache, over the quota of $limit_bytes (+$du_slack for directories)"
expect_eq "cache manager pid after reading" "$manager" "$(one_manager || echo none)"

# --- kill -9 of one client ---
victim=${repos[1]}
victim_pid=$(magic_xattr pid "$(mnt_of "$victim")")
kill -KILL "$victim_pid"
wait_for 10 "the killed cvmfs2 $victim_pid to exit" bash -c "! kill -0 $victim_pid 2>/dev/null || grep -q '^State:[[:space:]]*Z' /proc/$victim_pid/status"
umount -l "$(mnt_of "$victim")" 2>/dev/null || fusermount3 -uz "$(mnt_of "$victim")"
wait_for 10 "the manager to notice the dead client" \
  grep -q "client pid $victim_pid ($victim) disconnected" "$cache/cachemgr.log"
alive "$manager" || fail "the cache manager died with a client"
read_and_check "${repos[0]}" "f$files.bin"
mount_repo "$victim" "$(mnt_of "$victim")" "$WORK/$victim.conf"
read_and_check "$victim" f01.bin
expect_eq "cache manager pid after the client crash" "$manager" "$(one_manager || echo none)"

# --- kill -9 of the manager ---
kill -KILL "$manager"
wait_for 10 "the killed manager to exit" bash -c "! kill -0 $manager 2>/dev/null || grep -q '^State:[[:space:]]*Z' /proc/$manager/status"
[ -e "$cache/cachemgr.running" ] || check_failed "no crash marker after the manager was killed"
# f12 of the first repository was read last: cached. Dropped from the page
# cache, its read reaches cvmfs2, which serves it without a manager.
drop_pages "$(mnt_of "${repos[0]}")/data/f$files.bin"
read_and_check "${repos[0]}" "f$files.bin"
# Any request for the quota (statfs asks for the cache usage) starts a new
# manager, which recovers cachedb.
stat -f "$(mnt_of "${repos[1]}")" >/dev/null || check_failed "statfs failed without a manager"
wait_for 20 "a new cache manager" one_manager
new_manager=$(one_manager)
[ "$new_manager" != "$manager" ] || check_failed "the killed manager $manager is still listed"
note "new cache manager pid $new_manager"
grep -q "\[$new_manager\] cache manager for $cache started" "$cache/cachemgr.log" ||
  check_failed "the new manager did not log its start"
read_both "after the manager crash"
expect_eq "cache manager pid after reading again" "$new_manager" "$(one_manager || echo none)"

# --- unmounting both stops the manager; cachedb matches the files ---
for fqrn in "${repos[@]}"; do unmount_repo "$(mnt_of "$fqrn")" || check_failed "unmounting $fqrn failed"; done
deadline=$((SECONDS + 30))
while alive "$new_manager" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.2; done
alive "$new_manager" && fail "the cache manager $new_manager still runs 30 s after the last unmount"
[ -e "$cache/cachemgr" ] && check_failed "$cache/cachemgr is left behind"
[ -e "$cache/cachemgr.running" ] && check_failed "the crash marker is left after a clean stop"
python3 - "$cache" "$limit_bytes" <<'PY' || check_failed "cachedb does not match the shared cache directory"
import os, sqlite3, sys
cache, limit = sys.argv[1], int(sys.argv[2])
db = sqlite3.connect("file:%s/cachedb?mode=ro" % cache, uri=True)
rows = db.execute("SELECT sha1, size, pinned FROM cache_catalog").fetchall()
on_disk = {}
for d in os.listdir(cache):
    if len(d) == 2 and all(c in "0123456789abcdef" for c in d):
        for f in os.listdir(os.path.join(cache, d)):
            on_disk[d + f] = os.path.getsize(os.path.join(cache, d, f))
listed = {r[0]: r[1] for r in rows}
print("cachedb: %d entries, %d bytes; %d objects on disk" %
      (len(rows), sum(listed.values()), len(on_disk)))
ok = bool(rows)
for h in sorted(set(listed) ^ set(on_disk))[:5]:
    print("only in %s: %s" % ("cachedb" if h in listed else "the directory", h)); ok = False
for h in set(listed) & set(on_disk):
    if listed[h] != on_disk[h]:
        print("%s: cachedb says %d bytes, the file has %d" % (h, listed[h], on_disk[h])); ok = False
if any(r[2] for r in rows):
    print("pinned entries left after every client unmounted"); ok = False
if sum(listed.values()) > limit:
    print("cachedb accounts more than the quota"); ok = False
sys.exit(0 if ok else 1)
PY
finish
