#!/usr/bin/env bash
# cvmfs_server gc end to end through its command line: several revisions with
# changes and a tag, `check -i` before and after, a dry run that deletes
# nothing, and the accounting "objects on disk before gc minus the deleted
# ones == the objects the kept revisions and tags reference", where the
# referenced set is computed here by reading the catalogs with Python's
# sqlite3 (independently of the C++ code). Needs neither root nor FUSE.
set -euo pipefail
bin=${CVMFS_BIN_DIR:?}
work=$(mktemp -d /tmp/cvmfs-gc-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
export CVMFS_ROOTDIR=$work/root
# No transaction mounts: gc needs none (and then neither root nor FUSE).
export CVMFS_SERVER_NO_MOUNT=1
fail() { echo "FAIL: gc_test: $*" >&2; exit 1; }
srv() { "$bin/cvmfs_server" "$@"; }
fqrn=gc.test.org
storage=$CVMFS_ROOTDIR/srv/cvmfs/$fqrn
objects() { (cd "$storage" && find data -type f ! -path 'data/txn/*' | sort); }
manifest_field() { sed -n "/^--\$/q;s/^$1//p" "$storage/.cvmfspublished" | head -1; }

# The objects the current revision and every tag reference (bundles too,
# doc/format-bundles.md), plus the manifest's certificate, history and
# metainfo (sha1 repositories).
referenced() {
  python3 - "$storage" <<'EOF'
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
out = {name(manifest["X"], "X"), name(manifest["H"], "H"), name(manifest["M"], "M")}
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
    if db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'bundles'").fetchone()[0]:
        for (text,) in db.execute("SELECT hash FROM bundles"):
            out.add(name(text, "B"))
    todo.extend(r[0] for r in db.execute("SELECT sha1 FROM nested_catalogs"))
print("\n".join(sorted(out)))
EOF
}

# A repository without -z is refused.
srv mkfs plain.test.org >/dev/null 2>&1
if out=$(srv gc -f -r 0 plain.test.org 2>&1); then fail "gc on a repository without -z succeeded"; fi
echo "$out" | grep -q "not garbage-collectable" || fail "unclear refusal: $out"

srv mkfs -z $fqrn >/dev/null 2>&1
[ "$(manifest_field G)" = yes ] || fail "mkfs -z must publish G=yes"
sed -i 's/^CVMFS_AUTO_TAG=.*/CVMFS_AUTO_TAG=false/' "$CVMFS_ROOTDIR/etc/cvmfs/repositories.d/$fqrn/server.conf"

publish() {  # publish DIR [ingest options...]
  local dir=$1
  shift
  tar -C "$work/$dir" -cf "$work/$dir.tar" .
  srv ingest -t "$work/$dir.tar" -b sw "$@" $fqrn >/dev/null
}
mkdir -p "$work/r2/lib" "$work/r2/nested" "$work/r3" "$work/r4/nested" "$work/r5"
echo "first" > "$work/r2/a"
head -c 9000000 /dev/urandom > "$work/r2/lib/big.bin"  # chunked
: > "$work/r2/nested/.cvmfscatalog"
echo "nested" > "$work/r2/nested/x"
publish r2
echo "second" > "$work/r3/a"
publish r3
srv tag -a release-1 -m "kept by its tag" $fqrn
head -c 3000000 /dev/urandom > "$work/r4/c.bin"
echo "nested, changed" > "$work/r4/nested/x"
publish r4 -d sw/lib
echo "third" > "$work/r5/a"
publish r5
[ "$(manifest_field S)" = 5 ] || fail "expected revision 5, got $(manifest_field S)"

srv check -i $fqrn >/dev/null || fail "check -i before gc"
srv check -i -t release-1 $fqrn >/dev/null || fail "check -i -t release-1 before gc"
objects > "$work/before"

# Not confirmed: nothing happens.
if echo n | srv gc -r 0 $fqrn >/dev/null 2>&1; then fail "gc ran without confirmation"; fi
objects | cmp -s - "$work/before" || fail "unconfirmed gc deleted objects"

# Dry run: lists, deletes nothing.
srv gc -d -l -r 0 $fqrn > "$work/dry.out"
grep '^data/' "$work/dry.out" | sort > "$work/would"
[ -s "$work/would" ] || fail "dry run found nothing to delete: $(cat "$work/dry.out")"
grep -q "^Would delete $(wc -l < "$work/would") of $(wc -l < "$work/before") objects" "$work/dry.out" ||
  fail "dry run summary: $(cat "$work/dry.out")"
objects | cmp -s - "$work/before" || fail "dry run deleted objects"

# The collection: -r 0 keeps revision 5, trunk-previous (4) and release-1 (3).
srv gc -f -l -r 0 -L "$work/deletion.log" $fqrn > "$work/gc.out"
grep '^data/' "$work/gc.out" | sort > "$work/deleted"
cmp -s "$work/deleted" "$work/would" || fail "gc deleted other objects than the dry run listed"
sort "$work/deletion.log" | cmp -s - "$work/deleted" || fail "deletion log differs from -l"
grep -q "^Kept 3 revisions" "$work/gc.out" || fail "kept revisions: $(cat "$work/gc.out")"
objects > "$work/after"
comm -23 "$work/before" "$work/deleted" > "$work/before_minus_deleted"
cmp -s "$work/before_minus_deleted" "$work/after" ||
  fail "before minus deleted != after: $(diff "$work/before_minus_deleted" "$work/after" | head)"
referenced > "$work/referenced"
cmp -s "$work/after" "$work/referenced" ||
  fail "on disk != referenced: $(diff "$work/after" "$work/referenced" | head)"

srv check -i $fqrn >/dev/null || fail "check -i after gc"
for tag in release-1 trunk-previous; do
  srv check -i -t $tag $fqrn >/dev/null || fail "check -i -t $tag after gc"
done

# Publishing and collecting again works; nothing is left to delete after.
echo "fourth" > "$work/r5/a"
publish r5
srv gc -f -r 0 $fqrn >/dev/null
srv gc -f -r 0 $fqrn | grep -q "^Deleted 0 of" || fail "second gc still found garbage"
srv check -i $fqrn >/dev/null || fail "check -i after the second gc"
grep -v "^data/" "$work/gc.out"
echo "PASS: gc_test"
