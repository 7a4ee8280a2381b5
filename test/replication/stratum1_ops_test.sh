#!/usr/bin/env bash
# Stratum 1 operations with CVMFS 2.12's semantics (doc/stratum1.md):
#   1. .cvmfs_status.json after snapshot, gc and check -a: valid JSON with
#      last_snapshot, last_gc, last_check in `date --utc` format;
#   2. check of a replica with only the master public key, failing on a
#      missing object (plain check) and on a corrupted one (check -i);
#   3. gc of a replica (add-replica -z) deletes exactly the objects that
#      the replicated revisions and tags do not reference; gc -a;
#   4. snapshot -t fails at once on a held lock, snapshot without -t waits
#      for it; snapshot -a's options;
#   5. check's options on a Stratum 0: -c, -s, -t, -r (the reflog rebuilt
#      when missing; refused on a replica);
#   6. update-info: info/v1/repositories.json and meta.json (edited with
#      $EDITOR, installed only when valid); update-repoinfo: the
#      repository's meta information from -f FILE or $EDITOR, the manifest
#      re-signed (same revision, new M, check passes), invalid JSON refused.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/publish.sh"

test_init stratum1_ops 400
require_bins cvmfs_server
require_cmds flock python3

fqrn=s1ops.test.org
src=$WORK/src
s1root=$WORK/s1root
s1storage=$s1root/srv/cvmfs/$fqrn
s0storage=$(repo_storage $fqrn)
s1() { CVMFS_ROOTDIR=$s1root "$BIN/cvmfs_server" "$@"; }
srv() { "$BIN/cvmfs_server" "$@"; }
objects_of() { (cd "$1" && find data -type f ! -path 'data/txn/*' | LC_ALL=C sort); }

# The objects the current revision and every tag of a storage reference,
# plus the manifest's certificate, history and metainfo (sha1 storages);
# written independently of the code under test.
referenced() {
  python3 - "$1" <<'EOF'
import os, sqlite3, sys, tempfile, zlib
storage = sys.argv[1]
def name(hexhash, suffix=""):
    return "data/%s/%s%s" % (hexhash[:2], hexhash[2:], suffix)
def load(hexhash, suffix):
    raw = zlib.decompress(open(os.path.join(storage, name(hexhash, suffix)), "rb").read())
    f = tempfile.NamedTemporaryFile(delete=False)
    f.write(raw)
    f.close()
    return sqlite3.connect(f.name)
manifest = {}
for line in open(os.path.join(storage, ".cvmfspublished"), "rb").read().split(b"\n--\n")[0].split(b"\n"):
    if line:
        manifest.setdefault(chr(line[0]), line[1:].decode())
out = {name(manifest[k], k) for k in "XHM" if k in manifest}
roots = {manifest["C"]} | {r[0] for r in load(manifest["H"], "H").execute("SELECT hash FROM tags")}
todo = list(roots)
while todo:
    h = todo.pop()
    if name(h, "C") in out:
        continue
    out.add(name(h, "C"))
    db = load(h, "C")
    for (blob,) in db.execute("SELECT hash FROM catalog WHERE hash IS NOT NULL AND length(hash) > 0"):
        out.add(name(blob.hex()))
    for (blob,) in db.execute("SELECT hash FROM chunks"):
        out.add(name(blob.hex(), "P"))
    todo.extend(r[0] for r in db.execute("SELECT sha1 FROM nested_catalogs"))
    # Bundles of small files (doc/format-bundles.md), where the catalog has them.
    if db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'bundles'").fetchone()[0]:
        out.update(name(h, "B") for (h,) in db.execute("SELECT hash FROM bundles"))
print("\n".join(sorted(out)))
EOF
}

# status_json FILE KEY...: the file is valid JSON, and each KEY is there in
# `date --utc` format.
status_json() {
  local file=$1
  shift
  python3 - "$file" "$@" <<'EOF' || check_failed "$file: $(cat "$file" 2>&1)"
import json, re, sys
data = json.load(open(sys.argv[1]))
for key in sys.argv[2:]:
    value = data.get(key, "")
    if not re.fullmatch(r"[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d UTC \d{4}", value):
        sys.exit("%s: %r is not in `date --utc` format" % (key, value))
EOF
}

