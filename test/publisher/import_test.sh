#!/usr/bin/env bash
# cvmfs_server import end to end:
#  a) the CVMFS 2.12 fixture import-src.example.org (5 revisions, tag v1,
#     nested catalogs, a chunked file, garbage-collectable) is taken over in
#     place; an ingest publishes revision 6; `tag -l` lists the old tags and
#     the new one; our client mounts the new revision and tag v1 (listings
#     equal the fixture's expected*.tsv); `rollback -t v1` gives v1's
#     content; `gc -r 0` afterwards leaves every object of v1 (a fresh mount
#     reads every file) and `check` passes;
#  b) a repository made by our mkfs, its storage and keys moved to a second
#     machine root, is imported there and publishing continues;
#  c) refusals (foreign keys, missing storage, existing repository, invalid
#     name, unsupported options) say why and write nothing;
#  d) mkfs -k (existing keys) and mkfs -m (replicable).
# Transaction mounts are not needed (CVMFS_SERVER_NO_MOUNT=1).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"

test_init import 600
require_bins cvmfs_server cvmfs2
export CVMFS_SERVER_NO_MOUNT=1

fixtures=${CVMFS_FIXTURES_DIR:-$SOURCE_DIR/../shared/fixtures}
fqrn=import-src.example.org
fixture=$fixtures/$fqrn
[ -d "$fixture/srv/cvmfs/$fqrn" ] || skip "no fixture $fixture (set CVMFS_FIXTURES_DIR)"
fixture=$(cd "$fixture" && pwd)
unset CVMFS_ARCH FIXTURE_UNSET
arch=$(uname -m)

srv() { "$BIN/cvmfs_server" "$@"; }
storage() { echo "$CVMFS_ROOTDIR/srv/cvmfs/$1"; }
field() { sed -n "/^--\$/q;s/^$2//p" "$(storage "$1")/.cvmfspublished" | head -n 1; }

# The storage of the fixture, as a checkout gives it (no data/txn), under
# $CVMFS_ROOTDIR; its keys in $WORK/old-keys.
copy_fixture() {
  mkdir -p "$CVMFS_ROOTDIR/srv/cvmfs" "$WORK/old-keys"
  cp -r "$fixture/srv/cvmfs/$fqrn" "$(storage $fqrn)"
  cp "$fixture/keys/"* "$WORK/old-keys/"
  chmod -R u+w "$(storage $fqrn)" "$WORK/old-keys"
}

# What nothing-written means: the state of etc/ and var/ before and after.
state() {
  (cd "$CVMFS_ROOTDIR" && { find etc var 2>/dev/null || true; } | sort |
    xargs -r ls -ld --time-style=+%s | md5sum)
}

# refuse WHAT PATTERN ARGS...: import must fail, name PATTERN, write nothing.
refuse() {
  local what=$1 pattern=$2 before err rc=0
  shift 2
  before=$(state)
  err=$(srv import "$@" 2>&1) || rc=$?
  if [ "$rc" -eq 0 ]; then
    check_failed "import with $what succeeded"
  elif ! grep -q -- "$pattern" <<<"$err"; then
    check_failed "import with $what: expected '$pattern' in: $err"
  else
    note "refused ($what): $err"
  fi
  expect_eq "import with $what wrote nothing" "$before" "$(state)"
}

expected_for() {
  awk -F'\t' -v OFS='\t' -v arch="$arch" '
    $2 == "l" && $6 == "x86_64/lib" { $6 = arch "/lib"; $4 = length($6) }
    { print }' "$1"
}

# compare LABEL EXPECTED_TSV MOUNTPOINT [EXCLUDED_TOP_DIR]
compare() {
  local label=$1 expected=$2 mnt=$3 skip_dir=${4:-} out=$WORK/listing-$1
  expected_for "$expected" >"$out.expected"
  python3 "$TESTLIB_DIR/listing.py" "$mnt" >"$out.all" 2>"$out.err" ||
    { check_failed "$label: listing failed: $(head -n 5 "$out.err")"; return; }
  if [ -n "$skip_dir" ]; then
    awk -F'\t' -v d="$skip_dir" '$1 != d && index($1, d "/") != 1' "$out.all" >"$out.actual"
  else
    cp "$out.all" "$out.actual"
  fi
  if python3 "$TESTLIB_DIR/compare_listings.py" "$out.expected" "$out.actual" >"$out.diff"; then
    note "$label: $(wc -l <"$out.actual") entries as expected"
  else
    check_failed "$label differs from $(basename "$expected"):"$'\n'"$(head -n 40 "$out.diff")"
  fi
}

