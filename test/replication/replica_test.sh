#!/usr/bin/env bash
# Stratum 1 replication end to end (issue 4):
#   1. a Stratum 0 made by our publisher, served by one Apache;
#   2. `add-replica` + `snapshot` into a Stratum 1 under its own
#      CVMFS_ROOTDIR (another machine, as far as paths go), served by a
#      second Apache, with a Squid in front of it;
#   3. the Stratum 0 stopped: a client whose only server is the Stratum 1
#      and whose proxy is the Squid mounts and reads everything (diff -r);
#   4. a new revision at the (restarted) Stratum 0: the next snapshot copies
#      exactly the objects the new revision added (summary count, and the
#      Stratum 0's access log), a further one copies nothing;
#   5. a snapshot -t while another holds the lock is refused clearly (a
#      snapshot without -t waits: stratum1_ops_test.sh);
#   `list` and `info` on the Stratum 1 show a stratum1 with its source URL,
#   last snapshot and served revision (after 2. and 4.);
#   6. the client sees the new revision through the Stratum 1 alone.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"
. "$here/../lib/squid.sh"

test_init replica 500
require_bins cvmfs_server cvmfs2
require_cmds flock

fqrn=replica.test.org
src=$WORK/src
mnt=$WORK/mnt
s1root=$WORK/s1root
s1storage=$s1root/srv/cvmfs/$fqrn
s0storage=$(repo_storage $fqrn)

# --- two Apache instances ----------------------------------------------------
# apache.sh keeps one server's state in globals under $WORK/apache; each
# instance here gets its own $WORK/<name>/apache and its own globals.
declare -A AP_DIR=() AP_PORT=()
start_apache() {
  local name=$1 docroot=$2 saved_work=$WORK
  WORK=$saved_work/$name
  mkdir -p "$WORK"
  apache_start "$docroot" ${AP_PORT[$name]:-}
  WORK=$saved_work
  AP_DIR[$name]=$APACHE_DIR AP_PORT[$name]=$APACHE_PORT
  on_exit "stop_apache $name"
}
use_apache() {
  APACHE_DIR=${AP_DIR[$1]} APACHE_PORT=${AP_PORT[$1]}
  APACHE_URL=http://127.0.0.1:$APACHE_PORT APACHE_ACCESS_LOG=$APACHE_DIR/access.log
}
stop_apache() { use_apache "$1" && apache_stop; }

s1() { CVMFS_ROOTDIR=$s1root "$BIN/cvmfs_server" "$@"; }

# Object files of a storage, sorted (data/txn excluded).
objects_of() { (cd "$1" && find data -type f ! -path 'data/txn/*' | LC_ALL=C sort); }
# "copied N objects" from a snapshot summary.
copied_of() { sed -n 's/^copied \([0-9]*\) objects.*/\1/p' "$1"; }

build_tree() {
  mkdir -p "$src/small" "$src/nested/deep" "$src/big"
  for i in $(seq 1 200); do echo "small file $i" >"$src/small/f$i.txt"; done
  echo "same content" >"$src/small/dup1"
  echo "same content" >"$src/small/dup2"
  make_random_file "$src/big/chunked.bin" 9000000 replica-chunked
  make_random_file "$src/nested/deep/one.bin" 300000 replica-one
  : >"$src/nested/.cvmfscatalog"
  : >"$src/small/empty"
  ln -s ../small/f1.txt "$src/nested/link"
}

check_mount() {
  local what=$1 out
  out=$(diff -r --no-dereference "$src" "$mnt/data" 2>&1 || true)
  [ -z "$out" ] || check_failed "$what: diff -r source mount:"$'\n'"$out"
}

# --- 1. Stratum 0 ------------------------------------------------------------
build_tree
publish_tree $fqrn "$src" data
start_apache s0 "$CVMFS_ROOTDIR/srv"
s0_url=$APACHE_URL/cvmfs/$fqrn
[ -e "$s0storage/.cvmfs_master_replica" ] || fail "mkfs wrote no .cvmfs_master_replica"

# --- 2. Stratum 1 --------------------------------------------------------------
s1 add-replica -o root "$s0_url" "$(repo_public_key $fqrn)" >"$WORK/add-replica.out" 2>&1 ||
  fail "add-replica failed: $(cat "$WORK/add-replica.out")"
grep -q "CVMFS_REPOSITORY_TYPE='stratum1'" "$s1root/etc/cvmfs/repositories.d/$fqrn/server.conf" ||
  check_failed "server.conf does not declare a stratum1"
[ -e "$s1root/etc/cvmfs/keys/$fqrn.pub" ] || check_failed "the public key was not installed"
grep -q "Alias /cvmfs/$fqrn" "$s1root/etc/cvmfs/repositories.d/$fqrn/apache.conf" ||
  check_failed "add-replica wrote no Apache configuration"
