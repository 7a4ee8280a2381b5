#!/usr/bin/env bash
# LRU eviction with a small quota: reading more data than CVMFS_QUOTA_LIMIT
# in sequence succeeds, the cache stays under the limit after every file,
# the least recently used files are the ones evicted (the first read is gone,
# the last is kept), the pinned root catalog stays, and after unmounting the
# cachedb lists exactly the objects in the cache directory.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init eviction 400
require_bins cvmfs_server cvmfs2

fqrn=eviction.test.org
src=$WORK/src
mnt=$WORK/mnt
limit_mb=40
limit_bytes=$((limit_mb * 1024 * 1024))
files=30
mkdir -p "$src"
for i in $(seq -w 1 $files); do
  # 3 MB each, below the chunking threshold: one object per file.
  make_random_file "$src/f$i.bin" 3000000 "eviction-$i"
done
make_random_file "$src/chunked.bin" $((12 * 1024 * 1024)) eviction-chunked
publish_tree $fqrn "$src" data
apache_start "$CVMFS_ROOTDIR/srv"
test_client_config "$WORK/client.conf" "$APACHE_URL/cvmfs/@fqrn@" \
  "$(repo_public_key $fqrn)" "CVMFS_QUOTA_LIMIT=$limit_mb"
mount_repo $fqrn "$mnt" "$WORK/client.conf"
cache=$(cache_dir_of $fqrn)

# Bytes of all cache objects (00..ff).
object_bytes() {
  find "$cache" -mindepth 2 -maxdepth 2 -type f -path "$cache/[0-9a-f][0-9a-f]/*" -printf '%s\n' |
    awk '{ s += $1 } END { print s + 0 }'
}
in_cache() {
  local hash=$1
  [ -e "$(cache_object_path "$cache" "$hash")" ] || [ -e "$(cache_object_path "$cache" "$hash"C)" ]
}

first_hash=$(magic_xattr hash "$mnt/data/f01.bin" 2>&1) || fail "user.hash of f01.bin: $first_hash"
last_hash=$(magic_xattr hash "$mnt/data/f$files.bin" 2>&1) || fail "user.hash of f$files.bin: $last_hash"
root_hash=$(magic_xattr root_hash "$mnt" 2>&1) || fail "user.root_hash: $root_hash"

read_all() {
  local pass=$1 f got used max=0
  for f in $(seq -w 1 $files) chunked; do
    [ "$f" = chunked ] && f=chunked.bin || f=f$f.bin
    got=$(sha256_of "$mnt/data/$f" 2>&1) || got="read failed: $got"
    [ "$got" = "$(sha256_of "$src/$f")" ] || check_failed "$pass: $f: sha256 $got differs from the source"
    used=$(object_bytes)
    [ "$used" -le "$max" ] || max=$used
    [ "$used" -le "$limit_bytes" ] ||
      check_failed "$pass: after reading $f the cache holds $used bytes, over the $limit_bytes byte quota"
  done
  note "$pass: at most $max bytes of objects in the cache (quota $limit_bytes)"
}

read_all "first pass"
in_cache "$root_hash" || check_failed "the pinned root catalog $root_hash was evicted"
in_cache "$last_hash" || check_failed "f$files.bin, the whole file read most recently, was evicted: not least recently used"
in_cache "$first_hash" && check_failed "f01.bin, read first ($((files * 3)) MB ago), is still cached"
read_all "second pass"
note "cache directory: $(du -sh "$cache" | cut -f1)"

unmount_repo "$mnt" || check_failed "unmount failed"
python3 - "$cache" "$limit_bytes" <<'EOF' || check_failed "cachedb does not match the cache directory"
import os, sqlite3, sys
cache, limit = sys.argv[1], int(sys.argv[2])
if not os.path.isfile(os.path.join(cache, "cachedb")):
    sys.exit("%s/cachedb does not exist" % cache)
db = sqlite3.connect("file:%s/cachedb?mode=ro" % cache, uri=True)
rows = db.execute("SELECT sha1, size, pinned FROM cache_catalog").fetchall()
if not rows:
    sys.exit("cachedb has no entries")
on_disk = {}
for d in os.listdir(cache):
    if len(d) == 2 and all(c in "0123456789abcdef" for c in d):
        for f in os.listdir(os.path.join(cache, d)):
            on_disk[d + f] = os.path.getsize(os.path.join(cache, d, f))
listed = {r[0] for r in rows}
missing = sorted(listed - set(on_disk))
unlisted = sorted(set(on_disk) - listed)
total = sum(r[1] for r in rows)
print("cachedb: %d entries, %d bytes; %d objects on disk" % (len(rows), total, len(on_disk)))
ok = True
if missing:
    print("in cachedb but not on disk: %s" % missing[:5]); ok = False
if unlisted:
    print("on disk but not in cachedb: %s" % unlisted[:5]); ok = False
if total > limit:
    print("cachedb accounts %d bytes, over the quota %d" % (total, limit)); ok = False
sys.exit(0 if ok else 1)
EOF
finish
