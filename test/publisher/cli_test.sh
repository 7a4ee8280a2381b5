#!/usr/bin/env bash
# cvmfs_server end to end through its command line: mkfs with each hash
# algorithm and compression, ingest (file and stdin), re-ingest without new
# objects, -d, tags, rollback, resign, check -i, and failures that must leave
# the served revision intact.
# These tests exercise ingest and the storage; they need no transaction
# mounts (test/transaction/ covers those).
export CVMFS_SERVER_NO_MOUNT=1
set -euo pipefail
bin=${CVMFS_BIN_DIR:?}
work=$(mktemp -d /tmp/cvmfs-cli-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
export CVMFS_ROOTDIR=$work/root
fail() { echo "FAIL: $*" >&2; exit 1; }
srv() { "$bin/cvmfs_server" "$@"; }
manifest_field() { sed -n "/^--\$/q;s/^$2//p" "$CVMFS_ROOTDIR/srv/cvmfs/$1/.cvmfspublished" | head -1; }
count_objects() { find "$CVMFS_ROOTDIR/srv/cvmfs/$1/data" -type f ! -path '*/txn/*' | wc -l; }

src=$work/src
mkdir -p "$src/a/b" "$src/nested/inner"
echo hello > "$src/a/hello.txt"
head -c 9000000 /dev/urandom > "$src/a/b/big.bin"
ln -s hello.txt "$src/a/link"
: > "$src/nested/.cvmfscatalog"
echo inner > "$src/nested/inner/x"
tar -C "$src" -cf "$work/t.tar" .

for algo in sha1 rmd160 shake128; do
  for compr in zlib none; do
    fqrn=$algo-$compr.test.org
    srv mkfs -a $algo -Z $compr $fqrn >/dev/null
    [ "$(manifest_field $fqrn S)" = 1 ] || fail "$fqrn: mkfs revision"
    srv ingest -t "$work/t.tar" -b sw $fqrn >/dev/null
    [ "$(manifest_field $fqrn S)" = 2 ] || fail "$fqrn: ingest revision"
    case $algo in sha1) ;; *) manifest_field $fqrn C | grep -q -- "-$algo\$" || fail "$fqrn: algo id" ;; esac
    srv check -i $fqrn >/dev/null || fail "$fqrn: check -i"
    n=$(srv list-catalogs $fqrn | wc -l)
    [ "$n" = 2 ] || fail "$fqrn: expected 2 catalogs, got $n"
  done
done

fqrn=sha1-zlib.test.org
# Re-ingesting the same content stores no new data object.
before=$(count_objects $fqrn)
out=$(srv ingest -t - -b sw $fqrn < "$work/t.tar")
echo "$out" | grep -q "new objects: 0 " || fail "re-ingest stored new data objects: $out"
after=$(count_objects $fqrn)
# Only catalogs and history may be new (root + nested catalog + history = 3 at most).
[ $((after - before)) -le 3 ] || fail "re-ingest added $((after - before)) objects"

# Tags and rollback.
srv tag -a release-1 -m "first" $fqrn
srv tag -l $fqrn | grep -q release-1 || fail "tag list"
rev=$(manifest_field $fqrn S)
srv ingest -t "$work/t.tar" -b sw -d sw/a $fqrn >/dev/null
srv rollback -f -t release-1 $fqrn >/dev/null
[ "$(manifest_field $fqrn S)" -gt "$rev" ] || fail "rollback must publish a new revision"
srv check -i $fqrn >/dev/null || fail "check after rollback"
srv tag -r release-1 -f $fqrn >/dev/null
srv tag -l $fqrn | grep -q release-1 && fail "tag not removed"
srv resign -d 7 $fqrn >/dev/null

# Failures keep the previous revision.
cp "$CVMFS_ROOTDIR/srv/cvmfs/$fqrn/.cvmfspublished" "$work/manifest.before"
head -c 100000 "$work/t.tar" > "$work/truncated.tar"
if srv ingest -t "$work/truncated.tar" -b sw2 $fqrn 2>"$work/err"; then fail "truncated tar accepted"; fi
grep -q . "$work/err" || fail "no error message for a truncated tar"
cmp -s "$work/manifest.before" "$CVMFS_ROOTDIR/srv/cvmfs/$fqrn/.cvmfspublished" || fail "manifest changed after a failed ingest"
if srv ingest -t "$work/missing.tar" -b x $fqrn 2>/dev/null; then fail "missing tarball accepted"; fi
if srv mkfs $fqrn 2>/dev/null; then fail "mkfs over an existing repository"; fi
if srv mkfs not_qualified 2>/dev/null; then fail "unqualified name accepted"; fi
# A corrupted data object is found by check -i.
obj=$(find "$CVMFS_ROOTDIR/srv/cvmfs/$fqrn/data" -type f -size +1000k ! -name '*C' | head -1)
chmod u+w "$obj"; printf 'X' | dd of="$obj" bs=1 seek=100 conv=notrunc 2>/dev/null
if srv check -i $fqrn >/dev/null 2>&1; then fail "check -i missed a corrupted object"; fi
srv check $fqrn >/dev/null || fail "check without -i only looks for existence"
if srv check -c -i $fqrn >/dev/null 2>&1; then fail "check -c -i missed a corrupted object"; fi
# And publishing still works.
srv ingest -t "$work/t.tar" -b sw3 $fqrn >/dev/null || fail "publish after failures"
echo "cli_test: all passed"