# --- a Stratum 0 (no automatic tags: old revisions become garbage) ----------
mkdir -p "$src/a" "$src/n"
for i in 1 2 3; do echo "file $i, revision A" >"$src/a/f$i"; done
echo "nested" >"$src/n/x"
: >"$src/n/.cvmfscatalog"
CVMFS_SERVER_NO_MOUNT=1 srv mkfs -z $fqrn >"$WORK/mkfs.out" 2>&1 || fail "mkfs: $(cat "$WORK/mkfs.out")"
sed -i 's/^CVMFS_AUTO_TAG=.*/CVMFS_AUTO_TAG=false/' "$CVMFS_ROOTDIR/etc/cvmfs/repositories.d/$fqrn/server.conf"
publish_tree $fqrn "$src" data
apache_start "$CVMFS_ROOTDIR/srv"
on_exit apache_stop
s0_url=$APACHE_URL/cvmfs/$fqrn

# --- the Stratum 1 -------------------------------------------------------------
s1 add-replica -z -o root "$s0_url" "$(repo_public_key $fqrn)" >"$WORK/add.out" 2>&1 ||
  fail "add-replica -z: $(cat "$WORK/add.out")"
grep -q "CVMFS_GARBAGE_COLLECTION='\?true" "$s1root/etc/cvmfs/repositories.d/$fqrn/server.conf" ||
  check_failed "add-replica -z did not enable garbage collection"
s1 snapshot $fqrn >"$WORK/snap.out" 2>&1 || fail "snapshot: $(cat "$WORK/snap.out")"
status_json "$s1storage/.cvmfs_status.json" last_snapshot

# --- 2. check of a replica with the public key only -----------------------------
ls "$s1root/etc/cvmfs/keys" | grep -qv '\.pub$' && fail "the replica has more than public keys"
s1 check $fqrn >"$WORK/check.out" 2>&1 || check_failed "check of the replica: $(cat "$WORK/check.out")"
s1 check -i $fqrn >"$WORK/check.out" 2>&1 || check_failed "check -i of the replica: $(cat "$WORK/check.out")"

# --- 3. gc of the replica ---------------------------------------------------------
# Two more revisions: A's versions of f1..f3 and its root catalog are then
# referenced by no kept revision (trunk and trunk-previous are B and C).
for r in B C; do
  for i in 1 2 3; do echo "file $i, revision $r" >"$src/a/f$i"; done
  publish_tree $fqrn "$src" data
  s1 snapshot $fqrn >"$WORK/snap.out" 2>&1 || fail "snapshot of $r: $(cat "$WORK/snap.out")"
done
stray=data/5e/$(printf 'stray' | sha1sum | cut -c3-40)
printf 'stray' >"$s1storage/$stray"
objects_of "$s1storage" >"$WORK/before"
referenced "$s1storage" >"$WORK/referenced"
comm -23 "$WORK/before" "$WORK/referenced" >"$WORK/expected-deleted"
note "the replica holds $(wc -l <"$WORK/expected-deleted") unreferenced objects: $(tr "\n" " " <"$WORK/expected-deleted")"
[ "$(grep -c '[0-9a-f]$' "$WORK/expected-deleted")" -ge 4 ] ||
  fail "the set-up left too little garbage: $(cat "$WORK/expected-deleted")"
s1 gc -d -r 0 -l $fqrn >"$WORK/gc-dry.out" 2>&1 || fail "gc -d of the replica: $(cat "$WORK/gc-dry.out")"
expect_eq "gc -d deletes nothing" "$(cat "$WORK/before")" "$(objects_of "$s1storage")"
[ ! -e "$s1storage/.cvmfs_status.json" ] || ! grep -q last_gc "$s1storage/.cvmfs_status.json" ||
  check_failed "gc -d recorded last_gc"
