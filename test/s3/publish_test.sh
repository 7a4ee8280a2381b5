#!/usr/bin/env bash
# A repository on S3 (SeaweedFS on 127.0.0.1): mkfs -s, two ingests, gc and
# check through the S3 API; our client reads it from the bucket's HTTP
# endpoint (anonymous reads); another machine's import takes it over from
# the bucket with the keys alone and publishes on; a second repository publishes from
# transactions (overlayfs over cvmfs2 reading the bucket), tags and rolls
# back; a publisher killed with SIGKILL in the middle of its uploads leaves
# the previous revision served.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/client.sh"
. "$here/../lib/s3.sh"
. "$here/../lib/toxiproxy.sh"

test_init s3_publish 300
require_bins cvmfs_server cvmfs2
require_weed

fqrn=s3.test.org
bucket=cvmfs
start_s3 "$bucket"
conf=$WORK/s3.conf
write_s3_config "$conf" "$bucket"
url=$S3_URL/$bucket/$fqrn
srv=$BIN/cvmfs_server

# --- refused configuration --------------------------------------------------
bad=$WORK/bad.conf
write_s3_config "$bad" "$bucket" CVMFS_S3_FLAVOUR=awsv4
out=$(CVMFS_SERVER_NO_MOUNT=1 "$srv" mkfs -s "$bad" -w "$S3_URL/$bucket" bad.test.org 2>&1) &&
  fail "mkfs accepted an unknown S3 key: $out"
grep -q CVMFS_S3_FLAVOUR <<<"$out" || fail "the refusal does not name the key: $out"
out=$(CVMFS_SERVER_NO_MOUNT=1 "$srv" mkfs -s "$conf" nourl.test.org 2>&1) &&
  fail "mkfs -s without -w succeeded: $out"
grep -q -- "-w" <<<"$out" || fail "the refusal does not ask for -w: $out"

# --- mkfs and two publishes ---------------------------------------------------
# -w is the bucket's URL: the repository name is appended, as CVMFS does.
CVMFS_SERVER_NO_MOUNT=1 "$srv" mkfs -z -s "$conf" -w "$S3_URL/$bucket" "$fqrn" >"$WORK/mkfs.log" 2>&1 ||
  fail "mkfs -s failed: $(cat "$WORK/mkfs.log")"
grep -q "^CVMFS_STRATUM0=.\?$url.\?\$" "$CVMFS_ROOTDIR/etc/cvmfs/repositories.d/$fqrn/server.conf" ||
  fail "CVMFS_STRATUM0 is not $url"
curl -sfS -o /dev/null "$url/.cvmfspublished" ||
  fail "no anonymous read of $url/.cvmfspublished"
src=$WORK/src
mkdir -p "$src/a/b"
for i in $(seq 1 30); do echo "file $i" >"$src/a/b/f$i"; done
make_random_file "$src/big.bin" $((3 * 1024 * 1024)) s3-big
ingest() {
  tar -C "$1" -cf "$WORK/in.tar" .
  "$srv" ingest -t "$WORK/in.tar" -b "$2" "$fqrn" >"$WORK/ingest.log" 2>&1
}
ingest "$src" sw || fail "ingest to S3 failed: $(cat "$WORK/ingest.log")"
echo changed >"$src/a/b/f1"
ingest "$src" sw || fail "second ingest failed: $(cat "$WORK/ingest.log")"
rev=$(curl -sfS "$url/.cvmfspublished" | sed -n 's/^S//p' | head -1)
expect_eq "revision after two ingests" 3 "$rev"

# --- gc and check over the S3 API ----------------------------------------------
"$srv" gc -f -r 0 "$fqrn" >"$WORK/gc.log" 2>&1 || fail "gc failed: $(cat "$WORK/gc.log")"
"$srv" check -i "$fqrn" >"$WORK/check.log" 2>&1 || fail "check failed: $(cat "$WORK/check.log")"

