# The publish section: cvmfs_server ingest of the corpus's Linux tree into a
# fresh repository (first), of the same tarball again (again: nothing
# changes, everything is read, hashed and found present), and of a tarball
# holding one modified file (onefile: linux/fs/Makefile with a line added).
# /usr/bin/time gives the wall time and the peak RSS. Recorded: PARAM is
# "FILES:BYTES" of the input tarball, VALUE the peak RSS in KiB.
#
#   section_publish

_publish_timed() {  # _publish_timed NAME REP FQRN TARBALL FILES BASE
  local name=$1 rep=$2 fqrn=$3 tarball=$4 files=$5 base=$6 rc=0 status=ok
  local out=$WORK/publish-$name.out
  /usr/bin/time -f '%e %M' -o "$WORK/publish.time" \
    "$BIN/cvmfs_server" ingest -t "$tarball" -b "$base" "$fqrn" >"$out" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    status=exit$rc
    echo "bench: publish $name failed with status $rc: $(tail -n 3 "$out")" >&2
  fi
  local seconds rss
  read -r seconds rss < <(tail -n 1 "$WORK/publish.time")
  record publish "$name" "$files:$(stat -c %s "$tarball")" ours - - "$rep" \
    "$seconds" 0 0 "$status" "$rss" -
}

section_publish() {
  local src=$BENCH_TREE/linux dir=$WORK/publish rep fqrn files
  mkdir -p "$dir/onefile/fs"
  note "publish: packing $src (not timed)"
  tar --format=posix -C "$src" -cf "$dir/linux.tar" .
  files=$(find "$src" -type f | wc -l)
  cp -p "$src/fs/Makefile" "$dir/onefile/fs/Makefile"
  echo "# changed by the benchmark suite" >>"$dir/onefile/fs/Makefile"
  tar --format=posix -C "$dir/onefile" -cf "$dir/onefile.tar" fs/Makefile
  for rep in $(seq "$BENCH_REPS"); do
    ! resume_done publish - - - "$rep" || continue
    note "publish: repetition $rep/$BENCH_REPS"
    fqrn=publish$rep.bench.example.org
    "$BIN/cvmfs_server" mkfs "$fqrn" >"$dir/mkfs.out" 2>&1 ||
      fail "cvmfs_server mkfs $fqrn failed: $(cat "$dir/mkfs.out")"
    drop_caches
    _publish_timed first "$rep" "$fqrn" "$dir/linux.tar" "$files" linux
    _publish_timed again "$rep" "$fqrn" "$dir/linux.tar" "$files" linux
    _publish_timed onefile "$rep" "$fqrn" "$dir/onefile.tar" 1 linux
    "$BIN/cvmfs_server" rmfs -f "$fqrn" >/dev/null 2>&1 ||
      echo "bench: could not remove $fqrn" >&2
  done
  rm -f "$dir/linux.tar"
}
