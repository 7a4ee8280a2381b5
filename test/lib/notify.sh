# The notification server of the tests (test/lib/notify_server.py; sourced
# after common.sh):
#
#   notify_start [PORT]        starts it on 127.0.0.1 (a free port unless
#                              given); sets NOTIFY_URL (…/api/v1), NOTIFY_PORT,
#                              NOTIFY_PID, NOTIFY_LOG; stopped at exit
#   notify_stop                kills it (a server going away)
#   notify_subscribers N       true once N subscriptions have been accepted
#                              since the server started
#   notify_announce FQRN FILE  posts FILE as FQRN's announced manifest

notify_start() {
  NOTIFY_PORT=${1:-$(free_port)}
  NOTIFY_URL=http://127.0.0.1:$NOTIFY_PORT/api/v1
  NOTIFY_LOG=$WORK/notify-$NOTIFY_PORT-$SECONDS.log
  python3 "$CVMFS_SOURCE_DIR/test/lib/notify_server.py" "$NOTIFY_PORT" \
    >"$NOTIFY_LOG.out" 2>"$NOTIFY_LOG" &
  NOTIFY_PID=$!
  on_exit "kill $NOTIFY_PID 2>/dev/null || true"
  wait_for 10 "the notification server on port $NOTIFY_PORT" \
    grep -q ready "$NOTIFY_LOG.out"
}

notify_stop() {
  kill "$NOTIFY_PID" 2>/dev/null || true
  wait_pid_exit 10 "$NOTIFY_PID" || true
}

notify_subscribers() {
  [ "$(grep -c 'GET /api/v1/notifications/subscribe HTTP/1.1" 200' "$NOTIFY_LOG")" -ge "$1" ]
}

notify_announce() {
  python3 - "$NOTIFY_URL" "$1" "$2" <<'PY'
import base64, json, sys, time, urllib.request
url, fqrn, path = sys.argv[1:4]
manifest = open(path, "rb").read()
msg = {"version": 1, "timestamp": time.strftime("%d %b %Y %H:%M:%S", time.gmtime()),
       "type": "activity", "repository": fqrn,
       "manifest": base64.b64encode(manifest).decode()}
req = urllib.request.Request(url + "/notifications/publish",
                             data=json.dumps(msg).encode(), method="POST")
print(urllib.request.urlopen(req, timeout=10).read().decode())
PY
}
