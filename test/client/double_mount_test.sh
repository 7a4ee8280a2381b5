#!/usr/bin/env bash
# One mount per repository, as CVMFS: a second cvmfs2 for a mounted
# repository (same cache, private or shared) fails at once with a message,
# on another mount point as on the same one, and leaves the first mount
# serving; after the unmount the repository mounts again. (A private cache
# was refused before by its cache lock, with a misleading message; a shared
# cache stacked a second mount.)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init double_mount 120
require_bins cvmfs_server cvmfs2

fqrn=double.example.org
mkdir -p "$WORK/src"
echo "mounted once" >"$WORK/src/file.txt"
publish_tree $fqrn "$WORK/src" /
apache_start "$CVMFS_ROOTDIR/srv"
test_client_config "$WORK/private.conf" "$APACHE_URL/cvmfs/@fqrn@" "$(repo_public_key $fqrn)"
{ cat "$WORK/private.conf"; echo CVMFS_SHARED_CACHE=yes; } >"$WORK/shared.conf"

for cache in private shared; do
  note "CVMFS_SHARED_CACHE: $cache"
  conf=$WORK/$cache.conf
  mount_repo $fqrn "$WORK/mnt1" "$conf"
  for second in "$WORK/mnt2" "$WORK/mnt1"; do
    out=$(mount_repo_expect_failure $fqrn "$second" "$conf")
    case $out in
      *"$fqrn is already mounted"*) pass "$cache: a second mount on $second is refused: $out" ;;
      *) fail "$cache: a second mount on $second failed without saying why: $out" ;;
    esac
  done
  mountpoint -q "$WORK/mnt2" && fail "$cache: $WORK/mnt2 is mounted"
  expect_eq "$cache: the FUSE mounts of $fqrn" 1 "$(grep -c " $WORK/mnt1 fuse" /proc/mounts || true)"
  expect_eq "$cache: the first mount still serves" "mounted once" "$(cat "$WORK/mnt1/file.txt")"
  unmount_repo "$WORK/mnt1"
  mount_repo $fqrn "$WORK/mnt2" "$conf"
  expect_eq "$cache: mounted again after the unmount" "mounted once" "$(cat "$WORK/mnt2/file.txt")"
  unmount_repo "$WORK/mnt2"
done
finish
