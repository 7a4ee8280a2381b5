#!/usr/bin/env bash
# The Geo-API end to end (doc/client.md and doc/serving.md, "The Geo-API"):
# three `cvmfs_server serve` on 127.0.0.2, .3 and .4 answer it from a
# GeoLite2-City database written here with MaxMind's own writer (Perl
# MaxMind::DB::Writer), which puts the client (127.0.0.1) in Geneva and the
# servers in Chicago (.2), Hamburg (.3) and Tokyo (.4). A mount with
# CVMFS_USE_GEOAPI=yes and the servers configured Tokyo, Chicago, Hamburg
# must use Hamburg, Chicago, Tokyo ("geographically ordered" in
# `cvmfs_talk host info`), having asked with CVMFS's URL (its cache's UUID
# for the proxy name, the names sorted); `cvmfs_talk host probe geo` orders
# a list set by hand again; CVMFS_MAX_SERVERS=2 keeps the closest two;
# behind a Squid the proxy's name is sent and its location used (Tokyo,
# from a location table beside the database).
# Servers whose answer is broken ("3,1,banana")
# leave the configured order, the mount works, the failure is logged and
# `host probe geo` says Failed. A location table (--geo-locations) answers
# like the database; a malformed one stops serve with its line number.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"
. "$here/../lib/squid.sh"

test_init geo_api 300
require_root_and_fuse
require_bins cvmfs_server cvmfs2 cvmfs_talk
require_cmds perl
perl -MMaxMind::DB::Writer::Tree -e 1 2>/dev/null ||
  skip "no Perl MaxMind::DB::Writer (Debian libmaxmind-db-writer-perl)"

src=$WORK/src
mkdir -p "$src/dir"
echo "geo" >"$src/dir/hello.txt"
publish_tree geo.test.org "$src" data
publish_tree broken.test.org "$src" data
publish_tree max.test.org "$src" data
publish_tree proxy.test.org "$src" data

db=$WORK/GeoLite2-City.mmdb
perl "$SOURCE_DIR/test/lib/write_geo_db.pl" "$db" \
  127.0.0.1/32=46.2044,6.1432 127.0.0.2/32=41.8781,-87.6298 \
  127.0.0.3/32=53.5511,9.9937 127.0.0.4/32=35.6762,139.6503 ||
  fail "could not write the test database"

# serve ADDRESS PORT LOG OPTIONS...: one server; waits until it serves.
serve() {
  local address=$1 port=$2 out=$3
  shift 3
  show_on_failure "$out"
  "$BIN/cvmfs_server" serve -a "$address" -p "$port" -l "$out.access" "$@" \
    geo.test.org broken.test.org max.test.org proxy.test.org </dev/null >"$out" 2>&1 &
  on_exit "kill -TERM $! 2>/dev/null || true"
  wait_for 10 "cvmfs_server serve on $address:$port" \
    grep -q "^serving broken.test.org at " "$out"
}
geo_port=$(free_port)
plain_port=$(free_port)
# The site proxy's name, placed in Tokyo by a location table beside the
# database (so that a client behind it gets Tokyo's order).
echo "localhost 35.6762 139.6503" >"$WORK/proxy-locations"
for n in 2 3 4; do
  serve 127.0.0.$n "$geo_port" "$WORK/geo-$n.out" --geo-db "$db" \
    --geo-locations "$WORK/proxy-locations"
  grep -q "^Geo-API from database $db" "$WORK/geo-$n.out" ||
    check_failed "serve on 127.0.0.$n did not report its Geo-API"
  # The same storage without the Geo-API: its URLs are plain files.
  serve 127.0.0.$n "$plain_port" "$WORK/plain-$n.out" --geo-db NONE
done
url() { echo "http://127.0.0.$1:$2/cvmfs/@fqrn@"; }
names=127.0.0.2,127.0.0.3,127.0.0.4

# The Geo-API over the wire, from 127.0.0.1 (Geneva).
answer=$(curl -s "http://127.0.0.2:$geo_port/cvmfs/geo.test.org/api/v1.0/geo/x/127.0.0.4,127.0.0.2,127.0.0.3")
expect_eq "Geo-API answer from Geneva" "3,2,1" "$answer"
answer=$(curl -s -H "X-Forwarded-For: 10.0.0.1, 127.0.0.4" \
  "http://127.0.0.2:$geo_port/cvmfs/geo.test.org/api/v1.0/geo/x/$names")
expect_eq "Geo-API answer for a client in Tokyo (X-Forwarded-For)" "3,2,1" "$answer"
# Proxies cache a good answer for an hour, a bad one for five minutes.
curl -si "http://127.0.0.3:$geo_port/cvmfs/geo.test.org/api/v1.0/geo/x/$names" >"$WORK/good.http"
grep -qi "^Cache-Control: max-age=3600" "$WORK/good.http" ||
  check_failed "good answer without max-age=3600: $(cat "$WORK/good.http")"
