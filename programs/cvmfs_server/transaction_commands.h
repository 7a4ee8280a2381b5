// The transaction commands of cvmfs_server (transaction_commands.cc):
//
//   transaction [FQRN]                    open a transaction
//   publish [-a TAG] [-m MSG] [FQRN]      publish it
//   abort [-f] [FQRN]                     throw its changes away
//   mount [-a | FQRN]                     re-establish the mounts (reboot)
//
// and the transaction parts of mkfs, rmfs, list, ingest and rollback, which
// main() calls.
#ifndef PROGRAMS_CVMFS_SERVER_TRANSACTION_COMMANDS_H_
#define PROGRAMS_CVMFS_SERVER_TRANSACTION_COMMANDS_H_

#include <CLI/CLI.hpp>
#include <string>

#include "cvmfs/status.h"
#include "cvmfs/system_paths.h"
#include "publisher/repository.h"

namespace publisher {

void AddTransactionCommands(CLI::App& app, const cvmfs::SystemPaths& paths);

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
void FollowCurrentRevision(const cvmfs::SystemPaths& paths, Repository* repo);

}  // namespace publisher

#endif  // PROGRAMS_CVMFS_SERVER_TRANSACTION_COMMANDS_H_