# mount_at LABEL [TAG]: mounts the served repository (a fresh cache each time).
mount_at() {
  local label=$1 tag=${2:-} conf=$WORK/$1.conf
  test_client_config "$conf" "$APACHE_URL/cvmfs/@fqrn@" "$CVMFS_ROOTDIR/etc/cvmfs/keys/$fqrn.pub" \
    "CVMFS_CACHE_BASE=$WORK/cache-$label"
  [ -z "$tag" ] || echo "CVMFS_REPOSITORY_TAG=$tag" >>"$conf"
  mount_repo "$fqrn" "$WORK/mnt-$label" "$conf"
}

# ---------------------------------------------------------------- c) refusals
note "c) refusals"
copy_fixture
refuse "an invalid name" "fully qualified" -k "$WORK/old-keys" not_qualified
refuse "a missing storage" "data/txn missing" -k "$WORK/old-keys" -p $fqrn
mkdir -p "$(storage $fqrn)/data/txn"
refuse "a missing storage" "missing" -k "$WORK/old-keys" -p other.example.org
# Keys of another repository with the same name (made on another machine).
CVMFS_ROOTDIR=$WORK/other srv mkfs $fqrn >/dev/null
refuse "foreign keys" "keys do not match the storage" -k "$WORK/other/etc/cvmfs/keys" -p $fqrn
refuse "-t" "option -t" -t -r -k "$WORK/old-keys" -p $fqrn
refuse "-g" "option -g" -g -k "$WORK/old-keys" -p $fqrn
refuse "-l" "option -l" -l -k "$WORK/old-keys" -p $fqrn
refuse "-f aufs" "only overlayfs" -f aufs -k "$WORK/old-keys" -p $fqrn
refuse "-u S3 without -w" "import -u S3,... needs -w" -u "S3,/tmp,x@y.cfg" -k "$WORK/old-keys" -p $fqrn
refuse "-u gw" "import takes local storage" -u "gw,/tmp,http://gw:4929/api/v1" -k "$WORK/old-keys" -p $fqrn

# ------------------------------------------------------ a) the CVMFS fixture
note "a) import of the CVMFS 2.12 fixture"
out=$(srv import -k "$WORK/old-keys" -p -o root $fqrn) || fail "import failed: $out"
note "$out"
grep -q "revision 5, sha1, garbage-collectable, 8 tags" <<<"$out" || check_failed "import report: $out"
conf=$CVMFS_ROOTDIR/etc/cvmfs/repositories.d/$fqrn/server.conf
grep -qx "CVMFS_GARBAGE_COLLECTION=true" "$conf" || check_failed "server.conf not garbage-collectable"
grep -qx "CVMFS_HASH_ALGORITHM=sha1" "$conf" || check_failed "server.conf hash algorithm"
refuse "an existing repository" "already exists" -k "$WORK/old-keys" -p $fqrn
srv check $fqrn >/dev/null || check_failed "check after import"

tags_before=$(srv tag -l $fqrn)
mkdir -p "$WORK/add/sub"
echo "published after the import" >"$WORK/add/sub/new.txt"
tar -C "$WORK/add" -cf "$WORK/add.tar" .
srv ingest -t "$WORK/add.tar" -b after-import $fqrn >/dev/null
expect_eq "revision after the first publish" 6 "$(field $fqrn S)"
tags_after=$(srv tag -l $fqrn)
for t in v1 trunk trunk-previous generic-2026-11-27T11:57:45Z generic_1-2026-11-27T11:57:50Z; do
  grep -q "^$t " <<<"$tags_after" || check_failed "tag $t missing after publish: $tags_after"
done
new_tags=$(($(grep -c '^generic' <<<"$tags_after") - $(grep -c '^generic' <<<"$tags_before")))
expect_eq "new automatic tags" 1 "$new_tags"

mkdir -p "$WORK/docroot/cvmfs"
ln -s "$(storage $fqrn)" "$WORK/docroot/cvmfs/$fqrn"
chmod -R o+rX "$CVMFS_ROOTDIR/srv"
apache_start "$WORK/docroot"

mount_at trunk
expect_eq "served revision" 6 "$(magic_xattr revision "$WORK/mnt-trunk")"
expect_eq "new file" "published after the import" "$(cat "$WORK/mnt-trunk/after-import/sub/new.txt")"
compare trunk "$fixture/expected.tsv" "$WORK/mnt-trunk" after-import
unmount_repo "$WORK/mnt-trunk"
mount_at v1 v1
compare v1 "$fixture/expected-v1.tsv" "$WORK/mnt-v1"
unmount_repo "$WORK/mnt-v1"

