# The repository the interop tests publish with our cvmfs_server (sourced
# after common.sh and publish.sh; not a test itself).
#
#   interop_tree_a DIR     revision A: every entry kind (a 20 MiB file in
#                          content-defined chunks, nested catalogs, hardlinks,
#                          user.* xattrs, a fifo, variant and other symlinks,
#                          odd names, an empty file and directory, a 24-level
#                          deep path)
#   interop_tree_b DIR     revision B: edits, deletions, additions on DIR
#   interop_republish FQRN SRC BASE
#                          replaces BASE with SRC in one new revision
#   interop_expected SRC   SRC's listing as a CVMFS client shows it (variant
#                          symlinks expanded)

interop_tree_a() {
  local t=$1 i
  mkdir -p "$t"/{small,large,links,special,hard,xattr,names,many,empty-dir}
  : >"$t/empty"
  echo "hello, world" >"$t/small/hello.txt"
  for i in $(seq 0 9); do printf 'small file %d\n' "$i" >"$t/small/f$i.txt"; done
  printf 'same content\n' >"$t/small/dup1"
  printf 'same content\n' >"$t/small/dup2"
  # Above the 16 MiB maximum chunk size: several content-defined chunks.
  make_random_file "$t/large/random-20m.bin" $((20 * 1024 * 1024)) interop-20m
  make_random_file "$t/large/3m.bin" $((3 * 1024 * 1024)) interop-3m
  # Large and compressible: stays zlib where the random ones are stored
  # uncompressed (doc/format.md, "Objects").
  seq 1 400000 >"$t/large/text-2m.txt"

  ln -s ../small/hello.txt "$t/links/relative"
  ln -s /etc/hostname "$t/links/absolute"
  ln -s does-not-exist "$t/links/dangling"
  ln -s '$(CVMFS_ARCH)/lib' "$t/links/variant"
  ln -s '$(INTEROP_UNSET_VARIABLE:-default)/lib' "$t/links/variant-default"

  mkfifo "$t/special/fifo"

  echo "linked" >"$t/hard/a"
  ln "$t/hard/a" "$t/hard/b"
  ln "$t/hard/a" "$t/hard/c"
  echo "not linked" >"$t/hard/d"

  echo "with attributes" >"$t/xattr/tagged.txt"
  setfattr -n user.foo -v bar "$t/xattr/tagged.txt"
  setfattr -n user.empty "$t/xattr/tagged.txt"
  setfattr -n user.binary -v 0x00ff10 "$t/xattr/tagged.txt"
  mkdir "$t/xattr/dir"
  setfattr -n user.dirattr -v on-a-directory "$t/xattr/dir"

  mkdir -p "$t/nested/inner/deeper" "$t/nested/other"
  : >"$t/nested/.cvmfscatalog"
  : >"$t/nested/inner/.cvmfscatalog"
  echo "in the first nested catalog" >"$t/nested/one.txt"
  echo "in the second nested catalog" >"$t/nested/inner/two.txt"
  echo "below the second" >"$t/nested/inner/deeper/three.txt"
  echo "to be removed" >"$t/nested/other/gone.txt"
  ln -s ../../small/hello.txt "$t/nested/inner/up-link"

  echo spaces >"$t/names/name with spaces.txt"
  echo utf8 >"$t/names/café-日本.txt"
  echo dash >"$t/names/-leading-dash"
  echo long >"$t/names/$(printf 'L%.0s' $(seq 1 251)).txt"

  for i in $(seq -w 0 299); do echo "$i" >"$t/many/e$i"; done
  chmod 700 "$t/many"
  chmod 600 "$t/small/f1.txt"
  chmod 755 "$t/small/f2.txt"

  local d=$t/deep
  for i in $(seq -w 0 23); do d=$d/d$i; done
  mkdir -p "$d" && echo leaf >"$d/leaf.txt"
  _interop_times "$t"
}

interop_tree_b() {
  local t=$1 i
  echo "hello, revision B" >"$t/small/hello.txt"
  rm -f "$t/small/f3.txt" "$t/small/dup2"
  mv "$t/small/f4.txt" "$t/small/moved4.txt"
  make_random_file "$t/large/random-20m.bin" $((18 * 1024 * 1024)) interop-18m-b
  rm -rf "$t/nested/inner" "$t/deep/d00/d01"
  echo "edited in B" >"$t/nested/one.txt"
  mkdir -p "$t/added-b/sub"
  : >"$t/added-b/.cvmfscatalog"
  echo "new in B" >"$t/added-b/sub/new.txt"
  ln -sfn target-B "$t/links/dangling"
  rm -f "$t/hard/c"
  setfattr -n user.changed -v B "$t/xattr/tagged.txt"
  for i in $(seq -w 0 49); do rm -f "$t/many/e$i"; done
  chmod 755 "$t/many"
  _interop_times "$t"
}

# Fixed mtimes (directories last: creating entries changes them).
_interop_times() {
  find "$1" ! -type d -exec touch -h -d @1700000000 {} +
  touch -h -d @1600000000 "$1/small/hello.txt" "$1/links/relative"
  find "$1" -depth -type d -exec touch -d @1700000100 {} +
}

interop_republish() {
  local fqrn=$1 src=$2 base=$3 tarball=$WORK/republish.tar log=$WORK/republish.log
  tar --format=posix --xattrs --xattrs-include='user.*' --numeric-owner \
    -C "$src" -cf "$tarball" . || fail "could not tar $src"
  "$BIN/cvmfs_server" ingest -t "$tarball" -b "$base" -d "$base" "$fqrn" >"$log" 2>&1 ||
    fail "cvmfs_server ingest -d $base of $src into $fqrn failed: $(cat "$log")"
  rm -f "$tarball"
  note "republished $src as $fqrn:/$base (revision $(manifest_field "$fqrn" S))"
}

interop_expected() {
  python3 "$TESTLIB_DIR/listing.py" "$1" | awk -F'\t' -v OFS='\t' -v arch="$(uname -m)" '
    $1 ~ /(^|\/)links\/variant$/ { $6 = arch "/lib"; $4 = length($6) }
    $1 ~ /(^|\/)links\/variant-default$/ { $6 = "default/lib"; $4 = length($6) }
    { print }'
}
