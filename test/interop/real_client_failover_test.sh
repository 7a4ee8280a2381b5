#!/usr/bin/env bash
# The real CVMFS 2.12 client between our Stratum 1 and a real one:
#   1. our `cvmfs_server add-replica` + `snapshot` of the real-made fixture
#      import-src.example.org, served by our Apache ("ours"); the fixture's
#      real Stratum 1 copy (stratum1/) served by another Apache ("theirs");
#   2. the real client with CVMFS_SERVER_URL="ours;theirs" mounts, uses
#      ours, and lists exactly as the fixture's expected.tsv;
#   3. with a fresh cache it mounts again through ours, ours is stopped,
#      and it fails over to theirs: every file reads correctly (the listing,
#      with the sha256 of every file, equals expected.tsv), user.host names
#      theirs, and theirs served the data objects.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/client.sh"
. "$here/../lib/real_cvmfs.sh"
real_cvmfs_private_etc "$@"
. "$here/../lib/apache.sh"

test_init real_client_failover 240
require_bins cvmfs_server
real_cvmfs_init

fqrn=import-src.example.org
fixture=${CVMFS_FIXTURES_DIR:-$SOURCE_DIR/../shared/fixtures}/$fqrn
[ -d "$fixture/stratum1" ] || skip "no fixture $fixture with a stratum1/ copy (set CVMFS_FIXTURES_DIR)"
fixture=$(cd "$fixture" && pwd)
key=$fixture/$fqrn.pub
s1root=$WORK/s1root
s1storage=$s1root/srv/cvmfs/$fqrn
mnt=$WORK/mnt
# The fixture was listed on x86_64; $(CVMFS_ARCH) follows the machine.
unset CVMFS_ARCH FIXTURE_UNSET
awk -F'\t' -v OFS='\t' -v arch="$(uname -m)" '
  $2 == "l" && $6 == "x86_64/lib" { $6 = arch "/lib"; $4 = length($6) } { print }' \
  "$fixture/expected.tsv" >"$WORK/expected.tsv"

# --- two Apache instances (apache.sh keeps one server's state in globals) ----
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

# "theirs" serves the fixture's Stratum 0 (the source of our snapshot) and
# its real Stratum 1 copy.
mkdir -p "$WORK/theirs-docroot/cvmfs"
ln -s "$fixture/srv/cvmfs/$fqrn" "$WORK/theirs-docroot/cvmfs/$fqrn"
ln -s "$fixture/stratum1" "$WORK/theirs-docroot/real-s1"
start_apache theirs "$WORK/theirs-docroot"
theirs_s0=$APACHE_URL/cvmfs/$fqrn
theirs_s1=$APACHE_URL/real-s1

# --- 1. our Stratum 1 ---------------------------------------------------------
s1() { CVMFS_ROOTDIR=$s1root "$BIN/cvmfs_server" "$@"; }
s1 add-replica -o root "$theirs_s0" "$key" >"$WORK/add-replica.out" 2>&1 ||
  fail "add-replica of the real fixture failed: $(cat "$WORK/add-replica.out")"
s1 snapshot $fqrn >"$WORK/snapshot.out" 2>&1 ||
  fail "snapshot of the real fixture failed: $(cat "$WORK/snapshot.out")"
note "our snapshot: $(tail -n 1 "$WORK/snapshot.out")"
start_apache ours "$s1root/srv"
ours_url=$APACHE_URL/cvmfs/$fqrn
ours_log=$APACHE_ACCESS_LOG
theirs_log=${AP_DIR[theirs]}/access.log

# --- 2. the real client through ours ------------------------------------------
real_client_config "$WORK/client.conf" "$ours_url;$theirs_s1" "$key"
real_mount $fqrn "$mnt" "$WORK/client.conf"
expect_eq "revision" "$(sed -n '/^--$/q;s/^S//p' "$fixture/stratum1/.cvmfspublished")" \
  "$(real_xattr revision "$mnt")"
expect_eq "host in use before the failover" "$ours_url" "$(real_xattr host "$mnt")"
theirs_before=$(wc -l <"$theirs_log")
compare_listing_to "real client through our Stratum 1" "$WORK/expected.tsv" "$mnt"
n=$(tail -n +$((theirs_before + 1)) "$theirs_log" | grep -c "GET /real-s1/" || true)
expect_eq "requests to their Stratum 1 while ours is up" 0 "$n"
n=$(grep -c "GET /cvmfs/$fqrn/data/" "$ours_log" || true)
[ "$n" -gt 100 ] || check_failed "our Stratum 1 served only $n data objects"
real_unmount "$mnt"

# --- 3. failover ------------------------------------------------------------------
rm -rf "$REAL_CACHE"
mkdir -p "$REAL_CACHE"
real_mount $fqrn "$mnt" "$WORK/client.conf"
expect_eq "host in use after mounting" "$ours_url" "$(real_xattr host "$mnt")"
stop_apache ours
curl -s -o /dev/null --max-time 2 "$ours_url/.cvmfspublished" && fail "our Stratum 1 still answers"
theirs_before=$(wc -l <"$theirs_log")
compare_listing_to "real client after failing over to their Stratum 1" "$WORK/expected.tsv" "$mnt"
expect_eq "host in use after the failover" "$theirs_s1" "$(real_xattr host "$mnt")"
n=$(tail -n +$((theirs_before + 1)) "$theirs_log" | grep -c '"GET /real-s1/data/[^ ]* HTTP[^"]*" 200' || true)
[ "$n" -gt 100 ] || check_failed "their Stratum 1 served only $n data objects after the failover"
note "after the failover their Stratum 1 served $n data objects"
real_unmount "$mnt"

finish
