#!/usr/bin/env bash
# A configuration repository (CVMFS_CONFIG_REPOSITORY) as a worker node
# uses one: the node knows only the configuration repository (its server
# and key) and names it in default.d/; a repository of another domain is
# configured by the configuration repository alone (server URL in its
# domain.d/, key in its keys/ through CVMFS_KEYS_DIR). `ls` of that
# repository's name below the autofs mount directory mounts the
# configuration repository first (from the cvmfs2 that automount runs) and
# then the repository. showconfig names the configuration repository's files
# as sources, local files win over them, CVMFS_CONFIG_REPOSITORY cannot be
# changed in default.local, and CVMFS_CONFIG_REPO_REQUIRED=yes makes a
# mount fail clearly when the configuration repository is not there. Last,
# without autofs, the configuration repository's blacklist refuses the
# repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
. "$here/../lib/apache.sh"
. "$here/../lib/client.sh"
. "$here/../lib/publish.sh"
. "$here/../lib/autofs.sh"

test_init config_repository 240
autofs_require
require_bins cvmfs_server

cfg=cfg.example.org
data=data.second.org
etc=$CVMFS_ROOTDIR/etc/cvmfs
mnt_dir=$CVMFS_ROOTDIR/cvmfs

# The repository of the second domain, and its key, which only the
# configuration repository will hold.
mkdir -p "$WORK/data"
echo "configured by $cfg" >"$WORK/data/hello.txt"
publish_tree "$data" "$WORK/data" /
apache_start "$CVMFS_ROOTDIR/srv"

c=$WORK/cfg/etc/cvmfs
mkdir -p "$c/domain.d" "$c/config.d" "$c/keys/second.org"
mv "$(repo_public_key "$data")" "$c/keys/second.org/$data.pub"
cat >"$c/default.conf" <<CONF
CVMFS_MAX_TTL=30
CVMFS_TIMEOUT=7
CVMFS_CONFIG_REPOSITORY=other.example.org
CONF
cat >"$c/domain.d/second.org.conf" <<CONF
CVMFS_SERVER_URL="$APACHE_URL/cvmfs/@fqrn@"
CVMFS_KEYS_DIR=\$CVMFS_MOUNT_DIR/\$CVMFS_CONFIG_REPOSITORY/etc/cvmfs/keys/second.org
CONF
publish_tree "$cfg" "$WORK/cfg" /

# The node: the configuration repository's server and key only.
mkdir -p "$etc/default.d" "$etc/config.d"
echo "CVMFS_CONFIG_REPOSITORY=$cfg" >"$etc/default.d/50-config-repo.conf"
write_client_config "$etc/default.local" \
  "CVMFS_HTTP_PROXY=DIRECT" "CVMFS_CACHE_BASE=$WORK/cache" "CVMFS_QUOTA_LIMIT=500" \
  "CVMFS_DEBUGLOG=$WORK/debug.log" "CVMFS_TIMEOUT=5" \
  "CVMFS_CONFIG_REPOSITORY=ignored.example.org"
write_client_config "$etc/config.d/$cfg.conf" \
  "CVMFS_SERVER_URL=$APACHE_URL/cvmfs/@fqrn@" "CVMFS_PUBLIC_KEY=$(repo_public_key "$cfg")"
show_on_failure "$WORK/debug.log"
[ -z "$(find "$CVMFS_ROOTDIR/etc/cvmfs/keys" -name "$data*.pub")" ] ||
  fail "the key of $data is still in the node's keys directory"

autofs_setup
autofs_start 10

# The repository by name only: automount mounts it, its cvmfs2 mounts the
# configuration repository first.
is_mounted "$mnt_dir/$cfg" && fail "$cfg is mounted before anyone accessed it"
out=$(cat "$mnt_dir/$data/hello.txt" 2>&1) ||
  fail "reading $mnt_dir/$data/hello.txt failed: $out ($(grep -i "$data" "$WORK/automount.log" | tail -n 5))"
expect_eq "content of $data" "configured by $cfg" "$out"
is_mounted "$mnt_dir/$cfg" || check_failed "$cfg was not mounted for $data"
expect_eq "user.fqrn" "$data" "$(magic_xattr fqrn "$mnt_dir/$data")"
pass "$data mounted by name, configured by $cfg alone"

