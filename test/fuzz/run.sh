#!/usr/bin/env bash
# Runs every libFuzzer target of a CVMFS_FUZZ=ON build on its seed corpus
# for a while (doc/testing.md, "Fuzzing").
#
#   test/fuzz/run.sh BUILD_DIR [SECONDS_PER_TARGET]     (default 20)
#   FUZZ_TARGETS="manifest_fuzzer whitelist_fuzzer" test/fuzz/run.sh ...
#
# Each target starts from test/fuzz/corpus/<target>/ (read only: new inputs
# go to a scratch corpus under FUZZ_WORK_DIR, default a temporary directory)
# and prints one line: runs, execs/s, coverage, result. Exits 1 if any
# target crashed, leaked, timed out or made a sanitizer report; the input
# that did it is kept in FUZZ_WORK_DIR/<target>/ with the command that
# reproduces it. Exits 2 on usage errors.
set -uo pipefail

usage() { echo "usage: $0 BUILD_DIR [SECONDS_PER_TARGET]" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
build=$(cd "$1" 2>/dev/null && pwd) || usage
seconds=${2:-20}
[[ "$seconds" =~ ^[0-9]+$ ]] || usage
src=$(cd "$(dirname "$0")/../.." && pwd)
corpora=$src/test/fuzz/corpus
fuzz_dir=$build/fuzz
if [ ! -d "$fuzz_dir" ]; then
  echo "$0: no $fuzz_dir: configure with -DCVMFS_FUZZ=ON (clang) and build" >&2
  exit 2
fi

keep_work=yes
work=${FUZZ_WORK_DIR:-}
if [ -z "$work" ]; then
  work=$(mktemp -d "${TMPDIR:-/tmp}/cvmfs-fuzz.XXXXXX")
  keep_work=no
fi
mkdir -p "$work"

# Fixtures for the targets that mount a repository (talk_commands_fuzzer).
export CVMFS_SOURCE_DIR=${CVMFS_SOURCE_DIR:-$src}
# Sanitizer reports are failures; leaks too (libFuzzer's -detect_leaks).
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

targets=${FUZZ_TARGETS:-$(cd "$corpora" && ls)}
failed=0
printf '%-24s %10s %9s %7s %7s  %s\n' target runs exec/s cov ft result
for t in $targets; do
  exe=$fuzz_dir/$t
  if [ ! -x "$exe" ]; then
    printf '%-24s %10s %9s %7s %7s  %s\n' "$t" - - - - "MISSING ($exe)"
    failed=1
    continue
  fi
  out=$work/$t
  rm -rf "$out"
  mkdir -p "$out/corpus"
  log=$out/log
  # cd: libFuzzer writes crash-*/leak-*/timeout-* into -artifact_prefix.
  (cd "$out" && "$exe" -max_total_time="$seconds" -timeout=10 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/" \
      "$out/corpus" "$corpora/$t" >"$log" 2>&1)
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  artifacts=$(ls "$out" | grep -E '^(crash|leak|timeout|oom|slow-unit)-' || true)
  if [ $rc -eq 0 ] && [ -z "$artifacts" ] &&
     ! grep -qE 'ERROR: (Address|Leak|Undefined)Sanitizer|runtime error:' "$log"; then
    result=ok
  else
    failed=1
    result="FAILED (exit $rc)"
  fi
  printf '%-24s %10s %9s %7s %7s  %s\n' "$t" "${runs:--}" "${speed:--}" \
    "${cov:--}" "${ft:--}" "$result"
  if [ "$result" != ok ]; then
    keep_work=yes
    grep -E 'ERROR:|runtime error:|==[0-9]+==|Test unit written|SUMMARY' "$log" |
      head -8 | sed 's/^/    /'
    for a in $artifacts; do
      echo "    input: $out/$a"
      echo "    reproduce: CVMFS_SOURCE_DIR=$src $exe $out/$a"
    done
    echo "    log: $log"
  fi
done

if [ "$keep_work" = no ]; then
  rm -rf "$work"
else
  echo "work directory (scratch corpora, logs, failing inputs): $work"
fi
exit $failed
