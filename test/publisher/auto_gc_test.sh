#!/usr/bin/env bash
# CVMFS_AUTO_GC: a garbage-collectable repository (mkfs -z writes
# CVMFS_AUTO_GC=true, as CVMFS's mkfs does) collects by itself after a
# publish when its last collection is older than CVMFS_AUTO_GC_LAPSE:
#   1. the first publish after mkfs collects (no last_gc yet) and records
#      last_gc in .cvmfs_status.json;
#   2. an orphan object planted in the storage survives the next publish
#      (the lapse, default 1 day, has not passed);
#   3. with CVMFS_AUTO_GC_LAPSE="1 second ago" the next publish (ingest)
#      collects it; the published revision is intact (check -i);
#   4. with CVMFS_AUTO_GC=false nothing is collected;
#   5. a replica made with add-replica -z and CVMFS_AUTO_GC=true collects
#      after its snapshot.
# Needs neither root nor FUSE.
set -euo pipefail
bin=${CVMFS_BIN_DIR:?}
work=$(mktemp -d /tmp/cvmfs-auto-gc-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
export CVMFS_ROOTDIR=$work/root
export CVMFS_SERVER_NO_MOUNT=1
fail() { echo "FAIL: auto_gc_test: $*" >&2; exit 1; }
srv() { "$bin/cvmfs_server" "$@"; }
fqrn=autogc.test.org
storage=$CVMFS_ROOTDIR/srv/cvmfs/$fqrn
conf=$CVMFS_ROOTDIR/etc/cvmfs/repositories.d/$fqrn/server.conf
status=$storage/.cvmfs_status.json
publish() {
  mkdir -p "$work/src"
  echo "content $1" >"$work/src/file-$1.txt"
  tar -C "$work/src" -cf "$work/in.tar" .
  srv ingest -t "$work/in.tar" -b data $fqrn >"$work/publish-$1.out" 2>&1 ||
    fail "publish $1: $(cat "$work/publish-$1.out")"
}
# An object no revision references: a valid name, content of no catalog.
plant_orphan() {
  mkdir -p "$storage/data/ee"
  printf 'orphan %s' "$1" >"$storage/data/ee/$(printf '%038d' "$1")"
  echo "$storage/data/ee/$(printf '%038d' "$1")"
}

srv mkfs -z $fqrn >"$work/mkfs.out" 2>&1 || fail "mkfs -z: $(cat "$work/mkfs.out")"
grep -qx "CVMFS_AUTO_GC=true" "$conf" || fail "mkfs -z did not write CVMFS_AUTO_GC=true"

# 1. The first publish collects and records it.
publish 1
grep -q "Running automatic garbage collection" "$work/publish-1.out" ||
  fail "the first publish did not collect: $(cat "$work/publish-1.out")"
grep -q '"last_gc"' "$status" || fail "no last_gc in $status: $(cat "$status" 2>&1)"
first_gc=$(grep '"last_gc"' "$status")

# 2. Within the lapse: an orphan survives.
orphan=$(plant_orphan 1)
publish 2
grep -q "Running automatic garbage collection" "$work/publish-2.out" &&
  fail "collected again within CVMFS_AUTO_GC_LAPSE"
[ -f "$orphan" ] || fail "the orphan was deleted within the lapse"

# 3. Lapse passed: the orphan goes, the revision stays whole.
echo 'CVMFS_AUTO_GC_LAPSE="1 second ago"' >>"$conf"
sleep 2
publish 3
grep -q "Running automatic garbage collection" "$work/publish-3.out" ||
  fail "no collection after the lapse: $(cat "$work/publish-3.out")"
[ ! -e "$orphan" ] || fail "the orphan survived the automatic collection"
srv check -i $fqrn >"$work/check.out" 2>&1 || fail "check -i after auto gc: $(cat "$work/check.out")"

# 4. CVMFS_AUTO_GC=false: nothing collected.
sed -i 's/^CVMFS_AUTO_GC=true$/CVMFS_AUTO_GC=false/' "$conf"
orphan=$(plant_orphan 2)
sleep 2
publish 4
grep -q "Running automatic garbage collection" "$work/publish-4.out" &&
  fail "collected with CVMFS_AUTO_GC=false"
[ -f "$orphan" ] || fail "the orphan was deleted with CVMFS_AUTO_GC=false"
rm -f "$orphan"

# 5. A replica: add-replica -z, CVMFS_AUTO_GC=true, collected after snapshot.
s1=$work/s1root
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
srv serve -p "$port" $fqrn >"$work/serve.out" 2>&1 &
serve_pid=$!
trap 'kill $serve_pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do
  curl -sf "http://127.0.0.1:$port/cvmfs/$fqrn/.cvmfspublished" >/dev/null && break
  sleep 0.1
done
CVMFS_ROOTDIR=$s1 srv add-replica -o root -z "http://127.0.0.1:$port/cvmfs/$fqrn" \
  "$CVMFS_ROOTDIR/etc/cvmfs/keys/$fqrn.pub" >"$work/add-replica.out" 2>&1 ||
  fail "add-replica -z: $(cat "$work/add-replica.out")"
s1conf=$s1/etc/cvmfs/repositories.d/$fqrn/server.conf
grep -q "^CVMFS_AUTO_GC=" "$s1conf" || echo "CVMFS_AUTO_GC=true" >>"$s1conf"
CVMFS_ROOTDIR=$s1 srv snapshot $fqrn >"$work/snapshot.out" 2>&1 ||
  fail "snapshot: $(cat "$work/snapshot.out")"
grep -q "Running automatic garbage collection" "$work/snapshot.out" ||
  fail "the replica did not collect after its snapshot: $(cat "$work/snapshot.out")"
grep -q '"last_gc"' "$s1/srv/cvmfs/$fqrn/.cvmfs_status.json" || fail "no last_gc on the replica"
echo "PASS: auto_gc_test"
