# A private Squid forward proxy for the integration tests (sourced after
# common.sh), configured like a site proxy in front of Stratum 1s as CVMFS
# recommends: it caches what the origin allows (Apache's 61 s for .cvmfs*
# files, 3 days for data/), collapses identical concurrent misses, keeps
# large objects, and refetches from the origin when a request carries
# "Pragma: no-cache" / "Cache-Control: no-cache" (Squid's default).
# It listens on 127.0.0.1 only and keeps its configuration, cache_dir, logs
# and pid file in $WORK/squid-NAME; it runs in the foreground (-N) as a child
# of the test and drops privileges to the "proxy" user (Debian's
# cache_effective_user).
#
#   squid_start [NAME] [PORT]   sets SQUID_PORT, SQUID_URL, SQUID_ACCESS_LOG,
#                               SQUID_DIR (of the instance just started)
#   squid_stop [NAME]           waits until the instance is gone; idempotent
#   squid_request_count LOG [ERE]
#                               access log lines (matching ERE)
#
# Several instances may run at once under different NAMEs (default "squid").
# Each access log line reads
#   <epoch.ms> <client> <squid status>/<http status> <bytes> "<method> <url>" "<Pragma>" <hierarchy>/<peer>
# e.g. `TCP_MISS/200 ... "GET http://127.0.0.1:8080/cvmfs/x/.cvmfspublished" "-" HIER_DIRECT/127.0.0.1`;
# TCP_HIT / TCP_MEM_HIT (served from Squid's cache), TCP_MISS (fetched from
# the origin; also every no-cache request, whose Pragma the line shows) and
# TCP_REFRESH_* tell where the answer came from. The start-up probe is not
# logged.

SQUID_PORT=""
SQUID_URL=""
SQUID_ACCESS_LOG=""
SQUID_DIR=""
declare -A _SQUID_PIDS=()
declare -A _SQUID_PORTS=()

_squid_write_config() {
  local conf=$1 dir=$2 port=$3
  cat >"$conf" <<EOF
http_port 127.0.0.1:$port
visible_hostname cvmfs-test-squid
cache_effective_user proxy
pid_filename $dir/squid.pid
coredump_dir $dir
cache_dir ufs $dir/cache 200 16 64
cache_mem 64 MB
maximum_object_size 1 GB
maximum_object_size_in_memory 16 MB
collapsed_forwarding on

logformat cvmfs %ts.%03tu %>a %Ss/%03>Hs %<st "%rm %ru" "%{Pragma}>h" %Sh/%<a
access_log stdio:$dir/access.log cvmfs
cache_log $dir/cache.log
cache_store_log none
buffered_logs off
logfile_rotate 0
debug_options ALL,1

# Nothing around it: no ICP/HTCP/SNMP, no pinger, no netdb, no peers.
icp_port 0
htcp_port 0
pinger_enable off
netdb_filename none
shutdown_lifetime 0 seconds
forwarded_for delete

acl test_clients src 127.0.0.1/32
http_access allow test_clients
http_access deny all
EOF
}

# squid_start [NAME] [PORT]: PORT (default: a free one) restarts a stopped
# instance on its old port; its cache_dir and access log are kept.
squid_start() {
  local name=${1:-squid} port dir conf size
  require_cmds squid
  id proxy >/dev/null 2>&1 || skip "no 'proxy' user for Squid to run as"
  dir=$WORK/squid-$name
  port=${2:-${_SQUID_PORTS[$name]:-$(free_port)}}
  conf=$dir/squid.conf
  mkdir -p "$dir/cache"
  touch "$dir/access.log" "$dir/cache.log"
  size=$(stat -c %s "$dir/access.log")
  _squid_write_config "$conf" "$dir" "$port"
  chown -R proxy:proxy "$dir"
  show_on_failure "$dir/cache.log" 30
  squid -k parse -f "$conf" >"$dir/parse.out" 2>&1 ||
    fail "Squid rejects its configuration: $(grep -iE 'error|fatal' "$dir/parse.out" | head -n 5)"
  if [ ! -d "$dir/cache/00" ]; then
    squid -N -z -f "$conf" >"$dir/swap-init.out" 2>&1 ||
      fail "squid -z failed: $(tail -n 5 "$dir/swap-init.out")"
  fi
  squid -N -f "$conf" </dev/null >"$dir/squid.out" 2>&1 &
  _SQUID_PIDS[$name]=$!
  _SQUID_PORTS[$name]=$port
  on_exit "squid_stop $name"
  wait_for 30 "Squid '$name' on port $port" _squid_listening "$port" "${_SQUID_PIDS[$name]}"
  # The probe is not a test request (Squid appends, so truncating is safe).
  wait_for 5 "Squid to log the probe" bash -c "[ \$(stat -c %s '$dir/access.log') -gt $size ]"
  truncate -s "$size" "$dir/access.log"
  SQUID_PORT=$port
  SQUID_URL=http://127.0.0.1:$port
  SQUID_ACCESS_LOG=$dir/access.log
  SQUID_DIR=$dir
  note "Squid '$name' listens at $SQUID_URL"
}

# True once Squid accepts connections; fails the test if it died.
_squid_listening() {
  local port=$1 pid=$2
  kill -0 "$pid" 2>/dev/null ||
    fail "Squid (pid $pid) exited during start-up: $(tail -n 5 "$WORK"/squid-*/cache.log)"
  # A request for Squid's own (denied) manager page proves it answers HTTP.
  curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/"
}

squid_stop() {
  local name=${1:-squid} pid port
  pid=${_SQUID_PIDS[$name]:-}
  [ -n "$pid" ] || return 0
  port=${_SQUID_PORTS[$name]}
  kill -TERM "$pid" 2>/dev/null || true
  if ! wait_pid_exit 30 "$pid"; then
    echo "$TEST_NAME: Squid '$name' (pid $pid) ignores SIGTERM, killing it" >&2
    kill -KILL "$pid" 2>/dev/null
    wait_pid_exit 10 "$pid" || true
  fi
  wait "$pid" 2>/dev/null || true
  unset "_SQUID_PIDS[$name]"
  # The kid process may outlive the master briefly.
  wait_for 20 "Squid port $port to close" \
    bash -c "! curl -s -o /dev/null --max-time 1 http://127.0.0.1:$port/"
}

# squid_request_count LOG [ERE]: requests in the access log LOG (matching ERE).
squid_request_count() {
  local log=$1 pattern=${2:-.}
  grep -cE -- "$pattern" "$log" || true
}
