# A private Apache httpd for the integration tests (sourced after common.sh),
# configured like CVMFS's recommended Stratum 0/1 setup:
#   - .cvmfs* files (manifest, whitelist, ...) expire after 61 s, everything
#     else (data/) after 3 days;
#   - Options -MultiViews +FollowSymLinks -Indexes, no ETag, no Last-Modified
#     (so proxies cannot revalidate stale manifests), no mmap/sendfile;
#   - range requests as Apache serves them for static files.
# It listens on 127.0.0.1 only, keeps its ServerRoot, pid file, logs and lock
# files in $WORK/apache, and logs every request as
#   <client> [<epoch>] "<request line>" <status> <body bytes> <microseconds> "<Pragma>"
#
#   apache_start DOCROOT         sets APACHE_PORT, APACHE_URL, APACHE_ACCESS_LOG
#   apache_stop                  waits until the server is gone
#   apache_request_count [ERE]   access log lines (matching ERE)
#   apache_bytes_sent [ERE]      sum of body bytes of those lines
#
# APACHE_PROFILE=debian (set before apache_start) replaces the tuned process
# and keep-alive settings above (pre-started workers, unlimited keep-alive)
# with Debian's stock ones, read from the installed
# /etc/apache2/mods-available/mpm_event.conf (StartServers, MinSpareThreads,
# MaxSpareThreads, ThreadLimit, ThreadsPerChild, MaxRequestWorkers,
# MaxConnectionsPerChild) and /etc/apache2/apache2.conf (Timeout, KeepAlive,
# MaxKeepAliveRequests, KeepAliveTimeout): a server as a site runs it out of
# the box (the benchmark suite's default). Unset or "tuned": the settings
# above.

APACHE_DIR=""
APACHE_PORT=""
APACHE_URL=""
APACHE_ACCESS_LOG=""
APACHE_MODULES=${APACHE_MODULES:-/usr/lib/apache2/modules}
APACHE_PROFILE=${APACHE_PROFILE:-tuned}
APACHE_DEBIAN_CONF=${APACHE_DEBIAN_CONF:-/etc/apache2}

_apache_user() {
  local u
  for u in www-data daemon nobody; do
    getent passwd "$u" >/dev/null && { echo "$u"; return; }
  done
  fail "no unprivileged user (www-data, daemon, nobody) for Apache's workers"
}

# The process and keep-alive directives of APACHE_PROFILE.
_apache_process_settings() {
  case $APACHE_PROFILE in
    tuned)
      printf '%s\n' "StartServers 2" "ServerLimit 4" "ThreadsPerChild 32" \
        "MaxRequestWorkers 128" "KeepAlive On" "MaxKeepAliveRequests 0" \
        "KeepAliveTimeout 30" "Timeout 60"
      ;;
    debian)
      local mpm=$APACHE_DEBIAN_CONF/mods-available/mpm_event.conf
      local main=$APACHE_DEBIAN_CONF/apache2.conf d v
      [ -r "$mpm" ] && [ -r "$main" ] ||
        fail "APACHE_PROFILE=debian needs $mpm and $main (Debian's apache2)"
      for d in StartServers MinSpareThreads MaxSpareThreads ThreadLimit \
        ThreadsPerChild MaxRequestWorkers MaxConnectionsPerChild; do
        v=$(awk -v d="$d" '$1 == d { print $2; exit }' "$mpm")
        [ -n "$v" ] || fail "$mpm sets no $d"
        echo "$d $v"
      done
      for d in Timeout KeepAlive MaxKeepAliveRequests KeepAliveTimeout; do
        v=$(awk -v d="$d" '$1 == d { print $2; exit }' "$main")
        [ -n "$v" ] || fail "$main sets no $d"
        echo "$d $v"
      done
      ;;
    *) fail "APACHE_PROFILE must be tuned or debian, not '$APACHE_PROFILE'" ;;
  esac
}

