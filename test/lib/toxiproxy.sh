# Network faults between the client and Apache with toxiproxy (sourced after
# common.sh). Driven through toxiproxy's HTTP API with curl, so only
# toxiproxy-server is needed (packaging/install-deps.sh --integration builds
# it).
#
#   toxiproxy_start                         API on a free port (TOXIPROXY_API)
#   toxiproxy_create_proxy NAME UPSTREAM_PORT
#                                           prints the proxy's listen port
#   toxiproxy_add_toxic PROXY TOXIC TYPE STREAM ATTRIBUTES_JSON
#   toxiproxy_remove_toxic PROXY TOXIC
#   toxiproxy_set_enabled PROXY true|false  false = refuse connections
#   toxic_latency PROXY MS [JITTER_MS]      named "latency"
#   toxic_bandwidth PROXY KB_PER_S          named "bandwidth"
#   toxic_limit_data PROXY BYTES            named "limit_data": closes each
#                                           connection after BYTES downstream
#   toxic_timeout PROXY MS                  named "timeout": stalls the data,
#                                           closes after MS (0 = never)
#   toxiproxy_stop

TOXIPROXY_API=""
_TOXIPROXY_PID=""

toxiproxy_start() {
  require_cmds toxiproxy-server
  local port log=$WORK/toxiproxy.log
  port=$(free_port)
  LOG_LEVEL=info toxiproxy-server -host 127.0.0.1 -port "$port" </dev/null >"$log" 2>&1 &
  _TOXIPROXY_PID=$!
  on_exit toxiproxy_stop
  show_on_failure "$log" 30
  TOXIPROXY_API=http://127.0.0.1:$port
  wait_for 20 "toxiproxy API on port $port" curl -sf "$TOXIPROXY_API/version"
  note "toxiproxy API at $TOXIPROXY_API"
}

toxiproxy_stop() {
  [ -n "$_TOXIPROXY_PID" ] || return 0
  kill -TERM "$_TOXIPROXY_PID" 2>/dev/null
  wait "$_TOXIPROXY_PID" 2>/dev/null
  _TOXIPROXY_PID=""
}

# _toxiproxy_api METHOD PATH [JSON]: fails the test on an HTTP error.
_toxiproxy_api() {
  local method=$1 path=$2 body=${3:-} out code data=()
  out=$WORK/toxiproxy-api.out
  [ -z "$body" ] || data=(-H 'Content-Type: application/json' --data "$body")
  code=$(curl -s -o "$out" -w '%{http_code}' -X "$method" "${data[@]}" "$TOXIPROXY_API$path")
  case $code in
    2??) cat "$out" ;;
    *) fail "toxiproxy $method $path ${body:+$body }answered $code: $(cat "$out")" ;;
  esac
}

toxiproxy_create_proxy() {
  local name=$1 upstream=$2 port
  port=$(free_port)
  _toxiproxy_api POST /proxies \
    "{\"name\":\"$name\",\"listen\":\"127.0.0.1:$port\",\"upstream\":\"127.0.0.1:$upstream\",\"enabled\":true}" \
    >/dev/null
  echo "$port"
}

toxiproxy_set_enabled() {
  _toxiproxy_api PATCH "/proxies/$1" "{\"enabled\":$2}" >/dev/null
}

toxiproxy_add_toxic() {
  local proxy=$1 toxic=$2 type=$3 stream=$4 attributes=$5
  _toxiproxy_api POST "/proxies/$proxy/toxics" \
    "{\"name\":\"$toxic\",\"type\":\"$type\",\"stream\":\"$stream\",\"toxicity\":1.0,\"attributes\":$attributes}" \
    >/dev/null
}

toxiproxy_remove_toxic() {
  _toxiproxy_api DELETE "/proxies/$1/toxics/$2" >/dev/null
}

toxic_latency() {
  toxiproxy_add_toxic "$1" latency latency downstream "{\"latency\":$2,\"jitter\":${3:-0}}"
}
toxic_bandwidth() {
  toxiproxy_add_toxic "$1" bandwidth bandwidth downstream "{\"rate\":$2}"
}
toxic_limit_data() {
  toxiproxy_add_toxic "$1" limit_data limit_data downstream "{\"bytes\":$2}"
}
toxic_timeout() {
  toxiproxy_add_toxic "$1" timeout timeout downstream "{\"timeout\":$2}"
}