[ -d "$s1storage/data/ff" ] && [ -d "$s1storage/data/txn" ] || check_failed "no storage layout"
if out=$(s1 add-replica "$s0_url" "$(repo_public_key $fqrn)" 2>&1); then
  check_failed "a second add-replica of the same name succeeded"
fi

s1 snapshot $fqrn >"$WORK/snapshot1.out" 2>&1 || fail "snapshot failed: $(cat "$WORK/snapshot1.out")"
note "first snapshot: $(tail -n 1 "$WORK/snapshot1.out")"
copied=$(copied_of "$WORK/snapshot1.out")
expect_eq "objects copied by the first snapshot" "$(objects_of "$s1storage" | wc -l)" "$copied"
for f in .cvmfspublished .cvmfswhitelist .cvmfsreflog; do
  cmp -s "$s0storage/$f" "$s1storage/$f" || check_failed "$f differs between Stratum 0 and 1"
done
[ -s "$s1storage/.cvmfs_last_snapshot" ] || check_failed "no .cvmfs_last_snapshot"
[ ! -e "$s1storage/.cvmfs_master_replica" ] || check_failed "the replica claims to be a master"
# list and info speak of a Stratum 1: the source URL, the last snapshot and
# the revision served.
expect_eq "cvmfs_server list on the Stratum 1" "$fqrn (stratum1 / local)" "$(s1 list)"
s1 info $fqrn >"$WORK/info1.out" 2>&1 || check_failed "info failed: $(cat "$WORK/info1.out")"
info_field() { sed -n "s/^$1: //p" "$2"; }
expect_eq "info: upstream URL" "$s0_url" "$(info_field 'Upstream (Stratum 0) URL' "$WORK/info1.out")"
expect_eq "info: last snapshot" "$(head -n 1 "$s1storage/.cvmfs_last_snapshot")" \
  "$(info_field 'Last snapshot' "$WORK/info1.out")"
expect_eq "info: revision" "$(manifest_field $fqrn S)" "$(info_field Revision "$WORK/info1.out")"
! grep -qi "stratum0 url\|stratum0 /" "$WORK/info1.out" ||
  check_failed "info shows Stratum 0 wording for a replica:"$'\n'"$(cat "$WORK/info1.out")"
# Everything the Stratum 0 holds is on the Stratum 1, byte for byte, except
# old history databases (replaced at each publish, referenced by nothing).
while read -r obj; do
  cmp -s "$s0storage/$obj" "$s1storage/$obj" || check_failed "$obj differs"
done < <(objects_of "$s1storage")
missing=$(comm -23 <(objects_of "$s0storage") <(objects_of "$s1storage") | grep -v 'H$' || true)
[ -z "$missing" ] || check_failed "objects of the Stratum 0 missing on the Stratum 1:"$'\n'"$missing"

start_apache s1 "$s1root/srv"
s1_url=$APACHE_URL
squid_start

# --- 3. the Stratum 0 goes away --------------------------------------------
stop_apache s0
if curl -sf -o /dev/null "$s0_url/.cvmfspublished"; then fail "the Stratum 0 still answers"; fi
test_client_config "$WORK/client.conf" "$s1_url/cvmfs/@fqrn@" "$(repo_public_key $fqrn)" \
  "CVMFS_HTTP_PROXY=$SQUID_URL"
mount_repo $fqrn "$mnt" "$WORK/client.conf"
check_mount "revision $(manifest_field $fqrn S) through Squid and the Stratum 1"
expect_eq "mounted revision" "$(manifest_field $fqrn S)" "$(magic_xattr revision "$mnt")"
expect_eq "proxy in use" "$SQUID_URL" "$(magic_xattr proxy "$mnt")"
n=$(squid_request_count "$SQUID_ACCESS_LOG" "\"GET $s1_url/cvmfs/$fqrn/data/")
[ "$n" -ge 1 ] || check_failed "Squid's access log shows no object request to the Stratum 1"
unmount_repo "$mnt"

# --- 4. a new revision, replicated incrementally ---------------------------
start_apache s0 "$CVMFS_ROOTDIR/srv"
echo "changed in revision 3" >"$src/small/f7.txt"
make_random_file "$src/nested/deep/two.bin" 500000 replica-two
mkdir -p "$src/added"
echo "a new directory" >"$src/added/readme"
objects_of "$s0storage" >"$WORK/s0-before"
publish_tree $fqrn "$src" data
comm -13 "$WORK/s0-before" <(objects_of "$s0storage") >"$WORK/s0-new"
note "revision $(manifest_field $fqrn S) added $(wc -l <"$WORK/s0-new") objects"

