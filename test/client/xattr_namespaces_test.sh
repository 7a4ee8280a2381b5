#!/usr/bin/env bash
# Security labels and ACLs that a repository does not have cost `ls -l` no
# round trip per file:
#   - a repository without any extended attribute answers getxattr of
#     security.* and system.posix_acl_* with "Operation not supported", so
#     that ls (and libselinux) stop asking after the first file: `ls -lR`
#     makes a constant number of getxattr calls, not one per file;
#   - a repository with attributes answers "No data available" for the ones
#     an entry lacks and the stored value for the ones it has;
#   - user.* attributes (stored and magic) work in both;
#   - a stored attribute named like a magic one (user.hash, user.pid from a
#     tar member) never overrides it: getxattr answers the magic value and
#     listxattr names it once;
#   - CVMFS_MAGIC_XATTRS_VISIBILITY: listxattr names the magic attributes on
#     the root only (rootonly, the default, as CVMFS), everywhere (always) or
#     nowhere (never); getxattr reads them by name in every case.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"

test_init xattr_namespaces 300
require_bins cvmfs_server cvmfs2
require_cmds strace getfattr setfattr

plain=plain.test.org
attrs=attrs.test.org
for repo in $plain $attrs; do
  src=$WORK/src-$repo
  for d in $(seq 1 5); do
    mkdir -p "$src/d$d"
    for f in $(seq 1 40); do echo "$repo $d $f" >"$src/d$d/f$f"; done
  done
done
setfattr -n user.foo -v bar "$WORK/src-$attrs/d1/f1"
setfattr -n user.hash -v deadbeef "$WORK/src-$attrs/d1/f1"
setfattr -n user.pid -v 1 "$WORK/src-$attrs/d1/f1"
publish_tree $plain "$WORK/src-$plain" data
publish_tree $attrs "$WORK/src-$attrs" data
apache_start "$CVMFS_ROOTDIR/srv"
for repo in $plain $attrs; do
  test_client_config "$WORK/$repo.conf" "$APACHE_URL/cvmfs/@fqrn@" "$(repo_public_key $repo)"
  mount_repo $repo "$WORK/mnt-$repo" "$WORK/$repo.conf"
done

# getxattr_error REPO PATH NAME: getfattr's complaint about NAME on PATH.
getxattr_error() {
  if getfattr --absolute-names -h -n "$3" "$WORK/mnt-$1/data/$2" >/dev/null 2>"$WORK/err"; then
    echo "(no error)"
  else
    cat "$WORK/err"
  fi
}
expect_contains() {  # expect_contains WHAT NEEDLE TEXT
  case $3 in *"$2"*) pass "$1" ;; *) fail "$1: expected '$2' in: $3" ;; esac
}

note "a repository without extended attributes"
for name in security.selinux security.capability system.posix_acl_access system.posix_acl_default; do
  expect_contains "$plain: $name" "Operation not supported" "$(getxattr_error $plain d1/f1 $name)"
done
expect_eq "$plain: user.fqrn still works" $plain "$(magic_xattr fqrn "$WORK/mnt-$plain/data/d1/f1")"
expect_contains "$plain: a missing user.* attribute" "No such attribute" \
  "$(getxattr_error $plain d1/f1 user.missing)"
strace -f -e trace=getxattr,lgetxattr -o "$WORK/ls.trace" ls -lR "$WORK/mnt-$plain/data" >"$WORK/ls.out"
calls=$(grep -c 'getxattr(' "$WORK/ls.trace" || true)
entries=$(grep -c ' f[0-9]' "$WORK/ls.out")
note "ls -lR of $entries files made $calls getxattr calls"
[ "$entries" -eq 200 ] || fail "ls -lR listed $entries files, expected 200"
[ "$calls" -le 4 ] || fail "ls -lR asked $calls getxattr questions for $entries files: $(sort "$WORK/ls.trace" | uniq -c | head)"
pass "ls -lR asks a constant number of getxattr questions ($calls)"

