#!/usr/bin/env bash
# Unit test of `test/bench/run --resume` (test/bench/suite/resume.sh): on a
# raw.tsv cut off in the middle of a group, the complete groups are kept and
# skipped, the incomplete last group is dropped to be measured again, and
# timeouts already recorded still skip the measurements they predict.
# Needs nothing but bash and awk: the measurements are stubs.
set -euo pipefail
name=resume_test
. "$(dirname "$0")/unit_check.sh"

note() { :; }
skipped=()
measured=()
skip_record() { skipped+=("$1|$2|$3|$4|$5|$6|$7"); }
measure() { measured+=("$1|$2|$3|$4|$5|$6|$7"); }
. "$here/suite/states.sh"
. "$here/suite/resume.sh"

raw=$work/raw.tsv
{
  printf 'section\tworkload\tparam\tsystem\tstate\tcondition\trep\tseconds\trequests\tbytes\tstatus\tvalue\tmount_s\n'
  printf 'states\ttar\tlinux\tlocal\tLOCAL-cold\t0\t1\t9.1\t0\t0\tok\t-\t-\n'
  printf 'states\ttar\tlinux\tours\tCOLD\t0\t1\t30.2\t100\t999\tok\t-\t0.1\n'
  printf 'latency\ttar\tfs\trclone\tCOLD\t10\t1\t90.0\t5\t5\ttimeout\t-\t0.1\n'
  printf 'latency\ttar\tfs\tours\tCOLD\t10\t1\t1.2\t5\t5\tok\t-\t0.1\n'
  printf 'publish\tfirst\t10:100\tours\t-\t-\t1\t12.0\t0\t0\tok\t1000\t-\n'
  printf 'publish\tagain\t10:100\tours\t-\t-\t1\t3.0\t0\t0\tok\t1000\t-\n'
  printf 'latency\tcompile\t-\tours\tCOLD\t10\t1\t0.3\t5\t5\tok\t-\t0.1\n'
  printf 'latency\tcompile\t-\tours\tHOT\t10\t1\t0.2\t2\t2\tok\t-\t0.1\n'
} >"$raw"
daemon=$work/daemon.tsv
{
  printf 'table\tsection\tworkload\tparam\tsystem\tstate\tcondition\trep\tcpu_s\tprefetched_bytes\tused_bytes\tunread_bytes\n'
  printf 'raw\tstates\ttar\tlinux\tours\tCOLD\t0\t1\t2.00\t10\t10\t0\n'
  printf 'raw\tlatency\tcompile\t-\tours\tCOLD\t10\t1\t0.10\t5\t5\t0\n'
  printf 'confirm\tlatency\ttar\tfs\tours\tCOLD\t10\t1\t0.20\t5\t5\t0\n'
} >"$daemon"
resume_load "$raw"

check "the last group (latency compile 10 rep 1) is dropped" \
  test "$(grep -c compile "$raw")" -eq 0
check "the other rows stay" test "$(($(wc -l <"$raw") - 1))" -eq 6
check "daemon.tsv keeps the header and the complete groups' rows" \
  test "$(cut -f1-3 "$daemon" | tr '\t\n' ' ;')" = "table section workload;raw states tar;"
check "a complete states group is done" resume_done states tar linux 0 1
check "a complete latency group is done" resume_done latency tar fs 10 1
check "the dropped group is not done" eval '! resume_done latency compile - 10 1'
check "another repetition is not done" eval '! resume_done states tar linux 0 2'
check "a publish repetition is done as a whole" resume_done publish - - - 1
check "the next publish repetition is not" eval '! resume_done publish - - - 2'

# rclone timed out at 10 ms: at 50 ms it is skipped, ours is measured.
_measure_state latency tar fs rclone COLD 50 2 || true
_measure_state latency tar fs ours COLD 50 2 || true
check "a recorded timeout skips a higher latency" \
  test "${skipped[*]:-}" = "latency|tar|fs|rclone|COLD|50|2"
check "what did not time out is measured" \
  test "${measured[*]:-}" = "latency|tar|fs|ours|COLD|50|2"

check_done
