# Server conditions of the benchmark suite (sourced by test/bench/run after
# network.sh): what stands between the clients and the repository.
#
#   apache   Apache through toxiproxy (the network conditions of network.sh):
#            the sections latency, publish and snapshot run so
#   direct   Apache on loopback with nothing between (no toxiproxy): the
#            states and fio sections (condition 0: no latency to add, and
#            a proxy in user space would only take CPU from the clients on
#            a two-core machine: through it, rclone and our client read
#            the big file 25-35% slower, with idle CPU)
#   squid    a stock Squid between the clients and that toxiproxy + Apache:
#            Debian's /etc/squid/squid.conf as shipped (memory cache only),
#            changed only to run privately (port on 127.0.0.1, pid, logs and
#            netdb in the run's folder); restarted before every COLD run, so
#            its cache is cold then. Our client and the real one use it as
#            CVMFS_HTTP_PROXY, httpdirfs as http_proxy; rclone cannot (Go
#            never proxies requests to 127.0.0.1) and skips it.
#   small    a constrained server: test/lib/small_server.py (HTTP/1.0,
#            no keep-alive, listen backlog 5, a thread per connection)
#            serving the same repository, directly (no toxiproxy); only the
#            CVMFS clients take part (it has no range requests and no Apache
#            directory index for httpdirfs and rclone). It logs nothing, so
#            its requests and bytes are recorded as 0.
#
#   servers_start          starts the Squid and the small server (once)
#   section_condition SECTION COND  bench_condition COND, straight to
#                          Apache (direct) for the states and fio sections
#   server_condition NAME  the server the next mounts use: sets BENCH_SERVER
#                          and BENCH_CLIENT_PORT (the port the clients
#                          connect to, where connections are counted)
#   server_supports SYSTEM  false if SYSTEM cannot run under BENCH_SERVER
#   server_before_cold      gives the Squid an empty cache (a restart)
#   peak_start / peak_stop  sample the clients' established connections to
#                           BENCH_CLIENT_PORT (ss, every 20 ms) during a
#                           measurement; peak_stop prints the largest count

BENCH_SERVER=apache
BENCH_CLIENT_PORT=""
BENCH_SQUID_PORT=""
BENCH_SQUID_URL=""
BENCH_SMALL_PORT=""
_BENCH_SQUID_PID=""
_BENCH_SMALL_PID=""
_PEAK_PID=""
readonly BENCH_STOCK_SQUID_CONF=${BENCH_STOCK_SQUID_CONF:-/etc/squid/squid.conf}

# Debian's squid.conf with the lines that must change to run privately.
_squid_stock_config() {
  local dir=$1 port=$2
  [ -r "$BENCH_STOCK_SQUID_CONF" ] || fail "no stock Squid configuration $BENCH_STOCK_SQUID_CONF"
  grep -q '^http_port ' "$BENCH_STOCK_SQUID_CONF" ||
    fail "$BENCH_STOCK_SQUID_CONF has no http_port line to replace"
  sed -e "s|^http_port .*|http_port 127.0.0.1:$port|" \
    -e "s|^coredump_dir .*|coredump_dir $dir|" "$BENCH_STOCK_SQUID_CONF"
  cat <<EOF
# --- changed by the benchmark suite to run privately ---
pid_filename $dir/squid.pid
access_log stdio:$dir/access.log
cache_log $dir/cache.log
cache_store_log none
netdb_filename none
EOF
}

_squid_run() {
  local dir=$WORK/squid-stock
  squid -N -f "$dir/squid.conf" </dev/null >>"$dir/squid.out" 2>&1 &
  _BENCH_SQUID_PID=$!
  wait_for 30 "the stock Squid on port $BENCH_SQUID_PORT" \
    curl -s -o /dev/null --max-time 1 "$BENCH_SQUID_URL/"
}

_squid_kill() {
  [ -n "$_BENCH_SQUID_PID" ] || return 0
  # Its cache is in memory only: nothing to shut down cleanly.
  kill -KILL "$_BENCH_SQUID_PID" 2>/dev/null || true
  wait "$_BENCH_SQUID_PID" 2>/dev/null || true
  _BENCH_SQUID_PID=""
  wait_for 20 "the stock Squid's port to close" \
    bash -c "! curl -s -o /dev/null --max-time 1 $BENCH_SQUID_URL/"
}

_small_kill() {
  [ -n "$_BENCH_SMALL_PID" ] || return 0
  kill -TERM "$_BENCH_SMALL_PID" 2>/dev/null || true
  wait "$_BENCH_SMALL_PID" 2>/dev/null || true
  _BENCH_SMALL_PID=""
}