# --- a client reads it from the bucket --------------------------------------------
key=$CVMFS_ROOTDIR/etc/cvmfs/keys/$fqrn.pub
test_client_config "$WORK/client.conf" "$url" "$key"
mount_repo "$fqrn" "$WORK/mnt" "$WORK/client.conf"
diff -r "$src" "$WORK/mnt/sw" || fail "the mounted repository differs from the source"
unmount_repo "$WORK/mnt"

# --- import: another publisher machine takes over the repository in the bucket ---
# This machine forgets the repository (configuration, spool, keys); the
# bucket keeps it. import -u S3,... with the keys alone adopts it, and the
# next publish continues its revisions.
keys=$WORK/keys
mkdir -p "$keys"
cp "$CVMFS_ROOTDIR"/etc/cvmfs/keys/$fqrn.* "$keys/"
rm -rf "$CVMFS_ROOTDIR/etc/cvmfs/repositories.d/$fqrn" "$CVMFS_ROOTDIR/var/spool/cvmfs/$fqrn"
rm -f "$CVMFS_ROOTDIR"/etc/cvmfs/keys/$fqrn.*
upstream="S3,$WORK/tmp,$fqrn@$conf"
out=$(CVMFS_SERVER_NO_MOUNT=1 "$srv" import -u "$upstream" -k "$keys" "$fqrn" 2>&1) &&
  fail "import from S3 without -w succeeded: $out"
grep -q -- "-w" <<<"$out" || fail "the refusal does not ask for -w: $out"
out=$(CVMFS_SERVER_NO_MOUNT=1 "$srv" import -u "S3,$WORK/tmp,no.such.prefix@$conf" \
  -w "$S3_URL/$bucket" -k "$keys" "$fqrn" 2>&1) &&
  fail "import of an empty prefix succeeded: $out"
grep -q "no.such.prefix/.cvmfspublished missing" <<<"$out" ||
  fail "the refusal does not name the missing manifest: $out"
[ ! -e "$CVMFS_ROOTDIR/etc/cvmfs/repositories.d/$fqrn" ] ||
  fail "a refused import left a configuration behind"
CVMFS_SERVER_NO_MOUNT=1 "$srv" import -u "$upstream" -w "$S3_URL/$bucket" -k "$keys" \
  "$fqrn" >"$WORK/import.log" 2>&1 || fail "import from S3 failed: $(cat "$WORK/import.log")"
grep -q "revision 3" "$WORK/import.log" || fail "import does not report revision 3: $(cat "$WORK/import.log")"
grep -q "^CVMFS_UPSTREAM_STORAGE=.\?S3,.*$fqrn@$conf" \
  "$CVMFS_ROOTDIR/etc/cvmfs/repositories.d/$fqrn/server.conf" ||
  fail "the imported configuration does not name the bucket: $(cat "$CVMFS_ROOTDIR/etc/cvmfs/repositories.d/$fqrn/server.conf")"
mkdir -p "$WORK/after"
echo imported >"$WORK/after/note"
ingest "$WORK/after" imported || fail "ingest after the import failed: $(cat "$WORK/ingest.log")"
expect_eq "revision after the import and an ingest" 4 \
  "$(curl -sfS "$url/.cvmfspublished" | sed -n 's/^S//p' | head -1)"
"$srv" check "$fqrn" >"$WORK/check2.log" 2>&1 || fail "check after the import failed: $(cat "$WORK/check2.log")"
mount_repo "$fqrn" "$WORK/mnt1" "$WORK/client.conf"
expect_eq "a file published after the import" imported "$(cat "$WORK/mnt1/imported/note")"
diff -r "$src" "$WORK/mnt1/sw" || fail "the imported repository lost its content"
unmount_repo "$WORK/mnt1"
note "imported from S3 with the keys alone; the next publish is revision 4"

