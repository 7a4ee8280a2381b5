#!/usr/bin/env bash
# A proxy holding a corrupted copy of an object, recovered with no-cache.
# Squid sits in front of Apache; Apache's data/ objects may be cached for
# 3 days, so once Squid has bad bytes it keeps serving them.
#   1. The origin serves a corrupted object: the read goes through Squid
#      (miss, bad bytes), the hash mismatch makes the client ask again with
#      "Pragma: no-cache", Squid refetches from the origin, still bad ->
#      EIO; nothing reaches the client cache.
#   2. The origin is repaired, but Squid still holds the bad copy (checked
#      with curl: served from Squid's cache, Apache not asked).
#   3. The client reads again on a fresh mount: Squid serves the bad copy,
#      the client detects the mismatch, retries with no-cache, Squid
#      refetches -> the right bytes, cached by the client; Apache's log shows
#      the no-cache refetch, and Squid now serves the good copy to everyone.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib_failover.sh"

test_init proxy_corruption 300
require_bins cvmfs_server cvmfs2

fqrn=proxy-corruption.test.org
src=$WORK/src
mnt=$WORK/mnt
mkdir -p "$src"
make_random_file "$src/victim.bin" 300000 proxy-corruption-victim
echo "an intact neighbour" >"$src/intact.txt"
publish_tree $fqrn "$src" data
apache_start "$CVMFS_ROOTDIR/srv"
squid_start

failover_config $fqrn first "$APACHE_URL/cvmfs/@fqrn@" "$SQUID_URL"
mount_repo $fqrn "$mnt" "$CONFIG"
cache=$CACHE
# user.hash comes from the catalog: the object is not downloaded for it.
hash=$(magic_xattr hash "$mnt/data/victim.bin" 2>&1) || fail "user.hash of victim.bin: $hash"
obj=$(server_object_path $fqrn "$hash")
[ -f "$obj" ] || fail "user.hash of victim.bin is $hash but the server has no $obj"
url_path=/cvmfs/$fqrn/data/${hash:0:2}/${hash:2}
object_url=$APACHE_URL$url_path

# Requests for the object: at Apache (with Pragma) and at Squid.
origin_requests() { grep -F "\"GET $url_path " "$APACHE_ACCESS_LOG" || true; }
squid_requests() { grep -F "\"GET $object_url\"" "$SQUID_ACCESS_LOG" || true; }

cp -p "$obj" "$WORK/victim.orig"
chmod u+w "$obj"
python3 - "$obj" <<'EOF'
import os, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(os.path.getsize(sys.argv[1]) // 2)
    b = f.read(1)
    f.seek(-1, 1)
    f.write(bytes([b[0] ^ 0xff]))
EOF
bad_sha=$(sha256_of "$obj")
note "corrupted the origin's $obj"

# --- 1. the origin is corrupted ------------------------------------------------
expect_read_error "$mnt/data/victim.bin" "Input/output error"
for path in "$(cache_object_path "$cache" "$hash")" "$(cache_object_path "$cache" "${hash%[CP]}")"; do
  [ ! -e "$path" ] || check_failed "step 1: the corrupted object was cached as $path"
done
# The kernel may ask more than once (a read is retried after a failed
# read-ahead); each attempt is a plain request (after the first one a hit
# in Squid, which the origin does not see) and a no-cache refetch.
attempts=$(origin_requests | awk '{ print $NF }' | xargs -d '\n')
[[ "$attempts" =~ ^\"-\"(\ \"no-cache\")+$ ]] ||
  check_failed "step 1: origin requests for the object: expected one plain, then no-cache ones, got $attempts"
expect_eq "step 1: Squid's first answer (a miss: fetched from the origin)" TCP_MISS \
  "$(squid_requests | head -n 1 | awk '{ split($3, s, "/"); print s[1] }')"
expect_eq "step 1: Squid's answers to no-cache requests (all refetched)" "" \
  "$(squid_requests | grep '"no-cache" ' | grep -v ' TCP_MISS/200 ' || true)"
expect_eq "intact.txt next to the corrupted file" "an intact neighbour" \
  "$(cat "$mnt/data/intact.txt" 2>&1)"
unmount_repo "$mnt"

# --- 2. the origin is repaired, Squid keeps the bad copy -----------------------
cp -p "$WORK/victim.orig" "$obj"
before=$(origin_requests | wc -l)
got=$(curl -sf -x "$SQUID_URL" "$object_url" | sha256sum | cut -d' ' -f1)
expect_eq "step 2: what Squid serves after the repair (still the bad copy)" "$bad_sha" "$got"
expect_eq "step 2: origin requests for Squid's cached answer" "$before" "$(origin_requests | wc -l)"
squid_requests | tail -n 1 | grep -q ' TCP_[A-Z_]*HIT/200 ' ||
  check_failed "step 2: Squid did not answer from its cache: $(squid_requests | tail -n 1)"

# --- 3. a fresh mount recovers through no-cache --------------------------------
failover_config $fqrn second "$APACHE_URL/cvmfs/@fqrn@" "$SQUID_URL"
mount_repo $fqrn "$mnt" "$CONFIG"
cache=$CACHE
squid_before=$(squid_requests | wc -l)
expect_same_content "step 3" "$mnt/data/victim.bin" "$src/victim.bin"
[ -f "$(cache_object_path "$cache" "$hash")" ] ||
  check_failed "step 3: victim.bin was read but is not in the client cache"
expect_eq "step 3: new origin requests for the object (one no-cache refetch)" '"no-cache"' \
  "$(origin_requests | tail -n +"$((before + 1))" | awk '{ print $NF }' | xargs -d '\n')"
new=$(squid_requests | tail -n +"$((squid_before + 1))")
expect_eq "step 3: Squid's answers (bad copy from its cache, then a no-cache refetch)" \
  "HIT no-cache" \
  "$(awk '{ split($3, s, "/"); print (s[1] ~ /HIT/ ? "HIT" : $(NF - 1)) }' <<<"$new" | tr -d '"' | xargs)"
grep "retrying .* with no-cache" "$WORK/debug.log" | grep -qF "${hash%[CP]}" ||
  check_failed "step 3: the debug log does not show the no-cache retry for $hash"
got=$(curl -sf -x "$SQUID_URL" "$object_url" | sha256sum | cut -d' ' -f1)
expect_eq "step 3: what Squid serves afterwards (the good copy)" "$(sha256_of "$obj")" "$got"
finish
