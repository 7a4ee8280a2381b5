#!/usr/bin/env bash
# Smoke test of the benchmark suite: `test/bench/run --quick` must run every
# section and produce a report with its plots. The numbers are not judged
# (this machine is shared and noisy); doc/benchmarks.md explains the suite.
# --confirm 1 measures each flagged case once more (the quick default is no
# confirmation; 8 pairs per case took the run past its time limit).
# Skips (77) unless root with FUSE, like the suite itself.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=suite_smoke_test
if [ "$(id -u)" -ne 0 ] || [ ! -c /dev/fuse ]; then
  echo "SKIP: $name: needs root and /dev/fuse (the suite mounts file systems)" >&2
  exit 77
fi
out=$(mktemp -d /tmp/cvmfs-bench-smoke.XXXXXX)
trap 'rm -rf "$out"' EXIT

rc=0
timeout --kill-after=20 560 "$here/run" --quick --confirm 1 --results "$out" >"$out/run.log" 2>&1 || rc=$?
if [ "$rc" -eq 77 ]; then
  grep '^SKIP' "$out/run.log" >&2 || echo "SKIP: $name: the suite skipped" >&2
  exit 77
fi
if [ "$rc" -ne 0 ]; then
  echo "FAIL: $name: test/bench/run --quick exited with status $rc; last lines:" >&2
  grep -v '^{' "$out/run.log" | tail -n 40 >&2
  exit 1
fi

failures=0
check() {  # check DESCRIPTION CMD...
  local what=$1
  shift
  "$@" || { echo "FAIL: $name: $what" >&2; failures=$((failures + 1)); }
}
run_dir=$(find "$out" -mindepth 1 -maxdepth 1 -type d -name '*-quick' | head -n 1)
check "no results folder in $out" test -n "$run_dir"
report=$run_dir/report.md
check "$report missing" test -s "$report"
for heading in "## Summary" "## Cache states" "## Network conditions" "## Servers" "## Record sizes" "## Publishing"; do
  check "report has no '$heading' section" grep -q "^$heading" "$report"
done
for plot in latency.png fio.png; do
  check "$plot missing or not a PNG" bash -c "head -c 8 '$run_dir/$plot' | grep -q PNG"
done
# Our client took part in every section (a measurement, not necessarily fast).
for section in states latency servers fio publish snapshot; do
  check "raw.tsv has no successful $section measurement of ours" \
    awk -F'\t' -v s="$section" '$1 == s && $4 == "ours" && $11 == "ok" { found = 1 } END { exit !found }' \
    "$run_dir/raw.tsv"
done
# The real CVMFS client took part (from ../shared/reference) where there is one.
if [ -f "$here/../../../shared/reference/cvmfs-2.12-real-debian12-amd64.tar.xz" ]; then
  check "raw.tsv has no successful measurement of the real client" \
    awk -F'\t' '$4 == "cvmfs" && $11 == "ok" { found = 1 } END { exit !found }' "$run_dir/raw.tsv"
fi
# The peak connections of our COLD runs, and the issue's targets.
check "raw.tsv has no peak connection count of ours under the small server" \
  awk -F'\t' '$1 == "servers" && $4 == "ours" && $5 == "COLD" && $6 == "small" && $14 ~ /^[0-9]+$/ { found = 1 } END { exit !found }' \
    "$run_dir/raw.tsv"
check "no confirm.tsv (the confirmation section did not run)" test -s "$run_dir/confirm.tsv"
check "the summary has no targets table" grep -q "^| small server: our peak connections" "$report"
# Our client's CPU time and prefetch counters were recorded after its
# measurements.
check "daemon.tsv has no CPU time and prefetch counters of ours" \
  awk -F'\t' '$1 == "raw" && $5 == "ours" && $9 ~ /^[0-9.]+$/ && $10 ~ /^[0-9]+$/ && $12 ~ /^[0-9]+$/ { found = 1 } END { exit !found }' \
    "$run_dir/daemon.tsv"
# The README's summary block can be filled from this report.
printf '# x\n<!-- bench-summary:start -->\nnone yet\n<!-- bench-summary:end -->\n' >"$out/README.md"
check "readme_summary.py failed" "$here/readme_summary.py" "$run_dir" "$out/README.md"
check "readme_summary.py did not put the summary into the README" \
  grep -q "^Latest quick run, 1 repetition: .*report.md" "$out/README.md"
[ "$failures" -eq 0 ] || exit 1
echo "PASS: $name: report with every section and both plots ($(grep -c . "$run_dir/raw.tsv") measurements)"
