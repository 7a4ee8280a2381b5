#!/usr/bin/env bash
# The real CVMFS 2.12 repository checker (`cvmfs_swissknife check -c`, what
# CVMFS's own `cvmfs_server check` runs) finds no problem in what our
# publisher and our Stratum 1 write:
#   - our repository (repo_revisions.sh, mkfs -z) after revision A, after
#     revision B and a rollback, and after a gc that deleted B's objects;
#   - our Stratum 1 (`add-replica` + `snapshot` of it through Apache);
# and it does fail on corrupted copies (so this test can fail): a flipped
# byte in the root catalog, and a missing data object. (`check -c` checks
# that data objects exist, not their content: a flipped byte in a data
# object is not its business.)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/client.sh"
. "$here/../lib/real_cvmfs.sh"
real_cvmfs_private_etc "$@"
. "$here/../lib/apache.sh"
. "$here/../lib/publish.sh"
. "$here/repo_revisions.sh"

test_init swissknife_check 240
require_bins cvmfs_server
real_cvmfs_init

fqrn=interop.test.org
src=$WORK/src
base=tree
storage=$(repo_storage $fqrn)
key=$(repo_public_key $fqrn)
srv() { "$BIN/cvmfs_server" "$@"; }

checks=0
# swissknife_check STORAGE: the real checker's output (and exit status).
swissknife_check() {
  checks=$((checks + 1))
  mkdir -p "$WORK/sk-tmp-$checks"
  real_swissknife check -r "$1" -k "$key" -N $fqrn -c -t "$WORK/sk-tmp-$checks" \
    >"$WORK/check-$checks.out" 2>&1
}
expect_clean() {
  if swissknife_check "$2"; then
    grep -q "no problems found" "$WORK/check-$checks.out" ||
      check_failed "$1: swissknife check exited 0 without 'no problems found': $(cat "$WORK/check-$checks.out")"
    note "$1: swissknife check finds no problem"
  else
    check_failed "$1: the real swissknife check finds problems:"$'\n'"$(tail -n 20 "$WORK/check-$checks.out")"
  fi
}
# expect_problem WHAT STORAGE PATTERN: the check must fail, naming PATTERN.
expect_problem() {
  if swissknife_check "$2"; then
    check_failed "$1: swissknife check found no problem in a corrupted copy"
  elif ! grep -q -- "$3" "$WORK/check-$checks.out"; then
    check_failed "$1: swissknife check failed without naming '$3':"$'\n'"$(tail -n 10 "$WORK/check-$checks.out")"
  else
    note "$1: swissknife check fails as it should ($(grep -m1 -- "$3" "$WORK/check-$checks.out"))"
  fi
}

# --- our repository, revision by revision ------------------------------------------
interop_tree_a "$src"
publish_tree $fqrn "$src" $base -z
cp -a "$src" "$WORK/src-a"
expect_clean "revision A" "$storage"
srv tag -a interop-a $fqrn >/dev/null 2>&1 || fail "tag -a failed"
interop_tree_b "$src"
interop_republish $fqrn "$src" $base
expect_clean "revision B" "$storage"
srv rollback -f -t interop-a $fqrn >"$WORK/rollback.out" 2>&1 ||
  fail "rollback failed: $(cat "$WORK/rollback.out")"
expect_clean "rollback to A" "$storage"
interop_republish $fqrn "$WORK/src-a" $base
srv tag -l $fqrn | awk '$1 ~ /^generic|^interop-a$/ { print $1 }' | while read -r tag; do
  srv tag -r "$tag" -f $fqrn >/dev/null 2>&1 || fail "tag -r $tag failed"
done
# --- our Stratum 1 -----------------------------------------------------------------
apache_start "$CVMFS_ROOTDIR/srv"
s1root=$WORK/s1root
s1() { CVMFS_ROOTDIR=$s1root "$BIN/cvmfs_server" "$@"; }
s1 add-replica -o root "$APACHE_URL/cvmfs/$fqrn" "$key" >"$WORK/add-replica.out" 2>&1 ||
  fail "add-replica failed: $(cat "$WORK/add-replica.out")"
s1 snapshot $fqrn >"$WORK/snapshot.out" 2>&1 || fail "snapshot failed: $(cat "$WORK/snapshot.out")"
expect_clean "our Stratum 1 snapshot" "$s1root/srv/cvmfs/$fqrn"
# The checker over HTTP, as it checks a remote Stratum 1.
expect_clean "our repository over HTTP" "$APACHE_URL/cvmfs/$fqrn"

# --- corrupted copies -----------------------------------------------------------------
root_hash=$(manifest_field $fqrn C)
cp -a "$storage" "$WORK/bad-catalog"
obj=$WORK/bad-catalog/data/${root_hash:0:2}/${root_hash:2}C
size=$(stat -c %s "$obj")
printf '\xff' | dd of="$obj" bs=1 seek=$((size / 2)) conv=notrunc status=none
cmp -s "$obj" "$storage/data/${root_hash:0:2}/${root_hash:2}C" && fail "the byte flip changed nothing"
expect_problem "root catalog with a flipped byte" "$WORK/bad-catalog" "CATALOG PROBLEMS OR OTHER ERRORS FOUND"

# The object of tree/small/hello.txt, from the root catalog.
hello=$(python3 - "$storage/data/${root_hash:0:2}/${root_hash:2}C" <<'EOF'
import sqlite3, sys, tempfile, zlib
with open(sys.argv[1], "rb") as f:
    db = zlib.decompress(f.read())
with tempfile.NamedTemporaryFile(suffix=".db") as t:
    t.write(db)
    t.flush()
    rows = sqlite3.connect(t.name).execute(
        "SELECT hex(hash) FROM catalog WHERE name = 'hello.txt'").fetchall()
print(rows[0][0].lower())
EOF
)
[ -f "$(server_object_path $fqrn "$hello")" ] || fail "no object $hello for tree/small/hello.txt"
cp -a "$storage" "$WORK/missing-object"
rm "$WORK/missing-object/data/${hello:0:2}/${hello:2}"
expect_problem "data object of small/hello.txt removed" "$WORK/missing-object" "$hello.*missing"

# --- garbage collection (last: the checks above need no gc) -----------------------
bytes_before=$(du -sb "$storage/data" | cut -f1)
srv gc -r 0 -f $fqrn >"$WORK/gc.out" 2>&1 || fail "gc failed: $(cat "$WORK/gc.out")"
[ $(($bytes_before - $(du -sb "$storage/data" | cut -f1))) -ge $((16 * 1024 * 1024)) ] ||
  check_failed "gc did not delete revision B's objects: $(tail -n 1 "$WORK/gc.out")"
expect_clean "after gc" "$storage"
if s1 snapshot $fqrn >"$WORK/snapshot-gc.out" 2>&1; then
  expect_clean "our Stratum 1 after gc" "$s1root/srv/cvmfs/$fqrn"
else
  check_failed "snapshot after gc failed: $(cat "$WORK/snapshot-gc.out")"
fi

finish