servers_start() {
  local dir=$WORK/squid-stock docroot=$WORK/small-docroot
  if command -v squid >/dev/null && id proxy >/dev/null 2>&1; then
    mkdir -p "$dir"
    BENCH_SQUID_PORT=$(free_port)
    BENCH_SQUID_URL=http://127.0.0.1:$BENCH_SQUID_PORT
    _squid_stock_config "$dir" "$BENCH_SQUID_PORT" >"$dir/squid.conf"
    chown -R proxy:proxy "$dir"
    squid -k parse -f "$dir/squid.conf" >"$dir/parse.out" 2>&1 ||
      fail "Squid rejects the stock configuration: $(grep -iE 'error|fatal' "$dir/parse.out" | head -n 5)"
    on_exit _squid_kill
    _squid_run
  else
    note "no squid or no 'proxy' user: the squid condition is skipped"
  fi
  # The small server serves the same paths as Apache: /cvmfs/FQRN and /plain.
  mkdir -p "$docroot/cvmfs"
  ln -sfn "$CVMFS_ROOTDIR/srv/cvmfs/$BENCH_FQRN" "$docroot/cvmfs/$BENCH_FQRN"
  ln -sfn "$BENCH_TREE" "$docroot/plain"
  rm -f "$WORK/small.port"
  /usr/bin/python3 "$TESTLIB_DIR/small_server.py" "$docroot" "$WORK/small.port" \
    >"$WORK/small-server.log" 2>&1 &
  _BENCH_SMALL_PID=$!
  on_exit _small_kill
  wait_for 20 "the small HTTP server's port" test -s "$WORK/small.port"
  BENCH_SMALL_PORT=$(cat "$WORK/small.port")
  wait_for 20 "the small HTTP server on port $BENCH_SMALL_PORT" \
    curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$BENCH_SMALL_PORT/cvmfs/$BENCH_FQRN/.cvmfspublished"
}

server_available() {
  case $1 in
    apache | direct | small) return 0 ;;
    squid) [ -n "$BENCH_SQUID_PORT" ] ;;
    *) return 1 ;;
  esac
}

server_condition() {
  BENCH_SERVER=$1
  case $1 in
    apache) BENCH_CLIENT_PORT=$BENCH_PROXY_PORT ;;
    direct) BENCH_CLIENT_PORT=$APACHE_PORT ;;
    squid) BENCH_CLIENT_PORT=$BENCH_SQUID_PORT ;;
    small) BENCH_CLIENT_PORT=$BENCH_SMALL_PORT ;;
    *) fail "unknown server condition '$1' (apache, direct, squid, small)" ;;
  esac
}

# Why SYSTEM does not run under BENCH_SERVER (nothing if it does).
server_unsupported_why() {
  case $BENCH_SERVER/$1 in
    squid/rclone) echo "rclone (Go) never uses a proxy for 127.0.0.1" ;;
    small/httpdirfs | small/rclone) echo "the small server has no range requests and no Apache index" ;;
  esac
}

server_before_cold() {
  [ "$BENCH_SERVER" = squid ] || return 0
  _squid_kill
  _squid_run
}

# Established client connections to BENCH_CLIENT_PORT, sampled into a file
# every 20 ms by one process (peak_connections.py); the largest count goes
# to raw.tsv.
peak_start() {
  local port=$BENCH_CLIENT_PORT out=$WORK/peak.samples
  : >"$out"
  [ -n "$port" ] || return 0
  python3 "$BENCH_SUITE_DIR/peak_connections.py" "$port" "$out" &
  _PEAK_PID=$!
  # Its start-up (Python's) stays out of the measurement.
  local i
  for i in $(seq 100); do
    [ ! -s "$out" ] || break
    sleep 0.01
  done
}

peak_stop() {
  [ -n "$_PEAK_PID" ] || { echo -; return 0; }
  kill "$_PEAK_PID" 2>/dev/null || true
  wait "$_PEAK_PID" 2>/dev/null || true
  _PEAK_PID=""
  sort -n "$WORK/peak.samples" | tail -n 1 | grep . || echo -
}

# A condition token of any section: MS[+MBIT] (Apache, network.sh), or
# SERVER[@MS] with SERVER squid or small (MS: added by toxiproxy behind the
# Squid, between it and Apache, as a site Squid far from its Stratum 1).
bench_condition_valid() {
  net_condition_valid "$1" || [[ $1 =~ ^squid(@[0-9]+)?$ ]] || [ "$1" = small ]
}

bench_condition() {
  local ms
  bench_condition_valid "$1" || fail "bad condition '$1' (MS, MS+MBIT, squid, squid@MS, small)"
  case $1 in
    squid*)
      ms=${1#squid}
      ms=${ms#@}
      server_condition squid
      net_condition "${ms:-0}"
      ;;
    small) server_condition small; net_condition 0 ;;
    *) server_condition apache; net_condition "$1" ;;
  esac
}

section_condition() {
  bench_condition "$2"
  case $1/$2 in
    states/0 | fio/0) server_condition direct ;;
  esac
}

# The server section: COLD and HOT of each workload (tar of the latency
# tree) under each server condition, with the clients' peak connections.
#
#   section_servers "CONDITION..." WORKLOAD...
section_servers() {
  local conds=$1 cond rep w sys saved_tree=$WORKLOAD_TREE why
  shift
  WORKLOAD_TREE=$LATENCY_TREE
  for cond in $conds; do
    if ! server_available "${cond%@*}"; then
      note "servers: no $cond here, skipped"
      continue
    fi
    bench_condition "$cond"
    for rep in $(seq "$BENCH_REPS"); do
      for w in "$@"; do
        ! resume_done servers "$w" "$(workload_param "$w")" "$cond" "$rep" || continue
        note "servers: $w with $cond, repetition $rep/$BENCH_REPS"
        for sys in $(systems_in_order "$rep"); do
          why=$(server_unsupported_why "$sys")
          if [ -n "$why" ]; then
            _skip_states unsupported servers "$w" "$(workload_param "$w")" "$sys" "$cond" "$rep" COLD HOT
            continue
          fi
          run_states servers "$w" "$sys" "$cond" "$rep" COLD HOT
        done
      done
    done
  done
  WORKLOAD_TREE=$saved_tree
  bench_condition 0
}
