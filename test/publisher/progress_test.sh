#!/usr/bin/env bash
# The progress line of the long cvmfs_server commands (doc/publishing.md
# "Progress"): publish, ingest, check (and check -i), gc and snapshot each
# run twice. Under a pseudo-terminal (`script -qec`) the output has a
# progress line ("\r<command>: ...") and its final line ("..., in m:ss").
# Without a terminal (stdout and stderr files) they print nothing extra: no
# carriage return, no escape, and stderr stays empty as before. Then
# CVMFS_SERVER_PROGRESS: "off" silences a terminal, "on" draws into a file,
# anything else is refused before the command does anything.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/publish.sh"
. "$here/../lib/apache.sh"

test_init progress 600
require_bins cvmfs_server
require_cmds script
grep -qw overlay /proc/filesystems || skip "the kernel has no overlayfs"
unset CVMFS_SERVER_PROGRESS
srv() { "$BIN/cvmfs_server" "$@"; }
fqrn=progress.test.org
on_exit "\"$BIN/cvmfs_server\" rmfs -f $fqrn >/dev/null 2>&1 || true"
union=$CVMFS_ROOTDIR/cvmfs/$fqrn
s1root=$WORK/s1root
s1() { CVMFS_ROOTDIR=$s1root "$BIN/cvmfs_server" "$@"; }

# quiet NAME CMD...: runs CMD with stdout and stderr in files (no terminal);
# it must succeed with an empty stderr and no control characters.
quiet() {
  local name=$1
  shift
  "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" </dev/null ||
    fail "$name without a terminal failed: $(cat "$WORK/$name.out" "$WORK/$name.err")"
  [ ! -s "$WORK/$name.err" ] ||
    check_failed "$name without a terminal wrote to stderr: $(cat -A "$WORK/$name.err")"
  ! grep -q $'[\r\033]' "$WORK/$name.out" ||
    check_failed "$name without a terminal drew a progress line: $(cat -A "$WORK/$name.out")"
}

# on_tty NAME LABEL CMD: runs the shell command CMD in a pseudo-terminal; the
# output must have "\rLABEL: " and a final line "LABEL: ..., in m:ss".
on_tty() {
  local name=$1 label=$2 cmd=$3
  script -qec "$cmd" /dev/null >"$WORK/$name.tty" </dev/null ||
    fail "$name on a terminal failed: $(cat -A "$WORK/$name.tty")"
  grep -q $'\r'"$label: " "$WORK/$name.tty" ||
    check_failed "$name on a terminal drew no progress line: $(cat -A "$WORK/$name.tty")"
  tr '\r' '\n' <"$WORK/$name.tty" | grep -qE "^$label: [0-9]+.*, in [0-9]+:[0-9]{2}"$'\033' ||
    check_failed "$name on a terminal has no final line: $(cat -A "$WORK/$name.tty")"
  note "$name: $(tr '\r' '\n' <"$WORK/$name.tty" | grep -E "^$label: .*, in " | tr -d '\033' | sed 's/\[K$//')"
}

# fill DIR N: N small files and a chunked one of 9 MB.
fill() {
  mkdir -p "$1/small"
  for i in $(seq 1 "$2"); do echo "file $i of $1" >"$1/small/f$i"; done
  make_random_file "$1/big" 9000000 "$1"
}

# --- a Stratum 0 that gc may collect ------------------------------------------
srv mkfs -z $fqrn >"$WORK/mkfs.out" 2>&1 || fail "mkfs: $(cat "$WORK/mkfs.out")"
sed -i 's/^CVMFS_AUTO_TAG=.*/CVMFS_AUTO_TAG=false/' \
  "$CVMFS_ROOTDIR/etc/cvmfs/repositories.d/$fqrn/server.conf"

# --- ingest ------------------------------------------------------------------
for n in 1 2; do
  fill "$WORK/tree$n" 300
  tar -C "$WORK/tree$n" -cf "$WORK/tree$n.tar" .
done
quiet ingest srv ingest -t "$WORK/tree1.tar" -b ingested1 $fqrn
on_tty ingest_tty ingest "$BIN/cvmfs_server ingest -t $WORK/tree2.tar -b ingested2 $fqrn"

# --- publish -----------------------------------------------------------------
srv transaction $fqrn >/dev/null
fill "$union/published1" 300
quiet publish srv publish $fqrn
srv transaction $fqrn >/dev/null
fill "$union/published2" 300
rm -rf "$union/ingested1"  # garbage for gc
on_tty publish_tty publish "$BIN/cvmfs_server publish $fqrn"

# --- check, check -i -----------------------------------------------------------
quiet check srv check $fqrn
on_tty check_tty check "$BIN/cvmfs_server check $fqrn"
quiet check_i srv check -i $fqrn
on_tty check_i_tty "check -i" "$BIN/cvmfs_server check -i $fqrn"

# --- snapshot ------------------------------------------------------------------
apache_start "$CVMFS_ROOTDIR/srv"
on_exit apache_stop
s1 add-replica -o root "$APACHE_URL/cvmfs/$fqrn" "$(repo_public_key $fqrn)" \
  >"$WORK/add.out" 2>&1 || fail "add-replica: $(cat "$WORK/add.out")"
quiet snapshot s1 snapshot $fqrn
srv transaction $fqrn >/dev/null
fill "$union/published3" 50
srv publish $fqrn >/dev/null
on_tty snapshot_tty snapshot "CVMFS_ROOTDIR=$s1root $BIN/cvmfs_server snapshot $fqrn"

# --- gc ------------------------------------------------------------------------
quiet gc_dry srv gc -r 0 -d -f $fqrn
on_tty gc_tty gc "$BIN/cvmfs_server gc -r 0 -f $fqrn"
grep -q "objects deleted" "$WORK/gc_tty.tty" ||
  check_failed "gc deleted nothing, so its sweep phase was not seen"

# --- CVMFS_SERVER_PROGRESS -----------------------------------------------------
script -qec "CVMFS_SERVER_PROGRESS=off $BIN/cvmfs_server check $fqrn" /dev/null \
  >"$WORK/off.tty" </dev/null || fail "check with progress off failed"
! grep -q $'\r'"check: " "$WORK/off.tty" ||
  check_failed "CVMFS_SERVER_PROGRESS=off still drew: $(cat -A "$WORK/off.tty")"
CVMFS_SERVER_PROGRESS=on srv check $fqrn >/dev/null 2>"$WORK/on.err" ||
  fail "check with progress on failed"
grep -qE "^check: [0-9]+/[0-9]+ entries \(100%\).*, in [0-9]+:[0-9]{2}" \
  <(tr '\r' '\n' <"$WORK/on.err") ||
  check_failed "CVMFS_SERVER_PROGRESS=on drew nothing into a file: $(cat -A "$WORK/on.err")"
rc=0
CVMFS_SERVER_PROGRESS=sometimes srv gc -r 0 -f $fqrn >/dev/null 2>"$WORK/bad.err" || rc=$?
expect_eq "exit status for CVMFS_SERVER_PROGRESS=sometimes" 2 "$rc"
grep -q "CVMFS_SERVER_PROGRESS='sometimes' is not one of auto, on, off" "$WORK/bad.err" ||
  check_failed "no clear error for a bad CVMFS_SERVER_PROGRESS: $(cat "$WORK/bad.err")"

finish
