#!/usr/bin/env bash
# Prometheus metrics end to end, each output through `promtool check
# metrics` (no errors, no lint findings): `cvmfs_talk metrics prometheus`
# of a real mount, the node-exporter textfile collector
# (packaging/prometheus/cvmfs-textfile-collector) over two mounts and a dead
# one, and `cvmfs_server serve`'s /metrics (and --metrics-path,
# --no-metrics). Checks that values move: a read raises the download and
# miss counters, a request raises serve's request counter.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init metrics 300
require_bins cvmfs_server cvmfs2 cvmfs_talk
require_cmds promtool awk
collector=$SOURCE_DIR/packaging/prometheus/cvmfs-textfile-collector

# promtool_ok WHAT FILE: no error and no lint finding.
promtool_ok() {
  local out rc=0
  out=$(promtool check metrics <"$2" 2>&1) || rc=$?
  [ "$rc" -eq 0 ] && [ -z "$out" ] ||
    check_failed "$1: promtool check metrics (exit $rc): $out"
}
# value FILE SAMPLE: the value of one sample line ("" if absent).
value() { awk -v s="$2" '$1 == s { print $2 }' "$1"; }
expect_gt() {  # expect_gt WHAT A B
  awk -v a="$2" -v b="$3" 'BEGIN { exit !(a + 0 > b + 0) }' ||
    check_failed "$1: expected $2 > $3"
}

# --- two repositories, served by cvmfs_server serve -------------------------
src=$WORK/src
mkdir -p "$src/dir"
make_random_file "$src/a.bin" 300000 metrics-a
make_random_file "$src/dir/b.bin" 200000 metrics-b
publish_tree metrics.test.org "$src" data
publish_tree other.test.org "$src" data

