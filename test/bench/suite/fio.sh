# The record-size section (the POHMELFS iozone runs): fio reads the big file
# sequentially and at random offsets with record sizes from 8 KiB to 1 MiB,
# through the plain read() path (psync engine, one job, no O_DIRECT), so that
# what is measured is the file system with the kernel's readahead, not fio.
#   seq: the whole file once      rand: $FIO_RAND_BYTES at seeded random offsets
# States: LOCAL-cold, NONE, COLD and HOT (see states.sh); PGCACHE would
# measure the page cache only. The value recorded is fio's read bandwidth.
#
#   section_fio CONDITION "RECORD_SIZE..."
#   fio_run ROOT          the workload "fio" with $FIO_RW and $FIO_BS

FIO_RW=${FIO_RW:-read}
FIO_BS=${FIO_BS:-1m}
FIO_RAND_BYTES=${FIO_RAND_BYTES:-$((64 << 20))}

fio_run() {
  local file=$1/big/big.bin io=()
  [ "$FIO_RW" = read ] || io=(--io_size="$FIO_RAND_BYTES" --randrepeat=1 --randseed=20261122)
  # --invalidate=0: the suite drops caches itself, per state.
  fio --name=bench --filename="$file" --readonly --rw="$FIO_RW" --bs="$FIO_BS" \
    --ioengine=psync --invalidate=0 "${io[@]}" --output-format=json \
    --output="$WORK/scratch/fio.json"
}

# The read bandwidth in bytes/s of the last fio run.
fio_bandwidth() {
  python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["jobs"][0]["read"]["bw_bytes"])' "$WORK/scratch/fio.json"
}

# Record sizes largest first: a timeout there gives up the smaller ones
# (states.sh, _measure_state).
section_fio() {
  local cond=$1 sizes rep rw bs sys
  sizes=$(for bs in $2; do echo "$(_record_bytes "$bs") $bs"; done | sort -rn | cut -d' ' -f2)
  section_condition fio "$cond"
  mkdir -p "$WORK/scratch"
  for rep in $(seq "$BENCH_REPS"); do
    for rw in read randread; do
      for bs in $sizes; do
        FIO_RW=$rw FIO_BS=$bs
        ! resume_done fio fio "$rw/$bs" "$cond" "$rep" || continue
        note "fio: $rw with $bs records, repetition $rep/$BENCH_REPS"
        for sys in $(systems_in_order "$rep"); do
          run_states fio fio "$sys" "$cond" "$rep" NONE COLD HOT
        done
      done
    done
  done
}
