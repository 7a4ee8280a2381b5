#!/usr/bin/env bash
# Round trip through the whole stack: build a tree with every kind of entry,
# publish it with cvmfs_server, serve it with Apache, mount it with cvmfs2 and
# compare the mount with the source: contents (diff -r), per-entry metadata
# (type, mode, size, mtime, symlink target, link count, user.* xattrs, owner),
# hardlinks sharing an inode, variant symlinks expanded, random reads in a
# chunked file, the magic attributes, ENOENT for a missing path and EROFS for
# every write.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init roundtrip 500
require_bins cvmfs_server cvmfs2 cvmfs_talk

fqrn=roundtrip.test.org
src=$WORK/src
mnt=$WORK/mnt
base=tree
arch=$(uname -m)

# build_tree DIR: every entry kind the client has to present.
build_tree() {
  local t=$1 i
  mkdir -p "$t"/{small,large,links,special,hard,xattr,modes,names,many}
  : >"$t/empty"
  echo "hello, world" >"$t/small/hello.txt"
  for i in $(seq 0 20); do printf 'small file %d\n' "$i" >"$t/small/f$i.txt"; done
  printf 'same content\n' >"$t/small/dup1"
  printf 'same content\n' >"$t/small/dup2"
  # Chunked (content-defined chunks) and around the 4 MiB chunking threshold.
  make_random_file "$t/large/random-20m.bin" $((20 * 1024 * 1024)) roundtrip-20m
  make_random_file "$t/large/4m-minus-1.bin" $((4 * 1024 * 1024 - 1)) roundtrip-4m-1
  make_random_file "$t/large/4m.bin" $((4 * 1024 * 1024)) roundtrip-4m
  make_random_file "$t/large/4m-plus-1.bin" $((4 * 1024 * 1024 + 1)) roundtrip-4m+1
  # Compressible and larger than one chunk as well.
  seq 1 3000000 >"$t/large/text.txt"

  ln -s ../small/hello.txt "$t/links/relative"
  ln -s /etc/hostname "$t/links/absolute"
  ln -s does-not-exist "$t/links/dangling"
  ln -s ../small "$t/links/dirlink"
  ln -s '$(CVMFS_ARCH)/lib' "$t/links/variant"
  ln -s '$(ROUNDTRIP_UNSET_VARIABLE:-default)/lib' "$t/links/variant-default"

  mkfifo "$t/special/fifo"

  echo "linked" >"$t/hard/a"
  ln "$t/hard/a" "$t/hard/b"
  echo "not linked" >"$t/hard/c"

  echo "with attributes" >"$t/xattr/tagged.txt"
  setfattr -n user.foo -v bar "$t/xattr/tagged.txt"
  setfattr -n user.empty "$t/xattr/tagged.txt"
  setfattr -n user.binary -v 0x00ff10 "$t/xattr/tagged.txt"
  mkdir "$t/xattr/dir"
  setfattr -n user.dirattr -v on-a-directory "$t/xattr/dir"

  # Nested catalogs two levels deep.
  mkdir -p "$t/nested/inner/deeper"
  : >"$t/nested/.cvmfscatalog"
  : >"$t/nested/inner/.cvmfscatalog"
  echo "in the first nested catalog" >"$t/nested/one.txt"
  echo "in the second nested catalog" >"$t/nested/inner/two.txt"
  echo "below the second" >"$t/nested/inner/deeper/three.txt"
  ln -s ../../small/hello.txt "$t/nested/inner/up-link"

  echo spaces >"$t/names/name with spaces.txt"
  echo utf8 >"$t/names/café-日本.txt"
  echo dash >"$t/names/-leading-dash"
  echo long >"$t/names/$(printf 'L%.0s' $(seq 1 251)).txt"

  for m in 600 644 700 755; do
    echo "mode $m" >"$t/modes/m$m"
    chmod "$m" "$t/modes/m$m"
  done
  mkdir "$t/modes/private-dir" && chmod 700 "$t/modes/private-dir"
  echo owned >"$t/modes/owned" && chown 1234:5678 "$t/modes/owned"

  for i in $(seq -w 0 2999); do echo "$i" >"$t/many/e$i"; done

  local d=$t/deep
  for i in $(seq -w 0 23); do d=$d/d$i; done
  mkdir -p "$d" && echo leaf >"$d/leaf.txt"

  # Fixed, distinct mtimes (directories last: creating entries changes them).
  find "$t" ! -type d -exec touch -h -d @1700000000 {} +
  touch -h -d @1600000000 "$t/small/hello.txt" "$t/links/relative"
  find "$t" -depth -type d -exec touch -d @1700000100 {} +
}

