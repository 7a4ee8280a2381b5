# The confirmation section: where the run found our client with prefetch on
# slower than with it off, or ours slower than the real CVMFS client in a
# COLD, HOT or PGCACHE state (report.py --candidates: median more than 5%
# above), that measurement is made again $1 times, the two systems back to
# back in alternating order, into confirm.tsv; those the new pairs find
# slower (report.py --confirmed: a sign test over them) are made $1 times
# more, into replicate.tsv. report.py counts ours as slower only where both
# rounds say so: with 3 repetitions, one in eight comparisons of two equal
# systems comes out slower in all three by chance, a run makes about 90 of
# them, and a single round of tests at 5% over the ten or so flagged would
# still confirm one every few runs.
#
# Each re-measurement runs the states it depends on (a HOT run needs the
# COLD one before it), with the candidate's network condition, tree and
# fio pattern. An interrupted run (--resume) measures them all again.
#
#   section_confirm REPS

section_confirm() {
  local reps=$1
  [[ " $BENCH_SYSTEMS " == *" ours "* ]] || return 0
  [[ " $BENCH_SYSTEMS " == *" ours-nopf "* || " $BENCH_SYSTEMS " == *" cvmfs "* ]] || return 0
  [ "$reps" -gt 0 ] || return 0
  _confirm_round "$reps" --candidates confirm.tsv "confirm"
  _confirm_round "$reps" --confirmed replicate.tsv "second round"
}

# _confirm_round REPS REPORT_OPTION TABLE LABEL: measures what
# `report.py REPORT_OPTION` lists again, REPS pairs each, into $OUT/TABLE.
_confirm_round() {
  local reps=$1 option=$2 table=$3 label=$4 saved_raw=$BENCH_RAW saved_tree=$WORKLOAD_TREE
  local section w param state cond other states rep sys n=0 total list=$WORK/confirm-$3.list
  /usr/bin/python3 "$BENCH_SUITE_DIR/report.py" "$option" "$OUT" >"$list" ||
    fail "report.py could not list the measurements to measure again ($option)"
  total=$(wc -l <"$list")
  BENCH_RAW=$OUT/$table
  record_header
  while IFS=$'\t' read -r section w param state cond other; do
    n=$((n + 1))
    case $state in
      COLD) states="COLD" ;;
      HOT) states="COLD HOT" ;;
      PGCACHE) states="COLD HOT PGCACHE" ;;
      *) continue ;;
    esac
    case $w in
      tar | find | ls | readers) WORKLOAD_TREE=$param ;;
      fio) FIO_RW=${param%/*} FIO_BS=${param#*/} ;;
    esac
    section_condition "$section" "$cond"
    for rep in $(seq "$reps"); do
      note "$label $n/$total: $section $w $param $state at $cond against $other, repetition $rep/$reps"
      for sys in $(_confirm_order "$rep" "$other"); do
        run_states "$section" "$w" "$sys" "$cond" "$rep" $states
      done
    done
  done <"$list"
  BENCH_RAW=$saved_raw
  WORKLOAD_TREE=$saved_tree
  bench_condition 0
}

# _confirm_order REP OTHER: ours first in odd repetitions, OTHER first in
# even ones.
_confirm_order() {
  if [ $(($1 % 2)) -eq 1 ]; then echo ours "$2"; else echo "$2" ours; fi
}
