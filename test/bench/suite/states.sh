# The cache-state section (the FS-Cache benchmarks): every workload on every
# system in the cache states it supports, at one network condition.
#   LOCAL-cold  local tree, page cache dropped     LOCAL-warm  the same again
#   NONE        mounted without a local cache (httpdirfs, rclone), caches dropped
#   COLD        empty local cache, fresh mount, page cache dropped
#   HOT         the cache COLD left, fresh mount, page cache dropped
#   PGCACHE     the HOT mount again: kernel caches warm
# Every HOT run therefore finds exactly what the same workload fetched in the
# COLD run before it.
#
#   section_states CONDITION WORKLOAD...

# Measurement sequences that timed out, by section|workload|param|system|
# state|condition: later repetitions record them as skipped instead of
# spending the timeout again. A condition "MS[+MBIT]" that timed out also
# gives up the higher latencies with the same bandwidth limit (more added
# latency never makes a workload faster): _GAVE_UP_MS keeps, by
# section|workload|param|system|state|MBIT, the lowest latency that did.
# Likewise a fio pattern that timed out with one record size gives up the
# smaller ones (more, smaller reads of the same bytes are never faster; the
# fio section runs the largest first): _GAVE_UP_BS keeps, by
# section|workload|RW|system|state|condition, the largest size that did.
declare -A _GAVE_UP=()
declare -A _GAVE_UP_MS=()
declare -A _GAVE_UP_BS=()

# _record_bytes SIZE: fio's "8k", "1m" (or plain bytes) in bytes.
_record_bytes() {
  local n=${1%[kKmM]}
  case $1 in
    *[kK]) echo $((n << 10)) ;;
    *[mM]) echo $((n << 20)) ;;
    *) echo "$n" ;;
  esac
}