# showconfig: each value with its file, the configuration repository's too.
show=$("$BIN/cvmfs_config" showconfig -s "$data" 2>&1) || fail "showconfig failed: $show"
from() { awk -v n="$1" -F'    # from ' 'index($1, n "=") == 1 { print $2 }' <<<"$show"; }
value() { awk -v n="$1" 'index($0, n "=") == 1 { sub(/    # from .*/, ""); sub(/^[^=]*=/, ""); print }' <<<"$show"; }
repo_etc=$mnt_dir/$cfg/etc/cvmfs
expect_eq "CVMFS_SERVER_URL source" "$repo_etc/domain.d/second.org.conf" "$(from CVMFS_SERVER_URL)"
expect_eq "CVMFS_SERVER_URL" "$APACHE_URL/cvmfs/$data" "$(value CVMFS_SERVER_URL)"
expect_eq "CVMFS_KEYS_DIR" "$repo_etc/keys/second.org" "$(value CVMFS_KEYS_DIR)"
expect_eq "CVMFS_MAX_TTL source" "$repo_etc/default.conf" "$(from CVMFS_MAX_TTL)"
expect_eq "CVMFS_TIMEOUT (the local file wins)" "5" "$(value CVMFS_TIMEOUT)"
expect_eq "CVMFS_TIMEOUT source" "$etc/default.local" "$(from CVMFS_TIMEOUT)"
expect_eq "CVMFS_CONFIG_REPOSITORY" "$cfg" "$(value CVMFS_CONFIG_REPOSITORY)"
expect_eq "CVMFS_CONFIG_REPOSITORY source" "$etc/default.d/50-config-repo.conf" \
  "$(from CVMFS_CONFIG_REPOSITORY)"
grep -q "attempt to change protected CVMFS_CONFIG_REPOSITORY" <<<"$show" ||
  check_failed "showconfig does not warn that default.local cannot change CVMFS_CONFIG_REPOSITORY: $show"
# The configuration repository has no configuration repository.
show_cfg=$("$BIN/cvmfs_config" showconfig -s "$cfg" 2>&1)
grep -q "CVMFS_MAX_TTL" <<<"$show_cfg" && check_failed "$cfg read its own files: $show_cfg"
pass "showconfig names the configuration repository's files"

# CVMFS_CONFIG_REPO_REQUIRED: a configuration repository that cannot be
# mounted (nobody serves it) stops the mount, naming the directory.
echo "CVMFS_CONFIG_REPOSITORY=missing.example.org" >"$etc/default.d/50-config-repo.conf"
echo "CVMFS_CONFIG_REPO_REQUIRED=yes" >>"$etc/default.d/50-config-repo.conf"
msg=$(mount_repo_expect_failure "$data" "$WORK/mnt-required" /dev/null)
grep -qF "required configuration repository directory does not exist: $mnt_dir/missing.example.org/etc/cvmfs" <<<"$msg" ||
  check_failed "the failed mount does not name the missing directory: $msg"
is_mounted "$mnt_dir/missing.example.org" && check_failed "missing.example.org got mounted"
# Without CVMFS_CONFIG_REPO_REQUIRED the mount goes on with the local files
# (and, here, lacks the server URL).
echo "CVMFS_CONFIG_REPOSITORY=missing.example.org" >"$etc/default.d/50-config-repo.conf"
msg=$(mount_repo_expect_failure "$data" "$WORK/mnt-required" /dev/null)
grep -q "configuration repository directory does not exist" <<<"$msg" ||
  check_failed "no warning about the missing configuration repository: $msg"
grep -q "CVMFS_SERVER_URL is not set" <<<"$msg" ||
  check_failed "without the configuration repository the mount should lack CVMFS_SERVER_URL: $msg"
pass "CVMFS_CONFIG_REPO_REQUIRED=yes fails clearly"

autofs_stop
remaining=$(mounts_below "$mnt_dir")
[ -z "$remaining" ] || check_failed "still mounted after stopping automount: $remaining"

# Without autofs: the configuration repository mounted first by hand. Its
# blacklist counts as /etc/cvmfs/blacklist does.
echo "CVMFS_CONFIG_REPOSITORY=$cfg" >"$etc/default.d/50-config-repo.conf"
echo "<$data 99" >"$c/blacklist"
publish_tree "$cfg" "$WORK/cfg" /
mount_repo "$cfg" "$mnt_dir/$cfg" /dev/null
msg=$(mount_repo_expect_failure "$data" "$WORK/mnt-blacklisted" /dev/null)
grep -q "is blacklisted" <<<"$msg" && grep -qF "$mnt_dir/$cfg/etc/cvmfs/blacklist" <<<"$msg" ||
  check_failed "the configuration repository's blacklist did not refuse $data: $msg"
pass "the configuration repository's blacklist is read"
finish
