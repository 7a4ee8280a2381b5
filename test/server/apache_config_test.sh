#!/usr/bin/env bash
# The Apache snippet that `cvmfs_server mkfs` writes works with a real Apache
# httpd and behaves like `cvmfs_server serve`: apache2 -t accepts a minimal
# server configuration that includes it (and refuses it, naming the module,
# without mod_headers); the running Apache and the embedded server answer
# the same status, Cache-Control, expiry lifetime, Content-Type, length and
# Content-Range for manifests, whitelists, catalogs, data objects, ranges,
# missing files and directories, neither sends ETag or Last-Modified, and a
# client mounts the repository through Apache. The generated squid.conf
# passes `squid -k parse`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init apache_config 300
require_cmds apache2
require_bins cvmfs_server cvmfs2

fqrn=apache.test.org
src=$WORK/src
mkdir -p "$src/dir"
echo "through apache" >"$src/dir/file.txt"
make_random_file "$src/dir/blob" 300000 apache-blob
publish_tree "$fqrn" "$src" sw
conf=$CVMFS_ROOTDIR/etc/cvmfs/repositories.d/$fqrn/apache.conf
[ -s "$conf" ] || fail "mkfs did not write $conf"

# --- a minimal Apache around the snippet ----------------------------------------
APACHE_MODULES=${APACHE_MODULES:-/usr/lib/apache2/modules}
adir=$WORK/apache
mkdir -p "$adir/run"
port=$(free_port)
user=www-data
getent passwd "$user" >/dev/null || user=nobody
types=/etc/mime.types
[ -r "$types" ] || types=/dev/null

# write_wrapper FILE [MODULE_TO_LEAVE_OUT]
write_wrapper() {
  local file=$1 skip=${2:-} m
  {
    cat <<EOF2
ServerRoot "$adir"
ServerName 127.0.0.1
Listen 127.0.0.1:$port
PidFile "$adir/httpd.pid"
DefaultRuntimeDir "$adir/run"
Mutex file:$adir/run default
ErrorLog "$adir/error.log"
User $user
Group $(id -gn "$user")
TypesConfig $types
EOF2
    for m in mpm_event authz_core mime expires headers alias; do
      [ "$m" = "$skip" ] || echo "LoadModule ${m}_module $APACHE_MODULES/mod_$m.so"
    done
    cat <<EOF2
<Directory />
    Options None
    AllowOverride None
    Require all denied
</Directory>
Include "$conf"
EOF2
  } >"$file"
}

write_wrapper "$adir/httpd.conf"
apache2 -t -f "$adir/httpd.conf" >"$adir/configtest.out" 2>&1 ||
  fail "apache2 -t rejects the generated snippet: $(cat "$adir/configtest.out")"
pass "apache2 -t accepts $conf"

write_wrapper "$adir/no-headers.conf" headers
if apache2 -t -f "$adir/no-headers.conf" >"$adir/no-headers.out" 2>&1; then
  check_failed "apache2 -t accepts the snippet without mod_headers"
elif ! grep -q "needs mod_headers" "$adir/no-headers.out"; then
  check_failed "no clear message without mod_headers: $(cat "$adir/no-headers.out")"
fi

show_on_failure "$adir/error.log" 20
apache2 -f "$adir/httpd.conf" -k start || fail "Apache did not start: $(tail -n 5 "$adir/error.log")"
stop_apache() {
  local pid
  pid=$(cat "$adir/httpd.pid" 2>/dev/null) || return 0
  kill -TERM "$pid" 2>/dev/null || true
  wait_pid_exit 20 "$pid" || kill -KILL "$pid" 2>/dev/null || true
}
on_exit stop_apache
wait_for 20 "Apache on port $port" curl -s -o /dev/null "http://127.0.0.1:$port/"
apache_url=http://127.0.0.1:$port/cvmfs/$fqrn

out=$WORK/serve.out
show_on_failure "$out"
"$BIN/cvmfs_server" serve -p 0 "$fqrn" </dev/null >"$out" 2>&1 &
server_pid=$!
on_exit "kill -TERM $server_pid 2>/dev/null || true"
wait_for 10 "cvmfs_server serve" grep -q "^serving $fqrn at " "$out"
serve_url=$(sed -n "s|^serving $fqrn at ||p" "$out")