# --- a transaction (overlayfs) on S3: publish, tag, rollback ------------------
# The read-only layer is our cvmfs2 mounting the bucket's HTTP endpoint.
if grep -qw overlay /proc/filesystems; then
  tfqrn=txn.s3.test.org
  union=$CVMFS_ROOTDIR/cvmfs/$tfqrn
  turl=$S3_URL/$bucket/$tfqrn
  on_exit "\"$srv\" rmfs -f $tfqrn >/dev/null 2>&1 || true"
  "$srv" mkfs -s "$conf" -w "$S3_URL/$bucket" $tfqrn >"$WORK/tmkfs.log" 2>&1 ||
    fail "mkfs -s with mounts failed: $(cat "$WORK/tmkfs.log")"
  txn_publish() {
    "$srv" publish "$@" $tfqrn >"$WORK/tpublish.log" 2>&1 ||
      fail "publish to S3 failed: $(cat "$WORK/tpublish.log")"
  }
  "$srv" transaction $tfqrn >/dev/null
  mkdir "$union/d" && echo one >"$union/d/one.txt"
  txn_publish -a v1
  "$srv" transaction $tfqrn >/dev/null
  rm "$union/d/one.txt" && echo two >"$union/d/two.txt"
  txn_publish
  expect_eq "union after the second publish" "two.txt" "$(ls "$union/d")"
  "$srv" tag -l $tfqrn | grep -q '^v1 ' || fail "no tag v1: $("$srv" tag -l $tfqrn)"
  "$srv" rollback -f -t v1 $tfqrn >"$WORK/trollback.log" 2>&1 ||
    fail "rollback on S3 failed: $(cat "$WORK/trollback.log")"
  expect_eq "union after the rollback to v1" "one.txt" "$(ls "$union/d")"
  expect_eq "revision in the bucket after mkfs, 2 publishes, a rollback" 4 \
    "$(curl -sfS "$turl/.cvmfspublished" | sed -n 's/^S//p' | head -1)"
  "$srv" check $tfqrn >"$WORK/tcheck.log" 2>&1 || fail "check failed: $(cat "$WORK/tcheck.log")"
  "$srv" rmfs -f $tfqrn >/dev/null || fail "rmfs -f of an S3 repository failed"
  note "transactions on S3: two publishes, a tag and a rollback"
else
  note "no overlayfs: the transaction part is skipped"
fi

# --- SIGKILL in the middle of an upload ----------------------------------------
# The publisher reaches S3 through toxiproxy at 2 MB/s upstream, so its 10 MB
# take about 5 s and the kill lands while objects are still being uploaded.
toxiproxy_start
slow_port=$(toxiproxy_create_proxy s3 "$S3_PORT")
toxiproxy_add_toxic s3 slow bandwidth upstream '{"rate": 2048}'
write_s3_config "$conf" "$bucket" "CVMFS_S3_PORT=$slow_port"
manifest_before=$(curl -sfS "$url/.cvmfspublished" | sha256sum)
mkdir -p "$WORK/more"
for i in $(seq 1 40); do make_random_file "$WORK/more/r$i" $((256 * 1024)) "kill-$i"; done
tar -C "$WORK/more" -cf "$WORK/more.tar" .
# (the prefix encoded: libcurl 7.88 signs the query string as it is given)
count_objects() { s3_curl "$S3_URL/$bucket?list-type=2&prefix=$fqrn%2Fdata%2F" | grep -o '<Key>' | wc -l; }
objects_before=$(count_objects)
uploading() { [ "$(count_objects)" -gt "$objects_before" ]; }
"$srv" ingest -t "$WORK/more.tar" -b more "$fqrn" >"$WORK/kill.log" 2>&1 &
pid=$!
show_on_failure "$WORK/kill.log"
wait_for 30 "the publisher to start uploading" uploading
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
note "killed the publisher with $(($(count_objects) - objects_before)) of its objects uploaded"
! grep -q "published revision" "$WORK/kill.log" || fail "the publish ended before the kill"
expect_eq "manifest after a killed publish" "$manifest_before" \
  "$(curl -sfS "$url/.cvmfspublished" | sha256sum)"
mount_repo "$fqrn" "$WORK/mnt2" "$WORK/client.conf"
[ ! -e "$WORK/mnt2/more" ] || fail "the killed publish is visible"
diff -r "$src" "$WORK/mnt2/sw" || fail "the previous revision is not served intact"
finish
