# Publishing test trees with our cvmfs_server (sourced after common.sh). The
# repository lives under $CVMFS_ROOTDIR (srv/cvmfs/FQRN, keys in
# etc/cvmfs/keys), so serving $CVMFS_ROOTDIR/srv with Apache gives the URL
# http://127.0.0.1:PORT/cvmfs/FQRN.
#
#   publish_tree FQRN SRC_DIR BASE [MKFS_OPTIONS...]
#       mkfs (once), then ingest SRC_DIR as a tarball (with user.* xattrs,
#       hardlinks, fifos, numeric owners) into the directory BASE
#   repo_storage FQRN           the repository's storage directory
#   repo_public_key FQRN        its master public key
#   manifest_field FQRN LETTER  a field of .cvmfspublished (C root hash, S revision)
#   server_object_path FQRN HASH
#                               the stored object of a content hash (no suffix)
#   server_lose_object FQRN HASH
#                               removes that object and every bundle holding it
#                               (doc/format-bundles.md): the server lost it

repo_storage() { echo "$CVMFS_ROOTDIR/srv/cvmfs/$1"; }
repo_public_key() { echo "$CVMFS_ROOTDIR/etc/cvmfs/keys/$1.pub"; }

manifest_field() {
  sed -n "/^--\$/q;s/^$2//p" "$(repo_storage "$1")/.cvmfspublished" | head -n 1
}

server_object_path() {
  local hash=$2
  echo "$(repo_storage "$1")/data/${hash:0:2}/${hash:2}"
}

server_lose_object() {
  local fqrn=$1 hash=$2 bundle
  rm -f "$(server_object_path "$fqrn" "$hash")"
  while read -r bundle; do
    [ -z "$bundle" ] || rm -f "$bundle"
  done < <(find "$(repo_storage "$fqrn")/data" -name '*B' -print0 |
    xargs -0r grep -l --text "^$hash " || true)
}

publish_tree() {
  local fqrn=$1 src=$2 base=$3
  shift 3
  require_bins cvmfs_server
  local tarball=$WORK/publish-$fqrn.tar log=$WORK/publish-$fqrn.log
  if [ ! -e "$(repo_storage "$fqrn")/.cvmfspublished" ]; then
    # Test trees are published by ingest: no transaction mounts needed
    # (test/transaction/ sets them up itself).
    CVMFS_SERVER_NO_MOUNT=${CVMFS_SERVER_NO_MOUNT:-1} \
      "$BIN/cvmfs_server" mkfs "$@" "$fqrn" >"$log" 2>&1 ||
      fail "cvmfs_server mkfs $* $fqrn failed: $(cat "$log")"
  fi
  tar --format=posix --xattrs --xattrs-include='user.*' --numeric-owner \
    -C "$src" -cf "$tarball" . || fail "could not tar $src"
  "$BIN/cvmfs_server" ingest -t "$tarball" -b "$base" "$fqrn" >"$log" 2>&1 ||
    fail "cvmfs_server ingest of $src into $fqrn:/$base failed: $(cat "$log")"
  rm -f "$tarball"
  note "published $src as $fqrn:/$base (revision $(manifest_field "$fqrn" S))"
}