# _gave_up_keys SECTION WORKLOAD PARAM SYSTEM STATE CONDITION: sets the
# caller's locals key, ms, lat_key, bs_key and bytes for the tables above.
_gave_up_keys() {
  local mbit= c=$6 server=apache
  # A server condition (servers.sh): squid@MS is squid's MS, small is 0.
  case $c in
    squid* | small) server=${c%@*}; c=${c#"$server"}; c=${c#@}; c=${c:-0} ;;
  esac
  key="$1|$2|$3|$4|$5|$6" ms=${c%%+*} bs_key="" bytes=0
  [[ $c != *+* ]] || mbit=${c#*+}
  lat_key="$1|$2|$3|$4|$5|$server|$mbit"
  if [ "$1" = fio ]; then
    bs_key="$1|$2|${3%/*}|$4|$5|$6"
    bytes=$(_record_bytes "${3#*/}")
  fi
}

# _give_up SECTION WORKLOAD PARAM SYSTEM STATE CONDITION: that measurement
# timed out; the later ones it predicts are skipped.
_give_up() {
  local key ms lat_key bs_key bytes
  _gave_up_keys "$@"
  _GAVE_UP[$key]=1
  if [ -z "${_GAVE_UP_MS[$lat_key]:-}" ] || [ "$ms" -lt "${_GAVE_UP_MS[$lat_key]}" ]; then
    _GAVE_UP_MS[$lat_key]=$ms
  fi
  if [ -n "$bs_key" ] && { [ -z "${_GAVE_UP_BS[$bs_key]:-}" ] || [ "$bytes" -gt "${_GAVE_UP_BS[$bs_key]}" ]; }; then
    _GAVE_UP_BS[$bs_key]=$bytes
  fi
}

# _measure_state SECTION WORKLOAD PARAM SYSTEM STATE CONDITION REP: measure,
# unless it, a lower latency of it or (fio) a larger record size of it
# timed out before. Returns measure's status.
_measure_state() {
  local key ms lat_key bs_key bytes rc=0
  _gave_up_keys "$@"
  if [ -n "${_GAVE_UP[$key]:-}" ] ||
    { [ -n "${_GAVE_UP_MS[$lat_key]:-}" ] && [ "$ms" -ge "${_GAVE_UP_MS[$lat_key]}" ]; } ||
    { [ -n "$bs_key" ] && [ -n "${_GAVE_UP_BS[$bs_key]:-}" ] && [ "$bytes" -le "${_GAVE_UP_BS[$bs_key]}" ]; }; then
    skip_record "$@" skipped
    return 1
  fi
  measure "$@" || rc=$?
  [ "$rc" -ne 2 ] || _give_up "$1" "$2" "$3" "$4" "$5" "$6"
  return "$rc"
}

# _skip_states WHY SECTION WORKLOAD PARAM SYSTEM CONDITION REP STATE...
_skip_states() {
  local why=$1 st
  shift
  for st in "${@:7}"; do skip_record "$1" "$2" "$3" "$4" "$st" "$5" "$6" "$why"; done
}

# run_states SECTION WORKLOAD SYSTEM CONDITION REP STATES...: the listed states
# (a subset of the above) of one workload on one system. A mount that fails
# or a COLD run that fails is recorded; the states depending on it are
# recorded as skipped.
run_states() {
  local section=$1 w=$2 sys=$3 cond=$4 rep=$5 param
  shift 5
  local states=" $* " modes
  param=$(workload_param "$w")
  local id=("$section" "$w" "$param" "$sys")
  if [ "$sys" = local ]; then
    system_mount local none
    drop_caches
    _measure_state "${id[@]}" LOCAL-cold "$cond" "$rep" || true
    [[ $states != *" LOCAL-warm "* ]] || _measure_state "${id[@]}" LOCAL-warm "$cond" "$rep" || true
    return 0
  fi
  modes=" $(system_cache_modes "$sys") "
  if [[ $states == *" NONE "* ]] && [[ $modes == *" none "* ]]; then
    if measured_mount "$sys" none; then
      drop_caches
      _measure_state "${id[@]}" NONE "$cond" "$rep" || true
    else
      skip_record "${id[@]}" NONE "$cond" "$rep" mountfail
    fi
    system_unmount "$sys"
  fi
  [[ $modes == *" cache "* ]] || return 0
  local later=()
  [[ $states != *" HOT "* ]] || later+=(HOT)
  [[ $states != *" PGCACHE "* ]] || later+=(PGCACHE)
  server_before_cold
  system_clear_cache "$sys"
  if ! measured_mount "$sys" cache; then
    system_unmount "$sys"
    _skip_states mountfail "${id[@]}" "$cond" "$rep" COLD "${later[@]}"
    return 0
  fi
  drop_caches
  if ! _measure_state "${id[@]}" COLD "$cond" "$rep"; then
    system_unmount "$sys"
    # A HOT run after an incomplete COLD one would measure a partial cache.
    _skip_states skipped "${id[@]}" "$cond" "$rep" "${later[@]}"
    return 0
  fi
  system_unmount "$sys"
  [ ${#later[@]} -gt 0 ] || return 0
  if ! measured_mount "$sys" cache; then
    system_unmount "$sys"
    _skip_states mountfail "${id[@]}" "$cond" "$rep" "${later[@]}"
    return 0
  fi
  drop_caches
  _measure_state "${id[@]}" HOT "$cond" "$rep" || true
  [[ $states != *" PGCACHE "* ]] || _measure_state "${id[@]}" PGCACHE "$cond" "$rep" || true
  system_unmount "$sys"
}

# The systems in the order of repetition REP: the order rotates so that no
# system always runs first (right after another system filled the disk cache
# or the CPU caches).
systems_in_order() {
  local rep=$1 list=($BENCH_SYSTEMS) n i
  n=${#list[@]}
  for ((i = 0; i < n; i++)); do echo "${list[(i + rep - 1) % n]}"; done
}

section_states() {
  local cond=$1 rep w sys
  shift
  section_condition states "$cond"
  for rep in $(seq "$BENCH_REPS"); do
    for w in "$@"; do
      ! resume_done states "$w" "$(workload_param "$w")" "$cond" "$rep" || continue
      note "states: $w, repetition $rep/$BENCH_REPS"
      for sys in $(systems_in_order "$rep"); do
        run_states states "$w" "$sys" "$cond" "$rep" LOCAL-warm NONE COLD HOT PGCACHE
      done
    done
  done
}
