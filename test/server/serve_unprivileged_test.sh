#!/usr/bin/env bash
# `cvmfs_server serve` as the packages' systemd unit runs it
# (packaging/systemd/cvmfs-server-serve.service): as the unprivileged user
# cvmfs (nobody where there is none), with no new privileges and only
# CAP_NET_BIND_SERVICE as an ambient capability, on a port below 1024.
#   - it binds the privileged port and serves the repository;
#   - its uid is the user's and its effective capabilities are exactly
#     CAP_NET_BIND_SERVICE (CapEff 0000000000000400);
#   - it still refuses, with 404, a file of the storage that only its own
#     user may read (0600, owned by that user: readable by the process, so
#     only the server's rule stops it) and temporaries that it could read.
# The same server without the capability cannot bind the port.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/publish.sh"

test_init serve_unprivileged 120
require_bins cvmfs_server
require_cmds setpriv
user=cvmfs
getent passwd "$user" >/dev/null || user=nobody
uid=$(id -u "$user")

fqrn=unprivileged.test.org
mkdir -p "$WORK/src"
echo "served without root" >"$WORK/src/hello.txt"
publish_tree "$fqrn" "$WORK/src" /
storage=$(repo_storage "$fqrn")
# The server's user must reach the storage and the configuration.
chmod -R a+rX "$CVMFS_ROOTDIR/srv" "$CVMFS_ROOTDIR/etc/cvmfs/repositories.d"
chmod a+x "$CVMFS_ROOTDIR" "$CVMFS_ROOTDIR/etc" "$CVMFS_ROOTDIR/etc/cvmfs"
echo private >"$storage/private"
chown "$user" "$storage/private"
chmod 0600 "$storage/private"
mkdir -p "$storage/data/txn"
echo partial >"$storage/data/txn/.tmp.77.0"
echo partial >"$storage/data/00/.tmp.77.1"
chmod 0644 "$storage/data/txn/.tmp.77.0" "$storage/data/00/.tmp.77.1"

# A free privileged port (the unit's is 80, which the node may use).
port=""
for p in $(seq 990 -1 900); do
  python3 -c 'import socket, sys
socket.socket().bind(("127.0.0.1", int(sys.argv[1])))' "$p" 2>/dev/null && { port=$p; break; }
done
[ -n "$port" ] || skip "no free port in 900..990"

as_user=(setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups --no-new-privs)

# Without the capability the port is refused.
out=$("${as_user[@]}" "$BIN/cvmfs_server" serve -p "$port" "$fqrn" </dev/null 2>&1 & pid=$!
  sleep 2; kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null) || true
[[ $out != *"serving $fqrn"* ]] ||
  check_failed "an unprivileged server without CAP_NET_BIND_SERVICE bound port $port"

log=$WORK/serve.log
show_on_failure "$log"
"${as_user[@]}" --inh-caps=+net_bind_service --ambient-caps=+net_bind_service \
  "$BIN/cvmfs_server" serve -p "$port" "$fqrn" </dev/null >"$log" 2>&1 &
pid=$!
on_exit "kill -TERM $pid 2>/dev/null || true"
wait_for 10 "the unprivileged server to print its URL" grep -q "^serving $fqrn at " "$log"
url=$(sed -n "s|^serving $fqrn at ||p" "$log")
expect_eq "port" "http://127.0.0.1:$port/cvmfs/$fqrn" "$url"
expect_eq "uid of the server" "$uid $uid $uid $uid" \
  "$(awk '/^Uid:/ {print $2, $3, $4, $5}' "/proc/$pid/status")"
expect_eq "effective capabilities" 0000000000000400 \
  "$(awk '/^CapEff:/ {print $2}' "/proc/$pid/status")"
expect_eq "no new privileges" 1 "$(awk '/^NoNewPrivs:/ {print $2}' "/proc/$pid/status")"

code() { curl -s -o /dev/null -w '%{http_code}' "$url/$1"; }
expect_eq ".cvmfspublished" 200 "$(code .cvmfspublished)"
curl -sf "$url/.cvmfspublished" | cmp -s - "$storage/.cvmfspublished" ||
  check_failed "the manifest served differs from the stored one"
"${as_user[@]}" cat "$storage/private" >/dev/null ||
  fail "the private file is not readable by $user: the next check would prove nothing"
for name in private data/txn/.tmp.77.0 data/00/.tmp.77.1; do
  expect_eq "$name" 404 "$(code "$name")"
done

kill -TERM "$pid"
wait_pid_exit 10 "$pid" || fail "the server did not stop on SIGTERM"
finish
