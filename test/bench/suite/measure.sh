# Timing and traffic accounting of the benchmark suite (sourced by
# test/bench/run after apache.sh).
#
#   drop_caches                     sync, then drop page, dentry and inode caches
#   traffic_mark                    prints the current end of Apache's access log
#   traffic_since MARK              prints "REQUESTS BYTES" logged after MARK
#   record SECTION WORKLOAD PARAM SYSTEM STATE CONDITION REP SECONDS REQS BYTES STATUS VALUE MOUNT_S PEAK
#                                   appends one row to $BENCH_RAW
#   measured_mount SYSTEM MODE      system_mount, remembering where the access
#                                   log stood and how long the mount took
#   measure SECTION WORKLOAD PARAM SYSTEM STATE CONDITION REP
#                                   runs workload_run WORKLOAD $SYSTEM_ROOT timed
#                                   (VALUE: fio's bandwidth for fio, else -);
#                                   returns 0, 1 when it failed, 2 on timeout;
#                                   for a mounted system, also a row of daemon.tsv
#
# $BENCH_RAW is the tab-separated raw data (header in record_header); report.py
# reads it. daemon.tsv beside it has, for every successful measurement of a
# system with a daemon (with the table it went to: raw, confirm, replicate),
# the CPU seconds the daemon used during the workload, and for ours what its
# prefetch fetched since the mount, what the workloads then read of that,
# and what they never read (bytes as stored in the cache; "-" for others).
#
# The time is the workload's alone; the requests and bytes of a
# measurement right after measured_mount include the mount's (the catalog,
# the root listing: the network cost of the first access), and MOUNT_S says
# how long the mount took. PEAK is the largest number of established
# connections from the clients to the server they talk to (Apache's
# toxiproxy, the Squid or the small server; servers.sh), sampled with ss
# every 20 ms during COLD runs of the network systems ("-" otherwise). A failed workload is recorded with its exit status and does not
# stop the suite: the report lists it. A workload running longer than
# $BENCH_TIMEOUT seconds is killed and recorded as "timeout" (the report
# shows "> N s"): one slow system must not eat the time of the whole run.

drop_caches() {
  sync
  echo 3 >/proc/sys/vm/drop_caches
}

traffic_mark() { stat -c %s "$APACHE_ACCESS_LOG"; }

# Apache writes a log line after the response went out, so the last lines of
# a run can trail its end by a moment: wait until the log stops growing.
_traffic_settle() {
  local size last=-1 tries=0
  size=$(traffic_mark)
  while [ "$size" != "$last" ] && [ $tries -lt 40 ]; do
    last=$size
    sleep 0.05
    size=$(traffic_mark)
    tries=$((tries + 1))
  done
}

traffic_since() {
  _traffic_settle
  tail -c +"$(($1 + 1))" "$APACHE_ACCESS_LOG" |
    awk -F'"' '{ n++; split($3, f, " "); if (f[2] != "-") b += f[2] } END { printf "%d %d\n", n, b }'
}

record_header() {
  printf 'section\tworkload\tparam\tsystem\tstate\tcondition\trep\tseconds\trequests\tbytes\tstatus\tvalue\tmount_s\tpeak_conns\n' \
    >"$BENCH_RAW"
}

record() {
  local IFS=$'\t'
  echo "$*" >>"$BENCH_RAW"
}

_now_ns() { date +%s%N; }
_seconds_between() { printf '%d.%09d' $((($2 - $1) / 1000000000)) $((($2 - $1) % 1000000000)); }

# Runs the workload in a fresh shell under timeout(1), which kills its whole
# process group (a pipeline included) when time is up. The shell writes the
# workload's own start and end ($EPOCHREALTIME, no process spawned) to
# $WORK/workload.times: after drop_caches, starting timeout and bash and
# reading the suite's scripts from disk took tens of milliseconds that are
# not the workload's.
_workload_with_timeout() {
  rm -f "$WORK/workload.times"
  WORK=$WORK BENCH_TREE=$BENCH_TREE WORKLOAD_TREE=$WORKLOAD_TREE FIO_RW=$FIO_RW FIO_BS=$FIO_BS \
    FIO_RAND_BYTES=$FIO_RAND_BYTES LC_NUMERIC=C timeout --kill-after=10 "$BENCH_TIMEOUT" \
    bash -c 'set -euo pipefail
      fail() { echo "$*" >&2; exit 2; }
      . "$0/workloads.sh"
      . "$0/fio.sh"
      t0=$EPOCHREALTIME
      workload_run "$1" "$2"
      echo "$t0 $EPOCHREALTIME" >"$WORK/workload.times"' "$BENCH_SUITE_DIR" "$@"
}

