// SpoolLayout: every name a repository's transactions use on disk, in one
// place (spool area and union mount point, as CVMFS lays them out):
//
//   var/spool/cvmfs/<fqrn>/
//     rdonly/            our client's read-only mount of the base revision
//     scratch/current/   the overlay's upper layer (what a transaction wrote)
//     scratch/wastebin/  old upper layers, removed in the background
//     ofs_workdir/       the overlay's work directory
//     tmp/               publisher temporaries (stale ones are removed)
//     cache/             the rdonly client's private cache
//     client.conf        the rdonly client's configuration (mkfs writes it)
//     client.local       CVMFS_ROOT_HASH=<revision the rdonly mount shows>
//     client.log         output of the last cvmfs2 start
//     in_transaction     state of an open transaction (transaction_state.h)
//     publishing         root hash of a publish that reached its commit
//     content_index.db   uncompressed content -> stored object
//     (content_index.h) is_publishing.lock flock()ed by whoever changes the
//     repository
//     session_token      the gateway lease of the open transaction (CVMFS's
//     name and content: the token alone, mode 0600; gateway_session.h)
//   cvmfs/<fqrn>         the union mount (overlayfs) release managers edit
//
// Thread safety: plain values.
#ifndef PUBLISHER_SPOOL_LAYOUT_H_
#define PUBLISHER_SPOOL_LAYOUT_H_

#include <string>

#include "cvmfs/status.h"
#include "cvmfs/system_paths.h"

namespace publisher {

struct SpoolLayout {
  std::string spool;
  std::string rdonly;
  std::string scratch;
  std::string scratch_current;
  std::string wastebin;
  std::string ofs_workdir;
  std::string tmp;
  std::string client_cache;
  std::string client_config;
  std::string client_local;
  std::string client_log;
  std::string in_transaction;
  std::string publishing;
  std::string content_index;
  std::string lock;
  std::string session_token;
  std::string union_mount;

  // `spool_dir` is the repository's CVMFS_SPOOL_DIR.
  static SpoolLayout For(const cvmfs::SystemPaths& paths,
                         const std::string& fqrn, const std::string& spool_dir);

  // Creates the directories (rdonly, scratch/current, ofs_workdir, tmp,
  // cache and the union mount point); existing ones are kept. The spool
  // and its parent are made searchable (a+x) if an older version made
  // them 0700: the read-only mount's client runs as CVMFS_USER.
  cvmfs::Status CreateDirectories() const;
};

}  // namespace publisher

#endif  // PUBLISHER_SPOOL_LAYOUT_H_