note "a repository with extended attributes"
expect_eq "$attrs: user.foo" bar \
  "$(getfattr --absolute-names --only-values -n user.foo "$WORK/mnt-$attrs/data/d1/f1")"
for name in security.selinux system.posix_acl_access; do
  expect_contains "$attrs: $name" "No such attribute" "$(getxattr_error $attrs d1/f2 $name)"
done

note "stored user.hash and user.pid do not override the magic ones"
f1=$WORK/mnt-$attrs/data/d1/f1
hash=$(magic_xattr hash "$f1")
[ "$hash" != deadbeef ] || check_failed "$attrs: user.hash answered the stored deadbeef"
[ -f "$(server_object_path $attrs "$hash")" ] ||
  check_failed "$attrs: user.hash of d1/f1 is '$hash', not the hash of a stored object"
expect_eq "$attrs: user.pid of d1/f1 is the daemon's" \
  "$(magic_xattr pid "$WORK/mnt-$attrs")" "$(magic_xattr pid "$f1")"
# list_user_xattrs PATH: the user.* names listxattr gives, sorted.
list_user_xattrs() { getfattr --absolute-names -m - "$1" | grep '^user\.' | sort || true; }
# expect_listed WHAT NAMES COUNT NAME...: each NAME appears COUNT times.
expect_listed() {
  local what=$1 names=$2 count=$3 name
  shift 3
  for name in "$@"; do
    expect_eq "$what: times listxattr names $name" "$count" "$(grep -cx "$name" <<<"$names" || true)"
  done
  local dups
  dups=$(uniq -d <<<"$names")
  [ -z "$dups" ] || check_failed "$what: listxattr names these more than once: $dups"
}

note "CVMFS_MAGIC_XATTRS_VISIBILITY: rootonly (the default), always, never"
root=$WORK/mnt-$attrs
expect_listed "$attrs rootonly, d1/f1" "$(list_user_xattrs "$f1")" 1 user.foo
expect_listed "$attrs rootonly, d1/f1" "$(list_user_xattrs "$f1")" 0 user.hash user.pid user.fqrn
expect_listed "$attrs rootonly, root" "$(list_user_xattrs "$root")" 1 user.fqrn user.pid user.revision
expect_eq "$attrs rootonly: user.fqrn of d1/f1 by name" "$attrs" "$(magic_xattr fqrn "$f1")"
for visibility in always never; do
  unmount_repo "$root"
  grep -v '^CVMFS_MAGIC_XATTRS_VISIBILITY=' "$WORK/$attrs.conf" >"$WORK/conf.tmp"
  echo "CVMFS_MAGIC_XATTRS_VISIBILITY=$visibility" >>"$WORK/conf.tmp"
  mv "$WORK/conf.tmp" "$WORK/$attrs.conf"
  mount_repo $attrs "$root" "$WORK/$attrs.conf"
  if [ $visibility = always ]; then
    expect_listed "$attrs always, d1/f1" "$(list_user_xattrs "$f1")" 1 user.hash user.pid user.foo user.fqrn
  else
    expect_listed "$attrs never, root" "$(list_user_xattrs "$root")" 0 user.fqrn user.pid
    expect_listed "$attrs never, d1/f1" "$(list_user_xattrs "$f1")" 1 user.foo
  fi
  expect_eq "$attrs $visibility: user.fqrn of d1/f1 by name" "$attrs" "$(magic_xattr fqrn "$f1")"
done
echo "CVMFS_MAGIC_XATTRS_VISIBILITY=sometimes" >>"$WORK/$attrs.conf"
unmount_repo "$root"
expect_contains "$attrs: a visibility CVMFS does not know is refused by name" \
  CVMFS_MAGIC_XATTRS_VISIBILITY "$(mount_repo_expect_failure $attrs "$root" "$WORK/$attrs.conf")"
finish
