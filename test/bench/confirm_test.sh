#!/usr/bin/env bash
# Unit test of the suite's confirmation of "prefetch on was slower" and of
# "ours was slower than the real client" (test/bench/suite/confirm.sh,
# report.py --candidates and its verdicts):
# the flagged measurements are listed, measured again with the states they
# depend on, those the new pairs find slower are measured a second time, and
# the report counts one as slower only if both rounds say so. Needs bash and python3: the measurements are stubs and tables.
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
  test "$candidates" = "$(printf 'states\tcompile\t-\tHOT\t0\tours-nopf\nlatency\ttar\tlinux/fs/xfs\tCOLD\t50\tours-nopf')"

# confirm.sh with stub measurements: which states it runs, where, in which order.
note() { :; }
fail() { echo "FAIL: $name: $*" >&2; exit 1; }
record_header() { printf "$header" >"$BENCH_RAW"; }
calls=()
bench_condition() { calls+=("net $1"); }
section_condition() { bench_condition "$2"; }
# The stub records the call and a measurement of the last state: compile
# as fast with prefetch as without, tar 10% slower with it.
run_states() {
  calls+=("$* tree=$WORKLOAD_TREE raw=${BENCH_RAW##*/}")
  local t=1.0 states=("${@:6}") param=-
  [ "$2" != tar ] || param=$WORKLOAD_TREE
  [ "$2" != tar ] || [ "$3" != ours ] || t=1.1
  row "$1" "$2" "$param" "$3" "${states[-1]}" "$4" "$5" $t >>"$BENCH_RAW"
}
WORK=$work BENCH_RAW=$OUT/raw.tsv WORKLOAD_TREE=linux BENCH_SUITE_DIR=$here/suite
BENCH_SYSTEMS="local ours ours-nopf"
. "$here/suite/confirm.sh"
section_confirm 5
# Round REPS TABLE CASE...: the calls of one round, a case being
# "SECTION WORKLOAD STATES COND TREE".
round() {
  local table=$1 c rep section w states cond tree
  shift
  for c in "$@"; do
    read -r section w states cond tree <<<"$c"
    echo "net $cond"
    for rep in 1 2 3 4 5; do
      if [ $((rep % 2)) -eq 1 ]; then order="ours ours-nopf"; else order="ours-nopf ours"; fi
      for sys in $order; do
        echo "$section $w $sys $cond $rep ${states//,/ } tree=$tree raw=$table"
      done
    done
  done
  echo "net 0"
}
compile_case="states compile COLD,HOT 0 linux"
tar_case="latency tar COLD 50 linux/fs/xfs"
check "each candidate is measured again with the states before it, alternating" \
  test "$(printf '%s\n' "${calls[@]}" | grep -c raw=confirm.tsv)" -eq 20
check "the first round measures both candidates; the second, what the first confirmed" \
  test "$(printf '%s\n' "${calls[@]}")" = \
  "$(round confirm.tsv "$compile_case" "$tar_case"; round replicate.tsv "$tar_case")"
check "the main table is written to again afterwards" test "$BENCH_RAW" = "$OUT/raw.tsv"
python3 "$here/suite/report.py" "$OUT" >/dev/null
check "the stub's tar is confirmed in both rounds" \
  grep -q "latency tar (linux/fs/xfs) COLD at 50 ms:.*on slower in 5 of 5 (sign test p = 0.03); a second round 5 times: on/off 1.10x, on slower in 5 of 5 (sign test p = 0.03): \*\*confirmed slower\*\*" "$OUT/report.md"
