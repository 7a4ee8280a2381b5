#!/usr/bin/env bash
# The gateway writing to S3 (SeaweedFS on 127.0.0.1): the gateway machine's
# repository is in a bucket (mkfs -s), a publisher machine in gateway mode
# (mkfs -u gw,...) publishes three changes through cvmfs_gateway, whose
# payloads and commits go to the bucket; every revision passes `check` on
# the bucket, our client reads the result from the bucket's HTTP endpoint,
# and the gateway's admin gc deletes from the bucket what no revision
# references (a dry run first).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/client.sh"
. "$here/../lib/s3.sh"

test_init s3_gateway 300
require_bins cvmfs_server cvmfs_gateway cvmfs2
require_weed
grep -qw overlay /proc/filesystems || skip "the kernel has no overlayfs"

fqrn=gw.s3.test.org
bucket=cvmfs
start_s3 "$bucket"
conf=$WORK/s3.conf
write_s3_config "$conf" "$bucket"
url=$S3_URL/$bucket/$fqrn
gw_root=$CVMFS_ROOTDIR
gw() { CVMFS_ROOTDIR=$gw_root "$BIN/cvmfs_server" "$@"; }
pub() { CVMFS_ROOTDIR=$WORK/pub "$BIN/cvmfs_server" "$@"; }
union=$WORK/pub/cvmfs/$fqrn

# --- the gateway machine: the repository in the bucket, and the gateway ----
CVMFS_SERVER_NO_MOUNT=1 gw mkfs -z -s "$conf" -w "$S3_URL/$bucket" $fqrn \
  >"$WORK/mkfs.log" 2>&1 || fail "mkfs -s: $(cat "$WORK/mkfs.log")"
keys=$gw_root/etc/cvmfs/keys
mkdir -p "$gw_root/etc/cvmfs/gateway"
cat >"$gw_root/etc/cvmfs/gateway/repo.json" <<JSON
{"version": 2,
 "repos": [{"domain": "$fqrn", "keys": [{"id": "pub", "path": "/"}]}],
 "keys": [{"type": "plain_text", "id": "pub", "secret": "secret-p"},
          {"type": "plain_text", "id": "adm", "secret": "secret-x", "admin": true}]}
JSON
gw_port=$(free_port)
api=http://127.0.0.1:$gw_port/api/v1
CVMFS_ROOTDIR=$gw_root "$BIN/cvmfs_gateway" --address 127.0.0.1 \
  --port "$gw_port" --max_lease_time 120 >"$WORK/gateway.log" 2>&1 &
gw_pid=$!
on_exit "kill $gw_pid 2>/dev/null || true"
show_on_failure "$WORK/gateway.log"
wait_for 10 "the gateway to listen" grep -q "listening on" "$WORK/gateway.log"

# --- the publisher machine: reads the bucket, writes through the gateway ---
mkdir -p "$WORK/keys"
cp "$keys/$fqrn.pub" "$keys/$fqrn.crt" "$WORK/keys/"
echo "plain_text pub secret-p" >"$WORK/keys/$fqrn.gw"
pub mkfs -u "gw,/unused,$api" -k "$WORK/keys" -w "$url" $fqrn \
  >"$WORK/pubmkfs.log" 2>&1 || fail "publisher mkfs: $(cat "$WORK/pubmkfs.log")"
on_exit "CVMFS_ROOTDIR=$WORK/pub \"$BIN/cvmfs_server\" rmfs -f $fqrn >/dev/null 2>&1 || true"

src=$WORK/src
mkdir -p "$src"
make_random_file "$WORK/big" $((20 * 1024 * 1024)) s3-gateway-big
for i in 1 2 3; do
  pub transaction "$fqrn/d$i" >/dev/null 2>&1 || fail "transaction $fqrn/d$i"
  mkdir -p "$union/d$i" "$src/d$i"
  for f in a b c; do echo "change $i $f" | tee "$union/d$i/$f" >"$src/d$i/$f"; done
  if [ $i = 2 ]; then
    # A chunked file (20 MiB) and a nested catalog through the gateway.
    cp "$WORK/big" "$union/d$i/big" && cp "$WORK/big" "$src/d$i/big"
    touch "$union/d$i/.cvmfscatalog" "$src/d$i/.cvmfscatalog"
  fi
  pub publish $fqrn >"$WORK/publish$i.log" 2>&1 ||
    fail "publish $i: $(cat "$WORK/publish$i.log")"
  rev=$(curl -sfS "$url/.cvmfspublished" | sed -n 's/^S//p' | head -1)
  expect_eq "revision in the bucket after publish $i" $((i + 1)) "$rev"
  gw check $fqrn >"$WORK/check$i.log" 2>&1 ||
    fail "check of the bucket after publish $i: $(cat "$WORK/check$i.log")"
done

# --- a client reads the bucket --------------------------------------------
test_client_config "$WORK/client.conf" "$url" "$keys/$fqrn.pub"
mount_repo $fqrn "$WORK/mnt" "$WORK/client.conf"
for i in 1 2 3; do
  diff -r "$src/d$i" "$WORK/mnt/d$i" || fail "d$i differs in the mounted bucket"
done
unmount_repo "$WORK/mnt"

# --- admin gc on the bucket -----------------------------------------------
# An object no revision references, put into the bucket beside the others.
orphan=data/00/$(printf '0%.0s' $(seq 38))
echo "referenced by nothing" >"$WORK/orphan"
s3_curl -f -T "$WORK/orphan" -o /dev/null "$url/$orphan" || fail "put the orphan"
admin_gc() {
  python3 - "$api" "$fqrn" "$1" <<'PY'
import base64, hashlib, hmac, json, sys, urllib.request
api, fqrn, dry = sys.argv[1:]
body = json.dumps({"repo": fqrn, "num_revisions": 1, "dry_run": dry == "dry",
                   "verbose": True}).encode()
mac = hmac.new(b"secret-x", body, hashlib.sha1).hexdigest()
req = urllib.request.Request(api + "/gc", data=body, method="POST")
req.add_header("Authorization", "adm " + base64.b64encode(mac.encode()).decode())
reply = json.loads(urllib.request.urlopen(req).read())
if reply.get("status") != "ok":
    sys.exit(f"gc: {reply}")
print(reply["output"], end="")
PY
}
admin_gc dry >"$WORK/gc-dry.out" || fail "dry-run gc: $(cat "$WORK/gc-dry.out")"
grep -q "^$orphan\$" "$WORK/gc-dry.out" || fail "the dry run does not name the orphan: $(cat "$WORK/gc-dry.out")"
curl -sfS -o /dev/null "$url/$orphan" || fail "the dry run deleted the orphan"
admin_gc real >"$WORK/gc.out" || fail "gc: $(cat "$WORK/gc.out")"
grep -q "^Deleted [1-9][0-9]* of" "$WORK/gc.out" || fail "gc deleted nothing: $(cat "$WORK/gc.out")"
code=$(curl -s -o /dev/null -w '%{http_code}' "$url/$orphan")
expect_eq "the orphan after gc (HTTP)" 404 "$code"
gw check -i $fqrn >"$WORK/check-gc.log" 2>&1 ||
  fail "check after gc: $(cat "$WORK/check-gc.log")"
finish
