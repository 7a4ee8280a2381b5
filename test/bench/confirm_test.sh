#!/usr/bin/env bash
# Unit test of the suite's confirmation of "prefetch on was slower"
# (test/bench/suite/confirm.sh, report.py --candidates and its verdicts):
# the flagged measurements are listed, measured again with the states they
# depend on, and the report counts one as slower only if the new pairs say
# so. Needs bash and python3: the measurements are stubs and tables.
set -euo pipefail
name=confirm_test
. "$(dirname "$0")/unit_check.sh"

OUT=$work/run
mkdir -p "$OUT"
row() {  # row SECTION WORKLOAD PARAM SYSTEM STATE COND REP SECONDS
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t10\t1000\tok\t-\t-\n' "$@"
}
header='section\tworkload\tparam\tsystem\tstate\tcondition\trep\tseconds\trequests\tbytes\tstatus\tvalue\tmount_s\n'
{
  printf "$header"
  for rep in 1 2 3; do
    # compile HOT looks 20% slower with prefetch; pystart HOT 10% faster;
    # tar COLD at 50 ms 10% slower.
    row states compile - ours HOT 0 $rep 0.36
    row states compile - ours-nopf HOT 0 $rep 0.30
    row states pystart - ours HOT 0 $rep 0.72
    row states pystart - ours-nopf HOT 0 $rep 0.80
    row latency tar linux/fs/xfs ours COLD 50 $rep 1.1
    row latency tar linux/fs/xfs ours-nopf COLD 50 $rep 1.0
  done
} >"$OUT/raw.tsv"

candidates=$(python3 "$here/suite/report.py" --candidates "$OUT")
check "the two slower measurements are candidates" \
  test "$candidates" = "$(printf 'states\tcompile\t-\tHOT\t0\nlatency\ttar\tlinux/fs/xfs\tCOLD\t50')"

# confirm.sh with stub measurements: which states it runs, where, in which order.
note() { :; }
fail() { echo "FAIL: $name: $*" >&2; exit 1; }
record_header() { printf "$header" >"$BENCH_RAW"; }
calls=()
net_condition() { calls+=("net $1"); }
run_states() { calls+=("$* tree=$WORKLOAD_TREE raw=${BENCH_RAW##*/}"); }
WORK=$work BENCH_RAW=$OUT/raw.tsv WORKLOAD_TREE=linux BENCH_SUITE_DIR=$here/suite
BENCH_SYSTEMS="local ours ours-nopf"
. "$here/suite/confirm.sh"
section_confirm 2
want=(
  "net 0"
  "states compile ours 0 1 COLD HOT tree=linux raw=confirm.tsv"
  "states compile ours-nopf 0 1 COLD HOT tree=linux raw=confirm.tsv"
  "states compile ours-nopf 0 2 COLD HOT tree=linux raw=confirm.tsv"
  "states compile ours 0 2 COLD HOT tree=linux raw=confirm.tsv"
  "net 50"
  "latency tar ours 50 1 COLD tree=linux/fs/xfs raw=confirm.tsv"
  "latency tar ours-nopf 50 1 COLD tree=linux/fs/xfs raw=confirm.tsv"
  "latency tar ours-nopf 50 2 COLD tree=linux/fs/xfs raw=confirm.tsv"
  "latency tar ours 50 2 COLD tree=linux/fs/xfs raw=confirm.tsv"
  "net 0"
)
check "each candidate is measured again with the states before it, alternating" \
  test "$(printf '%s\n' "${calls[@]}")" = "$(printf '%s\n' "${want[@]}")"
check "the main table is written to again afterwards" test "$BENCH_RAW" = "$OUT/raw.tsv"
calls=()
BENCH_SYSTEMS="local ours"
section_confirm 2
check "nothing is confirmed without both on and off" test ${#calls[@]} -eq 0

# Verdicts. compile HOT: equal again (on slower in 4 of 8); tar COLD at
# 50 ms: slower in 8 of 8 by 10%.
{
  printf "$header"
  for rep in 1 2 3 4 5 6 7 8; do
    if [ $((rep % 2)) -eq 0 ]; then on=0.31 off=0.30; else on=0.30 off=0.31; fi
    row states compile - ours HOT 0 $rep $on
    row states compile - ours-nopf HOT 0 $rep $off
    row latency tar linux/fs/xfs ours COLD 50 $rep 1.1
    row latency tar linux/fs/xfs ours-nopf COLD 50 $rep 1.0
  done
} >"$OUT/confirm.tsv"
python3 "$here/suite/report.py" "$OUT" >/dev/null
report=$OUT/report.md
check "compile HOT is not confirmed" \
  grep -q "states compile HOT at 0 ms:.*on slower in 4 of 8 (sign test p = 0.64): not confirmed" "$report"
check "tar COLD at 50 ms is confirmed" \
  grep -q "latency tar (linux/fs/xfs) COLD at 50 ms:.*on slower in 8 of 8 (sign test p = 0.00): \*\*confirmed slower\*\*" "$report"
check "the verdict counts one" grep -q "Prefetch on was slower than off in 1\*\* of the 2" "$report"

# Nothing confirmed: the report says prefetch was never slower.
{
  printf "$header"
  for rep in 1 2 3 4 5 6 7 8; do
    row states compile - ours HOT 0 $rep 0.30
    row states compile - ours-nopf HOT 0 $rep 0.31
    row latency tar linux/fs/xfs ours COLD 50 $rep 1.0
    row latency tar linux/fs/xfs ours-nopf COLD 50 $rep 1.0
  done
} >"$OUT/confirm.tsv"
python3 "$here/suite/report.py" "$OUT" >/dev/null
check "never slower once none is confirmed" \
  grep -q "Prefetch on was never slower than off\*\*: none of the 2 measured again" "$report"

check_done