# The seconds of the last _workload_with_timeout that completed, from its
# own clock; empty if it did not complete.
_workload_seconds() {
  local t0 t1
  read -r t0 t1 <"$WORK/workload.times" 2>/dev/null || return 0
  [[ $t0 =~ ^[0-9]+\.[0-9]{6}$ && $t1 =~ ^[0-9]+\.[0-9]{6}$ ]] || return 0
  _seconds_between "${t0/./}000" "${t1/./}000"
}

# skip_record SECTION WORKLOAD PARAM SYSTEM STATE CONDITION REP WHY: a
# measurement that was not made (WHY: mountfail, skipped).
skip_record() {
  record "$1" "$2" "$3" "$4" "$5" "$6" "$7" - 0 0 "$8" - - -
}

# Set by measured_mount, consumed by the next measure.
_MOUNT_MARK=""
_MOUNT_SECONDS=-

measured_mount() {
  local start rc=0
  _MOUNT_MARK=$(traffic_mark)
  start=$(_now_ns)
  system_mount "$@" || rc=$?
  _MOUNT_SECONDS=$(_seconds_between "$start" "$(_now_ns)")
  [ "$rc" -eq 0 ] || _MOUNT_MARK="" _MOUNT_SECONDS=-
  return "$rc"
}

measure() {
  local section=$1 workload=$2 param=$3 system=$4 state=$5 cond=$6 rep=$7
  local mark=${_MOUNT_MARK:-} mount_s=$_MOUNT_SECONDS start end rc=0 status=ok traffic value=-
  local ticks peak=-
  _MOUNT_MARK="" _MOUNT_SECONDS=-
  [ -n "$mark" ] || mark=$(traffic_mark)
  ticks=$(system_cpu_ticks "$system")
  # The sampler is running (its start-up done) before the clock starts.
  [ "$state" != COLD ] || [ "$system" = local ] || peak_start
  start=$(_now_ns)
  echo "== $section $workload $param on $system/$state ($cond) rep $rep, started $start ns" >>"$WORK/workloads.log"
  _workload_with_timeout "$workload" "$SYSTEM_ROOT" >>"$WORK/workloads.log" 2>&1 || rc=$?
  end=$(_now_ns)
  [ "$state" != COLD ] || [ "$system" = local ] || peak=$(peak_stop)
  # The local file system makes no requests: no need to wait for the log.
  if [ "$system" = local ]; then traffic="0 0"; else traffic=$(traffic_since "$mark"); fi
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    status=timeout
    echo "bench: $workload $param on $system/$state ($cond) timed out after $BENCH_TIMEOUT s" >&2
  elif [ "$rc" -ne 0 ]; then
    status=exit$rc
    echo "bench: $workload $param on $system/$state ($cond) failed with status $rc" >&2
  elif [ "$workload" = fio ]; then
    value=$(fio_bandwidth)
  fi
  local seconds
  seconds=$(_workload_seconds)
  [ "$rc" -eq 0 ] && [ -n "$seconds" ] || seconds=$(_seconds_between "$start" "$end")
  record "$section" "$workload" "$param" "$system" "$state" "$cond" "$rep" \
    "$seconds" ${traffic% *} ${traffic#* } "$status" "$value" \
    "$mount_s" "$peak"
  [ "$status" != ok ] || [ -z "$ticks" ] ||
    _record_daemon "$ticks" "$section" "$workload" "$param" "$system" "$state" "$cond" "$rep"
  case $status in ok) return 0 ;; timeout) return 2 ;; *) return 1 ;; esac
}

# _record_daemon TICKS_BEFORE KEY...: a row of daemon.tsv (above).
_record_daemon() {
  local before=$1 after counters file=${BENCH_RAW%/*}/daemon.tsv table IFS=$'\t'
  shift
  after=$(system_cpu_ticks "$4")
  [ -n "$after" ] || return 0
  counters=$(system_prefetch_counters "$4")
  [ -n "$counters" ] || counters="-$IFS-$IFS-"
  table=${BENCH_RAW##*/}
  [ -e "$file" ] || printf 'table\tsection\tworkload\tparam\tsystem\tstate\tcondition\trep\tcpu_s\tprefetched_bytes\tused_bytes\tunread_bytes\n' >"$file"
  echo "${table%.tsv}$IFS$*$IFS$(awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", t / hz }')$IFS$counters" >>"$file"
}
