# Network conditions of the benchmark suite (sourced by test/bench/run after
# toxiproxy.sh). All systems reach Apache through one toxiproxy proxy named
# "bench"; a condition is a token
#   MS          MS milliseconds added to every response (0 = none)
#   MS+MBIT     the same, and each connection limited to MBIT Mbit/s
# toxiproxy's latency toxic delays the data flowing from the server, so every
# request/response exchange takes MS longer, like an added round trip; its
# bandwidth toxic limits each TCP connection on its own (clients that open
# several connections get several times the rate).
#
#   net_start UPSTREAM_PORT   creates the proxy; sets BENCH_PROXY_PORT
#   net_condition TOKEN       replaces the toxics by those of TOKEN
#   net_condition_valid TOKEN

BENCH_PROXY_PORT=""
_NET_TOXICS=()

net_start() {
  toxiproxy_start >>"$WORK/toxiproxy-setup.log"
  BENCH_PROXY_PORT=$(toxiproxy_create_proxy bench "$1")
}

net_condition_valid() { [[ $1 =~ ^[0-9]+(\+[0-9]+)?$ ]]; }

net_condition() {
  local token=$1 ms mbit t
  net_condition_valid "$token" || fail "bad network condition '$token' (want MS or MS+MBIT)"
  for t in "${_NET_TOXICS[@]}"; do toxiproxy_remove_toxic bench "$t"; done
  _NET_TOXICS=()
  ms=${token%%+*}
  [ "$token" = "$ms" ] && mbit="" || mbit=${token#*+}
  if [ "$ms" -gt 0 ]; then
    toxic_latency bench "$ms"
    _NET_TOXICS+=(latency)
  fi
  if [ -n "$mbit" ]; then
    toxic_bandwidth bench $((mbit * 125))  # KB/s
    _NET_TOXICS+=(bandwidth)
  fi
}