# summary URL [CURL_OPTIONS]: the response fields both servers must agree on.
summary() {
  local url=$1 h status name value date expires
  shift
  h=$(curl -s -D - -o /dev/null "$@" "$url" | tr -d '\r')
  status=$(head -n 1 <<<"$h" | cut -d' ' -f2)
  # Error pages differ (Apache's are HTML, Apache sends no Content-Range
  # with 416); directories are refused with 403 or 404 depending on the
  # modules loaded.
  if [ "$refused_as_one" = 1 ] && [[ "$status" == 40[34] ]]; then
    echo "status=refused"
    return 0
  fi
  echo "status=$status"
  case $status in 200 | 206) ;; *) return 0 ;; esac
  for name in cache-control content-type content-length content-range etag last-modified; do
    value=$(grep -i "^$name:" <<<"$h" | head -n 1 | cut -d' ' -f2- || true)
    echo "$name=$value"
  done
  date=$(grep -i '^date:' <<<"$h" | cut -d' ' -f2- || true)
  expires=$(grep -i '^expires:' <<<"$h" | cut -d' ' -f2- || true)
  if [ -n "$expires" ]; then
    # Rounded to 10 s: the two headers may straddle a second boundary.
    echo "lifetime~$(( ($(date -d "$expires" +%s) - $(date -d "$date" +%s) + 5) / 10 * 10 ))"
  fi
}

refused_as_one=0
root_hash=$(manifest_field "$fqrn" C)
catalog=data/${root_hash:0:2}/${root_hash:2}C
size=$(stat -c %s "$(repo_storage "$fqrn")/$catalog")
# The largest plain object (the 300 kB blob, compressed).
object=$(cd "$(repo_storage "$fqrn")" &&
  find data -type f ! -name '*C' ! -path '*/txn/*' -printf '%s %p\n' | sort -n | tail -n 1 | cut -d' ' -f2)
[ -n "$object" ] || fail "no data object in the repository"
compare() {
  local path=$1 a b
  shift
  a=$(summary "$apache_url/$path" "$@")
  b=$(summary "$serve_url/$path" "$@")
  [ "$a" = "$b" ] || check_failed "Apache and cvmfs_server serve differ for $path $*:
--- Apache
$a
--- cvmfs_server serve
$b"
}
compare .cvmfspublished
compare .cvmfswhitelist
compare "$catalog"
compare "$object"
compare "$object" -r 100-199
compare "$object" -r -50
compare "$catalog" -r "$size-"
compare data/00/does-not-exist
refused_as_one=1
compare data/
compare data/00
refused_as_one=0
note "Apache, data object range: $(summary "$apache_url/$object" -r 100-199 | tr '\n' ' ')"
grep -qx 'cache-control=max-age=61' <<<"$(summary "$apache_url/.cvmfspublished")" ||
  check_failed "Apache does not send max-age=61 for the manifest"

# --- a client through Apache ------------------------------------------------------
test_client_config "$WORK/client.conf" "$apache_url" "$(repo_public_key "$fqrn")"
mount_repo "$fqrn" "$WORK/mnt" "$WORK/client.conf"
diff -r "$src" "$WORK/mnt/sw" || check_failed "mount through Apache differs from the source"
unmount_repo "$WORK/mnt"

# --- the site proxy configuration ---------------------------------------------------
if command -v squid >/dev/null; then
  squid_conf=$CVMFS_ROOTDIR/etc/cvmfs/repositories.d/$fqrn/squid.conf
  squid -k parse -f "$squid_conf" >"$WORK/squid-parse.out" 2>&1 ||
    check_failed "squid -k parse rejects $squid_conf: $(tail -n 5 "$WORK/squid-parse.out")"
  "$BIN/cvmfs_server" squid-config -n 192.0.2.0/24 -s s1.example.org \
    --cache-dir "$WORK/squid-cache" -o "$WORK/squid-custom.conf"
  squid -k parse -f "$WORK/squid-custom.conf" >"$WORK/squid-parse2.out" 2>&1 ||
    check_failed "squid -k parse rejects the squid-config output: $(tail -n 5 "$WORK/squid-parse2.out")"
else
  note "squid not installed: squid.conf not parsed"
fi
finish
