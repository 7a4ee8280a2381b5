#!/usr/bin/env bash
# Unit test of the issue-25 targets table at the top of the report's Summary
# (test/bench/suite/report.py): each target's row, its measured values and
# its pass/FAIL verdict, from a synthetic raw.tsv. Needs bash and python3.
set -euo pipefail
name=targets_test
. "$(dirname "$0")/unit_check.sh"

OUT=$work/run
mkdir -p "$OUT"
row() {  # row SECTION WORKLOAD PARAM SYSTEM STATE COND SECONDS VALUE PEAK
  printf '%s\t%s\t%s\t%s\t%s\t%s\t1\t%s\t10\t1000\tok\t%s\t-\t%s\n' "$@"
}
{
  printf 'section\tworkload\tparam\tsystem\tstate\tcondition\trep\tseconds\trequests\tbytes\tstatus\tvalue\tmount_s\tpeak_conns\n'
  row servers tar linux/fs ours COLD small 0.50 - 12
  row servers tar linux/fs cvmfs COLD small 0.40 - 2
  row servers tar linux/fs ours COLD squid 1.00 - 9
  row servers tar linux/fs ours COLD squid@10 1.50 - 9
  row servers tar linux/fs ours COLD squid@50 5.00 - 9
  row latency tar linux/fs ours COLD 0 1.00 - 8
  row latency tar linux/fs ours COLD 10 2.50 - 8
  row latency tar linux/fs ours COLD 50 3.00 - 8
  row states tar linux ours COLD 0 3.00 - 8
  row states tar linux local LOCAL-cold 0 2.00 - -
  row states tar linux ours HOT 0 1.00 - -
  row states tar linux cvmfs HOT 0 1.00 - -
  row states bigseq - ours COLD 0 0.40 - 4
  row states bigseq - rclone NONE 0 0.50 - -
  row fio fio read/1m ours COLD 0 1.0 400000000 4
  row fio fio read/1m rclone NONE 0 1.0 500000000 -
  row snapshot snapshot - ours COLD 0 1.2 50000000 -
  row snapshot cp-a - local LOCAL-cold 0 1.0 60000000 -
} >"$OUT/raw.tsv"
printf 'date\t2026-11-28 00:00 UTC\ncommit\tabc1234\nscale\tquick\nreps\t1\ncorpus_big\t1 268435456\n' >"$OUT/meta.tsv"
/usr/bin/python3 "$here/suite/report.py" "$OUT" >/dev/null 2>&1 ||
  /usr/bin/python3 "$here/suite/report.py" "$OUT"
report=$OUT/report.md
has() {  # has VERDICT TEXT: a targets row containing TEXT ends with VERDICT
  grep -F -- "$2" "$report" | grep -q -- "| \*\*$1\*\* |\$"
}
check "small server: slower than the real client fails" has FAIL "small server: COLD tar of \`linux/fs\` vs the real client | 0.500 s vs 0.400 s (1.25x)"
check "small server: 12 connections pass" has pass "small server: our peak connections (COLD tar) | 12 |"
check "Apache +10 ms at 2.5x fails" has FAIL "Apache: COLD tar of \`linux/fs\` at +10 ms vs our +0 ms | 2.500 s vs 1.000 s (2.50x)"
check "Apache +50 ms at 3x passes" has pass "Apache: COLD tar of \`linux/fs\` at +50 ms"
check "Squid +10 ms at 1.5x passes" has pass "Squid: COLD tar of \`linux/fs\` at +10 ms"
check "Squid +50 ms at 5x fails" has FAIL "Squid: COLD tar of \`linux/fs\` at +50 ms"
check "the whole tree at 1.5x of local passes" has pass "COLD tar of \`linux\` vs local cold | 3.000 s vs 2.000 s (1.50x)"
check "one case of two slower than the real client fails" has FAIL "vs the real client | slower in 1 of 2"
check "the big file at 671 MB/s, faster than rclone, passes" has pass "big file COLD (bigseq) | 671 MB/s (rclone 537 MB/s)"
check "fio read/1m below rclone fails" has FAIL "fio read/1m COLD vs rclone | 400 MB/s vs 500 MB/s"
check "the snapshot within 1.5x of cp -a passes" has pass "Stratum 1 snapshot of this repository | 50 MB/s in 1.200 s, 1.20x"
check_done
