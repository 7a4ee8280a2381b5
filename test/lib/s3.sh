# An S3 server for the integration tests: SeaweedFS's `weed server -s3` on
# 127.0.0.1 (sourced after common.sh). Installed by
# `packaging/install-deps.sh --s3` (part of --integration).
#
#   require_weed                 skips the test (77) when weed is missing
#   start_s3 BUCKET              starts weed on free ports in $WORK/s3, with
#                                one access key (S3_ACCESS_KEY/S3_SECRET_KEY)
#                                and anonymous Read, creates BUCKET; sets
#                                S3_PORT and S3_URL (http://127.0.0.1:PORT);
#                                returns once an object write succeeds (10-15 s
#                                after the start); weed is killed at exit
#   write_s3_config FILE BUCKET [KEY=VALUE...]
#                                a CVMFS S3 configuration file for it
#   s3_curl ARGS...              curl signed with the access key (SigV4)

S3_ACCESS_KEY=cvmfs-test-access
S3_SECRET_KEY=cvmfs-test-secret

require_weed() {
  command -v weed >/dev/null ||
    skip "weed (SeaweedFS) is not installed; run packaging/install-deps.sh --s3"
}

s3_curl() {
  curl -sS --aws-sigv4 "aws:amz:us-east-1:s3" \
    --user "$S3_ACCESS_KEY:$S3_SECRET_KEY" "$@"
}

start_s3() {
  local bucket=$1 dir=$WORK/s3
  mkdir -p "$dir/data"
  cat >"$dir/identities.json" <<JSON
{"identities": [
  {"name": "anonymous", "actions": ["Read"]},
  {"name": "cvmfs", "credentials": [{"accessKey": "$S3_ACCESS_KEY",
   "secretKey": "$S3_SECRET_KEY"}],
   "actions": ["Admin", "Read", "List", "Tagging", "Write"]}]}
JSON
  local master volume filer master_grpc volume_grpc filer_grpc s3_grpc
  master=$(free_port) volume=$(free_port) filer=$(free_port) S3_PORT=$(free_port)
  master_grpc=$(free_port) volume_grpc=$(free_port) filer_grpc=$(free_port)
  s3_grpc=$(free_port)
  # gRPC ports default to port+10000, which may be taken or out of range.
  # The Iceberg and Lance listeners (fixed ports 8181, 9101) are off, so
  # that two tests can run at once; -logdir keeps weed's log files out of
  # /tmp.
  weed -logdir="$dir" server -dir="$dir/data" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
    -master.port="$master" -master.port.grpc="$master_grpc" \
    -master.volumeSizeLimitMB=64 \
    -volume.port="$volume" -volume.port.grpc="$volume_grpc" -volume.max=20 \
    -filer -filer.port="$filer" -filer.port.grpc="$filer_grpc" \
    -s3 -s3.port="$S3_PORT" -s3.port.grpc="$s3_grpc" \
    -s3.config="$dir/identities.json" -s3.port.iceberg=0 -s3.port.lance=0 \
    >"$dir/weed.log" 2>&1 </dev/null &
  local pid=$! p sockets=""
  # SIGKILL: on SIGTERM weed stops its volume server first, then its filer
  # waits 15 s for a volume to flush its metadata log into, and the data
  # is thrown away anyway. The gRPC Unix sockets it made in /tmp go too.
  for p in "$master_grpc" "$volume_grpc" "$filer" "$filer_grpc" "$S3_PORT" "$s3_grpc"; do
    sockets+=" /tmp/seaweedfs-*-$p.sock"
  done
  on_exit "kill -9 $pid 2>/dev/null; wait_pid_exit 10 $pid || true; rm -f $sockets"
  show_on_failure "$dir/weed.log"
  S3_URL=http://127.0.0.1:$S3_PORT
  wait_for 60 "SeaweedFS S3 on port $S3_PORT" s3_curl -f -o /dev/null "$S3_URL/"
  # The bucket; weed needs a moment after S3 answers before a volume exists.
  wait_for 60 "creating bucket $bucket" s3_curl -f -X PUT "$S3_URL/$bucket"
  # The first object write waits until the filer has joined weed's lock
  # ring (several seconds after start): wait here, not in the test's
  # first upload.
  echo probe >"$dir/probe"
  wait_for 60 "a first object write" s3_curl -f -T "$dir/probe" -o /dev/null \
    "$S3_URL/$bucket/.probe"
  s3_curl -f -X DELETE "$S3_URL/$bucket/.probe" || true
  note "SeaweedFS S3 at $S3_URL (pid $pid), bucket $bucket"
}

write_s3_config() {
  local file=$1 bucket=$2
  shift 2
  {
    echo "CVMFS_S3_HOST=127.0.0.1"
    echo "CVMFS_S3_PORT=$S3_PORT"
    echo "CVMFS_S3_BUCKET=$bucket"
    echo "CVMFS_S3_ACCESS_KEY=$S3_ACCESS_KEY"
    echo "CVMFS_S3_SECRET_KEY=$S3_SECRET_KEY"
    echo "CVMFS_S3_DNS_BUCKETS=false"
    echo "CVMFS_S3_MAX_NUMBER_OF_PARALLEL_CONNECTIONS=8"
    for kv in "$@"; do echo "$kv"; done
  } >"$file"
}