out=$WORK/serve.out
show_on_failure "$out"
"$BIN/cvmfs_server" serve -p 0 metrics.test.org other.test.org </dev/null >"$out" 2>&1 &
server_pid=$!
on_exit "kill -TERM $server_pid 2>/dev/null || true"
wait_for 10 "cvmfs_server serve to print its URL" grep -q "^serving other.test.org at " "$out"
url=$(sed -n "s|^serving metrics.test.org at ||p" "$out")
base=${url%/cvmfs/*}

etc=$CVMFS_ROOTDIR/etc/cvmfs
mount_dir=$WORK/cvmfs
mkdir -p "$etc/config.d"
echo "CVMFS_REPOSITORIES=metrics.test.org,other.test.org" >>"$etc/default.local"
echo "CVMFS_MOUNT_DIR=$mount_dir" >>"$etc/default.local"
for fqrn in metrics.test.org other.test.org; do
  test_client_config "$etc/config.d/$fqrn.local" "$base/cvmfs/@fqrn@" \
    "$(repo_public_key $fqrn)"
  mount_repo $fqrn "$mount_dir/$fqrn" "$etc/config.d/$fqrn.local"
done
mnt=$mount_dir/metrics.test.org
repo='{repo="metrics.test.org"}'

# --- cvmfs_talk metrics prometheus ------------------------------------------
talk_metrics() { "$BIN/cvmfs_talk" -i metrics.test.org metrics prometheus >"$1"; }
talk_metrics "$WORK/talk-before.prom"
promtool_ok "cvmfs_talk metrics prometheus" "$WORK/talk-before.prom"
expect_eq "cvmfs_up" 1 "$(value "$WORK/talk-before.prom" "cvmfs_up$repo")"
expect_eq "cvmfs_pid" "$(magic_xattr pid "$mnt")" "$(value "$WORK/talk-before.prom" "cvmfs_pid$repo")"
expect_eq "cvmfs_repo_revision" "$(magic_xattr revision "$mnt")" \
  "$(value "$WORK/talk-before.prom" "cvmfs_repo_revision$repo")"
for name in cvmfs_cached_bytes cvmfs_rx_total cvmfs_ndownload_total cvmfs_hitrate \
  cvmfs_nioerr_total cvmfs_uptime_seconds cvmfs_nclg cvmfs_inode_max; do
  [ -n "$(value "$WORK/talk-before.prom" "$name$repo")" ] ||
    check_failed "cvmfs_talk metrics prometheus has no $name$repo"
done
cat "$mnt/data/a.bin" "$mnt/data/dir/b.bin" >/dev/null
talk_metrics "$WORK/talk-after.prom"
promtool_ok "cvmfs_talk metrics prometheus after reads" "$WORK/talk-after.prom"
for name in cvmfs_ndownload_total cvmfs_rx_total cvmfs_cache_misses_total; do
  expect_gt "$name after reading" "$(value "$WORK/talk-after.prom" "$name$repo")" \
    "$(value "$WORK/talk-before.prom" "$name$repo")"
done
host_requests=$(value "$WORK/talk-after.prom" \
  "cvmfs_host_requests_total{repo=\"metrics.test.org\",host=\"$base/cvmfs/metrics.test.org\",proxy=\"DIRECT\"}")
expect_gt "cvmfs_host_requests_total for the server" "${host_requests:-0}" 0
grep -q '^cvmfs_host_request_duration_seconds_bucket{.*le="+Inf"}' "$WORK/talk-after.prom" ||
  check_failed "no latency histogram in cvmfs_talk metrics prometheus"

# --- the textfile collector: both mounts and one that does not answer -------
table=$WORK/mounts
grep " $mount_dir/" /proc/self/mounts >"$table" || fail "our mounts are not in /proc/self/mounts"
echo "cvmfs2 $mount_dir/ghost.test.org fuse ro,nosuid,nodev 0 0" >>"$table"
textfile=$WORK/textfile
run_collector() {
  TEXTFILE_DIR=$textfile CVMFS_TALK=$BIN/cvmfs_talk CVMFS_MOUNT_TABLE=$table \
    CVMFS_TALK_TIMEOUT=5 sh "$collector"
}
run_collector || check_failed "the collector failed (exit $?)"
prom=$textfile/cvmfs.prom
[ -f "$prom" ] || fail "the collector wrote no $prom"
promtool_ok "cvmfs-textfile-collector" "$prom"
expect_eq "collector file mode" 644 "$(stat -c %a "$prom")"
expect_eq "metrics.test.org up" 1 "$(value "$prom" "cvmfs_up$repo")"
expect_eq "other.test.org up" 1 "$(value "$prom" 'cvmfs_up{repo="other.test.org"}')"
expect_eq "ghost.test.org down" 0 "$(value "$prom" 'cvmfs_up{repo="ghost.test.org"}')"
expect_eq "one HELP per family" 1 "$(grep -c '^# HELP cvmfs_rx_total ' "$prom")"
expect_eq "no temporary left" "cvmfs.prom" "$(ls -A "$textfile")"
# Atomic replacement: the file is a new inode each run.
inode=$(stat -c %i "$prom")
run_collector || check_failed "the second collector run failed"
[ "$(stat -c %i "$prom")" != "$inode" ] || check_failed "cvmfs.prom was rewritten in place"
TEXTFILE_DIR=/proc/nonexistent/dir CVMFS_TALK=$BIN/cvmfs_talk CVMFS_MOUNT_TABLE=$table \
  sh "$collector" 2>/dev/null && check_failed "the collector succeeded without an output directory"

# --- cvmfs_server serve: /metrics -------------------------------------------
curl -sS -o "$WORK/serve-before.prom" "$base/metrics" || fail "GET $base/metrics failed"
promtool_ok "serve /metrics" "$WORK/serve-before.prom"
ok_before=$(value "$WORK/serve-before.prom" 'cvmfs_serve_requests_total{code="2xx"}')
curl -sS -o /dev/null "$url/.cvmfspublished"
curl -sS -o "$WORK/serve-after.prom" "$base/metrics"
promtool_ok "serve /metrics after requests" "$WORK/serve-after.prom"
expect_gt "serve 2xx requests" \
  "$(value "$WORK/serve-after.prom" 'cvmfs_serve_requests_total{code="2xx"}')" "$ok_before"
expect_gt "serve bytes" "$(value "$WORK/serve-after.prom" cvmfs_serve_sent_bytes_total)" 0
expect_eq "content type" "text/plain; version=0.0.4; charset=utf-8" \
  "$(curl -sS -o /dev/null -w '%{content_type}' "$base/metrics")"

out2=$WORK/serve-off.out
"$BIN/cvmfs_server" serve -p 0 --no-metrics metrics.test.org </dev/null >"$out2" 2>&1 &
off_pid=$!
on_exit "kill -TERM $off_pid 2>/dev/null || true"
wait_for 10 "the second server" grep -q "^serving metrics.test.org at " "$out2"
off_base=$(sed -n "s|^serving metrics.test.org at ||p" "$out2")
off_base=${off_base%/cvmfs/*}
expect_eq "--no-metrics" 404 "$(curl -s -o /dev/null -w '%{http_code}' "$off_base/metrics")"
kill -TERM $off_pid
if "$BIN/cvmfs_server" serve -p 0 --metrics-path /cvmfs/x metrics.test.org \
  </dev/null >"$WORK/bad.out" 2>&1; then
  check_failed "serve accepted --metrics-path /cvmfs/x"
fi
grep -q "metrics path" "$WORK/bad.out" || check_failed "no clear error for --metrics-path /cvmfs/x: $(cat "$WORK/bad.out")"

finish
