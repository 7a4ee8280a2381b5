#!/usr/bin/env bash
# A Stratum 1 on S3 (SeaweedFS on 127.0.0.1): a Stratum 0 on local storage
# served by Apache is replicated by `add-replica -s` + `snapshot` into a
# bucket; our client reads the replica from the bucket's HTTP endpoint; a
# second revision is snapshotted, first by a snapshot killed with SIGKILL in
# the middle of its uploads (the replica keeps serving the first revision),
# then by one that completes it; `gc` and `check -i` of the replica over S3.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"
. "$here/../lib/s3.sh"
. "$here/../lib/toxiproxy.sh"

test_init s3_stratum1 300
require_bins cvmfs_server cvmfs2
require_weed

fqrn=s1.s3.test.org
bucket=replicas
src=$WORK/src
s1root=$WORK/s1root
s1() { CVMFS_ROOTDIR=$s1root "$BIN/cvmfs_server" "$@"; }
copied_of() { sed -n 's/^copied \([0-9]*\) objects.*/\1/p' "$1"; }
present_of() { sed -n 's/.* \([0-9]*\) objects present.*/\1/p' "$1"; }

# --- Stratum 0 (local storage, Apache) and the bucket -----------------------
mkdir -p "$src/a/b" "$src/nested"
for i in $(seq 1 30); do echo "file $i" >"$src/a/b/f$i"; done
make_random_file "$src/big.bin" $((3 * 1024 * 1024)) s1-big
: >"$src/nested/.cvmfscatalog"
echo nested >"$src/nested/n"
publish_tree $fqrn "$src" sw
apache_start "$CVMFS_ROOTDIR/srv"
s0_url=$APACHE_URL/cvmfs/$fqrn
start_s3 "$bucket"
conf=$WORK/s3.conf
write_s3_config "$conf" "$bucket"
url=$S3_URL/$bucket/$fqrn
key=$(repo_public_key $fqrn)

# --- add-replica -s -----------------------------------------------------------
out=$(s1 add-replica -s "$conf" -o root "$s0_url" "$key" 2>&1) &&
  fail "add-replica -s without -w succeeded: $out"
grep -q -- "-w" <<<"$out" || fail "the refusal does not ask for -w: $out"
s1 add-replica -z -s "$conf" -w "$S3_URL/$bucket" -o root "$s0_url" "$key" \
  >"$WORK/add.log" 2>&1 || fail "add-replica -s failed: $(cat "$WORK/add.log")"
s1conf=$s1root/etc/cvmfs/repositories.d/$fqrn/server.conf
grep -q "CVMFS_UPSTREAM_STORAGE='S3,.*,$fqrn@$conf'" "$s1conf" ||
  fail "no S3 upstream in $(cat "$s1conf")"
grep -q "CVMFS_STRATUM1='$url'" "$s1conf" || fail "no CVMFS_STRATUM1=$url in $(cat "$s1conf")"
[ ! -e "$s1root/srv/cvmfs/$fqrn" ] || fail "add-replica -s made a local storage"
expect_eq "list" "$fqrn (stratum1 / S3)" "$(s1 list)"

# --- first snapshot, read by a client from the bucket ---------------------------
s1 snapshot $fqrn >"$WORK/snap1.log" 2>&1 || fail "snapshot failed: $(cat "$WORK/snap1.log")"
note "first snapshot: $(tail -n 1 "$WORK/snap1.log")"
s0=$(repo_storage $fqrn)
for f in .cvmfspublished .cvmfswhitelist .cvmfsreflog; do
  cmp -s "$s0/$f" <(curl -sfS "$url/$f") || fail "$f differs between Stratum 0 and the bucket"
done
curl -sfS -o /dev/null "$url/.cvmfs_last_snapshot" || fail "no .cvmfs_last_snapshot in the bucket"
test_client_config "$WORK/client.conf" "$url" "$key"
mount_repo $fqrn "$WORK/mnt1" "$WORK/client.conf"
diff -r "$src" "$WORK/mnt1/sw" || fail "revision 2 through the S3 replica differs from the source"
unmount_repo "$WORK/mnt1"