s1 gc -f -r 0 -L "$WORK/deleted.log" $fqrn >"$WORK/gc.out" 2>&1 || fail "gc of the replica: $(cat "$WORK/gc.out")"
expect_eq "objects the replica's gc deleted" "$(cat "$WORK/expected-deleted")" \
  "$(LC_ALL=C sort "$WORK/deleted.log")"
expect_eq "objects left on the replica" "$(comm -12 "$WORK/before" "$WORK/referenced")" \
  "$(objects_of "$s1storage")"
s1 check $fqrn >"$WORK/check.out" 2>&1 || check_failed "check after gc: $(cat "$WORK/check.out")"
status_json "$s1storage/.cvmfs_status.json" last_snapshot last_gc
# The Stratum 0 was not touched.
[ -e "$s0storage/${stray#data/}" ] && check_failed "stray object on the Stratum 0?"
# gc -a: every collectable repository here (the replica).
s1 gc -a -f -r 0 >"$WORK/gc-a.out" 2>&1 || check_failed "gc -a: $(cat "$WORK/gc-a.out")"
grep -q "Starting $fqrn" "$WORK/gc-a.out" || check_failed "gc -a did not collect $fqrn: $(cat "$WORK/gc-a.out")"
# A replica without -z is refused by gc.
sed -i '/^CVMFS_GARBAGE_COLLECTION=/d' "$s1root/etc/cvmfs/repositories.d/$fqrn/server.conf"
if out=$(s1 gc -f -r 0 $fqrn 2>&1); then check_failed "gc of a replica without -z succeeded"; fi
[[ "$out" == *"not enabled"* ]] || check_failed "unclear refusal: $out"
echo "CVMFS_GARBAGE_COLLECTION=true" >>"$s1root/etc/cvmfs/repositories.d/$fqrn/server.conf"

# --- 1. check -a records last_check ---------------------------------------------------
s1 check -a >"$WORK/check-a.out" 2>&1 || check_failed "check -a: $(cat "$WORK/check-a.out")"
status_json "$s1storage/.cvmfs_status.json" last_snapshot last_gc last_check
expect_eq "check_status" succeeded \
  "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["check_status"])' "$s1storage/.cvmfs_status.json")"
# Checked now: a second check -a skips it (CVMFS_CHECK_ALL_MIN_DAYS).
s1 check -a >"$WORK/check-a2.out" 2>&1
! grep -q "Starting $fqrn" "$WORK/check-a2.out" || check_failed "check -a checked a freshly checked replica"

# --- 2. (cont.) damaged replicas fail the check -----------------------------------------
# A data object (a corrupted or missing bundle: test/interop/bundles_test.sh).
victim=$(comm -12 "$WORK/before" "$WORK/referenced" | grep -v '[CHXMB]$' | head -n 1)
cp "$s1storage/$victim" "$WORK/victim"
printf 'X' | dd of="$s1storage/$victim" bs=1 seek=3 conv=notrunc 2>/dev/null
if s1 check -i $fqrn >"$WORK/check.out" 2>&1; then check_failed "check -i missed a corrupted object"; fi
grep -q "hash mismatch $victim" "$WORK/check.out" || check_failed "check -i did not name $victim: $(cat "$WORK/check.out")"
rm "$s1storage/$victim"
if s1 check $fqrn >"$WORK/check.out" 2>&1; then check_failed "check missed a missing object"; fi
grep -q "missing $victim" "$WORK/check.out" || check_failed "check did not name $victim: $(cat "$WORK/check.out")"
s1 check -c $fqrn >"$WORK/check.out" 2>&1 || check_failed "check -c looked for data objects: $(cat "$WORK/check.out")"
cp "$WORK/victim" "$s1storage/$victim"
# A replica whose manifest was tampered with fails, with the public key.
cp "$s1storage/.cvmfspublished" "$WORK/manifest"
sed -i '0,/^S/s/^S/S1/' "$s1storage/.cvmfspublished"
if s1 check $fqrn >"$WORK/check.out" 2>&1; then check_failed "check accepted a tampered manifest"; fi
cp "$WORK/manifest" "$s1storage/.cvmfspublished"