# Expected listing of the mount: the source's, with variant symlinks shown
# expanded (target and size) and directory link counts left out (CVMFS shows
# 1, a local file system 2 + subdirectories).
expected_listing() {
  python3 "$TESTLIB_DIR/listing.py" "$src" | awk -F'\t' -v OFS='\t' -v arch="$arch" '
    $1 == "links/variant" { $6 = arch "/lib"; $4 = length($6) }
    $1 == "links/variant-default" { $6 = "default/lib"; $4 = length($6) }
    $2 == "d" { $7 = "-" }
    { print }'
}
actual_listing() {
  python3 "$TESTLIB_DIR/listing.py" "$mnt/$base" | awk -F'\t' -v OFS='\t' '
    $2 == "d" { $7 = "-" }
    { print }'
}

owners_of() {
  (cd "$1" && find . -mindepth 1 -printf '%P\t%U:%G\n' | LC_ALL=C sort)
}

check_contents() {
  local out
  out=$(diff -r --no-dereference "$src" "$mnt/$base" 2>&1 |
    grep -vE '^File .* is a fifo while file .* is a fifo$' |
    grep -vE '^Symbolic links .*/links/variant(-default)? and .* differ$' || true)
  [ -z "$out" ] || check_failed "diff -r source mount:"$'\n'"$out"
}

check_metadata() {
  expected_listing >"$WORK/expected.tsv"
  actual_listing >"$WORK/actual.tsv"
  python3 "$TESTLIB_DIR/compare_listings.py" "$WORK/expected.tsv" "$WORK/actual.tsv" \
    >"$WORK/listing.diff" ||
    check_failed "the mount differs from the source:"$'\n'"$(cat "$WORK/listing.diff")"
  owners_of "$src" >"$WORK/owners.expected"
  owners_of "$mnt/$base" >"$WORK/owners.actual"
  diff "$WORK/owners.expected" "$WORK/owners.actual" >"$WORK/owners.diff" ||
    check_failed "uid:gid differ (< source, > mount):"$'\n'"$(head -n 20 "$WORK/owners.diff")"
}

check_hardlinks() {
  local ia ib ic
  ia=$(stat -c %i "$mnt/$base/hard/a")
  ib=$(stat -c %i "$mnt/$base/hard/b")
  ic=$(stat -c %i "$mnt/$base/hard/c")
  expect_eq "inode of hard/b (hardlink of hard/a)" "$ia" "$ib"
  [ "$ia" != "$ic" ] || check_failed "hard/c shares inode $ia with the hardlink group"
  expect_eq "link count of hard/a" 2 "$(stat -c %h "$mnt/$base/hard/a")"
}

check_symlinks() {
  expect_eq "readlink links/variant" "$arch/lib" "$(readlink "$mnt/$base/links/variant")"
  expect_eq "readlink links/variant-default" "default/lib" \
    "$(readlink "$mnt/$base/links/variant-default")"
  expect_eq "content through links/relative" "hello, world" "$(cat "$mnt/$base/links/relative")"
  expect_eq "content through nested/inner/up-link (across catalogs)" "hello, world" \
    "$(cat "$mnt/$base/nested/inner/up-link")"
  [ -d "$mnt/$base/links/dirlink/" ] || check_failed "links/dirlink/ does not resolve to a directory"
}

check_xattrs() {
  expect_eq "user.foo of xattr/tagged.txt" bar \
    "$(getfattr --absolute-names --only-values -n user.foo "$mnt/$base/xattr/tagged.txt" 2>&1)"
  expect_eq "user.dirattr of xattr/dir" on-a-directory \
    "$(getfattr --absolute-names --only-values -n user.dirattr "$mnt/$base/xattr/dir" 2>&1)"
  local err
  if err=$(getfattr --absolute-names -n user.nonexistent "$mnt/$base/xattr/tagged.txt" 2>&1); then
    check_failed "getfattr of a missing attribute succeeded: $err"
  elif [[ "$err" != *"No such attribute"* ]]; then
    check_failed "getfattr of a missing attribute: expected ENODATA, got: $err"
  fi
}

check_magic_xattrs() {
  local file=$mnt/$base/small/hello.txt hash obj
  expect_eq "user.fqrn" "$fqrn" "$(magic_xattr fqrn "$mnt" 2>&1)"
  expect_eq "user.revision" "$(manifest_field $fqrn S)" "$(magic_xattr revision "$mnt" 2>&1)"
  expect_eq "user.root_hash" "$(manifest_field $fqrn C)" "$(magic_xattr root_hash "$mnt" 2>&1)"
  if hash=$(magic_xattr hash "$file" 2>&1); then
    obj=$(server_object_path $fqrn "$hash")
    [ -f "$obj" ] || check_failed "user.hash of small/hello.txt is '$hash', but the server has no $obj"
  else
    check_failed "user.hash of $file: $hash"
  fi
  local n
  n=$(magic_xattr ndownload "$mnt" 2>&1) || true
  [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] ||
    check_failed "user.ndownload should count the downloads so far, got '$n'"
}

