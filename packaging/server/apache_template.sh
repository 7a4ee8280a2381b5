#!/bin/sh
# apache_template.sh CVMFS_SERVER OUTPUT: the Apache template of the
# cvmfs-server package, made by the packaged cvmfs_server itself (so there is
# one copy of the rules, server/apache_config.cc): the apache.conf that
# `cvmfs_server mkfs` writes for repo.example.org, in a scratch root, with the
# scratch prefix taken off its paths.
set -eu
server=$1 out=$2
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
CVMFS_ROOTDIR=$root CVMFS_SERVER_NO_MOUNT=1 "$server" mkfs repo.example.org >"$root/log" 2>&1 ||
  { cat "$root/log" >&2; exit 1; }
{
  echo "# Template: the Apache configuration \`cvmfs_server mkfs\` (and add-replica)"
  echo "# write to /etc/cvmfs/repositories.d/FQRN/apache.conf. To serve a repository"
  echo "# copied from elsewhere, replace repo.example.org by its name, put the file"
  echo "# into /etc/apache2/conf-available/ and run a2enconf (see cvmfs_server(8))."
  echo "#"
  sed "s|$root||g" "$root/etc/cvmfs/repositories.d/repo.example.org/apache.conf"
} >"$out.tmp"
mv "$out.tmp" "$out"
