#!/usr/bin/env bash
# cvmfs_gateway end to end on 127.0.0.1, driven by a small client (Python,
# below) that speaks the API v1 as CVMFS's publisher does: HMAC-signed
# leases, an object pack with the change and the commit. The change is built
# by our publisher on a copy of the repository (the "publisher machine"), so
# the gateway must replay it onto its own revision. Checks: version, a
# conflicting lease refused with the holder named, a forged HMAC refused,
# the commit's new revision with exactly the change (cvmfs_server diff), a
# clean `check`, an expired lease freeing its path, an admin gc (dry run,
# then for real) removing an object no revision references. Needs neither
# root nor FUSE. Leases saved in work_dir survive a restart of the gateway.
set -euo pipefail
bin=${CVMFS_BIN_DIR:?}
work=$(mktemp -d /tmp/cvmfs-gateway-test.XXXXXX)
gw_pid=
cleanup() {
  [ -n "$gw_pid" ] && kill "$gw_pid" 2>/dev/null && wait "$gw_pid" 2>/dev/null
  [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
export CVMFS_SERVER_NO_MOUNT=1
fail() { echo "FAIL: gateway_test: $*" >&2; exit 1; }
fqrn=gw.test.org
gw_root=$work/gw
pub_root=$work/pub

CVMFS_ROOTDIR=$gw_root "$bin/cvmfs_server" mkfs -z $fqrn >/dev/null 2>&1 ||
  fail "mkfs"
# The publisher machine: its own copy of the repository (another mkfs: the
# change is replayed from its old root to its new one, whatever they are).
CVMFS_ROOTDIR=$pub_root "$bin/cvmfs_server" mkfs $fqrn >/dev/null 2>&1 ||
  fail "mkfs on the publisher"
mkdir -p "$work/change/a/sub"
echo hello > "$work/change/a/hello.txt"
echo deep > "$work/change/a/sub/deep.txt"
tar -C "$work/change" --owner=0 --group=0 -cf "$work/change.tar" .

root_of() { grep -a '^C' "$1/srv/cvmfs/$fqrn/.cvmfspublished" | head -1 | cut -c2-; }
old_root=$(root_of "$pub_root")
CVMFS_ROOTDIR=$pub_root "$bin/cvmfs_server" ingest -t "$work/change.tar" \
  -b / $fqrn >/dev/null || fail "ingest on the publisher copy"
new_root=$(root_of "$pub_root")
[ "$old_root" != "$new_root" ] || fail "the publisher copy did not change"

mkdir -p "$gw_root/etc/cvmfs/gateway"
echo "plain_text key1 secret1" > "$gw_root/etc/cvmfs/keys/$fqrn.gw"
cat > "$gw_root/etc/cvmfs/gateway/repo.json" <<JSON
{"version": 2, "repos": ["$fqrn",
  {"domain": "other.test.org", "keys": [{"id": "key2", "path": "/x"}]}],
 "keys": [{"type": "plain_text", "id": "key2", "secret": "secret2"},
          {"type": "plain_text", "id": "adm", "secret": "secret3", "admin": true}]}
JSON
echo '{"max_lease_time": 3}' > "$gw_root/etc/cvmfs/gateway/user.json"
# "other.test.org" has no server.conf: leases work, payloads would not.

start_gateway() {
  CVMFS_ROOTDIR=$gw_root "$bin/cvmfs_gateway" --address 127.0.0.1 --port 0 \
    >"$work/gw.log" 2>&1 &
  gw_pid=$!
  port=
  for _ in $(seq 100); do
    port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/gw.log")
    [ -n "$port" ] && break
    kill -0 $gw_pid 2>/dev/null || fail "gateway died: $(cat "$work/gw.log")"
    sleep 0.05
  done
  [ -n "$port" ] || fail "gateway did not start"
}
start_gateway

python3 - "$port" "$fqrn" "$old_root" "$new_root" \
  "$gw_root/srv/cvmfs/$fqrn" "$pub_root/srv/cvmfs/$fqrn" <<'PY' || fail "client"
import base64, hashlib, hmac, json, os, re, sys, time, urllib.request
port, fqrn, old_root, new_root, gw_store, pub_store = sys.argv[1:]
api = f"http://127.0.0.1:{port}/api/v1"
def call(method, path, body=b"", key=("key1", "secret1"), hmac_input=None,
         headers=None):
    req = urllib.request.Request(api + path, data=body or None, method=method)
    if key:
        mac = hmac.new(key[1].encode(), body if hmac_input is None
                       else hmac_input, hashlib.sha1).hexdigest()
        req.add_header("Authorization",
                       key[0] + " " + base64.b64encode(mac.encode()).decode())
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    with urllib.request.urlopen(req) as r:
        return json.loads(r.read())
def expect(cond, what):
    if not cond:
        sys.exit("client: " + what)
def lease(path, key=("key1", "secret1")):
    return call("POST", "/leases", json.dumps(
        {"path": path, "api_version": "3"}).encode(), key)

expect(call("GET", "", key=None)["api_version"] == "3", "version")
forged = lease(fqrn + "/a", ("key1", "wrong"))
expect(forged["reason"] == "invalid_hmac", f"forged HMAC: {forged}")
first = lease(fqrn + "/a")
expect(first["status"] == "ok", f"lease: {first}")
token = first["session_token"]
busy = lease(fqrn + "/")
expect(busy["status"] == "path_busy" and busy["holder"] == "key1",
       f"conflict: {busy}")

# The object pack: every object the publisher copy has and the gateway not.
entries, payload = [], b""
for d, _, files in os.walk(os.path.join(pub_store, "data")):
    for f in sorted(files):
        rel = os.path.relpath(os.path.join(d, f), pub_store)
        if rel.startswith("data/txn") or os.path.exists(
                os.path.join(gw_store, rel)):
            continue
        data = open(os.path.join(d, f), "rb").read()
        entries.append(f"C {rel[5:7]}{rel[8:]} {len(data)}\n")
        payload += data
header = (f"V2\nS{len(payload)}\nN{len(entries)}\n--\n" +
          "".join(entries)).encode()
msg = json.dumps({"payload_digest": hashlib.sha1(header).hexdigest(),
                  "header_size": str(len(header)),
                  "api_version": "3"}).encode()
sent = call("POST", "/payloads/" + token, msg + header + payload,
            hmac_input=token.encode(),
            headers={"message-size": str(len(msg))})
expect(sent["status"] == "ok", f"payload: {sent}")
done = call("POST", "/leases/" + token, json.dumps(
    {"old_root_hash": old_root, "new_root_hash": new_root,
     "tag_name": "via-gateway"}).encode(), hmac_input=token.encode())
expect(done["status"] == "ok", f"commit: {done}")
expect(done["final_revision"] == 2, f"revision: {done}")

# Expiry: a lease nobody commits frees its path after max_lease_time.
held = lease(fqrn + "/b")
expect(held["status"] == "ok", f"lease b: {held}")
expect(lease(fqrn + "/b/c")["status"] == "path_busy", "b held")
deadline = time.time() + 10
while lease(fqrn + "/b/c")["status"] == "path_busy":
    expect(time.time() < deadline, "the lease did not expire")
    time.sleep(0.2)
late = call("POST", "/leases/" + held["session_token"], json.dumps(
    {"old_root_hash": old_root, "new_root_hash": new_root}).encode(),
    hmac_input=held["session_token"].encode())
expect(late["status"] == "error", f"commit of an expired lease: {late}")
# A key is confined to its path.
expect(lease("other.test.org/y", ("key2", "secret2"))["reason"] ==
       "invalid_path", "key2 outside /x")

# Admin gc: an object no revision references is named by a dry run, then
# deleted; what the revisions reference stays (check below).
orphan_name = "data/00/" + "0" * 38
orphan = os.path.join(gw_store, orphan_name)
with open(orphan, "wb") as f:
    f.write(b"referenced by nothing")
def gc(key=("adm", "secret3"), **fields):
    return call("POST", "/gc", json.dumps({"repo": fqrn, **fields}).encode(),
                key)
expect(gc(("key1", "secret1"))["reason"] == "no_admin_key", "gc as key1")
# Not while a lease is live (the loop above ended holding b/c): its uploads
# belong to no revision yet.
busy = gc(num_revisions=1)
expect(busy["status"] == "path_busy" and busy["lease_path"] == fqrn + "/b/c",
       f"gc beside a lease: {busy}")
by_path = "/api/v1/leases-by-path/" + fqrn + "/b/c"
expect(call("DELETE", by_path[len("/api/v1"):], key=("adm", "secret3"),
            hmac_input=by_path.encode())["status"] == "ok", "drop b/c")
# (The publisher copy's own catalogs, history and certificate, uploaded in
# the payload, are garbage too: the commit was replayed onto the gateway's
# revision with catalogs of its own.)
dry = gc(num_revisions=1, dry_run=True, verbose=True)
would = re.search(r"Would delete (\d+) of", dry.get("output", ""))
expect(dry["status"] == "ok" and orphan_name in dry["output"] and would,
       f"dry-run gc: {dry}")
expect(os.path.exists(orphan), "a dry run deleted the object")
real = gc(num_revisions=1)
deleted = re.search(r"Deleted (\d+) of", real.get("output", ""))
expect(real["status"] == "ok" and deleted and
       deleted.group(1) == would.group(1), f"gc: {real} after {dry}")
expect(not os.path.exists(orphan), "gc left the object")
# Held across the gateway's restart below.
expect(lease(fqrn + "/kept")["status"] == "ok", "lease on /kept")
PY

# Notifications: a subscriber (CVMFS's form: a GET with a JSON body) gets
# the message published after it subscribed, as a server-sent event.
api=http://127.0.0.1:$port/api/v1
curl -sN -X GET -d "{\"version\":1,\"repository\":\"$fqrn\"}" \
  "$api/notifications/subscribe" >"$work/events" 2>/dev/null &
sub_pid=$!
msg="{\"version\":1,\"type\":\"activity\",\"repository\":\"$fqrn\",\"manifest\":\"M$RANDOM\"}"
for _ in $(seq 100); do
  curl -s -X POST -d "$msg" "$api/notifications/publish" | grep -q '"ok"' ||
    fail "publish notification"
  grep -qF "data: $msg" "$work/events" && break
  sleep 0.1
done
grep -qF "data: $msg" "$work/events" || fail "no event: $(cat "$work/events")"
# Stopping the gateway ends open streams (it must not hang on them).
kill "$gw_pid"
timeout 10 tail --pid="$gw_pid" -f /dev/null || fail "gateway did not stop"
wait "$gw_pid" 2>/dev/null || true
gw_pid=
wait "$sub_pid" 2>/dev/null || true

# Leases outlive the gateway: the file it keeps in work_dir (0600: tokens
# are secrets) holds the lease on /kept, and a restarted gateway refuses
# a lease on /kept/x, naming /kept. (Its expiry is moved an hour on
# first, so that the 3-s max_lease_time does not race a slow restart.)
leases=$gw_root/var/lib/cvmfs-gateway/leases.json
grep -q "\"$fqrn/kept\"" "$leases" || fail "no /kept in $leases: $(cat "$leases")"
[ "$(stat -c %a "$leases")" = 600 ] || fail "$leases is not 0600"
python3 - "$leases" <<'PY' || fail "could not move the expiry on"
import json, sys
doc = json.load(open(sys.argv[1]))
for lease in doc["leases"]:
    lease["expires"] += 3600
json.dump(doc, open(sys.argv[1], "w"))
PY
start_gateway
python3 - "$port" "$fqrn" <<'PY' || fail "lease after the restart"
import base64, hashlib, hmac, json, sys, urllib.request
port, fqrn = sys.argv[1:]
body = json.dumps({"path": fqrn + "/kept/x", "api_version": "3"}).encode()
mac = hmac.new(b"secret1", body, hashlib.sha1).hexdigest()
req = urllib.request.Request(f"http://127.0.0.1:{port}/api/v1/leases",
                             data=body, method="POST")
req.add_header("Authorization", "key1 " + base64.b64encode(mac.encode()).decode())
reply = json.loads(urllib.request.urlopen(req).read())
if reply.get("status") != "path_busy" or reply.get("lease_path") != fqrn + "/kept":
    sys.exit(f"after the restart: {reply}")
PY
kill "$gw_pid"
wait "$gw_pid" 2>/dev/null || true
gw_pid=

export CVMFS_ROOTDIR=$gw_root
changes=$("$bin/cvmfs_server" diff -m $fqrn 2>&1 | cut -f1,3) ||
  fail "diff: $changes"
for line in "A	/a/hello.txt" "A	/a/sub/deep.txt"; do
  echo "$changes" | grep -qF "$line" || fail "missing '$line' in: $changes"
done
"$bin/cvmfs_server" tag -l $fqrn | grep -q via-gateway || fail "tag"
"$bin/cvmfs_server" check $fqrn >/dev/null 2>&1 || fail "check after commit"
echo "gateway_test: ok"