# Reads at random offsets (also across chunk boundaries) before anything
# reads the file sequentially.
check_random_reads() {
  python3 - "$src/large/random-20m.bin" "$mnt/$base/large/random-20m.bin" <<'EOF' ||
import os, random, sys
src, mnt = sys.argv[1:3]
size = os.path.getsize(src)
rng = random.Random(42)
offsets = [0, size - 1, 4 << 20, (4 << 20) - 7, (8 << 20) + 3, size - 100000]
offsets += [rng.randrange(size) for _ in range(200)]
with open(src, "rb") as a, open(mnt, "rb") as b:
    for off in offsets:
        n = rng.choice([1, 4096, 131072, 1 << 20])
        a.seek(off); b.seek(off)
        want, got = a.read(n), b.read(n)
        if want != got:
            print("random read of %d bytes at offset %d: %d bytes differ or missing"
                  % (n, off, sum(x != y for x, y in zip(want, got)) + abs(len(want) - len(got))))
            sys.exit(1)
EOF
    check_failed "random reads of large/random-20m.bin differ from the source"
}

check_errors() {
  expect_read_error "$mnt/$base/does-not-exist" "No such file or directory"
  expect_read_error "$mnt/$base/nested/inner/missing" "No such file or directory"
  local err
  for op in "touch $mnt/$base/new-file" "mkdir $mnt/$base/new-dir" \
    "rm -f $mnt/$base/small/hello.txt" "mv $mnt/$base/small/f1.txt $mnt/$base/small/f1.moved" \
    "setfattr -n user.new -v x $mnt/$base/small/f2.txt" "ln -s x $mnt/$base/new-link"; do
    if err=$($op 2>&1); then
      check_failed "'$op' succeeded on a read-only mount"
    elif [[ "$err" != *"Read-only file system"* ]]; then
      check_failed "'$op': expected EROFS, got: $err"
    fi
  done
  if err=$( (echo x >>"$mnt/$base/small/hello.txt") 2>&1); then
    check_failed "appending to small/hello.txt succeeded"
  elif [[ "$err" != *"Read-only file system"* ]]; then
    check_failed "appending to small/hello.txt: expected EROFS, got: $err"
  fi
}

note "building the source tree"
build_tree "$src"
publish_tree $fqrn "$src" $base
apache_start "$CVMFS_ROOTDIR/srv"
test_client_config "$WORK/client.conf" "$APACHE_URL/cvmfs/@fqrn@" "$(repo_public_key $fqrn)"
mount_repo $fqrn "$mnt" "$WORK/client.conf"

[ -d "$mnt/$base" ] || fail "/$base is missing in the mount: $(ls -la "$mnt" 2>&1)"
check_random_reads
check_contents
check_metadata
check_hardlinks
check_symlinks
check_xattrs
check_magic_xattrs
check_errors
note "$(apache_request_count) HTTP requests, $(apache_bytes_sent) bytes"

# CVMFS_MEMCACHE_SIZE=1: the client remembers about 2,000 of the ~3,200
# inodes the kernel holds after the walk; the others are rebuilt from their
# number when the kernel comes back to them (doc/client.md, "Memory").
unmount_repo "$mnt"
test_client_config "$WORK/small.conf" "$APACHE_URL/cvmfs/@fqrn@" \
  "$(repo_public_key $fqrn)" CVMFS_MEMCACHE_SIZE=1
mount_repo $fqrn "$mnt" "$WORK/small.conf"
check_metadata
check_contents
check_hardlinks
check_symlinks
affairs=$("$BIN/cvmfs_talk" -p "$(cache_dir_of $fqrn)/cvmfs_io.$fqrn" internal affairs)
counter() { awk -F'|' -v n="$1" '$1 == n { print $2 }' <<<"$affairs"; }
note "CVMFS_MEMCACHE_SIZE=1: $(counter inode_tracker.n_known) inodes remembered" \
  "($(counter inode_tracker.sz_bytes) bytes), $(counter inode_tracker.n_evicted) dropped," \
  "$(counter inode_tracker.n_rebuilt) rebuilt"
[ "$(counter inode_tracker.sz_bytes)" -le $((1 << 20)) ] ||
  check_failed "inode_tracker.sz_bytes is over CVMFS_MEMCACHE_SIZE=1 (1 MiB)"
[ "$(counter inode_tracker.n_evicted)" -gt 0 ] && [ "$(counter inode_tracker.n_rebuilt)" -gt 0 ] ||
  check_failed "CVMFS_MEMCACHE_SIZE=1: no inode was dropped and rebuilt"
finish