curl -si "http://127.0.0.3:$geo_port/cvmfs/geo.test.org/api/v1.0/geo/x/a.invalid,b.invalid" >"$WORK/bad.http"
grep -q "^HTTP/1.1 400" "$WORK/bad.http" && grep -qi "^Cache-Control: max-age=300" "$WORK/bad.http" &&
  grep -q "^Bad Request: no server addr found in database" "$WORK/bad.http" ||
  check_failed "unexpected answer for unknown servers: $(cat "$WORK/bad.http")"

# A location table instead of the database (Tokyo for the client's proxy
# by name; the servers by address and prefix); a bad line stops serve.
cat >"$WORK/locations" <<'TABLE'
# name-or-CIDR      latitude   longitude
squid.site.test     35.6762    139.6503
127.0.0.2           41.8781    -87.6298
127.0.0.0/29        53.5511    9.9937
TABLE
table_port=$(free_port)
serve 127.0.0.2 "$table_port" "$WORK/table.out" --geo-db NONE --geo-locations "$WORK/locations"
grep -q "^Geo-API from location table $WORK/locations (3 entries)" "$WORK/table.out" ||
  check_failed "serve did not report its location table"
answer=$(curl -s "http://127.0.0.2:$table_port/cvmfs/geo.test.org/api/v1.0/geo/squid.site.test/127.0.0.2,127.0.0.5,nowhere.invalid")
expect_eq "Geo-API answer from the location table (the proxy in Tokyo)" "2,1,3" "$answer"
answer=$(curl -s "http://127.0.0.2:$table_port/cvmfs/geo.test.org/api/v1.0/geo/x/127.0.0.2,127.0.0.5")
expect_eq "Geo-API answer from the location table (the client in Hamburg)" "2,1" "$answer"
echo "127.0.0.9 91 0" >>"$WORK/locations"
rc=0
out=$("$BIN/cvmfs_server" serve -p 0 --geo-locations "$WORK/locations" geo.test.org </dev/null 2>&1) || rc=$?
[ "$rc" -ne 0 ] || check_failed "serve started with a bad location table"
grep -q "locations line 5: latitude '91' is not a decimal number from -90 to 90" <<<"$out" ||
  check_failed "no clear error for a bad location table: $out"

etc=$CVMFS_ROOTDIR/etc/cvmfs
mount_dir=$WORK/cvmfs
mkdir -p "$etc/config.d"
echo "CVMFS_MOUNT_DIR=$mount_dir" >>"$etc/default.local"
talk() { "$BIN/cvmfs_talk" -i "$1" "${@:2}"; }
# hosts_of FQRN: the host URLs of `cvmfs_talk host info`, in order.
hosts_of() { talk "$1" host info | sed -n 's/^  \[[0-9]*\] \([^ ]*\) .*/\1/p' | tr '\n' ' '; }

# --- a good answer orders the servers at mount --------------------------------
fqrn=geo.test.org
test_client_config "$etc/config.d/$fqrn.local" \
  "$(url 4 "$geo_port");$(url 2 "$geo_port");$(url 3 "$geo_port")" \
  "$(repo_public_key $fqrn)" "CVMFS_USE_GEOAPI=yes"
mount_repo $fqrn "$mount_dir/$fqrn" "$etc/config.d/$fqrn.local"
expected="http://127.0.0.3:$geo_port/cvmfs/$fqrn http://127.0.0.2:$geo_port/cvmfs/$fqrn http://127.0.0.4:$geo_port/cvmfs/$fqrn "
expect_eq "hosts after a mount with CVMFS_USE_GEOAPI=yes" "$expected" "$(hosts_of $fqrn)"
info=$(talk $fqrn host info)
[ "$(grep -c "(geographically ordered)" <<<"$info")" -eq 3 ] ||
  check_failed "host info does not say geographically ordered: $info"
grep -q "^Active host 0: http://127.0.0.3:$geo_port/" <<<"$info" ||
  check_failed "the closest host is not the active one: $info"
expect_eq "content through the closest server" "geo" "$(cat "$mount_dir/$fqrn/data/dir/hello.txt")"
grep -q "GET /cvmfs/$fqrn/data/" "$WORK/geo-3.out.access" ||
  check_failed "Hamburg (127.0.0.3) served no object"
# CVMFS's URL: the cache's UUID as the proxy name (DIRECT), names sorted.
uuid=$(cat "$(cache_dir_of $fqrn)/uuid")
[[ "$uuid" =~ ^[0-9a-f-]{36}$ ]] || check_failed "cache uuid file holds '$uuid'"
cat "$WORK"/geo-[234].out.access >"$WORK/geo.access"
grep -q "GET /cvmfs/$fqrn/api/v1.0/geo/$uuid/$names HTTP" "$WORK/geo.access" ||
  check_failed "no Geo-API request with CVMFS's URL: $(grep api "$WORK/geo.access")"