# --- a second revision; a snapshot killed half-way -------------------------------
mkdir -p "$src/more"
for i in $(seq 1 40); do make_random_file "$src/more/r$i" $((256 * 1024)) "s1-more-$i"; done
echo changed >"$src/a/b/f1"
publish_tree $fqrn "$src" sw
rev=$(manifest_field $fqrn S)
# The replica reaches S3 through toxiproxy at 2 MB/s upstream, so its 10 MB
# take about 5 s and the kill lands while objects are still being uploaded.
toxiproxy_start
slow_port=$(toxiproxy_create_proxy s3 "$S3_PORT")
toxiproxy_add_toxic s3 slow bandwidth upstream '{"rate": 2048}'
write_s3_config "$conf" "$bucket" "CVMFS_S3_PORT=$slow_port"
manifest_before=$(curl -sfS "$url/.cvmfspublished" | sha256sum)
# (the prefix encoded: libcurl 7.88 signs the query string as it is given)
count_objects() { s3_curl "$S3_URL/$bucket?list-type=2&prefix=$fqrn%2Fdata%2F" | grep -o '<Key>' | wc -l; }
objects_before=$(count_objects)
uploading() { [ "$(count_objects)" -gt "$objects_before" ]; }
# (the program itself in the background, not the s1 function: its subshell
# would take the SIGKILL and leave the snapshot running)
CVMFS_ROOTDIR=$s1root "$BIN/cvmfs_server" snapshot $fqrn >"$WORK/kill.log" 2>&1 &
pid=$!
show_on_failure "$WORK/kill.log"
wait_for 30 "the snapshot to start uploading" uploading
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
uploaded=$(($(count_objects) - objects_before))
note "killed the snapshot with $uploaded of its objects uploaded"
! grep -q "^copied" "$WORK/kill.log" || fail "the snapshot ended before the kill"
expect_eq "manifest after a killed snapshot" "$manifest_before" \
  "$(curl -sfS "$url/.cvmfspublished" | sha256sum)"
mount_repo $fqrn "$WORK/mnt2" "$WORK/client.conf"
[ ! -e "$WORK/mnt2/sw/more" ] || fail "the killed snapshot's revision is visible"
expect_eq "revision served after the kill" $((rev - 1)) "$(magic_xattr revision "$WORK/mnt2")"
unmount_repo "$WORK/mnt2"

# --- the next snapshot completes it ------------------------------------------------
write_s3_config "$conf" "$bucket"
s1 snapshot $fqrn >"$WORK/snap2.log" 2>&1 || fail "second snapshot failed: $(cat "$WORK/snap2.log")"
note "resumed snapshot: $(tail -n 1 "$WORK/snap2.log")"
[ "$(present_of "$WORK/snap2.log")" -ge 1 ] ||
  fail "the resumed snapshot found none of the objects uploaded before the kill"
[ "$(copied_of "$WORK/snap2.log")" -ge 1 ] ||
  fail "the resumed snapshot had nothing left to copy: the kill came too late"
cmp -s "$s0/.cvmfspublished" <(curl -sfS "$url/.cvmfspublished") ||
  fail "the bucket's manifest is not revision $rev's"
mount_repo $fqrn "$WORK/mnt3" "$WORK/client.conf"
expect_eq "revision served" "$rev" "$(magic_xattr revision "$WORK/mnt3")"
diff -r "$src" "$WORK/mnt3/sw" || fail "revision $rev through the S3 replica differs from the source"
unmount_repo "$WORK/mnt3"
s1 snapshot $fqrn >"$WORK/snap3.log" 2>&1 || fail "third snapshot failed: $(cat "$WORK/snap3.log")"
expect_eq "objects copied by a snapshot without changes" 0 "$(copied_of "$WORK/snap3.log")"

# --- gc and check of the replica over the S3 API ----------------------------------------
s1 gc -f -r 0 $fqrn >"$WORK/gc.log" 2>&1 || fail "gc of the replica failed: $(cat "$WORK/gc.log")"
s1 check -i $fqrn >"$WORK/check.log" 2>&1 || fail "check -i failed: $(cat "$WORK/check.log")"
s1 info $fqrn >"$WORK/info.log" 2>&1 || fail "info failed: $(cat "$WORK/info.log")"
grep -q "^Revision: $rev\$" "$WORK/info.log" || fail "info does not show revision $rev: $(cat "$WORK/info.log")"
finish
