// The transaction parts of other cvmfs_server commands: mkfs, rmfs, list,
// ingest and rollback call them. The transaction commands themselves
// (transaction, publish, abort, mount) are AddTransactionCommands in
// commands.h; both live in transaction_commands.cc.
#ifndef PROGRAMS_CVMFS_SERVER_TRANSACTION_COMMANDS_H_
#define PROGRAMS_CVMFS_SERVER_TRANSACTION_COMMANDS_H_

#include <string>

#include "cvmfs/status.h"
#include "cvmfs/system_paths.h"
#include "publisher/repository.h"

namespace cvmfs_server {

// mkfs: sets up the spool area and the mounts; skipped with a warning on
// stderr when this machine cannot mount (not root, no FUSE or overlayfs) or
// CVMFS_SERVER_NO_MOUNT=1 is set. Fails only when mounting was possible but
// went wrong.
cvmfs::Status SetUpTransactions(const cvmfs::SystemPaths& paths,
                                const std::string& fqrn);

// rmfs: unmounts the union and the read-only layer (lazily with `force`) of
// the repository whose spool directory is `spool_dir`.
cvmfs::Status TearDownTransactions(const cvmfs::SystemPaths& paths,
                                   const std::string& fqrn,
                                   const std::string& spool_dir, bool force);

// list: " - in transaction", " - mounts missing" or "".
std::string DescribeTransactionState(const cvmfs::SystemPaths& paths,
                                     const std::string& fqrn);

// After ingest and rollback: the read-only layer follows the new revision.
// Problems are printed as warnings (the revision is published already).
void FollowCurrentRevision(const cvmfs::SystemPaths& paths,
                           publisher::Repository* repo);

}  // namespace cvmfs_server

#endif  // PROGRAMS_CVMFS_SERVER_TRANSACTION_COMMANDS_H_