# --- 4. the snapshot lock ---------------------------------------------------------------
lock=$s1root/var/spool/cvmfs/$fqrn/is_snapshotting.lock
rc=0
out=$(CVMFS_ROOTDIR=$s1root flock -x "$lock" "$BIN/cvmfs_server" snapshot -t $fqrn 2>&1) || rc=$?
[ "$rc" -ne 0 ] || check_failed "snapshot -t ran while another held the lock"
[[ "$out" == *"another snapshot of $fqrn is running"* ]] || check_failed "unclear refusal: $out"
flock -x "$lock" sleep 3 &
holder=$!
sleep 0.5
start=$(date +%s.%N)
s1 snapshot $fqrn >"$WORK/wait.out" 2>&1 || check_failed "a waiting snapshot failed: $(cat "$WORK/wait.out")"
waited=$(python3 -c "import sys; print(int(float(sys.argv[1]) - float(sys.argv[2]) >= 2))" "$(date +%s.%N)" "$start")
wait $holder
expect_eq "snapshot waited for the held lock" 1 "$waited"
grep -q "waiting for another update to finish" "$WORK/wait.out" || check_failed "no waiting message: $(cat "$WORK/wait.out")"
# snapshot -a's options.
if out=$(s1 snapshot -i $fqrn 2>&1); then check_failed "snapshot -i without -a accepted"; fi
if out=$(s1 snapshot -a -s 2>&1); then check_failed "snapshot -a -s accepted"; fi
[[ "$out" == *"-s"* ]] || check_failed "snapshot -a -s refused without naming -s: $out"
s1 snapshot -a -n -i >"$WORK/snap-a.out" 2>&1 || check_failed "snapshot -a -n -i: $(cat "$WORK/snap-a.out")"
grep -q "$fqrn: revision" "$WORK/snap-a.out" || check_failed "snapshot -a -i skipped $fqrn: $(cat "$WORK/snap-a.out")"
s1 snapshot -a -g nosuchgroup >"$WORK/snap-g.out" 2>&1 || check_failed "snapshot -a -g failed"
! grep -q "$fqrn: revision" "$WORK/snap-g.out" || check_failed "snapshot -a -g took a replica of another group"

# --- 5. check's options on the Stratum 0 -------------------------------------------
srv check -t trunk-previous $fqrn >"$WORK/c.out" 2>&1 || check_failed "check -t: $(cat "$WORK/c.out")"
srv check -s /data/n $fqrn >"$WORK/c.out" 2>&1 || check_failed "check -s /data/n: $(cat "$WORK/c.out")"
grep -q "^catalogs: 1 catalogs" "$WORK/c.out" || check_failed "check -s walked more than the subtree: $(cat "$WORK/c.out")"
if srv check -s /data/a $fqrn >/dev/null 2>&1; then check_failed "check -s at a path without nested catalog passed"; fi
out=$(srv check -r $fqrn 2>&1) || check_failed "check -r of an intact repository: $out"
[[ "$out" == *"reflog of $fqrn is intact"* ]] || check_failed "check -r on an intact reflog: $out"
rm "$CVMFS_ROOTDIR/srv/cvmfs/$fqrn/.cvmfsreflog"
out=$(srv check -r $fqrn 2>&1) || check_failed "check -r of a repository without reflog: $out"
[[ "$out" == *"Reconstructed the reflog"* ]] || check_failed "check -r did not rebuild the reflog: $out"
[ -f "$CVMFS_ROOTDIR/srv/cvmfs/$fqrn/.cvmfsreflog" ] || check_failed "no reflog after check -r"
if out=$(s1 check -r $fqrn 2>&1); then check_failed "check -r of a replica accepted"; fi
[[ "$out" == *"check -r"* ]] || check_failed "check -r of a replica refused without naming it: $out"

