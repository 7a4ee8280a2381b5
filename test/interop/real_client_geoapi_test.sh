#!/usr/bin/env bash
# The real CVMFS 2.12 client asks our Geo-API: three `cvmfs_server serve`
# on 127.0.0.2 (Chicago), .3 (Hamburg) and .4 (Tokyo) with a GeoLite2-City
# database written by MaxMind's writer that puts the client (127.0.0.1) in
# Geneva. With CVMFS_USE_GEOAPI=yes and the servers configured Tokyo,
# Chicago, Hamburg, the real client must end up with Hamburg, Chicago, Tokyo
# ("geographically ordered" in its `cvmfs_talk host info`), having asked
# the URL our client asks (test/client/geo_api_test.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/client.sh"
. "$here/../lib/real_cvmfs.sh"
real_cvmfs_private_etc "$@"
. "$here/../lib/publish.sh"

test_init real_client_geoapi 240
require_bins cvmfs_server
require_cmds perl
perl -MMaxMind::DB::Writer::Tree -e 1 2>/dev/null ||
  skip "no Perl MaxMind::DB::Writer (Debian libmaxmind-db-writer-perl)"
real_cvmfs_init

fqrn=geo.test.org
mkdir -p "$WORK/src"
echo "geo" >"$WORK/src/hello.txt"
publish_tree $fqrn "$WORK/src" data
db=$WORK/GeoLite2-City.mmdb
perl "$SOURCE_DIR/test/lib/write_geo_db.pl" "$db" \
  127.0.0.1/32=46.2044,6.1432 127.0.0.2/32=41.8781,-87.6298 \
  127.0.0.3/32=53.5511,9.9937 127.0.0.4/32=35.6762,139.6503 ||
  fail "could not write the test database"

port=$(free_port)
for n in 2 3 4; do
  out=$WORK/serve-$n.out
  show_on_failure "$out"
  "$BIN/cvmfs_server" serve -a 127.0.0.$n -p "$port" -l "$WORK/access-$n.log" \
    --geo-db "$db" $fqrn </dev/null >"$out" 2>&1 &
  on_exit "kill -TERM $! 2>/dev/null || true"
  wait_for 10 "cvmfs_server serve on 127.0.0.$n" grep -q "^serving $fqrn at " "$out"
done
url() { echo "http://127.0.0.$1:$port/cvmfs/@fqrn@"; }

real_client_config "$WORK/client.conf" "$(url 4);$(url 2);$(url 3)" \
  "$(repo_public_key $fqrn)" "CVMFS_USE_GEOAPI=yes"
real_mount $fqrn "$WORK/mnt" "$WORK/client.conf"
expect_eq "content" "geo" "$(cat "$WORK/mnt/data/hello.txt")"
info=$("$REAL_BIN/real-cvmfs_talk" -p "$(real_cache_dir_of $fqrn)/cvmfs_io.$fqrn" host info)
expect_eq "the real client's host order" \
  "http://127.0.0.3:$port/cvmfs/$fqrn http://127.0.0.2:$port/cvmfs/$fqrn http://127.0.0.4:$port/cvmfs/$fqrn " \
  "$(sed -n 's/^  \[[0-9]*\] \([^ ]*\) .*/\1/p' <<<"$info" | tr '\n' ' ')"
[ "$(grep -c "(geographically ordered)" <<<"$info")" -eq 3 ] ||
  check_failed "the real client does not say geographically ordered: $info"
cat "$WORK"/access-[234].log >"$WORK/access.log"
grep -qE "GET /cvmfs/$fqrn/api/v1.0/geo/[0-9a-f-]{36}/127.0.0.2,127.0.0.3,127.0.0.4 HTTP/1.1\" 200" "$WORK/access.log" ||
  check_failed "the real client's Geo-API request differs from ours: $(grep api "$WORK/access.log")"

finish