use_apache s0
log_start=$(wc -l <"$APACHE_ACCESS_LOG")
s1 snapshot $fqrn >"$WORK/snapshot2.out" 2>&1 || fail "second snapshot failed: $(cat "$WORK/snapshot2.out")"
note "second snapshot: $(tail -n 1 "$WORK/snapshot2.out")"
expect_eq "objects copied by the second snapshot" "$(wc -l <"$WORK/s0-new")" \
  "$(copied_of "$WORK/snapshot2.out")"
# The Stratum 0 served each new object once, and no other object but the
# certificate (fetched every time to check the manifest's signature).
cert=$(manifest_field $fqrn X)
tail -n +$((log_start + 1)) "$APACHE_ACCESS_LOG" |
  sed -n "s|.*\"GET /cvmfs/$fqrn/\(data/[^ ]*\) HTTP.*|\1|p" | grep -v "X\$" |
  LC_ALL=C sort >"$WORK/fetched2"
# Small files arrive inside their directory's bundle (doc/format-bundles.md):
# what was fetched is new, fetched once, and with the members of the fetched
# bundles makes up all that is new.
[ -z "$(uniq -d "$WORK/fetched2")" ] || check_failed "fetched twice: $(uniq -d "$WORK/fetched2")"
[ -z "$(comm -13 "$WORK/s0-new" "$WORK/fetched2")" ] ||
  check_failed "fetched what is not new: $(comm -13 "$WORK/s0-new" "$WORK/fetched2")"
for b in $(grep 'B$' "$WORK/fetched2"); do
  sed -n '3,/^$/p' "$s1storage/$b" | sed -n 's|^\([0-9a-f][0-9a-f]\)\([0-9a-f]*\) .*|data/\1/\2|p'
done | LC_ALL=C sort -u | LC_ALL=C comm -12 - "$WORK/s0-new" |
  LC_ALL=C sort -m - "$WORK/fetched2" | LC_ALL=C sort -u >"$WORK/arrived2"
expect_eq "objects the second snapshot fetched (bundle members included)" \
  "$(cat "$WORK/s0-new")" "$(cat "$WORK/arrived2")"
grep -q 'B$' "$WORK/fetched2" || check_failed "the second snapshot fetched no bundle"
grep -q "\"GET /cvmfs/$fqrn/data/${cert:0:2}/${cert:2}X " "$APACHE_ACCESS_LOG" ||
  check_failed "the certificate was not fetched for verification"

s1 info >"$WORK/info2.out" 2>&1 || check_failed "info failed: $(cat "$WORK/info2.out")"
expect_eq "info: revision after the second snapshot" "$(manifest_field $fqrn S)" \
  "$(info_field Revision "$WORK/info2.out")"

s1 snapshot >"$WORK/snapshot3.out" 2>&1 || fail "third snapshot failed: $(cat "$WORK/snapshot3.out")"
expect_eq "objects copied by a snapshot without changes" 0 "$(copied_of "$WORK/snapshot3.out")"
grep -q "replica was up to date" "$WORK/snapshot3.out" || check_failed "no 'up to date' in the summary"

# --- 5. the lock --------------------------------------------------------------
lock=$s1root/var/spool/cvmfs/$fqrn/is_snapshotting.lock
rc=0
out=$(CVMFS_ROOTDIR=$s1root flock -x "$lock" "$BIN/cvmfs_server" snapshot -t $fqrn 2>&1) || rc=$?
[ "$rc" -ne 0 ] || check_failed "a snapshot ran while another held the lock"
[[ "$out" == *"another snapshot of $fqrn is running"* ]] || check_failed "unclear refusal: $out"
s1 snapshot -a >"$WORK/snapshot-a.out" 2>&1 || check_failed "snapshot -a failed: $(cat "$WORK/snapshot-a.out")"

# --- 6. the new revision through the Stratum 1 alone --------------------------
stop_apache s0
expect_eq "revision the Stratum 1 serves" "$(manifest_field $fqrn S)" \
  "$(curl -sf "$s1_url/cvmfs/$fqrn/.cvmfspublished" | sed -n '/^--$/q;s/^S//p')"
# Squid keeps the old manifest up to the 61 s Apache allows; a no-cache
# request replaces it at once (what an operator does after a snapshot that
# must reach clients now).
curl -sf -o /dev/null -x "$SQUID_URL" -H 'Pragma: no-cache' -H 'Cache-Control: no-cache' \
  "$s1_url/cvmfs/$fqrn/.cvmfspublished" || check_failed "refreshing the manifest in Squid failed"
mount_repo $fqrn "$mnt" "$WORK/client.conf"
check_mount "revision $(manifest_field $fqrn S) through Squid and the Stratum 1"
expect_eq "mounted revision" "$(manifest_field $fqrn S)" "$(magic_xattr revision "$mnt")"
unmount_repo "$mnt"

finish