calls=()
BENCH_SYSTEMS="local ours"
section_confirm 2
check "nothing is confirmed without ours-nopf or cvmfs" test ${#calls[@]} -eq 0

# Verdicts. compile HOT: equal again (on slower in 4 of 8); tar COLD at
# 50 ms: slower in 8 of 8 by 10%, and in a second round either again
# (confirmed) or equal (not replicated).
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
second_round() {  # second_round ON_SECONDS...: tar against 1.0 s without
  local rep=0 t
  printf "$header"
  for t in "$@"; do
    rep=$((rep + 1))
    row latency tar linux/fs/xfs ours COLD 50 $rep "$t"
    row latency tar linux/fs/xfs ours-nopf COLD 50 $rep 1.0
  done
}
second_round 1.1 1.1 1.1 1.2 1.1 1.1 1.1 0.9 >"$OUT/replicate.tsv"
python3 "$here/suite/report.py" "$OUT" >/dev/null
report=$OUT/report.md
check "compile HOT is not confirmed" \
  grep -q "states compile HOT at 0 ms:.*on slower in 4 of 8 (sign test p = 0.64): not confirmed$" "$report"
check "tar COLD at 50 ms is confirmed by both rounds" \
  grep -q "latency tar (linux/fs/xfs) COLD at 50 ms:.*on slower in 8 of 8 (sign test p = 0.00); a second round 8 times: on/off 1.10x, on slower in 7 of 8 (sign test p = 0.04): \*\*confirmed slower\*\*$" "$report"
check "the verdict counts one" grep -q "Prefetch on was slower than off in 1\*\* of the 2" "$report"
check "the confirmed case is measured a second time" \
  test "$(python3 "$here/suite/report.py" --confirmed "$OUT")" = "$(printf 'latency\ttar\tlinux/fs/xfs\tCOLD\t50\tours-nopf')"

second_round 1.1 0.9 1.1 0.9 1.1 0.9 1.1 1.1 >"$OUT/replicate.tsv"
python3 "$here/suite/report.py" "$OUT" >/dev/null
check "a first round the second does not repeat is not confirmed" \
  grep -q "on slower in 8 of 8 (sign test p = 0.00); a second round 8 times: .*on slower in 5 of 8 (sign test p = 0.36): not replicated, not confirmed$" "$report"
check "never slower then" grep -q "Prefetch on was never slower than off\*\*: none of the 2 measured again" "$report"

rm "$OUT/replicate.tsv"
python3 "$here/suite/report.py" "$OUT" >/dev/null
check "without a second round the first one's verdict stands" \
  grep -q "on slower in 8 of 8 (sign test p = 0.00): \*\*confirmed slower\*\* (no second round)$" "$report"

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
check "nothing to measure a second time" test -z "$(python3 "$here/suite/report.py" --confirmed "$OUT")"

# The daemons' CPU time and what prefetch fetched and left unread
# (daemon.tsv): the medians of the main round's repetitions; a
# confirmation round's rows do not count.
{
  printf 'table\tsection\tworkload\tparam\tsystem\tstate\tcondition\trep\tcpu_s\tprefetched_bytes\tused_bytes\tunread_bytes\n'
  printf 'raw\tlatency\ttar\tlinux/fs/xfs\tours\tCOLD\t50\t%s\t%s\t%s\t0\t%s\n' \
    1 0.50 1048576 0  2 0.70 2097152 1048576  3 0.60 3145728 5242880
  printf 'raw\tlatency\ttar\tlinux/fs/xfs\tours-nopf\tCOLD\t50\t%s\t0.40\t-\t-\t-\n' 1 2 3
  printf 'confirm\tlatency\ttar\tlinux/fs/xfs\tours\tCOLD\t50\t1\t9.00\t104857600\t0\t104857600\n'
} >"$OUT/daemon.tsv"
python3 "$here/suite/report.py" "$OUT" >/dev/null
check "the report says what prefetch fetched and left unread, and the CPU time" \
  grep -q "^| latency | tar (linux/fs/xfs) | COLD | 50 ms | .* | 2.0 MiB / 1.0 MiB | 0.60 / 0.40 s |$" "$report"
check "a measurement without daemon rows has none" \
  grep -q "^| states | compile | HOT | 0 ms | .* | - | - |$" "$report"

# Ours against the real client (system cvmfs): compile HOT looks 20% slower
# by the medians, fio randread 128k HOT 10% slower by bandwidth (value),
# pystart HOT is faster, ours-nopf is not in the run.
rm -f "$OUT/confirm.tsv" "$OUT/replicate.tsv" "$OUT/daemon.tsv"
fio_row() {  # fio_row SYSTEM REP BANDWIDTH
  printf 'fio\tfio\trandread/128k\t%s\tHOT\t0\t%s\t1.0\t2\t1000\tok\t%s\t-\n' "$@"
}
{
  printf "$header"
  for rep in 1 2; do
    row states compile - ours HOT 0 $rep 0.36
    row states compile - cvmfs HOT 0 $rep 0.30
    row states pystart - ours HOT 0 $rep 0.60
    row states pystart - cvmfs HOT 0 $rep 0.70
    fio_row ours $rep 225000000
    fio_row cvmfs $rep 250000000
  done
} >"$OUT/raw.tsv"
check "the cases slower than the real client are candidates" \
  test "$(python3 "$here/suite/report.py" --candidates "$OUT")" = \
  "$(printf 'states\tcompile\t-\tHOT\t0\tcvmfs\nfio\tfio\trandread/128k\tHOT\t0\tcvmfs')"
calls=()
BENCH_SYSTEMS="local ours cvmfs"
section_confirm 1
check "they are measured again with the real client, ours first in odd repetitions" \
  test "$(printf '%s\n' "${calls[@]}" | grep -c "raw=confirm.tsv")" -eq 4
check "a fio case is measured with its pattern" \
  test "$(printf '%s\n' "${calls[@]}" | grep -c "^fio fio cvmfs 0 1 COLD HOT ")" -eq 1
rm -f "$OUT/confirm.tsv" "$OUT/replicate.tsv"  # the stub's rows
python3 "$here/suite/report.py" "$OUT" >/dev/null
check "not measured again: the medians decide" \
  grep -q "^| every COLD/HOT/PGCACHE case vs the real client | slower in 2 of 3 .* | \*\*FAIL\*\* |$" "$report"
# Measured again: compile equal (ours slower in 4 of 8), fio 10% slower in
# 8 of 8 and again in the second round.
{
  printf "$header"
  for rep in 1 2 3 4 5 6 7 8; do
    if [ $((rep % 2)) -eq 0 ]; then a=0.31 b=0.30; else a=0.30 b=0.31; fi
    row states compile - ours HOT 0 $rep $a
    row states compile - cvmfs HOT 0 $rep $b
    fio_row ours $rep 225000000
    fio_row cvmfs $rep 250000000
  done
} >"$OUT/confirm.tsv"
{
  printf "$header"
  for rep in 1 2 3 4 5 6 7 8; do
    fio_row ours $rep 220000000
    fio_row cvmfs $rep 250000000
  done
} >"$OUT/replicate.tsv"
check "the second round measures the confirmed fio case only" \
  test "$(python3 "$here/suite/report.py" --confirmed "$OUT")" = "$(printf 'fio\tfio\trandread/128k\tHOT\t0\tcvmfs')"
python3 "$here/suite/report.py" "$OUT" >/dev/null
check "an unconfirmed case is set aside, a confirmed one counts" \
  grep -q "^| every COLD/HOT/PGCACHE case vs the real client | slower in 1 of 3 (worst: fio randread/128k HOT at 0 ms, 1.11x); 1 more looked slower by the medians and were not confirmed when measured again | .* | \*\*FAIL\*\* |$" "$report"
check "the list says why" \
  grep -q "states: compile HOT: ours 0.360 s, CVMFS HOT 0.300 s .*ours/CVMFS 1.00x, ours slower in 4 of 8 (sign test p = 0.64): not confirmed$" "$report"
# The fio case equal in the second round: nothing slower.
{
  printf "$header"
  for rep in 1 2 3 4 5 6 7 8; do
    fio_row ours $rep $((240000000 + (rep % 2) * 20000000))
    fio_row cvmfs $rep 250000000
  done
} >"$OUT/replicate.tsv"
python3 "$here/suite/report.py" "$OUT" >/dev/null
check "both set aside: the target passes" \
  grep -q "^| every COLD/HOT/PGCACHE case vs the real client | slower in 0 of 3; 2 more looked slower .* | \*\*pass\*\* |$" "$report"

check_done
