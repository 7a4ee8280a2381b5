#!/usr/bin/env bash
# The magic attributes CVMFS 2.12 has, read on a real mount with CVMFS's
# formats (user.catalog_counters, user.repo_counters, user.chunk_list,
# user.lhash, user.pubkeys, user.repo_metainfo, user.logbuffer,
# user.maxfd, user.ncleanup24, user.timestamp_last_ioerr, user.useddirp,
# pages with name~N), and CVMFS_XATTR_PROTECTED_XATTRS /
# CVMFS_XATTR_PRIVILEGED_GIDS: a protected attribute is "No such
# attribute" for a process of another group (user nobody), readable for
# one of a privileged group, and still listed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init magic_xattrs 180
require_bins cvmfs_server cvmfs2
require_cmds setpriv
getent passwd nobody >/dev/null || skip "no user nobody"

fqrn=magic.example.org
mkdir -p "$WORK/src/sub"
echo "hello magic" >"$WORK/src/hello.txt"
echo "below" >"$WORK/src/sub/below.txt"
publish_tree $fqrn "$WORK/src" /
apache_start "$CVMFS_ROOTDIR/srv"
key=$(repo_public_key $fqrn)
privileged_gid=4242
test_client_config "$WORK/client.conf" "$APACHE_URL/cvmfs/@fqrn@" "$key" \
  "CVMFS_XATTR_PROTECTED_XATTRS=user.fqrn,user.pubkeys" \
  "CVMFS_XATTR_PRIVILEGED_GIDS=0,$privileged_gid"
mnt=$WORK/mnt
mount_repo $fqrn "$mnt" "$WORK/client.conf"

note "counters, as CVMFS: 'name,value' lines, catalog hash and mountpoint"
counters=$(magic_xattr catalog_counters "$mnt")
expect_eq "catalog_counters: the root catalog" \
  "catalog_hash: $(magic_xattr root_hash "$mnt")" "$(sed -n 1p <<<"$counters")"
expect_eq "catalog_counters: its mountpoint" "catalog_mountpoint: " "$(sed -n 2p <<<"$counters")"
expect_eq "repo_counters: the 12 counters" \
  "chunked chunked_size chunks dir external external_file_size file_size nested regular special symlink xattr" \
  "$(magic_xattr repo_counters "$mnt/hello.txt" | cut -d, -f1 | xargs)"
expect_eq "repo_counters: regular files" "regular,2" \
  "$(magic_xattr repo_counters "$mnt" | grep '^regular,')"

note "per file: chunk_list and lhash"
hash=$(magic_xattr hash "$mnt/hello.txt")
expect_eq "chunk_list of an unchunked file" \
  "hash,offset,size
$hash,0,12" "$(magic_xattr chunk_list "$mnt/hello.txt")"
expect_eq "chunk_list~? counts the pages" "num_pages, 1" "$(magic_xattr 'chunk_list~?' "$mnt/hello.txt")"
cat "$mnt/hello.txt" >/dev/null
# As CVMFS: the cached copy compressed again (zlib, level 6), then hashed.
expect_eq "lhash: the cached copy's hash" "$(python3 -c 'import hashlib, sys, zlib
print(hashlib.sha1(zlib.compress(open(sys.argv[1], "rb").read(), 6)).hexdigest())' "$WORK/src/hello.txt")" \
  "$(magic_xattr lhash "$mnt/hello.txt")"

note "mount-wide: keys, metainfo, log, descriptors, errors"
expect_eq "pubkeys: the trusted key" "$(cat "$key")" "$(magic_xattr pubkeys "$mnt")"
meta=$(magic_xattr repo_metainfo "$mnt")
if [ -n "$(manifest_field $fqrn M)" ]; then
  case $meta in "{"*) pass "repo_metainfo is the repository's JSON" ;;
    *) fail "repo_metainfo: $meta" ;; esac
else
  expect_eq "repo_metainfo without one" "metainfo not available" "$meta"
fi
case $(magic_xattr logbuffer "$mnt") in
  *"] mounted $fqrn on "*) pass "logbuffer has the mount's syslog message" ;;
  *) fail "logbuffer: $(magic_xattr logbuffer "$mnt")" ;;
esac
expect_eq "maxfd: CVMFS_NFILES less CVMFS's 512 reserved" \
  "$(($(awk '/Max open files/ {print $4}' /proc/"$(magic_xattr pid "$mnt")"/limits) - 512))" \
  "$(magic_xattr maxfd "$mnt")"
expect_eq "ncleanup24 of a private cache without cleanups" "0" "$(magic_xattr ncleanup24 "$mnt")"
expect_eq "timestamp_last_ioerr without errors" "0" "$(magic_xattr timestamp_last_ioerr "$mnt")"
expect_eq "useddirp: no directory open" "0" "$(magic_xattr useddirp "$mnt")"

note "protected attributes"
as_group() { setpriv --reuid=nobody --regid="$1" --clear-groups "${@:2}"; }
nogroup=$(id -g nobody)
err=$(as_group "$nogroup" getfattr --absolute-names -n user.fqrn "$mnt" 2>&1 >/dev/null || true)
case $err in *"No such attribute"*) pass "user.fqrn is hidden from gid $nogroup" ;;
  *) fail "user.fqrn read by gid $nogroup: $err" ;; esac
as_group "$nogroup" getfattr --absolute-names -n user.pubkeys "$mnt" >/dev/null 2>&1 &&
  check_failed "user.pubkeys read by gid $nogroup"
expect_eq "an unprotected attribute for gid $nogroup" "$(magic_xattr revision "$mnt")" \
  "$(as_group "$nogroup" getfattr --absolute-names --only-values -n user.revision "$mnt")"
expect_eq "user.fqrn for the privileged gid $privileged_gid" "$fqrn" \
  "$(as_group $privileged_gid getfattr --absolute-names --only-values -n user.fqrn "$mnt")"
as_group "$nogroup" getfattr --absolute-names -m - "$mnt" 2>/dev/null | grep -q '^user.fqrn' ||
  check_failed "listxattr no longer names the protected user.fqrn"
finish