grep -q "geographic order of servers retrieved from 127.0.0.[234]" "$WORK/debug.log" ||
  check_failed "the debug log does not say where the order came from"

# A list set by hand is unprobed; host probe geo orders it again.
expect_eq "host set" "OK" "$(talk $fqrn host set "$(url 2 "$geo_port");$(url 4 "$geo_port");$(url 3 "$geo_port")")"
talk $fqrn host info | grep -q "(unprobed)" || check_failed "host set list not unprobed"
expect_eq "host probe geo" "OK" "$(talk $fqrn host probe geo)"
expect_eq "hosts after host probe geo" "$expected" "$(hosts_of $fqrn)"

# CVMFS_MAX_SERVERS keeps the closest ones.
fqrn=max.test.org
test_client_config "$etc/config.d/$fqrn.local" \
  "$(url 4 "$geo_port");$(url 2 "$geo_port");$(url 3 "$geo_port")" \
  "$(repo_public_key $fqrn)" "CVMFS_USE_GEOAPI=yes" "CVMFS_MAX_SERVERS=2"
mount_repo $fqrn "$mount_dir/$fqrn" "$etc/config.d/$fqrn.local"
expect_eq "hosts with CVMFS_MAX_SERVERS=2" \
  "http://127.0.0.3:$geo_port/cvmfs/$fqrn http://127.0.0.2:$geo_port/cvmfs/$fqrn " \
  "$(hosts_of $fqrn)"

# Through a Squid the proxy's host name is sent ("localhost", in Tokyo):
# Tokyo, Hamburg, Chicago.
squid_start
fqrn=proxy.test.org
test_client_config "$etc/config.d/$fqrn.local" \
  "$(url 2 "$geo_port");$(url 3 "$geo_port");$(url 4 "$geo_port")" \
  "$(repo_public_key $fqrn)" "CVMFS_USE_GEOAPI=yes" \
  "CVMFS_HTTP_PROXY=http://localhost:$SQUID_PORT"
mount_repo $fqrn "$mount_dir/$fqrn" "$etc/config.d/$fqrn.local"
expect_eq "hosts behind a proxy in Tokyo" \
  "http://127.0.0.4:$geo_port/cvmfs/$fqrn http://127.0.0.3:$geo_port/cvmfs/$fqrn http://127.0.0.2:$geo_port/cvmfs/$fqrn " \
  "$(hosts_of $fqrn)"
grep -q "\"GET http://127.0.0.[234]:$geo_port/cvmfs/$fqrn/api/v1.0/geo/localhost/$names\"" "$SQUID_ACCESS_LOG" ||
  check_failed "no Geo-API request through the Squid: $(cat "$SQUID_ACCESS_LOG")"
expect_eq "host probe geo through the Squid" "OK" "$(talk $fqrn host probe geo)"

# --- a broken answer keeps the order -------------------------------------------
fqrn=broken.test.org
storage=$(repo_storage $fqrn)
mkdir -p "$storage/api/v1.0/geo/geo-test"
echo "3,1,banana" >"$storage/api/v1.0/geo/geo-test/$names"
chmod -R a+rX "$storage/api"
test_client_config "$etc/config.d/$fqrn.local" \
  "$(url 4 "$plain_port");$(url 2 "$plain_port");$(url 3 "$plain_port")" \
  "$(repo_public_key $fqrn)" "CVMFS_USE_GEOAPI=yes" \
  "CVMFS_PROXY_TEMPLATE=geo-test" "CVMFS_DEBUGLOG=$WORK/broken.log"
show_on_failure "$WORK/broken.log"
mount_repo $fqrn "$mount_dir/$fqrn" "$etc/config.d/$fqrn.local"
configured="http://127.0.0.4:$plain_port/cvmfs/$fqrn http://127.0.0.2:$plain_port/cvmfs/$fqrn http://127.0.0.3:$plain_port/cvmfs/$fqrn "
expect_eq "hosts after a broken answer" "$configured" "$(hosts_of $fqrn)"
talk $fqrn host info | grep -q "(unprobed)" || check_failed "broken answer but not unprobed"
expect_eq "content despite a broken answer" "geo" "$(cat "$mount_dir/$fqrn/data/dir/hello.txt")"
grep -q "invalid Geo-API reply from .*/api/v1.0/geo/geo-test/$names \[3,1,banana\]" "$WORK/broken.log" ||
  check_failed "the broken answer is not logged"
grep -q "failed to retrieve geographic order from stratum 1 servers" "$WORK/broken.log" ||
  check_failed "the failure is not logged"
expect_eq "host probe geo with broken answers" "Failed" "$(talk $fqrn host probe geo)"
expect_eq "hosts after a failed probe" "$configured" "$(hosts_of $fqrn)"

finish
