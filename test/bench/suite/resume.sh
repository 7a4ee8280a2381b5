# Resuming an interrupted run (test/bench/run --resume DIR). A full run takes
# hours; when the machine stops in the middle, the measurements already in
# DIR/raw.tsv stay, and the run goes on from the group it was measuring.
#
# A group is one loop step of a section, measured on every system in turn:
# SECTION|WORKLOAD|PARAM|CONDITION|REP (publish: publish|REP, one mkfs and its
# three publishes; snapshot: snapshot|REP, the snapshot and its cp -a).
# Groups run one after another, so only the last group in
# raw.tsv can be incomplete: resume_load drops its rows and the run measures
# it again, whole, with the cache states in their order (a HOT run needs the
# COLD run before it). daemon.tsv beside RAW loses the same group's rows and
# those of the confirmation rounds (they are measured again in full).
#
#   resume_load RAW        keep the complete groups of RAW, remember them and
#                          replay their timeouts into the give-up tables
#   resume_done SECTION WORKLOAD PARAM CONDITION REP
#                          true when that group is in RAW (loops skip it)

declare -A _RESUME_DONE=()

# The group of a raw.tsv row, in awk.
_RESUME_GROUP='function group() { return $1 == "publish" || $1 == "snapshot" ? $1 "|" $7 : $1 "|" $2 "|" $3 "|" $6 "|" $7 }'

_resume_group() {
  awk -F'\t' "$_RESUME_GROUP"' NR > 1 { print group() }'
}

resume_load() {
  local raw=$1 last key kept section workload param system state cond status
  last=$(_resume_group <"$raw" | tail -n 1)
  awk -F'\t' -v last="$last" "$_RESUME_GROUP"' NR == 1 || group() != last' "$raw" >"$raw.resume"
  mv "$raw.resume" "$raw"
  local daemon=${raw%/*}/daemon.tsv
  if [ -e "$daemon" ]; then
    # daemon.tsv's key starts one column later, after its table.
    awk -F'\t' -v last="$last" "$_RESUME_GROUP"' { table = $1; $0 = substr($0, index($0, "\t") + 1) }
      NR == 1 || (table == "raw" && group() != last) { print table "\t" $0 }' "$daemon" >"$daemon.resume"
    mv "$daemon.resume" "$daemon"
  fi
  while read -r key; do _RESUME_DONE[$key]=1; done < <(_resume_group <"$raw" | sort -u)
  while IFS=$'\t' read -r section workload param system state cond _ _ _ _ status _; do
    [ "$status" != timeout ] || _give_up "$section" "$workload" "$param" "$system" "$state" "$cond"
  done < <(tail -n +2 "$raw")
  kept=$(($(wc -l <"$raw") - 1))
  note "resuming: $kept measurements kept in ${#_RESUME_DONE[@]} groups; measuring again from ${last:-the start}"
}

resume_done() {
  if [ "$1" = publish ] || [ "$1" = snapshot ]; then
    [ -n "${_RESUME_DONE[$1|$5]:-}" ]
  else
    [ -n "${_RESUME_DONE[$1|$2|$3|$4|$5]:-}" ]
  fi
}