# --- 6. update-info ----------------------------------------------------------------
s1 update-info -p -e >"$WORK/ui.out" 2>&1 || check_failed "update-info -p -e: $(cat "$WORK/ui.out")"
python3 - "$s1root/srv/cvmfs/info/v1/repositories.json" "$fqrn" <<'EOF' || check_failed "replica's repositories.json: $(cat "$s1root/srv/cvmfs/info/v1/repositories.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == 1, d
assert d["repositories"] == [], d
assert d["replicas"] == [{"name": sys.argv[2], "url": "/cvmfs/" + sys.argv[2]}], d
EOF
python3 -m json.tool "$s1root/srv/cvmfs/info/v1/meta.json" >/dev/null || check_failed "meta.json skeleton is not JSON"
[ ! -e "$s1root/etc/cvmfs/info.apache.conf" ] || check_failed "update-info -p wrote an Apache configuration"
printf '#!/bin/sh\nprintf %s >"$1"\n' "'{\"administrator\": \"Test Admin\", \"custom\": {}}'" >"$WORK/editor-good"
printf '#!/bin/sh\nprintf %s >"$1"\n' "'{\"administrator\": '" >"$WORK/editor-bad"
chmod +x "$WORK/editor-good" "$WORK/editor-bad"
EDITOR=$WORK/editor-good srv update-info >"$WORK/ui.out" 2>&1 || check_failed "update-info: $(cat "$WORK/ui.out")"
info=$CVMFS_ROOTDIR/srv/cvmfs/info/v1
expect_eq "meta.json administrator" "Test Admin" \
  "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["administrator"])' "$info/meta.json")"
grep -q '"name"  : "'$fqrn'"' "$info/repositories.json" || check_failed "the Stratum 0 is not listed: $(cat "$info/repositories.json")"
grep -q 'Alias /cvmfs/info' "$CVMFS_ROOTDIR/etc/cvmfs/info.apache.conf" || check_failed "no Apache configuration for /cvmfs/info"
cp "$info/meta.json" "$WORK/meta.before"
if EDITOR=$WORK/editor-bad srv update-info >"$WORK/ui.out" 2>&1; then check_failed "update-info installed invalid JSON"; fi
cmp -s "$WORK/meta.before" "$info/meta.json" || check_failed "an invalid edit changed meta.json"

storage0=$CVMFS_ROOTDIR/srv/cvmfs/$fqrn
mfield() { sed -n "/^--\$/q;s/^$1//p" "$storage0/.cvmfspublished" | head -n 1; }
stored_meta() {
  local m
  m=$(mfield M)
  python3 -c 'import sys, zlib; sys.stdout.write(zlib.decompress(open(sys.argv[1], "rb").read()).decode())' \
    "$storage0/data/${m:0:2}/${m:2}M"
}
rev_before=$(mfield S)
m_before=$(mfield M)
printf '{"administrator": "Repo Admin", "custom": {"site": "T2"}}\n' >"$WORK/repoinfo.json"
srv update-repoinfo -f "$WORK/repoinfo.json" $fqrn >"$WORK/uri.out" 2>&1 ||
  check_failed "update-repoinfo -f: $(cat "$WORK/uri.out")"
[ "$(mfield M)" != "$m_before" ] || check_failed "update-repoinfo did not change the manifest's M"
expect_eq "revision after update-repoinfo" "$rev_before" "$(mfield S)"
expect_eq "stored meta information" "$(cat "$WORK/repoinfo.json")" "$(stored_meta)"
srv check $fqrn >"$WORK/c.out" 2>&1 || check_failed "check after update-repoinfo: $(cat "$WORK/c.out")"
m_before=$(mfield M)
printf '{"administrator": ' >"$WORK/bad.json"
if out=$(srv update-repoinfo -f "$WORK/bad.json" $fqrn 2>&1); then check_failed "update-repoinfo took invalid JSON"; fi
[[ "$out" == *"not valid JSON"* ]] || check_failed "invalid JSON refused unclearly: $out"
expect_eq "M after a refused update" "$m_before" "$(mfield M)"
EDITOR=$WORK/editor-good srv update-repoinfo $fqrn >"$WORK/uri.out" 2>&1 ||
  check_failed "update-repoinfo with \$EDITOR: $(cat "$WORK/uri.out")"
expect_eq "meta information edited in \$EDITOR" "Test Admin" \
  "$(stored_meta | python3 -c 'import json,sys; print(json.load(sys.stdin)["administrator"])')"

finish