srv rollback -f -t v1 $fqrn >/dev/null
expect_eq "revision after rollback" 7 "$(field $fqrn S)"
mount_at rollback
compare rollback "$fixture/expected-v1.tsv" "$WORK/mnt-rollback"
unmount_repo "$WORK/mnt-rollback"

# gc keeping only the current revision and the tags: revision 2's automatic
# tag removed first, so that there is something to collect.
srv tag -r generic-2026-11-27T11:57:45Z -f $fqrn >/dev/null 2>&1 ||
  srv tag -r generic-2026-11-27T11:57:45Z $fqrn >/dev/null
objects_before=$(find "$(storage $fqrn)/data" -type f | wc -l)
srv gc -f -r 0 $fqrn >"$WORK/gc.out" 2>&1 || { cat "$WORK/gc.out"; fail "gc failed"; }
objects_after=$(find "$(storage $fqrn)/data" -type f | wc -l)
note "gc: $objects_before -> $objects_after objects"
[ "$objects_after" -lt "$objects_before" ] || check_failed "gc deleted nothing (revision 2 was untagged)"
srv check $fqrn >/dev/null || check_failed "check after gc"
mount_at v1-after-gc v1
compare v1-after-gc "$fixture/expected-v1.tsv" "$WORK/mnt-v1-after-gc"
unmount_repo "$WORK/mnt-v1-after-gc"
mount_at previous-after-gc trunk-previous
# trunk-previous is revision 6: the fixture's newest plus after-import/.
compare previous-after-gc "$fixture/expected.tsv" "$WORK/mnt-previous-after-gc" after-import
unmount_repo "$WORK/mnt-previous-after-gc"
apache_stop

# -------------------------------------- b) our own repository, moved machines
note "b) import of a repository made by our mkfs on another machine"
first=$WORK/first
CVMFS_ROOTDIR=$first srv mkfs -z own.example.org >/dev/null
CVMFS_ROOTDIR=$first srv ingest -t "$WORK/add.tar" -b one own.example.org >/dev/null
CVMFS_ROOTDIR=$first srv tag -a release-1 own.example.org >/dev/null
second=$WORK/second
mkdir -p "$second/srv/cvmfs"
mv "$first/srv/cvmfs/own.example.org" "$second/srv/cvmfs/"
mv "$first/etc/cvmfs/keys" "$WORK/own-keys"
out=$(CVMFS_ROOTDIR=$second srv import -k "$WORK/own-keys" -p own.example.org) ||
  fail "import of our own repository failed: $out"
CVMFS_ROOTDIR=$second srv ingest -t "$WORK/add.tar" -b two own.example.org >/dev/null
expect_eq "own repository revision" 3 \
  "$(sed -n '/^--$/q;s/^S//p' "$second/srv/cvmfs/own.example.org/.cvmfspublished")"
CVMFS_ROOTDIR=$second srv tag -l own.example.org | grep -q '^release-1 ' ||
  check_failed "tag release-1 lost in the move"
CVMFS_ROOTDIR=$second srv check -c own.example.org >/dev/null || check_failed "check -c of the moved repository"

# ------------------------------------------------------ d) mkfs -k and -m
note "d) mkfs -k and -m"
third=$WORK/third
CVMFS_ROOTDIR=$third srv mkfs -m -k "$WORK/own-keys" own.example.org >/dev/null
cmp -s "$WORK/own-keys/own.example.org.crt" "$third/etc/cvmfs/keys/own.example.org.crt" ||
  check_failed "mkfs -k did not use the given certificate"
cmp -s "$WORK/own-keys/own.example.org.masterkey" "$third/etc/cvmfs/keys/own.example.org.masterkey" ||
  check_failed "mkfs -k did not use the given master key"
[ -f "$third/srv/cvmfs/own.example.org/.cvmfs_master_replica" ] || check_failed "mkfs -m: not replicable"
# A machine holding other keys for the name: they are not overwritten.
mkdir -p "$WORK/fourth/etc/cvmfs"
cp -r "$WORK/other/etc/cvmfs/keys" "$WORK/fourth/etc/cvmfs/"
if err=$(CVMFS_ROOTDIR=$WORK/fourth srv mkfs -k "$WORK/old-keys" $fqrn 2>&1); then
  check_failed "mkfs -k over different keys succeeded"
else
  grep -q "would overwrite" <<<"$err" || check_failed "mkfs -k conflict: $err"
fi
finish