_apache_write_config() {
  local conf=$1 docroot=$2 user group processes
  user=$(_apache_user)
  processes=$(_apache_process_settings) || exit 1
  group=$(id -gn "$user")
  cat >"$conf" <<EOF
ServerRoot "$APACHE_DIR"
ServerName 127.0.0.1
Listen 127.0.0.1:$APACHE_PORT
PidFile "$APACHE_DIR/httpd.pid"
DefaultRuntimeDir "$APACHE_DIR/run"
Mutex file:$APACHE_DIR/run default
ErrorLog "$APACHE_DIR/error.log"
LogLevel warn
User $user
Group $group

LoadModule mpm_event_module $APACHE_MODULES/mod_mpm_event.so
LoadModule authz_core_module $APACHE_MODULES/mod_authz_core.so
LoadModule mime_module $APACHE_MODULES/mod_mime.so
LoadModule expires_module $APACHE_MODULES/mod_expires.so
LoadModule headers_module $APACHE_MODULES/mod_headers.so
LoadModule alias_module $APACHE_MODULES/mod_alias.so
LoadModule dir_module $APACHE_MODULES/mod_dir.so
# mod_log_config and mod_unixd are compiled into Debian's apache2.

$processes
# No MIME types: data objects have no extension; .cvmfs* get a forced type.
TypesConfig /dev/null

LogFormat "%h [%{sec}t] \"%r\" %>s %B %D \"%{Pragma}i\"" cvmfs
CustomLog "$APACHE_DIR/access.log" cvmfs

DocumentRoot "$docroot"
<Directory />
    Options None
    AllowOverride None
    Require all denied
</Directory>
<Directory "$docroot">
    Options -MultiViews +FollowSymLinks -Indexes
    AllowOverride None
    Require all granted

    EnableMMAP Off
    EnableSendFile Off

    <FilesMatch "^\\.cvmfs">
        ForceType application/x-cvmfs
    </FilesMatch>

    Header unset Last-Modified
    RequestHeader unset If-Modified-Since
    FileETag None

    ExpiresActive On
    ExpiresDefault "access plus 3 days"
    ExpiresByType application/x-cvmfs "access plus 61 seconds"
    ExpiresByType application/json "access plus 61 seconds"
</Directory>
EOF
}

# apache_start DOCROOT [PORT]: URLs are http://127.0.0.1:$APACHE_PORT/<path
# below DOCROOT>. PORT (default: a free one) restarts a stopped server on its
# old port. The access log is kept across restarts; the start-up probe is
# not logged. Every directory from / to DOCROOT must be searchable by the
# worker user (test_init makes $WORK 0755).
apache_start() {
  local docroot size
  docroot=$(cd "$1" && pwd) || fail "Apache docroot $1 does not exist"
  require_cmds apache2
  APACHE_DIR=$WORK/apache
  mkdir -p "$APACHE_DIR/run"
  APACHE_PORT=${2:-$(free_port)}
  APACHE_URL=http://127.0.0.1:$APACHE_PORT
  APACHE_ACCESS_LOG=$APACHE_DIR/access.log
  touch "$APACHE_ACCESS_LOG"
  _apache_write_config "$APACHE_DIR/httpd.conf" "$docroot"
  show_on_failure "$APACHE_DIR/error.log" 20
  apache2 -t -f "$APACHE_DIR/httpd.conf" >"$APACHE_DIR/configtest.out" 2>&1 ||
    fail "Apache rejects its configuration: $(cat "$APACHE_DIR/configtest.out")"
  on_exit apache_stop
  size=$(stat -c %s "$APACHE_ACCESS_LOG")
  apache2 -f "$APACHE_DIR/httpd.conf" -k start ||
    fail "Apache did not start: $(tail -n 5 "$APACHE_DIR/error.log" 2>/dev/null)"
  wait_for 20 "Apache on port $APACHE_PORT" \
    curl -s -o /dev/null "http://127.0.0.1:$APACHE_PORT/"
  # The probe above is not a test request.
  # Apache appends (O_APPEND), so truncating in place is safe.
  wait_for 5 "Apache to log the probe" \
    bash -c "[ \$(stat -c %s '$APACHE_ACCESS_LOG') -gt $size ]"
  truncate -s "$size" "$APACHE_ACCESS_LOG"
  note "Apache serves $docroot at $APACHE_URL"
}

# apache_stop: stops the server started by apache_start; idempotent.
apache_stop() {
  local pidfile=$APACHE_DIR/httpd.pid pid
  [ -n "$APACHE_DIR" ] && [ -s "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  kill -TERM "$pid" 2>/dev/null || true
  wait_pid_exit 20 "$pid" || {
    echo "$TEST_NAME: Apache (pid $pid) ignores SIGTERM, killing it" >&2
    kill -KILL "$pid" 2>/dev/null
  }
  rm -f "$pidfile"
  wait_for 10 "port $APACHE_PORT to close" \
    bash -c "! curl -s -o /dev/null --max-time 1 http://127.0.0.1:$APACHE_PORT/"
}

# apache_log_settled: waits (at most 2 s) until the access log has not
# grown for 0.2 s. Apache logs a request after its answer is sent, so a
# client that has its bytes may look at the log before the line is there.
apache_log_settled() {
  local last size
  last=$(stat -c %s "$APACHE_ACCESS_LOG")
  for _ in $(seq 10); do
    sleep 0.2
    size=$(stat -c %s "$APACHE_ACCESS_LOG")
    [ "$size" = "$last" ] && return 0
    last=$size
  done
}

# apache_request_count [ERE]: requests logged so far (matching ERE).
apache_request_count() {
  local pattern=${1:-.}
  grep -cE -- "$pattern" "$APACHE_ACCESS_LOG" || true
}

# apache_bytes_sent [ERE]: response body bytes of those requests.
apache_bytes_sent() {
  local pattern=${1:-.}
  grep -E -- "$pattern" "$APACHE_ACCESS_LOG" |
    awk -F'"' '{ split($3, f, " "); if (f[2] != "-") sum += f[2] } END { print sum + 0 }'
}
