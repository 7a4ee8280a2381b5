#!/usr/bin/env bash
# Every CVMFS client parameter works or stops the mount naming it: a
# parameter this client does not implement, set to anything but CVMFS's
# default, fails the mount with its name, value, file and reason; the
# defaults as CVMFS's and our packaged default.conf spell them mount.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init refused_parameter 120
require_bins cvmfs_server cvmfs2

fqrn=refused.example.org
mkdir -p "$WORK/src"
echo "configured" >"$WORK/src/file.txt"
publish_tree $fqrn "$WORK/src" /
apache_start "$CVMFS_ROOTDIR/srv"
test_client_config "$WORK/client.conf" "$APACHE_URL/cvmfs/@fqrn@" "$(repo_public_key $fqrn)"

note "refused values"
for setting in CVMFS_NFS_SOURCE=yes CVMFS_UID_MAP=/etc/cvmfs/uid.map \
  CVMFS_CACHE_ram_TYPE=ram; do
  name=${setting%%=*}
  echo "$setting" >"$WORK/site.local"
  out=$(mount_repo_expect_failure $fqrn "$WORK/mnt" "$WORK/client.conf:$WORK/site.local")
  case $out in
    *"$name='${setting#*=}' (from $WORK/site.local) is not supported by this client: "*)
      pass "$name refused: $out" ;;
    *) fail "$setting: the mount failed without naming it: $out" ;;
  esac
done

note "CVMFS's defaults, spelled out, mount"
cat >"$WORK/defaults.conf" <<'EOC'
CVMFS_STRICT_MOUNT=no
CVMFS_IGNORE_SIGNATURE=no
CVMFS_NFS_SOURCE=no
CVMFS_MOUNT_RW=no
CVMFS_SEND_INFO_HEADER=no
CVMFS_USE_GEOAPI=no
CVMFS_PAC_URLS="http://wpad/wpad.dat"
CVMFS_NFILES=65536
CVMFS_MEMCACHE_SIZE=16
CVMFS_TRACEFILE=
EOC
mount_repo $fqrn "$WORK/mnt" "$SOURCE_DIR/packaging/etc/default.conf:$WORK/defaults.conf:$WORK/client.conf"
expect_eq "mounted with the defaults" "configured" "$(cat "$WORK/mnt/file.txt")"
unmount_repo "$WORK/mnt"
finish
