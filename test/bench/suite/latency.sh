# The network section (the CVMFS measurements): the time of a cold start
# (COLD) and of a start from a populated cache (HOT) under each network
# condition, against LOCAL-cold measured in the same condition loop. tar
# walks the smaller tree $LATENCY_TREE here: every file of it costs at least
# one round trip when cold.
#
#   section_latency "CONDITION..." WORKLOAD...

section_latency() {
  local conds=$1 cond rep w sys saved_tree=$WORKLOAD_TREE
  shift
  WORKLOAD_TREE=$LATENCY_TREE
  for cond in $conds; do
    bench_condition "$cond"
    for rep in $(seq "$BENCH_REPS"); do
      for w in "$@"; do
        ! resume_done latency "$w" "$(workload_param "$w")" "$cond" "$rep" || continue
        note "latency: $w at condition $cond, repetition $rep/$BENCH_REPS"
        for sys in $(systems_in_order "$rep"); do
          run_states latency "$w" "$sys" "$cond" "$rep" COLD HOT
        done
      done
    done
  done
  WORKLOAD_TREE=$saved_tree
  bench_condition 0
}
