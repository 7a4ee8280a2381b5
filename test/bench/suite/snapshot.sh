# The snapshot section: a Stratum 1 replicating the run's repository
# (`cvmfs_server add-replica` + a full `cvmfs_server snapshot` from Apache
# through toxiproxy at 0 ms), against `cp -a` of the same storage: issue
# 25's target is >= 100 MB/s, or within 1.5x of `cp -a` on the same disk.
# Both write into $BENCH_CACHES (the run's journaled ext4 image when there
# is one), both start with the page cache dropped. Recorded: the snapshot
# as ours/COLD, the copy as local/LOCAL-cold, VALUE the bytes stored per
# second (the snapshot's own count; for the copy, du's apparent size).
#
#   section_snapshot

section_snapshot() {
  local rep s1 out start end seconds bytes status rc copy
  for rep in $(seq "$BENCH_REPS"); do
    ! resume_done snapshot snapshot - 0 "$rep" || continue
    note "snapshot: repetition $rep/$BENCH_REPS"
    bench_condition 0
    s1=$BENCH_CACHES/stratum1 copy=$BENCH_CACHES/cp-a out=$WORK/snapshot.out
    rm -rf "$s1" "$copy"
    mkdir -p "$s1"
    CVMFS_ROOTDIR=$s1 "$BIN/cvmfs_server" add-replica "${BENCH_REPO_URL/@fqrn@/$BENCH_FQRN}" \
      "$(repo_public_key "$BENCH_FQRN")" >"$out" 2>&1 ||
      fail "cvmfs_server add-replica failed: $(tail -n 5 "$out")"
    drop_caches
    rc=0
    start=$(_now_ns)
    CVMFS_ROOTDIR=$s1 "$BIN/cvmfs_server" snapshot "$BENCH_FQRN" >"$out" 2>&1 || rc=$?
    end=$(_now_ns)
    seconds=$(_seconds_between "$start" "$end")
    status=ok bytes=-
    if [ "$rc" -ne 0 ]; then
      status=exit$rc
      echo "bench: snapshot failed with status $rc: $(tail -n 3 "$out")" >&2
    else
      # "copied N objects (X MB) in ..." (MB: 10^6 bytes)
      bytes=$(sed -n 's/^copied [0-9]* objects (\([0-9.]*\) MB).*/\1/p' "$out" |
        awk '{ printf "%.0f", $1 * 1e6 }')
    fi
    record snapshot snapshot - ours COLD 0 "$rep" "$seconds" 0 0 "$status" \
      "$(awk -v b="${bytes:-0}" -v s="$seconds" 'BEGIN { printf "%.0f", b / s }')" - -
    cat "$out" >>"$WORK/snapshot.log"
    drop_caches
    start=$(_now_ns)
    rc=0
    cp -a "$CVMFS_ROOTDIR/srv/cvmfs/$BENCH_FQRN" "$copy" || rc=$?
    end=$(_now_ns)
    seconds=$(_seconds_between "$start" "$end")
    bytes=$(du -sb --apparent-size "$copy" | cut -f1)
    status=ok
    [ "$rc" -eq 0 ] || status=exit$rc
    record snapshot cp-a - local LOCAL-cold 0 "$rep" "$seconds" 0 0 "$status" \
      "$(awk -v b="$bytes" -v s="$seconds" 'BEGIN { printf "%.0f", b / s }')" - -
    rm -rf "$s1" "$copy"
  done
}
